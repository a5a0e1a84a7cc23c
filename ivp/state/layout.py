"""The column layouts of the engine's tables (issue 11, issue 39): every core
keeps its state in a row of the body table (ivp.state.bodies), every friction
contact point in a row of the contact table (ivp.state.contacts); the kernels
of ivp.step, ivp.controllers.constraint and ivp.collision read them by these
names."""

from __future__ import annotations

# a core's row (BodyTable.rows); from INV_I on, written through from the core's fields
SPEED, ROT_SPEED, SPEED_CHANGE, ROT_SPEED_CHANGE = 0, 3, 6, 9
MOTION_END = 12             # speed, rot_speed and their pending changes: one block from 0
POS, DELTA, Q_LAST, Q_NEXT, M_R, M_POS = 12, 15, 18, 22, 26, 35
AXIS, CUR_SPEED, ABS_OMEGA, MAX_SURF_ROT, T_LAST, I_DT = 38, 41, 42, 43, 44, 45
CALM_T, CALM_Q0, CALM_Q1, CALM_P0, CALM_P1, STATE = 46, 48, 52, 56, 59, 62
INV_I, INV_M, ROT_I, EQUAL_I, MAX_ROT, HAS_MAX_ROT = 63, 66, 67, 70, 71, 74
DEVIATION, RADIUS, DAMP, DAMP_CALM, BOUND = 75, 76, 77, 81, 85
WIDTH = 86


# a contact point's row (ContactTable.rows, ivp.state.contacts): ivp-contacts 5.1's
# fields of the point and of its last update (5.3's "info"). SIDE1: side 1's kind
# and four points (ContactPoint.side_data) when side 1 is fixed (the resting pass
# reads them); X0, X1: the objects' extra_radius; then from SPAN to FRESH the
# block friction_kernels.put_update writes at once; R_CS, RXN side 0's levers, R_CS1,
# RXN1 side 1's (zero for a fixed side); NO_LAST_N: last_n is None
SIDE1, X0, X1 = 0, 13, 14
PRESSURE, MU, INV_VM_NO_DIR, ELASTICITY = 15, 16, 17, 18
RECHECK, LAST_GAP, NEG_PULL, REACHED, ADDON = 19, 20, 21, 22, 23
SPAN, LAST_TIME, GAP, NORMAL, POINT, T0, T1 = 24, 26, 27, 28, 31, 34, 37
R_CS, R_CS1, RXN, RXN1, INV_VM, BROKEN = 40, 43, 46, 49, 52, 53
LAST_N, NO_LAST_N, IMPACTS, FRESH = 54, 57, 58, 59
POINT_WIDTH = 60


# a core pair's row of its friction system's pair table (FrictionSystem.pair_table,
# ivp.collision.friction.CorePair): integrated_anti_energy, next_ease_nr_psi
ANTI, EASE = 0, 1
PAIR_WIDTH = 2
