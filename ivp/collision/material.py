"""Materials and pair filters (surfaces-and-contacts 2)."""

from __future__ import annotations

import math

DEFAULT_FRICTION = 0.7      # Physicalize's Friction pin default (glue-and-content 2)
DEFAULT_ELASTICITY = 0.4    # Physicalize's Elasticity pin default


class Material:
    """Spec 2: (friction, elasticity) of one physicalized body.

    Elasticity is an energy ratio: a pair separates at v_in sqrt(e0 e1).
    """

    __slots__ = ("friction", "elasticity")

    def __init__(self, friction: float = DEFAULT_FRICTION, elasticity: float = DEFAULT_ELASTICITY):
        for what, v in (("friction", friction), ("elasticity", elasticity)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0.0:
                raise ValueError(f"Material: {what} {v!r} must be a finite number >= 0")
        self.friction = float(friction)
        self.elasticity = float(elasticity)

    def __repr__(self) -> str:
        return f"Material(friction={self.friction}, elasticity={self.elasticity})"


DEFAULT_MATERIAL = Material()


def material_of(obj) -> Material:
    """The object's material; None means Physicalize's defaults (0.7, 0.4)."""
    m = obj.material
    if m is None:
        return DEFAULT_MATERIAL
    if not isinstance(m, Material):
        raise TypeError(f"object {obj.name!r}: material must be an ivp.collision.Material, got {type(m).__name__}")
    return m


def pair_friction_elasticity(obj0, obj1):
    """Spec 2: mu = f0 f1, e = e0 e1."""
    m0 = material_of(obj0)
    m1 = material_of(obj1)
    return m0.friction * m1.friction, m0.elasticity * m1.elasticity


def may_collide(a, b) -> bool:
    """Spec 2: Enable Collision, collision groups (8 characters), unmovable pairs."""
    if not (a.collision_enabled and b.collision_enabled):
        return False
    ga = a.nocoll_group[:8]
    if ga and ga == b.nocoll_group[:8]:
        return False
    return not (a.core.physical_unmoveable and b.core.physical_unmoveable)
