"""Which Blocker the autopilot pushes first (Pilot.push_task and
its _task_on; docs/levels.md "Autopilot", "Knocks"): level 05's route to
sector 1's goal meets the T-board P_Modul_37_01 only, but the board's long
run-up lies in the gutter past the gate P_Modul_01_01, which the map has
open; sent to the board's run-up, the ball went down the gutter to the
closed gate's place, where the route to the goal turned through the gate
and the gate's task sent it back: it swung between the two at the side
rails until out of time. A run-up route that crosses another waiting
Blocker's place waits for that one's push.

The written map: a strip along Z (x -3..3, z -15..60, y 0), the stone
ball at z 0; the board's place z 48..52 on the way to the goal beyond, its
long run-up's start behind the ball at z -12, past the gate's place
z -7..-3, whose run-up starts at z 10."""

import math
from types import SimpleNamespace

import numpy as np

from behaviors.ballance.autopilot import Blocker, Pilot
from behaviors.ballance.autopilot_map import WalkMap


def strip(x0, x1, z0, z1, y):
    a, b, c, d = (x0, y, z0), (x1, y, z0), (x1, y, z1), (x0, y, z1)
    return [(a, b, c), (a, c, d)]


def place(walk: WalkMap, z0: float, z1: float) -> frozenset:
    return frozenset(np.flatnonzero((walk.points[:, 2] >= z0) & (walk.points[:, 2] <= z1)).tolist())


def pilot_on(walk: WalkMap, blockers, goal) -> Pilot:
    """A Pilot on ``walk`` alone (no world): its blockers, all waiting in
    sector 1, and the route to ``goal``."""
    pilot = Pilot.__new__(Pilot)

    class Entity:
        def transform(self, at):
            return (0.0, 0.0, 0.0)                  # where it waits: no Blocker done

    entity = Entity()
    pilot.ctx = SimpleNamespace(get=lambda name: entity)
    pilot.level = SimpleNamespace(sector=1, sector_of={entity: 1})
    pilot.map, pilot.blockers, pilot.failed_pushes = walk, blockers, set()
    pilot._obstacles = lambda sector: []
    pilot.routes = {(1, None): walk.route_to(goal, 2.0)}
    return pilot


def test_a_run_up_past_a_waiting_blocker_waits_for_that_ones_push():
    walk = WalkMap(strip(-3, 3, -15, 60, 0.0))
    ball = SimpleNamespace(get_position=lambda: (0.0, 2.0, 0.0))
    gate = Blocker("gate", (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 5.0, 4.0, place(walk, -7, -3),
                   (((0.0, 2.0, 10.0), (0.0, 0.0, -1.0), 8.0),))
    board = Blocker("board", (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 10.0, 5.0, place(walk, 48, 52),
                    (((0.0, 2.0, -12.0), (0.0, 0.0, 1.0), 60.0),))
    goal = (0.0, 2.0, 58.0)
    route = walk.route_to(goal, 2.0)
    ahead = {s % len(walk.points) for s in route.ahead(route.state((0.0, 2.0, 0.0), "stone"), math.inf)}
    assert board.nodes & ahead and not gate.nodes & ahead          # the way to the goal meets the board only
    task = pilot_on(walk, [gate, board], goal).push_task(ball, "stone")
    assert task is not None and task[0] is gate
    task = pilot_on(walk, [board], goal).push_task(ball, "stone")     # no gate waiting: the board's
    assert task is not None and task[0] is board
