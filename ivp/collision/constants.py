"""Contact constants (ivp-contacts 2), each named once.

Section 2.1's distances derive from the collision tolerance t = (f64)0.01f
(set_collision_tolerance, never changed by Ballance) and are stored f32.
"""

from __future__ import annotations

import math

from ..fp import f32

COLLISION_TOLERANCE = f32(0.01)

# 2.1 IVP_Mindist_Settings
REAL_COLL_DIST = f32(0.1 * COLLISION_TOLERANCE)                       # 0.001
MIN_COLL_DISTS = f32(REAL_COLL_DIST + 0.9 * COLLISION_TOLERANCE)      # 0.010
COLL_DIST = MIN_COLL_DISTS                                            # every coll_dists[i]
MINIMUM_FRICTION_DIST = MIN_COLL_DISTS                                # impact-system trigger (4.8)
MINDIST_CHANGE_FORCE_DIST = f32(0.1 * MIN_COLL_DISTS)                 # 0.001
FRICTION_DIST = f32(MINIMUM_FRICTION_DIST + COLLISION_TOLERANCE)      # 0.020
MAX_DISTANCE_FOR_FRICTION = f32(FRICTION_DIST + 2.5 * COLLISION_TOLERANCE)         # 0.045
MAX_DISTANCE_FOR_IMPACT_SYSTEM = f32(FRICTION_DIST + 20.0 * COLLISION_TOLERANCE)   # 0.220
MIN_VERTICAL_SPEED_AT_COLLISION = f32(2.0 * COLLISION_TOLERANCE)                   # 0.02 m/s

# 2.2 impacts (4)
IMPACT_STEP_FRACTION = 0.1
COMPRESSION_STEP_LIMIT = 100
IMPACT_EPS = f32(10e-5)                      # written 10E-5f
SAFETY_FACTOR_FOR_DELAY = 1.2
ROT_MAX_UNCERTAINTY = 0.5                    # rad
COLL_DETECT_MIN_INV_TIME = 200.0             # 1/s (0.005 s)
SPEED_ADDON_SYSTEM_IMPACT = 0.01             # m/s per sqrt(system impacts)
INV_HALF_CONSERVATION_STEPS = 0.5
MAXIMUM_SYSTEM_PUSH_NUMBER = 5000
FIXED_VIRTUAL_MASS_FACTOR = 100000.0

# 2.2 friction system (5)
NORMAL_SPEEDUP = 1.0                         # 1/s below friction_dist
DESCENDING_SPEEDUP = 20.0                    # 1/s above it
MAX_FRICTION_MATRIX = 150
MAX_ADHESION_GAUSS = 0.01                    # times |gravity|
EASE_EVERY_NTH_PSI = 5
MAX_ENERGY_DESTROY = 0.1
MUTUAL_FIXED_FACTOR = 10000.0               # a fixed core's 'mass' in destroy_mutual_energy (5.8)
ENERGY_DAMP_LOG = math.log(0.9)              # integrated_energy_damp = exp(ln 0.9 dt)
ENERGY_GAIN_ALLOWANCE = 9.81 * 0.1           # per kg of movable mass
NEGATIVE_PULL_LIMIT = 9
GAUSS_MATRIX_EPS = 1.0 / 10e8                # written 1/10E8f
INEQUALITY_EPS = 1e-5
LCP_SOLVER_EPS = 1e-7                        # the LCP's zero (5.5)
LCP_TEST_EPS = 1e-4                          # its residual test
LCP_MAX_STEP_LEN = 10000.0
LCP_MAX_STEPS = 250                          # steps that move the sets
LCP_TEST_EVERY = 7                           # steps between residual tests
P_FLOAT_RES = 1e-6

# 3 mindists and events
HULL_LOOK_AHEAD_PSIS = 2.1
EVENT_RASTER = 1.0 / 200.0
EVENT_RASTER_STEPS = 20
ROOT_TOLERANCE = 1e-8
ROOT_MAX_ITERATIONS = 64
NOT_APPROACHING_EPS = 1e-10
NEAR_NOW = 1e-6                              # an event this close to now is suspicious (3.5)
