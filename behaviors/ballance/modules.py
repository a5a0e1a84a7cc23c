"""Scripts of the PH modules (glue-and-content 3, "PH modules" and "Finish balloon").

Forces are SetPhysicsForce blocks (an impulse per PSI, direction captured at
creation, spec 7.2); a module body that sleeps ignores them until something
wakes it (spec 6.3), which is what the proximity wake gates are for. A
module's scripts run only while its sector is the current one (sectors.py).
"""

from __future__ import annotations

from bbglue.blocks import SetPhysicsForce
from bbglue.blocks import SetPhysicsHinge

from ..api import Behavior
from ..params import Entity, Group, Param, Vec3
from ..registry import register
from .balls import distance, horizontal_distance, player_of, wake
from .boxes import box_of, boxes_intersect
from .level_meaning import MODULES
from .sectors import sector_active
from .values import (COORD, DISTANCE, FAN_BASE, FAN_BOX, FAN_FORCE, PUSH, SACK_FLIP_MS, SACK_FORCE, SWING_FORCE,
                     SWING_PHASE_MS, WAKE_GATE_RADIUS)


def force_block(behavior: Behavior, target, direction, value: float, direction_ref=None) -> SetPhysicsForce:
    """A SetPhysicsForce at the target's centre (Position (0,0,0) in its own frame),
    owned by the behaviour."""
    return behavior.own(SetPhysicsForce(target, behavior.ctx, position=(0.0, 0.0, 0.0), pos_referential=target,
                                        direction=direction, direction_ref=direction_ref, force_value=value))


@register("ballance.wake_gate")
class WakeGate(Behavior):
    """Wakes frozen module bodies once the ball comes within ``radius`` horizontal
    units of the gate entity (50 for most modules, 35 for PH03, 80 for PH29,
    70 for the finish balloon: the scenes say); armed again by "Sector Reset";
    idle while the gate's sector is not the current one."""

    messages = ("Sector Reset",)
    needs_entity = "the gate: the ball's distance is measured to it"
    bodies = Param(Group, doc="the bodies to wake")
    radius = Param(float, WAKE_GATE_RADIUS, "horizontal distance", bounds=DISTANCE)

    def on_start(self) -> None:
        self.fired = False

    def on_message(self, message) -> None:
        self.fired = False

    def on_frame(self, dt: float) -> None:
        player = player_of(self.ctx)
        if self.fired or player is None or player.ball is None or not sector_active(self.ctx, self.entity):
            return
        if horizontal_distance(player.ball.get_position(), self.entity.get_position()) <= self.radius:
            self.fired = True
            for e in self.bodies:
                wake(self.ctx, e)


class CyclicForce(Behavior):
    """A force on the owner that steps through ``PHASES`` (direction signs along
    Z of ``direction_ref``, 0 = idle), one phase every ``PHASE_MS`` of frame time;
    the phases run always, the force is made only while the owner's sector is
    the current one (its body is in the world then). A sector reset of the
    owner drops the force: "Sector Reset" creates the current phase's again
    (a no-op when it still exists)."""

    messages = ("Sector Reset",)
    needs_entity = "the body the force pushes"
    PHASES: tuple = ()
    PHASE_MS = 0.0
    direction_ref = Param(Entity, None, "frame of the Z direction (default: world)", optional=True)

    def on_start(self) -> None:
        self.phase = -1
        self.blocks = {s: force_block(self, self.entity, (0.0, 0.0, s), self.force, self.direction_ref)
                       for s in set(self.PHASES) if s}
        self._next_phase()
        self.every(self.PHASE_MS * 0.001, self._next_phase)

    @property
    def sign(self) -> float:
        return self.PHASES[self.phase]

    def on_message(self, message) -> None:
        self._push()

    def _push(self) -> None:
        if self.sign and sector_active(self.ctx, self.entity):
            self.blocks[self.sign].create()

    def _next_phase(self) -> None:
        if self.phase >= 0 and self.sign:
            self.blocks[self.sign].destroy()
        self.phase = (self.phase + 1) % len(self.PHASES)
        self._push()


@register("ballance.swing")
class Swing(CyclicForce):
    """Module 08: +-Z 1.1 per PSI on the deck in 500 ms push / idle / reverse / idle."""

    PHASES = (1.0, 0.0, -1.0, 0.0)
    PHASE_MS = SWING_PHASE_MS
    force = Param(float, SWING_FORCE, "impulse per PSI", bounds=PUSH)


@register("ballance.sack")
class Sack(CyclicForce):
    """Module 26: +-Z 0.25 per PSI on the sack, flipping every 1.5 s."""

    PHASES = (1.0, -1.0)
    PHASE_MS = SACK_FLIP_MS
    force = Param(float, SACK_FORCE, "impulse per PSI", bounds=PUSH)


@register("ballance.fan")
class Fan(Behavior):
    """Module 18: no body. While the ball's oriented bounding box overlaps the
    2 x 16 x 2 column whose base is 1.14 above the fan (the owner's frame: x and
    z centred, y from 1.14 up), force (0,1,0) 0.1 per PSI on the ball; created
    when the overlap starts, destroyed when it ends, both waking the ball."""

    needs_entity = "the fan: the column stands on it"
    force = Param(float, FAN_FORCE, "impulse per PSI", bounds=PUSH)
    size = Param(Vec3, FAN_BOX, "width, height, depth of the column", bounds=DISTANCE)
    base = Param(float, FAN_BASE, "height of the column's base above the fan", bounds=COORD)

    def on_start(self) -> None:
        self.ball = self.body = self.block = None

    def column(self):
        """The column as an oriented box in world coordinates."""
        sx, sy, sz = self.size
        return box_of(self.entity, (-sx * 0.5, self.base, -sz * 0.5), (sx * 0.5, self.base + sy, sz * 0.5))

    def overlaps(self, ball) -> bool:
        return boxes_intersect(box_of(ball), self.column())

    def on_frame(self, dt: float) -> None:
        player = player_of(self.ctx)
        ball = player.ball if player is not None else None
        body = self.ctx.physics.body_of(ball)
        if ball is not self.ball or body is not self.body:
            if self.block is not None:
                self.block.destroy()
            self.ball, self.body = ball, body
            self.block = force_block(self, ball, (0.0, 1.0, 0.0), self.force) if ball is not None else None
        if self.block is None:
            return
        want = sector_active(self.ctx, self.entity) and self.overlaps(ball)
        if want != (self.block.handle is not None):
            if want:
                self.block.create()
            else:
                self.block.destroy()
            wake(self.ctx, ball)


@register("ballance.plank_bridge")
class PlankBridge(Behavior):
    """Module 29: 9 planks on 10 hinges (FixCube - plank 1 - ... - plank 9 -
    FixCube, hinge k at joint referential k). A stone player ball within
    ``break_radius`` (4) of plank 6 breaks the hinge between planks 6 and 7; a
    sector reset of the planks makes it again."""

    messages = ("Sector Reset",)
    planks = Param(Group, doc="the 9 planks, in order")
    joints = Param(Group, doc="the 10 hinge referentials, in order")
    fix = Param(Entity, "FixCube", "the fixed body the end hinges anchor to")
    breaking_joint = Param(int, 6, "index of the hinge that breaks (between planks 6 and 7)",
                           bounds=(1, 9))
    break_radius = Param(float, 4.0, "distance from plank 6 at which a stone ball breaks it",
                         bounds=DISTANCE)

    def on_start(self) -> None:
        planks, joints = self.planks.entities, self.joints.entities
        if len(joints) != len(planks) + 1:
            raise ValueError(f"{self.name}: {len(planks)} planks need {len(planks) + 1} joints, got {len(joints)}")
        chain = [self.fix] + planks + [self.fix]
        self.hinges = []
        for k, ref in enumerate(joints):
            a, b = chain[k], chain[k + 1]
            if a is self.fix:
                a, b = b, a
            self.hinges.append(self.own(SetPhysicsHinge(a, self.ctx, object2=b, joint_referential=ref)))
        for h in self.hinges:
            h.create()
        self.broken = False

    def on_message(self, message) -> None:
        """The level's sector reset made the planks' hinges again (the planks are
        in the sector's group); the bridge can break again."""
        self.broken = False

    def on_frame(self, dt: float) -> None:
        player = player_of(self.ctx)
        if (self.broken or player is None or player.ball is None or player.kind != "stone"
                or not sector_active(self.ctx, self.planks.entities[0])):
            return
        plank6 = self.planks.entities[self.breaking_joint - 1]
        if distance(player.ball.get_position(), plank6.get_position()) <= self.break_radius:
            self.hinges[self.breaking_joint].destroy()
            self.broken = True
            for e in self.planks:
                wake(self.ctx, e)


@register("ballance.finish_balloon")
class FinishBalloon(Behavior):
    """The finish balloon (PE_Balloon): its balloons and ropes are pushed
    continuously (each balloon (0,1,0) 0.3 per PSI, each rope (-0.2,0,0) x 0.3),
    which acts once a wake gate (70) or the ball wakes them; on
    "Level_Finish" a launch force pushes the platform up and every body is
    woken, so the balloon flies off. The launch value is not in the spec."""

    messages = ("Level_Finish",)
    balloons = Param(Group, doc="the balloon bodies")
    ropes = Param(Group, doc="the rope bodies")
    platform = Param(Entity, doc="the balloon platform")
    balloon_force = Param(float, 0.3, "upward impulse per PSI on each balloon", bounds=PUSH)
    rope_force = Param(float, 0.3, "impulse per PSI on each rope along rope_direction", bounds=PUSH)
    rope_direction = Param(Vec3, (-0.2, 0.0, 0.0), "direction of the ropes' push", bounds=COORD)
    launch = Param(float, 2.0, "upward impulse per PSI on the platform from the finish (not in the spec)",
                   bounds=PUSH)

    def on_start(self) -> None:
        for b in self.balloons:
            force_block(self, b, (0.0, 1.0, 0.0), self.balloon_force).create()
        for r in self.ropes:
            force_block(self, r, self.rope_direction, self.rope_force).create()

    def on_message(self, message) -> None:
        force_block(self, self.platform, (0.0, 1.0, 0.0), self.launch).create()
        for e in list(self.balloons) + list(self.ropes) + [self.platform]:
            wake(self.ctx, e)


FALLING_STONE = "P_Modul_34"


def falling_stones(ctx) -> list:
    """(stone, crate) of each falling stone of the level (module 34: the stone
    on a vertical slider rests on the crate; push the crate out and the stone
    drops into its place, glue-and-content 3), found by the parts' names in
    the plug-in's module table (``PLACEHOLDER.P_Modul_34_Schiebestein``)."""
    suffix = {p.role: p.suffix for p in MODULES[FALLING_STONE].parts}
    out = []
    for e in ctx.entities:
        root, _, part = e.name.partition(".")
        crate = f"{root}.{FALLING_STONE}{suffix['crate']}"
        if part == FALLING_STONE + suffix["stone"] and crate in ctx:
            out.append((e, ctx.get(crate)))
    return out


__all__ = ["WakeGate", "Swing", "Sack", "Fan", "PlankBridge", "FinishBalloon"]
