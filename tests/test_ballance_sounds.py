"""The ball's sounds (issue 42; behaviors/ballance/sounds.py, docs/behaviors.md
"Sounds") on a level the test writes: a wood ball pushed along +Z on a floor
in Sound_RollID_01 (stone) into a wall in Sound_HitID_02 (wood). The sound
log of ``ivp run --sound-log`` is checked against what the rules give for
the ball's measured motion: roll volume min(1, 0.05 v) and pitch
0.5 + 0.01 v with v the distance the ball moved over the frame before, per
second of frame time; the hit at min(1, s / 14), s the relative speed of the
impact (wood's Max Speed 14)."""

import csv
import json
import math

import pytest

import scenes
from behaviors.api import Behavior, manager_of
from ivp import rng
from behaviors.ballance import player_of
from behaviors.recording import Recording
from scenes.headless import run
from viewer.cli import main
from virtools_levels import LevelBuilder, heading_z

FRAME_MS = 1000.0 / 60.0
BIRTH = 241                          # frames before the first ball is played (its birth ends 4 s in)
FRAMES = BIRTH + 120
PUSH = range(BIRTH + 5, BIRTH + 44)      # the frames "Up" is held
TIME_FACTOR = 2.0                    # Ballance's (level_meaning.py)
WOOD_MAX_SPEED = 14.0


@pytest.fixture
def level(tmp_path):
    """A floor 20 x 80 (top at y = 0) and a wall 20 wide whose face is at z = 15;
    the ball starts at (0, 2, 0) heading +Z; a recording holding Up in PUSH."""
    b = LevelBuilder()
    grey = b.material("Grey", 0xFF808080)
    floor = b.box("A01_Floor", (20, 1, 80), (0, -0.5, 20), grey)
    wall = b.box("A01_Wood_Wall", (20, 10, 1), (0, 5, 15.5), grey)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, grey, matrix=heading_z(0, 2.0, 0))
    b.group("Phys_Floors", [floor, wall])
    b.group("PR_Resetpoints", [reset])
    b.group("Sound_RollID_01", [floor])
    b.group("Sound_HitID_02", [wall])
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(b.data())
    rec = tmp_path / "push.jsonl"
    rec.write_text("\n".join([json.dumps({"format": "ivp-recording", "version": 1})]
                             + [json.dumps({"ms": FRAME_MS, "keys": ["Up"] if i in PUSH else []})
                                for i in range(FRAMES)]) + "\n")
    return str(path), str(rec)


class Impacts:
    """The engine's collision events between the ball and the wall (the input
    the hit sounds are made from): (time, relative speed)."""

    def __init__(self):
        self.seen = []

    def event_post_collision(self, ev) -> None:
        if {ev.obj0.name, ev.obj1.name} == {"Ball_Wood", "A01_Wood_Wall"}:
            self.seen.append(ev.speed_abs)


def motion(path, rec):
    """The same run in process: the ball's position after each frame and the
    wall impacts' speeds. The engine's RNG is the process's (spec 10.1, never
    reseeded): it is set back to a fresh process's seed first, or this run
    would start from where the CLI run before it left it."""
    rng.reset()
    scene = scenes.load(path)
    impacts = Impacts()
    scene.ctx.physics.env.collision.add_listener_collision(impacts)
    positions = []
    run(scene, recording=Recording.load(rec),
        on_frame=lambda n, ctx: positions.append(ctx.get("Ball_Wood").get_position()))
    return positions, impacts.seen


def test_the_sound_log_has_the_roll_on_stone_and_the_hit_on_wood(level, tmp_path):
    path, rec = level
    log = tmp_path / "sounds.csv"
    rng.reset()                                            # as a fresh `ivp run` process starts
    assert main(["run", path, "--input", rec, "--sound-log", str(log), "--quiet"]) == 0
    with open(log, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["time", "name", "volume", "pitch", "action"]
    assert [(r["name"], r["action"]) for r in rows[:2]] == [("Misc_StartLevel", "play"), ("Misc_Lightning", "play")]
    positions, impacts = motion(path, rec)

    def speed_before(row, frames=1):
        """The ball's move over the frame ``frames`` before the row's frame n,
        per second of frame time (frames=1: the v the rules measure at n)."""
        n = round(float(row["time"]) * 60.0) - 1 - frames
        return math.dist(positions[n], positions[n - 1]) * 60.0

    rolls = [r for r in rows if r["name"].startswith("Roll_")]
    assert {r["name"] for r in rolls} == {"Roll_Wood_Stone"}
    assert rolls[0]["action"] == "loop" and {r["action"] for r in rolls[1:]} == {"set"}
    fast = 0
    for r in rolls:
        v = speed_before(r)
        assert float(r["volume"]) == pytest.approx(min(1.0, 0.05 * v), rel=1e-5, abs=1e-9)
        assert float(r["pitch"]) == pytest.approx(0.5 + 0.01 * v, rel=1e-6)
        fast += v > 5.0
    assert fast > 20                                       # the push made it roll audibly

    hits = [r for r in rows if r["name"].startswith("Hit_")]
    assert [r["name"] for r in hits] == ["Hit_Wood_Wood"]  # the floor has no hit class: its landing is silent
    s = next(x for x in impacts if x > 2.0)                 # wood's Min Speed 2
    volume = float(hits[0]["volume"])
    assert volume == pytest.approx(min(1.0, s / WOOD_MAX_SPEED), rel=1e-6)
    assert 0.2 < volume < 0.9
    # The rolling ball meets the wall at its front: the contact point moves at
    # v along +Z and, spinning, at v down; s = sqrt(2) v in physics units
    # (the frame speed / time factor 2). The impact came in the physics of the
    # frame before the hit's (its output is handed out a frame later): v is
    # the move over the frame before that one.
    v = speed_before(hits[0], frames=2) / TIME_FACTOR
    assert s == pytest.approx(math.sqrt(2.0) * v, rel=0.05)


def test_a_sound_out_of_range_is_refused_naming_it():
    """Behavior.sound: volume 0 to 1, pitch above 0, one of the four actions."""
    ctx = scenes.load("slope").ctx
    b = manager_of(ctx).attach(Behavior(ctx))
    with pytest.raises(ValueError, match="'Misc_Fall': the volume must be a number from 0 to 1, got 1.5"):
        b.sound("Misc_Fall", 1.5)
    with pytest.raises(ValueError, match="the pitch must be a number above 0"):
        b.sound("Misc_Fall", 1.0, 0.0)
    with pytest.raises(ValueError, match="the action must be one of"):
        b.sound("Misc_Fall", action="loud")


def test_a_reset_stops_the_rolls(level):
    """behaviors.reset while the ball rolls: its roll sound gets its stop."""
    import behaviors
    from behaviors import hooks
    scene = scenes.load(level[0])
    seen = []
    for i in range(PUSH.stop):
        scene.ctx.input_manager.set_keys({"Up"} if i in PUSH else set())
        scene.ctx.process_frame(FRAME_MS)
        seen += [(e.name, e.action) for e in hooks.sound_events(scene.ctx)]
    assert ("Roll_Wood_Stone", "loop") in seen and ("Roll_Wood_Stone", "stop") not in seen
    behaviors.reset(scene.ctx)
    assert ("Roll_Wood_Stone", "stop") in [(e.name, e.action) for e in hooks.sound_events(scene.ctx)]


@pytest.mark.parametrize("x, volume", [(1.0, 1.0), (13.5, 0.5), (30.0, None)])
def test_the_fans_loop_by_the_balls_distance(x, volume):
    """Misc_Ventilator: full up to 2 from the nearest fan, (25 - d) / 23 out to
    25, off beyond: a ball resting 13.5 from a fan (the other 40 away) hears 0.5."""
    from behaviors import hooks, registry
    from test_ballance_world import ballance_ctx
    ctx = ballance_ctx(start=(x, 2.0, 0.0), level=False)
    ctx.physics.gravity = (0.0, 0.0, 0.0)
    fans = [ctx.create_entity("Fan_A", position=(0.0, 2.0, 0.0)), ctx.create_entity("Fan_B", position=(-40.0, 2.0, 0.0))]
    ctx.create_group("P_Modul_18", fans)
    registry.create(ctx, "ballance.fan_sound")
    player_of(ctx).spawn("wood", (x, 2.0, 0.0))
    seen = []
    for _ in range(3):
        ctx.process_frame(1000.0 / 60.0)
        seen += [(e.name, e.action, e.volume) for e in hooks.sound_events(ctx) if e.name == "Misc_Ventilator"]
    if volume is None:
        assert seen == []
    else:
        assert seen[0][:2] == ("Misc_Ventilator", "loop") and seen[-1][2] == pytest.approx(volume, abs=0.01)
