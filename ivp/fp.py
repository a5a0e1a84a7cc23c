"""Spec 0.2: precision helpers and the named constants of the DLL.

All arithmetic in the port is Python ``float`` (f64, standing in for the x87
extended precision of the original). A value the spec stores as f32 is rounded
with :func:`f32` at the store. Engine state never holds numpy float32 scalars.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from .jit import kernel

_F = struct.Struct("<f")
_F2 = struct.Struct("<2f")
_F3 = struct.Struct("<3f")
_F6 = struct.Struct("<6f")


def f32(x: float) -> float:
    """Round an f64 to the nearest IEEE single (as an x87 store to a float)."""
    try:
        return _F.unpack(_F.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f32v(x: float, y: float, z: float) -> tuple[float, float, float]:
    """Round three f64 values to f32 at once (a f32[3] store)."""
    try:
        return _F3.unpack(_F3.pack(x, y, z))
    except OverflowError:
        return (f32(x), f32(y), f32(z))


def f32v2(x: float, y: float) -> tuple[float, float]:
    """Round two f64 values to f32 at once (two f32 stores)."""
    try:
        return _F2.unpack(_F2.pack(x, y))
    except OverflowError:
        return (f32(x), f32(y))


def f32v6(x0: float, y0: float, z0: float, x1: float, y1: float, z1: float) -> tuple:
    """Round six f64 values to f32 at once (two f32[3] stores, e.g. rot_speed
    and speed in one pass)."""
    try:
        return _F6.unpack(_F6.pack(x0, y0, z0, x1, y1, z1))
    except OverflowError:
        return (f32(x0), f32(y0), f32(z0), f32(x1), f32(y1), f32(z1))


def hexf64(h: str) -> float:
    """The f64 whose big-endian bit pattern is the hex string ``h``."""
    return struct.unpack(">d", bytes.fromhex(h))[0]


def hexf32(h: str) -> float:
    """The f32 (widened to f64) whose big-endian bit pattern is ``h``."""
    return struct.unpack(">f", bytes.fromhex(h))[0]


@kernel
def isqrt_newton_k(n, buf, ibuf):
    """1/sqrt(n) as 0x1000e120 computes it (8.3): the bit-trick guess, then
    five Newton steps (they converge to the f64 result); ``buf`` is one
    float64, ``ibuf`` its int64 view. Written out without a loop: it runs
    several times per body and PSI."""
    buf[0] = n
    i = ibuf[0]
    ibuf[0] = 0x5FE6EB50C7B537A9 - (i >> 1)
    y = buf[0]
    h = 0.5 * n
    y = y * (1.5 - h * y * y)
    y = y * (1.5 - h * y * y)
    y = y * (1.5 - h * y * y)
    y = y * (1.5 - h * y * y)
    y = y * (1.5 - h * y * y)
    return y


def isqrt_newton(n: float) -> float:
    """:func:`isqrt_newton_k` of a Python float."""
    buf = np.empty(1)
    return float(isqrt_newton_k(n, buf, buf.view(np.int64)))


def inv_dt(dt: float) -> float:
    """1/dt, or 9999999866.485682 when dt <= 1e-10 (2.4, 8.1, 10.4)."""
    return 1.0 / dt if dt > EPS_DT else HUGE_I_DT


# Named constants (hex origin in the DLL).
TENTH_F = hexf32("3dcccccd")                  # 0.1f, extra damping when calm (7.3)
ONE_SIXTH_F = hexf32("3e2aaaab")              # (f32)(1/6), quat_poly and asin (3, 8.3)
ASIN_S5_F = hexf32("3eceeb70")                # 0.40413999557495117f (8.3)
POINT_FOUR_F = hexf32("3ecccccd")             # 0.4f, ball inertia factor (2.4)
AUTO_CHECK_ROT_INERTIA = hexf32("3cf5c28f")   # 0.03f (1.3)
DEFAULT_DAMP = hexf64("3f847ae140000000")     # (f64)0.01f (1.3)
CALC_CALC_EPS = hexf64("3f847ae151eb8520")    # 0.010000000298023226 (2.6)
FREEZE_CHECK_TIME_F = hexf32("3e99999a")      # 0.3f (1.6)
DELTA_PSI_TIME = hexf64("3f8f07c1f07c1f08")   # 1/66 (1.6)
EPS_DT = hexf64("3ddb7cdfe0000000")           # 1e-10 (2.4)
HUGE_I_DT = hexf64("4202a05f1bd3e2ad")        # 9999999866.485682 (2.4)
MIN_MASS = hexf64("3e45798ee2308c3a")         # 1e-8 (2.4)
QUAT_NORM_EPS = hexf64("3bfd83c94fb6d2ac")    # 1e-19 (2.3)
SHIFT_ZERO_EPS = hexf64("3c9cd2b297d889bd")   # 1e-16 (2.5)
GYRO_X_LIMIT = hexf64("3f9c71c71c71c71c")     # 1/36 (8.2)
GYRO_144 = hexf64("4062000000000000")         # 144.0 (8.2)
DAMP_LINEAR_LIMIT = hexf64("3fe0000000000000")  # 0.5 (7.3)
SLERP_LERP_LIMIT = hexf64("3feff7ced9100000")  # (f64)0.999f (3)
SLEEP_POS0 = hexf64("3f1a36e2d7731900")       # 9.999999552965169e-05 (10.2)
SLEEP_ROT0 = hexf64("3efa36e2d7731900")       # 2.4999998882412923e-05 (10.2)
SLEEP_POS1 = hexf64("3f847ae151eb8520")       # 0.010000000298023226 (10.2)
SLEEP_ROT1 = hexf64("3fa47ae151eb8520")       # 0.040000001192092904 (10.2)
SLEEP_LONG_WINDOW = 4.0                       # (10.2)
MAX_VELOCITY_F = hexf32("44fa0000")           # 2000.0f (9)
MAX_ANGULAR_PER_PSI_F = hexf32("3fc90fdb")    # (f32)pi/2 (9)
MAX_COLLISIONS_PER_PSI = 70000                # (9)
ANOMALY_V_FACTOR = hexf64("3fefae1480000000")  # 0.99000000953674 (9)
ANOMALY_W_FACTOR = hexf64("3fecccccc0000000")  # 0.8999999761581 (9)
RNG_SCALE_F = hexf32("37800000")              # 2^-16 (10.1)
MINUS_FIVE_F = -5.0                           # 0xc0a00000 at 0x100635b4 (10.1)
DEFAULT_RADIUS_F = hexf32("447a0000")         # 1000.0f (2.2)
EMPTY_QUEUE_F = hexf32("501502f9")            # 1e10f (11.1)
FORCE_DIR_EPS = hexf64("3f1a36e2eb1c432d")    # 1e-4 (7.2)
