"""The engine's state bookkeeping that every layer of ivp reads (DESIGN "State
and the hot path"): the environment's epoch of changes (:mod:`.epoch`) and the
column layouts of the lane's core rows and the contact point rows
(:mod:`.layout`). Nothing here imports the rest of ivp."""
