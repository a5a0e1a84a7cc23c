"""Known outcomes of glue-and-content 3 in the bundled scenes: the spring lift,
the fan, and the sample level played through by a recording."""

import pytest

import scenes
from bbglue import blocks
from behaviors.ballance.balls import player_of
from behaviors.ballance.level import gameplay_state
from behaviors.recording import Recorder, Recording
from scenes.headless import DEFAULT_FRAME_MS, run

G = 20.0                       # Ballance's gravity
PSI_RATE = 66.0                # PSIs per simulated second


def frames(ctx, n, keys=()):
    for _ in range(n):
        ctx.input_manager.set_keys(keys)
        ctx.process_frame(DEFAULT_FRAME_MS)


def test_spring_lift_rises_m_g_over_k_without_its_weights():
    """PH 03: the spring (k 15, length 0) stretches m g / k; removing the 8
    weights of mass 2 raises the platform 16 x 20 / 15 = 21.33."""
    scene = scenes.load("modules/ph03_spring_lift")
    ctx = scene.ctx
    weights = list(ctx.get_group("PH03_weights"))
    masses = [scene.body(w.name).core.mass for w in weights]
    assert len(weights) == 8 and masses == [2.0] * 8
    frames(ctx, 60)
    platform = ctx.get("platform")
    loaded = platform.get_position()[1]
    for w in weights:
        ctx.destroy_entity(w)
    blocks.wake_up(ctx, platform)
    frames(ctx, 300)
    empty = platform.get_position()[1]
    assert empty - loaded == pytest.approx(sum(masses) * G / 15.0, abs=0.25)


def fan_run(kind: str, n: int = 150):
    """The ball of ``kind`` put on the fan of PH 18; its heights frame by frame."""
    scene = scenes.load("modules/ph18_fan")
    ctx = scene.ctx
    frames(ctx, 1)
    player = player_of(ctx)
    player.spawn(kind, ctx.get("PR_Resetpoint_01").get_position())
    heights = []
    for _ in range(n):
        frames(ctx, 1)
        heights.append(player.ball.get_position()[1])
    return heights


def test_one_fan_lifts_a_paper_ball():
    """0.1 per PSI up beats the paper ball's weight, 0.2 x 20 / 66 = 0.061 per PSI."""
    assert 0.1 > 0.2 * G / PSI_RATE
    heights = fan_run("paper")
    assert max(heights) > 12.0            # up the 16-high column (its centre starts at 2.5)


@pytest.mark.parametrize("kind, mass", [("wood", 1.9), ("stone", 10.0)])
def test_one_fan_does_not_lift_wood_or_stone(kind, mass):
    assert 0.1 < mass * G / PSI_RATE
    heights = fan_run(kind, 90)
    assert max(heights[30:]) < 2.5        # it stays on the floor (centre at radius 2)


def test_six_stacked_fans_lift_a_wood_ball():
    """6 x 0.1 = 0.6 per PSI > 1.9 x 20 / 66 = 0.576: the fan column."""
    assert 6 * 0.1 > 1.9 * G / PSI_RATE
    scene = scenes.load("fan_column")
    frames(scene.ctx, 240)
    assert player_of(scene.ctx).kind == "wood"
    assert scene.ctx.get("Ball_Wood").get_position()[1] > 6.0


def test_sample_level_is_completed_by_a_recording(tmp_path):
    """Holding Up plays the sample level through: rails, checkpoints, the plank
    bridge, the float boards and the finish; final = 100 x level + points + 200 x lives."""
    path = tmp_path / "hold_up.jsonl"
    with Recorder(path, scene="sample_level") as rec:
        for _ in range(480):
            rec.add(DEFAULT_FRAME_MS, ["Up"])
        for _ in range(660):                                  # the 10 s end wait, then the score count
            rec.add(DEFAULT_FRAME_MS, [])
    scene = scenes.load(scenes.DEFAULT_SCENE)
    seen = []
    summary = run(scene, recording=Recording.load(path),
                  on_frame=lambda n, ctx: seen.append(gameplay_state(ctx)["sector"]))
    state = gameplay_state(scene.ctx)
    assert summary.finite and summary.errors == 0
    assert state["state"] == "finished"
    assert sorted(set(seen)) == [1, 2, 3]                   # both checkpoints passed
    assert state["lives"] == 4                              # 3 spare + the extra life, none lost
    assert state["final"] == 100 * 1 + state["score"] + 200 * state["lives"]


def test_sample_level_death_box_respawns_with_a_life_fewer():
    """Rolling off the side of the course falls into the death box: a spare life
    is lost and the ball comes back at sector 1's reset point (not PS_Levelstart,
    3.65 below it)."""
    scene = scenes.load(scenes.DEFAULT_SCENE)
    ctx = scene.ctx
    states, respawned_at = [], None
    for _ in range(500):
        frames(ctx, 1, [] if "dead" in states else ["Left"])       # Left until the first death
        states.append(gameplay_state(ctx)["state"])
        if states[-2:] == ["dead", "playing"]:
            respawned_at = player_of(ctx).ball.get_position()
    assert "dead" in states and states[-1] == "playing"
    assert gameplay_state(ctx)["lives"] == 2
    start = ctx.get("PR_Resetpoint_01").get_position()
    assert ctx.get("PS_Levelstart").get_position()[1] == pytest.approx(start[1] - 3.65)
    assert respawned_at == pytest.approx(start, abs=0.1)
