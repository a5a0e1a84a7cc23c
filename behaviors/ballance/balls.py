"""Player balls, transformers and ball pieces (glue-and-content 3).

The player ball is one entity per kind (paper, wood, stone); the current one is
shown and physicalized with its row of the table, the others are hidden and
have no body. Every change of place or kind is a teleport: Unphysicalize, move,
Physicalize (the physics never reads an entity back), so the new ball starts
with zero velocities.
"""

from __future__ import annotations

import math

from bbglue import blocks
from bbglue.blocks import PhysicsImpulse
from bbglue.blocks import Physicalize
from bbglue.blocks import PhysicsWakeUp
from bbglue.blocks import SetPhysicsSpring

from ..api import Behavior, BlobShadow, manager_of
from ..params import Entity, Group, Param
from ..registry import register
from .sectors import sector_active
from .values import (BALL_COLLISION_GROUP, BALL_KINDS, BALL_RADIUS, DISTANCE, KIND_NAMES, PIECE_COUNTS,
                     PIECE_LIFE_S, PUSH, RATE, SECONDS, SHADOW_GROUP, SHADOW_MAX_HEIGHT, SHADOW_SIZE_SCALE,
                     SOUND_TRAFO, TRANSFORMER_BURST_S, TRANSFORMER_FLOAT, TRANSFORMER_NEW_S, TRANSFORMER_RADIUS,
                     TRANSFORMER_SPRING_S, pieces_sound)

FIX_CUBE = "FixCube"        # Ballance's fixed, collision-free anchor of single-body joints


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


def fix_cube(ctx):
    """The fixed, collision-free "FixCube" body (made when the scene has none)."""
    e = ctx.get(FIX_CUBE) if FIX_CUBE in ctx else ctx.create_entity(FIX_CUBE, visible=False)
    if not ctx.physics.is_physicalized(e):
        blocks.physicalize(ctx, e, fixed=True, enable_collision=False, ball_count=1, convex_count=0)
    return e


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
    shadow = Param(Group, SHADOW_GROUP, "what the ball's blob shadow falls on", optional=True)

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

    def spawn(self, kind: str, position, orientation=None) -> None:
        """Put a ball of ``kind`` at ``position`` (turned to ``orientation``, a
        (dir, up, right) triple, when given) with zero velocities, in play."""
        e = self.place(kind, position, orientation)
        e.show()
        self.held = False
        self._block = physicalize_block(self.ctx, e, kind)
        self._block.trigger("Physicalize")

    def place(self, kind: str, position, orientation=None):
        """The ball of ``kind`` at ``position`` (and ``orientation``), in play
        but held and hidden: a new ball during its birth (the game's New Ball
        shows and physicalizes it 3 s later). Returns its entity."""
        self.remove()
        self.kind = kind
        e = self.balls[kind]
        e.set_position(position)
        if orientation is not None:
            e.set_orientation(*orientation)
        self.entity_in_play = e
        self.held = True
        return e

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

    def blob_shadows(self) -> list:
        """The viewer's hook (behaviors.hooks): the ball's shadow on the Shadow
        group's members, as wide as the ball's X extent times 1.3, down to 20."""
        e = self.entity_in_play
        if e is None or not e.is_visible() or self.shadow is None or e.mesh is None:
            return []
        lo, hi = e.mesh.bounding_box()
        width = (hi[0] - lo[0]) * math.sqrt(sum(c * c for c in e.get_world_matrix().as_array()[0, :3]))
        return [BlobShadow(e.get_position(), 0.5 * width * SHADOW_SIZE_SCALE, tuple(self.shadow),
                           SHADOW_MAX_HEIGHT)]


def player_of(ctx) -> PlayerBall | None:
    """The context's running PlayerBall behaviour, if any."""
    m = manager_of(ctx, create=False)
    found = m.find(PlayerBall) if m is not None else []
    return found[0] if found else None


@register("ballance.transformers")
class Transformers(Behavior):
    """The transformer pads (glue-and-content 3; the original's timing): the
    nearest pad within 4.3 of the ball, when its kind differs from the ball's,
    starts the swap. Navigation goes off and a spring (rest length 0) pulls
    the ball toward a point 3 above the pad for 1.35 s; then the ball is held
    where it is, at 2.35 s it bursts into pieces ("Ball Break") and at 2.5 s
    the new kind appears there with zero velocities. A ball taken away
    meanwhile (a death, a respawn) ends the swap where it is. The spring's stiffness
    is not known: per kilogram of ball, so every kind rises alike."""

    paper_pads = Param(Group, "P_Trafo_Paper", "pads that make a paper ball", optional=True)
    wood_pads = Param(Group, "P_Trafo_Wood", "pads that make a wood ball", optional=True)
    stone_pads = Param(Group, "P_Trafo_Stone", "pads that make a stone ball", optional=True)
    radius = Param(float, TRANSFORMER_RADIUS, "trigger radius", bounds=DISTANCE)
    spring_rate = Param(float, 40.0, "spring constant per kg of ball (not in the spec)", bounds=RATE)
    spring_damping = Param(float, 6.0, "spring linear dampening per kg of ball (not in the spec)",
                           bounds=RATE)

    def on_start(self) -> None:
        self.swapping = None

    def pads(self):
        for kind, group in (("paper", self.paper_pads), ("wood", self.wood_pads), ("stone", self.stone_pads)):
            for pad in (group or ()):
                if sector_active(self.ctx, pad):
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
        """The swap sequence (class docstring)."""
        px, py, pz = pad.get_position()
        mass = BALL_KINDS[player.kind].mass
        self.send("Ball Nav Off")
        self.sound(SOUND_TRAFO)
        self.spring = self.own(SetPhysicsSpring(player.ball, self.ctx, referential_1=player.ball,
                                                object2=fix_cube(self.ctx), position_2=(px, py + TRANSFORMER_FLOAT, pz), length=0.0,
                                                constant=self.spring_rate * mass,
                                                linear_dampening=self.spring_damping * mass, global_dampening=0.0))
        self.spring.create()
        self.swapping = {"kind": kind, "player": player, "from": player.kind, "ball": player.ball,
                         "body": self.ctx.physics.body_of(player.ball)}
        for delay, step in ((TRANSFORMER_SPRING_S, self._hold), (TRANSFORMER_BURST_S, self._burst),
                            (TRANSFORMER_NEW_S, self._new_ball)):
            self.after(delay, step, self.swapping)

    def _ours(self, s: dict, held: bool):
        """``s`` while it is the swap in progress and the player still has its
        ball (on the spring, or held once ``held``); else None, and the swap
        is given up when the ball was taken away meanwhile (a death, a
        respawn)."""
        if self.swapping is not s:
            return None
        p = s["player"]
        same = p.entity_in_play is s["ball"] and (
            p.held if held else self.ctx.physics.body_of(p.entity_in_play) is s["body"])
        if not same:
            self.spring.destroy()
            self.swapping = None
        return s if same else None

    def _hold(self, s: dict) -> None:
        s = self._ours(s, held=False)
        if s is not None:
            self.spring.destroy()
            s["player"].hold()

    def _burst(self, s: dict) -> None:
        s = self._ours(s, held=True)
        if s is not None:
            e = s["player"].entity_in_play
            e.hide()
            self.send("Ball Break", kind=s["from"], position=e.get_position())

    def _new_ball(self, s: dict) -> None:
        s = self._ours(s, held=True)
        if s is not None:
            self.swapping = None
            s["player"].spawn(s["kind"], s["player"].entity_in_play.get_position())
            self.send("Ball Nav On")
            self.send("Ball Changed", kind=s["kind"])

    def on_reset(self) -> None:
        self.swapping = None


def sphere_directions(n: int):
    """``n`` unit vectors spread over the sphere (a golden-angle spiral)."""
    golden = math.pi * (3.0 - math.sqrt(5.0))
    for i in range(n):
        y = 1.0 - 2.0 * (i + 0.5) / n
        r = math.sqrt(max(0.0, 1.0 - y * y))
        yield (math.cos(golden * i) * r, y, math.sin(golden * i) * r)


@register("ballance.ball_pieces")
class BallPieces(Behavior):
    """The pieces of a burst ball: one group of piece entities per kind (wood
    16, stone 17, paper 18). On "Ball Break" (data ``kind``, ``position``) the
    kind's pieces are placed around the position, physicalized with their own
    mass and pushed outward (one Physics Impulse each), then removed
    (unphysicalized and hidden) after 20 s. A piece's mass is its
    ``Mass`` attribute, by default the ball's mass shared among its pieces;
    the impulse is not in the spec: a parameter."""

    messages = ("Ball Break",)
    paper_pieces = Param(Group, "Ball_Paper_Pieces", "the 18 pieces of a paper ball")
    wood_pieces = Param(Group, "Ball_Wood_Pieces", "the 16 pieces of a wood ball")
    stone_pieces = Param(Group, "Ball_Stone_Pieces", "the 17 pieces of a stone ball")
    impulse = Param(float, 0.5, "impulse per kg of piece, outward from the centre (not in the spec)",
                    bounds=PUSH)
    spread = Param(float, 1.0, "distance of the pieces from the centre when placed", bounds=DISTANCE)
    life = Param(float, PIECE_LIFE_S, "seconds before the pieces are removed", bounds=SECONDS)

    def on_start(self) -> None:
        self.groups = {"paper": self.paper_pieces, "wood": self.wood_pieces, "stone": self.stone_pieces}
        for kind, group in self.groups.items():
            if len(group) != PIECE_COUNTS[kind]:
                raise ValueError(f"{self.name}: a {kind} ball bursts into {PIECE_COUNTS[kind]} pieces, "
                                 f"group {group.name!r} has {len(group)}")
            for e in group:
                e.hide()
        self.blocks = {}

    def on_message(self, message) -> None:
        kind = message.data.get("kind")
        if kind in self.groups:
            self.break_at(kind, message.data["position"])

    def piece_mass(self, kind: str, piece) -> float:
        return float(piece.get_attribute("Mass", BALL_KINDS[kind].mass / PIECE_COUNTS[kind]))

    def break_at(self, kind: str, centre) -> None:
        """Lay the kind's pieces around ``centre``, physicalize them and push them out."""
        pieces = self.groups[kind].entities
        self.sound(pieces_sound(kind))
        for e, d in zip(pieces, sphere_directions(len(pieces))):
            e.set_position(tuple(centre[j] + d[j] * self.spread for j in range(3)))
            e.show()
            mass = self.piece_mass(kind, e)
            blk = Physicalize(e, self.ctx, mass=mass, collision_group=BALL_COLLISION_GROUP)
            self.blocks[e] = blk
            blk.trigger("Physicalize")
            PhysicsImpulse(e, self.ctx, direction=d, impulse=self.impulse * mass).trigger()
        self.after(self.life, self.collect, pieces)

    def collect(self, pieces=None) -> None:
        """Remove pieces (default: all): unphysicalized and hidden."""
        for e in (pieces if pieces is not None else list(self.blocks)):
            blk = self.blocks.pop(e, None)
            if blk is not None:
                blk.trigger("Unphysicalize")
            e.hide()

    def on_reset(self) -> None:
        self.collect()
