"""The engine's state bookkeeping that every layer of ivp reads (DESIGN "State
and the hot path"): the body table that owns every core's state (:mod:`.bodies`), the contact
table that owns every friction contact point's (:mod:`.contacts`), their base
(:mod:`.table`) and the column layouts of the body rows and the contact point
rows (:mod:`.layout`). Nothing here imports the rest of ivp."""
