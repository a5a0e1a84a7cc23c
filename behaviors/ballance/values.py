"""Ballance's gameplay values (glue-and-content 3), named once for every script."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BallKind:
    """A player ball row of the table (glue-and-content 3, "Player balls")."""

    name: str
    friction: float
    elasticity: float
    mass: float
    linear_damping: float
    rot_damping: float
    force: float                # SetPhysicsForce Force Value: impulse per PSI
    sphere: bool                # paper is the convex hull of its mesh


BALL_RADIUS = 2.0
BALL_COLLISION_GROUP = "Ball"
BALL_KINDS = {
    "paper": BallKind("paper", 0.5, 0.4, 0.2, 1.5, 0.1, 0.065, sphere=False),
    "wood": BallKind("wood", 0.8, 0.2, 1.9, 0.9, 0.1, 0.43, sphere=True),
    "stone": BallKind("stone", 0.5, 0.1, 10.0, 0.3, 0.1, 0.92, sphere=True),
}
KIND_NAMES = tuple(BALL_KINDS)
ROLLING = 5.0 / 7.0                  # a solid ball rolling gets this part of a force along the floor

# Ball navigation: key -> direction in the camera's orientation frame.
NAV_DIRECTIONS = {
    "Up": (0.0, 0.0, 1.0),
    "Down": (0.0, 0.0, -1.0),
    "Right": (1.0, 0.0, 0.0),
    "Left": (-1.0, 0.0, 0.0),
}
TURN_MODIFIER = "LShift"
RAISE_KEY = "Space"
TURN_ANGLE_DEG = 90.0
TURN_TIME_MS = 250.0                 # along an eased curve (camera.eased)
RAISE_HEIGHT = 50.0
RAISE_EYE_FORCE_Y = 2.0              # the eye's vertical spring force while Space is held

# Camera springs: new = cur + (followed - cur - offset) * force * dt + (cur - prev) * damping.
TARGET_FORCE = (10.0, 10.0, 10.0)
TARGET_DAMPING = (0.0, 0.0, 0.0)
EYE_FORCE = (5.0, 0.8, 5.0)
EYE_DAMPING = (0.5, 0.3, 0.5)
EYE_SLOT = (0.0, 35.0, -22.0)       # 35 up and 22 behind, orientation frame
ORIENT_HEADING = (-1.0, 0.0, 0.0)   # Camera.nmo: Cam_Orient's Z in its root Cam_MF's frame
START_YAW_DEG = -90.0                # Cam_OrientRef's Z is world -X at the start: the slot is (22, 35, 0)

# Triggers (no physics bodies): radii of their spheres.
CHECKPOINT_RADIUS = 6.5
EXTRA_LIFE_RADIUS = 4.5
EXTRA_POINT_RADIUS = 3.0
TRANSFORMER_RADIUS = 4.3
FINISH_RADIUS = 1.0
TRANSFORMER_FLOAT = 3.0              # the spring pulls the ball toward this far above the pad
TRANSFORMER_SPRING_S = 1.35          # the spring pulls for 1.35 s
TRANSFORMER_BURST_S = 2.35           # the old ball bursts into pieces
TRANSFORMER_NEW_S = 2.5              # the new kind appears, zero velocity
CHECKPOINT_FLAME_HEIGHT = 1.495      # the checkpoint sphere's centre above the flame's origin
EXTRA_LIFE_DELAY_S = 0.317           # +1 life this long after the pickup
FAN_BASE = 1.14                      # the column's base above the fan

# Names (the number in the name orders them).
RESET_POINT_NAME = "PR_Resetpoint_{:02d}"    # sector N starts here (sector 1 too)
CHECKPOINT_NAME = "PC_TwoFlames_{:02d}"      # checkpoint N ends sector N
SECTOR_GROUP_NAME = "Sector_{:02d}"
MAX_SECTORS = 99                             # two digits in the names

# Death (Gameplay's Deactivate Ball, Three.js' notes): a white pulse of 2 s,
# the ball off at its peak (1 s) and New Ball begins there; the level's start
# runs New Ball 1 s in too. New Ball's birth (Balls.nmo's lightning sphere
# lives 3 s) keeps the new ball hidden and out of the physics for BIRTH_S:
# control at 4 s.
DEATH_HIDE_S = 1.0
DEATH_FADE_S = 2.0
DEATH_REBIRTH_S = 1.0
START_BIRTH_S = 1.0
# The finish: Gameplay's "fadeout Sky" filters the SkyLayer's prelit colour
# linearly to black over 3 s (Three.js' notes).
FINISH_SKY_FADE_S = 3.0
# The level's end also sets the camera's clipping to 3 / 2500 (in play: 3 / 1200).
FINISH_FAR = 2500.0
# A new ball's birth: Balls.nmo's lightning sphere lives 3 s, New Ball waits
# 3 s before physicalizing (Three.js' notes).
BIRTH_S = 3.0

# Ball pieces.
PIECE_COUNTS = {"wood": 16, "stone": 17, "paper": 18}
PIECE_LIFE_S = 20.0

# Props falling out of the level.
PROP_FALL_DEPTH = 200.0              # below the lowest death cube: unphysicalized and hidden
PROP_GROUPS = ("P_Box", "P_Ball_Wood", "P_Ball_Stone", "P_Ball_Paper")

# Level end.
END_WAIT_S = 10.0                    # between the finish and the score count

# Score.
START_POINTS = 1000
POINT_LOSS_PERIOD = 0.5              # s: -1 each
EXTRA_POINT_BONUS = 100
EXTRA_POINT_SATELLITES = 6
SATELLITE_BONUS = 20
SPARE_LIVES = 3
LEVEL_BONUS = 100                    # x level number
LIFE_BONUS = 200                     # x spare lives left

# Flames: the emitters are the frames of the prefabs PS_FourFlames / PC_TwoFlames,
# imported as "<placeholder>.<frame>" (scenes/virtools/level.py). The start's
# four burn always; the next checkpoint's big flame burns, the later ones'
# two small flames, none once crossed.
START_FLAMES = tuple(f"PS_FourFlames_Flame_{x}" for x in "ABCD")
CHECKPOINT_BIG_FLAME = "PC_TwoFlames_Flame_Big"
CHECKPOINT_SMALL_FLAMES = ("PC_TwoFlames_Flame_SmallA", "PC_TwoFlames_Flame_SmallB")
BIG_FLAME_SIZE = 2.0                 # the big flame's particles against a small one's (not in the spec)

# The ball's blob shadow (Balls.nmo's TT Simple Shadow): on the Shadow group's
# members, as wide as the ball times 1.3, down to 20 below the ball.
SHADOW_GROUP = "Shadow"
SHADOW_SIZE_SCALE = 1.3
SHADOW_MAX_HEIGHT = 20.0

# Sounds (the game's Sounds/*.wav by name; docs/behaviors.md "Sounds"). Surface
# classes of the Sound_HitID_NN / Sound_RollID_NN groups (virtools-nmo 5.1).
HIT_GROUP_NAME = "Sound_HitID_{:02d}"
ROLL_GROUP_NAME = "Sound_RollID_{:02d}"
SURFACES = {1: "Stone", 2: "Wood", 3: "Metal"}
DOME_ID = 4                          # the dome's hit class (P_Dome)
# Hit detectors per class: Min Speed, Max Speed, Sleep afterwards (Sound.nmo's "Hit Sounds").
HIT_DETECTORS = {1: (2.0, 30.0, 1.0), 2: (2.0, 14.0, 1.0), 3: (2.0, 14.0, 2.0), DOME_ID: (1.0, 15.0, 1.0)}
DOME_HITS = {"wood": "Hit_Wood_Dome", "stone": "Hit_Stone_Kuppel", "paper": "Hit_Paper"}
ROLL_DELAY_S = 0.3                   # contact on and off delays of the roll sounds
ROLL_VOLUME_FACTOR = 0.05            # volume min(1, 0.05 v)
ROLL_PITCH = (0.5, 0.01)             # pitch 0.5 + 0.01 v
FLAP_DETECTOR = (0.3, 10.0, 0.5)     # each Phys_FloorStopper member's hit detector
FLAP_GROUP = "Phys_FloorStopper"
SOUND_FALL = "Misc_Fall"
SOUND_NEW_BALL = "Misc_Lightning"
SOUND_LEVEL_START = "Misc_StartLevel"
SOUND_CHECKPOINT = "Misc_Checkpoint"
SOUND_LIFE = "Extra_Life_Blob"
SOUND_LIFE_ADDED = "Misc_extraball"
SOUND_POINT = "Extra_Start"
SOUND_SATELLITE = "Extra_Hit"
SOUND_TRAFO = "Misc_Trafo"
SOUND_FLAP = "Hit_WoodenFlap"
SOUND_FINISH = "Music_Final"
SOUND_LAST_FINISH = "Music_LastFinal"   # the last level's
LAST_LEVEL = 12


def hit_sound(kind: str, surface: int) -> str:
    """``Hit_<Ball>_<Surface>`` (paper: ``Hit_Paper`` on every surface)."""
    if surface == DOME_ID:
        return DOME_HITS[kind]
    return "Hit_Paper" if kind == "paper" else f"Hit_{kind.capitalize()}_{SURFACES[surface]}"


def roll_sound(kind: str, surface: int) -> str:
    """``Roll_<Ball>_<Surface>`` (paper: ``Roll_Paper`` on every surface)."""
    return "Roll_Paper" if kind == "paper" else f"Roll_{kind.capitalize()}_{SURFACES[surface]}"


def pieces_sound(kind: str) -> str:
    return f"Pieces_{kind.capitalize()}"


def linear_volume(x: float) -> float:
    """TT_LinearVolume: 0 up to 0.01, then 0.02 x 50^x, at most 1."""
    return 0.0 if x <= 0.01 else min(1.0, 0.02 * 50.0 ** x)


# PH modules.
WAKE_GATE_RADIUS = 50.0              # horizontal
SWING_FORCE = 1.1
SWING_PHASE_MS = 500.0
SACK_FORCE = 0.25
SACK_FLIP_MS = 1500.0
FAN_FORCE = 0.1
FAN_BOX = (2.0, 16.0, 2.0)

# The ranges of the behaviours' parameters (behaviors.params, bounds=): what a
# scene may give, refused at load beyond. Not in the spec: they bound the work
# of a frame and keep the values in the engine's limits.
SECONDS = (0.0, 3600.0)              # a delay or a duration (scenes' MAX_LENGTH)
DISTANCE = (0.0, 1e5)                # metres: a radius, a spread, a size (scenes' MAX_COORD)
COORD = (-1e5, 1e5)                  # metres: a coordinate or a direction's component
SPEED = (0.0, 1e5)                   # metres per second
PUSH = (-1e9, 1e9)                   # an impulse per PSI (ivp's MAX_IMPULSE)
RATE = (0.0, 1e4)                    # a spring's constant or damping per kg of ball
POINT_PERIOD = (0.01, 3600.0)        # seconds per point lost: the level counts each, so not below 0.01
LEVELS = (1, 999)                    # a level number (the original has 13)


def final_score(level: int, points: int, lives: int) -> int:
    """Final = 100 x level + points + 200 x lives (glue-and-content 3)."""
    return LEVEL_BONUS * level + points + LIFE_BONUS * lives
