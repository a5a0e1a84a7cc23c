"""Scripting with the building blocks: one call per block input, and the reset
of bodies to an initial state with their joints (glue-and-content 2).

    from bbglue import blocks
    body = blocks.physicalize(ctx, ball, ball_count=1, ball_radius_1=2.0, mass=1.9)
    hinge = blocks.hinge(ctx, plank, object2=post, joint_referential=axis)
    hinge.destroy()

Each call builds the block on ``entity`` and activates one input now, as a
behaviour graph would; the handle blocks are returned (``destroy()`` is their
second input). This is the one file that knows which blocks a reset makes again
(``HandleBlock.REMADE_BY_RESET``); the physics manager below it keeps only the
world, the registry, the command queue, the frame step and the write-back.
"""

from __future__ import annotations

from ..entity import CK3dEntity
from ..physics import DEPRECATED_SCRIPTING
from ..vxmath import VxMatrix, quat_from_vx
from .base import ALWAYS, IF_LIVE
from .contacts import PhysicsCollDetection, PhysicsContinuousContact
from .forces import PhysicsImpulse, SetPhysicsForce
from .joints import SetPhysicsBallJoint, SetPhysicsHinge, SetPhysicsSlider, SetPhysicsSpring
from .physicalize import Physicalize
from .world import PhysicsWakeUp


def _trigger(block_class, ctx, entity, pins: dict, input_name: str | None = None):
    blk = block_class(target=entity, context=ctx, **pins)
    blk.trigger(input_name)
    return blk


def physicalize(ctx, entity, **pins):
    """Physicalize's first input; returns the body (the existing one when
    already physicalized: its parameters are not updated)."""
    _trigger(Physicalize, ctx, entity, pins, "Physicalize")
    return ctx.physics.body_of(entity)


def unphysicalize(ctx, entity) -> None:
    """Physicalize's second input."""
    _trigger(Physicalize, ctx, entity, {}, "Unphysicalize")


def set_force(ctx, entity, **pins):
    """SetPhysicsForce's Create; returns the block (``.destroy()`` removes the force)."""
    return _trigger(SetPhysicsForce, ctx, entity, pins)


def impulse(ctx, entity, **pins) -> None:
    _trigger(PhysicsImpulse, ctx, entity, pins)


def spring(ctx, entity, **pins):
    return _trigger(SetPhysicsSpring, ctx, entity, pins)


def hinge(ctx, entity, **pins):
    return _trigger(SetPhysicsHinge, ctx, entity, pins)


def slider(ctx, entity, **pins):
    return _trigger(SetPhysicsSlider, ctx, entity, pins)


def ball_joint(ctx, entity, **pins):
    return _trigger(SetPhysicsBallJoint, ctx, entity, pins)


def wake_up(ctx, entity) -> None:
    _trigger(PhysicsWakeUp, ctx, entity, {})


def coll_detection(ctx, entity, **pins):
    """PhysicsCollDetection's Create; poll ``block.take_outputs()`` and ``block.outputs``."""
    return _trigger(PhysicsCollDetection, ctx, entity, pins)


def continuous_contact(ctx, entity, **pins):
    return _trigger(PhysicsContinuousContact, ctx, entity, pins)


def reset_bodies(ctx, initial) -> list:
    """Put physicalized entities back to an initial state (Ballance's sector
    reset); ``initial`` maps each entity to its initial world matrix.

    For the entities that have a body, in the mapping's order: the objects
    of the handle blocks on them are deleted (forces, joints, springs,
    listeners) and their bodies destroyed; each entity gets its matrix and
    is physicalized again with the settings and pins of its record (Start
    Frozen honoured); then the Create command of every joint and spring
    block that was made on them (also one destroyed since) and of every
    listener that was live is queued again, so a joint whose other body is
    not back yet is made when it is. Forces are not made again. Entities
    without a body are left as they are. Returns the entities reset.
    """
    mgr = ctx.physics
    poses = _initial_poses(ctx, initial)
    records = [mgr.record_of(e) for e, _ in poses]
    blocks = list(dict.fromkeys(b for rec in records for b in rec.blocks))
    live = {b for b in blocks if b.handle is not None}
    for b in blocks:
        if b.handle is not None:
            b.destroy_now(ctx)
    for entity, M in poses:
        mgr.destroy_body(entity)
        entity.set_world_matrix(M)
    for rec in records:
        Physicalize.of_record(rec, ctx).physicalize(mgr)
        mgr.record_of(rec.entity).blocks = rec.blocks
    for b in blocks:
        if b.REMADE_BY_RESET == ALWAYS or (b.REMADE_BY_RESET == IF_LIVE and b in live):
            b.queue_create(ctx)
    return [e for e, _ in poses]


def _initial_poses(ctx, initial) -> list:
    """[(entity, VxMatrix)] of the physicalized entities of ``initial``, every
    entry checked before anything changes."""
    if ctx.physics.simulating:
        raise ValueError("reset_bodies: called during the physics step (a listener); "
                         "call it from a behaviour")
    if not hasattr(initial, "items"):
        raise TypeError(f"reset_bodies: expected a mapping entity -> world matrix, got {initial!r}")
    poses = []
    for entity, m in initial.items():
        if not isinstance(entity, CK3dEntity) or entity.context is not ctx:
            raise TypeError(f"reset_bodies: {entity!r} is not a 3D entity of this context")
        try:
            M = VxMatrix(m)
            quat_from_vx(M)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"reset_bodies: the matrix of {entity.name!r}: {exc}") from None
        if ctx.physics.is_physicalized(entity):
            poses.append((entity, M))
    return poses


SCRIPTING = {f.__name__: f for f in (physicalize, unphysicalize, set_force, impulse, spring, hinge, slider,
                                     ball_joint, wake_up, coll_detection, continuous_contact, reset_bodies)}
DEPRECATED_SCRIPTING.update(SCRIPTING)          # the old ctx.physics.<call>(...) spellings
