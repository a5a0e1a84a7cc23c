"""The write-back hands all awake bodies' matrices to their entities at once
(bbglue.entity.set_world_matrices; ivp spec 4.3)."""

import math

import numpy as np
import pytest

from bbglue import CKContext, blocks, meshes
from ivp.fp import f32

FRAME_MS = 1000.0 / 60.0


def ball(ctx, name, position):
    e = ctx.create_entity(name, mesh=meshes.sphere(2.0), position=position)
    blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=2.0)
    return e


def test_a_parented_body_gets_its_world_pose():
    """Spec 4.3: SetWorldMatrix sets the world matrix, also under a parent."""
    ctx = CKContext()
    parent = ctx.create_entity("parent", position=(8.0, 4.0, 0.0))
    e = ball(ctx, "child", (0.0, 50.0, 0.0))
    e.set_parent(parent)
    for _ in range(3):
        ctx.process_frame(FRAME_MS)
    body = ctx.physics.body_of(e)
    R, vv = body.get_m_world_f_object_AT(ctx.physics.env.current_time)
    m = e.get_world_matrix().as_array()
    assert vv[1] < 50.0                                            # it fell
    assert m[3, :3] == pytest.approx([f32(x) for x in vv], abs=1e-5)
    assert m[:3, :3] == pytest.approx(np.array(R).reshape(3, 3).T, abs=1e-6)   # Vx[c][r] = R[r][c]
    assert parent.get_position() == (8.0, 4.0, 0.0)


def test_a_nan_pose_raises_for_its_entity_after_the_ones_before_it_are_set():
    ctx = CKContext()
    ball(ctx, "a", (0.0, 50.0, 0.0))
    ball(ctx, "b", (10.0, 50.0, 0.0))
    ctx.process_frame(FRAME_MS)
    first, second = ctx.physics.write_back_objects
    for body in (first, second):
        body.client_data.set_position((0.0, 0.0, 0.0))
    second.core.pos_world_f_core_last_psi = (math.nan, 50.0, 0.0)
    with pytest.raises(ValueError, match=f"'{second.name}'.*NaN"):
        ctx.physics.write_back()
    assert first.client_data.get_position()[1] > 40.0             # set from its body
    assert second.client_data.get_position() == (0.0, 0.0, 0.0)   # left as it was
