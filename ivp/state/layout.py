"""The column layouts of the engine's rows (issue 11): every core keeps its
state in a row of the body table (ivp.state.bodies), a contact point on loan
in a row of ``PointRows.rows`` (ivp.collision.points); the kernels of
ivp.lane, ivp.controllers.constraint and ivp.collision read them by these
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


# a loaned contact point's row (PointRows): the resting pass's inputs, side 1's
# kind and points, the extra radii, span, N, mu, inv_virt_mass_no_dir and
# last_time (span, N and last_time also the pass's results), then its other
# results; R_CS, RXN side 0's levers, R_CS1, RXN1 side 1's (zero for a fixed side)
CP_IN = 21
IN_SPAN, IN_N, IN_MU, IN_INV_VM_NO_DIR, IN_LAST_TIME = 15, 17, 18, 19, 20
GAP, NORMAL, POINT, T0, T1, R_CS, RXN = 21, 22, 25, 28, 31, 34, 37
INV_VM, BROKEN, RECHECK, LAST_GAP, LAST_N, NO_LAST_N, IMPACTS, FRESH = 40, 41, 42, 43, 44, 47, 48, 49
R_CS1, RXN1 = 50, 53
POINT_WIDTH = 56


def free_row(rows, holders: list, k: int, slot: str) -> None:
    """Row k of ``rows`` is free: the last row moves into it, and its holder
    (the last of ``holders``, the object of each row) to ``holders[k]``, its
    ``slot`` attribute following. The vacated last row is zeroed: rows past
    the holders are no part of the state (a snapshot's hash does not see what
    a freed row held, so a world whose rows were given back and taken again
    hashes as one that kept them)."""
    last = len(holders) - 1
    moved = holders.pop()
    if k != last:
        rows[k] = rows[last]
        holders[k] = moved
        setattr(moved, slot, k)
    rows[last] = 0.0
