"""Ballance's gameplay on the behaviour API (glue-and-content 3)."""

from . import values
from .balls import BallPieces, PlayerBall, Transformers, physicalize_block, player_of
from .camera import CameraRig, camera_of, spring_step
from .level import Level, gameplay_state
from .modules import Fan, FinishBalloon, PlankBridge, Sack, Swing, WakeGate
from .navigation import BallNavigation

__all__ = ["values", "BallPieces", "PlayerBall", "Transformers", "physicalize_block", "player_of",
           "CameraRig", "camera_of", "spring_step", "Level", "gameplay_state",
           "Fan", "FinishBalloon", "PlankBridge", "Sack", "Swing", "WakeGate", "BallNavigation"]
