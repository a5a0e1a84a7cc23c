"""A wood ball coming down fast onto a rail pair is caught (issue 40).

Measured on level 06 (docs/levels.md, level 06): off `A_01_Rail_01`'s end
the wood ball meets `A_01_Rail_03`'s pair (3.8 apart centre to centre)
falling at about 17.8 with 5 forward. The pair's gap between the tubes'
faces, 3.8 - 0.7 = 3.1, is narrower than the ball (4): the ball rests on
the two rails' inner upper corners and cannot pass between them.
"""

import math

import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.balls import player_of
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, played_at_once, stone_course, translation
from virtools_levels import plate as virtools_plate

FRAME_MS = 1000.0 / 60.0
RADIUS, TUBE, HALF_GAP, MID_X = 2.0, 0.35, 1.9, 20.0
GAP = 0.02      # a resting contact's gap (ivp-contacts.txt, the normal solve: "gap -> 0.020")
# The octagonal tube's vertex at 22.5 degrees (meshes.octagonal_rail) is the
# nearest point of each rail to a ball between them: its centre rests where
# it is 2.02 from both, above the rails' axes (y 0) by:
CORNER = (TUBE * math.cos(math.pi / 8.0), TUBE * math.sin(math.pi / 8.0))
REST_Y = CORNER[1] + math.sqrt((RADIUS + GAP) ** 2 - (HALF_GAP - CORNER[0]) ** 2)     # 1.3967


def rail_pair_level() -> LevelBuilder:
    """The start's floor at the origin and, apart from it, a rail pair along
    Z (axes at y 0, x 18.1 and 21.9, z 0 to 30: level 06's spacing)."""
    b = LevelBuilder()
    floor = virtools_plate(b, "A01_Floor_01", [(-5, 0, -5), (5, 0, -5), (5, 0, 5), (-5, 0, 5)],
                           b.material("Floor", 0xFF8C8577))
    rail = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(TUBE, 30.0), b.material("Rail", 0xFFB5B9BF))
    rails = [b.entity(f"A01_Rail_0{i}", rail, translation(MID_X + s * HALF_GAP, 0.0, 15.0))
             for i, s in ((1, -1.0), (2, 1.0))]
    b.group("Phys_FloorRails", rails)
    return stone_course(b, [floor], b.material("Stone", 0xFF808080), (0, 2, 0))


@pytest.mark.parametrize("across", [0.0, -0.36])
def test_a_wood_ball_falling_fast_onto_a_rail_pair_stays_on_it(tmp_path, across):
    """Thrown down onto the pair at level 06's impact velocity (0, -17.8, 5),
    centred and 0.36 to one side (as the level's flight came down), the
    ball never goes below its rest between the rails nor out past either
    rail, and comes to rest on their midline at REST_Y."""
    game_folder(tmp_path, rail_pair_level().data(), {})
    ctx = played_at_once(scenes.load(game_level(str(tmp_path), 1))).ctx
    ctx.process_frame(FRAME_MS)
    player = player_of(ctx)
    player.spawn("wood", (MID_X + across, REST_Y + 0.5, 8.0))
    ctx.process_frame(FRAME_MS)
    body = ctx.physics.body_of(player.ball)
    v = body.core.speed
    body.async_add_speed_object_ws((-v[0], -17.8 - v[1], 5.0 - v[2]))
    path = []
    for _ in range(240):
        ctx.process_frame(FRAME_MS)
        assert player.ball is not None, "the ball died"
        path.append(tuple(player.ball.get_position()))
    assert min(p[1] for p in path) > REST_Y - 0.3              # never sunk between the rails
    assert max(abs(p[0] - MID_X) for p in path) < HALF_GAP     # not over either rail
    x, y, _ = path[-1]
    assert abs(x - MID_X) < 0.005
    assert abs(y - REST_Y) < 0.005
