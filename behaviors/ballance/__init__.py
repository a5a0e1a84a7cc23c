"""Ballance's gameplay on the behaviour API (glue-and-content 3; the rules: docs/behaviors.md)."""

from . import values
from .balls import BallPieces, PlayerBall, Transformers, physicalize_block, player_of
from .boxes import OrientedBox, box_of, boxes_intersect
from .camera import CameraRig, camera_of, heading_of, spring_step
from .level import Level, gameplay_state, set_paused
from .modules import Fan, FinishBalloon, PlankBridge, Sack, Swing, WakeGate
from .music import Music
from .navigation import BallNavigation
from .sectors import sector_active
from .sounds import BallSounds, FanSound

__all__ = ["values", "BallPieces", "PlayerBall", "Transformers", "physicalize_block", "player_of",
           "OrientedBox", "box_of", "boxes_intersect", "CameraRig", "camera_of", "heading_of", "spring_step",
           "Level", "gameplay_state", "set_paused", "Fan", "FinishBalloon", "PlankBridge", "Sack", "Swing",
           "WakeGate", "Music", "BallNavigation", "sector_active", "BallSounds", "FanSound"]
