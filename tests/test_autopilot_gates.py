"""The autopilot's probe of a sliding gate (module 01; glue-and-content 3,
"PH modules": the pusher slides along its fixed channel): on a level the
test writes, the pusher (a 2 x 1 x 2 box, group Floor) rests on its
channel's slab (group Ball) between two stops of the channel, 0.5 ahead
along its frame's +X and 3 behind along -X. The probe pushes it along +X,
which does not open it, then along -X: it opens 3. The probe is the
level's alone: what ran before in the process (the engine's RNG, spec
10.1, process-global, drives its sleep tests) changes neither it nor the map."""

import numpy as np
import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot, _run_up, probe
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.floors import FloorHeights
from behaviors.ballance.level import level_behavior
from ivp import rng
from scenes.virtools import game_level, reader as r
from test_autopilot_jumps import jump_level
from test_autopilot_rides import plate
from virtools_levels import LevelBuilder, game_folder, played_at_once, translation, two_sector_level

FRAME_MS = 1000.0 / 60.0
PLACE = (200.0, 0.0, 0.0)
PUSHER = "P_Modul_01_01.P_Modul_01_Pusher"


def _hull(b: LevelBuilder, name: str, size, centre, mat) -> None:
    m = meshes.box(*size)
    m.vertices = m.vertices + np.asarray(centre, np.float32)
    b.mesh(name, m, mat)


def gate_prefab() -> bytes:
    """P_Modul_01 with its root at the origin: the pusher's bottom on the
    channel's slab (top 0.5), a stop 0.5 beyond its +X face, one 3 beyond its -X face."""
    b = LevelBuilder()
    b.entity("P_Modul_01_MF", None, translation(0.0, 0.0, 0.0), class_id=r.CK_3DENTITY)
    mat = b.material("Wood", 0xFF996633)
    b.box("P_Modul_01_Pusher", (2, 1, 2), (0.0, 1.0, 0.0), mat)
    b.box("P_Modul_01_Rinne", (2, 0.5, 2), (0.0, 0.25, 0.0), mat)
    _hull(b, "P_Modul_01_Rinne_01_Mesh", (14, 0.5, 4), (0.0, 0.0, 0.0), mat)     # the slab, in the channel's frame
    _hull(b, "P_Modul_01_Rinne_02_Mesh", (1, 2, 4), (1.0 + 0.5 + 0.5, 1.0, 0.0), mat)
    _hull(b, "P_Modul_01_Rinne_03_Mesh", (1, 2, 4), (-1.0 - 3.0 - 0.5, 1.0, 0.0), mat)
    return b.data(compressed=True)


def gate_level(root) -> None:
    """The two-sector level with the gate at PLACE in sector 1, as a game folder at ``root``."""
    b = two_sector_level()
    p = b.box("P_Modul_01_01", (2, 0.4, 2), PLACE, None)
    b.group("P_Modul_01", [p])
    next(o for o in b.objects if o.name == "Sector_01").members.append(p)
    game_folder(root, b.data(), {"P_Modul_01": gate_prefab()})


@pytest.fixture
def scene(tmp_path):
    gate_level(tmp_path)
    scene = scenes.load(game_level(str(tmp_path), 1))
    scene.ctx.input_manager.set_keys(frozenset())
    scene.ctx.process_frame(FRAME_MS)
    return scene


def test_the_probe_finds_the_way_the_gate_opens_and_how_far(scene):
    ctx = scene.ctx
    assert ctx.get(PUSHER).get_position() == pytest.approx((200.0, 1.0, 0.0))
    poses, gates = probe(ctx, level_behavior(ctx))
    settled = poses[PUSHER][3, :3]
    assert settled == pytest.approx((200.0, 1.0, 0.0), abs=0.05)    # at rest on its slab
    u, _, travel = gates[PUSHER]
    assert u == pytest.approx((-1.0, 0.0, 0.0), abs=1e-6)
    assert travel == pytest.approx(3.0, abs=0.1)


def _map_bits(root) -> bytes:
    """The autopilot's map of the level in ``root``: its nodes, its links and their costs."""
    walk = Pilot(played_at_once(scenes.load(game_level(str(root), 1))), 30.0).map
    return walk.points.tobytes() + walk.graph.indices.tobytes() + walk.graph.data.tobytes()


def test_a_levels_map_is_the_same_after_another_level_ran_in_the_process(tmp_path):
    """The gate level mapped alone, then again after the written jump level
    was played for 2 s in the same process (the RNG's seed moved on): the
    same bits."""
    gate_level(tmp_path / "gate")
    game_folder(tmp_path / "jump", jump_level().data(), {})
    rng.reset()
    alone = _map_bits(tmp_path / "gate")
    ctx = played_at_once(scenes.load(game_level(str(tmp_path / "jump"), 1))).ctx
    seed = rng.get_seed()
    ctx.input_manager.set_keys(frozenset())
    for _ in range(120):
        ctx.process_frame(FRAME_MS)
    assert rng.get_seed() != seed
    assert _map_bits(tmp_path / "gate") == alone


def test_a_gate_pushed_from_the_rail_pair_leading_into_it():
    """Level 05's gates P_Modul_01_05 and _06 are pushed from the rail pair
    that leads into them: the run-up's start, RUN_UP + the ball's radius
    behind the pusher's back (x 1, the push along +X: x -7), is between the
    rails (tops y 0, 3.75 apart, no floor under the ball's centre), the
    ball's centre SPAN_DIP (1) lower than on a floor at their tops."""
    rails = plate(-40, 0, -2.225, -1.525, 0.0) + plate(-40, 0, 1.525, 2.225, 0.0)
    slab = plate(0, 10, -3, 3, 0.0)
    walk = WalkMap(rails + slab, rails=[True] * len(rails) + [False] * len(slab))
    y, z = np.meshgrid(np.linspace(0.0, 2.0, 5), np.linspace(-1.0, 1.0, 5))
    back = np.c_[np.ones(y.size), y.ravel(), z.ravel()]
    start = _run_up(FloorHeights(rails + slab), back, np.array([1.0, 0.0, 0.0]), walk)
    assert start == pytest.approx((-7.0, 1.0, 0.0), abs=1e-6)
    assert _run_up(FloorHeights(slab), back, np.array([1.0, 0.0, 0.0]), WalkMap(slab)) is None   # over the void
