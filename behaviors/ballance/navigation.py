"""Ball navigation (glue-and-content 3; ivp spec 6.3, 7.2).

Four SetPhysicsForce blocks on the player ball, one per arrow key, direction
(0,0,1), (0,0,-1), (1,0,0), (-1,0,0) with the camera's orientation frame as
Direction Ref, Position (0,0,0) with the ball as Pos Referential, Force Value
from the ball's kind. A press creates the force, a release destroys it, and
both wake the ball (a sleeping ball's controllers do not run, spec 6.3; one
Physics WakeUp block per ball, triggered at each change). The
direction is captured at creation (spec 7.2): turning the camera changes the
push only on a fresh press. The axes are independent, there is no jump and no
speed cap. While Left Shift is held, Left / Right turn the camera instead.
"""

from __future__ import annotations

from bbglue.blocks import PhysicsWakeUp, SetPhysicsForce

from ..api import Behavior
from ..params import Entity, Param
from ..registry import register
from .balls import player_of
from .values import BALL_KINDS, NAV_DIRECTIONS, TURN_MODIFIER


@register("ballance.navigation")
class BallNavigation(Behavior):
    """Arrow keys push the player ball in the camera's orientation frame."""

    messages = ("Ball Nav On", "Ball Nav Off")
    orient_ref = Param(Entity, "Cam_OrientRef", "the camera orientation frame (ballance.camera makes it)")
    enabled = Param(bool, True, "navigation on at start (messages Ball Nav On / Off switch it)")
    up_key = Param(str, "Up")
    down_key = Param(str, "Down")
    right_key = Param(str, "Right")
    left_key = Param(str, "Left")
    modifier_key = Param(str, TURN_MODIFIER)

    def on_start(self) -> None:
        self.on = self.enabled
        self.ball = self.body = self.waker = None
        self.blocks = {}
        self.active = set()

    def keys(self) -> dict:
        return {self.up_key: NAV_DIRECTIONS["Up"], self.down_key: NAV_DIRECTIONS["Down"],
                self.right_key: NAV_DIRECTIONS["Right"], self.left_key: NAV_DIRECTIONS["Left"]}

    def on_message(self, message) -> None:
        self.on = message.name == "Ball Nav On"
        if not self.on:
            self.release_all()

    def _rebuild(self, ball, kind: str) -> None:
        self.release_all()
        self.ball = ball
        self.body = self.ctx.physics.body_of(ball)
        self.blocks = {}
        self.waker = PhysicsWakeUp(ball, self.ctx) if ball is not None else None
        if ball is None:
            return
        force = BALL_KINDS[kind].force
        for key, d in self.keys().items():
            self.blocks[key] = self.own(SetPhysicsForce(ball, self.ctx, position=(0.0, 0.0, 0.0), pos_referential=ball,
                                                        direction=d, direction_ref=self.orient_ref, force_value=force))

    def release_all(self) -> None:
        """Destroy every active force (waking the ball once)."""
        if self.active:
            for key in self.active:
                self.blocks[key].destroy()
            self.active = set()
            if self.ball is not None and self.ctx.physics.is_physicalized(self.ball):
                self.waker.trigger()

    def on_frame(self, dt: float) -> None:
        player = player_of(self.ctx)
        ball = player.ball if player is not None else None
        if ball is not self.ball or self.ctx.physics.body_of(ball) is not self.body:
            self._rebuild(ball, player.kind if player is not None else None)
        if ball is None or not self.on:
            return
        turning = self.key_down(self.modifier_key)
        for key, blk in self.blocks.items():
            want = self.key_down(key) and not (turning and key in (self.left_key, self.right_key))
            if want and key not in self.active:
                blk.create()
                self.active.add(key)
                self.waker.trigger()
            elif not want and key in self.active:
                blk.destroy()
                self.active.discard(key)
                self.waker.trigger()

    def on_reset(self) -> None:
        self.on_start()
