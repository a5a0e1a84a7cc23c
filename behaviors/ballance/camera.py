"""The camera rig (glue-and-content 3, "Camera" and "Ball navigation").

Three entities: the orientation frame "Cam_OrientRef" (on the ball, yaw only;
the navigation forces take their directions from it), the look target
"Cam_Target" and the eye "Cam_Pos". Target and eye follow discrete springs,
each frame and per axis:

    new = cur + (followed - cur - offset) * force * dt + (cur - prev) * damping

with dt the frame time in seconds; the target follows the ball (offset 0), the
eye its slot in the orientation frame (offset = -slot).

The rig is the game's Camera.nmo (docs/levels.md): under its root "Cam_MF",
the turning frame "Cam_Orient" and in it the eye's slot "Cam_Pos", 35 up and
22 behind. When the scene has these entities (an imported level whose game
folder has the file) the rig is read from their poses; else it is the stated
one (values.EYE_SLOT and ORIENT_HEADING). At the
level's start and at every respawn the rig is restored and its root stamped
onto the reset point's world matrix: the orientation frame takes the turning
frame's heading turned by the reset point (for the original's rig, the reset
point's -X axis), undoing any quarter turns. Before the first spawn the
frame's Z is world -X. Left Shift + Left / Right turn the frame by 90 degrees
over 250 ms of frame time, eased (slow in, slow out); holding Space raises the
slot by 50 and makes the eye's vertical spring force 2. At the level's end
("Level_Finish") the eye stays where it is and keeps looking at the ball.
"""

from __future__ import annotations

import math

from ..api import Behavior, manager_of
from ..params import Param
from ..registry import register
from .balls import player_of
from .values import (EYE_DAMPING, EYE_FORCE, EYE_SLOT, ORIENT_HEADING, RAISE_EYE_FORCE_Y, RAISE_HEIGHT, RAISE_KEY,
                     START_YAW_DEG, TARGET_DAMPING, TARGET_FORCE, TURN_ANGLE_DEG, TURN_MODIFIER, TURN_TIME_MS)


def spring_step(cur, prev, followed, offset, force, damping, dt: float):
    """One step of a camera spring, per axis (glue-and-content 3)."""
    return tuple(cur[i] + (followed[i] - cur[i] - offset[i]) * force[i] * dt + (cur[i] - prev[i]) * damping[i]
                 for i in range(3))


def yaw_vector(yaw_deg: float, v):
    """``v`` of the orientation frame in world axes: a turn of ``yaw_deg`` about Y
    (left-handed, positive turns Z toward +X, as CK's Rotate about Y)."""
    a = math.radians(yaw_deg)
    c, s = math.cos(a), math.sin(a)
    return (v[0] * c + v[2] * s, v[1], -v[0] * s + v[2] * c)


def heading_of(entity) -> float:
    """The yaw (degrees) of an entity's -X axis projected on the ground: the
    camera heading a reset point gives (the original's rig looks along it)."""
    right = entity.get_orientation()[2]
    return math.degrees(math.atan2(-right[0], -right[2]))


def eased(f: float) -> float:
    """The turn's curve: slow in, slow out, (1 - cos(pi f)) / 2 for f in 0..1."""
    return (1.0 - math.cos(math.pi * f)) * 0.5


class CameraSpring:
    """A spring's current and previous positions."""

    def __init__(self, force, damping):
        self.force = force
        self.damping = damping
        self.cur = self.prev = None

    def snap(self, p) -> None:
        self.cur = self.prev = tuple(p)

    def step(self, followed, offset, dt: float, force=None):
        if self.cur is None:
            self.snap(tuple(followed[i] - offset[i] for i in range(3)))
        new = spring_step(self.cur, self.prev, followed, offset, force or self.force, self.damping, dt)
        self.prev, self.cur = self.cur, new
        return new


@register("ballance.camera")
class CameraRig(Behavior):
    """Follows the player ball with the target and eye springs; turns and raises."""

    messages = ("Level_Finish",)
    makes = ("orient_ref", "target", "eye")
    orient_ref = Param(str, "Cam_OrientRef", "the orientation frame entity (created if absent)")
    target = Param(str, "Cam_Target", "the look-target entity (created if absent)")
    eye = Param(str, "Cam_Pos", "the eye (camera) entity (created if absent)")
    root = Param(str, "Cam_MF", "the rig's root frame, stamped onto the reset point (read when present)")
    orient = Param(str, "Cam_Orient", "the rig's turning frame, the eye's slot authored in it (read when present)")
    yaw = Param(float, START_YAW_DEG, "initial yaw in degrees (0: looking along +Z; -90, the original's: -X)",
                bounds=(-360.0, 360.0))
    turn_left_key = Param(str, "Left")
    turn_right_key = Param(str, "Right")
    modifier_key = Param(str, TURN_MODIFIER)
    raise_key = Param(str, RAISE_KEY)

    def camera_matrix(self):
        """The viewer's hook (behaviors.hooks): the eye's world matrix (it looks
        at the target along its Z) once it follows a ball, else None."""
        if self.eye_spring.cur is None:
            return None
        return self.eye_entity.get_world_matrix().as_array()

    def __init__(self, ctx, entity=None, **params):
        super().__init__(ctx, entity, **params)
        self.frame_entity = self._entity(self.orient_ref)
        self.target_entity = self._entity(self.target)
        self.eye_entity = self._entity(self.eye)
        self.target_spring = CameraSpring(TARGET_FORCE, TARGET_DAMPING)
        self.eye_spring = CameraSpring(EYE_FORCE, EYE_DAMPING)
        self.turn = None
        self.frozen = False
        self.initial_yaw = self.yaw
        self.heading_in_root, self.eye_slot = self._authored_rig()
        self._set_yaw(self.yaw)

    def _authored_rig(self) -> tuple:
        """(the turning frame's Z in the root's frame, the eye's slot in the
        turning frame) as the scene's rig entities are posed (Camera.nmo), or
        the stated rig when the scene lacks the root, the turning frame or
        the eye."""
        if not all(name in self.ctx for name in (self.root, self.orient, self.eye)):
            return ORIENT_HEADING, EYE_SLOT
        root, orient = self.ctx.get(self.root), self.ctx.get(self.orient)
        heading = tuple(orient.get_orientation(ref=root)[0])
        slot = tuple(orient.inverse_transform(self.ctx.get(self.eye).get_position()))
        return heading, slot

    def stamped_yaw(self, reset_point) -> float:
        """The orientation frame's yaw (degrees) with the rig's root on
        ``reset_point``'s world matrix: the turning frame's Z turned as the
        reset point turns the root, i.e. the reset point's -X heading
        (``heading_of``) plus the turning frame's yaw from the root's -X axis
        (yaw -90; 0 for the original's rig). Reset points stand upright: yaw
        only, as the orientation frame."""
        x, _, z = self.heading_in_root
        return heading_of(reset_point) + (math.degrees(math.atan2(x, z)) + 90.0)

    def _entity(self, name: str):
        return self.ctx.get(name) if name in self.ctx else self.ctx.create_entity(name, visible=False)

    def _set_yaw(self, yaw_deg: float) -> None:
        self.yaw = yaw_deg
        self.frame_entity.set_orientation(yaw_vector(yaw_deg, (0.0, 0.0, 1.0)), (0.0, 1.0, 0.0))

    @property
    def raised(self) -> bool:
        return self.key_down(self.raise_key)

    def slot(self):
        """The eye's slot relative to the ball, in world axes."""
        x, y, z = self.eye_slot
        return yaw_vector(self.yaw, (x, y + (RAISE_HEIGHT if self.raised else 0.0), z))

    def eye_force(self):
        """The eye spring's force: its vertical part is 2 while Space is held."""
        f = self.eye_spring.force
        return (f[0], RAISE_EYE_FORCE_Y, f[2]) if self.raised else f

    def on_message(self, message) -> None:
        """The level's end: the eye slot freezes."""
        self.frozen = True

    def stamp(self, reset_point) -> None:
        """Level start and respawn: the rig restored with its root on the
        reset point (``stamped_yaw``), both springs at their goals."""
        self.snap(self.stamped_yaw(reset_point))

    def snap(self, yaw_deg: float | None = None) -> None:
        """The yaw (when given) and both springs at their goals."""
        if yaw_deg is not None:
            self.turn = None
            self._set_yaw(yaw_deg)
        player = player_of(self.ctx)
        if player is None or player.entity_in_play is None:
            return
        p = player.entity_in_play.get_position()
        s = self.slot()
        self.target_spring.snap(p)
        self.eye_spring.snap(tuple(p[i] + s[i] for i in range(3)))
        self._place()

    def on_frame(self, dt: float) -> None:
        self._turn(dt)
        player = player_of(self.ctx)
        if player is None or player.entity_in_play is None:
            return
        p = player.entity_in_play.get_position()
        self.frame_entity.set_position(p)
        s = self.slot()
        self.target_spring.step(p, (0.0, 0.0, 0.0), dt)
        if not self.frozen:
            self.eye_spring.step(p, (-s[0], -s[1], -s[2]), dt, self.eye_force())
        self._place()

    def _turn(self, dt: float) -> None:
        if self.turn is None and self.key_down(self.modifier_key):
            for key, sign in ((self.turn_left_key, -1.0), (self.turn_right_key, 1.0)):
                if self.key_pressed(key):
                    self.turn = {"from": self.yaw, "by": sign * TURN_ANGLE_DEG, "ms": 0.0}
                    break
        if self.turn is not None:
            t = self.turn
            t["ms"] += dt * 1000.0
            f = min(t["ms"] / TURN_TIME_MS, 1.0)
            self._set_yaw(t["from"] + t["by"] * eased(f))
            if f >= 1.0:
                self.turn = None

    def _place(self) -> None:
        self.target_entity.set_position(self.target_spring.cur)
        self.eye_entity.set_position(self.eye_spring.cur)
        self.eye_entity.look_at(self.target_spring.cur)

    @property
    def turning(self) -> bool:
        return self.turn is not None

    def on_reset(self) -> None:
        self.turn = None
        self.frozen = False
        self.target_spring.cur = self.eye_spring.cur = None
        self._set_yaw(self.initial_yaw)


def camera_of(ctx) -> CameraRig | None:
    """The context's CameraRig behaviour, if any."""
    m = manager_of(ctx, create=False)
    found = m.find(CameraRig) if m is not None else []
    return found[0] if found else None
