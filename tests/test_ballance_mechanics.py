"""The mechanisms of a Ballance level as the original runs them, on level
files the tests write (tests/virtools_levels.py): a sector's props are in the
physics world only while it is the current sector (the original's Activate /
Deactivate Sector)."""

import pytest

import scenes
from behaviors.ballance import player_of
from behaviors.ballance.level import level_behavior
from test_ballance_world import run
from virtools_levels import played_at_once, two_sector_level


@pytest.fixture
def level_file(tmp_path):
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(two_sector_level().data())
    return str(path)


def test_a_prop_of_sector_2_stays_where_it_was_authored_while_sector_1_plays(level_file):
    """P_Ball_Stone_01 (sector 2) hangs at (40, 5, 0) over nothing, P_Box_01
    (sector 1) at (20, 5, 0): the box falls at once, the stone ball waits,
    hidden and out of the world, until checkpoint 1 activates sector 2."""
    ctx = played_at_once(scenes.load(level_file)).ctx
    stone, box = ctx.get("P_Ball_Stone_01"), ctx.get("P_Box_01")
    authored = stone.get_world_matrix().as_array().copy()
    run(ctx, 30)                                                   # half a second: 1 s simulated, g = 20
    assert box.get_position()[1] < 5.0 - 5.0                       # sector 1's prop: in the world, it falls
    run(ctx, 150)
    assert not ctx.physics.is_physicalized(stone) and not stone.is_visible()
    assert (stone.get_world_matrix().as_array() == authored).all()
    level = level_behavior(ctx)
    player_of(ctx).spawn("wood", level.checkpoint_centre(ctx.get("PC_TwoFlames_01")))
    run(ctx, 2)
    assert level.sector == 2
    assert ctx.physics.is_physicalized(stone) and stone.is_visible()
    assert stone.get_position() == pytest.approx(tuple(authored[3, :3]), abs=0.05)   # from where it was authored
    run(ctx, 30)
    assert stone.get_position()[1] < 5.0 - 5.0                     # now it falls
