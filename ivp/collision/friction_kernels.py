"""Compiled pieces of the friction system (ivp-contacts 5), shared by its
object path (friction.py) and the resting-contact kernel (single_contact.py)."""

from __future__ import annotations

import math

from ..jit import kernel


@kernel
def spring_impulse(K00, K01, K11, sa, sb, u0, u1, dt, cap):
    """5.6: the tangential impulse x with K x = span / dt - u (K the 2 x 2
    response along t0, t1), shortened to length cap; (False, 0, 0) when K is singular."""
    idt = 1.0 / dt
    a0 = sa * idt - u0
    a1 = sb * idt - u1
    det = K00 * K11 - K01 * K01
    if det == 0.0:
        return False, 0.0, 0.0
    x0 = (K11 * a0 - K01 * a1) / det
    x1 = (K00 * a1 - K01 * a0) / det
    xl = math.sqrt(x0 * x0 + x1 * x1)
    if xl > cap:
        k = cap / xl
        x0 *= k
        x1 *= k
    return True, x0, x1
