"""The Gymnasium environment of Ballance levels (envs/, docs/training.md), on the
bundled sample level: spaces, the reward's parts, sector starts, the time limit,
determinism across instances and processes, the vector env and the checker."""

import functools

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from test_viewer_support import gl_window  # noqa: F401
from virtools_levels import two_sector_level

import envs
from bbglue.snapshot import game_hash
from behaviors.ballance.level import PLAYING
from envs import DISCRETE_ACTIONS, KEYS, BallanceEnv, observation_layout
from behaviors.ballance.floors import FloorHeights

L = observation_layout(8)
CHECKPOINT_RADIUS = 6.5                      # glue-and-content 3, "Triggers"
DEATH_PENALTY, CHECKPOINT_BONUS, FINISH_BONUS = 25.0, 20.0, 100.0


def keys(*names):
    return np.array([k in names for k in KEYS], np.int8)


@pytest.fixture(scope="module")
def env():
    e = BallanceEnv(scene="sample_level")
    yield e
    e.close()


def random_actions(n, seed=0):
    return np.random.default_rng(seed).integers(0, 2, size=(n, len(KEYS)), dtype=np.int8)


# --- spaces -----------------------------------------------------------------------------------

def test_the_spaces(env):
    assert env.action_space == gymnasium.spaces.MultiBinary(6)
    assert KEYS == ("Up", "Down", "Right", "Left", "LShift", "Space")
    assert env.observation_space.shape == (3 + 3 + 3 + 3 + 2 + 1 + 3 + 9,)
    assert env.observation_space.dtype == np.float32
    discrete = BallanceEnv(scene="sample_level", actions="discrete")
    assert discrete.action_space == gymnasium.spaces.Discrete(len(DISCRETE_ACTIONS))


def test_make_by_id():
    e = gymnasium.make(envs.ENV_ID, scene="sample_level", frame_skip=2)
    obs, info = e.reset(seed=1)
    assert obs.shape == e.observation_space.shape and info["sector"] == 1
    e.close()
    e = gymnasium.make("envs:ivp/Ballance-v0", scene="sample_level")
    assert isinstance(e.unwrapped, BallanceEnv)


def test_make_an_original_level_by_number(tmp_path):
    """A game folder holding the written two-sector level (tests/virtools_levels.py):
    the ball at PR_Resetpoint_01 (0, 3.65, 0), checkpoint 1's flames at
    (0, 0.1, 30) with their sphere 1.495 above, the floor's top y 0 over
    x -6..6, z -10..50."""
    folder = tmp_path / "3D Entities" / "Level"
    folder.mkdir(parents=True)
    (folder / "Level_01.NMO").write_bytes(two_sector_level().data())
    e = gymnasium.make(envs.ENV_ID, level=1, game_dir=str(tmp_path))
    obs, info = e.reset(seed=0)
    p = obs[L["position"]]
    assert e.unwrapped.sector_count == 2 and info["sector"] == 1
    assert p[0] == 0.0 and p[2] == 0.0 and 3.6 < p[1] <= 3.65
    np.testing.assert_allclose(obs[L["to_goal"]], np.array([0.0, 1.595, 30.0]) - p, rtol=1e-6)
    np.testing.assert_allclose(obs[L["floor"]], np.full(9, -p[1]), rtol=1e-6)


def test_check_env_passes_rendering_included(gl_window):  # noqa: F811
    e = gymnasium.make(envs.ENV_ID, scene="sample_level", render_size=(64, 48), render_headless=True)
    check_env(e.unwrapped)


def test_rgb_array_is_the_viewers_frame(gl_window):  # noqa: F811
    e = BallanceEnv(scene="sample_level", render_mode="rgb_array", render_size=(64, 48), render_headless=True)
    assert e.render() is None                  # nothing to draw before a reset
    e.reset(seed=0)
    first = e.render()
    assert first.shape == (48, 64, 3) and first.dtype == np.uint8
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 10     # a picture, not a blank
    e.reset(seed=0, options={"sector": 3})
    assert not np.array_equal(e.render(), first)                 # the new world's view
    e.close()


# --- the start of a sector and what the agent sees ---------------------------------------------

def test_a_sector_starts_at_its_reset_point(env):
    """sample_level.yaml: PR_Resetpoint_02 at (0, 3, 78), checkpoint 2's flames at
    (0, 0.05, 127), their sphere 1.495 above; floor_b's top at y 0 from
    x -6 to 6 and z 70 to 89.9."""
    obs, info = env.reset(seed=0, options={"sector": 2})
    p = obs[L["position"]]
    assert info["sector"] == 2 and obs[L["sector"]][0] == 2 and info["state"] == "playing"
    assert p[0] == 0.0 and p[2] == 78.0 and 2.9 < p[1] <= 3.0          # one frame of falling
    np.testing.assert_allclose(obs[L["to_goal"]], np.array([0.0, 1.545, 127.0]) - p, rtol=1e-6)
    assert info["distance"] == pytest.approx(np.linalg.norm(np.array([0.0, 1.545, 127.0]) - p))
    # the ring (radius 4) lies on floor_b: every ray finds its top 0
    np.testing.assert_allclose(obs[L["floor"]], np.full(9, -p[1]), rtol=1e-6)
    assert list(obs[L["kind"]]) == [0.0, 1.0, 0.0]                     # wood, the level's start kind
    # each reset point's -X axis points along +Z: the camera's heading is 0
    np.testing.assert_allclose(obs[L["camera"]], [0.0, 1.0], atol=1e-6)


def test_the_ring_starts_ahead_of_the_camera():
    """A ring of radius 9 around (0, 3, 78): only the ray ahead (z 87) stays on
    floor_b (x -6..6, z 70..89.9); behind (z 69) is the gap between the rails
    (x -1.875 and 1.875), the others are past the floor's sides."""
    e = BallanceEnv(scene="sample_level", ring_radius=9.0)
    obs, _ = e.reset(seed=0, options={"sector": 2})
    y = obs[L["position"]][1]
    np.testing.assert_allclose(obs[L["floor"]], [-y, -y] + [-30.0] * 7, rtol=1e-6)


def test_the_start_kind_is_an_option(env):
    obs, _ = env.reset(seed=0, options={"sector": 2, "kind": "stone"})
    assert list(obs[L["kind"]]) == [0.0, 0.0, 1.0]


def test_velocity_is_the_balls(env):
    """Dropped from its reset point 1 above its resting height, the ball falls
    freely for the first frames: its vertical velocity is the position's change
    over the simulated time, within what gravity (20, sample_level.yaml) adds in
    that time."""
    env.reset(seed=0, options={"sector": 2})
    world = env.ctx.physics.env
    obs0, t0 = env.step(keys())[0], world.current_time
    obs1, t1 = env.step(keys())[0], world.current_time
    dt = t1 - t0
    mean_vy = (obs1[L["position"]][1] - obs0[L["position"]][1]) / dt
    vy = obs1[L["velocity"]][1]
    assert mean_vy < 0.0 and abs(vy - mean_vy) <= 20.0 * dt
    assert obs1[L["velocity"]][0] == pytest.approx(0.0, abs=1e-6)


def test_floor_heights_of_a_slope():
    """A plane y = x / 2 over x, z in 0..10 (two triangles) above a floor at -3."""
    tris = np.array([[[0, 0, 0], [10, 5, 0], [10, 5, 10]], [[0, 0, 0], [10, 5, 10], [0, 0, 10]],
                     [[-30, -3, -30], [30, -3, -30], [30, -3, 30]], [[-30, -3, -30], [30, -3, 30], [-30, -3, 30]],
                     [[0, 0, 0], [0, 9, 0], [0, 9, 10]]], float)          # the last a wall, seen edge-on
    heights = FloorHeights(tris, cell=4.0).below([[2, 10, 3], [9, 10, 9], [2, 0.5, 3], [-20, 0, 25], [100, 0, 0]])
    np.testing.assert_allclose(heights[:4], [1.0, 4.5, -3.0, -3.0])
    assert np.isnan(heights[4])
    with pytest.raises(ValueError, match="cell"):
        FloorHeights(tris, cell=0.0)
    assert FloorHeights(tris).below(np.zeros((0, 3))).shape == (0,)
    with pytest.raises(ValueError, match="finite"):
        FloorHeights(tris).below([[2, 10, 3], [float("nan"), 0, 0]])


def test_floor_heights_far_apart_and_cell_after_cell(monkeypatch):
    """The plane y = x / 2 over x, z in 0..10: points a million metres apart
    find no floor but do not hold the query up, nor does an empty floor; a point walked over the plane
    in steps of 0.7 (cells of 1, only two cell rectangles kept) reads x / 2
    at every step, there and back."""
    tris = np.array([[[0, 0, 0], [10, 5, 0], [10, 5, 10]], [[0, 0, 0], [10, 5, 10], [0, 0, 10]]], float)
    heights = FloorHeights(tris).below([[-1e6, 0, -1e6], [4, 10, 5], [1e6, 0, 1e6]])
    assert np.isnan(heights[0]) and heights[1] == pytest.approx(2.0) and np.isnan(heights[2])
    assert np.isnan(FloorHeights(np.zeros((0, 3, 3))).below([[0.0, 1.0, 0.0]])).all()     # a level without floors
    monkeypatch.setattr(FloorHeights, "KEEP", 2)
    floors = FloorHeights(tris, cell=1.0)
    walk = np.arange(0.35, 10.0, 0.7)
    for x in np.r_[walk, walk[::-1]]:
        assert floors.below([[x, 9.0, 3.3], [x, 9.0, 3.8]]) == pytest.approx([x / 2, x / 2], abs=1e-12)


# --- the reward --------------------------------------------------------------------------------

def test_holding_up_finishes_the_sample_level_with_the_reward_parts():
    """The sample level is played through by holding Up (its header says so):
    two checkpoints then the finish. The progress in sector 1 adds up to the
    first distance minus the distance at which the checkpoint took the ball
    (at most its sphere's radius, 6.5)."""
    e = BallanceEnv(scene="sample_level", frame_skip=2)
    obs, info = e.reset(seed=0)
    d0 = info["distance"]
    sector1_progress, total, checkpoints = 0.0, 0.0, 0
    while True:
        obs, reward, terminated, truncated, info = e.step(keys("Up"))
        assert reward == pytest.approx(info["progress"] + CHECKPOINT_BONUS * info["checkpoints"]
                                       + FINISH_BONUS * info["finished"])
        if checkpoints == 0:
            sector1_progress += info["progress"]
        checkpoints += info["checkpoints"]
        total += reward
        assert not info["died"] and not truncated
        if terminated:
            break
    assert info["finished"] and info["state"] == "finished" and checkpoints == 2
    assert d0 - CHECKPOINT_RADIUS - 0.5 <= sector1_progress <= d0
    assert total > FINISH_BONUS + 2 * CHECKPOINT_BONUS


def test_a_fall_is_a_death_and_ends_the_episode():
    e = BallanceEnv(scene="sample_level", frame_skip=4)
    e.reset(seed=0)
    for _ in range(100):                          # off the left edge into the death box
        obs, reward, terminated, truncated, info = e.step(keys("Left"))
        if terminated:
            break
    assert info["died"] and info["state"] == "dead" and reward == -DEATH_PENALTY      # no progress counted
    assert info["lives"] == 2


def test_without_ending_on_death_the_ball_comes_back():
    e = BallanceEnv(scene="sample_level", frame_skip=4, terminate_on_death=False)
    e.reset(seed=0)
    deaths, states = 0, []
    for _ in range(120):
        obs, reward, terminated, truncated, info = e.step(keys("Left") if deaths == 0 else keys())
        deaths += info["died"]
        states.append(info["state"])
        assert not terminated
    assert deaths == 1 and states[-1] == "playing" and "dead" in states and info["lives"] == 2


def test_a_reward_fn_replaces_the_reward(env):
    e = BallanceEnv(scene="sample_level", reward_fn=lambda info: 2.0 * info["progress"])
    e.reset(seed=0)
    for _ in range(30):
        _, reward, _, _, info = e.step(keys("Up"))
        assert reward == 2.0 * info["progress"]
    assert reward > 0.0


def test_the_time_limit_truncates():
    e = BallanceEnv(scene="sample_level", time_limit=0.5, frame_skip=2)
    e.reset(seed=0)
    ends = [e.step(keys())[3] for _ in range(15)]       # 0.5 s = 30 frames = 15 steps of 2
    assert ends == [False] * 14 + [True]


def test_frame_skip_holds_the_keys_that_many_frames():
    one, four = BallanceEnv(scene="sample_level"), BallanceEnv(scene="sample_level", frame_skip=4)
    one.reset(seed=7)
    four.reset(seed=7)
    for _ in range(4):
        a = one.step(keys("Up", "Right"))[0]
    b, _, _, _, info = four.step(keys("Up", "Right"))
    assert info["frames"] == 4 and np.array_equal(a, b)


def test_discrete_actions_press_the_same_keys():
    mb, dis = BallanceEnv(scene="sample_level"), BallanceEnv(scene="sample_level", actions="discrete")
    mb.reset(seed=2)
    dis.reset(seed=2)
    up_left = DISCRETE_ACTIONS.index(("Up", "Left"))
    for _ in range(20):
        assert np.array_equal(mb.step(keys("Up", "Left"))[0], dis.step(up_left)[0])


# --- determinism -------------------------------------------------------------------------------

def run_actions(env, seed, actions, options=None):
    obs, _ = env.reset(seed=seed, options=options)
    out = [obs]
    for a in actions:
        obs, *_ = env.step(a)
        out.append(obs)
    return np.array(out)


def test_same_seed_and_actions_same_bits_in_two_instances_stepped_in_turn():
    a, b = BallanceEnv(scene="sample_level"), BallanceEnv(scene="sample_level")
    a.reset(seed=11, options={"sector": 2})
    b.reset(seed=11, options={"sector": 2})
    for action in random_actions(90):
        oa, ra, *_ = a.step(action)
        ob, rb, *_ = b.step(action)
        assert np.array_equal(oa, ob) and ra == rb
    assert game_hash(a.ctx) == game_hash(b.ctx)


def test_a_reset_forgets_the_episode_before(env):
    actions = random_actions(40, seed=3)
    first = run_actions(env, 5, actions)
    run_actions(env, 6, random_actions(40, seed=4))
    assert np.array_equal(run_actions(env, 5, actions), first)


def test_the_seed_sets_the_engines_random_numbers(env):
    _, a = env.reset(seed=1)
    _, b = env.reset(seed=2)
    _, c = env.reset(seed=1)
    assert a["engine_seed"] % 2 == 1 and a["engine_seed"] != b["engine_seed"] and a["engine_seed"] == c["engine_seed"]


def test_a_sectors_birth_is_played_once_and_every_seed_starts_from_it(tmp_path):
    """The written level has the game's birth (the ball given 1 s + 3 s in, 242
    frames): a reset plays it once per sector and kind and keeps the world at
    that frame; a reset with another seed builds the same bits, and the seed
    takes the engine's random numbers from there (docs/training.md)."""
    folder = tmp_path / "3D Entities" / "Level"
    folder.mkdir(parents=True)
    (folder / "Level_01.NMO").write_bytes(two_sector_level().data())
    e = BallanceEnv(level=1, game_dir=str(tmp_path))
    _, a = e.reset(seed=1, options={"sector": 2})
    first = game_hash(e.ctx)
    assert e.level.flow == PLAYING and len(e._births) == 1
    _, b = e.reset(seed=2, options={"sector": 2})
    assert game_hash(e.ctx) == first and len(e._births) == 1
    assert a["engine_seed"] != b["engine_seed"]
    e.reset(seed=2, options={"sector": 2, "kind": "stone"})
    assert game_hash(e.ctx) != first and len(e._births) == 2


def test_async_vector_env_of_two_matches_the_serial_runs():
    """Two worlds in two spawned processes (other hash seeds, other addresses),
    their trajectories to the bit those of the same seeds and actions here."""
    make = functools.partial(BallanceEnv, scene="sample_level", frame_skip=2)
    actions = random_actions(40, seed=9)
    seeds = [21, 22]
    serial = [run_actions(make(), s, actions) for s in seeds]
    vec = gymnasium.vector.AsyncVectorEnv([make, make], context="spawn")
    try:
        obs, _ = vec.reset(seed=seeds)
        got = [obs]
        for a in actions:
            obs, *_ = vec.step(np.stack([a, a]))
            got.append(obs)
    finally:
        vec.close()
    got = np.array(got)
    assert np.array_equal(got[:, 0], serial[0]) and np.array_equal(got[:, 1], serial[1])


# --- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, word", [
    ({}, "scene"),
    ({"scene": "sample_level", "level": 1}, "scene"),
    ({"level": 1}, "game_dir"),
    ({"level": 0, "game_dir": "/nowhere"}, "level"),
    ({"scene": "sample_level", "frame_skip": 0}, "frame_skip"),
    ({"scene": "sample_level", "frame_skip": 1.5}, "frame_skip"),
    ({"scene": "sample_level", "time_limit": -1}, "time_limit"),
    ({"scene": "sample_level", "actions": "keys"}, "actions"),
    ({"scene": "sample_level", "reward_fn": 3}, "reward_fn"),
    ({"scene": "sample_level", "render_mode": "human"}, "render_mode"),
    ({"scene": "sample_level", "ring_rays": 0}, "ring_rays"),
    ({"scene": "sample_level", "floor_groups": "Phys_Floors"}, "floor_groups"),
    ({"scene": "sample_level", "floor_groups": ["floor_a"]}, "floor_groups: 'floor_a' is an entity"),
    ({"scene": "stack"}, "ballance.level"),
])
def test_bad_arguments_are_named(kwargs, word):
    with pytest.raises(ValueError, match=word):
        BallanceEnv(**kwargs)


@pytest.mark.parametrize("options, word", [
    ({"sector": 0}, "sector"), ({"sector": 4}, "sector"), ({"sector": "2"}, "sector"),
    ({"kind": "glass"}, "kind"), ({"sectors": 2}, "sectors"),
])
def test_bad_reset_options_are_named(env, options, word):
    with pytest.raises(ValueError, match=word):
        env.reset(seed=0, options=options)


def test_a_bad_action_is_named(env):
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([1, 0, 0]))


def test_step_before_reset_says_so():
    with pytest.raises(RuntimeError, match="reset"):
        BallanceEnv(scene="sample_level").step(keys())


def test_the_autopilot_as_a_policy_finishes_the_written_level_the_same_each_time(tmp_path):
    """The level's autopilot steering through the env (envs/autopilot.py) on
    the written two-sector level: straight on along its floor to checkpoint 1
    at z 30 and the finish at z 45; the same seed plays the same episode."""
    from behaviors.ballance.values import CHECKPOINT_RADIUS
    from envs.autopilot import autopilot
    from envs.ray_rollouts import serial
    folder = tmp_path / "3D Entities" / "Level"
    folder.mkdir(parents=True)
    (folder / "Level_01.NMO").write_bytes(two_sector_level().data())
    kwargs = dict(level=1, game_dir=str(tmp_path), frame_skip=1, time_limit=30)
    first, again = serial([0, 0], kwargs, autopilot)
    assert first.terminated and first.info["finished"] and not first.info["died"]
    assert np.array_equal(first.actions, again.actions) and np.array_equal(first.rewards, again.rewards)
    start_distance = float(np.linalg.norm(first.observations[0][L["to_goal"]]))
    # the reward (docs/training.md): the metres toward checkpoint 1 until its
    # sphere takes the ball, +20 there, then toward the finish, +100 at it
    assert first.total >= 120.0 + start_distance - CHECKPOINT_RADIUS
    held = {tuple(a) for a in first.actions}
    assert all(a[4] == 0 and a[5] == 0 for a in held)              # arrows only: no camera turn, no Space
