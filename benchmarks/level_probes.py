"""The probes of benchmarks/levels.py: a probe per mechanism of the original
Ballance levels that prints a number (issue 40, item 2).

Per level: load seconds, entities, the sectors, then each probe over every
instance of its mechanism, sector by sector (the sector made current as a
checkpoint would: the old one deactivated, the new one activated):

- **rest**: no ball in play, each sector's props (``P_Box``, ``P_Ball_*``)
  for ``REST_SECONDS`` from its activation: how far each moves; those that
  move more than ``REST_LIMIT`` are named (a prop should wait where it was
  authored until something touches it).
- **fans**: a paper ball put at rest in each fan's column (``P_Modul_18``),
  its base; the highest its centre gets in ``FAN_SECONDS``, minus the
  column's top (16 above its base): about 0 or more when the fan lifts
  paper to the top, about -16 when it does not lift it at all.
- **transformers**: a ball of another kind dropped onto each pad (its centre
  a ball's radius above the floor under the pad, or above the pad without a
  floor there); the kind the player has ``TRAFO_SECONDS`` later, against
  the pad's.
- **boxes**: a stone ball put beside each ``P_Box`` and pushed toward it by
  the navigation's force (0.92 per PSI) for ``PUSH_SECONDS``; how far the box
  moves horizontally (the best of the four sides).
- **stones**: each falling stone (``P_Modul_34``: a stone on a vertical
  slider resting on a crate): first ``REST_SECONDS`` with no ball in play
  (the stone should not drop), then a stone ball put on the floor
  ``STONE_RUN_UP`` from the crate and pushed across it by the navigation's
  force for ``STONE_SECONDS`` (the best of the four sides; a ball pushing
  from rest against the crate does not shift it and the stone's weight): how far the stone drops,
  against the crate's height (about the crate's height, and the little gap
  under it, when pushing the crate out lets the stone fall into its place).
- **extras**: a ball put on the floor under each extra point and life (its
  centre a radius above the floor), as one rolling over it: does the level
  pick it up? Those placed in the air (above a gap, a fan, a jump): a ball
  dropped from ``DROP_HEIGHT`` above it, falling through it.
- **finish**: in the last sector, once the level plays, a wood ball put on
  the floor the first of ``FINISH_RUN_UPS`` with a floor beyond the balloon's far bridge hinge (to the
  world) and pushed toward the platform by its navigation force for
  ``FINISH_SECONDS``: the seconds until the level finishes (the ball within
  1 of the platform), or its distance from the platform when it does not.
  Run last: the level is finished after it.

The probes switch the level's death boxes and checkpoints off, so a ball
that falls is measured rather than respawned and no probe ends a sector.

    python benchmarks/levels.py --game DIR --probes [rest fans trafos boxes stones extras] [--levels 1 4 7]

``routes`` (``benchmarks/levels.py --routes``) is no mechanism's probe but
the autopilot's map of the level (behaviors/ballance/autopilot_map.py): per
sector, the cost of the cheapest route from its reset point to its goal
over the ball's kinds, or, when the map has none, the reached node nearest
the goal and how far from it: where a map or a mechanism stops the way.
"""

from __future__ import annotations

import time

import math

import numpy as np
from scipy.sparse.csgraph import dijkstra

import scenes
from bbglue import blocks
from behaviors import manager_of
from behaviors.ballance import player_of
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.level import FINISHED, PLAYING, level_behavior
from behaviors.ballance.level_meaning import BALLOON, MEANING, PLATE_HINGES
from behaviors.ballance.modules import Fan, falling_stones
from behaviors.ballance.values import BALL_KINDS, BALL_RADIUS, KIND_NAMES
from scenes.virtools import game_level

FRAME_MS = 1000.0 / 60.0
FAN_SECONDS = 3.0
TRAFO_SECONDS = 3.0          # the swap takes 2.5 s (TRANSFORMER_NEW_S)
PUSH_SECONDS = 2.0
REST_SECONDS = 5.0
REST_LIMIT = 10.0            # more than settling onto the floor from the authored gap and rolling a little
UPRIGHT = ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0))      # a spawned ball's (dir, up): the world's axes
PROP_GROUPS = ("P_Box", "P_Ball_Wood", "P_Ball_Stone", "P_Ball_Paper")
STONE_SECONDS = 6.0
STONE_RUN_UP = 6.0           # between the ball's surface and the crate's side at the start
PUSH_GAP = 1.0               # between the ball's surface and the box's side at the start
FINISH_RUN_UPS = (6.0, 4.0, 2.0)     # from the far bridge hinge back along the floor: the first with a floor
FINISH_SECONDS = 10.0
FAR_HINGE = MEANING.balloon + next(p.suffix for p in BALLOON.parts if p.role == PLATE_HINGES[-1])
DROP_HEIGHT = 6.0            # an extra not picked up from the floor: a ball dropped from this high above it
FLOOR_GROUPS = ("Phys_Floors", "Phys_FloorRails")
TRAFO_GROUPS = {"paper": "P_Trafo_Paper", "wood": "P_Trafo_Wood", "stone": "P_Trafo_Stone"}
PROBES = ("rest", "fans", "trafos", "boxes", "stones", "extras", "finish")


class Floor:
    """The level's floor and rail triangles, for the height under a point."""

    def __init__(self, ctx):
        tris = []
        for name in FLOOR_GROUPS:
            for e in (ctx.get(name) if name in ctx else ()):
                if e.mesh is None or not len(e.mesh.faces):
                    continue
                m = e.get_world_matrix().as_array()
                w = np.asarray(e.mesh.vertices, np.float64) @ m[:3, :3] + m[3, :3]
                tris.append(w[np.asarray(e.mesh.faces)])
        self.tris = np.concatenate(tris) if tris else np.zeros((0, 3, 3))

    def below(self, p):
        """The highest floor height under (x, z) not above p's y, or None."""
        a, b, c = self.tris[:, 0], self.tris[:, 1], self.tris[:, 2]
        x, y, z = p
        d = (b[:, 2] - c[:, 2]) * (a[:, 0] - c[:, 0]) + (c[:, 0] - b[:, 0]) * (a[:, 2] - c[:, 2])
        ok = np.abs(d) > 1e-12
        d = np.where(ok, d, 1.0)
        l1 = ((b[:, 2] - c[:, 2]) * (x - c[:, 0]) + (c[:, 0] - b[:, 0]) * (z - c[:, 2])) / d
        l2 = ((c[:, 2] - a[:, 2]) * (x - c[:, 0]) + (a[:, 0] - c[:, 0]) * (z - c[:, 2])) / d
        l3 = 1.0 - l1 - l2
        h = l1 * a[:, 1] + l2 * b[:, 1] + l3 * c[:, 1]
        hit = ok & (l1 >= -1e-9) & (l2 >= -1e-9) & (l3 >= -1e-9) & (h <= y + 1e-6)
        return float(h[hit].max()) if hit.any() else None


class Probe:
    """One loaded level with its rules made probe-friendly (module docstring)."""

    def __init__(self, game: str, number: int):
        t0 = time.perf_counter()
        self.scene = scenes.load(game_level(game, number))
        self.load_seconds = time.perf_counter() - t0
        self.ctx = self.scene.ctx
        self.frames(1)                                   # the level starts: sector 1 current
        self.level = level_behavior(self.ctx)
        self.level.death_boxes = None
        self.level.checkpoint_entities = []
        self.player = player_of(self.ctx)
        self.floor = Floor(self.ctx)

    def frames(self, n: int) -> None:
        for _ in range(n):
            self.ctx.input_manager.set_keys(())
            self.ctx.process_frame(FRAME_MS)

    def seconds(self, s: float) -> int:
        return int(round(s * 1000.0 / FRAME_MS))

    def enter(self, sector: int) -> None:
        """Make ``sector`` the current one, as a checkpoint does."""
        lv = self.level
        if lv.sector != sector:
            lv.deactivate_sector(lv.sector)
            lv.sector = sector
        lv.reset_sector(sector)

    def members(self, group: str, sector: int) -> list:
        return [e for e in (self.ctx.get(group) if group in self.ctx else ())
                if self.level.sector_of.get(e) == sector]

    def on_floor(self, p):
        """A ball's centre resting on the floor under p (None without a floor)."""
        h = self.floor.below(p)
        return None if h is None else (p[0], h + BALL_RADIUS, p[2])

    # --- the probes ----------------------------------------------------------------------------

    def rest(self, sector: int) -> list:
        """(prop, how far it moved with no ball in play)."""
        props = [e for g in PROP_GROUPS for e in self.members(g, sector)]
        if not props:
            return []
        self.enter(sector)
        self.player.remove()
        start = [e.get_position() for e in props]
        self.frames(self.seconds(REST_SECONDS))
        return [(e.name, float(np.linalg.norm(np.subtract(e.get_position(), p)))) for e, p in zip(props, start)]

    def fans(self, sector: int) -> list:
        """(fan, max rise of the ball's centre above the column's top)."""
        out = []
        for fan in manager_of(self.ctx).find(Fan):
            if self.level.sector_of.get(fan.entity) != sector:
                continue
            self.enter(sector)
            start = fan.entity.transform((0.0, fan.base + BALL_RADIUS, 0.0))
            top = fan.entity.transform((0.0, fan.base + fan.size[1], 0.0))[1]
            self.player.spawn("paper", start, UPRIGHT)        # the hull's turn matters: always the same
            best = start[1]
            for _ in range(self.seconds(FAN_SECONDS)):
                self.frames(1)
                if self.player.ball is not None:
                    best = max(best, self.player.ball.get_position()[1])
            out.append((fan.entity.name, best - top))
        return out

    def trafos(self, sector: int) -> list:
        """(pad, its kind, the kind after the swap)."""
        out = []
        for kind, group in TRAFO_GROUPS.items():
            for pad in self.members(group, sector):
                self.enter(sector)
                x, y, z = pad.get_position()
                start = self.on_floor((x, y + BALL_RADIUS, z)) or (x, y + BALL_RADIUS, z)   # no floor: on the pad
                other = next(k for k in KIND_NAMES if k != kind)
                self.player.spawn(other, start)
                self.frames(self.seconds(TRAFO_SECONDS))
                out.append((pad.name, kind, self.player.kind))
        return out

    def boxes(self, sector: int) -> list:
        """(box, the largest horizontal distance a pushed stone ball moved it)."""
        out = []
        for box in self.members("P_Box", sector):
            best = 0.0
            for d in ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0)):
                self.enter(sector)
                bx, by, bz = box.get_position()
                lo, hi = box.get_bounding_box(local=True)
                half = 0.5 * max(hi[0] - lo[0], hi[2] - lo[2])
                away = half + BALL_RADIUS + PUSH_GAP
                start = self.on_floor((bx - d[0] * away, by + half, bz - d[2] * away))
                if start is None:
                    continue
                self.push("stone", start, d, PUSH_SECONDS)
                x, _, z = box.get_position()
                best = max(best, float(np.hypot(x - bx, z - bz)))
            out.append((box.name, best))
        return out

    def push(self, kind: str, start, direction, seconds: float) -> None:
        """A ball of ``kind`` put at ``start`` and pushed along ``direction`` by
        its navigation force (per PSI) for ``seconds``."""
        self.player.spawn(kind, start)
        push = blocks.set_force(self.ctx, self.player.ball, position=(0.0, 0.0, 0.0),
                                pos_referential=self.player.ball, direction=direction,
                                force_value=BALL_KINDS[kind].force)
        self.frames(self.seconds(seconds))
        push.destroy()

    def stones(self, sector: int) -> list:
        """(module, the stone's drop at rest, its best drop with the crate
        pushed, the crate's height)."""
        out = []
        for stone, crate in falling_stones(self.ctx):
            if self.level.sector_of.get(stone) != sector:
                continue
            self.enter(sector)
            self.player.remove()
            y0 = stone.get_position()[1]
            self.frames(self.seconds(REST_SECONDS))
            rest = y0 - stone.get_position()[1]
            lo, hi = crate.get_bounding_box(local=True)
            best = 0.0
            for d in ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0)):
                self.enter(sector)
                cx, cy, cz = crate.get_position()
                away = 0.5 * max(hi[0] - lo[0], hi[2] - lo[2]) + BALL_RADIUS + STONE_RUN_UP
                start = self.on_floor((cx - d[0] * away, cy, cz - d[2] * away))
                if start is None:
                    continue
                self.push("stone", start, d, STONE_SECONDS)
                best = max(best, y0 - stone.get_position()[1])
            out.append((stone.name.split(".")[0], rest, best, float(hi[1] - lo[1])))
        return out

    def extras(self, sector: int) -> list:
        """(pickup, "floor" when a ball on the floor under it picks it up, else
        "fall" when a ball falling through it does, else "")."""
        out = []
        for group in ("P_Extra_Point", "P_Extra_Life"):
            for e in self.members(group, sector):
                self.enter(sector)
                self.level.collected.pop(e, None)
                start = self.on_floor(e.get_position())
                if start is not None:
                    self.player.spawn("wood", start)
                    self.frames(2)
                if e in self.level.collected:
                    out.append((e.name, "floor"))
                    continue
                x, y, z = e.get_position()
                self.player.spawn("wood", (x, y + DROP_HEIGHT, z))
                for _ in range(self.seconds(1.0)):
                    self.frames(1)
                    if e in self.level.collected:
                        break
                out.append((e.name, "fall" if e in self.level.collected else ""))
        return out

    def finish(self, sector: int) -> list:
        """(balloon, seconds to the finish or None, the ball's distance from the platform)."""
        lv = self.level
        far = f"{lv.finish.name.partition('.')[0]}.{FAR_HINGE}" if lv.finish is not None else ""
        if sector != lv.sector_count or far not in self.ctx:
            return []
        for _ in range(self.seconds(10.0)):
            if lv.flow == PLAYING:
                break
            self.frames(1)
        self.enter(sector)
        goal, hinge = np.array(lv.finish.get_position()), np.array(self.ctx.get(far).get_position())
        d = (goal - hinge) * (1.0, 0.0, 1.0)
        d /= np.linalg.norm(d)
        start = next((s for s in (self.on_floor(tuple(hinge - d * run + (0.0, 2.0 * BALL_RADIUS, 0.0)))
                                  for run in FINISH_RUN_UPS) if s is not None), None)
        if start is None:
            return [(lv.finish.name, None, None)]
        t0 = lv.clock
        self.push("wood", start, tuple(d), FINISH_SECONDS)
        ball = self.player.ball
        gap = float(np.linalg.norm(np.subtract(ball.get_position(), lv.finish.get_position()))) if ball else math.nan
        return [(lv.finish.name, lv.finish_time - t0 if lv.flow == FINISHED else None, gap)]


def report(game: str, number: int, only) -> None:
    p = Probe(game, number)
    lv = p.level
    print(f"level {number:2d}: load {p.load_seconds:.2f} s, {len(p.ctx.entities)} entities, "
          f"{lv.sector_count} sectors", flush=True)
    results = {name: [] for name in only}
    for k in range(1, lv.sector_count + 1):
        for name in only:
            results[name] += [(k,) + r for r in getattr(p, name)(k)]
    if "rest" in results and results["rest"]:
        moved = [f"{n} (S{k}) {m:.1f}" for k, n, m in results["rest"] if m > REST_LIMIT]
        stay = [m for _, _, m in results["rest"] if m <= REST_LIMIT]
        print(f"  rest   {len(stay)}/{len(results['rest'])} props stay within {REST_LIMIT:g}"
              + (f" (the most {max(stay):.1f})" if stay else "")
              + (f"; moved: {', '.join(moved)}" if moved else ""), flush=True)
    if "fans" in results and results["fans"]:
        rises = [r[2] for r in results["fans"]]
        low = [f"{n} (S{k}) {r:+.1f}" for k, n, r in results["fans"] if r < -1.0]
        print(f"  fans   {len(rises)}: rise above the column's top min {min(rises):+.2f} max {max(rises):+.2f}"
              + (f"; short of the top: {', '.join(low)}" if low else ""), flush=True)
    if "trafos" in results and results["trafos"]:
        bad = [f"{n} (S{k}) {kind}->{got}" for k, n, kind, got in results["trafos"] if got != kind]
        print(f"  trafos {len(results['trafos']) - len(bad)}/{len(results['trafos'])} changed the ball"
              + (f"; not: {', '.join(bad)}" if bad else ""), flush=True)
    if "boxes" in results and results["boxes"]:
        moves = [r[2] for r in results["boxes"]]
        still = [f"{n} (S{k})" for k, n, m in results["boxes"] if m < 0.5]
        print(f"  boxes  {len(moves)}: pushed min {min(moves):.2f} max {max(moves):.2f}"
              + (f"; not moved: {', '.join(still)}" if still else ""), flush=True)
    if "stones" in results and results["stones"]:
        drops = [r[3] for r in results["stones"]]
        still = [f"{n} (S{k}) {rest:.1f}" for k, n, rest, _, _ in results["stones"] if rest > 0.5]
        short = [f"{n} (S{k}) {d:.1f} of {h:.1f}" for k, n, _, d, h in results["stones"] if d < h - 0.5]
        print(f"  stones {len(drops)}: dropped min {min(drops):.2f} max {max(drops):.2f} with the crate pushed "
              f"out (crates {min(r[4] for r in results['stones']):.2f} high)"
              + (f"; dropped unpushed: {', '.join(still)}" if still else "")
              + (f"; short: {', '.join(short)}" if short else ""), flush=True)
    if "extras" in results and results["extras"]:
        how = [r[2] for r in results["extras"]]
        missed = [f"{n} (S{k})" for k, n, got in results["extras"] if not got]
        print(f"  extras {len(how) - len(missed)}/{len(how)} picked up ({how.count('floor')} rolling over the "
              f"floor under it, {how.count('fall')} falling through it)"
              + (f"; missed: {', '.join(missed)}" if missed else ""), flush=True)
    for k, n, seconds, gap in results.get("finish", []):
        print(f"  finish {n} (S{k}): " + (f"reached in {seconds:.1f} s" if seconds is not None else
                                         "no floor before its bridge" if gap is None else
                                         f"not reached, the ball {gap:.1f} from it"), flush=True)


def routes(game: str, number: int) -> None:
    """The autopilot's map of the level, sector by sector (module docstring)."""
    t0 = time.perf_counter()
    pilot = Pilot(scenes.load(game_level(game, number)), 0.0)
    walk, n = pilot.map, len(pilot.map.points)
    print(f"level {number:2d}: map {time.perf_counter() - t0:.0f} s, {n} nodes, "
          f"{len(pilot.blockers)} to push (falling stones, sliding gates)", flush=True)
    for k in range(1, pilot.level.sector_count + 1):
        start, route = pilot.level.reset_point(k).get_position(), pilot.route(k)
        cost = min(float(route.cost[route.state(start, kind)]) for kind in KIND_NAMES)
        if math.isfinite(cost):
            print(f"  sector {k}: route, cost {cost:.0f}", flush=True)
            continue
        best = (math.inf, None, "")
        for kind in KIND_NAMES:
            reached = np.flatnonzero(np.isfinite(dijkstra(walk.graph, indices=route.state(start, kind))))
            far = np.linalg.norm(walk.points[reached % n] - route.goal, axis=1)
            i = int(np.argmin(far))
            at = "({:.1f}, {:.1f}, {:.1f})".format(*walk.points[reached[i] % n])
            best = min(best, (float(far[i]), at, KIND_NAMES[reached[i] // n]), key=lambda b: b[0])
        print(f"  sector {k}: no route; the nearest reached {best[1]} as {best[2]}, {best[0]:.0f} from the goal",
              flush=True)
