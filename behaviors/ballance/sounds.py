"""The ball's hit and roll sounds (the original's Sound.nmo "Hit Sounds" and
"MultiRollSoundControl"; docs/behaviors.md "Sounds"), emitted as SoundEvents
(``Behavior.sound``) named after the game's ``Sounds/*.wav``.

Surfaces: the members of ``Sound_HitID_NN`` get the "Coll Detection ID" NN
and those of ``Sound_RollID_NN`` the "Continuous Contact ID" NN (01 stone,
02 wood, 03 metal; virtools-nmo 5.1); the dome props get hit class 4.

While the ball navigation is on ("Ball Nav On" to "Ball Nav Off"), the ball
in play carries one PhysicsCollDetection per hit class (Min Speed, Max
Speed, Sleep afterwards: stone 2 / 30 / 1, wood 2 / 14 / 1, metal 2 / 14 / 2,
dome 1 / 15 / 1, filtered by the class) and one PhysicsContinuousContact
(0.3 s on and off delays). A collision plays ``Hit_<Ball>_<Surface>`` at
the detector's Speed (0-1), min(1, speed / Max Speed); a contact on N loops
``Roll_<Ball>_<Surface>`` until its contact off, each frame at volume
min(1, 0.05 v) and pitch 0.5 + 0.01 v ("set" when they change), where v is
the ball's speed measured across the last frame (distance / frame time, as
the original's SpeedOMeter).
Paper has one hit and one roll sound for every surface.

Each member of Phys_FloorStopper has its own detector (0.3 / 10 / 0.5, no
class filter): ``Hit_WoodenFlap`` at TT_LinearVolume of its Speed (0-1).

The fans (``ballance.fan_sound``): ``Misc_Ventilator`` loops while the ball
is within the far distance of a fan (P_Modul_18), at the volume of the
nearest one: 1 up to 2, then linearly down to 0 at 25 (the fan prefab's
sound source and its attenuation range, as Three.js' notes report them).
"""

from __future__ import annotations

import math

from bbglue import CKGroup
from bbglue.blocks.contacts import COLL_DETECTION_ID, CONTINUOUS_CONTACT_ID

from ..api import Behavior
from ..params import Group, Param
from ..registry import register
from .balls import distance, player_of
from .values import (DOME_ID, FLAP_DETECTOR, FLAP_GROUP, HIT_DETECTORS, HIT_GROUP_NAME, ROLL_DELAY_S,
                     ROLL_GROUP_NAME, ROLL_PITCH, ROLL_VOLUME_FACTOR, SOUND_FLAP, SURFACES, hit_sound,
                     linear_volume, roll_sound)


def _detector_pins(min_speed: float, max_speed: float, sleep: float) -> dict:
    return {"min_speed": min_speed, "max_speed": max_speed, "sleep_afterwards": sleep}


@register("ballance.ball_sounds")
class BallSounds(Behavior):
    """The player ball's hit and roll sounds and the wooden flaps' hits (module docstring)."""

    messages = ("Ball Nav On", "Ball Nav Off")
    hit_groups = Param(str, HIT_GROUP_NAME, "name of hit class N's group, a format of N")
    roll_groups = Param(str, ROLL_GROUP_NAME, "name of roll class N's group, a format of N")
    domes = Param(Group, "P_Dome", "the dome props (hit class 4)", optional=True)
    flaps = Param(Group, FLAP_GROUP, "the wooden flaps: each has its own hit detector", optional=True)

    def __init__(self, ctx, entity=None, **params):
        """The surfaces get their classes here, before any behaviour saves
        initial conditions (a reset then keeps them)."""
        super().__init__(ctx, entity, **params)
        for fmt, param, attribute in ((self.hit_groups, "hit_groups", COLL_DETECTION_ID),
                                      (self.roll_groups, "roll_groups", CONTINUOUS_CONTACT_ID)):
            for n in SURFACES:
                try:
                    name = fmt.format(n)
                except (IndexError, KeyError, ValueError) as exc:
                    raise ValueError(f"{self.name}: parameter {param!r}: {fmt!r} is not a format of the "
                                     f"class number ({exc})") from None
                group = ctx.get(name) if name in ctx else None
                for e in (group.entities if isinstance(group, CKGroup) else ()):
                    e.set_attribute(attribute, n)
        for e in (self.domes or ()):
            e.set_attribute(COLL_DETECTION_ID, DOME_ID)

    def on_start(self) -> None:
        self.kind = None
        self.detectors = []
        self.rolling = {}               # class -> the looping roll sound
        self.last = None                # the ball's position at the last frame
        self.speed = 0.0
        self.mix = None                 # the rolls' last (volume, pitch)
        for e in (self.flaps or ()):
            self.collision_detection(e, **_detector_pins(*FLAP_DETECTOR))

    def on_message(self, message) -> None:
        self._ball_off()
        player = player_of(self.ctx)
        if message.name == "Ball Nav On" and player is not None and player.ball is not None:
            self.kind = player.kind
            ball = player.ball
            for n, pins in HIT_DETECTORS.items():
                self.detectors.append(self.collision_detection(ball, use_collision_id=True, collision_id=n,
                                                               **_detector_pins(*pins)))
            self.detectors.append(self.continuous_contact(
                ball, number_group_output=max(SURFACES) + 1, time_delay_start=ROLL_DELAY_S,
                time_delay_end=ROLL_DELAY_S))

    def _ball_off(self) -> None:
        """The ball's detectors gone, its roll sounds stopped."""
        for blk in self.detectors:
            self.dispose(blk)
        self.detectors = []
        for name in getattr(self, "rolling", {}).values():      # none before the first start
            self.sound(name, 0.0, 1.0, "stop")
        self.rolling = {}
        self.kind = None

    def on_frame(self, dt: float) -> None:
        """The ball's speed across the last frame; the rolls' volume and pitch."""
        player = player_of(self.ctx)
        p = player.entity_in_play.get_position() if player is not None and player.entity_in_play else None
        self.speed = distance(p, self.last) / dt if p is not None and self.last is not None and dt > 0 else 0.0
        self.last = p
        mix = self.roll_mix()
        if self.rolling and mix != self.mix:
            for name in self.rolling.values():
                self.sound(name, *mix, "set")
        self.mix = mix

    def roll_mix(self) -> tuple:
        """(volume, pitch) of a roll sound at the ball's speed v: min(1, 0.05 v), 0.5 + 0.01 v."""
        v = self.speed
        return min(1.0, ROLL_VOLUME_FACTOR * v), ROLL_PITCH[0] + ROLL_PITCH[1] * v

    def on_collision(self, event) -> None:
        if self.flaps is not None and event.entity in self.flaps:
            self.sound(SOUND_FLAP, linear_volume(event.speed))
            return
        n = event.other.get_attribute(COLL_DETECTION_ID, None) if event.other is not None else None
        if self.kind is not None and n in HIT_DETECTORS and math.isfinite(event.speed):
            self.sound(hit_sound(self.kind, n), event.speed)

    def on_contact(self, event) -> None:
        n = event.group
        if self.kind is None or n not in SURFACES:
            return
        if event.on and n not in self.rolling:
            self.rolling[n] = roll_sound(self.kind, n)
            self.mix = self.roll_mix()
            self.sound(self.rolling[n], *self.mix, "loop")
        elif not event.on and n in self.rolling:
            self.sound(self.rolling.pop(n), 0.0, 1.0, "stop")

    def on_reset(self) -> None:
        """The manager disposed of the detectors; the rolls stop."""
        self.detectors = []
        for name in self.rolling.values():
            self.sound(name, 0.0, 1.0, "stop")
        self.rolling = {}


FAN_SOUND = "Misc_Ventilator"


@register("ballance.fan_sound")
class FanSound(Behavior):
    """The fans' loop, at the nearest fan's volume by the ball's distance (module docstring)."""

    fans = Param(Group, "P_Modul_18", "the fans", optional=True)
    near = Param(float, 2.0, "full volume up to this distance", bounds=(0.0, 1e6))
    far = Param(float, 25.0, "silent from this distance on", bounds=(0.0, 1e6))

    def on_start(self) -> None:
        self.volume = None              # the loop's volume, None while it is off

    def on_frame(self, dt: float) -> None:
        player = player_of(self.ctx)
        ball = player.ball if player is not None else None
        d = min((distance(ball.get_position(), f.get_position()) for f in (self.fans or ())), default=math.inf) \
            if ball is not None else math.inf
        volume = min(1.0, (self.far - d) / max(self.far - self.near, 1e-9)) if d < self.far else None
        if volume is None and self.volume is not None:
            self.sound(FAN_SOUND, action="stop")
        elif volume is not None and self.volume is None:
            self.sound(FAN_SOUND, volume=volume, action="loop")
        elif volume is not None and volume != self.volume:
            self.sound(FAN_SOUND, volume=volume, action="set")
        self.volume = volume
