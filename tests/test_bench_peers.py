"""The peers benchmark's ivp side (benchmarks/bench_peers.py, issue 11): small
workloads pass its physics checks, and the checks catch broken physics."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_peers import WORKLOADS, build_floor, build_stack, check_floor, check_stack, measure  # noqa: E402

BY_NAME = {w.name: w for w in WORKLOADS}


def test_small_workloads_pass_the_physics_checks_in_ivp():
    for name in ("bowl", "stack", "bridge"):
        _, failed = measure(BY_NAME[name], "ivp", runs=1, steps=BY_NAME[name].steps, scale=10)
        assert failed == [], (name, failed)


def test_the_checks_catch_a_ball_through_the_floor_and_a_toppled_stack():
    _, _, world = build_floor(10)
    P = np.array([b.pos for b in world.bodies])
    P[:, 1] = 1.0                                   # radius 1: every ball resting on y = 0
    assert check_floor(world, P, None, P, None, 0 * P) == []
    P[3, 1] = -1.0                                  # one ball sunk below the floor
    assert check_floor(world, P, None, P, None, 0 * P) == ["1 balls below the floor"]
    _, _, world = build_stack(5)                    # two unit boxes
    P = np.array([[0.0, 0.5, 0.0], [0.0, 1.5, 0.0]])
    assert check_stack(world, P, None, P, None, 0 * P) == []
    P[1] = (0.7, 0.5, 0.0)                          # the top box fell beside the bottom one
    assert len(check_stack(world, P, None, P, None, 0 * P)) == 2


def test_the_ab_benchmark_refuses_an_unknown_workload_or_no_rounds_before_checking_anything_out():
    import subprocess

    import ab_peers
    before = subprocess.run(["git", "worktree", "list"], capture_output=True, text=True).stdout
    for args in (["HEAD", "--only", "nope"], ["HEAD", "--rounds", "0"]):
        try:
            ab_peers.main(args)
        except SystemExit as exc:
            assert exc.code == 2
        else:
            raise AssertionError(f"ab_peers {args} ran")
    assert subprocess.run(["git", "worktree", "list"], capture_output=True, text=True).stdout == before
