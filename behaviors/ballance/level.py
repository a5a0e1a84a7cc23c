"""Level flow (glue-and-content 3, "Triggers"): start, sectors, checkpoints, reset
points, death boxes and respawn, lives, extra life and points, finish, score.

Triggers have no physics bodies: each frame the ball's position (the
write-back) is tested against spheres (checkpoint 6.5, extra life 4.5, extra
point 3, finish 1) and against the oriented death boxes.

Sectors: checkpoint k (in group order) ends sector k and starts sector k + 1,
whose reset point is entry k + 1 of the reset-point group (sector 1 starts at
the level start). The module bodies of a sector are the members of its group
("Sector_01", "Sector_02", ...: the ``sector_groups`` format) that are
physicalized when the level starts; their initial conditions are saved then.
When the ball respawns in a sector they are put back there with their joints
and springs (``reset_bodies``). The level broadcasts "Sector Activate" (data:
sector) when a sector starts, "Sector Reset" when the ball respawns in it,
"Level_Finish" at the finish and "Game Over" when no spare life is left.
"""

from __future__ import annotations

from bbglue import CKGroup

from ..api import Behavior, manager_of
from ..params import Entity, Group, Param
from ..registry import register
from .balls import distance, player_of
from .camera import camera_of, yaw_of
from .values import (CHECKPOINT_RADIUS, EXTRA_LIFE_RADIUS, EXTRA_POINT_BONUS, EXTRA_POINT_RADIUS,
                     EXTRA_POINT_SATELLITES, FINISH_RADIUS, KIND_NAMES, POINT_LOSS_PERIOD, SATELLITE_BONUS,
                     SPARE_LIVES, START_POINTS, final_score)

STARTING, PLAYING, DEAD, FINISHED, GAME_OVER = "starting", "playing", "dead", "finished", "game over"


def inside_box(entity, p) -> bool:
    """Is the world point inside the entity's oriented box (its mesh's local
    bounding box; a unit cube without a mesh), scale included."""
    q = entity.inverse_transform(p)
    if entity.mesh is not None:
        lo, hi = entity.get_bounding_box(local=True)
    else:
        lo, hi = (-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)
    return all(lo[i] <= q[i] <= hi[i] for i in range(3))


@register("ballance.level")
class Level(Behavior):
    """The level's rules and score; needs a ``ballance.player`` behaviour."""

    level = Param(int, 1, "the level number (final score: 100 x level)")
    start = Param(Entity, "PS_Levelstart", "where the first ball starts (default: reset point 1)", optional=True)
    start_kind = Param(str, "", "the first ball's kind (default: the player's start_kind)",
                       choices=("",) + KIND_NAMES)
    reset_points = Param(Group, "PR_Resetpoints", "reset point of each sector, in order", optional=True)
    checkpoints = Param(Group, "PC_Checkpoints", "checkpoints, in order", optional=True)
    death_boxes = Param(Group, "DepthTestCubes", "oriented death boxes", optional=True)
    extra_lives = Param(Group, "P_Extra_Life", "extra lives (+1 life)", optional=True)
    extra_points = Param(Group, "P_Extra_Point", "extra points (+100, then six +20)", optional=True)
    finish = Param(Entity, "PE_Levelende", "the finish trigger (1 around the balloon platform)", optional=True)
    sector_groups = Param(str, "Sector_{:02d}", "name of sector k's group, a format of k; its bodies "
                          "are put back when the ball respawns in the sector")
    respawn_delay = Param(float, 1.0, "seconds between a death and the respawn (not in the spec)")
    satellite_interval = Param(float, 0.1, "seconds between the +20 satellites (not in the spec)")

    def __init__(self, ctx, entity=None, **params):
        super().__init__(ctx, entity, **params)
        if self.start is None and not (self.reset_points and len(self.reset_points)):
            raise ValueError(f"{self.name}: no start: neither a start entity nor a reset point")
        try:
            self.sector_groups.format(1)
        except (IndexError, KeyError, ValueError) as exc:
            raise ValueError(f"{self.name}: parameter 'sector_groups': {self.sector_groups!r} is not a "
                             f"format of the sector number ({exc})") from None
        self._init_state()

    def _init_state(self) -> None:
        self.flow = STARTING
        self.points = START_POINTS
        self.lives = SPARE_LIVES
        self.sector = 1
        self.sector_kind = None
        self.final = None
        self.collected = set()

    # --- start and respawn -----------------------------------------------------------

    def on_start(self) -> None:
        """Save the initial conditions of each sector's module bodies."""
        cps = self.checkpoints.entities if self.checkpoints is not None else []
        self.sector_bodies = {}
        for k in range(1, len(cps) + 2):
            name = self.sector_groups.format(k)
            group = self.ctx.get(name) if name in self.ctx else None
            members = group.entities if isinstance(group, CKGroup) else []
            bodies = [e for e in members if self.ctx.physics.is_physicalized(e)]
            if bodies:
                self.save_ic(*bodies)
                self.sector_bodies[k] = bodies

    def reset_point(self, sector: int):
        """The reset point of a sector (sector 1: the level start)."""
        pts = self.reset_points.entities if self.reset_points is not None else []
        if sector == 1 and self.start is not None:
            return self.start
        return pts[min(sector, len(pts)) - 1]

    def on_frame(self, dt: float) -> None:
        if self.flow == STARTING:
            player = player_of(self.ctx)
            if player is None:
                return
            self.sector_kind = self.start_kind or player.start_kind
            self.every(POINT_LOSS_PERIOD, self._lose_point)
            self._respawn()
            self.send("Sector Activate", sector=1)
            return
        if self.flow != PLAYING:
            return
        player = player_of(self.ctx)
        if player is None or player.ball is None:
            return
        p = player.ball.get_position()
        if any(inside_box(box, p) for box in (self.death_boxes or ())):
            self.die()
            return
        self._checkpoint(p, player)
        self._pickups(p)
        if self.finish is not None and distance(p, self.finish.get_position()) <= FINISH_RADIUS:
            self._finish()

    def _respawn(self) -> None:
        player = player_of(self.ctx)
        rp = self.reset_point(self.sector)
        player.spawn(self.sector_kind, rp.get_position())
        cam = camera_of(self.ctx)
        if cam is not None:
            cam.snap(yaw_of(rp))
        self.flow = PLAYING
        self.send("Ball Nav On")

    def die(self) -> None:
        """A death box: a life lost (or game over), then the respawn at the
        current sector's reset point with the sector's ball kind."""
        self.send("Ball Nav Off")
        player_of(self.ctx).remove()
        if self.lives == 0:
            self.flow = GAME_OVER
            self.send("Game Over")
            return
        self.lives -= 1
        self.flow = DEAD
        self.after(self.respawn_delay, self._after_death)

    def _after_death(self) -> None:
        self.reset_sector()
        self._respawn()

    def reset_sector(self) -> None:
        """The current sector's module bodies back to their initial conditions
        (joints and springs made again, Start Frozen ones frozen), then "Sector
        Reset" (the wake gates arm again)."""
        bodies = self.sector_bodies.get(self.sector)
        if bodies:
            self.reset_bodies(*bodies)
        self.send("Sector Reset", sector=self.sector)

    # --- triggers --------------------------------------------------------------------------

    def _checkpoint(self, p, player) -> None:
        cps = self.checkpoints.entities if self.checkpoints is not None else []
        if self.sector <= len(cps) and distance(p, cps[self.sector - 1].get_position()) <= CHECKPOINT_RADIUS:
            self.sector += 1
            self.sector_kind = player.kind
            self.send("Sector Activate", sector=self.sector)

    def _pickups(self, p) -> None:
        for group, radius, fn in ((self.extra_lives, EXTRA_LIFE_RADIUS, self._extra_life),
                                  (self.extra_points, EXTRA_POINT_RADIUS, self._extra_point)):
            for e in (group or ()):
                if e not in self.collected and distance(p, e.get_position()) <= radius:
                    self.collected.add(e)
                    e.hide()
                    fn()

    def _extra_life(self) -> None:
        self.lives += 1

    def _extra_point(self) -> None:
        self.points += EXTRA_POINT_BONUS
        for i in range(EXTRA_POINT_SATELLITES):
            self.after(self.satellite_interval * (i + 1), self._satellite)

    def _satellite(self) -> None:
        if self.flow in (PLAYING, DEAD):
            self.points += SATELLITE_BONUS

    def _lose_point(self) -> None:
        if self.flow in (PLAYING, DEAD) and self.points > 0:
            self.points -= 1

    def _finish(self) -> None:
        self.flow = FINISHED
        self.final = final_score(self.level, self.points, self.lives)
        self.send("Ball Nav Off")
        self.send("Level_Finish")

    def on_reset(self) -> None:
        for e in self.collected:
            e.show()
        self._init_state()

    def gameplay(self) -> dict:
        player = player_of(self.ctx)
        return {"level": self.level, "state": self.flow, "score": self.points, "lives": self.lives,
                "sector": self.sector, "ball": player.kind if player is not None else None,
                "final": self.final}


def gameplay_state(ctx) -> dict | None:
    """For the HUD: level number, state, score, spare lives, sector, ball kind and
    the final score once finished; None when the context has no level."""
    m = manager_of(ctx, create=False)
    found = m.find(Level) if m is not None else []
    return found[0].gameplay() if found else None
