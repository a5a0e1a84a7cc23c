"""The autopilot's map of a level (issue 40 item 3; docs/levels.md "Autopilot"):
a walkable graph over the floor and rail triangles, with the fans' lifts and
the transformers as links, and each node's cost to the current goal.

Nodes are points of the upward-facing triangles of the floor groups
(``Phys_Floors``, ``Phys_FloorRails``) and the module bodies, sampled on a
barycentric grid of at most ``SPACING`` and merged per ``MERGE`` cube. Two
nodes are linked when the ball can roll from one to the other: at most
``REACH`` apart, no steeper than ``STEEPEST`` nor than the floor under either
end (a link from a floor up onto a floor beside it is a step, not a
slope), a rising link short (``STEEP``), no node or wall in the ball's
way (the sides of the triangles that are no floor, sampled too); from a
node at an edge the ball may also drop onto a floor below (at most
``MAX_DROP`` down, ``DROP_REACH`` out, or as far as its kind flies while
it falls leaving the edge at ``JUMP_SPEED`` (the steering runs at a jump
faster): ``Flight``, measured on the world with the push held; without a
measurement, ballistic), with no face over its way out of the edge
(``_lids``). A node whose surroundings are
partly empty (a floor's edge, a rail) costs more to cross, so routes keep
to the middle of floors. Between two edges a ball can rest across (a rail
pair, 3.75 apart) the midpoints are nodes too, so a route runs between the
rails; the two edges' nodes then cost ``PAIRED_COST`` more (the ball rests
between them, seldom on one: they only bridge where the midpoints do not
join up), no drop starts on them, and a ball drops from between them only
off their end; a ball rolls onto the midpoints sideways from a floor no
lower than the rails' tops, off them sideways only onto a floor level with
their tops and only as a kind whose push climbs out of the gap (``RAIL_OUT``),
and rests across two rails or two floors' edges, not a rail and a floor's
edge (``rails``).

The ball's kind is part of the state: it rolls up a link only onto a
surface no steeper than its push holds it on (``climb``; going down, any),
or onto a steeper stretch (up to ``STEEPEST``) no higher than its
``MOMENTUM_RISE``, which its speed or rocking takes it up (level 01's
basin, left as a stone ball; the steering rocks the ball:
``Steering.rock``); a taller one only on a ride, from the top of a face
over a valley to the next top no higher (level 02's wooden humps).
A node within the transformer radius of a pad turns the kind into the
pad's (no way for the other kinds where the pad's floor is steeper than the
new kind holds on: ``_pads``), and a fan's lift (the column of a
``ballance.fan`` behaviour, 16 high) links the nodes around its foot to the
nodes around its top for the paper ball only. The costs to a goal come from one Dijkstra search over the
reversed graph of (node, kind).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, dijkstra
from scipy.spatial import cKDTree

from .autopilot_gutters import downhill, gutter_slopes
from .autopilot_landings import overruns
from .autopilot_lifts import clear_ways, drops_held
from .autopilot_ride_pads import ride_kinds
from .values import BALL_KINDS, BALL_RADIUS, FAN_BOX, KIND_NAMES, ROLLING, TRANSFORMER_RADIUS

SPACING = 2.0            # the sampling grid on a triangle, at most this between points
MERGE = 1.0              # nodes closer than this cube are one
REACH = 4.2              # the longest link between two nodes
CLIMB = 0.7              # rise per horizontal unit a link may have (a steeper one is a wall or a drop) ...
STEEPEST = 1.2           # ... unless the floor under it is that steep and the kind rolls up it (level 02's
                         # wooden humps rise 1.0 per unit)
STEEP = (0.4, 2.2)       # a link rising more than this is at most this long (flat): a slope's
                         # nodes are near one another, a floor passing above is no slope (between a rail
                         # pair's midpoints any: where a U-turn's rail joins the pair, level 03's
                         # A02_Rail_06 at x 572, its midpoints lie 2.9 apart, 1.2 down)
SPAN = (2.5, 4.4)        # a ball rests across two edges this far apart (a rail pair's are 3.75)
SPAN_MID = 3.75         # a rail pair's rails this apart (Ballance's)
RAIL_ALONE = 10.0       # a single rail: a stretch at least this long of rail nodes with no rail SPAN_MID beside
SPAN_DIP = 1.0           # a ball across a rail pair rests this lower than on a floor at their tops (its centre
                         # 1.0 to 1.1 above them for tubes 0.3 to 0.35 thick 3.75 apart, not 2)
SPAN_END = math.cos(math.pi / 4.0)   # a drop off a rail pair leaves within 45 degrees of its end's way
RAIL_END = math.cos(math.pi / 12.0)  # a ball rolls off (or onto) a rail pair within 15 degrees of its way ...
RAIL_SIDE = 1.0          # ... or this near its middle line (level 02's A03_Rail_01 ends 0.4 beside a node)
RAIL_OUT = 0.7           # a kind whose push holds it on this rise per unit rolls off a rail pair sideways onto a
                         # floor level with its tops: out of the gap, up the near rail's flank (wood 0.75,
                         # paper 1.07; not stone 0.30: level 02's stone ball stays between A03_Rail_02's rails)
ATOP_SIDE = 1.0          # a floor's node or a single rail's this near a rail's line goes on from its end: a ball
                         # rides that rail's top from it (a rail pair's too: level 12's A02_Rail_03)
RAIL_CROSS = 1.0         # a link between two midpoints passing this near a rail's top node (nodes 2 apart along
                         # it; 1.875 from a pair's midpoints) crosses that rail
SPAN_REACH = 5.0         # a rail pair's midpoint and a floor node are linked this far apart: the near rail
                         # 1.9 out, a floor's edge at most 3 beyond it (level 05's at (572, -37.7, -292): 2.8)
DROP_REACH = 6.0         # off a floor's edge: onto a floor this far away horizontally, or as far as a
JUMP_SPEED = 8.0         # ball leaving the edge at this speed flies while it falls, pushed on ...
MAX_DROP = 50.0          # ... and at most this far below (level 02's platform to the floor under it: 46)
LID_PROBE = 1.9          # a drop's way out of its edge is closed by a face this near the ball's centre (radius
LID_LOW = 0.0            # 2), this above it (not a face below it the ball rolls on, over or beside: level 06's
                         # rail ends, a curved plank) and not behind it, the ball rolled level out of the edge
DROP_LEAD = 1.5          # ... until no node is this near its floor point ...
LID_PAST = 1.0           # ... and this beyond (level 06's A_01_Rail_03 runs 3.5 over a step's lip)
LID_WAYS = 16            # the ways out of an edge looked at (a drop's way: the nearest of them)
FLIGHT_STEP = 0.5        # a drop's flight is checked at points this apart across and down ...
FLIGHT_PROBE = 1.0       # ... for a face this near the ball's centre: it strikes that face
FLIGHT_LEVEL = 0.5       # the flight starts where no node this near the edge's height is under the ball
ROUND_EDGE = 1.2         # ... and is not checked this near the edge node across (the ball rolls round the edge) ...
ROOF = 0.8               # ... but a landing under a face (a point of it this near), lower than the edge, is none
HOLE_REACH = 2.5         # a gap between floors' edges is a hole the ball falls through where a disc of its radius
                         # this near a midpoint holds no node (level 06's floor over fan 05: a hole 2.5 in radius)
ASIDE_SLACK = 0.25       # a drop off a rail pair's end lands this much farther beside their line than the push
                         # carries the ball (_beside_rails; not derived: level 06's false drop is 0.43 beyond)
UPWARD = 0.5             # a floor triangle's normal has at least this Y (of 1)
EDGE_PROBE = 2.5         # a node's surroundings: 8 points this far around it ...
EDGE_FIND = 1.5          # ... each with a node this close, else that side is empty
EDGE_COST = 0.5          # extra cost of a link per empty side of the node it enters
FAN_REACH = 10.0         # a lift's top: nodes this far (horizontally) from the column's axis, and as far
                         # again as the paper ball flies falling from the top to them (level 02's fan 03: 10.2)
FAN_OVER = 1.3           # ... and at most this above the column's top: the paper ball's centre rises 3.34
                         # above it, its lowest point 1.34 (level 06's fans 01 and 08 to 13, the fans probe)
HOOD_GAP = 0.3           # a lift ends this far under where a face over its column stops the paper ball
FAN_COST = 20.0          # a lift's cost (its 16 of height, and the wait)
FAN_CLEAR = FAN_BOX[0] / 2.0 + BALL_RADIUS   # a ball's centre nearer a column's axis than this is in it (3)
FAN_MARGIN = 1.5         # ... and a paper ball's way this much farther costs FAN_BESIDE_COST more: the steering
FAN_BESIDE_COST = 30.0   # strays (level 06's fan 05: lifted off a route 3.5 from its axis)
PAIRED_COST = 10.0       # extra cost of a link into an edge node of a span (the ball is seldom on one)
WALL_SPACING = 1.0       # a wall's points, at most this apart
WALL_PROBE = 1.8         # a link is walled by a node this near the ball's way (its centre + 0.5)
WALL_SIDE_PROBE = 1.5    # ... and by a wall's point this near the ball's centre
OBSTACLE_RADIUS = 4.0    # a loose prop's centre: the nodes this near it ...
OBSTACLE_COST = 30.0     # ... cost this much more to enter (the stone ball; a lighter push, more)
MOMENTUM_RISE = {"paper": 7.5, "wood": 7.5, "stone": 5.3}
                         # a kind rolls up a stretch steeper than its push holds it on, no higher than this:
                         # its speed, or rocking to and fro, takes it up (stone, measured: rocked from rest in
                         # level 02's valley between the wooden humps its swings level off 5.4 up, 6.9 needed)
RIDE_REACH = 40.0        # a ride: from a face's top over a valley to the next face's top at most this far ...
RIDE_RISE = 0.5          # ... and at most this higher (level 02's humps: 13.0 to 13.1), on the fall's speed
RIDE_TOP = 1.0           # a face's top: its nodes this near its highest
RIDE_DIP = 15.0          # the valley between is at least 1 and at most this below the lower top
LEAP_RUN = 30.0          # a leap: a straight run-up this long to an edge, at full push (autopilot.LEAP_PUSH) ...
LEAP_SPEED = 20.0        # ... leaving it at the speed the run-up gives, at most this (level 05's wood ball rolls
                         # 29 on its flat pushed on) ...
LEAP_DIP = 2.0           # ... none of it lower than the edge less this (level 05's last ramp ends in a kicker
                         # 1.5 high; the speed it takes off counted) ...
LEAP_LAND = 15.0         # ... onto a floor running on this far beyond its edge (the ball stops there) ...
LEAP_DROP = 10.0         # ... onto an edge at most this lower ...
LEAP_REACH = 30.0        # ... and at most this far
LEAP_COST = 30.0         # a leap's extra cost (a miss is a death): taken where it saves more
SUNK_STEP = 1.0          # a ball rolls over this step between a sunk body's top and a floor beside it (level
                         # 05's falling stone P_Modul_34_02 drops to 0.7 below the way it fills; a ball of
                         # radius 2 meeting an edge h high keeps 1 - 5h/14 of its speed, 0.75 for 0.7, and
                         # rises h from 6 units/s on (g 20): the weakest push, stone's, F/m 0.32 g, 5/7 of it
                         # rolling, gives that within 4)
MAX_SAMPLES = 60         # per triangle edge (a 120-unit edge)
SIDE_GAP = (3.6, 4.5)    # two rails one above the other this far apart (level 06's A_01_Rail_03: tops 8.4
                         # and 12.6 at x 42.7) hold a ball pushed against them beside them ...
POST = 1.0               # a rail's side face this tall is an upright tube's (level 06's A_01_Rail_03 turns
                         # up from its lower tube to its upper at its north end): no ball overlaps it
RAIL_RADIUS = 0.3        # ... their tubes this thick (its tops 0.3 over their centres): the ball's centre
                         # d = sqrt((2 + 0.3)^2 - (gap / 2)^2) beside them (0.94), midway up, and its push
                         # must be d / (gap / 2) of its weight at least (0.45; wood 0.75, stone 0.30)
SIDE_LEAN = 1.0          # ... the lower this far across from under the upper at most (level 03's A03_Rail_02
                         # and A04_Rail_01 lean 0.85 and 0.7 toward the floor they start from: side_rest)
SIDE_ALONG = 1.0         # ... their nodes this far apart along them at most (sampled 1.8 to 2 apart)
SIDE_PARALLEL = math.cos(math.pi / 12.0)   # ... running within 15 degrees of one another (not a rail that
                         # crosses 4 over a curving rail pair: level 01's A01_Rail_02 at (-100, 27, -167))


def upward_triangles(triangles: np.ndarray):
    """Which of the triangles (n, 3, 3) have a normal pointing up (either
    winding), the slope of those (rise per horizontal unit along its steepest
    line), and the others (walls, sides)."""
    n = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    length = np.linalg.norm(n, axis=1)
    ok = length > 1e-12
    up = ok & (np.abs(n[:, 1]) >= UPWARD * np.where(ok, length, 1.0))
    return up, np.hypot(n[up, 0], n[up, 2]) / np.abs(n[up, 1]), triangles[ok & ~up]


def sample_triangles(triangles: np.ndarray, spacing: float = SPACING):
    """Points on each triangle: a barycentric grid with its longest edge cut in
    steps of at most ``spacing`` (the corners too); and each point's triangle."""
    if len(triangles) == 0:
        return np.zeros((0, 3)), np.zeros(0, dtype=int)
    edges = np.stack([np.linalg.norm(triangles[:, i] - triangles[:, (i + 1) % 3], axis=1) for i in range(3)], 1)
    steps = np.clip(np.ceil(edges.max(axis=1) / spacing), 1, MAX_SAMPLES).astype(int)
    out, owner = [], []
    for n in np.unique(steps):
        i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
        keep = i + j <= n
        u, v = i[keep] / n, j[keep] / n
        which = np.flatnonzero(steps == n)
        t = triangles[which]
        pts = (t[:, None, 0] * (1.0 - u - v)[None, :, None] + t[:, None, 1] * u[None, :, None]
               + t[:, None, 2] * v[None, :, None])
        out.append(pts.reshape(-1, 3))
        owner.append(np.repeat(which, len(u)))
    return np.concatenate(out), np.concatenate(owner)


def merged(points: np.ndarray, size: float = MERGE, highest: bool = False) -> np.ndarray:
    """The indices of one point per cube of ``size`` (the first, or the
    highest: a thin body's top, not its underside), in a stable order."""
    order = np.argsort(-points[:, 1], kind="stable") if highest else np.arange(len(points))
    keys = np.floor(points[order] / size).astype(np.int64)
    _, first = np.unique(keys, axis=0, return_index=True)
    return np.sort(order[first])


def side_rest(lean: float, gap: float) -> tuple:
    """Where a ball pushed against two rails one above the other rests, and
    the part of its weight its push must be: the lower tube's centre ``gap``
    below the upper's and ``lean`` across toward the ball (negative: away).
    The ball's centre is BALL_RADIUS + RAIL_RADIUS from both tubes' centres:
    d = sqrt(that^2 - half^2) off their midpoint, half the distance between
    them, square to the line joining them. Returns (how far across from the
    upper tube's centre, how far above it, push / weight): with the push F
    toward the tubes and the weight W, the contacts' forces N1 (upper), N2
    (lower) along their normals balance them; in the frame of the unit way m
    from the midpoint to the ball and t from the lower tube to the upper,
    (N1 + N2) d / rho = F m_a + W m_y and (N2 - N1) half / rho = F t_a +
    W t_y (a across toward the ball, y up, rho the contact distance); N1 >= 0
    needs F / W >= (t_y / half - m_y / d) / (m_a / d - t_a / half). Upright
    (lean 0): d beside, half below, d / half of the weight (level 06's
    ``A_01_Rail_03``: 0.94 beside, 0.45); leaning 0.7 toward the ball over a
    gap of 3.83 (level 03's ``A04_Rail_01``): 1.55 across, 1.69 below, 0.40."""
    rho = BALL_RADIUS + RAIL_RADIUS
    length = math.hypot(lean, gap)
    half = 0.5 * length
    d = math.sqrt(max(rho * rho - half * half, 0.0))
    m_a, m_y = gap / length, lean / length
    t_a, t_y = -lean / length, gap / length
    part = (t_y / half - m_y / d) / (m_a / d - t_a / half) if d > 0.0 else math.inf
    return 0.5 * lean + d * m_a, -0.5 * gap + d * m_y, max(part, 0.0)


class Flight:
    """How a ball of one kind flies off an edge, measured (autopilot.flights):
    per frame of its fall from rest with its push held the whole way, the
    time, how far it fell, its vertical speed and how far it went
    horizontally (increasing); ``gravity`` its size."""

    def __init__(self, t, fall, vy, flat, gravity: float):
        self.t, self.fall, self.vy, self.flat = (np.asarray(x, float) for x in (t, fall, vy, flat))
        self.gravity = float(gravity)

    @classmethod
    def ballistic(cls, gravity: float, seconds: float = 5.0):
        """A ball under ``gravity``, undamped and unpushed."""
        t = np.arange(0.0, seconds, 1.0 / 60.0)
        return cls(t, 0.5 * gravity * t * t, -gravity * t, 0.0 * t, gravity)

    def reach(self, fall, speed: float = 0.0):
        """How far it goes horizontally while it falls ``fall`` (0 where it rises; the
        last measured for a longer fall), leaving the edge at ``speed``: damped
        alike on both axes, the speed it leaves with carries it -vy / g times
        as far as it would go undamped."""
        fall = np.maximum(fall, 0.0)
        carried = -np.interp(fall, self.fall, self.vy) / self.gravity
        return np.interp(fall, self.fall, self.flat) + speed * carried

    def run_speed(self, distance: float) -> float:
        """The speed of a ball rolled ``distance`` from rest with its push
        held: 5/7 of its flight's horizontal speed when that has gone as far
        across (a rolling ball gets 5/7 of the push; level 05's wood ball,
        measured rolling on its flat, is faster still: 20.4 after 9.2, 23.6
        after 14.8); past the table, its last speed."""
        if len(self.t) < 2:
            return 0.0
        i = min(max(int(np.searchsorted(self.flat, distance)), 1), len(self.t) - 1)
        return ROLLING * float((self.flat[i] - self.flat[i - 1]) / (self.t[i] - self.t[i - 1]))

    def seconds_left(self, vy: float, fall: float) -> float:
        """The time it takes to fall ``fall`` more, falling at ``vy`` now."""
        i = int(np.searchsorted(-self.vy, -vy))
        start = self.fall[min(i, len(self.fall) - 1)]
        return float(np.interp(start + max(fall, 0.0), self.fall, self.t) - self.t[min(i, len(self.t) - 1)])


class WalkMap:
    """The nodes (floor points, ``points``), their links, and per goal the
    cost of each (node, kind) to it with the next node on the way."""

    def __init__(self, triangles, fans=(), pads=(), climb=None, gravity: float = 20.0, flights=None, rails=None,
                 sunk=None):
        """``triangles`` (n, 3, 3) of the floors in world axes, ``rails`` which
        of them are rails (a ball rests across two rails, or two floors' edges,
        not a rail and a floor's edge; default: none); ``fans``:
        (foot, top) points of each lift's column axis; ``pads``: (position,
        kind) of each transformer; ``climb``: kind -> the steepest rise per
        unit it rolls up (default ``CLIMB``, at most ``STEEPEST``); ``gravity`` its
        size, for how far a ball flies off an edge; ``flights``: kind ->
        its measured Flight (default: Flight.ballistic); ``sunk``: which
        triangles are bodies sunk into a gap (a falling stone dropped): their
        top and a floor beside it link over a step of up to SUNK_STEP."""
        self.climb = {k: min(v, STEEPEST) for k, v in (climb or {}).items()}
        self.holds = {k: (climb or {}).get(k, CLIMB) for k in KIND_NAMES}     # F / (m g): tan of the face held
        self.gravity = float(gravity)
        self.flights = {k: (flights or {}).get(k) or Flight.ballistic(self.gravity) for k in KIND_NAMES}
        triangles = np.asarray(triangles, float).reshape(-1, 3, 3)
        up, slopes, sides = upward_triangles(triangles)
        walls = sample_triangles(sides, WALL_SPACING)[0]
        solid = sample_triangles(triangles, WALL_SPACING)[0]            # every face, for the drops' lids
        self.solid = cKDTree(solid[merged(solid, WALL_SPACING * 0.25)])
        rail_faces = np.zeros(len(triangles), bool) if rails is None else np.asarray(rails, bool)
        posts = sample_triangles(triangles[rail_faces & ~up & (np.ptp(triangles[:, :, 1], axis=1) >= POST)],
                                 WALL_SPACING)[0]
        self.posts = cKDTree(posts) if len(posts) else None
        self.walls = cKDTree(walls[merged(walls, WALL_SPACING * 0.5)]) if len(walls) else None
        points, owner = sample_triangles(triangles[up])
        keep = merged(points, highest=True)       # level 02's drawbridge: its top 0.5 above its underside
        self.points, self.slope = points[keep], slopes[owner[keep]]
        self.downhill = downhill(triangles[up])[owner[keep]]
        self.rail = (np.zeros(len(triangles), bool) if rails is None else np.asarray(rails, bool))[up][owner[keep]]
        self.sunk = (np.zeros(len(triangles), bool) if sunk is None else np.asarray(sunk, bool))[up][owner[keep]]
        if len(self.points) == 0:
            raise ValueError("autopilot: the level has no floor to roll on (no upward triangle in its floor groups)")
        self.tree = cKDTree(self.points)
        self.empty_sides = self._empty_sides()
        spans, paired = self._spans()
        self.paired = np.zeros(len(self.points) + len(spans), dtype=bool)
        self.paired[paired] = True
        self.span = np.zeros(len(self.paired), dtype=bool)
        if len(spans):
            self.span[len(self.points):] = True
            keep = merged(np.concatenate([self.points, spans]))       # the floor's nodes stay first
            self.points = np.concatenate([self.points, spans])[keep]
            self.slope = np.concatenate([self.slope, np.zeros(len(spans))])[keep]
            self.downhill = np.concatenate([self.downhill, np.zeros((len(spans), 2))])[keep]
            self.span, self.paired = self.span[keep], self.paired[keep]
            self.rail = np.r_[self.rail, np.zeros(len(spans), bool)][keep]
            self.sunk = np.r_[self.sunk, np.zeros(len(spans), bool)][keep]
            self.tree = cKDTree(self.points)
            self.empty_sides = self._empty_sides()
        side, way, need, under = self._side_nodes()
        self.side_way = np.zeros((len(self.points), 2))
        self.side_need = np.zeros(len(self.points))
        self._renode(np.setdiff1d(np.arange(len(self.points)), under), side)   # no ball on a rail under another
        self.side_way[len(self.points) - len(side):] = way
        self.side_need[len(self.points) - len(side):] = need
        self.side = self.side_need > 0.0
        self.flat_tree = cKDTree(self.points[:, (0, 2)])      # the nodes across (x, z), for the links
        self.gutter, self.gutter_way = gutter_slopes(self.points, self.downhill, self.flat_tree,
                                                     min(self.climb.values(), default=CLIMB))
        self.kinds = len(KIND_NAMES)
        self.pad_kind, self.trap_kind = self._pads(pads)
        self.columns = [self._column(foot, top) for foot, top in fans]
        self.lifts = [self._lift(*column) for column in self.columns]
        self.graph = drops_held(self._graph(), self.points, self.lifts, self.columns, KIND_NAMES.index("paper"))
        self.passes = {}         # (from, to) -> (stone, push): links under falling stones (autopilot_passes)
        self.glides = {}         # (foot, landing) -> (axis foot, highest): glides off a fan's hover (autopilot_glides)

    def _pads(self, pads):
        """Per node, the kind a pad within TRANSFORMER_RADIUS of its ball turns
        the ball into (-1: none), and the kind of a trap pad there (-1:
        none). The new ball is born at rest 3 above its pad (glue-and-content
        3), so a pad whose floor is steeper than the new kind's push holds it
        on is a trap: the new ball rolls down off it, and its nodes are no
        way for the other kinds (level 12's six stone pads on the convex
        A02_Halfpipe_01, its floor there 0.5 steep, stone's hold 0.32: a stone
        ball born on one, pushed toward the crest, rolled off its side)."""
        n = len(self.points)
        turn, trap = np.full(n, -1), np.full(n, -1)
        for position, kind in pads:
            near = self.tree.query_ball_point(np.asarray(position) - (0.0, BALL_RADIUS, 0.0), TRANSFORMER_RADIUS)
            _, under = self.tree.query(position)
            held = self.slope[under] <= self.climb.get(kind, CLIMB)
            (turn if held else trap)[near] = KIND_NAMES.index(kind)
        return turn, trap

    def _spans(self):
        """Midpoints of two edge nodes a ball can rest across (a rail pair, a
        narrow gap): SPAN apart horizontally, level, both rails or neither
        (level 02's humps' edge and the rail beside them: no pair), with no
        node at the midpoint; and the edge nodes of those pairs (the ball is
        between them, never on one)."""
        edge = np.flatnonzero(self.empty_sides > 0)
        if len(edge) < 2:
            return np.zeros((0, 3)), edge
        p = self.points[edge]
        pairs = cKDTree(p).query_pairs(SPAN[1], output_type="ndarray")
        a, b = p[pairs[:, 0]], p[pairs[:, 1]]
        flat = np.hypot(a[:, 0] - b[:, 0], a[:, 2] - b[:, 2])
        mid = (a + b) * 0.5
        ok = ((flat >= SPAN[0]) & (np.abs(a[:, 1] - b[:, 1]) <= 0.5)
              & (self.rail[edge[pairs[:, 0]]] == self.rail[edge[pairs[:, 1]]]))
        d, _ = self.tree.query(mid, distance_upper_bound=MERGE)
        ok &= ~np.isfinite(d)
        floors = np.flatnonzero(ok & ~self.rail[edge[pairs[:, 0]]])
        ok[floors[self._in_hole(mid[floors])]] = False
        mid = mid[ok]
        return mid[merged(mid)], edge[pairs[ok].ravel()]

    def _in_hole(self, mid) -> np.ndarray:
        """Per point between two floors' edges: does it lie in a gap the
        ball falls through, a disc of BALL_RADIUS round some point within
        HOLE_REACH of it (0.5 apart) with no node within FLIGHT_LEVEL of that
        point's height, ringed by floor (a node within MERGE of each of
        LID_WAYS ways out, 2 HOLE_REACH at most: not a floor's end)? A ball
        rests across two edges only where the gap is narrower
        than it: level 06's floor over fan 05 has a round hole 2.5 in radius,
        whose rim's chords 2.5 to 4.4 long had filled it with midpoints (the
        wood ball's way down through it was no drop)."""
        g = np.arange(-HOLE_REACH, HOLE_REACH + 0.25, 0.5)
        probe = np.array([(x, 0.0, z) for x in g for z in g if x * x + z * z <= HOLE_REACH ** 2])
        hole = np.zeros(len(mid), bool)
        for q in probe:
            hole |= ~self._level_near(mid + q, BALL_RADIUS)
        for a in np.arange(LID_WAYS) * (2.0 * math.pi / LID_WAYS):    # ringed by floor: a hole, not a floor's end
            u = np.array([math.cos(a), 0.0, math.sin(a)])
            ringed = np.zeros(len(mid), bool)
            for m in np.arange(0.5, 2.0 * HOLE_REACH + 0.25, 0.5):
                ringed |= self._level_near(mid + m * u, MERGE)
            hole &= ringed
        return hole

    def _level_near(self, c, reach: float) -> np.ndarray:
        """Per point: a node within ``reach`` across and FLIGHT_LEVEL up or down?"""
        d, i = self.tree.query(c, k=8, distance_upper_bound=math.hypot(reach, FLIGHT_LEVEL))
        node = self.points[np.minimum(i, len(self.points) - 1)]
        return (np.isfinite(d) & (np.hypot(node[..., 0] - c[:, None, 0], node[..., 2] - c[:, None, 2]) < reach)
                & (np.abs(node[..., 1] - c[:, None, 1]) <= FLIGHT_LEVEL)).any(axis=1)

    def _side_nodes(self):
        """Where a ball pushed against two rails one above the other rolls
        along beside them (level 06's ``A_01_Rail_03`` from its trough north
        to the platform, measured: the wood ball's centre 10.2 high, 1.0 west
        of the tubes): per pair of rail nodes SIDE_GAP apart in height, at
        most SIDE_ALONG apart along the rails and SIDE_LEAN across, the rails
        running within 15 degrees of one another (SIDE_PARALLEL), the node
        under the ball's centre on either side (side_rest; no face within
        WALL_SIDE_PROBE of its centre), the unit way toward the rails and the
        part of its weight the ball's push must be; and the lower rail nodes
        of those pairs (no ball fits on them: the map leaves them out)."""
        rail = np.flatnonzero(self.rail)
        none = np.zeros((0, 3)), np.zeros((0, 2)), np.zeros(0), np.zeros(0, int)
        if len(rail) < 2:
            return none
        p = self.points[rail]
        tree = cKDTree(p)
        out, way, need, under = [], [], [], []
        reach = math.hypot(SIDE_ALONG, SIDE_LEAN, 0.5 * (SIDE_GAP[1] - SIDE_GAP[0]))
        for i, near in enumerate(tree.query_ball_point(p - (0.0, sum(SIDE_GAP) / 2.0, 0.0), reach)):
            near = [j for j in near if SIDE_GAP[0] <= p[i, 1] - p[j, 1] <= SIDE_GAP[1]]
            if not near:
                continue
            upper = self._tube_line(tree, p[i])
            axis = upper[1]
            across = np.array([-axis[1], axis[0]])
            off = p[near][:, (0, 2)] - upper[0]
            below = [j for j, o in zip(near, off) if abs(o @ axis) <= SIDE_ALONG and abs(o @ across) <= SIDE_LEAN]
            if not below:
                continue
            lower = self._tube_line(tree, p[below].mean(axis=0))
            if abs(float(lower[1] @ axis)) < SIDE_PARALLEL:
                continue
            under += below
            lean = float((lower[0] - upper[0]) @ across)
            gap = float(np.mean(p[i, 1] - p[below, 1]))
            for sign in (1.0, -1.0):
                beside, rise, part = side_rest(sign * lean, gap)
                x, z = upper[0] + sign * beside * across
                out.append((x, p[i, 1] - RAIL_RADIUS + rise - BALL_RADIUS, z))
                way.append(-sign * across)
                need.append(part)
        out, way, need = np.array(out).reshape(-1, 3), np.array(way).reshape(-1, 2), np.array(need)
        keep = merged(out)
        out, way, need = out[keep], way[keep], need[keep]
        free = ~np.isfinite(self.solid.query(out + (0.0, BALL_RADIUS, 0.0), distance_upper_bound=WALL_SIDE_PROBE)[0])
        return out[free], way[free], need[free], rail[np.unique(np.array(under, int))]

    @staticmethod
    def _tube_line(tree, q):
        """The line of the rail whose top nodes (``tree``) lie round ``q``:
        the point of it across from ``q`` (x, z: their middle across, a
        tube's top is sampled on its facets' corners) and its unit way, the
        main axis of those within EDGE_PROBE at its height."""
        near = tree.data[[j for j in tree.query_ball_point(q, EDGE_PROBE) if abs(tree.data[j, 1] - q[1]) <= 1.0]]
        flat = near[:, (0, 2)] - near[:, (0, 2)].mean(axis=0)
        axis = np.linalg.eigh(flat.T @ flat)[1][:, -1]
        across = np.array([-axis[1], axis[0]])
        q = np.asarray(q, float)[[0, 2]]
        return q + ((near[:, (0, 2)].mean(axis=0) - q) @ across) * across, axis

    def _through_sides(self, a, b) -> np.ndarray:
        """For links a -> b: does it go more than MERGE toward the rails from
        a side node (or from beyond them into one: between the rails no ball
        passes, their gap, 4.2 less the tubes, is narrower than it; level
        06's tubes from the trough's west side to their east side, above the
        lower channel), or between a side node and a node where the ball
        does not fit (_covered), or with the ball's centre within
        BALL_RADIUS - 0.25 of an upright tube (POST) on its way?"""
        d = self.points[b][:, (0, 2)] - self.points[a][:, (0, 2)]
        out = (((d * self.side_way[a]).sum(axis=1) > MERGE) & self.side[a]) | \
            (((-d * self.side_way[b]).sum(axis=1) > MERGE) & self.side[b])
        near = np.flatnonzero((self.side[a] | self.side[b]) & ~out)
        ends = np.unique(np.r_[a[near], b[near]])
        covered = np.zeros(len(self.points), bool)
        covered[ends] = self._covered(ends)
        out[near] = covered[a[near]] | covered[b[near]]
        if self.posts is not None:
            for t in (0.0, 0.25, 0.5, 0.75, 1.0):
                q = self.points[a] * (1.0 - t) + self.points[b] * t + (0.0, BALL_RADIUS, 0.0)
                out |= np.isfinite(self.posts.query(q, distance_upper_bound=BALL_RADIUS - 0.25)[0])
        return out

    def _covered(self, nodes) -> np.ndarray:
        """Per node: does a face come within BALL_RADIUS - 0.25 of its ball's
        centre, more than 0.5 above it (the ball does not fit there: level
        06's trough lip under ``A_01_Rail_03``'s upper tube, 3.48 over it)?"""
        centre = self.points[nodes] + (0.0, BALL_RADIUS, 0.0)
        d, i = self.solid.query(centre, k=8, distance_upper_bound=BALL_RADIUS - 0.25)
        above = self.solid.data[np.minimum(i, self.solid.n - 1), 1] - centre[:, 1, None] > 0.5
        return (np.isfinite(d) & above).any(axis=1)

    def _renode(self, keep, extra) -> None:
        """Only the nodes ``keep``, then the nodes ``extra``: every per-node
        array cut to them and lengthened with zeros."""
        n, extra = len(self.points), np.asarray(extra, float).reshape(-1, 3)
        for name, v in list(vars(self).items()):
            if isinstance(v, np.ndarray) and v.ndim and len(v) == n:
                setattr(self, name, np.concatenate([v[keep], np.zeros((len(extra),) + v.shape[1:], v.dtype)]))
        self.points[len(keep):] = extra
        self.tree = cKDTree(self.points)
        self.empty_sides = self._empty_sides()

    def _empty_sides(self) -> np.ndarray:
        """For each node, how many of 8 points around it (EDGE_PROBE away) have no node near."""
        out = np.zeros(len(self.points), dtype=int)
        for k in range(8):
            a = 2.0 * math.pi * k / 8
            probe = self.points + (EDGE_PROBE * math.cos(a), 0.0, EDGE_PROBE * math.sin(a))
            d, _ = self.tree.query(probe, distance_upper_bound=EDGE_FIND)
            out += ~np.isfinite(d)
        return out

    def _column(self, foot, top):
        """(foot, top, highest) of a fan column from ``foot`` to ``top`` (its axis' ends):
        ``highest``, the most the paper ball's lowest point rises in it, FAN_OVER above the
        top, or HOOD_GAP under a ball on the axis touching the lowest face over it
        (less than BALL_RADIUS off it) in that height (level 05's ``A03_Modul16`` over fan 01)."""
        foot, top = np.asarray(foot, float), np.asarray(top, float)
        faces = self.solid.data
        off = np.hypot(faces[:, 0] - foot[0], faces[:, 2] - foot[2])
        over = ((off < BALL_RADIUS) & (faces[:, 1] > foot[1] + 2.0 * BALL_RADIUS)
                & (faces[:, 1] <= top[1] + FAN_OVER + 2.0 * BALL_RADIUS))
        lowest = faces[over, 1] - np.sqrt(BALL_RADIUS ** 2 - off[over] ** 2) - BALL_RADIUS  # the ball's top on it
        highest = min([top[1] + FAN_OVER, *(lowest - HOOD_GAP)])
        return foot, top, highest

    def _lift(self, foot, top, highest):
        """(foot nodes, top nodes) of a fan column from ``foot`` to ``top`` (its axis' ends): the
        top nodes FAN_REACH from its axis and the paper ball's flight beyond, up to ``highest``
        (_column; level 06's single rails 0.2 above its fans' tops), whose way out of the column
        is clear (autopilot_lifts)."""
        flat = np.hypot(self.points[:, 0] - foot[0], self.points[:, 2] - foot[2])
        y = self.points[:, 1]
        below = np.flatnonzero((flat <= 3.0) & (y <= foot[1] + 1.0) & (y >= foot[1] - BALL_RADIUS - 4.0))
        reach = FAN_REACH + self.flights["paper"].reach(top[1] - y)
        above = np.flatnonzero((flat <= reach) & (y > foot[1] + 2.0) & (y <= highest))
        return below, above[clear_ways(self.solid, foot, highest, self.points[above])]

    def _through_columns(self, a, b, clear: float) -> np.ndarray:
        """Which links a -> b pass through a fan's column: their way nearer its axis than
        ``clear`` (horizontally), a ball on a node of it overlapping the column's height, not
        into the lift's foot (a ball rolls into the fan's foot and up: the lift)."""
        p, out = self.points, np.zeros(len(a), bool)
        for (foot, top, _), (below, _) in zip(self.columns, self.lifts):
            u, v = p[a][:, [0, 2]] - foot[[0, 2]], p[b][:, [0, 2]] - foot[[0, 2]]
            way = v - u
            t = np.clip(-np.sum(u * way, axis=1) / np.maximum(np.sum(way * way, axis=1), 1e-12), 0.0, 1.0)
            near = np.hypot(*(u + t[:, None] * way).T) < clear
            low, high = np.minimum(p[a, 1], p[b, 1]), np.maximum(p[a, 1], p[b, 1])
            out |= near & (high + 2.0 * BALL_RADIUS > foot[1]) & (low < top[1]) & ~np.isin(b, below)
        return out

    def _drops(self):
        """(from, to) of the drops: from a node with an empty side to a node
        below it, lower than a link could climb, beyond the edge (away from
        the nodes round the edge's at its height; from a midpoint, within
        45 degrees of straight off its rails' end, not sideways: level 03's
        rails end 0.9 past their last midpoint, whose diagonal probes find
        the rails' ends), no farther than the farthest flight of a kind
        (whose reach each kind's links check: _graph), with no lid over its
        way out (_lids) but onto a side node toward its rails, at most a
        ball's height down: the rails the ball falls against catch it (level
        06's ``A_01_Rail_02`` ends 2.6 above the tubes' east side, 2.8 off);
        a flight through a face on its way is none (_struck)."""
        p = self.points
        edge = np.flatnonzero((self.empty_sides > 0) & ~self.paired)
        flat_tree = self.flat_tree
        reach = max([DROP_REACH] + [f.reach(MAX_DROP, JUMP_SPEED) for f in self.flights.values()])
        inward = self._inward(edge)
        out_a, out_b = [], []
        for chunk in np.array_split(edge, max(1, len(edge) // 500)):      # a far reach finds many pairs
            near = flat_tree.query_ball_point(p[chunk][:, (0, 2)], reach)
            counts = np.fromiter((len(x) for x in near), int, len(near))
            a = np.repeat(chunk, counts)
            b = np.fromiter((j for x in near for j in x), int, int(counts.sum()))
            flat = np.hypot(p[a, 0] - p[b, 0], p[a, 2] - p[b, 2])
            fall = p[a, 1] - p[b, 1]
            ok = (fall > CLIMB * flat + 0.15) & (fall <= MAX_DROP)
            a, b = a[ok], b[ok]
            out = p[b][:, (0, 2)] - p[a][:, (0, 2)]
            along = (out * inward[a]).sum(axis=1)
            off = np.where(self.span[a],
                           along <= -SPAN_END * np.linalg.norm(out, axis=1) * np.linalg.norm(inward[a], axis=1),
                           along <= 0.0)
            out_a.append(a[off])
            out_b.append(b[off])
        a, b = np.concatenate(out_a or [np.zeros(0, int)]), np.concatenate(out_b or [np.zeros(0, int)])
        way = p[b][:, (0, 2)] - p[a][:, (0, 2)]
        way = np.where((np.hypot(way[:, 0], way[:, 1]) > 1.0)[:, None], way, -inward[a])   # b under the edge: out
        turn = np.round(np.arctan2(way[:, 1], way[:, 0]) * LID_WAYS / (2.0 * math.pi)).astype(int) % LID_WAYS
        key = a * LID_WAYS + turn
        keys, which = np.unique(key, return_inverse=True)
        free = ~self._lids(keys // LID_WAYS, keys % LID_WAYS * (2.0 * math.pi / LID_WAYS))
        caught = self.side[b] & ((way * self.side_way[b]).sum(axis=1) > 0.0) & (p[a, 1] - p[b, 1] <= 2.0 * BALL_RADIUS)
        free = free[which]
        free[free] = ~self._struck(a[free], b[free])
        return a[free | caught], b[free | caught]

    def _lids(self, a, angle) -> np.ndarray:
        """For ways out of edge nodes ``a`` at ``angle`` (from +X toward +Z):
        is there a lid over it? The ball's centre rolls level from over the
        node that way until LID_PAST beyond the last point with a node within
        DROP_LEAD (its floor's edge); a point of any face (sampled) within
        LID_PROBE of it, above it and not behind it closes the way. A way
        whose floor runs on more than REACH is closed too: the ball rolls on
        over it, and drops off its end or side as from that floor's own edge
        (level 05: off a platform's corner over a rail level with it, off a
        floor's edge back over a spiral rail's top; the ball rolled onto the
        rails)."""
        u = np.c_[np.cos(angle), np.zeros(len(a)), np.sin(angle)]
        start = self._centre(a)
        lead = self._floor_run(a, u)
        lid = lead > REACH
        for m in np.arange(0.0, 2.0 * REACH + LID_PAST, 0.5):
            live = np.flatnonzero((m <= lead + LID_PAST) & ~lid)
            live = live[np.isfinite(self.solid.query(start[live] + m * u[live], distance_upper_bound=LID_PROBE)[0])]
            centre = start[live] + m * u[live]                                # those with a face near (few)
            d, i = self.solid.query(centre, k=8, distance_upper_bound=LID_PROBE)
            q = self.solid.data[np.minimum(i, self.solid.n - 1)] - centre[:, None, :]
            ahead = q[..., 0] * u[live, 0, None] + q[..., 2] * u[live, 2, None]
            lid[live] = (np.isfinite(d) & (q[..., 1] > LID_LOW) & (ahead > -0.25)).any(axis=1)
        return lid

    def _centre(self, nodes) -> np.ndarray:
        """The ball's centre resting on ``nodes`` (SPAN_DIP lower between a rail pair's rails)."""
        return self.points[nodes] + (0.0, BALL_RADIUS, 0.0) - SPAN_DIP * self.span[nodes][:, None] * (0.0, 1.0, 0.0)

    def _floor_run(self, a, u, level: float = math.inf) -> np.ndarray:
        """How far the ball rolls level from over nodes ``a`` along the unit
        ways ``u`` (3D, level) before it leaves their floor: the last point,
        0.5 apart up to 2 REACH, with a node within DROP_LEAD (and within
        ``level`` of its height: a floor higher is a step, not its floor)."""
        lead, on = np.zeros(len(a)), np.ones(len(a), bool)
        for m in np.arange(0.5, 2.0 * REACH, 0.5):
            q = self.points[a] + m * u
            d, i = self.tree.query(q, k=4, distance_upper_bound=DROP_LEAD)
            dy = np.abs(self.points[np.minimum(i, len(self.points) - 1), 1] - q[:, 1, None])
            on &= (np.isfinite(d) & (dy <= level)).any(axis=1)
            lead = np.where(on, m, lead)
        return lead

    def _struck(self, a, b) -> np.ndarray:
        """Per drop from edge node ``a`` to node ``b``: does the ball's flight
        pass through a face on its way? Its centre rolls level off the edge
        (_floor_run on nodes within FLIGHT_LEVEL of its height: a floor
        higher is no floor run), then falls to the landing's centre on the
        parabola of a ball leaving level at a steady speed across (its fall
        growing with the square of the way gone past the edge), sampled
        FLIGHT_STEP apart across and down; a point of any face within
        FLIGHT_PROBE of it (the ball, radius 2, cuts 1 into that face)
        strikes it; to a landing within the floor run it falls straight
        down. Within ROUND_EDGE across of the edge node it rolls round the
        edge, not checked (off a tube's top down beside it: the side rails'
        nodes lie 0.94 beside their tubes), but a landing under a floor no
        higher than the edge is none (_roofed). The way out of the edge
        (_lids) is no check of the flight beyond it: level 06's sector 2
        dropped off the upper wooden floor's side diagonally through its
        end, and off a ledge beside it (1.3 lower) through the floor
        itself."""
        start, end = self._centre(a), self._centre(b)
        way = (end - start) * (1.0, 0.0, 1.0)
        across = np.linalg.norm(way, axis=1)
        u = way / np.maximum(across, 1e-9)[:, None]
        lead = np.minimum(self._floor_run(a, u, FLIGHT_LEVEL), across)
        fall = start[:, 1] - end[:, 1]
        struck = self._roofed(b, self.points[a, 1] + FLIGHT_LEVEL)
        steps = np.ceil(np.maximum(across - lead, fall) / FLIGHT_STEP)
        for k in range(1, int(steps.max(initial=0.0))):
            live = np.flatnonzero(~struck & (k < steps))
            f = k / steps[live]
            for gone, down in ((f, f * f), (np.sqrt(f), f)):     # evenly across, and evenly down
                out = lead[live] + (across[live] - lead[live]) * gone
                centre = start[live] + u[live] * out[:, None]
                centre[:, 1] -= fall[live] * down
                hit = np.isfinite(self.solid.query(centre, distance_upper_bound=FLIGHT_PROBE)[0])
                struck[live] |= hit & (out >= ROUND_EDGE)
        return struck

    def _roofed(self, b, top) -> np.ndarray:
        """Per landing node ``b``: does a face cross the line up from the
        ball's centre there to ``top`` (a point of it within ROOF, the
        faces sampled 1 apart: a floor the falling ball would pass through)?"""
        centre = self._centre(b)
        roofed = np.zeros(len(b), bool)
        for m in np.arange(FLIGHT_STEP, float(np.max(top - centre[:, 1], initial=0.0)) + FLIGHT_STEP, FLIGHT_STEP):
            live = np.flatnonzero(~roofed & (centre[:, 1] + m <= top))
            q = centre[live] + (0.0, m, 0.0)
            roofed[live] = np.isfinite(self.solid.query(q, distance_upper_bound=ROOF)[0])
        return roofed

    def _leaps(self):
        """(start, landing, per kind whether it flies that far) of the leaps:
        over a gap (a point of the straight way with no floor within
        EDGE_FIND across, between the landing's height less 2 and the
        edge's plus 2) from an edge to an edge at most LEAP_DROP lower and
        more than REACH away, both within 45 degrees of straight off their
        floors, after a straight run-up of LEAP_RUN to the edge (floor under
        it all the way, none of it lower than the edge less LEAP_DIP),
        leaving the edge at the speed the run-up gives (Flight.run_speed, at
        most LEAP_SPEED) less what the rise to the edge takes, up the slope
        its last 2 units rise at (a kicker: the ball rises to the top of its
        arc, then falls from there as off an edge), onto a floor that runs on
        LEAP_LAND beyond the landing the same way. The start is the
        run-up's first node: from there the steering pushes at full push to
        the landing, as on a ride (level 05's last sector: its ramp ends in
        a kicker 1.5 high, 15.1 before the finish's floor and 3.2 above it;
        a wood ball pushed along it lands there and rolls to the finish)."""
        p = self.points
        edge = np.flatnonzero((self.empty_sides > 0) & ~self.paired & ~self.span)
        speed = np.array([min(self.flights[k].run_speed(LEAP_RUN), LEAP_SPEED) for k in KIND_NAMES])
        far = min(LEAP_REACH, max(float(self.flights[k].reach(LEAP_DROP, v)) for k, v in zip(KIND_NAMES, speed)))
        none = (np.zeros(0, int), np.zeros(0, int), np.zeros((0, len(KIND_NAMES)), bool))
        if len(edge) < 2 or far <= REACH:
            return none
        pairs = cKDTree(p[edge][:, (0, 2)]).query_pairs(far, output_type="ndarray")
        a, b = np.r_[edge[pairs[:, 0]], edge[pairs[:, 1]]], np.r_[edge[pairs[:, 1]], edge[pairs[:, 0]]]
        out = p[b][:, (0, 2)] - p[a][:, (0, 2)]
        flat = np.linalg.norm(out, axis=1)
        fall = p[a, 1] - p[b, 1]
        ok = (flat > REACH) & (fall >= 0.0) & (fall <= LEAP_DROP)
        a, b, out, flat, fall = a[ok], b[ok], out[ok], flat[ok], fall[ok]
        inward = self._inward(np.unique(np.r_[a, b]))
        size = np.linalg.norm(inward, axis=1)
        ok = (((out * inward[a]).sum(axis=1) <= -SPAN_END * flat * size[a])
              & ((out * inward[b]).sum(axis=1) >= SPAN_END * flat * size[b]) & (size[a] > 0) & (size[b] > 0))
        a, b, out, flat, fall = a[ok], b[ok], out[ok], flat[ok], fall[ok]
        u = out / flat[:, None]
        flat_tree = self.flat_tree
        gap = np.zeros(len(a), bool)
        for t in np.linspace(0.0, 1.0, int(math.ceil(far / MERGE)) + 1)[1:-1]:
            q = p[a][:, (0, 2)] + out * t
            d, i = flat_tree.query(q, k=8, distance_upper_bound=EDGE_FIND)
            y = p[np.minimum(i, len(p) - 1), 1]
            floor = np.isfinite(d) & (y >= p[b, 1][:, None] - 2.0) & (y <= p[a, 1][:, None] + 2.0)
            gap |= (t * flat > EDGE_FIND) & (t * flat < flat - EDGE_FIND) & ~floor.any(axis=1)
        low, kick = np.full(len(a), np.inf), np.zeros(len(a))       # the run-up's lowest floor, the edge's rise
        for step in np.arange(MERGE, LEAP_RUN + 0.5 * MERGE, MERGE):
            y = self._floor_under(flat_tree, p[a][:, (0, 2)] - u * step, p[a, 1] - LEAP_DIP)
            low = np.minimum(low, y)
            gap &= np.isfinite(y)
            if step == 2.0 * MERGE:
                kick = np.minimum(np.maximum(p[a, 1] - y, 0.0) / step, self.slope[a])
        for step in np.arange(MERGE, LEAP_LAND + 0.5 * MERGE, MERGE):       # room to stop beyond the landing
            gap &= np.isfinite(self._floor_under(flat_tree, p[b][:, (0, 2)] + u * step, p[b, 1] - LEAP_DIP))
        a, b, u, flat, fall, low, kick = a[gap], b[gap], u[gap], flat[gap], fall[gap], low[gap], kick[gap]
        d, i = flat_tree.query(p[a][:, (0, 2)] - u * LEAP_RUN, k=8, distance_upper_bound=EDGE_FIND)
        y = np.where(np.isfinite(d), p[np.minimum(i, len(p) - 1), 1], -np.inf)
        start = i[np.arange(len(a)), np.argmin(np.where(y >= p[a, 1][:, None] - LEAP_DIP, y, np.inf), axis=1)]
        ok = ~self._walled(start, a)
        rise = np.maximum(p[a, 1] - low, 0.0)        # up a kicker to the edge: slower (v^2 - 2 g h) ...
        cos = 1.0 / np.sqrt(1.0 + kick * kick)      # ... and launched up its slope: rising to its top, then falling
        flies = []
        for k, v in zip(KIND_NAMES, speed):
            v = np.sqrt(np.maximum(v * v - 2.0 * self.gravity * rise, 0.0))
            up = v * kick * cos / self.gravity
            flies.append(flat <= v * cos * up + self.flights[k].reach(fall + 0.5 * self.gravity * up * up, v * cos))
        flies = np.stack(flies, axis=1)
        ok &= flies.any(axis=1)
        return start[ok], b[ok], flies[ok]

    def _floor_under(self, flat_tree, q, lowest) -> np.ndarray:
        """Per point q (x, z): the lowest node within EDGE_FIND across no
        lower than ``lowest`` (a floor, not a wall's top), inf where none."""
        d, i = flat_tree.query(q, k=8, distance_upper_bound=EDGE_FIND)
        y = np.where(np.isfinite(d), self.points[np.minimum(i, len(self.points) - 1), 1], -np.inf)
        return np.where(y >= lowest[:, None], y, np.inf).min(axis=1)

    def _inward(self, edge) -> np.ndarray:
        """Per node (0 but for ``edge``): the horizontal way from it toward the
        floor round it at its height (within EDGE_PROBE, 1 up or down)."""
        p = self.points
        inward = np.zeros((len(p), 2))
        for i, around in zip(edge, self.tree.query_ball_point(p[edge], EDGE_PROBE)):
            level = [j for j in around if abs(p[j, 1] - p[i, 1]) <= 1.0]
            inward[i] = (p[level][:, (0, 2)] - p[i, (0, 2)]).mean(axis=0)
        return inward

    def _walled(self, a, b) -> np.ndarray:
        """For links a -> b: at a quarter, half or three quarters along, is
        there a node within ``WALL_PROBE`` of the ball's centre raised by half
        a unit (a wall's or a curb's top; the floor under the ball is 2.5
        below, out of reach), or a point of a wall (a side face, sampled every
        ``WALL_SPACING``) within ``WALL_SIDE_PROBE`` of the centre? Between
        a rail pair the ball's top is SPAN_DIP lower, and so is the probe's
        (its bottom stays): a pair 3.8 above the one the ball rolls on is a
        lid, not a wall (level 06's tube of four rails under its tower,
        ``A_05_Rail_03``); a wall point closes it only when it is near the
        centre both as on a floor and as SPAN_DIP lower, as it lies between
        the rails: level 05's rail pair under the side rails at x 284 (the
        lower one's underside 2.95 above the pair's tops) was walled, yet a
        stone ball pushed along the pair rolls under it, its centre 0.92
        lower than on a floor at the tops (measured); the dipped centre
        alone walled the pairs' ends at floors' edges (11271 of level 05's
        links, sector 2's route lost)."""
        p = self.points
        out = np.zeros(len(a), dtype=bool)
        for t in (0.25, 0.5, 0.75):
            q = p[a] * (1.0 - t) + p[b] * t + (0.0, BALL_RADIUS, 0.0)
            dip = 0.5 * SPAN_DIP * (self.span[a] * (1.0 - t) + self.span[b] * t)
            d, _ = self.tree.query(q + (0.0, 0.5, 0.0) - dip[:, None] * (0.0, 1.0, 0.0),
                                   distance_upper_bound=WALL_PROBE)
            out |= d <= WALL_PROBE - dip
            if self.walls is not None:
                d, _ = self.walls.query(q, distance_upper_bound=WALL_SIDE_PROBE)
                low, _ = self.walls.query(q - 2.0 * dip[:, None] * (0.0, 1.0, 0.0),
                                          distance_upper_bound=WALL_SIDE_PROBE)
                out |= np.isfinite(d) & np.isfinite(low)
        return out

    def _rail_axes(self) -> np.ndarray:
        """Per node between or on the edges of a rail pair (span, paired): the
        unit way its rails run in X and Z, the main axis of the pair's
        midpoints within 2 EDGE_PROBE (of all such nodes where fewer than two
        are), heights counted twice: not a rail passing 3.6 above, as level
        02's ``A03_Rail_01`` does over its own start. Not of the rails' own
        nodes: at a pair's end they lie 3.75 across and less along (level 06's
        ``A_01_Rail_02``, rising 0.54 per unit from a floor: its first
        midpoint's axis was across its rails). 0 for the others."""
        rails = np.flatnonzero(self.span | self.paired)
        axes = np.zeros((len(self.points), 2))
        if len(rails) < 2:
            return axes
        p, mids, tall = self.points[:, (0, 2)], np.flatnonzero(self.span), (1.0, 2.0, 1.0)
        at = self.points[rails] * tall
        by_mids = cKDTree(self.points[mids] * tall).query_ball_point(at, 2.0 * EDGE_PROBE)
        by_rails = cKDTree(at).query_ball_point(at, 2.0 * EDGE_PROBE)
        for i, m, r in zip(rails, by_mids, by_rails):
            near = p[mids[m]] if len(m) >= 2 else p[rails[r]]
            d = near - near.mean(axis=0)
            axes[i] = np.linalg.eigh(d.T @ d)[1][:, -1]
        return axes

    def _along_rails(self, a, b):
        """For links a -> b between a rail pair and a node off it (neither
        span nor paired), ``(ok, out)``: ``ok`` False for one from or onto a
        rail's edge, or from between the rails more than 15 degrees off their
        way and more than RAIL_SIDE off their middle line (a ball between
        rails leaves them at their ends, not over one: level 02's stone ball
        stuck beside the end of its wooden humps); onto the midpoints over a
        rail from a floor no lower than the rails' tops, the ball rolls (level
        02's valley beside ``A03_Rail_02``, level with its rails). ``out``:
        those from the midpoints sideways onto a floor level with the rails'
        tops, a way for a kind whose push climbs RAIL_OUT only (level 05's
        rail pair across the way at (572, -37.7, -292)). Along one rail of
        a pair (within 15 degrees of its way, ATOP_SIDE of its line) a ball
        rides its top from a floor or on where it goes on as a single rail (level 12's
        ``A02_Rail_03``); from between the rails it reaches a single rail
        only on their middle line, and never the top of one that goes on
        alone, nor from the other rail's top (``_going_on``)."""
        rail = self.span | self.paired
        axes = self.rail_axes
        one = rail[a] != rail[b]
        r = np.where(rail[a], a, b)
        d = self.points[b][:, (0, 2)] - self.points[a][:, (0, 2)]
        along = np.abs((d * axes[r]).sum(axis=1))
        side = np.abs(d[:, 0] * axes[r, 1] - d[:, 1] * axes[r, 0])
        level = np.abs(self.points[b, 1] - self.points[a, 1]) <= 0.2
        onto = ~rail[a] & self.span[b] & (self.points[a, 1] >= self.points[b, 1] - 0.2)
        straight = along >= RAIL_END * np.linalg.norm(d, axis=1)
        ahead = straight | (side <= RAIL_SIDE)
        other = np.where(rail[a], b, a)
        single = self._single_rails()
        going = self._going_on(a, b, single, straight | ~self.paired[r] | (side <= RAIL_SIDE))
        atop = self.paired[r] & straight & (side <= ATOP_SIDE) & ~self.span[other]         # along one rail of a pair
        floor = np.flatnonzero(atop & ~self.rail[other])
        atop[floor] = self._past_end(r[floor], other[floor])                 # from a floor past its end
        atop &= ~self.rail[other] | going[r]                                 # on along it where it goes on alone
        ok = ~one | (~self.paired[r] & ahead & ~(single[other] & (side > RAIL_SIDE))) | onto | atop
        across = self.paired[a] & self.paired[b] & (side > RAIL_SIDE)   # from one rail of a pair to the other
        ok &= ~((self.span[a] & going[b]) | (self.span[b] & going[a]) | (across & (going[a] | going[b])))
        onward = single[b] & (along >= side)                           # off a pair's end onto its rail going on
        return ok, ~ok & self.span[a] & ~rail[b] & ~onward & level

    def _beside_rails(self, a, b) -> np.ndarray:
        """Per link a -> b: how far b lies beside the line of the rail pair
        whose midpoint a is (0 where a is none). The rails hold a ball on
        their line to their end, so off it only its push carries it aside
        while it falls: level 06's wood ball, off ``A_03_Rail_02``'s start
        at 7 units/s toward a floor 6 down and 5.2 beside the rails' line
        (its push: 0.75 of the fall), struck the channel's end and fell.
        A landing on a lower pair's rail top counts from that pair's middle
        (_landing_middles): the lower rails catch the ball between them
        (level 03's pair ending at x 1447.9 over the pair 5 lower in line
        with it, its rails' tops 1.8 aside: beyond stone's 1.5 of push
        and ASIDE_SLACK, its sector 4 had no route)."""
        d = self._landing_middles(b)[:, (0, 2)] - self.points[a][:, (0, 2)]
        axes = self.rail_axes[a]
        return np.where(self.span[a], np.abs(d[:, 0] * axes[:, 1] - d[:, 1] * axes[:, 0]), 0.0)

    def _landing_middles(self, b) -> np.ndarray:
        """Per node b: where a ball landing there comes to rest across: the
        nearest midpoint of its rail pair within SPAN_MID / 2 + 0.5 for a
        pair's rail top (a ball coming down on a pair drops between its
        rails), else b itself."""
        out = self.points[b].copy()
        mids = np.flatnonzero(self.span)
        top = np.flatnonzero(self.paired[b])
        if len(mids) and len(top):
            d, i = cKDTree(self.points[mids]).query(out[top], distance_upper_bound=SPAN_MID / 2.0 + 0.5)
            found = np.isfinite(d)
            out[top[found]] = self.points[mids[i[found]]]
        return out

    def _past_end(self, r, f) -> np.ndarray:
        """For rail nodes ``r`` and floor nodes ``f`` on their line: is ``f``
        past the rail's end (no rail's node within EDGE_FIND of the point
        EDGE_FIND from ``r`` toward ``f``), not beside the rail?"""
        tops = self.points[self.rail & ~self.span]
        if not len(r) or not len(tops):
            return np.zeros(len(r), bool)
        way = self.points[f] - self.points[r]
        way[:, 1] = 0.0
        way /= np.maximum(np.linalg.norm(way, axis=1), 1e-9)[:, None]
        d, _ = cKDTree(tops).query(self.points[r] + EDGE_FIND * way, distance_upper_bound=EDGE_FIND)
        return ~np.isfinite(d)

    def _single_rails(self) -> np.ndarray:
        """Per node: is it on a rail's top with no rail beside it (a rail's
        node within EDGE_FIND of the points SPAN_MID across its way, its
        way the main axis of the rail's nodes within EDGE_PROBE, and about
        level: a pair's rails, whether the map paired the node or not), on
        a stretch of such nodes RAIL_ALONE long at least?"""
        top = np.flatnonzero(self.rail & ~self.span)
        single = np.zeros(len(self.points), bool)
        if not len(top):
            return single
        p = self.points[top]
        flat = cKDTree(p[:, (0, 2)])
        across = np.zeros((len(top), 2))
        for k, near in enumerate(flat.query_ball_point(p[:, (0, 2)], EDGE_PROBE)):
            d = p[near][:, (0, 2)] - p[near][:, (0, 2)].mean(axis=0)
            u = np.linalg.eigh(d.T @ d)[1][:, -1] if len(near) > 1 else np.array([1.0, 0.0])
            across[k] = (-u[1], u[0])
        beside = np.zeros(len(top), bool)
        for sign in (1.0, -1.0):
            _, i = flat.query(p[:, (0, 2)] + sign * SPAN_MID * across, k=4, distance_upper_bound=EDGE_FIND)
            found = i < len(top)
            beside |= (found & (np.abs(p[np.minimum(i, len(top) - 1), 1] - p[:, 1, None]) <= 0.5)).any(axis=1)
        alone = top[~beside]
        if not len(alone):
            return single
        pairs = cKDTree(self.points[alone]).query_pairs(REACH, output_type="ndarray")
        _, label = connected_components(coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])),
                                                   shape=(len(alone), len(alone))), directed=False)
        for k in np.unique(label):                 # a stretch of RAIL_ALONE at least (not a pair's stray node)
            q = self.points[alone[label == k]][:, (0, 2)]
            single[alone[label == k]] = float(np.linalg.norm(q.max(axis=0) - q.min(axis=0))) >= RAIL_ALONE
        return single

    def _going_on(self, a, b, single, along) -> np.ndarray:
        """Per node: is it on the top of a rail of a pair that goes on as a
        single rail (linked a -> b along one rail, ``along``, to a node of
        ``single``)? A ball between the rails cannot climb onto one (from
        its rest between them, its centre 0.9 above their tops and 1.8 off
        the near one's top edge, a push of g tan 62 degrees, 37 units/s^2,
        more than any kind's F / m: paper 21.5; level 12's ``A02_Rail_03``
        goes on from its pair's end as a single rail): it rides that rail
        from a floor at the pair's start."""
        n = len(self.points)
        same = self.rail[a] & self.rail[b] & along
        _, label = connected_components(coo_matrix((np.ones(int(same.sum())), (a[same], b[same])), shape=(n, n)),
                                        directed=False)
        going = np.zeros(label.max() + 1, bool)
        going[label[single]] = True
        return going[label] & self.paired

    def _stretches(self, a, b, limit: float):
        """Per node steeper than ``limit``: the highest and the lowest node of
        the stretch of such nodes it is on (linked by the links a -> b);
        -inf and inf for the others. A rail's faces are no stretch (a tube's
        facets: level 02's rail along its humps joined them all into one 12.6
        high)."""
        steep = (self.slope > limit) & ~self.paired & ~self.span
        both = steep[a] & steep[b]
        n = len(self.points)
        _, label = connected_components(coo_matrix((np.ones(int(both.sum())), (a[both], b[both])), shape=(n, n)),
                                        directed=False)
        y = self.points[:, 1]
        top, bottom = np.full(n, -np.inf), np.full(n, np.inf)
        np.maximum.at(top, label[steep], y[steep])
        np.minimum.at(bottom, label[steep], y[steep])
        return np.where(steep, top[label], -np.inf), np.where(steep, bottom[label], np.inf)

    def _steep_height(self, a, b, limit: float) -> np.ndarray:
        """Per node steeper than ``limit``: the height of the steep ground a
        ball climbs through it, from the lowest node reached from it going
        only down to the highest going only up, by links a -> b between
        nodes that steep; 0 for the others. Not its whole stretch
        (_stretches): level 05's stone pad lies east of a hump 1.2 high
        whose faces, joined to the sector's other steep nodes through nodes
        at like heights, made one stretch of 548 nodes 38.5 high, more
        than stone's MOMENTUM_RISE (a stone ball from rest on the pad,
        pushed west, crosses the hump: measured), and the stone ball born
        there had no way off its island."""
        y = self.points[:, 1]
        steep = (self.slope > limit) & ~self.paired & ~self.span
        both = steep[a] & steep[b] & (y[b] > y[a])
        low, high = a[both], b[both]
        top, bottom = np.where(steep, y, -np.inf), np.where(steep, y, np.inf)
        while True:                          # heights rise along each link: the relaxation ends
            was = top.copy(), bottom.copy()
            np.maximum.at(top, low, top[high])
            np.minimum.at(bottom, high, bottom[low])
            if np.array_equal(was[0], top) and np.array_equal(was[1], bottom):
                return np.where(steep, top - bottom, 0.0)

    def _rides(self, a, b):
        """(from, to) of the rides (both ways): from a node at the top of a
        face steeper than the weakest push holds a ball on and higher than the
        lowest MOMENTUM_RISE (within RIDE_TOP of its stretch's highest; links
        a -> b) straight over a valley to the top of another such face more
        than REACH and at most RIDE_REACH away, at most RIDE_RISE higher, the floor under the whole way (a node within
        EDGE_FIND of every point of it, none above the higher top) and the
        valley 1 to RIDE_DIP below the lower top: the ball takes the rise on
        the speed of the fall before it, its push on (level 02's wooden humps,
        ridden from their south end)."""
        p = self.points
        top, bottom = self._stretches(a, b, min(self.climb.get(k, CLIMB) for k in KIND_NAMES))
        tall = top - bottom > min(MOMENTUM_RISE.values())
        tops = np.flatnonzero(tall & (p[:, 1] >= top - RIDE_TOP))
        none = np.zeros(0, int)
        pairs = (cKDTree(p[tops][:, (0, 2)]).query_pairs(RIDE_REACH, output_type="ndarray") if len(tops) > 1
                 else np.zeros((0, 2), int))
        ra, rb = tops[pairs[:, 0]], tops[pairs[:, 1]]
        flat = np.hypot(p[ra, 0] - p[rb, 0], p[ra, 2] - p[rb, 2])
        keep = (flat > REACH) & (np.abs(p[ra, 1] - p[rb, 1]) <= RIDE_RISE)
        ra, rb = ra[keep], rb[keep]
        if not len(ra):
            return none, none
        high, low = np.maximum(p[ra, 1], p[rb, 1]), np.minimum(p[ra, 1], p[rb, 1])
        ok, dip = np.ones(len(ra), bool), np.full(len(ra), np.inf)
        flat_tree = self.flat_tree
        for t in np.linspace(0.0, 1.0, int(math.ceil(RIDE_REACH / MERGE)) + 1)[1:-1]:
            q = p[ra][:, (0, 2)] * (1.0 - t) + p[rb][:, (0, 2)] * t
            d, i = flat_tree.query(q, k=4, distance_upper_bound=EDGE_FIND)
            found = np.isfinite(d)
            y = np.where(found, p[np.minimum(i, len(p) - 1), 1], np.nan)
            off = found & ((y > high[:, None] + 0.15) | (y < low[:, None] - RIDE_DIP))
            ok &= found.any(axis=1) & ~off.any(axis=1)
            dip = np.minimum(dip, np.nanmin(np.where(found, y, np.inf), axis=1))
        ok &= dip <= low - 1.0
        return np.r_[ra[ok], rb[ok]], np.r_[rb[ok], ra[ok]]

    def _rise(self, a, b) -> np.ndarray:
        """How much higher the ball rests at b than at a: a floor's height
        difference, less SPAN_DIP from a rail pair's midpoint to a floor off
        it (and back)."""
        rail = self.span | self.paired
        off = (self.span[a] & ~rail[b]) | (self.span[b] & ~rail[a])
        return self.points[b, 1] - self.points[a, 1] - SPAN_DIP * off * (self.span[b].astype(float) - self.span[a])

    def _over_rail(self, a, b) -> np.ndarray:
        """For links a -> b: between two rail pairs' midpoints, does the way
        pass within RAIL_CROSS of a rail's top node about as high as either
        end's (FLIGHT_LEVEL)? Between a midpoint and a rail's top node, is
        that rail one between two gaps (_between_gaps)? A ball resting between two rails is held by both:
        it does not hop over one into the next gap (level 03's switchback
        A02_Rail_06, rails 3.5 to 4 apart: the stone ball landing in its
        middle gap was routed over the rail beside it into the pair that
        goes on, and stuck against it)."""
        out = np.zeros(len(a), bool)
        tops = np.flatnonzero(self.rail & ~self.span)
        check = np.flatnonzero(self.span[a] & self.span[b])
        if len(tops) and len(check):
            tree = cKDTree(self.points[tops][:, (0, 2)])
            pa, pb = self.points[a[check]], self.points[b[check]]
            for t in np.linspace(0.2, 0.8, 7):
                q = pa * (1.0 - t) + pb * t
                d, i = tree.query(q[:, (0, 2)], k=4, distance_upper_bound=RAIL_CROSS)
                y = self.points[tops[np.minimum(i, len(tops) - 1)], 1]
                level = (np.abs(y - pa[:, 1, None]) <= FLIGHT_LEVEL) | (np.abs(y - pb[:, 1, None]) <= FLIGHT_LEVEL)
                out[check] |= (np.isfinite(d) & level).any(axis=1)
        top = self.rail & ~self.span
        onto = np.flatnonzero((self.span[a] & top[b]) | (top[a] & self.span[b]))
        if len(onto):
            out[onto] = self._between_gaps(np.where(self.span[a[onto]], b[onto], a[onto]))
        return out

    def _between_gaps(self, tops) -> np.ndarray:
        """Per rail top node: does it lie between two gaps, with midpoints
        within SPAN_MID / 2 + 0.5 and FLIGHT_LEVEL of its height on both
        sides (two whose ways from it are more than 120 degrees apart)?"""
        mids = np.flatnonzero(self.span)
        tree = cKDTree(self.points[mids])
        out = {}
        for r in np.unique(tops):
            u = self.points[mids[tree.query_ball_point(self.points[r], SPAN_MID / 2.0 + 0.5)]] - self.points[r]
            u = u[np.abs(u[:, 1]) <= FLIGHT_LEVEL][:, (0, 2)]
            u /= np.maximum(np.linalg.norm(u, axis=1), 1e-9)[:, None]
            out[r] = bool(((u @ u.T) < -0.5).any())
        return np.array([out[r] for r in tops], bool)

    def _sunk_step(self, a, b, rise) -> np.ndarray:
        """Links a -> b between a sunk body's top and a floor (neither a
        rail pair's) beside it, both no steeper than CLIMB, at most SUNK_STEP
        apart in height: every kind rolls over that step."""
        flat = (self.slope[a] <= CLIMB) & (self.slope[b] <= CLIMB) & ~self.span[a] & ~self.span[b]
        return (self.sunk[a] != self.sunk[b]) & flat & (np.abs(rise) <= SUNK_STEP)

    def _faced_step(self, a, b) -> np.ndarray:
        """For links a -> b: is it a step from a rail pair (its midpoint or a
        rail's top) up onto a floor with a node steeper than CLIMB within
        BALL_RADIUS across of ``b``, above the ball's centre at ``a`` and
        below its top? The ball rolls up an edge it meets below its centre,
        or a ramp it climbs; a steep face standing above its centre is a
        wall (level 12's ``A04_Floor_03`` pokes humps into ``A04_Rail_02``'s
        gap, faces rising 1.0 to 1.7 per unit to 3.2 over the rails' tops:
        the map stepped from the midpoints onto their feet, 0.4 above the
        rails' tops, and the paper ball stuck against them on every try)."""
        floor = ~(self.span | self.rail)
        step = np.flatnonzero((self.span | self.paired)[a] & floor[b] & (self.points[b, 1] > self.points[a, 1]))
        out = np.zeros(len(a), bool)
        if not len(step):
            return out
        centre = self._centre(a[step])[:, 1]
        for k, near in enumerate(self.flat_tree.query_ball_point(self.points[b[step]][:, (0, 2)], BALL_RADIUS)):
            y = self.points[near, 1]
            out[step[k]] = bool(((self.slope[near] > CLIMB) & (y > centre[k]) & (y < centre[k] + BALL_RADIUS)).any())
        return out

    def _span_steps(self) -> np.ndarray:
        """Pairs (midpoint, floor node) of a rail pair's midpoints and the
        nodes off the rails more than REACH and at most SPAN_REACH apart: a
        ball rolls over the near rail between them (_along_rails decides
        which way)."""
        mids = np.flatnonzero(self.span)
        off = ~(self.span | self.paired)
        steps = [(m, j) for m, near in zip(mids, self.tree.query_ball_point(self.points[mids], SPAN_REACH))
                 for j in near if off[j] and np.linalg.norm(self.points[j] - self.points[m]) > REACH]
        return np.array(steps, dtype=int).reshape(-1, 2)

    def _graph(self):
        """The sparse matrix of links between (node, kind) states: state = kind * n + node."""
        n, p = len(self.points), self.points
        pairs = np.r_[self.tree.query_pairs(REACH, output_type="ndarray"), self._span_steps()]
        a, b = pairs[:, 0], pairs[:, 1]
        flat = np.hypot(p[a, 0] - p[b, 0], p[a, 2] - p[b, 2])
        rise = np.abs(self._rise(a, b))
        slope = np.where(self.span, CLIMB, self.slope)              # a midpoint's slope: its rails', unknown
        rail = self.span | self.paired
        off = (self.span[a] & ~rail[b]) | (self.span[b] & ~rail[a])  # a rail pair's midpoint and a floor: a step
        ok = ((((rise <= CLIMB * flat + 0.15)                         # steeper only up a floor as steep
                | (rise <= np.minimum(np.minimum(slope[a], slope[b]), STEEPEST) * flat + 0.15))
               & ((rise <= STEEP[0]) | (flat <= STEEP[1]) | (self.span[a] & self.span[b]))
               & (rise <= np.maximum(slope[a], slope[b]) * flat + 0.15))
              | (off & (rise <= SPAN_DIP + 0.5))
              | self._sunk_step(a, b, rise))
        a, b = a[ok], b[ok]
        ok = ~self._walled(a, b) & ~self._through_sides(a, b) & ~self._over_rail(a, b)
        a, b = np.r_[a[ok], b[ok]], np.r_[b[ok], a[ok]]
        ok = ~self._faced_step(a, b)
        a, b = a[ok], b[ok]
        self.rail_axes = self._rail_axes()
        ok, out = self._along_rails(a, b)
        ok |= out
        drop_a, drop_b = self._drops()
        dropped = np.r_[np.zeros(int(ok.sum()), bool), np.ones(len(drop_a), bool)]
        out = np.r_[out[ok], np.zeros(len(drop_a), bool)]
        a, b = np.r_[a[ok], drop_a], np.r_[b[ok], drop_b]
        length = np.linalg.norm(p[a] - p[b], axis=1) * (1.0 + EDGE_COST * self.empty_sides[b]
                                                        + PAIRED_COST * self.paired[b])
        rise = self._rise(a, b)
        flat = np.hypot(p[a, 0] - p[b, 0], p[a, 2] - p[b, 2])
        aside = self._beside_rails(a, b) * dropped
        ride_a, ride_b = self._rides(a[~dropped], b[~dropped])
        leap_a, leap_b, leaps = self._leaps()
        self.leaps = frozenset(zip(leap_a.tolist(), leap_b.tolist()))
        self.rides = frozenset(zip(ride_a.tolist(), ride_b.tolist())) | self.leaps
        ride_cost = np.linalg.norm(p[ride_a] - p[ride_b], axis=1)
        ride_ok = ride_kinds(self, ride_a, ride_b)
        rows, cols, costs = [], [], []
        for k, kind in enumerate(KIND_NAMES):
            limit = self.climb.get(kind, CLIMB)
            held = ((self.slope[b] <= limit)               # its push holds it there (in a gutter: along it),
                    | ((self.gutter[b] <= limit) & (rise <= limit * flat + 0.15)))   # or its speed takes it up
            rushed = (self.slope[b] <= STEEPEST) & (self._steep_height(a, b, limit)[b] <= MOMENTUM_RISE[kind])
            flies = flat <= np.maximum(DROP_REACH, self.flights[kind].reach(-rise, JUMP_SPEED))
            flies &= aside <= self.flights[kind].reach(-rise) + ASIDE_SLACK     # off a rail pair's end: pushed aside
            landed = np.flatnonzero(dropped & flies)
            flies[landed] = ~overruns(self, a[landed], b[landed], kind)
            up = np.where(dropped, flies,
                          (rise <= 0.05) | (held & (rise <= limit * flat + 0.15))        # it rolls up
                          | (rushed & (rise <= STEEPEST * flat + 0.15)) | self._sunk_step(a, b, rise))
            up &= ~out | (limit >= RAIL_OUT)                # out of a rail pair sideways
            up &= self.side_need[b] <= self.holds[kind]     # beside rails: its push holds it there
            up &= (self.trap_kind[b] < 0) | (self.trap_kind[b] == k)    # a trap pad turns it and it rolls off
            beside = np.zeros(len(a))
            if kind == "paper":                             # the fan lifts it: a way only by the lift
                up &= ~self._through_columns(a, b, FAN_CLEAR)
                beside = FAN_BESIDE_COST * self._through_columns(a, b, FAN_CLEAR + FAN_MARGIN)
            to_kind = np.where(self.pad_kind[b] >= 0, self.pad_kind[b], k)      # a pad turns the ball
            rides = ride_ok[:, k]                           # no other kind's pad under its way
            rows += [k * n + a[up], k * n + ride_a[rides]]
            ride_kind = np.where(self.pad_kind[ride_b] >= 0, self.pad_kind[ride_b], k)[rides]
            cols += [to_kind[up] * n + b[up], ride_kind * n + ride_b[rides]]
            costs += [length[up] + beside[up], ride_cost[rides]]
            leap_kind = np.where(self.pad_kind[leap_b] >= 0, self.pad_kind[leap_b], k)[leaps[:, k]]
            rows.append(k * n + leap_a[leaps[:, k]])
            cols.append(leap_kind * n + leap_b[leaps[:, k]])
            costs.append(np.linalg.norm(p[leap_a] - p[leap_b], axis=1)[leaps[:, k]] + LEAP_COST)
        paper = KIND_NAMES.index("paper")
        for below, above in self.lifts:
            if len(below) and len(above):
                fa, fb = np.repeat(below, len(above)), np.tile(above, len(below))
                rows.append(paper * n + fa)
                cols.append(paper * n + fb)
                costs.append(np.full(len(fa), FAN_COST))
        size = self.kinds * n
        return coo_matrix((np.concatenate(costs), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(size, size)).tocsr()

    def add_links(self, rows, cols, costs) -> None:
        """Adds links (graph states ``rows`` -> ``cols``, kind * n + node, each
        at its cost) made after the graph: hops, passes, curls."""
        extra = coo_matrix((np.asarray(costs, float), (np.asarray(rows), np.asarray(cols))), shape=self.graph.shape)
        self.graph = (self.graph + extra).tocsr()

    def closed(self, nodes, kinds=KIND_NAMES):
        """The graph without the links into or out of ``nodes``, for ``kinds``
        (by default every kind)."""
        shut = np.zeros(len(self.points), bool)
        shut[list(nodes)] = True
        shut = np.concatenate([shut & (k in kinds) for k in KIND_NAMES])
        g = self.graph.tocoo()
        keep = ~shut[g.row] & ~shut[g.col]
        return coo_matrix((g.data[keep], (g.row[keep], g.col[keep])), shape=g.shape).tocsr()

    def route_to(self, goal, radius: float, obstacles=(), kinds=KIND_NAMES, closed=()):
        """A route to the nodes whose ball centre is within ``radius`` of ``goal``
        (the nearest node when none is), arriving as one of ``kinds``:
        ``Route`` of costs and next nodes.
        ``obstacles``: centres of loose props (boxes, balls); a link into a
        node within ``OBSTACLE_RADIUS`` of one costs ``OBSTACLE_COST`` more,
        times (the strongest push / the kind's push) squared: the route goes
        round a prop where it can, pushes it where it must, as the strongest
        kind when a transformer is on the way. No link into or out of the
        nodes ``closed``."""
        centres = self.points + (0.0, BALL_RADIUS, 0.0)
        near = np.flatnonzero(np.linalg.norm(centres - np.asarray(goal), axis=1) <= radius)
        if len(near) == 0:
            near = np.array([int(np.argmin(np.linalg.norm(centres - np.asarray(goal), axis=1)))])
        n = len(self.points)
        targets = np.concatenate([KIND_NAMES.index(k) * n + near for k in kinds])
        graph = self.closed(closed) if closed else self.graph
        if len(obstacles):
            near = np.zeros(n)
            for centre in obstacles:
                near[self.tree.query_ball_point(np.asarray(centre) - (0.0, BALL_RADIUS, 0.0), OBSTACLE_RADIUS)] = 1.0
            push = np.array([BALL_KINDS[k].force for k in KIND_NAMES])
            weight = (push.max() / push) ** 2
            graph = graph.copy()
            graph.data = graph.data + OBSTACLE_COST * (weight[:, None] * near).ravel()[graph.indices]
        cost, pred, _ = dijkstra(graph.T, indices=targets, min_only=True, return_predecessors=True)
        return Route(self, cost, pred, np.asarray(goal, float))


class Route:
    """Costs to one goal: ``cost[state]`` and ``next[state]`` (the state after
    it on the cheapest way; -9999 at the goal and where the goal is out of reach)."""

    def __init__(self, walk: WalkMap, cost, nxt, goal):
        self.walk, self.cost, self.next, self.goal = walk, cost, nxt, goal

    def state(self, position, kind: str) -> int:
        """The (node, kind) state of a ball centre at ``position``: among its
        nearest nodes below it, the one nearest, preferring one with a way to the goal."""
        walk = self.walk
        n = len(walk.points)
        k = KIND_NAMES.index(kind)
        floor = np.asarray(position, float) - (0.0, BALL_RADIUS, 0.0)
        d, i = walk.tree.query(floor, k=8, distance_upper_bound=3.0 * REACH)
        i = i[np.isfinite(d)]
        if len(i) == 0:
            _, i = walk.tree.query(floor, k=1)
            i = np.array([i])
        states = k * n + i
        reach = np.isfinite(self.cost[states])
        return int(states[reach][0] if reach.any() else states[0])

    def ahead(self, state: int, distance: float) -> list:
        """The states from ``state`` along the route, about ``distance`` of path."""
        walk, n = self.walk, len(self.walk.points)
        out, gone = [state], 0.0
        while gone < distance:
            nxt = self.next[out[-1]]
            if nxt < 0:
                break
            gone += float(np.linalg.norm(walk.points[nxt % n] - walk.points[out[-1] % n]))
            out.append(int(nxt))
        return out

    def point(self, state: int) -> np.ndarray:
        """The ball centre's place over a state's node."""
        return self.walk.points[state % len(self.walk.points)] + (0.0, BALL_RADIUS, 0.0)

    def kind(self, state: int) -> str:
        return KIND_NAMES[state // len(self.walk.points)]
