"""The finish balloon's physics (glue-and-content 3, "Finish balloon" and
"Triggers"): on a level and a PE_Balloon prefab the test writes, the
platform on its slider and spring to the box, the bridge of 8 hinged
plates to it, and the finish: 1 around the platform.

The prefab (its root at the placeholder, the origin): the platform's origin
at (0, 0, 0), its deck 8 x 1 x 8 with its top 2 below the origin (a ball
resting on it has its centre at the origin, as in the original's pit); the
box 20 above; the 8 plates (1.5 x 0.5 x 5, tops level with the deck) along
-X with hinge k at x = -4 - 1.6 (k - 1), hinge 9 at -16.8 to the world; the
level's floor (top -2) ends at x -17, under hinge 9.
"""

import numpy as np
import pytest

import scenes
from bbglue import blocks, meshes
from behaviors.ballance import player_of
from behaviors.ballance.balls import BALL_KINDS, wake
from behaviors.ballance.level import FINISHED, level_behavior
from scenes.virtools import game_level, import_level, reader as r
from virtools_levels import LevelBuilder, course_groups, game_folder, played_at_once, translation

FRAME_MS = 1000.0 / 60.0
BOX_Y = 20.0                    # the box above the platform's origin
PITCH = 1.6                     # hinge to hinge
P = "PE_Balloon_01."
PLATFORM = P + "PE_Balloon_Platform"


def hinge_x(k: int) -> float:
    return -4.0 - PITCH * (k - 1)


def balloon_prefab() -> LevelBuilder:
    b = LevelBuilder()
    mat = b.material("Wood", 0xFF806040)
    root = b.entity("PE_Balloon_MF", None, translation(0, 0, 0), class_id=r.CK_3DENTITY)
    deck = meshes.box(8, 1, 8)
    deck = meshes.Mesh("deck", deck.vertices + (0.0, -2.5, 0.0), deck.faces)
    parts = [b.entity("PE_Balloon_Platform", b.mesh("PE_Balloon_Mesh", deck, mat), translation(0, 0, 0)),
             b.box("PE_Box_slide", (1, 1, 1), (0, BOX_Y, 0), None),
             b.entity("PE_Balloon_Slideframe_low", None, translation(0, -6, 0), class_id=r.CK_3DENTITY),
             b.entity("PE_Balloon_Slideframe_high", None, translation(0, 7, 0), class_id=r.CK_3DENTITY)]
    parts += [b.box(f"PE_Balloon_Platte{k:02d}", (1.5, 0.5, 5), (hinge_x(k) - PITCH / 2, -2.25, 0), mat)
              for k in range(1, 9)]
    parts += [b.entity(f"PE_Balloon_Hinge{k:02d}", None, translation(hinge_x(k), -2.25, 0), class_id=r.CK_3DENTITY)
              for k in range(1, 10)]
    parts.append(b.box("PE_Balloon_Ballon01", (3, 4, 3), (0, 10, 0), mat))     # drawn only
    for i in parts:
        b.objects[i].parent = root
        b.objects[i].hidden = True          # as the original saves them
    return b


def balloon_level() -> LevelBuilder:
    """The floor (top -2, x -57..-17), the start at x -50, the balloon at the origin."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    floor = b.box("A01_Floor_01", (40, 1, 10), (-37, -2.5, 0), mat)
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -60, 0), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (-50, -1.9, 0), mat)
    reset = b.entity("PR_Resetpoint_01", None, translation(-50, 1.65, 0))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 0))
    course_groups(b, [floor], death, start, [reset], finish)
    return b


@pytest.fixture
def game(tmp_path):
    game_folder(tmp_path, balloon_level().data(), {"PE_Balloon": balloon_prefab().data(compressed=True)})
    return tmp_path


def frames(ctx, n: int) -> None:
    for _ in range(n):
        ctx.input_manager.set_keys(())
        ctx.process_frame(FRAME_MS)


def playing(game):
    scene = played_at_once(scenes.load(game_level(str(game), 1)))
    frames(scene.ctx, 2)
    assert player_of(scene.ctx).ball is not None
    return scene.ctx


def test_the_balloon_is_built_as_the_spec_says(game):
    imp = import_level(str(game / "3D Entities" / "Level" / "Level_01.NMO"))
    ents = {d["name"]: d for d in imp.document["entities"]}
    platform = ents[PLATFORM]["physics"]
    assert platform["mass"] == 4 and platform["shift_mass_center"] == [0, 2, 0]
    assert platform["automatic_calculate_mass_center"] is False
    box = ents[P + "PE_Box_slide"]["physics"]
    assert box["enable_collision"] is False and box["fixed"] is True
    assert all("physics" in ents[P + f"PE_Balloon_Platte{k:02d}"] for k in range(1, 9))
    assert "physics" not in ents[P + "PE_Balloon_Ballon01"]                    # the balloons: drawn only
    shown = [P + n for n in ("PE_Balloon_Platform", "PE_Balloon_Platte01", "PE_Balloon_Platte08",
                             "PE_Balloon_Ballon01")]
    assert all(ents[n].get("visible", True) for n in shown)                 # the game's script shows them
    assert ents[P + "PE_Box_slide"]["visible"] is False
    joints = {j["name"]: j for j in imp.document["joints"]}
    slider = joints[P + "slider"]
    assert (slider["object"], slider["object2"]) == (PLATFORM, P + "PE_Box_slide")
    assert (slider["lower_limit"], slider["upper_limit"], slider["limitations"]) == (-30000, 0, True)
    spring = joints[P + "spring"]
    assert (spring["object"], spring["object2"]) == (PLATFORM, P + "PE_Box_slide")
    assert (spring["length"], spring["constant"], spring["linear_dampening"], spring["global_dampening"]) == \
        (15, 20, 0.6, 1)
    hinges = [joints[P + f"hinge{k}"] for k in range(1, 10)]
    chain = [PLATFORM] + [P + f"PE_Balloon_Platte{k:02d}" for k in range(1, 9)] + [None]
    assert [(h["object2"] if k < 8 else h.get("object2"), h["object"]) for k, h in enumerate(hinges)] == \
        [(chain[k], chain[k + 1]) if k < 8 else (None, chain[8]) for k in range(9)]
    level = next(b for b in imp.document["behaviours"] if b["type"] == "ballance.level")
    assert level["params"]["finish"] == PLATFORM                         # 1 around the platform
    gate = next(b for b in imp.document["behaviours"] if b["type"] == "ballance.wake_gate")
    assert gate["params"]["radius"] == 70.0


def test_a_ball_rolled_over_the_plates_reaches_the_platform_and_finishes(game):
    """A wood ball on the floor 5 before hinge 9, pushed along +X by its
    navigation force: it crosses the bridge, drops onto the deck and the
    level finishes with the ball within 1 of the platform's origin."""
    ctx = playing(game)
    player = player_of(ctx)
    player.spawn("wood", (hinge_x(9) - 5.0, 0.0, 0.0))
    blocks.set_force(ctx, player.ball, position=(0.0, 0.0, 0.0), pos_referential=player.ball,
                     direction=(1.0, 0.0, 0.0), force_value=BALL_KINDS["wood"].force)
    level = level_behavior(ctx)
    platform = ctx.get(PLATFORM)
    over = []
    for _ in range(600):
        frames(ctx, 1)
        x, y, _ = player.ball.get_position()
        if hinge_x(8) < x < hinge_x(2):
            over.append(y)
        if level.flow == FINISHED:
            break
    assert level.flow == FINISHED
    assert np.linalg.norm(np.subtract(player.ball.get_position(), platform.get_position())) <= 1.0 + 0.2
    assert over and min(over) > -2.0 - 2.0       # carried by the plates, never fallen through them


def test_the_platform_rests_where_the_spring_and_the_bridge_hold_it(game):
    """No ball: the spring (box 20 above, length 15, k 20) pulls the platform
    up by 20 x 5 = 100, more than its weight 4 x 20 = 80; the slider's limit
    (-30000..0 for Object2, the box: the platform only moves up) and the
    taut bridge hold it at its place. With the bridge's first hinge gone
    (plate 1 unphysicalized), it rises to where the spring holds its weight:
    stretch 80 / 20 = 4, 20 - (15 + 4) = 1 above its place."""
    ctx = playing(game)
    player_of(ctx).remove()
    platform = ctx.get(PLATFORM)
    for e in ctx.get("PE_Balloon_01.bodies"):
        wake(ctx, e)
    frames(ctx, 120)
    assert platform.get_position()[1] == pytest.approx(0.0, abs=0.05)
    ctx.physics.destroy_body(ctx.get(P + "PE_Balloon_Platte01"))
    wake(ctx, platform)
    ys = []
    for _ in range(900):
        frames(ctx, 1)
        ys.append(platform.get_position()[1])
    assert max(ys) > 1.0                            # it moved up, past the rest (a damped swing)
    assert np.mean(ys[-120:]) == pytest.approx(1.0, abs=0.05)


def test_the_finish_probe_reaches_the_platform(game):
    """benchmarks/level_probes.py's finish probe on the written level: a ball
    6 before hinge 9 pushed toward the platform finishes the level."""
    from benchmarks.level_probes import Probe
    probe = Probe(str(game), 1)
    ((name, seconds, _),) = probe.finish(probe.level.sector_count)
    assert name == PLATFORM and seconds is not None and 0.0 < seconds < 10.0


def test_the_balloon_belongs_to_the_last_sector(tmp_path):
    """A placeholder in no sector group: the balloon's parts join the last
    sector's group (Sector_02 of two), so they come into the world with it."""
    b = balloon_level()
    mark = b.entity("A01_Marker_01", None, translation(-40, 0, 0))
    b.group("Sector_01", [mark])
    b.group("Sector_02", [b.entity("A01_Marker_02", None, translation(-30, 0, 0))])
    game_folder(tmp_path, b.data(), {"PE_Balloon": balloon_prefab().data(compressed=True)})
    imp = import_level(str(tmp_path / "3D Entities" / "Level" / "Level_01.NMO"))
    ents = {d["name"]: d for d in imp.document["entities"]}
    assert "Sector_02" in ents[PLATFORM]["groups"] and "Sector_01" not in ents[PLATFORM]["groups"]
    assert all("Sector_02" in ents[P + f"PE_Balloon_Platte{k:02d}"]["groups"] for k in range(1, 9))
