"""Level flow (glue-and-content 3, "Triggers", with the original's rules; the
table in docs/behaviors.md): sectors, reset points, checkpoints, death boxes,
the death sequence, lives, extra lives and points, fallen props, the finish,
the score.

Triggers have no physics bodies: each frame the ball (the write-back) is
tested against spheres (checkpoint 6.5, extra life 4.5, extra point 3,
finish 1) and its oriented bounding box against the oriented death boxes.

Sectors: sector N starts at "PR_Resetpoint_0N" (sector 1 too; PS_Levelstart
is only the start's decoration) and checkpoint "PC_TwoFlames_0N" ends it: the
numbers in the names give the order. Only the current sector's objects (the
members of its group "Sector_0N") are live: their pickups and scripts run,
and, as in the original's Activate / Deactivate Sector, only its bodies (its
props and module parts) are in the physics world. The physicalized members'
initial conditions are saved at the start; at the first frame every other
sector is deactivated (its bodies unphysicalized, its props hidden), so a
prop of a later sector waits where it was authored. Activating a sector puts
its bodies back at their initial conditions with their joints and springs
(and shows its props); a death activates the current sector again (the
original's teardown and rebuild); a checkpoint deactivates the old sector and
activates the next; the finish is live only in the last sector. The level
broadcasts "Sector Activate" (data: sector), "Sector Reset" (when a sector's
bodies are put back: its wake gates arm again, its forces are made again),
"Sector Deactivate", "Level_Finish" at the finish and "Game Over"; its
sounds are SoundEvents named after the game's Sounds/*.wav (the level
start, a new ball, the fall, a checkpoint, the pickups, the finish's music).

The level's clock stops while the game is paused (``set_paused``, or a time
factor of 0 as the viewer's pause sets): points, the death sequence, pickups'
delays and the end wait all run on it.
"""

from __future__ import annotations

import math

from bbglue import CKGroup, blocks
from bbglue.blocks import Physicalize

from ..api import Behavior, Emitter, manager_of
from ..params import Entity, Group, Param
from ..registry import register
from .balls import distance, player_of
from .boxes import KeptBoxes, box_of, boxes_intersect
from .camera import camera_of
from .values import (BALL_RADIUS, BIG_FLAME_SIZE, BIRTH_S, CHECKPOINT_BIG_FLAME, CHECKPOINT_FLAME_HEIGHT,
                     CHECKPOINT_SMALL_FLAMES, CHECKPOINT_NAME, CHECKPOINT_RADIUS, DEATH_FADE_S,
                     DEATH_HIDE_S, DEATH_REBIRTH_S, DISTANCE, END_WAIT_S, EXTRA_LIFE_DELAY_S, EXTRA_LIFE_RADIUS,
                     EXTRA_POINT_BONUS, EXTRA_POINT_RADIUS, EXTRA_POINT_SATELLITES, FINISH_RADIUS,
                     FINISH_FAR, FINISH_SKY_FADE_S, KIND_NAMES,
                     LAST_LEVEL, LEVELS, MAX_SECTORS, POINT_LOSS_PERIOD, POINT_PERIOD, PROP_FALL_DEPTH, PROP_GROUPS,
                     RESET_POINT_NAME, SATELLITE_BONUS, SECONDS, SECTOR_GROUP_NAME, SOUND_CHECKPOINT, SOUND_FALL,
                     SOUND_FINISH, SOUND_LAST_FINISH, SOUND_LEVEL_START, SOUND_LIFE, SOUND_LIFE_ADDED,
                     SOUND_NEW_BALL, SOUND_POINT, SOUND_SATELLITE, SPARE_LIVES, SPEED, START_BIRTH_S, START_FLAMES,
                     START_POINTS,
                     final_score)

STARTING, PLAYING, DEAD, FINISHED, GAME_OVER = "starting", "playing", "dead", "finished", "game over"


def _name_format(owner: str, param: str, fmt: str) -> str:
    try:
        fmt.format(1)
    except (IndexError, KeyError, ValueError) as exc:
        raise ValueError(f"{owner}: parameter {param!r}: {fmt!r} is not a format of the sector number "
                         f"({exc})") from None
    return fmt


def numbered(ctx, fmt: str) -> list:
    """The entities ``fmt.format(1)``, ``fmt.format(2)``, ... up to the first
    missing one (at most MAX_SECTORS)."""
    out = []
    for k in range(1, MAX_SECTORS + 1):
        name = fmt.format(k)
        if name not in ctx:
            break
        out.append(ctx.get(name))
    return out


class Satellite:
    """A +20 satellite of an extra point, flying to the ball."""

    def __init__(self, position):
        self.position = tuple(position)

    def fly(self, goal, step: float) -> bool:
        """Move ``step`` toward ``goal``; True once within the ball's radius of it."""
        d = distance(self.position, goal)
        if d - step <= BALL_RADIUS:
            return True
        self.position = tuple(self.position[i] + (goal[i] - self.position[i]) * step / d for i in range(3))
        return False


@register("ballance.level")
class Level(Behavior):
    """The level's rules and score; needs a ``ballance.player`` behaviour."""

    level = Param(int, 1, "the level number (final score: 100 x level)", bounds=LEVELS)
    start_kind = Param(str, "", "the first ball's kind (default: the player's start_kind)",
                       choices=("",) + KIND_NAMES)
    reset_points = Param(str, RESET_POINT_NAME, "name of sector N's reset point, a format of N")
    checkpoints = Param(str, CHECKPOINT_NAME, "name of the checkpoint ending sector N, a format of N")
    death_boxes = Param(Group, "DepthTestCubes", "oriented death boxes", optional=True)
    extra_lives = Param(Group, "P_Extra_Life", "extra lives (+1 life)", optional=True)
    extra_points = Param(Group, "P_Extra_Point", "extra points (+100, then six +20 satellites)", optional=True)
    finish = Param(Entity, "PE_Levelende", "the finish trigger (1 around the balloon platform)", optional=True)
    start = Param(str, "PS_Levelstart", "the start's placeholder, or the group holding it: its flames burn")
    sector_groups = Param(str, SECTOR_GROUP_NAME, "name of sector N's group, a format of N")
    prop_groups = Param(str, " ".join(PROP_GROUPS), "groups of the loose props (space-separated)")
    hide_delay = Param(float, DEATH_HIDE_S, "seconds from a death until the ball is hidden", bounds=SECONDS)
    fade_time = Param(float, DEATH_FADE_S, "seconds of the white pulse from the death (up, then down)",
                      bounds=SECONDS)
    rebirth_delay = Param(float, DEATH_REBIRTH_S, "seconds from a death until the new ball's birth",
                          bounds=SECONDS)
    start_delay = Param(float, START_BIRTH_S, "seconds from the level's start until the first ball's birth",
                        bounds=SECONDS)
    birth_delay = Param(float, BIRTH_S, "seconds from a new ball's birth until it is shown and played",
                        bounds=SECONDS)
    extra_life_delay = Param(float, EXTRA_LIFE_DELAY_S, "seconds from an extra life's pickup to the +1",
                             bounds=SECONDS)
    satellite_speed = Param(float, 20.0, "speed of an extra point's satellites toward the ball (not in the spec)",
                            bounds=SPEED)
    satellite_ring = Param(float, 1.5, "radius of the satellites' ring around an extra point (not in the spec)",
                           bounds=DISTANCE)
    end_wait = Param(float, END_WAIT_S, "seconds from the finish to the score count", bounds=SECONDS)
    point_period = Param(float, POINT_LOSS_PERIOD, "seconds per point lost", bounds=POINT_PERIOD)

    def __init__(self, ctx, entity=None, **params):
        super().__init__(ctx, entity, **params)
        for param in ("reset_points", "checkpoints", "sector_groups"):
            _name_format(self.name, param, getattr(self, param))
        if not numbered(ctx, self.reset_points):
            raise ValueError(f"{self.name}: no start: no reset point {self.reset_points.format(1)!r}")
        self.paused = False
        self.records = {}
        self.kept_boxes = KeptBoxes()
        self._init_state()

    def _init_state(self) -> None:
        self.flow = STARTING
        self.points = START_POINTS
        self.lives = SPARE_LIVES
        self.sector = 1
        self.sector_kind = None
        self.final = None
        self.fade = None
        self.clock = 0.0
        self._point_clock = 0.0
        self._due = []
        self.collected = {}
        self.satellites = []
        self.death_time = None
        self.finish_time = None
        self.birth_time = None
        self._begun = False

    # --- the level's clock -------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """Paused through the API, or the physics time factor is 0 (Ballance's pause)."""
        return self.paused or self.ctx.physics.time_factor == 0.0

    def at(self, delay: float, fn) -> None:
        """``fn()`` once the level's clock has run ``delay`` seconds more."""
        self._due.append((self.clock + delay, fn))

    def _tick(self, dt: float) -> None:
        self.clock += dt
        if self.flow == PLAYING:
            self._point_clock += dt
            while self._point_clock >= self.point_period:
                self._point_clock -= self.point_period
                self.points = max(self.points - 1, 0)
        self._run_due()

    def _run_due(self) -> None:
        """The calls due by now, and what they schedule at no delay."""
        while True:
            due = [d for d in self._due if d[0] <= self.clock]
            if not due:
                return
            self._due = [d for d in self._due if d[0] > self.clock]
            for _, fn in due:
                fn()

    # --- sectors -------------------------------------------------------------------------

    @property
    def sector_count(self) -> int:
        return max(len(self.reset_entities), len(self.checkpoint_entities) + 1)

    def on_start(self) -> None:
        """Find the reset points and checkpoints; save the initial conditions of
        each sector's bodies and the loose props."""
        self.reset_entities = numbered(self.ctx, self.reset_points)
        self.checkpoint_entities = numbered(self.ctx, self.checkpoints)
        self.sector_of = {}
        self.sector_bodies = {}
        for k in range(1, self.sector_count + 1):
            name = self.sector_groups.format(k)
            group = self.ctx.get(name) if name in self.ctx else None
            members = group.entities if isinstance(group, CKGroup) else []
            for e in members:
                self.sector_of.setdefault(e, k)
            self.sector_bodies[k] = [e for e in members if self.ctx.physics.is_physicalized(e)]
        self.props = [e for name in self.prop_groups.split() if name in self.ctx
                      for e in self.ctx.get(name) if self.ctx.physics.is_physicalized(e)]
        self.prop_set = set(self.props)
        self.records = {}
        for e in dict.fromkeys(self.props + [e for b in self.sector_bodies.values() for e in b]):
            self.save_ic(e)
            self.records[e] = self.ctx.physics.record_of(e)
        self.flames = self._flame_frames()
        boxes = [box_of(b) for b in (self.death_boxes or ())]
        self.fall_limit = (min(b.centre[1] - sum(b.half[i] * abs(b.axes[i][1]) for i in range(3)) for b in boxes)
                           - PROP_FALL_DEPTH) if boxes else None

    def _flame_frames(self) -> dict:
        """The flames' emitter frames (values.py): "start" -> the start's,
        checkpoint k -> (its big flame's, its small flames'); missing ones left out."""
        def frames(owner, names):
            return [self.ctx.get(f"{owner.name}.{n}") for n in names if f"{owner.name}.{n}" in self.ctx]
        start = self.ctx.get(self.start) if self.start in self.ctx else None
        starts = start.entities if isinstance(start, CKGroup) else [start] if start is not None else []
        out = {"start": [f for s in starts for f in frames(s, START_FLAMES)]}
        for k, cp in enumerate(self.checkpoint_entities, 1):
            out[k] = (frames(cp, (CHECKPOINT_BIG_FLAME,)), frames(cp, CHECKPOINT_SMALL_FLAMES))
        return out

    def emitters(self) -> list:
        """The viewer's hook (behaviors.hooks): the start's four flames; the
        next checkpoint's big flame and the later checkpoints' two small ones
        (none once crossed); a new ball's birth ("birth" at the sector's reset
        point) while its gameplay field "birth" (its age) is not None."""
        flames = getattr(self, "flames", None)
        out = []
        if flames:
            lit = [(f, 1.0) for f in flames["start"]]
            for k in range(self.sector, len(self.checkpoint_entities) + 1):
                big, small = flames[k]
                lit += [(f, BIG_FLAME_SIZE) for f in big] if k == self.sector else [(f, 1.0) for f in small]
            out = [Emitter(f.name, "flame", f.get_position(), size) for f, size in lit]
        if self.birth_age() is not None:
            out.append(Emitter("ball birth", "birth", self.reset_point(self.sector).get_position()))
        return out

    def birth_age(self) -> float | None:
        """Seconds since the new ball's birth began, for ``birth_delay``; None outside."""
        if self.birth_time is None or self.clock - self.birth_time >= self.birth_delay:
            return None
        return self.clock - self.birth_time

    def is_active(self, entity) -> bool:
        """Is the entity's sector the current one (True outside every sector)?"""
        k = getattr(self, "sector_of", {}).get(entity)
        return k is None or k == self.sector

    def reset_point(self, sector: int):
        """The reset point of a sector (the last one for sectors past it)."""
        return self.reset_entities[min(sector, len(self.reset_entities)) - 1]

    def members(self, sector: int) -> list:
        """The bodies of a sector: its physicalized members and props at the start."""
        return [e for e in dict.fromkeys(self.sector_bodies.get(sector, []) + self.props)
                if self.sector_of.get(e) == sector]

    def reset_sector(self, sector: int | None = None) -> None:
        """Activate a sector: its bodies and props back into the world at their
        initial conditions (joints and springs made again, Start Frozen ones
        frozen), its props shown, its extra lives back, then "Sector Reset"
        (the wake gates arm again)."""
        k = self.sector if sector is None else sector
        self._put_back(self.members(k))
        for e in list(self.collected):
            if self.collected[e] == k and self._is_extra_life(e):
                del self.collected[e]
                e.show()
        self.send("Sector Reset", sector=k)

    def deactivate_sector(self, sector: int) -> None:
        """A sector's bodies out of the world: the joints, springs, forces and
        listeners on them deleted, the bodies unphysicalized, its props hidden."""
        for e in self.members(sector):
            rec = self.ctx.physics.record_of(e)
            if rec is not None:
                for b in list(rec.blocks):
                    b.destroy_now(self.ctx)
                blocks.unphysicalize(self.ctx, e)
            if e in self.prop_set:
                e.hide()

    def _put_back(self, entities) -> None:
        """reset_bodies, after bringing back each one that is out of the world."""
        for e in entities:
            self._into_world(e)
        if entities:
            self.reset_bodies(*entities)

    def _into_world(self, e) -> None:
        """A saved body out of the world (deactivated, or fallen out of the
        level) physicalized again at its initial conditions from its saved
        record, with the joint and spring blocks made on it."""
        if not self.ctx.physics.is_physicalized(e):
            self.restore_ic(e)
            Physicalize.of_record(self.records[e], self.ctx).physicalize(self.ctx.physics)
            self.ctx.physics.record_of(e).blocks = self.records[e].blocks

    def _is_extra_life(self, e) -> bool:
        return self.extra_lives is not None and e in self.extra_lives

    # --- the frame -------------------------------------------------------------------------

    def on_frame(self, dt: float) -> None:
        if not self._begun:
            player = player_of(self.ctx)
            if player is None:
                return
            self._begun = True
            self.sector_kind = self.start_kind or player.start_kind
            for k in range(1, self.sector_count + 1):
                if k != self.sector:
                    self.deactivate_sector(k)
            self.sound(SOUND_LEVEL_START)
            self.send("Sector Activate", sector=self.sector)
            self.at(self.start_delay, self._new_ball)
            self._run_due()
            return
        if self.stopped:
            return
        self._tick(dt)
        self._fallen_props()
        self._fly_satellites(dt)
        self._update_fade()
        if self.flow != PLAYING:
            return
        player = player_of(self.ctx)
        if player is None or player.ball is None:
            return
        ball = player.ball
        if self.death_boxes is not None:
            mine = box_of(ball)
            if any(boxes_intersect(mine, self.kept_boxes.box(b)) for b in self.death_boxes):
                self.die()
                return
        p = ball.get_position()
        self._checkpoint(p, player)
        self._pickups(p)
        if (self.finish is not None and self.sector == self.sector_count
                and distance(p, self.finish.get_position()) <= FINISH_RADIUS):
            self._finish()

    def _new_ball(self) -> None:
        """The game's New Ball: the ball placed at the sector's reset point,
        turned as it is, hidden and out of the physics while its birth (the
        lightning) runs; the camera rig restored and stamped onto the reset
        point (camera.py). Shown, played and the points running
        ``birth_delay`` later (Three.js' notes: the replacement stays
        unphysicalized and hidden for the 3 s birth)."""
        rp = self.reset_point(self.sector)
        player_of(self.ctx).place(self.sector_kind, rp.get_position(), rp.get_orientation())
        cam = camera_of(self.ctx)
        if cam is not None:
            cam.stamp(rp)
        self.birth_time = self.clock
        self.sound(SOUND_NEW_BALL)
        self.at(self.birth_delay, self._play)

    def _play(self) -> None:
        """The birth's end: the ball shown and physicalized where it was
        placed, with zero velocities; navigation on."""
        player = player_of(self.ctx)
        if player is None or player.entity_in_play is None:
            return
        e = player.entity_in_play
        player.spawn(player.kind, e.get_position())
        self.flow = PLAYING
        self.fade = None
        self.send("Ball Nav On")

    # --- death ------------------------------------------------------------------------------

    def die(self) -> None:
        """A death box: navigation off, a white pulse of 2 s, the ball hidden
        at its peak (1 s), then (with a spare life) the sector reset and a new
        ball's birth at 1 s, played at 4 s. The points stop from death to
        the new ball's play."""
        self.send("Ball Nav Off")
        self.sound(SOUND_FALL)
        self.death_time = self.clock
        self.at(self.hide_delay, player_of(self.ctx).remove)
        self.satellites = []
        if self.lives == 0:
            self.flow = GAME_OVER
            self.send("Game Over")
            return
        self.lives -= 1
        self.flow = DEAD
        self.at(self.rebirth_delay, self._rebirth)

    def _update_fade(self) -> None:
        """The white pulse's opacity, 0 to 1 and back over ``fade_time`` from
        the death (the game's Deactivate Ball: a 2 s pulse, the ball swapped
        at its peak, 1 s; Three.js' notes); None outside it."""
        if self.death_time is None or self.flow not in (DEAD, GAME_OVER):
            self.fade = None
            return
        t = self.clock - self.death_time
        half = self.fade_time * 0.5
        self.fade = max(0.0, 1.0 - abs(t - half) / half) if 0.0 <= t <= self.fade_time and half > 0.0 else None

    def _rebirth(self) -> None:
        self.reset_sector()
        self._new_ball()

    # --- triggers --------------------------------------------------------------------------

    def checkpoint_centre(self, cp):
        """The checkpoint sphere's centre: 1.495 above the flame's origin, in its frame."""
        return cp.transform((0.0, CHECKPOINT_FLAME_HEIGHT, 0.0))

    def _checkpoint(self, p, player) -> None:
        """Only the next checkpoint counts: it ends the current sector."""
        cps = self.checkpoint_entities
        if self.sector > len(cps) or distance(p, self.checkpoint_centre(cps[self.sector - 1])) > CHECKPOINT_RADIUS:
            return
        old = self.sector
        self.satellites = []
        self.sector_kind = player.kind
        self.deactivate_sector(old)
        self.send("Sector Deactivate", sector=old)
        self.sector = old + 1
        self.reset_sector()
        self.send("Sector Activate", sector=self.sector)
        self.sound(SOUND_CHECKPOINT)

    def _pickups(self, p) -> None:
        """The pickups of the current sector (``is_active``, written out: two
        dozen a frame on level 1) within their radius of the ball."""
        sector_of, sector = self.sector_of, self.sector
        for group, radius, fn in ((self.extra_lives, EXTRA_LIFE_RADIUS, self._extra_life),
                                  (self.extra_points, EXTRA_POINT_RADIUS, self._extra_point)):
            for e in (group or ()):
                k = sector_of.get(e)
                if e not in self.collected and (k is None or k == sector) and distance(p, e.get_position()) <= radius:
                    self.collected[e] = self.sector_of.get(e)
                    e.hide()
                    fn(e)

    def _extra_life(self, e) -> None:
        self.sound(SOUND_LIFE)
        self.at(self.extra_life_delay, self._one_more_life)

    def _one_more_life(self) -> None:
        if self.flow in (PLAYING, DEAD):
            self.lives += 1
            self.sound(SOUND_LIFE_ADDED)

    def _extra_point(self, e) -> None:
        """+100 now, then six satellites that fly to the ball and count +20 on arrival."""
        self.points += EXTRA_POINT_BONUS
        self.sound(SOUND_POINT)
        for i in range(EXTRA_POINT_SATELLITES):
            a = 2.0 * math.pi * i / EXTRA_POINT_SATELLITES
            ring = (math.sin(a) * self.satellite_ring, 0.0, math.cos(a) * self.satellite_ring)
            self.satellites.append(Satellite(e.transform(ring)))

    def _fly_satellites(self, dt: float) -> None:
        player = player_of(self.ctx)
        if not self.satellites or player is None or player.ball is None:
            return
        goal = player.ball.get_position()
        left = []
        for s in self.satellites:
            if s.fly(goal, self.satellite_speed * dt):
                self.points += SATELLITE_BONUS
                self.sound(SOUND_SATELLITE)
            else:
                left.append(s)
        self.satellites = left

    def _fallen_props(self) -> None:
        """A prop 200 below the lowest death cube: unphysicalized and hidden."""
        if self.fall_limit is None:
            return
        for e in self.props:
            if self.ctx.physics.is_physicalized(e) and e.get_position()[1] < self.fall_limit:
                blocks.unphysicalize(self.ctx, e)
                e.hide()

    # --- the end ------------------------------------------------------------------------------

    def _finish(self) -> None:
        """The finish: navigation off, the camera slot freezes and the balloon
        flies off ("Level_Finish"); the score count after ``end_wait``."""
        self.flow = FINISHED
        self.finish_time = self.clock
        self.satellites = []
        self.send("Ball Nav Off")
        self.send("Level_Finish")
        self.sound(SOUND_LAST_FINISH if self.level == LAST_LEVEL else SOUND_FINISH)
        self.at(self.end_wait, self._count_score)

    def _count_score(self) -> None:
        """Final = 100 x level + points + 200 x spare lives."""
        self.final = final_score(self.level, self.points, self.lives)
        self.send("Level Score", final=self.final)

    def on_reset(self) -> None:
        """Every pickup shown and every saved body back in the world (the
        manager's reset then puts them at their initial conditions)."""
        for e in self.collected:
            e.show()
        for e in self.records:
            self._into_world(e)
        self._init_state()

    def gameplay(self) -> dict:
        player = player_of(self.ctx)
        return {"level": self.level, "state": self.flow, "score": self.points, "lives": self.lives,
                "sector": self.sector, "ball": player.kind if player is not None else None,
                "final": self.final, "fade": self.fade, "sky": self.sky_light(), "birth": self.birth_age(),
                "far": FINISH_FAR if self.finish_time is not None else None}

    def sky_light(self) -> float | None:
        """The sky layer's brightness from the finish on, linearly from 1 to 0
        over FINISH_SKY_FADE_S ("fadeout Sky"); None before (as it was)."""
        if self.finish_time is None:
            return None
        return max(0.0, 1.0 - (self.clock - self.finish_time) / FINISH_SKY_FADE_S)

    def hud_fields(self) -> dict:
        """The viewer's hook (behaviors.hooks): the gameplay state."""
        return self.gameplay()

    def outcome(self) -> str:
        """The CLI's hook (behaviors.hooks): how the run ended."""
        final = f", final score {self.final}" if self.final is not None else ""
        return f"level {self.level}: {self.flow}, score {self.points}, lives {self.lives}{final}"


def level_behavior(ctx) -> Level | None:
    m = manager_of(ctx, create=False)
    found = m.find(Level) if m is not None else []
    return found[0] if found else None


def gameplay_state(ctx) -> dict | None:
    """For the HUD: level number, state, score, spare lives, sector, ball kind,
    the final score once counted and the death fade's opacity (None outside
    it); None when the context has no level."""
    level = level_behavior(ctx)
    return level.gameplay() if level is not None else None


def set_paused(ctx, paused: bool) -> None:
    """Pause or resume the game's rules (points, death sequence, delays); the
    viewer's pause (time factor 0) stops them too."""
    level = level_behavior(ctx)
    if level is not None:
        level.paused = bool(paused)
