"""Player balls, transformers and ball pieces (glue-and-content 3).

The player ball is one entity per kind (paper, wood, stone); the current one is
shown and physicalized with its row of the table, the others are hidden and
have no body. Every change of place or kind is a teleport: Unphysicalize, move,
Physicalize (the physics never reads an entity back), so the new ball starts
with zero velocities.
"""

from __future__ import annotations

import math

from bbglue.blocks import PhysicsImpulse
from bbglue.blocks import Physicalize
from bbglue.blocks import PhysicsWakeUp

from ..api import Behavior, manager_of
from ..params import Entity, Group, Param
from ..registry import register
from .values import (BALL_COLLISION_GROUP, BALL_KINDS, BALL_RADIUS, KIND_NAMES, TRANSFORMER_FLOAT,
                     TRANSFORMER_RADIUS)


def physicalize_block(ctx, entity, kind: str) -> Physicalize:
    """The Physicalize block of a player ball of ``kind`` (glue-and-content 3):
    a radius-2 ball, or for paper the convex hull of its mesh."""
    k = BALL_KINDS[kind]
    surface = entity.mesh.name if entity.mesh is not None else entity.name
    shape = dict(ball_count=1, convex_count=0) if k.sphere else dict(ball_count=0, convex_count=1)
    blk = Physicalize(entity, ctx, **shape, fixed=False, friction=k.friction, elasticity=k.elasticity,
                      mass=k.mass, collision_group=BALL_COLLISION_GROUP, linear_speed_dampening=k.linear_damping,
                      rot_speed_dampening=k.rot_damping, collision_surface=surface)
    if k.sphere:
        blk.set_pin("ball radius 1", BALL_RADIUS)
    return blk


def wake(ctx, entity) -> None:
    """Physics WakeUp on an entity."""
    PhysicsWakeUp(entity, ctx).trigger()


def horizontal_distance(a, b) -> float:
    return math.hypot(a[0] - b[0], a[2] - b[2])


def distance(a, b) -> float:
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


@register("ballance.player")
class PlayerBall(Behavior):
    """The player ball: which kind is in play, where, and the teleports.

    ``ball`` is the physicalized ball entity (None while none is in play or
    while a transformer holds it); ``entity_in_play`` is the visible one.
    """

    paper = Param(Entity, "Ball_Paper", "the paper ball entity (its mesh is the hull)")
    wood = Param(Entity, "Ball_Wood", "the wood ball entity")
    stone = Param(Entity, "Ball_Stone", "the stone ball entity")
    start_kind = Param(str, "wood", "the kind of the first ball", choices=KIND_NAMES)

    def __init__(self, ctx, entity=None, **params):
        super().__init__(ctx, entity, **params)
        self.balls = {"paper": self.paper, "wood": self.wood, "stone": self.stone}
        self.kind = self.start_kind
        self.entity_in_play = None
        self.held = False
        self._block = None

    def on_start(self) -> None:
        for e in self.balls.values():
            if e is not self.entity_in_play:
                e.hide()

    @property
    def ball(self):
        return None if self.held else self.entity_in_play

    def spawn(self, kind: str, position) -> None:
        """Put a ball of ``kind`` at ``position`` with zero velocities, in play."""
        self.remove()
        self.kind = kind
        e = self.balls[kind]
        e.set_position(position)
        e.show()
        self.entity_in_play = e
        self.held = False
        self._block = physicalize_block(self.ctx, e, kind)
        self._block.trigger("Physicalize")

    def hold(self) -> None:
        """Take the ball out of the physics, left visible where it is."""
        if self._block is not None:
            self._block.trigger("Unphysicalize")
            self._block = None
        self.held = True

    def remove(self) -> None:
        """No ball in play: unphysicalized and hidden."""
        self.hold()
        if self.entity_in_play is not None:
            self.entity_in_play.hide()
        self.entity_in_play = None

    def on_reset(self) -> None:
        self.remove()


def player_of(ctx) -> PlayerBall | None:
    """The context's running PlayerBall behaviour, if any."""
    m = manager_of(ctx, create=False)
    found = m.find(PlayerBall) if m is not None else []
    return found[0] if found else None


@register("ballance.transformers")
class Transformers(Behavior):
    """The transformer pads: the nearest one within 4.3 of the ball, when its kind
    differs from the ball's, swaps the ball (glue-and-content 3). The swap:
    unphysicalize, float 3 above the pad, then the new kind is physicalized
    there with zero velocities."""

    paper_pads = Param(Group, "P_Trafo_Paper", "pads that make a paper ball", optional=True)
    wood_pads = Param(Group, "P_Trafo_Wood", "pads that make a wood ball", optional=True)
    stone_pads = Param(Group, "P_Trafo_Stone", "pads that make a stone ball", optional=True)
    radius = Param(float, TRANSFORMER_RADIUS, "trigger radius")
    float_time = Param(float, 0.5, "seconds the ball takes to float above the pad (not in the spec)")

    def on_start(self) -> None:
        self.swapping = None

    def pads(self):
        for kind, group in (("paper", self.paper_pads), ("wood", self.wood_pads), ("stone", self.stone_pads)):
            for pad in (group or ()):
                yield kind, pad

    def on_frame(self, dt: float) -> None:
        player = player_of(self.ctx)
        if player is None or player.ball is None or self.swapping is not None:
            return
        p = player.ball.get_position()
        best = None
        for kind, pad in self.pads():
            d = distance(p, pad.get_position())
            if d <= self.radius and (best is None or d < best[0]):
                best = (d, kind, pad)
        if best is not None and best[1] != player.kind:
            self.swap(player, best[1], best[2])

    def swap(self, player: PlayerBall, kind: str, pad) -> None:
        """The swap sequence: hold, float up over ``float_time``, new kind."""
        start = player.entity_in_play.get_position()
        px, py, pz = pad.get_position()
        goal = (px, py + TRANSFORMER_FLOAT, pz)
        player.hold()
        self.send("Ball Nav Off")
        self.swapping = {"t": 0.0, "start": start, "goal": goal, "kind": kind, "player": player}
        self.each_frame(self._float)

    def _float(self, dt: float) -> bool:
        s = self.swapping
        s["t"] += dt
        f = 1.0 if self.float_time <= 0.0 else min(s["t"] / self.float_time, 1.0)
        a, b = s["start"], s["goal"]
        s["player"].entity_in_play.set_position(tuple(a[i] + (b[i] - a[i]) * f for i in range(3)))
        if f < 1.0:
            return False
        s["player"].spawn(s["kind"], b)
        self.send("Ball Nav On")
        self.send("Ball Changed", kind=s["kind"])
        self.swapping = None
        return True


@register("ballance.ball_pieces")
class BallPieces(Behavior):
    """The pieces of a broken ball (a group of piece entities): on the message
    "Ball Break" they are placed around the ball, physicalized and pushed
    outwards with one Physics Impulse each, then removed after ``life``
    seconds. The impulse value is not in the spec: a parameter."""

    messages = ("Ball Break",)
    pieces = Param(Group, doc="the piece entities (each with its mesh)")
    impulse = Param(float, 1.0, "impulse per piece, outwards from the ball centre (not in the spec)")
    mass = Param(float, 0.1, "mass of a piece (not in the spec)")
    life = Param(float, 3.0, "seconds before the pieces are removed")

    def on_start(self) -> None:
        self.blocks = {}
        for e in self.pieces:
            e.hide()

    def on_message(self, message) -> None:
        player = player_of(self.ctx)
        e = player.entity_in_play if player is not None else None
        if e is None:
            return
        self.break_at(e.get_position())

    def break_at(self, centre) -> None:
        """Lay the pieces out on a ring around ``centre`` and push them out."""
        n = len(self.pieces)
        for i, e in enumerate(self.pieces):
            a = 2.0 * math.pi * i / n
            offset = (math.sin(a) * BALL_RADIUS * 0.5, 0.0, math.cos(a) * BALL_RADIUS * 0.5)
            e.set_position(tuple(centre[j] + offset[j] for j in range(3)))
            e.show()
            blk = self.blocks.get(e) or Physicalize(e, self.ctx, mass=self.mass)
            self.blocks[e] = blk
            blk.trigger("Physicalize")
            PhysicsImpulse(e, self.ctx, direction=offset, impulse=self.impulse).trigger()
        self.after(self.life, self.collect)

    def collect(self) -> None:
        for e, blk in self.blocks.items():
            blk.trigger("Unphysicalize")
            e.hide()

    def on_reset(self) -> None:
        self.collect()
