"""Ray rollouts of the Ballance environment (envs/ray_rollouts.py, docs/training.md
"Ray"): two local Ray actors, one world each, play the same episodes to the bit
as the same seeds played serially in this process."""

import math
import os

import numpy as np
import pytest
import ray

from envs.ray_rollouts import Episode, collect, main, random_keys, resolve_policy, serial, summary

SHORT = dict(scene="sample_level", frame_skip=4, time_limit=2.0)     # 30 steps of 4 frames at most


@pytest.fixture(scope="module")
def local_ray():
    """A small local instance: two CPUs, no dashboard, no usage report over the network."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        yield
        ray.shutdown()


def test_two_ray_workers_play_the_serial_episodes(local_ray):
    seeds = [7, 3, 12, 5, 9]
    got = collect(seeds, SHORT, workers=2)
    want = serial(seeds, SHORT)
    assert [e.seed for e in got] == seeds
    workers = {e.worker for e in got}
    assert len(workers) == 2 and not any(w.endswith(f":{os.getpid()}") for w in workers)
    for g, w in zip(got, want):
        assert g.observations.dtype == np.float32 and g.observations.shape == (len(g.rewards) + 1, 27)
        assert np.array_equal(g.observations, w.observations)
        assert np.array_equal(g.actions, w.actions) and np.array_equal(g.rewards, w.rewards)
        assert (g.terminated, g.truncated, g.info) == (w.terminated, w.truncated, w.info)
    # the seeds choose other keys, so the episodes differ
    assert not np.array_equal(got[0].actions[:5], got[1].actions[:5])


def test_main_collects_and_sums_up(local_ray, capsys):
    s = main(["--scene", "sample_level", "--episodes", "3", "--seed", "4", "--workers", "2",
              "--frame-skip", "4", "--time-limit", "1"])
    episodes = serial([4, 5, 6], dict(SHORT, time_limit=1.0))
    assert s["episodes"] == 3 and s["finished"] + s["died"] + s["truncated"] == 3
    assert s["mean_return"] == pytest.approx(np.mean([e.total for e in episodes]), rel=1e-12)
    assert s["mean_steps"] <= 15                                  # 1 s of 4-frame steps
    assert "3 episodes on 2 workers" in capsys.readouterr().out


def test_summary_of_hand_made_episodes():
    def episode(rewards, terminated, truncated, finished, sector):
        return Episode(0, np.zeros((len(rewards) + 1, 1), np.float32), np.zeros(len(rewards)),
                       np.array(rewards), terminated, truncated, {"finished": finished, "sector": sector})
    s = summary([episode([1.0, 2.0], True, False, True, 3), episode([-3.0], True, False, False, 1),
                 episode([0.5, 0.5, 2.0], False, True, False, 2)])
    # returns 3, -3, 3: mean 1, sample variance ((2^2 + 4^2 + 2^2) / 2) = 12
    assert s["mean_return"] == 1.0 and s["sd_return"] == pytest.approx(math.sqrt(12.0))
    assert (s["finished"], s["died"], s["truncated"], s["mean_steps"], s["furthest_sector"]) == (1, 1, 1, 2.0, 3)


def test_policies_by_name():
    assert resolve_policy("random") is random_keys
    assert resolve_policy("envs.ray_rollouts:random_keys") is random_keys
    for bad, word in (("nope", "module:callable"), ("envs.nope:x", "envs.nope"),
                      ("envs.ray_rollouts:nope", "nope"), ("envs:ENV_ID", "not callable")):
        with pytest.raises(ValueError, match=word):
            resolve_policy(bad)


def test_bad_command_lines_are_named(capsys):
    for argv, word in ((["--episodes", "2"], "--scene"), (["--level", "2"], "--game-dir"),
                       (["--scene", "x", "--workers", "0"], "--workers"),
                       (["--scene", "x", "--policy", "envs:nothing"], "nothing")):
        with pytest.raises(SystemExit):
            main(argv)
        assert word in capsys.readouterr().err
