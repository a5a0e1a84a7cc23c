"""The level flow's sector reset: the sector's module bodies back with their
joints, frozen ones frozen, the wake gate armed (glue-and-content 3)."""

import numpy as np
import pytest

from bbglue import blocks, meshes
from bbglue.blocks import Physicalize, SetPhysicsHinge
from behaviors import Behavior, manager_of, registry
from behaviors.ballance import player_of
from ivp import MT_NOT_SIM
from test_ballance_world import ballance_ctx, run


def matrices(entities):
    return [e.get_world_matrix().as_array().copy() for e in entities]


def sector_level():
    """No gravity. Sector 1: the plank bridge (planks 1..9 at x 0.5..8.5 on
    hinges at x 0..9, FixCube at both ends) and a frozen pusher behind a wake
    gate; sector 2: a crate (out of the world while sector 1 plays). A stone
    ball at the level start (0, 30, 0)."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 30.0, 0.0), kind="stone", level=False)
    fix = ctx.create_entity("FixCube", position=(0.0, -100.0, 0.0))
    Physicalize(fix, ctx, fixed=True, enable_collision=False, collision_surface="").trigger()
    planks = []
    for i in range(9):
        p = ctx.create_entity(f"Plank{i + 1}", mesh=meshes.box(1.0, 0.2, 2.0, name="plank"),
                              position=(i * 1.0 + 0.5, 0.0, 0.0))
        Physicalize(p, ctx, mass=1.0 if i == 8 else 0.5, collision_group="Modul29").trigger()
        planks.append(p)
    ctx.create_group("Planks", planks)
    ctx.create_group("Joints", [ctx.create_entity(f"Joint{k}", position=(k * 1.0, 0.0, 0.0)) for k in range(10)])
    pusher = ctx.create_entity("Pusher", position=(40.0, 0.0, 0.0))
    Physicalize(pusher, ctx, collision_surface="", start_frozen=True, mass=3.0).trigger()
    ctx.create_group("Module01", [pusher])
    crate = ctx.create_entity("Crate", position=(0.0, 0.0, 60.0))
    Physicalize(crate, ctx, collision_surface="").trigger()
    ctx.create_group("Sector_01", planks + [pusher, ctx.create_entity("Gate", position=(0.0, 0.0, 0.0))])
    ctx.create_group("Sector_02", [crate])
    ctx.create_entity("PC_TwoFlames_01", position=(0.0, 0.0, 500.0))
    gate = registry.create(ctx, "ballance.wake_gate", "Gate", {"bodies": "Module01"})
    bridge = registry.create(ctx, "ballance.plank_bridge", params={"planks": "Planks", "joints": "Joints"})
    level = registry.create(ctx, "ballance.level", params={"hide_delay": 0.0, "rebirth_delay": 0.0,
                                                           "start_delay": 0.0, "birth_delay": 0.0})
    return ctx, level, bridge, gate


def test_a_death_puts_the_sector_bodies_back_with_their_hinges():
    ctx, level, bridge, gate = sector_level()
    planks = ctx.get_group("Planks").entities
    pusher, crate = ctx.get("Pusher"), ctx.get("Crate")
    m0 = matrices(planks + [pusher, crate])
    run(ctx, 2)
    assert gate.fired and ctx.physics.body_of(pusher) in ctx.physics.write_back_objects   # woken by the gate
    ctx.get("Gate").set_position((0.0, 0.0, 300.0))                # so that it cannot fire at the respawn
    player_of(ctx).spawn("stone", (6.0, 2.5, 0.0))                 # over the joint of planks 6 and 7
    run(ctx, 2)
    assert bridge.broken and bridge.hinges[6].handle is None
    for e, d in ((planks[6], (0.0, -1.0, 0.0)), (pusher, (1.0, 0.0, 0.0))):
        blocks.impulse(ctx, e, direction=d, impulse=5.0)
    run(ctx, 10)
    moved = matrices(planks + [pusher])
    assert all(abs(a[3, :3] - b[3, :3]).max() > 0.1 for a, b in zip(moved[6:], m0[6:10]))   # knocked away
    assert not ctx.physics.is_physicalized(crate)                  # sector 2 is not in the world yet
    level.die()
    run(ctx, 2)                                                    # respawn + sector reset, then the message
    assert level.flow == "playing" and level.lives == 2 and level.sector == 1
    after = matrices(planks + [pusher, crate])
    for a, b in zip(after[:9], m0[:9]):
        assert a == pytest.approx(b, abs=1e-5)                     # the planks, back and at rest
    assert np.array_equal(after[9], m0[9])                         # the pusher: back, frozen, never written
    assert ctx.physics.body_of(pusher).object_state == MT_NOT_SIM
    assert not ctx.physics.is_physicalized(crate) and np.array_equal(after[10], m0[10])   # sector 2: untouched
    assert all(h.handle is not None and not h.handle.deleted for h in bridge.hinges)
    assert not bridge.broken and not gate.fired
    assert manager_of(ctx).errors == [] and ctx.errors == []
    ctx.get("Gate").set_position((0.0, 0.0, 0.0))                  # the gate fires again once armed
    run(ctx, 2)
    assert gate.fired and ctx.physics.body_of(pusher) in ctx.physics.write_back_objects


def test_the_swing_force_comes_back_after_a_sector_reset():
    """Module 08: the reset drops the force with the body; "Sector Reset"
    creates the current phase's again, on the new body."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    deck = ctx.create_entity("Deck", position=(50.0, 0.0, 0.0))
    Physicalize(deck, ctx, collision_surface="", mass=10.0).trigger()
    ctx.create_group("Sector_01", [deck])
    swing = registry.create(ctx, "ballance.swing", "Deck")
    level = registry.create(ctx, "ballance.level", params={"hide_delay": 0.0, "rebirth_delay": 0.0,
                                                           "start_delay": 0.0, "birth_delay": 0.0})
    run(ctx, 2)
    push = swing.blocks[1.0]
    assert swing.sign == 1.0 and push.handle is not None
    level.reset_sector()
    assert push.handle is None and deck.get_position() == (50.0, 0.0, 0.0)
    run(ctx)                                                       # "Sector Reset" is delivered
    body = ctx.physics.body_of(deck)
    assert push.handle is not None and push.handle.core is body.core
    run(ctx, 5)
    assert body.core.speed[2] > 0.0                                # pushed along +Z again


@pytest.mark.parametrize("how", ["stop", "reset"])
def test_a_hinge_of_a_behaviour_that_is_done_with_it_is_not_made_again(how):
    class Hinger(Behavior):
        def on_start(self):
            self.hinge = self.own(SetPhysicsHinge(self.entity, self.ctx, object2=self.ctx.get("FixCube"),
                                                  joint_referential=self.ctx.get("Pivot")))
            self.hinge.create()

    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    fix = ctx.create_entity("FixCube", position=(0.0, -100.0, 0.0))
    Physicalize(fix, ctx, fixed=True, enable_collision=False, collision_surface="").trigger()
    door = ctx.create_entity("Door", position=(0.0, 0.0, 0.0))
    Physicalize(door, ctx, collision_surface="").trigger()
    ctx.create_entity("Pivot", position=(1.0, 0.0, 0.0))
    b = manager_of(ctx).attach(Hinger(ctx, door))
    run(ctx)
    first = b.hinge
    assert first.handle is not None
    b.save_ic(door)
    if how == "stop":
        b.stop()
    else:
        manager_of(ctx).reset()
        run(ctx)                                                   # on_start: a new hinge block
    b.reset_bodies(door)
    blocks = ctx.physics.record_of(door).blocks
    assert first.handle is None and first not in blocks
    assert blocks == ([] if how == "stop" else [b.hinge])
    joints = [c for c in ctx.physics.body_of(door).core.controllers_of_core if hasattr(c, "objects")]
    assert len(joints) == (0 if how == "stop" else 1)


def test_reset_bodies_needs_saved_initial_conditions():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    crate = ctx.create_entity("Crate")
    Physicalize(crate, ctx, collision_surface="").trigger()
    b = manager_of(ctx).attach(Behavior(ctx, crate))
    body = ctx.physics.body_of(crate)
    with pytest.raises(KeyError, match="no initial conditions saved"):
        b.reset_bodies()
    assert ctx.physics.body_of(crate) is body


def test_a_bad_sector_group_format_is_named():
    ctx = ballance_ctx(level=False)
    with pytest.raises(ValueError, match="sector_groups"):
        registry.create(ctx, "ballance.level", params={"sector_groups": "Sector_{name}"})
