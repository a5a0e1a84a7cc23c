"""Named states (spec 0.4, 1.6): movement states of cores and objects, and the
environment's PSI phase. Compared as the spec compares them: a core is
simulated while ``movement_state < MT_NOT_SIM``."""

# Movement states (IVP_Movement_Type, 0.4).
MT_MOVING = 1
MT_SLOW = 2
MT_CALM = 3
MT_NOT_SIM = 8
MT_STATIC = 0x10

# SimUnit.state (1.4): the list a unit is in (10.0).
SU_ACTIVE = 1
SU_FROZEN = 8

# env.state (1.6, env +0x144): where the environment is in its PSI.
STATE_PSI_START = 0
STATE_HULLS = 2
STATE_BETWEEN_PSIS = 5
