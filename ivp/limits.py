"""What the engine accepts (docs/ivp.md, "Limits"): a value that would hang
it, divide by zero or make the f32 state infinite is refused by a ValueError
naming the value and the limit, at the top of the public call, before any
state changes; every bundled scene and Ballance level fits. The PSI length
and size bounds repeat ``scenes.limits``' (ivp imports nothing above it)."""

from __future__ import annotations

import gc
import logging
import math
import signal
import threading
import time
import warnings
from contextlib import contextmanager

from .fp import f32

# --- time -------------------------------------------------------------------------------
MIN_PSI_LENGTH, MAX_PSI_LENGTH = 1e-4, 1.0      # seconds per PSI (= scenes.limits)
MAX_SIMULATE_TIME = 3600.0                      # seconds one simulate / simulate_until call may run
SIMULATE_SLICE = 1.0                            # seconds: a longer simulate runs in slices of this length
PROGRESS_EVERY = 2.0                            # seconds of wall time between progress lines of a long simulate

# --- bodies -----------------------------------------------------------------------------
MAX_MASS = 1e9                                  # kg (a mass below MIN_MASS becomes 1, spec 2.4)
MAX_MASS_RATIO = 1e4                            # heaviest / lightest movable body a stack holds (measured,
                                                # docs/ivp.md); past it creation warns
MIN_ROT_INERTIA, MAX_ROT_INERTIA = 1e-9, 1e15   # kg m^2, or the factor when rot_inertia_is_factor
MIN_DAMP, MAX_DAMP = 0.0, 1e3                   # 1/s: speed and rotation damping factors
MIN_INERTIA_CHECK, MAX_INERTIA_CHECK = 0.0, 1.0 # auto_check_rot_inertia: the least component's share of |I| (1.3)
MIN_BALL_RADIUS, MAX_BALL_RADIUS = 1e-3, 1e4    # metres (= scenes.limits MIN_SIZE, MAX_SIZE)
MIN_EXTRA_RADIUS, MAX_EXTRA_RADIUS = 0.0, 1e4   # metres
MAX_SHIFT = 1e5                                 # metres: |x|, |y|, |z| of a mass-centre override (= MAX_COORD)
MAX_SURFACE_PIECES = 1024                       # convex and concave pieces of one surface
MAX_VERTEX = 1e5                                # metres: |x|, |y|, |z| of a surface's vertex (= MAX_COORD)
MIN_FRICTION, MAX_FRICTION = 0.0, 1e3           # a material's friction
MIN_ELASTICITY, MAX_ELASTICITY = 0.0, 1e3       # a material's elasticity (an energy ratio; 1 keeps the energy)

# --- places, pushes and globals ------------------------------------------------------------------
MAX_POSITION = 1e7                              # metres: |x|, |y|, |z| of a body's creation place or a push point
MAX_IMPULSE = 1e9                               # N s: |x|, |y|, |z| of one push or a force's impulse per PSI
MAX_SPEED_CHANGE = 1e5                          # m/s: |x|, |y|, |z| of one async_add_speed
MAX_ROT_SPEED_CHANGE = 1e4                      # rad/s: |x|, |y|, |z| of one async_add_rot_speed
MAX_SPRING_CONSTANT = 1e9                       # N/m, and N s/m for a spring's dampings (12.2)
MAX_GRAVITY = 1e4                               # m/s^2: |x|, |y|, |z| of gravity
MIN_TIME_FACTOR, MAX_TIME_FACTOR = 0.0, 100.0   # the physics manager's time factor (0 pauses; the viewer goes to 8)
F32_FINITE = 3.4028234663852886e38             # the largest f32: a float within it stays finite as f32 (spec 0.2)


def check(what: str, value, low: str | None = None, high: str | None = None, size: int | None = None) -> None:
    """Raise ValueError unless ``value`` (a number, or with ``size`` a sequence
    of that many numbers: every component for ``low``, the largest magnitude
    for ``high``) lies within the limits named ``low`` and ``high``; NaN,
    infinities, values that become infinite once stored as f32 (beyond about
    3.4e38, spec 0.2) and values of the wrong kind or length are always
    refused. ``what`` says where: "object 'ball': radius"."""
    if (size is None and low is None and high is None and type(value) is float
            and -F32_FINITE <= value <= F32_FINITE):
        return                          # the usual case: a finite float, no named limits
    if size is not None:
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or len(value) != size:
            raise ValueError(f"{what} {_short(value)} must be {size} numbers")
        v = tuple(value)
    else:
        v = (value,)
    if not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in v):
        raise ValueError(f"{what} {_short(value)} must be {'numbers' if size else 'a number'}")
    if not all(math.isfinite(c) for c in v):
        raise ValueError(f"{what} {_short(value)} is not finite (NaN or infinite)")
    if low is not None and min(v) < globals()[low]:
        raise ValueError(f"{what} {_shown(v, size)} is below {globals()[low]:g} (limit {low}, docs/ivp.md)")
    if high is not None and max(abs(c) for c in v) > globals()[high]:
        raise ValueError(f"{what} {_shown(v, size)} is above {globals()[high]:g} (limit {high}, docs/ivp.md)")
    if not all(math.isfinite(f32(float(c))) for c in v):
        raise ValueError(f"{what} {_shown(v, size)} is beyond the f32 range, about 3.4e38 (spec 0.2)")


def _shown(v: tuple, size: int | None) -> str:
    """A checked value as a refusal prints it: 2.5, or (1, 0, 3) for a sequence."""
    return f"{v[0]:g}" if size is None else "(" + ", ".join(f"{c:g}" for c in v) + ")"


def check_kind(what: str, value, kind: type) -> None:
    """Raise ValueError unless ``value`` is a ``kind`` (a template, a surface,
    an object): "create_polygon: surface 'box' must be a CompactSurface"."""
    if not isinstance(value, kind):
        raise ValueError(f"{what} {_short(value)} must be a {kind.__name__}")


def warn_mass_ratio(env, name: str, mass: float) -> None:
    """A RuntimeWarning when a movable body of ``mass`` kg makes the heaviest
    and the lightest movable bodies created in ``env`` differ by more than
    MAX_MASS_RATIO: a contact between such bodies may not hold (docs/ivp.md)."""
    low, high = env.movable_mass_range or (mass, mass)
    env.movable_mass_range = (min(low, mass), max(high, mass))
    if mass > low * MAX_MASS_RATIO or mass * MAX_MASS_RATIO < high:
        other = low if mass > low * MAX_MASS_RATIO else high
        warnings.warn(f"object {name!r}: mass {mass:g} kg against a body of {other:g} kg is a ratio above "
                      f"{MAX_MASS_RATIO:g} (limit MAX_MASS_RATIO, docs/ivp.md): a stack of the two may not hold",
                      RuntimeWarning, stacklevel=4)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --- long runs -------------------------------------------------------------------------------

log = logging.getLogger("ivp")


def advance(env, target: float) -> None:
    """The time manager's run to ``target`` with Python's cycle collector
    paused. Collecting in the middle of a PSI traverses every live object of
    the world (1000 resting balls: 17 of 59 ms per step went to it); what it
    owes runs at its next chance after the call. Reference counting, which frees
    everything not in a cycle, is not affected. A caller that had the collector
    off keeps it off."""
    if not gc.isenabled():
        env.time_manager.simulate_until(env, target)
        return
    gc.disable()
    try:
        env.time_manager.simulate_until(env, target)
    finally:
        gc.enable()


def simulate_in_slices(env, target: float) -> None:
    """``env.simulate_until(target)`` for a request longer than SIMULATE_SLICE:
    one slice after another (the same PSIs, so the same state), a progress
    line to the "ivp" log every PROGRESS_EVERY seconds of wall time, and
    Ctrl-C taking effect at the end of its slice: KeyboardInterrupt with
    every PSI before ``env.current_time`` done and the next one queued, so
    ``simulate`` may go on (inside a PSI it would leave cores half integrated)."""
    start, total = env.current_time, target - env.current_time
    shown = time.monotonic()
    with interrupt_deferred() as interrupted:
        t = start
        while t < target:
            t = min(t + SIMULATE_SLICE, target)
            advance(env, t)
            if interrupted():
                raise KeyboardInterrupt(f"environment: simulate stopped at t = {t:g} s, {t - start:g} of "
                                        f"{total:g} s done; the world is consistent there")
            if time.monotonic() - shown >= PROGRESS_EVERY:
                shown = time.monotonic()
                log.info("environment: simulate %g s: %g s done (%d %%), %d PSIs; Ctrl-C stops at the next slice",
                         total, t - start, int(100 * (t - start) / total), env.psi_count)


@contextmanager
def interrupt_deferred():
    """SIGINT sets a flag instead of raising (the main thread only; a second
    Ctrl-C raises at once, as the handler before it would)."""
    hit = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    old = signal.getsignal(signal.SIGINT)

    def defer(_signum, _frame):
        hit.append(True)
        signal.signal(signal.SIGINT, old)

    signal.signal(signal.SIGINT, defer)
    try:
        yield lambda: bool(hit)
    finally:
        signal.signal(signal.SIGINT, old)
