"""The autopilot: plays a Ballance level with a player's keys (issue 40 item 3;
docs/levels.md "Autopilot").

Every frame of 1/60 s it holds some of the arrow keys, nothing else a player
could not press, and the level's own rules run as for a player. It finds its
way from the level's geometry and groups (autopilot_map): the route to the
next checkpoint (the finish in the last sector) over the floor and rail
nodes, the fans' lifts and the transformers, with the module bodies where
they come to rest, the sliding gates open and the T-boards and standing
drawbridges down (``probe``,
measured on the world before the run; a falling stone's crate, a closed
gate or a standing T-board on the route is pushed first: Blocker). The steering pushes the ball
toward a point ``lookahead`` ahead on the route at a speed that drops in
bends and on narrow ground: of the eight key sets (one arrow or two) it holds
the one whose push, in the camera's orientation frame, best turns the ball's
velocity toward the wanted one, or none when the velocity is close enough.
On a ride of the map (over a valley on the speed of the fall before the
rise) it pushes at full push toward the ride's end until it is there.

The search: at a sector's first frame of play and every ``SNAPSHOT_FRAMES``
frames of play the world is kept as a flat table (ivp.snapshot, bit-exact
with the RNG seed). A death, or no progress along the route for
``STUCK_FRAMES``, rolls the world back to a kept table at least
``BACKUP_FRAMES`` before it (before the last progress, when stuck, but not
before the world it last went back to, unless the ball was already within
``STUCK_AWAY`` of the place there or made no progress from there) and
replays from there with the next of the ``VARIANTS`` of the steering (slower, nearer, farther, to a
side) until the ball is past the place of the failure (a place where it
got stuck is an obstacle to the routes after), further back after a round
of them; after ``MAX_TRIES`` at one place (the place's failures never
start over: ``PLACE``; ``MAX_SECTOR_TRIES`` in one sector) it gives up and
says where. The keys of the frames rolled back are
dropped, so the keys kept are a normal recording (behaviors.recording) that
replays the same run.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, replace

import numpy as np
from scipy.sparse.csgraph import dijkstra
from scipy.spatial import cKDTree

from ivp import rng
from ivp.snapshot import build, flatten

from ..api import manager_of
from ..recording import Recorder
from bbglue.blocks import SetPhysicsForce

from .autopilot_arms import arm_knocks, arm_runs, stand_unpushed
from .autopilot_banks import add_banks, bank_crossings, bank_runs
from .autopilot_boxes import BOX, box_stacks, stack_blocker
from .autopilot_curls import CURL_FELL, CURL_FRAMES, CURL_REST, add_curls, curl_runs, held_push, landing, rest_point
from .autopilot_floats import tipping_kinds
from .autopilot_glides import add_glides, glide_ahead
from .autopilot_gutters import gutter_climb, gutter_under
from .autopilot_hops import add_rail_hops
from .autopilot_knocks import add_knocks, push_kinds
from .autopilot_lattices import add_lattices, lattice_crossings, lattice_runs
from .autopilot_lifts import caught
from .autopilot_map import DROP_REACH, LEAP_RUN, MAX_DROP, SPAN_DIP, Flight, WalkMap
from .autopilot_passes import met, pass_links, pass_push
from .autopilot_rail_drops import add_rail_drops, air_keys, falling_onto, rail_drop_landings, rail_drops
from .autopilot_rail_exits import rail_exit
from .autopilot_rails import RailLines, bend_speed, rail_ahead, rail_keys
from .autopilot_stops import stop_speed
from .autopilot_springs import (add_spring_lifts, clear_lift, on_platform, raised_platforms, spring_lifts, way_out,
                                weights_on)

from .balls import Transformers, player_of, wake
from .floors import FloorHeights, entity_triangles
from .level import DEAD, FINISHED, GAME_OVER, PLAYING, STARTING, level_behavior
from .level_meaning import MODULES
from .modules import Fan, falling_stones
from .navigation import BallNavigation
from .values import BALL_KINDS, BALL_RADIUS, CHECKPOINT_RADIUS, FINISH_RADIUS, KIND_NAMES, ROLLING

FRAME_MS = 1000.0 / 60.0
FLOOR_GROUPS = ("Phys_Floors", "Phys_FloorRails")
SNAPSHOT_FRAMES = 120        # a kept world every 2 s of play
KEPT = 8                     # kept worlds at most
BACKUP_FRAMES = 60           # a rollback goes back at least 1 s before the failure
STUCK_FRAMES = 480           # 8 s without getting 2 units nearer the goal: stuck
STUCK_AWAY = 2.0 * BALL_RADIUS   # a stuck rollback goes back to a world with the ball this far from where it stuck
PROGRESS = 2.0
PAST = 10.0                  # a variant steers until the route's cost is this far below the failure's best
MAX_TRIES = 24               # rollbacks at one place before giving up
PLACE = 10.0                 # failures this near the first at a place are at that place
MAX_SECTOR_TRIES = 60        # rollbacks in one sector before giving up
DEADBAND = 0.6               # units/s of velocity error left alone
BRAKE_DISTANCE = 14.0        # a bend this far ahead on the route slows the ball
AIM_TOLERANCE = 0.75         # the aim's straight way passes this near the route's points
MIN_AIM = 3.5                # the aim is at least this far along the route (a node beside the ball is no aim)
LIFT = 3.0                   # a step of the route rising more is a fan's lift
LIFT_IN = 3.0                # the ball is held in a lift's column from this near its axis (the map's foot nodes) ...
LIFT_OUT = 5.0               # ... until this far off it (it left the column) ...
LIFT_HOLD = 1.5              # ... wanting this many times its offset as its horizontal speed back at the axis ...
LIFT_SLACK = 0.5             # ... until its lowest point is above the column's height, or this near it at its peak
ROCK_BACK = 0.5              # a rocking ball rolling back along its aim faster than this is pushed back ...
ROCK_RISE = 1.0              # ... while the way ahead rises more than this above it (no rocking on the flat)
ROCK_AHEAD = 30.0            # ... within this along the route, steeper than the kind's climb (Steering.rock:
                             # within BRAKE_DISTANCE, any rise) ...
ROCK_SPEED = 20.0            # ... wanting this speed at least, either way (and on a ride)
RIDE_END = 1.0               # a ride is done this near its end
LEAP_PUSH = 60.0             # the speed a leap's ride wants: more than any kind rolls (full push all the way)
CURL_WAIT = 600              # the curls' probe waits at most this for the level's first ball in play (10 s)
CURL_AT = 1.5                # a curl's throw is done once the ball is this near its landing's height (and
                             # a ball's width across)
LEAP_START = 2.0             # a leap's ride starts this near its run-up (the ball's node is its nearest: one
                             # rolling past the run-up's start beside it may never have it; level 05's last ramp)
TURN_COS = 0.7               # a route turning more than 45 degrees from the ball's way ...
TURN_SPEED = 2.0             # ... is reached no faster than this plus what the kind's push brakes on the way there
TURN_SPAN = 4.0              # a stretch of the route this long gives its way (a node's step aside is no turn)
TURN_BRAKE = 0.5             # the part of its push's F / m a ball brakes with (rolling: 5/7; the keys in 45-degree steps)
JUMP_RUN = 11.0              # the speed at a gap the map's jump crosses (autopilot_map.JUMP_SPEED, 8, at least)
RUN_UP = 6.0                 # a crate or a gate is pushed with this run-up (benchmarks/level_probes "stones")
AT_RUN_UP = 1.5              # the ball is at the run-up's start this near it (horizontally) ...
RUN_UP_SPEED = 1.0           # ... and this slow
PUSH_SPEED = 10.0            # the push's speed along its line
PUSH_FRAMES = 300            # a push that has not cleared the way in 5 s failed
DROPPED = 0.5                # a stone down this part of its drop is dropping: the push is done
SLIDING_GATE = "P_Modul_01"
T_BOARD = "P_Modul_37"
DRAWBRIDGE = "P_Modul_25"
ARM = "P_Modul_17"
FLOAT_BOARD = "P_Modul_41"
UPRIGHT = 0.7                # a drawbridge whose board rises more steeply than this (its sine) stands
SETTLE_FRAMES = 240          # the probe lets the module bodies settle this long (4 s) ...
SETTLED_MOVE = 8.0           # ... a body that moved more fell out of its place: the map keeps it as authored
GATE_PUSH = 1.5              # the probe pushes a gate's pusher along its channel with this many times its weight
GATE_FRAMES = 180            # ... for at most 3 s, until it stops (moves less than GATE_STOP in a frame)
GATE_STOP = 0.005
GATE_MOVED = 1.0             # a pusher moved less than this does not open that way
GATE_SLACK = 0.3             # a gate pushed to within this of its opening is open
BOARD_FRAMES = 300           # the probe pushes a T-board over for at most 5 s, until it stops ...
BOARD_DOWN = 0.5             # ... and a board whose middle has gone this part of the way there is falling
BOARD_REST = 0.1             # a node whose ball's centre is this much more than its radius from a board down is on it
RUN_UP_CLEAR = 0.1           # a run-up's ball centre this much inside its radius of a face is clear of it (the floor under it)
SAMPLE = 0.5                 # a closed gate's surface points, this apart: a node's ball touching one is in its place
FLIGHT_ABOVE = 100.0         # the flights are measured this far above the level's highest floor
FLIGHT_FRAMES = 600          # ... for at most 10 s
AIRBORNE = 1.0               # a ball this far above the floor under it (more than its radius) flies
AIRBORNE_RING = 16           # ... under its centre and under this many points round it ...
AIRBORNE_OUT = 1.9           # ... this far out (a rail of a pair is 1.875 beside the ball's centre)
SIDE_HOLD = 0.7              # beside side rails the keys push within 45 degrees of them (a diagonal: its own
                             # key's full push toward them, and one along)


@dataclass(frozen=True)
class Steering:
    """A variant of the steering: cruise speed (units per simulated second),
    how far ahead on the route it aims, how much it slows in bends, how far
    to the right of the route it aims (a box pushed off its centre turns),
    whether it rocks the ball (pushes it the way it rolls along the aim's
    line, back as well as on: a ball in a valley swings higher each time,
    up a face steeper than its push holds it on)."""

    speed: float
    lookahead: float
    bend: float = 0.6
    offset: float = 0.0
    rock: bool = False


VARIANTS = (Steering(9.0, 7.0), Steering(6.0, 6.0), Steering(4.0, 4.0), Steering(12.0, 9.0),
            Steering(7.0, 11.0, 0.9), Steering(3.0, 3.0, 0.9), Steering(20.0, 12.0, 0.3),
            Steering(6.0, 6.0, 0.6, 1.5), Steering(6.0, 6.0, 0.6, -1.5), Steering(20.0, 7.0, rock=True))


@dataclass
class Outcome:
    """How the autopilot's run ended."""

    level: int
    finished: bool
    score: int
    lives: int
    frames: int                  # frames played (the recording's length)
    rollbacks: int
    wall_seconds: float
    why: str = ""                # where and why it gave up

    @property
    def seconds(self) -> float:
        return self.frames * FRAME_MS / 1000.0

    def text(self) -> str:
        if self.finished:
            return (f"level {self.level}: finished, score {self.score}, lives {self.lives}, "
                    f"time {self.seconds:.2f} s ({self.rollbacks} rollbacks, {self.wall_seconds:.0f} s wall)")
        return (f"level {self.level}: gave up after {self.seconds:.2f} s, {self.why} "
                f"({self.rollbacks} rollbacks, {self.wall_seconds:.0f} s wall)")


def _path_lengths(points) -> list:
    """The length along ``points`` up to each of them."""
    out, gone = [0.0], 0.0
    for a, b in zip(points, points[1:]):
        gone += float(np.linalg.norm(b - a))
        out.append(gone)
    return out


def _flat(v):
    return np.array([v[0], 0.0, v[2]])


def _in_sight(p, points, tolerance: float, first: int = 0):
    """The farthest of ``points`` (from index ``first``) whose straight way
    from ``p`` passes (in X and Z) within ``tolerance`` of every point before
    it: no corner cut; else ``points[first]``."""
    for j in range(len(points) - 1, first, -1):
        d = _flat(points[j] - p)
        length = float(np.linalg.norm(d))
        if length < 1e-9:
            return points[j]
        u = d / length
        if all(float(np.linalg.norm(_flat(q - p) - u * float(_flat(q - p) @ u))) <= tolerance for q in points[1:j]):
            return points[j]
    return points[first]


def _off_run_up(p, start, landing) -> float:
    """How far ``p`` is horizontally from a leap's run-up: the first
    LEAP_RUN of the way from its start to its landing."""
    u = _flat(landing - start)
    u /= float(np.linalg.norm(u)) or 1.0
    d = _flat(p - start)
    along = min(max(float(d @ u), 0.0), LEAP_RUN)
    return float(np.linalg.norm(d - u * along))


def _straightness(points) -> float:
    """The cosine of the bend between the route's first steps and its end (1: straight)."""
    if len(points) < 3:
        return 1.0
    d0, d1 = _flat(points[min(2, len(points) - 1)] - points[0]), _flat(points[-1] - points[0])
    n0, n1 = np.linalg.norm(d0), np.linalg.norm(d1)
    return float(d0 @ d1) / (n0 * n1) if n0 > 0 and n1 > 0 else 1.0


def _members(ctx, names) -> list:
    return [e for n in names if n in ctx for e in ctx.get_group(n).entities]


@dataclass
class Blocker:
    """A body on the way that the ball must push first, as the autopilot
    sees it: a falling stone (module 34) whose crate is pushed out, a
    sliding gate (module 01) pushed along its channel. ``body`` is the part
    whose move clears the way (a name: a restored world has new entities),
    at ``origin`` while it waits; it has cleared the way once moved ``need``
    along ``axis`` (of the ``travel`` it can move: a stone's drop, a gate's
    opening). ``nodes``: the map's nodes the way needs cleared (a stone's
    dropped top, a closed gate's place, a T-board's way down); ``pushes``:
    (the ball's centre at the run-up's start, the unit push, the length of
    the push); ``at``: the point of the body that moves, in its frame (a
    T-board's middle: its position is its hinge); ``kinds``: per push, the
    kinds measured to do it at full push (autopilot_knocks; none: the
    strongest kind at PUSH_SPEED)."""

    body: str
    origin: tuple
    axis: tuple
    travel: float
    need: float
    nodes: frozenset = frozenset()
    pushes: tuple = ()
    at: tuple = (0.0, 0.0, 0.0)
    kinds: tuple = ()

    def done(self, ctx) -> bool:
        moved = np.asarray(ctx.get(self.body).transform(self.at), float) - self.origin
        return float(moved @ np.asarray(self.axis, float)) >= self.need


def _stone_drops(ctx, floors: np.ndarray) -> list:
    """(Blocker without nodes and pushes, its crate, the dropped stone's
    triangles) of the level's falling stones: the stone falls until its
    bottom meets the floor under its crate."""
    heights = FloorHeights(floors) if len(floors) else None
    out = []
    for stone, crate in falling_stones(ctx):
        st, ct = entity_triangles([stone]), entity_triangles([crate])
        if heights is None or not len(st) or not len(ct):
            continue
        x, _, z = crate.get_position()
        foot = float(heights.below([(x, ct[..., 1].min(), z)])[0])
        if math.isnan(foot):
            continue
        drop = float(st[..., 1].min()) - foot
        out.append((Blocker(stone.name, tuple(stone.get_position()), (0.0, -1.0, 0.0), drop, drop * DROPPED),
                    crate, st - (0.0, drop, 0.0)))
    return out


def _stone_plan(walk: WalkMap, stone: Blocker, crate, dropped: np.ndarray) -> Blocker:
    """The stone with its dropped top's nodes and the pushes of its crate,
    one for each side with floor at the crate's foot behind the run-up and
    room for the crate beyond it (the push's end)."""
    p = walk.points
    lo, hi = dropped.reshape(-1, 3).min(axis=0), dropped.reshape(-1, 3).max(axis=0)
    top = np.flatnonzero((p[:, 0] >= lo[0]) & (p[:, 0] <= hi[0]) & (p[:, 2] >= lo[2]) & (p[:, 2] <= hi[2])
                         & (np.abs(p[:, 1] - hi[1]) <= 0.5))
    m = np.asarray(crate.get_world_matrix().as_array(), float)
    c_lo, c_hi = crate.get_bounding_box(local=True)
    centre, foot = np.asarray(crate.get_position(), float), lo[1]
    pushes = []
    for axis in (0, 2):
        d = m[axis, :3].copy()
        d[1] = 0.0
        length = float(np.linalg.norm(d))
        if length < 1e-9:
            continue
        half = 0.5 * (c_hi[axis] - c_lo[axis]) * length
        for sign in (1.0, -1.0):
            u = sign * d / length
            start = centre - u * (half + BALL_RADIUS + RUN_UP)
            beyond = centre + u * (2.0 * half + BALL_RADIUS)
            ends = [walk.tree.query_ball_point((q[0], foot, q[2]), AT_RUN_UP) for q in (start, beyond)]
            if all(ends):
                pushes.append((np.array([start[0], foot + BALL_RADIUS, start[2]]), u,
                               float(np.linalg.norm(_flat(beyond - start)))))
    return replace(stone, nodes=frozenset(top.tolist()), pushes=tuple(pushes))


def _module_parts(ctx, module: str, role: str) -> list:
    """The level's parts of one role of a module, by their names in the module
    table (or its keyword: level 03's arms are ``Modul17_Dreharme``)."""
    part = next(p for p in MODULES[module].parts if p.role == role)
    names = {module + s for s in (part.suffix,) + tuple(part.convention)}
    return [e for e in ctx.entities if e.name.partition(".")[2] in names
            or (part.keyword and e.name.startswith(module + "_") and part.keyword in e.name.lower())]


def sliding_gates(ctx) -> list:
    """The pushers of the level's sliding gates (module 01: the pusher slides
    along its channel, glue-and-content 3)."""
    return _module_parts(ctx, SLIDING_GATE, "pusher")


def _middle(e) -> np.ndarray:
    """The middle of an entity's mesh box, in its own frame."""
    lo, hi = e.get_bounding_box(local=True)
    return (np.asarray(lo, float) + np.asarray(hi, float)) * 0.5


def _at(m: np.ndarray, local) -> np.ndarray:
    """A point of an entity's frame at world matrix ``m`` (4 x 4, CK layout)."""
    return np.asarray(local, float) @ m[:3, :3] + m[3, :3]


def _push_over(ctx, board, settled: np.ndarray, g: float):
    """A T-board (module 37: a board on a hinge, its mass 7.5 up it) pushed
    over by GATE_PUSH times its weight at its middle, first the way from its
    top's lean (level 12's leans 3 toward the platform beside it and rests
    there), then the other, until it stops: its world matrix where it came
    down, or None when neither push moved its middle GATE_MOVED."""
    module = board.name.partition(".")[2].rpartition("_")[0]
    mass = next(p.physics["mass"] for p in MODULES[module].parts if p.role == "body")
    mid = _middle(board)
    lean = _flat(_at(settled, mid) - settled[3, :3])
    y = _flat(settled[1, :3])
    y = y / (np.linalg.norm(y) or 1.0)
    first = -1.0 if float(lean @ y) > 0.0 else 1.0
    for sign in (first, -first):
        force = SetPhysicsForce(board, ctx, position=tuple(mid), pos_referential=board, direction=tuple(sign * y),
                                force_value=GATE_PUSH * mass * g * ctx.physics.psi_length)
        force.create()
        wake(ctx, board)
        last = _at(settled, mid)
        for k in range(BOARD_FRAMES):
            _frames(ctx, 1)
            now = np.asarray(board.transform(tuple(mid)), float)
            if k >= SETTLE_FRAMES // 4 and float(np.linalg.norm(now - last)) < GATE_STOP:
                break
            last = now
        force.destroy_now(ctx)
        if float(np.linalg.norm(last - _at(settled, mid))) >= GATE_MOVED:
            return np.asarray(board.get_world_matrix().as_array(), float)
    return None


def push_boards(ctx, poses: dict) -> list:
    """The boards a ball pushes over, of those at rest in ``poses``: every
    T-board, and each drawbridge (module 25, the spec's "push board": a
    board on a hinge at its foot, its mass 2.5 up it and 0.2 to one side)
    that stands. Level 12's three and level 04's one are authored upright
    and settle leaning 17 degrees back over the floor a ball comes from
    (the mass's side), where they rest; pushed by 1.5 times their weight
    at their middle they fall the other way and lie across the gap beyond
    (level 12's P_Modul_25_03 from its hinge at z -190.1 to z -180.9, its
    top 0.2 above its hinge, level with the floors either side, measured);
    level 02's is authored lying and stays so."""
    drawbridges = [b for b in _module_parts(ctx, DRAWBRIDGE, "body")
                   if b.name in poses and abs(float(poses[b.name][0, 1])) > UPRIGHT]
    return [b for b in _module_parts(ctx, T_BOARD, "body") if b.name in poses] + drawbridges


def _frames(ctx, n: int) -> None:
    for _ in range(n):
        _step(ctx, frozenset())


def key_pushes(ctx) -> list:
    """(keys, horizontal unit push in world axes) of the eight key sets on ``ctx``."""
    m = manager_of(ctx, create=False)
    nav = m.find(BallNavigation)[0]
    ref = nav.orient_ref
    axes = {k: np.asarray(ref.transform_vector(d) if ref is not None else d, float)
            for k, d in nav.keys().items()}
    up, down, left, right = nav.up_key, nav.down_key, nav.left_key, nav.right_key
    out = []
    for keys in ((up,), (down,), (left,), (right,), (up, left), (up, right), (down, left), (down, right)):
        v = sum(axes[k] for k in keys)
        v[1] = 0.0
        out.append((frozenset(keys), v / (np.linalg.norm(v) or 1.0)))
    return out


def _step(ctx, keys) -> None:
    """One frame with ``keys`` held."""
    ctx.input_manager.set_keys(keys)
    ctx.process_frame(FRAME_MS)


def _all_sectors(ctx, level) -> list:
    """Every sector into the world: its module bodies, as authored."""
    for k in level.sector_bodies:
        level.reset_sector(k)
    return [e for b in level.sector_bodies.values() for e in b if e not in level.prop_set]


def _settle(ctx, level) -> dict:
    """Every sector into the world, its module bodies awake, SETTLE_FRAMES
    without keys: name -> world matrix of each body that moved less than
    SETTLED_MOVE."""
    bodies = _all_sectors(ctx, level)
    before = {e.name: np.asarray(e.get_position(), float) for e in bodies}
    for e in bodies:
        wake(ctx, e)
    _frames(ctx, SETTLE_FRAMES)
    return {e.name: np.asarray(e.get_world_matrix().as_array(), float) for e in bodies
            if float(np.linalg.norm(np.asarray(e.get_position(), float) - before[e.name])) < SETTLED_MOVE}


def probe(ctx, level) -> tuple:
    """The modules at rest and how far the sliding gates open, measured on
    ``ctx`` itself (the caller builds the world again from a table kept
    before): the bodies at rest (_settle); then each gate's pusher pushed
    along its channel (its frame's X, either way) by GATE_PUSH times its
    weight until it stops: name -> (unit push, its settled matrix, how far
    from there it went);
    then each T-board pushed over (_push_over): its matrix down in ``poses``."""
    poses = _settle(ctx, level)
    mass = next(p.physics["mass"] for p in MODULES[SLIDING_GATE].parts if p.role == "pusher")
    g = math.sqrt(sum(c * c for c in ctx.physics.gravity))
    gates = {}
    for pusher in sliding_gates(ctx):
        if pusher.name not in poses:
            continue
        x = _flat(poses[pusher.name][0, :3])
        for sign in (1.0, -1.0):
            u = sign * x / (np.linalg.norm(x) or 1.0)
            start = np.asarray(pusher.get_position(), float)
            force = SetPhysicsForce(pusher, ctx, position=(0.0, 0.0, 0.0), pos_referential=pusher,
                                    direction=tuple(u), force_value=GATE_PUSH * mass * g * ctx.physics.psi_length)
            force.create()
            wake(ctx, pusher)
            last = start
            for _ in range(GATE_FRAMES):
                _frames(ctx, 1)
                now = np.asarray(pusher.get_position(), float)
                if float(np.linalg.norm(now - last)) < GATE_STOP and float((now - start) @ u) >= GATE_MOVED:
                    break
                last = now
            force.destroy_now(ctx)
            went = float((np.asarray(pusher.get_position(), float) - poses[pusher.name][3, :3]) @ u)
            if went >= GATE_MOVED:
                gates[pusher.name] = (u, poses[pusher.name], went)
                break
    for board in push_boards(ctx, poses):
        down = _push_over(ctx, board, poses[board.name], g)
        if down is not None:
            poses[board.name] = down
    return poses, gates


def curls(ctx, level, walk: WalkMap, runs) -> list:
    """Each curl's landing per kind, measured on ``ctx`` itself (the caller
    builds the world again after; autopilot_curls): the ball put at rest
    between the rails at its run-up's top, its navigation force (per PSI,
    as a key pushes it) held along the run-up for at most CURL_FRAMES,
    until it falls CURL_FELL below the dip or comes to rest above it
    (landing): (run-up node, landing node, kind, way) of those that land.
    The level's first ball is played first (the end of its birth respawns
    the ball in play, without the force: level 03 from sector 2), and its
    death boxes are switched off (a kind's fall was a death whose rebirth
    replaced the next kind's ball mid-run: level 03 from sector 1)."""
    for _ in range(CURL_WAIT):
        if level.flow == PLAYING:
            break
        _frames(ctx, 1)
    level.death_boxes = None
    player, out = player_of(ctx), []
    for dip, way, start in runs:
        for kind in BALL_KINDS:
            force = held_push(ctx, player, kind, rest_point(walk, start), way)
            track, node = [], None
            for i in range(1, CURL_FRAMES + 1):
                _frames(ctx, 1)
                if player.ball is None:
                    break
                track.append(np.asarray(player.ball.get_position(), float))
                if track[-1][1] < walk.points[dip, 1] - CURL_FELL:
                    break
                if i % CURL_REST == 0 and (node := landing(walk, track, dip, way)) is not None:
                    break
            force.destroy_now(ctx)
            player.remove()
            node = landing(walk, track, dip, way) if node is None and track else node
            if node is not None:
                out.append((start, node, kind, way))
    return out


def flights(ctx, level, floors: np.ndarray) -> dict:
    """Each kind's Flight, measured on ``ctx`` itself (the caller builds the
    world again after): the ball put at rest FLIGHT_ABOVE over the highest
    floor, its navigation force (per PSI, as a key pushes it) held along +X,
    each frame's fall, vertical speed and horizontal distance until it has
    fallen MAX_DROP. The level's first ball is played first: the end of
    its birth respawns the ball in play (level 06, no gate to probe: its
    paper ball was respawned mid-flight and went nowhere across)."""
    for _ in range(int(math.ceil((level.start_delay + level.birth_delay) * 1000.0 / FRAME_MS)) + 1):
        if level.flow != STARTING:
            break
        _frames(ctx, 1)
    player = player_of(ctx)
    x, _, z = level.reset_point(1).get_position()
    start = (x, float(floors[..., 1].max()) + FLIGHT_ABOVE, z)
    out = {}
    for kind in BALL_KINDS:
        force = held_push(ctx, player, kind, start, (1.0, 0.0, 0.0))
        rows = [(0.0, 0.0, 0.0, 0.0)]
        for i in range(1, FLIGHT_FRAMES + 1):
            _frames(ctx, 1)
            p, v = np.asarray(player.ball.get_position(), float), ctx.physics.body_of(player.ball).core.speed
            rows.append((i * FRAME_MS / 1000.0, start[1] - p[1], float(v[1]), float(np.hypot(p[0] - x, p[2] - z))))
            if rows[-1][1] > MAX_DROP:
                break
        force.destroy_now(ctx)
        player.remove()
        t, fall, vy, flat = np.array(rows).T
        grow = np.maximum.accumulate                 # a bounce off nothing: none, but the tables must not go back
        out[kind] = Flight(t, grow(fall), -grow(-vy), grow(flat),
                           math.sqrt(sum(c * c for c in ctx.physics.gravity)))
    return out


def _surface_points(triangles: np.ndarray, spacing: float) -> np.ndarray:
    """Points on the triangles, at most ``spacing`` apart along their edges."""
    out = [np.zeros((0, 3))]
    for a, b, c in triangles:
        n = max(1, int(math.ceil(max(np.linalg.norm(b - a), np.linalg.norm(c - a), np.linalg.norm(c - b)) / spacing)))
        i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1))
        keep = i + j <= n
        s, t = i[keep][:, None] / n, j[keep][:, None] / n
        out.append(a + s * (b - a) + t * (c - a))
    return np.concatenate(out)


def _touching(walk: WalkMap, body, matrix, reach: float = BALL_RADIUS - 0.1) -> tuple:
    """(surface points of ``body`` at ``matrix``, the map's nodes whose ball
    centre is within ``reach`` of them: by default, whose ball overlaps it)."""
    points = _surface_points(entity_triangles([body], {body.name: matrix}), SAMPLE)
    if not len(points):
        return points, frozenset()
    touched = cKDTree(points).query_ball_point(walk.points + (0.0, BALL_RADIUS, 0.0), reach)
    return points, frozenset(i for i, near in enumerate(touched) if near)


def _run_up(heights: FloorHeights, points: np.ndarray, u, walk: WalkMap | None = None):
    """The ball's centre at the start of a RUN_UP behind the points hindmost
    along ``u``, on the floor there (and near a node of ``walk``), or
    between a rail pair there (_between_rails), or None."""
    along = points @ u
    back = points[along <= along.min() + 2.0 * SAMPLE]
    start = back.mean(axis=0) - u * (along.min() - float(back.mean(axis=0) @ u) + BALL_RADIUS + RUN_UP)
    top = float(back[:, 1].max())
    foot = float(heights.below([(start[0], top, start[2])])[0])
    if math.isnan(foot) and walk is not None:
        return _between_rails(walk, start, top)
    if math.isnan(foot) or (walk is not None and not walk.tree.query_ball_point((start[0], foot, start[2]),
                                                                                  AT_RUN_UP)):
        return None
    return np.array([start[0], foot + BALL_RADIUS, start[2]])


def _between_rails(walk: WalkMap, start, top: float):
    """The ball's centre between a rail pair under ``start`` (a midpoint of
    ``walk`` within AT_RUN_UP across, at most ``top`` high; the centre
    SPAN_DIP lower than on a floor at the rails' tops), or None: level 05's
    gates P_Modul_01_05 and _06 are pushed from the rail pair that leads
    into them, over no floor."""
    mids = walk.points[walk.span]
    near = mids[(np.hypot(mids[:, 0] - start[0], mids[:, 2] - start[2]) <= AT_RUN_UP) & (mids[:, 1] <= top)]
    if not len(near):
        return None
    return np.array([start[0], near[:, 1].max() + BALL_RADIUS - SPAN_DIP, start[2]])


def _gate_plan(walk: WalkMap, heights: FloorHeights, pusher, u, settled, travel: float) -> Blocker | None:
    """A sliding gate as a Blocker: the nodes where a ball touches its pusher
    closed (settled), its one push: from a run-up behind the pusher's back
    (its points hindmost along ``u``), as far as it opens."""
    closed, nodes = _touching(walk, pusher, settled)
    start = _run_up(heights, closed, u, walk) if len(closed) else None
    if start is None:
        return None
    origin = np.asarray(pusher.get_position(), float)
    opened = settled[3, :3] + u * travel
    return Blocker(pusher.name, tuple(origin), tuple(u), travel, float((opened - origin) @ u) - GATE_SLACK, nodes,
                   ((start, u, RUN_UP + travel),))


def _board_way(board, down) -> np.ndarray:
    """How far a T-board's middle goes from where it stands to ``down``."""
    mid = _middle(board)
    return _at(down, mid) - _at(np.asarray(board.get_world_matrix().as_array(), float), mid)


def _board_push(board, down, heights: FloorHeights):
    """How a ball pushes a standing T-board over to lie at ``down``: (the
    middle's way down, the ball's centre at the start of a run-up on the
    floor behind its foot (its points within a ball of its lowest,
    hindmost the way it falls), the unit push), or None where no floor is
    behind it (level 12's three in sector 6 stand over the void on that side)."""
    gone = _board_way(board, down)
    u = _flat(gone) / (np.linalg.norm(_flat(gone)) or 1.0)
    up = _surface_points(entity_triangles([board]), SAMPLE)
    foot = up[up[:, 1] <= up[:, 1].min() + 2.0 * BALL_RADIUS] if len(up) else up
    start = _run_up(heights, foot, u) if len(foot) else None
    return None if start is None else (gone, start, u)


def _clear_run_up(walk: WalkMap, ground: FloorHeights, start, u) -> float:
    """How much of a RUN_UP from ``start`` along ``u`` is left when its
    start moves on toward the board by the least that keeps the ball's
    centre on the rest of its way clear of every face of the level (RUN_UP_CLEAR
    inside its radius: not the floor under it); 0: none, the ball pushes
    from rest; less: no clear way into the board. Level 12's P_Modul_37_01
    has a bar of A02_Rail_04 (x 498.3 to 499, z -320.5 to -316, 3 high) on
    its middle's line 5 before its foot: a stone ball run up along that
    line stopped against the bar (x 497.3) every try; from rest at x 501.3,
    0.5 before the board, it pushes the board over (measured: its middle
    from 10 to 4.8 high). The centre rises and falls with the floor under
    it (_on_floor)."""
    gone = np.linspace(0.0, RUN_UP, int(RUN_UP / SAMPLE) + 1)
    hit = walk.solid.query_ball_point(_on_floor(ground, start + np.outer(gone, u)), BALL_RADIUS - RUN_UP_CLEAR,
                                      return_length=True)
    return float(RUN_UP - gone[np.flatnonzero(hit)[-1]] - SAMPLE) if hit.any() else RUN_UP


def _on_floor(ground: FloorHeights, way: np.ndarray) -> np.ndarray:
    """The ball's centres along a run-up ``way`` (from its start's), each
    raised or lowered by the rise of the floor under it (of ``ground``: the
    level's floors and bodies) over the start's, where that is less than a
    radius (elsewhere level: a run-up between rails): the floor before level
    12's drawbridge P_Modul_25_03 rises 0.58 (a bevel onto its hinge's
    plate, z -197.4 to -195.7) on its run-up; held level, the centre sank
    1.4 from the plate's face, the run-up was not clear and no push was
    planned (the ball, rolling into the bridge unplanned, stalled against
    it 5 times in a play of sector 4)."""
    floor = ground.below(way)
    rise = floor - floor[0]
    rise[~(np.abs(rise) < BALL_RADIUS)] = 0.0
    return way + np.outer(rise, (0.0, 1.0, 0.0))


def _board_plan(walk: WalkMap, ground: FloorHeights, board, down, push) -> Blocker | None:
    """A standing T-board as a Blocker: the nodes where a ball touches it
    down or rests on it (the way it makes: level 12's lies across a rail
    pair's gap, level 03's flat in a trench across a corridor, its top level
    with the floor: a ball on it is BALL_RADIUS from it, and its route over
    the trench touched none), its one push (_board_push) from a node into
    it, none where no clear run-up reaches it; it has fallen once its middle
    has gone BOARD_DOWN of the way down."""
    _, start, u = push
    way = _clear_start(walk, ground, start, u)
    return _board_blocker(walk, board, down, () if way is None else ((way[0], u, way[1] + BALL_RADIUS),))


def _clear_start(walk: WalkMap, ground: FloorHeights, start, u):
    """(the run-up's start moved on toward the board past faces
    (_clear_run_up), the run-up left) of a RUN_UP from ``start`` along
    ``u``, or None: no clear way in, or no node of the map there."""
    run = _clear_run_up(walk, ground, start, u)
    start = start + u * (RUN_UP - run)
    if run < 0.0 or not walk.tree.query_ball_point(start - (0.0, BALL_RADIUS, 0.0), AT_RUN_UP):
        return None
    return start, run


def _board_blocker(walk: WalkMap, board, down, pushes) -> Blocker | None:
    """A board as a Blocker with ``pushes`` (_board_plan), None where no node
    touches it down; with none, it stands in the map (stand_unpushed)."""
    _, nodes = _touching(walk, board, down, BALL_RADIUS + BOARD_REST)
    if not nodes:
        return None
    mid = _middle(board)
    gone = _board_way(board, down)
    travel = float(np.linalg.norm(gone))
    return Blocker(board.name, tuple(_at(np.asarray(board.get_world_matrix().as_array(), float), mid)),
                   tuple(gone / travel), travel, BOARD_DOWN * travel, nodes, pushes, tuple(mid))


def level_map(ctx, level, poses=None, gates=None, flown=None):
    """The WalkMap of a started level: its floors and its sectors' module
    bodies at rest (``poses``, probe) or where they wait (bridges, boards,
    seesaws: not the loose props), the falling stones dropped (their crates
    left out), the sliding gates open (``gates``, probe), the T-boards down
    (``poses``, probe), its fans' columns,
    its transformer pads, each kind's Flight (``flown``, flights); and the
    Blockers: falling stones, gates and standing T-boards."""
    m = manager_of(ctx, create=False)
    floors = entity_triangles(_members(ctx, FLOOR_GROUPS))
    rails = np.arange(len(floors)) >= len(entity_triangles(_members(ctx, FLOOR_GROUPS[:1])))
    stones = _stone_drops(ctx, floors)
    moved = {n for st, crate, _ in stones for n in (st.body, crate.name)}
    modules = [e for bodies in level.sector_bodies.values() for e in bodies
               if e not in level.prop_set and e.name not in moved]
    poses = dict(poses or {})
    dropped = np.concatenate([np.zeros((0, 3, 3))] + [t for _, _, t in stones])
    heights = FloorHeights(floors) if len(floors) else None
    over = FloorHeights(np.concatenate([floors, dropped])) if len(floors) else None   # a board's run-up: over a
                                                                                      # stone dropped too
    pushes = {}
    for board in _module_parts(ctx, T_BOARD, "body") + _module_parts(ctx, DRAWBRIDGE, "body"):
        down = poses.get(board.name)
        if down is None or heights is None or float(np.linalg.norm(_board_way(board, down))) < GATE_MOVED:
            continue
        push = _board_push(board, down, over)
        if push is not None:
            pushes[board.name] = push
        elif T_BOARD in board.name:            # a T-board is down only where a ball pushes it over: else as
            del poses[board.name]              # authored; a drawbridge stays as probed (level 07's
                                               # P_Modul_25_01 falls by itself in the settle, no floor behind it)
    for name, (u, settled, travel) in (gates or {}).items():
        poses[name] = settled.copy()
        poses[name][3, :3] += u * travel
    fans, pads = [], []
    for fan in (m.find(Fan) if m is not None else ()):
        sy = fan.size[1]
        fans.append((fan.entity.transform((0.0, fan.base, 0.0)), fan.entity.transform((0.0, fan.base + sy, 0.0))))
    for t in (m.find(Transformers) if m is not None else ()):
        pads += [(pad.get_position(), kind) for kind, g in (("paper", t.paper_pads), ("wood", t.wood_pads),
                                                            ("stone", t.stone_pads)) for pad in (g or ())]
    lifts = spring_lifts(ctx, poses, math.sqrt(sum(c * c for c in ctx.physics.gravity)))
    bodies = np.concatenate([entity_triangles(modules, poses), raised_platforms(ctx, lifts, poses)])
    others = np.zeros(len(floors) + len(bodies), bool)
    walk = WalkMap(np.concatenate([floors, bodies, dropped]), fans, pads,
                   {k: climb(k, ctx.physics) for k in BALL_KINDS}, math.sqrt(sum(c * c for c in ctx.physics.gravity)),
                   flown, np.r_[rails, np.zeros(len(bodies) + len(dropped), bool)],
                   np.r_[others, np.ones(len(dropped), bool)])
    add_rail_hops(walk)
    add_spring_lifts(walk, lifts)
    add_glides(walk)
    blockers = [_stone_plan(walk, st, crate, t) for st, crate, t in stones]
    walk.passes = pass_links(walk, blockers)
    for name, (u, settled, travel) in (gates or {}).items():
        gate = _gate_plan(walk, heights, ctx.get(name), u, settled, travel) if heights is not None else None
        if gate is not None:
            blockers.append(gate)
    ground = FloorHeights(np.concatenate([floors, bodies, dropped])) if pushes else None
    for name, push in pushes.items():
        plan = _board_plan(walk, ground, ctx.get(name), poses[name], push)
        if plan is not None:
            blockers.append(plan)
    return walk, blockers


def push_acceleration(kind: str, physics) -> float:
    """The acceleration the kind's navigation force gives it (an impulse per
    PSI, spec 7.2): F / m."""
    k = BALL_KINDS[kind]
    return k.force / physics.psi_length / k.mass


def climb(kind: str, physics) -> float:
    """The steepest rise per unit the kind rolls up, pushed by its navigation
    force alone. The force is horizontal (a key's direction in the camera's
    orientation frame, glue-and-content "Ball navigation") at the ball's
    centre, so at the limit F cos(a) = m g sin(a): tan(a) = F / (m g) (one
    key along the face's way; not F = m g sin(a), a push along the face).
    Measured on level 06's wave track (A_04_Wood_01, its faces 0.95 steep):
    a wood ball (F / m g 0.747) born on P_Trafo_Wood_07's pad on the rise,
    Right held up it, rolled back and came to rest at z -775.8, its contact
    about z -777, where the face rises 0.75 per unit."""
    return push_acceleration(kind, physics) / math.sqrt(sum(c * c for c in physics.gravity))


class Pilot:
    """Drives a loaded level scene (see the module's docstring)."""

    def __init__(self, scene, max_seconds: float = 900.0, log=None):
        self.ctx = scene.ctx
        self.scene_path = scene.path
        self.seed = rng.get_seed()               # as loaded: a replay starts from it
        self.max_frames = int(math.ceil(max_seconds * 1000.0 / FRAME_MS))
        self.log = log
        self.on_frame = None                     # called with the pilot after each frame (a viewer's driver)
        self.shown = 0                           # frames a viewer has shown: a rollback plays them again
        self.keys = []                           # the kept keys, one set per frame
        self.kept = []                           # (frame, table, seed, sector)
        self.kept_at = {}                        # frame -> the ball's place in the world kept then
        self.routes = {}
        self.rollbacks = 0
        self.restored_at = 0                     # the frame of the world last restored
        self.grounded_at = 0                     # the last frame the ball was on a floor (not airborne)
        self.stalls = []                         # (sector, place) where the ball got stuck: obstacles since
        self.tries = {}                          # sector -> rollbacks at its current trouble place
        self.places = []                         # [sector, place, failures] where the ball failed
        self.sector_tries = {}                   # sector -> rollbacks in all
        self.variant = VARIANTS[0]
        self.variant_until = (0, -math.inf, 0)   # (sector, route cost, frame): the variant steers until past
        self.step(frozenset())                   # the level finds its sectors and spawns the ball
        self.level = level_behavior(self.ctx)
        if self.level is None:
            raise ValueError(f"autopilot: {scene.name!r}: {self._no_level()}")
        table, seed = flatten(self.ctx), rng.get_seed()
        rng.reset()             # the probe and the flights from a fresh process's seed: the map is the level's alone
        poses, gates = probe(self.ctx, self.level)
        floors = entity_triangles(_members(self.ctx, FLOOR_GROUPS))
        self.flights = flights(self.ctx, self.level, floors) if len(floors) else None
        self.ctx = build(table)                  # the world as before the probe
        rng.set_seed(seed)
        self.level = level_behavior(self.ctx)
        self.map, self.blockers = level_map(self.ctx, self.level, poses, gates, self.flights)
        self.heights = FloorHeights(floors) if len(floors) else None
        self.rails = RailLines(entity_triangles(_members(self.ctx, FLOOR_GROUPS[1:])))
        self._measure_curls(seed, poses)
        self._measure_knocks(seed)
        self._close_float_boards(poses)
        self.blockers += self._box_stacks()
        self.atop = self.map.rail & ~self.map.span     # the nodes on a rail's top (a pair's midpoints are not)
        self.brakes = {k: TURN_BRAKE * push_acceleration(k, self.ctx.physics) for k in BALL_KINDS}
        self.jumping = None                      # (landing point, Flight) while flying off an edge
        self.riding = None                       # (start, end) of the map's ride the ball is on
        self.curling = None                      # (way, landing rest) of the map's curl the ball is on
        self.banking = None                      # (start, far edge, way, push toward the bank, where it begins)
        self.lifting = None                      # (axis point, height) of the fan column holding the ball
        self.gliding = None                      # (axis point, height, landing) of the glide the ball is lifted to
        self.guttering = None                    # the way up the gutter the ball climbs along its line
        self.spring_left = None                  # the weights left on the spring lift the ball clears
        self.pushing = None                      # (frame, Blocker, push) while pushing it
        self.current_route = None                # the route steered along last
        self.failed_pushes = set()               # (body, push) that failed: the other sides first
        self._progress_reset()

    def _measure_curls(self, seed, poses) -> None:
        """The map's curls (autopilot_curls), lattices (autopilot_lattices),
        bank rides (autopilot_banks) and arms' pushes (autopilot_arms) with
        the landings, the crossings and the boards knocked down measured on
        the world (``curls``, ``lattice_crossings``, ``bank_crossings``,
        ``arm_knocks``, from a fresh process's seed), which is then built
        again as it was, the RNG at ``seed``; the boards no push reaches
        stand in the map (``poses``: the probe's, the boards down)."""
        runs, lattices, banks = curl_runs(self.map), lattice_runs(self.map), bank_runs(self.map)
        drops = rail_drops(self.map, self.rails)
        arms = arm_runs(_module_parts(self.ctx, ARM, "arm"), self.heights,
                        lambda contact, u: _clear_start(self.map, self.heights, contact - u * RUN_UP, u)
                        ) if self.heights is not None else []
        landings, crossed, knocks, dropped, banked = [], [], [], [], []
        if runs or lattices or arms or drops or banks:
            table = flatten(self.ctx)
            rng.reset()
            landings = curls(self.ctx, self.level, self.map, runs)
            crossed = lattice_crossings(self.ctx, self.map, lattices, _frames)
            dropped = rail_drop_landings(self.ctx, self.map, self.rails, drops, key_pushes, push_acceleration, _step)
            banked = bank_crossings(self.ctx, self.map, banks, _frames)
            if arms:                             # the boards as authored, not settled: level 03's
                _all_sectors(self.ctx, self.level)   # P_Modul_25_04 falls by itself once woken, not in play
                standing = [b.name for b in _module_parts(self.ctx, DRAWBRIDGE, "body")
                            if abs(float(b.get_world_matrix().as_array()[0, 1])) > UPRIGHT]
                knocks = arm_knocks(arms, standing, UPRIGHT, build, flatten(self.ctx), _frames)
            self.ctx = build(table)
            rng.set_seed(seed)
            self.level = level_behavior(self.ctx)
        add_curls(self.map, landings)
        add_lattices(self.map, crossed)
        add_rail_drops(self.map, self.rails, drops, dropped)
        add_banks(self.map, banked)
        self.blockers = stand_unpushed(self.map, self._knocked(knocks, poses))

    def _knocked(self, knocks, poses) -> list:
        """The Blockers with each arm's push that knocks a board down added
        to that board's (a new Blocker where it had none)."""
        plans = {b.body: b for b in self.blockers}
        for name, start, u, went in knocks:
            push = (start, u, went + RUN_UP)
            plan = plans.get(name) or _board_blocker(self.map, self.ctx.get(name), poses[name], ())
            if plan is not None:
                plans[name] = replace(plan, pushes=plan.pushes + (push,))
        return list(plans.values())

    def _measure_knocks(self, seed) -> None:
        """The boards' pushes from a long run-up for the kinds that knock them
        over (autopilot_knocks), measured on copies of the world from a fresh
        process's seed; the RNG then at ``seed``."""
        if self.heights is None or not self.blockers:
            return
        rng.reset()
        self.blockers = add_knocks(flatten(self.ctx), self.map, self.heights, self.blockers, (T_BOARD, DRAWBRIDGE),
                                   _frames)
        rng.set_seed(seed)

    def _close_float_boards(self, poses) -> None:
        """No way over a float board for the kinds that tip it over
        (autopilot_floats)."""
        hinges = {h.name.partition(".")[0]: h for h in _module_parts(self.ctx, FLOAT_BOARD, "hinge frame")}
        physics = next(p for p in MODULES[FLOAT_BOARD].parts if p.role == "body").physics   # a sector's boards
        for board in _module_parts(self.ctx, FLOAT_BOARD, "body"):                          # not yet made too
            hinge = hinges.get(board.name.partition(".")[0])
            centre = board.transform(tuple(physics["shift_mass_center"]))
            kinds = tipping_kinds(board, physics["mass"], centre, hinge) if hinge is not None else ()
            matrix = poses.get(board.name, np.asarray(board.get_world_matrix().as_array(), float))
            if kinds:
                on = _touching(self.map, board, matrix, BALL_RADIUS + BOARD_REST)[1]
                self.map.graph = self.map.closed(on, kinds)

    def _box_stacks(self) -> list:
        """The Blockers of the level's stacks of boxes pushed off a floor's
        end (autopilot_boxes), from the boxes where they are authored."""
        if self.heights is None:
            return []
        stacks = box_stacks(self.heights, [e for e in self.level.props if BOX in e.name])
        plans = [stack_blocker(self.map, self.heights, s, RUN_UP, AT_RUN_UP, Blocker) for s in stacks]
        return [b for b in plans if b is not None]

    def _no_level(self) -> str:
        """Why the scene has no running level: its behaviour failed (named with
        its error), or there is none."""
        m = manager_of(self.ctx, create=False)
        failed = [e for e in (m.errors if m is not None else []) if e.behavior == "ballance.level"]
        if not failed:
            return "no ballance.level behaviour"
        e = failed[0]
        return (f"its ballance.level behaviour failed in {e.hook} at frame {e.frame}: "
                f"{type(e.error).__name__}: {e.error}")

    # --- the world ------------------------------------------------------------------------

    def step(self, keys: frozenset) -> None:
        self.ctx.input_manager.set_keys(keys)
        self.ctx.process_frame(FRAME_MS)
        self.keys.append(keys)
        if self.on_frame is not None:
            self.on_frame(self)

    def keep(self) -> None:
        """Keep the world as it is now: the last KEPT, and each sector's first."""
        self.kept.append((len(self.keys), flatten(self.ctx), rng.get_seed(), self.level.sector))
        self.kept_at[len(self.keys)] = tuple(player_of(self.ctx).ball.get_position())
        firsts = {}
        for i, k in enumerate(self.kept):
            firsts.setdefault(k[3], i)
        self.kept = [k for i, k in enumerate(self.kept) if i >= len(self.kept) - KEPT or i in firsts.values()]

    def restore(self, index: int) -> None:
        """Back to a kept world; the frames of it a viewer has shown (``shown``)
        are played again with their keys, so the shown run is not undone."""
        frame, table, seed, _ = self.kept[index]
        again = self.keys[frame:self.shown]
        del self.kept[index + 1:]
        self.ctx = build(table)
        rng.set_seed(seed)
        del self.keys[frame:]
        self.level = level_behavior(self.ctx)
        for keys in again:
            self.step(keys)
        self.restored_at = self.grounded_at = len(self.keys)
        self.pushing = self.current_route = self.jumping = self.riding = self.lifting = self.curling = self.gliding = None
        self.guttering = self.banking = None
        self._progress_reset()

    def _progress_reset(self) -> None:
        self.best = (self.level.sector, math.inf, len(self.keys))

    # --- where to go ------------------------------------------------------------------------

    def _obstacles(self, sector: int) -> list:
        """The props in play and the places the ball got stuck in the sector."""
        physics = self.ctx.physics
        return ([e.get_position() for e in self.level.props if physics.is_physicalized(e)]
                + [p for k, p in self.stalls if k == sector])

    def route(self, sector: int):
        """The route to the sector's goal (its checkpoint, or the finish in the
        last sector) round the props in play when it is first asked for and
        the places the ball got stuck."""
        if (sector, None) not in self.routes:
            level = self.level
            cps = level.checkpoint_entities
            if sector <= len(cps):
                goal, radius = level.checkpoint_centre(cps[sector - 1]), CHECKPOINT_RADIUS
            else:
                goal, radius = level.finish.get_position(), FINISH_RADIUS + 2.0
            self.routes[sector, None] = self.map.route_to(goal, radius, self._obstacles(sector))
        return self.routes[sector, None]

    def run_up_route(self, sector: int, blocker: Blocker, push: int):
        """The route to the start of a push's run-up, arriving as the kind with
        the strongest push (a crate under a stone, a gate, are heavy to shift)
        or as one measured to do it (a board knocked over: autopilot_knocks),
        not over the nodes the push clears (a board's way down: level 03's
        run-up east of P_Modul_25_04 was reached over that board lying)."""
        key = (sector, blocker.body, push)
        if key not in self.routes:
            strongest = max(BALL_KINDS, key=lambda k: BALL_KINDS[k].force)
            self.routes[key] = self.map.route_to(blocker.pushes[push][0], AT_RUN_UP, self._obstacles(sector),
                                                 kinds=push_kinds(blocker, push) or (strongest,),
                                                 closed=blocker.nodes)
        return self.routes[key]

    def push_task(self, ball, kind: str):
        """The Blocker of the sector the route to its goal crosses first and
        that still blocks, with its cheapest reachable push (the pass's, where
        the route passes under a falling stone) and the route to that push's
        run-up: (Blocker, push, route), or None. Where that run-up's route
        crosses another Blocker, that one's task first (level 03: the run-up
        of P_Modul_25_04 is reached over P_Modul_25_05, which an arm knocks
        down; level 05: the T-board P_Modul_37_01's long run-up lies past the
        gate P_Modul_01_01, and without this the wood ball swung between the
        two tasks at (285.2, -18.6, -207.5) until out of time)."""
        level, sector = self.level, self.level.sector
        waiting = [st for st in self.blockers
                   if level.sector_of.get(self.ctx.get(st.body)) == sector and not st.done(self.ctx)]
        return self._task_on(self.route(sector), waiting, ball.get_position(), kind) if waiting else None

    def _task_on(self, route, waiting: list, p, kind: str):
        """push_task's answer for ``route`` among the ``waiting`` Blockers."""
        n = len(self.map.points)
        ahead = [s % n for s in route.ahead(route.state(p, kind), math.inf)]
        first = {}
        for i, s in enumerate(ahead):
            first.setdefault(s, i)
        for st in sorted(waiting, key=lambda st: met(self.map.passes, st, first)):
            through = pass_push(self.map.passes, st.body, ahead)     # the route passes under it: that push
            if through is None and not st.nodes & first.keys():
                continue
            costs = []
            tries = ([through] if through is not None else
                     [i for i in range(len(st.pushes)) if (st.body, i) not in self.failed_pushes])
            for i in tries or range(len(st.pushes)):
                r = self.run_up_route(self.level.sector, st, i)
                costs.append((float(r.cost[r.state(p, kind)]), i, r))
            if costs and math.isfinite(min(costs)[0]):
                _, i, r = min(costs, key=lambda c: c[0])
                rest = [b for b in waiting if b is not st]
                return (self._task_on(r, rest, p, kind) if rest else None) or (st, i, r)
        return None

    def steer(self, ball, kind: str) -> frozenset:
        """The keys of this frame: along the route to the sector's goal; where
        that route crosses a Blocker still in the way, first to the start of
        a push's run-up, then along the push until the way is clear."""
        if self.jumping is not None:
            held = caught(self.map.columns, ball.get_position(), self.jumping, LIFT_IN)
            if self._airborne(ball) and not held:
                return self.fly(ball, kind)
            if held:
                self.lifting = self._caught_lift(ball, kind)
            self.jumping = None
        line = falling_onto(self.map, self.rails, ball.get_position())
        if line is not None:                     # off a rail's end, falling onto the rail below: over its line
            return air_keys(line, ball.get_position(), self._velocity(ball), key_pushes(self.ctx),
                            push_acceleration(kind, self.ctx.physics))
        if self.riding is not None:
            keys = self.ride(ball)
            if keys is not None:
                return keys
        if self.curling is not None:
            keys = self.curl(ball)
            if keys is not None:
                return keys
        if self.banking is not None:
            keys = self.bank(ball)
            if keys is not None:
                return keys
        if self.gliding is not None:
            keys = self.glide(ball, kind)
            if keys is not None:
                return keys
        if self.lifting is not None:
            keys = self.lift(ball)
            if keys is not None:
                return keys
        keys = self.spring(ball, kind)
        if keys is not None:
            return keys
        if self.pushing is None:
            task = self.push_task(ball, kind) if self.blockers else None
            if task is None:
                return self.follow(ball, kind, self.route(self.level.sector))
            blocker, push, route = task
            start, u, _ = blocker.pushes[push]
            p, v = np.asarray(ball.get_position(), float), self._velocity(ball)
            if (float(np.linalg.norm(_flat(p - start))) > AT_RUN_UP or abs(p[1] - start[1]) > 1.0
                    or float(np.linalg.norm(v)) > RUN_UP_SPEED):
                return self.follow(ball, kind, route)
            self.pushing = (len(self.keys), blocker, push)
        frame, blocker, push = self.pushing
        start, u, _ = blocker.pushes[push]
        if blocker.done(self.ctx):
            self.pushing = None
            self._progress_reset()
            return self.steer(ball, kind)
        off = _flat(np.asarray(ball.get_position(), float) - start)
        speed = LEAP_PUSH if push_kinds(blocker, push) else PUSH_SPEED
        return self._keys_for(ball, u * speed - (off - u * float(off @ u)) * 2.0)

    def _velocity(self, ball) -> np.ndarray:
        """The ball's horizontal velocity."""
        body = self.ctx.physics.body_of(ball)
        v = np.asarray(body.core.speed, float) if body is not None else np.zeros(3)
        return _flat(v)

    def _keys_for(self, ball, want, press=None) -> frozenset:
        """The key set whose push best turns the ball's horizontal velocity
        toward ``want`` (none when it is within DEADBAND of it); with
        ``press``, a way toward side rails, only the key sets pushing
        within 45 degrees of it (the one straight at it within DEADBAND): a
        ball beside them falls when the push stops holding it there."""
        err = want - self._velocity(ball)
        pushes = key_pushes(self.ctx)
        if press is not None:
            pushes = [kp for kp in pushes if float(kp[1] @ press) >= SIDE_HOLD]
            if np.linalg.norm(err) < DEADBAND:
                return max(pushes, key=lambda kp: float(kp[1] @ press))[0]
        elif np.linalg.norm(err) < DEADBAND:
            return frozenset()
        err /= np.linalg.norm(err)
        keys, push = max(pushes, key=lambda kp: float(kp[1] @ err))
        return keys

    def follow(self, ball, kind: str, route) -> frozenset:
        """The keys along ``route`` (the module's docstring)."""
        if route is not self.current_route:
            self.current_route = route
            self._progress_reset()
        p = np.asarray(ball.get_position(), float)
        state = route.state(p, kind)
        path = route.ahead(state, max(self.variant.lookahead, BRAKE_DISTANCE))
        turn = next((i for i, st in enumerate(path) if route.kind(st) != kind), None)
        if turn is not None:                     # a transformer ahead: onto its pad, not past it
            path = path[:turn + 1]
        points = [route.point(s) for s in path]
        n = len(self.map.points)
        if len(path) > 1 and (path[0] % n, path[1] % n) in self.map.rides:
            leaps = (path[0] % n, path[1] % n) in self.map.leaps
            self.riding = (points[0], points[1], LEAP_PUSH if leaps else ROCK_SPEED)
            return self.ride(ball) or frozenset()
        curl = next((i for i in range(len(path) - 1) if (path[i] % n, path[i + 1] % n) in self.map.curls
                     and float(np.linalg.norm(_flat(p - points[i]))) <= LEAP_START), None)
        if curl is not None:                     # at a curl's run-up: down it and round the curl at full push
            self.curling = (self.map.curls[path[curl] % n, path[curl + 1] % n],
                            rest_point(self.map, path[curl + 1] % n))
            return self.curl(ball)
        bank = next((i for i in range(len(path) - 1) if (path[i] % n, path[i + 1] % n) in self.map.banks
                     and _off_run_up(p, points[i], points[i + 1]) <= LEAP_START), None)
        if bank is not None:                     # on a bank ride's run-up: along it, then along the bank too
            self.banking = (points[bank], points[bank + 1]) + self.map.banks[path[bank] % n, path[bank + 1] % n]
            return self.bank(ball) or frozenset()
        leap = next((i for i in range(len(path) - 1) if (path[i] % n, path[i + 1] % n) in self.map.leaps
                     and _off_run_up(p, points[i], points[i + 1]) <= LEAP_START), None)
        if leap is not None:                     # on a leap's run-up ahead on the route: on at full push
            self.riding = (points[leap], points[leap + 1], LEAP_PUSH)
            return self.ride(ball) or frozenset()
        self.gliding = glide_ahead(self.map, path, p, LIFT_OUT)
        if self.gliding is not None:             # by a fan's column, a glide on from its hover: up, then over
            return self.glide(ball, kind) or frozenset()
        lift_landing = self._off_lift(ball, p, points)
        if lift_landing is not None:             # above a lift's landing in its column: flown there
            self.jumping = lift_landing
            return self.fly(ball, kind)
        off_rail = rail_exit(self.rails, p, points)
        if off_rail is not None:                 # on a single rail, the route's landing beside it: off its side
            return self._keys_for(ball, off_rail)
        rail = rail_ahead(self.rails, self.atop[[s % n for s in path]], points, p)
        if rail is not None:                     # on or onto a single rail: balanced on its line
            push = push_acceleration(kind, self.ctx.physics)
            return rail_keys(rail, p, self._velocity(ball), key_pushes(self.ctx), push,
                             min(self.variant.speed, bend_speed(points, ROLLING * push)))
        holds = self.map.climb.get(kind, math.inf)
        self.guttering = (gutter_under(self.map, p, holds) if self.guttering is not None
                          else gutter_climb(self.map, np.asarray(path) % n, points, p, holds))
        if self.guttering is not None:           # up a gutter whose faces it does not hold on: along its line
            return self._keys_for(ball, self.guttering * ROCK_SPEED)
        gone = _path_lengths(points)
        near = [q for q, g in zip(points, gone) if g <= self.variant.lookahead] or points[:1]
        first = next((i for i, g in enumerate(gone) if g >= MIN_AIM), len(points) - 1)
        aim = _in_sight(p, near, AIM_TOLERANCE, min(first, len(near) - 1))
        for a, b in zip(near, points[1:len(near) + 1]):  # a lift ahead (its top may be beyond the aim's reach:
            if b[1] - a[1] > LIFT:               # level 02's fan 08, 22 off): into its column, held there
                self.lifting = self._column(p, a, b)
                keys = self.lift(ball) if self.lifting is not None else None
                if keys is not None:
                    return keys
                aim = a if p[1] < b[1] + 0.5 else b
                break
        arriving = len(path) == 1                # at the goal's nodes: onto the goal itself, slowing
        if arriving:
            aim = route.goal
        to = aim - p
        to[1] = 0.0
        if self.variant.offset and not arriving:
            to += np.array([to[2], 0.0, -to[0]]) / (np.linalg.norm(to) or 1.0) * self.variant.offset
        dist = float(np.linalg.norm(to))
        speed = self.variant.speed * (1.0 - self.variant.bend * (1.0 - _straightness(points)) * 0.5)
        narrow = max(self.map.empty_sides[s % len(self.map.points)] for s in path)
        if narrow >= 3:
            speed *= 0.75
        cap = self._turn_speed(ball, kind, route, state)
        if route is not self.route(self.level.sector):      # to a push's run-up: at rest there
            cap = min(cap, stop_speed(route, state, self.brakes[kind], BRAKE_DISTANCE))
        speed = min(speed, cap)
        if arriving:
            speed = min(speed, 1.5 * dist)
        jump = next(((i, a, b) for i, (a, b, s, t) in enumerate(zip(points, points[1:], path, path[1:]))
                     if b[1] < a[1] and float(np.linalg.norm(_flat(b - a))) > DROP_REACH
                     and (s % n, t % n) not in self.map.rides and (s % n, t % n) not in self.map.glides), None)
        if jump is not None and self._past_post(p, jump[2]):
            jump = None                          # an upright tube in the way (level 06's, beside the notch
                                                 # its platform's jump leaves by): along the route first
        if jump is not None:                     # a gap ahead that only a flying ball crosses: at it fast
            jump = jump[1:]
            self.jumping = jump[1]
            to, dist, speed = _flat(jump[1] - p), float(np.linalg.norm(_flat(jump[1] - p))), JUMP_RUN
        elif self._steep(p, route, state, kind):     # below a face too steep for the kind: rocking, at full push
            speed = min(max(speed, ROCK_SPEED), cap)
            if dist > 1e-9 and float(self._velocity(ball) @ to) < -ROCK_BACK * dist:
                to = -to                     # rolling back: pushed back up the face behind
        elif (self.variant.rock and dist > 1e-9 and float(self._velocity(ball) @ to) < -ROCK_BACK * dist
              and max(q[1] for q in points) > p[1] + ROCK_RISE):
            to = -to                             # rolling back below a rise ahead: pushed back up the face
                                                 # behind, as high as the way ahead rises, less ROCK_RISE
        return self._keys_for(ball, to / dist * speed if dist > 1e-9 else np.zeros(3), self._press(path))

    def _off_lift(self, ball, p, points):
        """The landing of a lift on the route ahead (``points``) whose column
        holds the flying ball above that landing, else None. The route's state
        is the node nearest the ball, which may lie under it with its way back
        down into the fan: level 06's paper ball hovered 60 times in fan 07's
        column 6 above a rail's top beside it (24 tries), steered at that top,
        its route on from there a drop to the fan's foot and the lift. Not a
        landing in another fan's column (_in_draught)."""
        for a, b in zip(points, points[1:]):
            if (b[1] - a[1] > LIFT and p[1] > b[1] + 0.5 and self._column(p, a, b) is not None
                    and self._airborne(ball) and not self._in_draught(b)):
                return b
        return None

    def _in_draught(self, q) -> bool:
        """Is ``q`` within LIFT_IN of a fan column's axis and no higher than
        the most the paper ball rises in it? A ball flown there is held up
        in the draught over it, never landing: level 02's paper ball, flown
        off fan 18_05's column to its landing on fan 18_06 (0.7 under it),
        hovered 16.7 over that landing, its flight never ended (24 tries)."""
        return any(float(np.linalg.norm(_flat(q - foot))) <= LIFT_IN and foot[1] - 1.0 <= q[1] <= highest
                   for foot, _, highest in self.map.columns)

    def _past_post(self, p, landing) -> bool:
        """Does the ball's straight way from ``p`` to ``landing`` pass within
        BALL_RADIUS of an upright tube (autopilot_map's POST)? A jump run
        there would push it into the tube (level 06's wood ball stopped
        asleep in the pocket where ``A_01_Rail_03``'s tubes turn up, Up held,
        its speed 0 for 8 s)."""
        posts = self.map.posts
        if posts is None:
            return False
        length = float(np.linalg.norm(_flat(landing - p)))
        way = [p + (landing - p) * t for t in np.linspace(0.0, 1.0, int(length / SAMPLE) + 2)]
        return bool(np.isfinite(posts.query(np.array(way), distance_upper_bound=BALL_RADIUS)[0]).any())

    def _press(self, path):
        """The unit way toward the rails where the next node on the route is
        beside two rails one above the other (autopilot_map's side nodes: the
        push holds the ball there), or the ball's is and the next no more
        than 1 lower (onto a floor at their end: a drop off them is let go,
        level 06's east side into its lower channel), else None."""
        n, p = len(self.map.points), self.map.points
        nodes = [s % n for s in path[:2]]
        if len(nodes) > 1 and not self.map.side[nodes[1]] and p[nodes[1], 1] < p[nodes[0], 1] - 1.0:
            nodes = nodes[1:]
        side = next((i for i in nodes if self.map.side[i]), None)
        if side is None:
            return None
        way = self.map.side_way[side]
        return np.array([way[0], 0.0, way[1]])

    def _steep(self, p, route, state: int, kind: str) -> bool:
        """Does the route within ROCK_AHEAD rise more than ROCK_RISE above the
        ball at ``p``, somewhere steeper than the kind's push holds it on
        (autopilot_map's momentum climb; a lift is none)? Every steering
        rocks below such a face."""
        points = [route.point(s) for s in route.ahead(state, ROCK_AHEAD)]
        if max(q[1] for q in points) <= p[1] + ROCK_RISE:
            return False
        limit = self.map.climb.get(kind, math.inf)
        return any(LIFT >= b[1] - a[1] > limit * max(float(np.linalg.norm(_flat(b - a))), 1e-9)
                   for a, b in zip(points, points[1:]))

    def _turn_speed(self, ball, kind: str, route, state: int) -> float:
        """The speed at most from which the kind's push brakes the ball to
        TURN_SPEED before the first stretch of the route (TURN_SPAN long,
        starting within the ball's braking distance) that turns more than
        TURN_COS from the ball's horizontal way (none when the first does: the
        steering turns it already): a heavy ball coming in fast does not turn
        where the route does."""
        v = self._velocity(ball)
        fast = float(np.linalg.norm(v))
        if fast <= TURN_SPEED:
            return math.inf
        brake = self.brakes[kind]
        reach = fast * fast / (2.0 * brake)
        points = [route.point(s) for s in route.ahead(state, reach + TURN_SPAN)]
        gone = _path_lengths(points)
        for i, (a, g) in enumerate(zip(points, gone)):
            if g > reach:
                break
            j = next((j for j in range(i + 1, len(points)) if gone[j] - g >= TURN_SPAN), None)
            if j is None:
                break
            step = _flat(points[j] - a)
            length = float(np.linalg.norm(step))
            if length > 1e-9 and float(step @ v) < TURN_COS * length * fast:
                return TURN_SPEED + math.sqrt(2.0 * brake * g) if i else math.inf
        return math.inf

    def ride(self, ball):
        """The keys on a ride of the map (over a valley on the speed of the
        fall before the rise): full push toward its end until the ball is
        within RIDE_END of it or past it, at ROCK_SPEED (a leap: LEAP_PUSH,
        never braking); None once it is, or when the ball rolls back (the
        ride failed: the route steers again)."""
        start, end, speed = self.riding
        u = _flat(end - start)
        length = float(np.linalg.norm(u))
        u /= length or 1.0
        p = np.asarray(ball.get_position(), float)
        if float(_flat(p - start) @ u) >= length - RIDE_END or float(self._velocity(ball) @ u) < -ROCK_BACK:
            self.riding = None
            return None
        to = _flat(end - p)
        return self._keys_for(ball, to / (float(np.linalg.norm(to)) or 1.0) * speed)

    def curl(self, ball):
        """The keys on a curl's run (``curling``: the way along its run-up,
        the ball's rest on its landing; autopilot_curls): full push along
        the run-up, down it, round the curl and through the throw back, as
        the probe measured it, until the ball is on its landing (within
        CURL_AT of its height, a ball's width of it across); None then."""
        way, land = self.curling
        p = np.asarray(ball.get_position(), float)
        if float(np.linalg.norm(_flat(p - land))) <= 2.0 * BALL_RADIUS and abs(p[1] - land[1]) <= CURL_AT:
            self.curling = None
            return None
        return self._keys_for(ball, way * LEAP_PUSH)

    def bank(self, ball):
        """The keys on a bank ride (``banking``; autopilot_banks): full push
        along its way, held on the run-up's line, and from where the bank
        begins toward it too (a diagonal), as the probe measured it, until
        the ball is past the window's far edge; None then, or when it rolls
        back (the ride failed: the route steers again)."""
        start, end, way, lean, press = self.banking
        p = np.asarray(ball.get_position(), float)
        along = float(_flat(p - start) @ way)
        if along >= float(_flat(end - start) @ way) or float(self._velocity(ball) @ way) < -ROCK_BACK:
            self.banking = None
            return None
        if along < press:
            off = _flat(p - start) - way * along
            return self._keys_for(ball, way * LEAP_PUSH - off * 2.0)
        return self._keys_for(ball, way * LEAP_PUSH, press=lean)

    def _caught_lift(self, ball, kind: str):
        """The lift (_column) of the route on from the flight's landing, a
        column's foot, for a ball the draught caught on its way there (the
        route's node nearest the ball may be off the lift: level 06's paper
        ball, caught 2.5 off fan 13's axis 8 above its foot, was steered at
        fan 12 beside it and wedged under ``A_03_Rail_06``); None without one."""
        route = self.current_route
        if route is None:
            return None
        points = [route.point(s) for s in route.ahead(route.state(self.jumping, kind), 2.0 * LIFT_OUT)]
        return next((self._column(ball.get_position(), a, b) for a, b in zip(points, points[1:])
                     if b[1] - a[1] > LIFT), None)

    def _column(self, p, foot, top):
        """(axis point, height) of the map's fan column nearest the route's lift
        step from ``foot`` to ``top`` when the ball at ``p`` is in it (within
        LIFT_IN of its axis): the height its lowest point rises above before
        the ball is steered out, the landing node's floor (it rises on while
        still in the column: the way out over a floor near the top is short
        of time), at most the most it rises in the column (autopilot_map's
        ``_column``: FAN_OVER above the top, or under a hood); else None
        (none without a column: a step rising more than LIFT elsewhere)."""
        if not self.map.columns:
            return None
        axis, _, highest = min(self.map.columns, key=lambda c: float(np.linalg.norm(_flat(c[0] - foot))))
        if float(np.linalg.norm(_flat(p - axis))) > LIFT_IN:
            return None
        return axis, min(float(top[1]) - BALL_RADIUS, float(highest))

    def lift(self, ball):
        """The keys in a fan's column (``lifting``, _column): a horizontal
        velocity back at its axis, LIFT_HOLD times the offset (the velocity's
        error is the damping, as a ride is held), until the ball's lowest
        point is above the column's height, or within LIFT_SLACK of it and
        no longer rising; None then, or once the ball left the column
        (LIFT_OUT off its axis): the route steers again. Level 05's fan 01:
        pushed toward its terrace while rising, the ball rose 3.2 to 3.7 off
        the axis under the hood beside it and fell beside the column."""
        axis, height = self.lifting
        p = np.asarray(ball.get_position(), float)
        off = _flat(p - axis)
        low = p[1] - BALL_RADIUS
        rising = float(self.ctx.physics.body_of(ball).core.speed[1]) > 0.0
        if low > height or (low > height - LIFT_SLACK and not rising) or float(np.linalg.norm(off)) > LIFT_OUT:
            self.lifting = None
            return None
        return self._keys_for(ball, -off * LIFT_HOLD)

    def glide(self, ball, kind: str):
        """The keys of a glide (``gliding``, autopilot_glides): held in the
        fan's column up to its height (``lift``), then flown to the landing
        from the hover; None if the ball left the column on its way up."""
        axis, height, landing = self.gliding
        if self.lifting is None and not self._hovering(ball, height):
            self.lifting = (axis, height)
        if self.lifting is not None:
            keys = self.lift(ball)
            if keys is not None:
                return keys
            if not self._hovering(ball, height):
                self.gliding = None
                return None
        self.gliding, self.jumping = None, landing
        return self.fly(ball, kind)

    def _hovering(self, ball, height: float) -> bool:
        """Is the ball's lowest point within LIFT_SLACK of ``height`` or above?"""
        return float(ball.get_position()[1]) - BALL_RADIUS > height - LIFT_SLACK

    def spring(self, ball, kind: str):
        """The keys on a spring lift's platform whose middle the route goes
        up from (autopilot_springs): the weights knocked off, then held
        while it rises; None elsewhere, and once it has risen. A weight
        knocked off is progress (eight take longer than STUCK_FRAMES)."""
        springs = getattr(self.map, "springs", ())
        p = np.asarray(ball.get_position(), float)
        route, n = self.route(self.level.sector), len(self.map.points)
        k = KIND_NAMES.index(kind)
        lift, up = next(((lift, int(route.next[k * n + node])) for lift, node in springs
                         if on_platform(self.ctx, lift, p) and route.next[k * n + node] % n in self.map.spring_tops),
                        (None, -1))
        rise = dict(lift.rises).get(kind) if lift is not None else None
        if rise is None:
            return None
        left = len(weights_on(self.ctx, lift))
        if left != self.spring_left:
            self.spring_left = left
            self._progress_reset()
        platform = self.ctx.physics.body_of(self.ctx.get(lift.platform))
        want = clear_lift(self.ctx, lift, p, float(platform.core.speed[1]), rise, way_out(self.map, route, lift, up))
        return None if want is None else self._keys_for(ball, want)

    def _airborne(self, ball) -> bool:
        """Is the ball's underside more than AIRBORNE above every floor under
        it: under its centre, or under AIRBORNE_RING points round it
        AIRBORNE_OUT out, where its underside is sqrt(r^2 - AIRBORNE_OUT^2)
        below its centre? A ball between a rail pair rests on rails beside
        its centre, over no floor (level 05's A03_Rail_01: held to be
        flying, it was steered back to a drop's landing it had rolled past
        and rolled backward off the rails' step)."""
        p = np.asarray(ball.get_position(), float)
        if self.heights is None:
            return True
        a = np.arange(AIRBORNE_RING) * (2.0 * math.pi / AIRBORNE_RING)
        ring = np.c_[np.cos(a), np.zeros(AIRBORNE_RING), np.sin(a)] * AIRBORNE_OUT
        floor = self.heights.below(np.r_[[p], p + ring])
        under = np.r_[BALL_RADIUS, np.full(AIRBORNE_RING, math.sqrt(BALL_RADIUS ** 2 - AIRBORNE_OUT ** 2))]
        return not bool((p[1] - floor <= under + AIRBORNE).any())

    def fly(self, ball, kind: str) -> frozenset:
        """The keys in the air off a jump: the horizontal velocity that takes
        the ball over its landing in the time its kind's Flight takes to fall
        the height left."""
        p = np.asarray(ball.get_position(), float)
        v = self.ctx.physics.body_of(ball).core.speed
        left = self.map.flights[kind].seconds_left(float(v[1]), p[1] - self.jumping[1])
        return self._keys_for(ball, _flat(self.jumping - p) / max(left, FRAME_MS / 1000.0))

    # --- the run ----------------------------------------------------------------------------

    def run(self) -> Outcome:
        start = time.perf_counter()
        why = ""
        while len(self.keys) < self.max_frames:
            level = self.level
            if level.flow == FINISHED:
                if level.final is not None:
                    break
                self.step(frozenset())
                continue
            player = player_of(self.ctx)
            ball = player.ball if player is not None else None
            playing = level.flow == PLAYING and ball is not None
            fresh = not self.kept or self.kept[-1][3] != level.sector      # the sector's first frame of play
            if playing and (fresh or len(self.keys) % SNAPSHOT_FRAMES == 0):
                self.keep()
            why = self._no_route(ball) if playing and fresh else ""
            if why:
                break
            if playing and not self._airborne(ball):
                self.grounded_at = len(self.keys)
            keys = self.steer(ball, player.kind) if playing else frozenset()
            if playing and self.variant_until[0] and self._past(ball, player.kind):
                self.variant = VARIANTS[0]       # past the failure: its tries are done with
                self.tries.pop(self.variant_until[0], None)
                self.variant_until = (0, -math.inf, 0)
            before = level.flow
            self.step(keys)
            failure = None
            if before == PLAYING and level.flow in (DEAD, GAME_OVER):
                failure = "died"
            elif self.pushing is not None and self._push_failed(ball):
                failure = "stuck pushing a crate"
            elif playing and self.pushing is None and self._stuck(ball, player.kind):
                failure = "stuck"
            if failure is not None:
                why = self._fail(failure, ball)
                if why:
                    break
        else:
            why = why or f"out of time ({self.max_frames} frames) in sector {self.level.sector}"
        level = self.level
        finished = level.flow == FINISHED
        if not finished and not why:
            why = f"the level is {level.flow} in sector {level.sector}"
        return Outcome(level.level, finished, level.final if level.final is not None else level.points,
                       level.lives, len(self.keys), self.rollbacks, time.perf_counter() - start, why)

    def _no_route(self, ball) -> str:
        """At a sector's first frame of play: '' when the map has a route to
        its goal from the ball as any kind, else where its reach ends (the
        node reached nearest the goal, as the ball's kind): no try can follow
        a route that is not there."""
        route, p = self.route(self.level.sector), ball.get_position()
        if any(np.isfinite(route.cost[route.state(p, k)]) for k in KIND_NAMES):
            return ""
        n, kind = len(self.map.points), player_of(self.ctx).kind
        reached = np.flatnonzero(np.isfinite(dijkstra(self.map.graph, indices=route.state(p, kind)))) % n
        far = np.linalg.norm(self.map.points[reached] + (0.0, BALL_RADIUS, 0.0) - route.goal, axis=1)
        end = self.map.points[reached[int(np.argmin(far))]] + (0.0, BALL_RADIUS, 0.0)
        return (f"in sector {self.level.sector} at ({p[0]:.1f}, {p[1]:.1f}, {p[2]:.1f}), {kind} ball: no route "
                f"to the goal; the map's reach ends at ({end[0]:.1f}, {end[1]:.1f}, {end[2]:.1f}), "
                f"{float(far.min()):.0f} from it")

    def _push_failed(self, ball) -> bool:
        """A push that has not cleared the way in PUSH_FRAMES, or whose ball is
        past the push's end (the body stuck, the ball gone by it)."""
        frame, blocker, push = self.pushing
        start, u, length = blocker.pushes[push]
        gone = float(_flat(np.asarray(ball.get_position(), float) - start) @ u) if ball is not None else math.inf
        return len(self.keys) - frame > PUSH_FRAMES or gone > length + BALL_RADIUS

    def _cost(self, ball, kind: str) -> float:
        """The ball's cost on the route it steers along (the sector's when none)."""
        route = self.current_route or self.route(self.level.sector)
        return float(route.cost[route.state(ball.get_position(), kind)])

    def _past(self, ball, kind: str) -> bool:
        """Is the ball past the place of the failure its variant steers
        through (a later sector, or later than the failure and nearer the goal)?"""
        sector, cost, frame = self.variant_until
        return self.level.sector > sector or (self.level.sector == sector and len(self.keys) > frame
                                              and self._cost(ball, kind) < cost)

    def _stuck(self, ball, kind: str) -> bool:
        """No progress toward the goal for STUCK_FRAMES (progress: the route's cost fell by PROGRESS)."""
        cost = self._cost(ball, kind)
        sector, best, since = self.best
        if sector != self.level.sector or cost < best - PROGRESS:
            self.best = (self.level.sector, cost, len(self.keys))
            return False
        return len(self.keys) - since > STUCK_FRAMES

    def _fail(self, what: str, ball) -> str:
        """Roll back for another try; the reason to give up ('' when it tries again)."""
        sector = self.level.sector
        p = ball.get_position() if ball is not None else (math.nan,) * 3
        tries = self.tries.get(sector, 0)
        player = player_of(self.ctx)
        here = (f"in sector {sector} at ({p[0]:.1f}, {p[1]:.1f}, {p[2]:.1f}), {player.kind} ball {what}"
                f"{self._near(p)}")
        self.say(f"frame {len(self.keys)}: {here} (steering {self.variant.speed:g}/{self.variant.lookahead:g})")
        sector_tries = self.sector_tries.get(sector, 0)
        place_tries = self._place_failures(sector, p) - 1
        if max(tries, place_tries) >= MAX_TRIES:
            return f"{here} after {max(tries, place_tries)} tries at this place with every steering"
        if sector_tries >= MAX_SECTOR_TRIES:
            return f"{here} after {sector_tries} tries in this sector with every steering"
        self.sector_tries[sector] = sector_tries + 1
        if self.pushing is not None:
            self.failed_pushes.add((self.pushing[1].body, self.pushing[2]))
        failed_at, best = len(self.keys), self.best[1]
        stalled = max(self.best[2] - BACKUP_FRAMES, self.restored_at)  # before the ball stopped getting nearer
        before = min(failed_at - BACKUP_FRAMES, stalled)
        if what == "died":                       # back before it left the floor: a world with it falling is no try
            before = min(before, self.grounded_at - BACKUP_FRAMES)
        if what == "stuck":                      # back before it came near where it stuck (level 12's sector 4:
            away = [k[0] for k in self.kept      # its progress went on there; each try began stuck), and before
                    if math.dist(self.kept_at.get(k[0], p), p) > STUCK_AWAY]    # the world it last went back to
            before = min(before, max(away, default=-1),                          # if it made no progress from
                         self.restored_at - 1 if self.best[2] <= self.restored_at + 1 else math.inf)   # there
        usable = ([i for i, k in enumerate(self.kept) if k[0] <= before]   # else the sector's first
                  or [i for i, k in enumerate(self.kept) if k[3] == sector][:1])
        if not usable:
            return f"{here}, with no kept world to go back to"
        back = min(len(usable) - 1, tries // len(VARIANTS))
        if what == "stuck":                      # the next routes go round the place, where they can
            self.stalls.append((sector, tuple(p)))
            self.routes = {k: r for k, r in self.routes.items() if k[0] != sector}
            self.current_route = None
            best = self._cost(ball, player.kind)   # the place, measured on the new route
        self.tries[sector] = tries + 1
        self.rollbacks += 1
        self.restore(usable[-1 - back])
        self.variant = VARIANTS[(tries + 1) % len(VARIANTS)]
        self.variant_until = (sector, best - PAST, failed_at)
        return ""

    def _place_failures(self, sector: int, p) -> int:
        """The failures at the place of this one, this one counted: within
        PLACE of the first failure there, in the sector. Unlike ``tries``
        they never start over, so the tries at a place are bounded where two
        steerings each get past the other's failure (level 12's sector 3:
        the ball died at its T-board by turns at x 516 and 522, each try
        past the other's place, until the sector's 60)."""
        for place in self.places:
            if place[0] == sector and math.dist(place[1], p) <= PLACE:
                place[2] += 1
                return place[2]
        self.places.append([sector, tuple(p), 1])
        return 1

    def _near(self, p) -> str:
        """', near X' naming the nearest module or transformer within 20 units."""
        best = None
        for e in self.ctx.entities:
            name = e.name
            if name.startswith(("P_Modul_", "P_Trafo_")) and "." not in name:
                d = math.dist(e.get_position(), p)
                if d < 20.0 and (best is None or d < best[0]):
                    best = (d, name)
        return f", near {best[1]}" if best is not None else ""

    def status(self) -> str:
        """What it does now, in a few words (a viewer's HUD)."""
        level = self.level
        goal = (f"to checkpoint {level.sector}" if level.sector <= len(level.checkpoint_entities)
                else "to the finish")
        doing = ("pushing a blocker" if self.pushing is not None else "jumping" if self.jumping is not None
                 else "riding" if self.riding is not None else "rolling")
        return f"sector {level.sector} {doing} {goal}, {self.rollbacks} rollbacks"

    def say(self, text: str) -> None:
        if self.log is not None:
            print(text, file=self.log, flush=True)

    def save(self, path: str) -> None:
        """The kept keys as a recording (behaviors.recording) with the scene and the seed."""
        stem = os.path.splitext(os.path.basename(self.scene_path))[0]
        with Recorder(path, scene=stem, seed=self.seed) as rec:
            for keys in self.keys:
                rec.add(FRAME_MS, keys)


def drive(scene, max_seconds: float = 900.0, record: str | None = None, log=None, on_frame=None) -> Outcome:
    """The level plug-in's autopilot (behaviors.levels): play the loaded
    ``scene`` to its end, save the keys to ``record`` when given;
    ``on_frame(pilot)`` after each frame played (Pilot.on_frame)."""
    pilot = Pilot(scene, max_seconds, log)
    pilot.on_frame = on_frame
    outcome = pilot.run()
    if record:
        pilot.save(record)
    return outcome
