"""The viewer's autopilot key (issue 40 item 3; docs/viewer.md "Autopilot"):
F7 hands the ball to the level plug-in's autopilot, which presses only the
player's keys, one frame of 1/60 s each; the game's keys take the ball back."""

import math

import numpy as np
from test_viewer_support import ball_scene, gl_window  # noqa: F401
from virtools_levels import autopilot_level

from behaviors.ballance import player_of
from behaviors.ballance.values import NAV_DIRECTIONS
from scenes.cli import load_scene
from viewer import hud
from viewer.session import Session


def ball_position(session):
    player = player_of(session.ctx)
    return None if player is None or player.ball is None else np.asarray(player.ball.get_position())


def test_f7_hands_the_ball_to_the_autopilot_and_the_arrows_take_it_back(gl_window, tmp_path):  # noqa: F811
    from pyglet.window import key

    from viewer.window import ViewerWindow
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(autopilot_level().data())
    w = ViewerWindow(Session(lambda: load_scene(str(path))), width=320, height=240, visible=False)
    s = w.session
    w.on_key_press(key.F7, 0)
    assert s.autopilot is not None
    held = set()
    start = None
    for _ in range(900):                       # the level's start sequence, then the course along +Z
        w.tick(1 / 60)
        held |= s.keys
        p = ball_position(s)
        if p is not None and start is None:
            start = p
        if p is not None and p[2] > 30.0:
            break
    assert start is not None and abs(start[2]) < 1.0           # spawned on the start plate at z 0
    # past the rail pair's start (z 25), toward checkpoint 1 at z 60, with the arrows only
    assert p[2] > 30.0 and abs(p[0]) < 1.875
    assert held and held <= set(NAV_DIRECTIONS)
    line = hud.autopilot_lines(s)[0]
    # what its search does, up to 2 s ahead of the frames shown: toward the checkpoint or past it
    assert line.startswith("AUTOPILOT ") and " s ahead: sector " in line and "0 rollbacks" in line
    assert "sector 1 rolling to checkpoint 1" in line or "sector 2 rolling to the finish" in line

    w.on_key_press(key.DOWN, 0)                # the player's key: the ball is the player's again
    assert s.autopilot is None and "the ball is yours" in hud.autopilot_lines(s)[0]
    v0 = s.physics.body_of(player_of(s.ctx).ball).core.speed[2]
    for _ in range(30):
        w.tick(1 / 60)
    assert s.keys == {"Down"}
    v1 = s.physics.body_of(player_of(s.ctx).ball).core.speed[2]
    assert v1 < v0 - 1.0                       # Down pushes against the roll along +Z


def test_f7_on_a_scene_without_a_level_says_why(gl_window):  # noqa: F811
    s = Session(ball_scene)
    s.toggle_autopilot()
    s.tick(1 / 60)
    assert s.autopilot is None
    assert hud.autopilot_lines(s)[0].startswith("AUTOPILOT failed: ValueError: autopilot: ")
    assert "no ballance.level behaviour" in hud.autopilot_lines(s)[0]


def test_the_run_shown_is_the_autopilots_through_its_rollbacks(tmp_path, monkeypatch):
    """The autopilot's first try is sent astray (Left held from frame 300 until
    it fails: off the course or stuck), so the run takes a rollback or more;
    the window's world, which plays only the frames it keeps (never the ones
    rolled back), ends where the autopilot's does: the level finished with the
    autopilot's score. Its turns last until it is LEAD frames ahead (not
    TURN_MS of wall time), so the run is the same on any machine."""
    from behaviors.ballance import autopilot as pilot
    from behaviors.ballance.level import FINISHED, level_behavior
    from viewer import autopilot
    monkeypatch.setattr(autopilot, "TURN_MS", math.inf)
    steer = pilot.Pilot.steer

    def astray(self, ball, kind):
        if self.rollbacks == 0 and len(self.keys) > 300:
            return frozenset({"Left"})
        return steer(self, ball, kind)
    monkeypatch.setattr(pilot.Pilot, "steer", astray)
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(autopilot_level().data())
    s = Session(lambda: load_scene(str(path)))
    s.toggle_autopilot()
    driver = s.autopilot
    for _ in range(6000):                       # 100 s of frames at most; it finishes in about 25
        s.tick(1 / 60)
        if s.autopilot is None:
            break
    outcome = driver.outcome
    assert outcome is not None and outcome.finished and outcome.rollbacks > 0
    level = level_behavior(s.ctx)
    assert level.flow == FINISHED and level.final == outcome.score
    assert s.frames == outcome.frames and hud.autopilot_lines(s) == [f"AUTOPILOT finished, score {outcome.score}"]


def test_a_rollback_plays_the_frames_shown_again_instead_of_undoing_them(tmp_path):
    """Pilot.shown (the viewer's hook): going back to a world kept before the
    frames a viewer has shown plays them again with their keys, so the
    autopilot's world at the last frame shown is, to the bit, the one shown."""
    from behaviors.ballance.autopilot import Pilot
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(autopilot_level().data())
    pilot = Pilot(load_scene(str(path)))
    while player_of(pilot.ctx) is None or player_of(pilot.ctx).ball is None:    # the level's start
        assert len(pilot.keys) < 600
        pilot.step(frozenset())
    pilot.keep()
    seen = []
    for k in range(120):                        # Up, then Up and Left: the ball rolls on and aside
        pilot.step(frozenset({"Up"} if k < 60 else {"Up", "Left"}))
        seen.append(tuple(player_of(pilot.ctx).ball.get_position()))
    kept_at = pilot.kept[-1][0]
    pilot.shown = kept_at + 90                  # a viewer has shown 90 of the 120 frames
    keys = list(pilot.keys)
    pilot.restore(len(pilot.kept) - 1)
    assert len(pilot.keys) == pilot.shown and pilot.keys == keys[:pilot.shown]
    assert pilot.restored_at == pilot.shown     # the next rollback goes no further back either
    assert tuple(player_of(pilot.ctx).ball.get_position()) == seen[89]
    assert seen[89] != seen[0]                  # the ball did move in those frames
