"""A reset of the behaviours puts the bodies of entities with saved initial
conditions back, with their joints (BehaviorManager.reset, behaviors.reset)."""

import numpy as np
import pytest

import behaviors
from bbglue import blocks
from bbglue.blocks import SetPhysicsHinge
from behaviors import Behavior, manager_of
from test_sector_reset import hanging_plank, knock, matrix, run, world


class Hanger(Behavior):
    """Saves its entity's initial conditions and hangs it on a hinge of its own."""

    def on_start(self):
        self.save_ic()
        self.hinge = self.own(SetPhysicsHinge(self.entity, self.ctx, object2=self.ctx.get("FixCube"),
                                              joint_referential=self.ctx.get("Top")))
        self.hinge.create()


def joints_of(ctx, e):
    return [c for c in ctx.physics.body_of(e).core.controllers_of_core if hasattr(c, "objects")]


def centre(ctx, e):
    return np.array(ctx.physics.body_of(e).core.pos_world_f_core_last_psi)


def swinging(ctx, fix):
    """Gravity 20 down: a 0.4 x 4 plank (mass 1) hanging at rest from the
    scene's hinge at (0, 10, 0), its centre 2 below, and a crate hanging on a
    Hanger's hinge at (10, 10, 0), 2 below too; both knocked and swinging."""
    plank, hinge = hanging_plank(ctx, fix)
    crate = ctx.create_entity("Crate", mesh=plank.mesh, position=(10.0, 8.0, 0.0))
    blocks.physicalize(ctx, crate)
    ctx.create_entity("Top", position=(10.0, 10.0, 0.0))
    m = manager_of(ctx)
    m.attach(Behavior(ctx, plank)).save_ic()
    m.attach(Hanger(ctx, crate))
    run(ctx)
    for e in (plank, crate):
        knock(ctx, e, (0.0, -2.0, 0.0), (1.0, 0.0, 0.0), 2.0)
    run(ctx, 30)
    return plank, crate, hinge


@pytest.mark.parametrize("how", ["manager", "behaviors.reset"])
def test_a_reset_puts_the_bodies_back_at_rest_with_their_joints(how):
    ctx, fix = world()
    plank, crate, hinge = swinging(ctx, fix)
    m0 = {e: np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [x, 8, 0, 1]], dtype=float)
          for e, x in ((plank, 0.0), (crate, 10.0))}
    old = {e: ctx.physics.body_of(e) for e in (plank, crate)}
    for e in (plank, crate):
        assert abs(matrix(e)[3, 0] - m0[e][3, 0]) > 0.1                    # swung away
    manager_of(ctx).reset() if how == "manager" else behaviors.reset(ctx)
    for e in (plank, crate):
        assert np.array_equal(matrix(e), m0[e])                               # back, bit for bit
        body = ctx.physics.body_of(e)
        assert body is not old[e] and tuple(body.core.speed) == (0.0, 0.0, 0.0)
    assert len(joints_of(ctx, plank)) == 1 and hinge.handle is not None       # the scene's hinge, made again
    assert joints_of(ctx, crate) == []                                        # the Hanger's: disposed of
    run(ctx)                                                                  # on_start: the Hanger's hinge again
    assert len(joints_of(ctx, crate)) == 1
    run(ctx, 40)                                                              # ~0.6 s: a free body falls ~3.6
    for e, anchor in ((plank, (0.0, 10.0, 0.0)), (crate, (10.0, 10.0, 0.0))):
        assert np.linalg.norm(centre(ctx, e) - anchor) == pytest.approx(2.0, abs=1e-3)
        assert centre(ctx, e)[1] == pytest.approx(8.0, abs=1e-3)               # hanging at rest
    assert ctx.errors == [] and manager_of(ctx).errors == []


def test_behaviors_reset_keeps_the_world_and_the_bodies_without_initial_conditions():
    ctx, fix = world()
    plank, crate, hinge = swinging(ctx, fix)
    loose = ctx.create_entity("Loose", mesh=plank.mesh, position=(0.0, 0.0, 30.0))
    body = blocks.physicalize(ctx, loose)
    run(ctx, 5)
    fallen = matrix(loose)
    assert fallen[3, 1] < 0.0
    frame_count = ctx.time_manager.frame_count
    behaviors.reset(ctx)
    assert ctx.time_manager.frame_count == 0 < frame_count
    assert ctx.physics.body_of(loose) is body and ctx.physics.body_of(fix) is not None
    assert ctx.physics.gravity == (0.0, -20.0, 0.0)
    assert np.array_equal(matrix(loose), fallen)                          # left where it was
    assert np.array_equal(matrix(crate)[3, :3], (10.0, 8.0, 0.0))
