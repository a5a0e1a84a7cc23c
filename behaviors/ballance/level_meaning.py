"""What a Ballance level file means (virtools-nmo.md 5; glue-and-content 3;
docs/levels.md): the plug-in's ``LevelMeaning``, which ``scenes.virtools``
finds through the entry point ``ivp.levels`` (pyproject.toml).

The module table: the prefabs' scripts are not read (5.5), so the physics of
each module comes from here (glue-and-content 3's values; the values it leaves
out are the bundled module scenes'), put on parts found by name: as the
original prefab names them (the names 5.5 points to, recorded with Three.js'
physTable), then under this project's older convention (``P_Modul_NN_Body``,
``P_Modul_NN_Hinge``), then as the one part of its kind whose name has a
keyword (``hinge``).
"""

from __future__ import annotations

import re

from ..levels import Joint, LevelMeaning, Module, Part
from .values import CHECKPOINT_NAME, LEVEL_BONUS, MAX_SECTORS, RESET_POINT_NAME, SECTOR_GROUP_NAME, WAKE_GATE_RADIUS

BUNDLED = {"linear_speed_dampening": 1, "rot_speed_dampening": 0.05}   # as the bundled module scenes
FROZEN = {"start_frozen": True}


def _shift(x, y, z) -> dict:
    return {"automatic_calculate_mass_center": False, "shift_mass_center": [x, y, z]}


def _cols(n: int, digits: int = 1) -> tuple:
    """The collision hulls' suffixes ``_Col1_Mesh`` .. (``_Col01_Mesh`` .. with 2 digits)."""
    return tuple(f"_Col{k:0{digits}d}_Mesh" for k in range(1, n + 1))


def _hinged(what: str, body: str, physics: dict, hulls: tuple, script: str = "", force_frame: str = "") -> Module:
    """One body on a hinge to the world at the prefab's ``_HingeFrame``."""
    parts = [Part("body", body, physics, hulls, convention=("_Body",)),
             Part("hinge frame", "_HingeFrame", convention=("_Hinge",), keyword="hinge")]
    entities = {}
    if force_frame:
        parts.append(Part("force frame", force_frame, optional=True))
        entities = {"entity": "body", "direction_ref": "force frame"}
    return Module(what, tuple(parts), (Joint("hinge", "hinge", "body", ("hinge frame",)),), script=script,
                  entities=entities)


PLANKS = tuple(f"plank {k}" for k in range(1, 10))
PLANK_HINGES = tuple(f"hinge frame {k}" for k in range(1, 11))
WALLS = tuple(f"wall {k}" for k in range(1, 8))
WEIGHT = {"mass": 2, "friction": 0.4, "linear_speed_dampening": 0.5, **FROZEN}

PLATES = tuple(f"plate {k}" for k in range(1, 9))
PLATE_HINGES = tuple(f"bridge hinge {k}" for k in range(1, 10))

# The finish balloon (glue-and-content 3, "Finish balloon"), PE_Balloon.nmo's
# names: the platform (its six hulls) on a slider to the box, held by the
# spring; the box is fixed here (the original's slides away on a second
# slider when the balloon departs: not built). The bridge: hinge 1 holds
# plate 1 to the platform, hinge k plate k to plate k-1, hinge 9 plate 8 to
# the world. The plates' mass is not in the spec: the plank bridge's 0.5.
# The balloons and ropes are drawn only. Frozen; the prefab's gate wakes it at 70.
BALLOON = Module("the finish balloon", (
    Part("platform", "_Platform", {"mass": 4, **_shift(0, 2, 0), **FROZEN},
         tuple(f"_Col_0{k}_Mesh" for k in range(1, 7))),
    Part("box", "_Box_slide", {"fixed": True, "enable_collision": False}, keyword="box_slide"),
    Part("low frame", "_Slideframe_low"), Part("high frame", "_Slideframe_high"),
    *(Part(p, f"_Platte{k:02d}", {"mass": 0.5, **FROZEN}) for k, p in enumerate(PLATES, 1)),
    *(Part(h, f"_Hinge{k:02d}") for k, h in enumerate(PLATE_HINGES, 1))),
    (Joint("slider", "slider", "platform", ("low frame", "high frame"), other="box",
           pins={"limitations": True, "lower_limit": -30000, "upper_limit": 0}),
     Joint("spring", "spring", "platform", ("platform", "box"), other="box",
           pins={"length": 15, "constant": 20, "linear_dampening": 0.6, "global_dampening": 1}),
     *(Joint(f"hinge{k}", "hinge", p, (h,), other=o) for k, (h, p, o) in enumerate(
         zip(PLATE_HINGES, PLATES + PLATES[-1:], ("platform",) + PLATES[:-1] + (None,)), 1))),
    gate_radius=70.0, entities={"finish": "platform"})    # the finish: 1 around the platform

MODULES = {
    "P_Modul_01": Module("a sliding gate", (
        Part("pusher", "_Pusher", {"mass": 3, "friction": 0.6, "elasticity": 0.4, "linear_speed_dampening": 0.1,
                                   "rot_speed_dampening": 1, "collision_group": "Floor", **FROZEN},
             _cols(3, 2)),
        Part("channel", "_Rinne", {"fixed": True, "collision_group": "Ball"},
             ("_Rinne_01_Mesh", "_Rinne_02_Mesh", "_Rinne_03_Mesh")),
        # The filler's group is not in the spec: Floor, so the ball rolls on it and the pusher slides over it.
        Part("filler", "_Filler", {"fixed": True, "collision_group": "Floor"}, ("_Filler_Mesh",), optional=True)),
        gate_role="pusher"),      # the prefab's proximity gate measures to its Pusher (Three.js' notes)
    "P_Modul_03": Module("a spring lift", (
        Part("platform", "_Floor", {"mass": 3, "friction": 0.7, "elasticity": 0, "linear_speed_dampening": 1,
                                    "rot_speed_dampening": 3, **FROZEN}, ("_Floor_Mesh",)),
        Part("low frame", "_frame_low"), Part("high frame", "_frame_high"),
        *(Part(w, f"_Wall0{k}", dict(WEIGHT, elasticity=0.01, rot_speed_dampening=1.5), ("_Wall_Coll_Mesh",))
          for k, w in enumerate(WALLS, 1)),
        Part("gate", "_Gate", dict(WEIGHT, elasticity=0, rot_speed_dampening=1),
             ("_Gate_Coll01_Mesh", "_Gate_Coll02_Mesh", "_Gate_Coll03_Mesh"))),
        (Joint("slider", "slider", "platform", ("low frame", "high frame")),
         Joint("spring", "spring", "platform", ("low frame", "high frame"),
               pins={"length": 0, "constant": 15, "linear_dampening": 0.1, "global_dampening": 1})),
        gate_radius=35.0),
    "P_Modul_08": _hinged("a swing", "_Schaukel", {"mass": 10, "collision_group": "Floor",
                                                   "linear_speed_dampening": 0.4, "rot_speed_dampening": 0.1,
                                                   **FROZEN}, _cols(6), "ballance.swing", "_Fix"),
    "P_Modul_17": Module("a rotating arm", (
        Part("arm", "_Dreharme", {"mass": 3, "linear_speed_dampening": 3, "rot_speed_dampening": 0.005},
             _cols(3, 2), convention=("_Body",), keyword="dreharme"),
        Part("hinge frame", "_HingeFrame", convention=("_Hinge",), keyword="hinge")),
        (Joint("hinge", "hinge", "arm", ("hinge frame",)),
         Joint("spring", "spring", "arm", ("hinge frame", "arm"),
               pins={"position_1": [0, 4, 0], "position_2": [0, 0, -4], "length": 0, "constant": 0.32,
                     "linear_dampening": 0.1, "global_dampening": 0.1}))),
    "P_Modul_19": _hinged("flaps", "_Flaps", {"mass": 3, **BUNDLED, **_shift(1, 1, 0), **FROZEN}, _cols(4)),
    "P_Modul_25": _hinged("a drawbridge", "_Bridge", {"mass": 3, "elasticity": 1, **BUNDLED,
                                                      **_shift(-2.5, 0.2, 0), **FROZEN}, _cols(2, 2)),
    "P_Modul_26": Module("a sack", (
        Part("rope", "_Rope", {"mass": 1, "enable_collision": False}, ("_Rope_Mesh",)),
        Part("sack", "_Sack", {"mass": 10}, ("_Sack_Mesh",)),
        Part("upper joint", "_Balljoint_oben"), Part("lower joint", "_Balljoint_unten"),
        Part("force frame", "_Halter", optional=True)),
        (Joint("rope top", "ball_joint", "rope", ("upper joint",)),
         Joint("rope sack", "ball_joint", "rope", ("lower joint",), other="sack")),
        script="ballance.sack", entities={"entity": "sack", "direction_ref": "force frame"}),
    "P_Modul_29": Module("a plank bridge", tuple(
        [Part(p, f"_Platte{k:02d}", {"mass": 1 if k == 9 else 0.5, "collision_group": "Modul29",
                                     "rot_speed_dampening": 0.3, **FROZEN}) for k, p in enumerate(PLANKS, 1)]
        + [Part(h, f"_HingeFrame{k:02d}") for k, h in enumerate(PLANK_HINGES, 1)]),
        gate_radius=80.0, script="ballance.plank_bridge", groups={"planks": PLANKS, "joints": PLANK_HINGES}),
    "P_Modul_30": _hinged("a seesaw", "_Wippe", {"mass": 3, "linear_speed_dampening": 1, "rot_speed_dampening": 1,
                                                 **_shift(0, 4, 0), **FROZEN}, _cols(2)),
    "P_Modul_34": Module("a falling stone", (
        Part("stone", "_Schiebestein", {"mass": 1.6, "friction": 0.5, **FROZEN}),
        Part("crate", "_Kiste", {"mass": 1.4, "friction": 0.8, "elasticity": 0.4, **FROZEN}),
        Part("first slider frame", "_Slider_Frame01"), Part("second slider frame", "_Slider_Frame02")),
        (Joint("slider", "slider", "stone", ("first slider frame", "second slider frame")),),
        gate_role="stone"),       # the prefab's proximity gate measures to its Schiebestein (Three.js' notes)
    "P_Modul_37": _hinged("a T-board", "_Bridge", {"mass": 3, "elasticity": 1, **BUNDLED, **_shift(-7.5, 0, 0),
                                                   **FROZEN}, _cols(3)),
    # the prefab (P_Modul_41.nmo) has "Automatic Calculate Mass Center" off and no shift: the mass centre is the
    # board's frame, 0.59 under its hinge (a float's keel), not its hulls' centre, 0.09 under it
    "P_Modul_41": _hinged("a float board", "", {"mass": 1, **_shift(0, 0, 0)}, _cols(2)),
    "PE_Balloon": BALLOON,
}


MEANING = LevelMeaning(
    name="Ballance",
    includes=("bundled:parts/player",),          # the player rig; it includes lib/ballance's group presets
    gravity=(0.0, -20.0, 0.0),                    # Set Physics Globals (glue-and-content 1)
    time_factor=2.0,
    physics_groups=("Phys_Floors", "Phys_FloorRails", "Phys_FloorStopper"),
    prop_groups=("P_Box", "P_Ball_Paper", "P_Ball_Wood", "P_Ball_Stone", "P_Dome"),
    trafo_groups=("P_Trafo_Paper", "P_Trafo_Wood", "P_Trafo_Stone"),
    start="PS_Levelstart", finish="PE_Levelende", checkpoints="PC_Checkpoints", reset_points="PR_Resetpoints",
    death_cubes="DepthTestCubes", extra_life="P_Extra_Life", extra_point="P_Extra_Point",
    plain_groups=re.compile(r"Shadow|Sound_(Hit|Roll)ID_\d+"),   # 5.1: the sounds are ballance.ball_sounds
    sector=re.compile(r"Sector_(\d+)"),
    sector_name=SECTOR_GROUP_NAME, reset_point_name=RESET_POINT_NAME, checkpoint_name=CHECKPOINT_NAME,
    max_sectors=MAX_SECTORS,
    start_height=3.65,                            # 5.2: PR_Resetpoint_01 stands 3.65 above PS_FourFlames_01
    finish_height=2.0,                            # a ball's radius above the balloon placeholder
    start_balls={"Ball_Paper": "paper", "Ball_Wood": "wood", "Ball_Stone": "stone"},
    reserved=frozenset({"Ball_Paper", "Ball_Wood", "Ball_Stone", "FixCube",      # parts/player.yaml's names
                        "Cam_MF", "Cam_Orient", "Cam_OrientRef", "Cam_Target", "Cam_Pos"}),   # the camera rig's
    behaviours={"level": "ballance.level", "transformers": "ballance.transformers", "fan": "ballance.fan",
                "wake_gate": "ballance.wake_gate", "music": "ballance.music", "fan_sound": "ballance.fan_sound"},
    module=re.compile(r"P_Modul_\d+"), module_root="{}_MF", fan="P_Modul_18", balloon="PE_Balloon",
    modules=MODULES, wake_gate_radius=WAKE_GATE_RADIUS,
    camera_file=("3D Entities", "Camera.nmo"),
    settings_file=("3D Entities", "Levelinit.nmo"), settings_table="AllLevel",
    default_start_ball="Ball_Wood", default_sky="Sky_L", level_bonus=LEVEL_BONUS,   # 5.6: Level_01's row
    # The game's scripts hide the reset points (no prefab replaces them) and
    # the start's and checkpoints' untextured stand-ins (a disc and cones, null
    # material in all 12 levels, over the plate floor's grate; their prefabs
    # are the flames); the death cubes are kill volumes, saved hidden in all
    # 12 levels, hidden here for custom maps that leave them shown
    # (docs/levels.md "What is hidden").
    hidden_groups=("PR_Resetpoints", "DepthTestCubes", "PS_Levelstart", "PC_Checkpoints"),
    # The balls and their pieces as the game draws them (parts/player.yaml's names).
    balls_file=("3D Entities", "Balls.nmo"),
    flame_prefabs=("PS_FourFlames", "PC_TwoFlames"),      # their frames are the flames' emitters
    # PE_Balloon.nmo saves all its parts hidden; the game's script shows the
    # balloon (Three.js' notes). Which parts: inferred from their meshes, the
    # platform, plates, balloons and ropes; the slide box (a unit cube 20 above
    # the platform) and the UFO's flash plane stay hidden.
    balloon_shown=("_Platform", "_Platte", "_Ballon0", "_Ballon_Seil"),
    sky_layer="SkyLayer",                                 # 5.4: shown by a script, scrolled by Skytranslation,
    sky_layer_light=200.0 / 255.0,                        # prelit 200/255 by Levelinit (Three.js' notes)
    # The rails' shine: no level material has an effect (virtools-nmo.md 3.5),
    # a script of the game maps this texture; the light is Gameplay.nmo's, in
    # the level's colour (5.6), with the game's ambient #0F0F0F (Three.js' notes).
    env_textures=("Rail_Environment",),
    light_file=("3D Entities", "Gameplay.nmo"),
    light="Light_Ingame",
    ambient=15.0 / 255.0,
    balls=("Ball_Paper", "Ball_Wood", "Ball_Stone", "Ball_Paper_Pieces", "Ball_Wood_Pieces", "Ball_Stone_Pieces"),
    autopilot="behaviors.ballance.autopilot:drive",
    start_sector="behaviors.ballance.level_meaning:start_at_sector",
)


def start_at_sector(scene, sector: int) -> None:
    """Put a loaded level, before its first frame, at ``sector`` as the game
    has it once that sector's checkpoint is reached (docs/levels.md
    "Autopilot"): the level's first frame then activates only that sector and
    gives the level's first ball at its reset point (as BallanceEnv.reset's
    ``sector`` option). A ValueError when the level has no such sector."""
    from .level import level_behavior, numbered
    level = level_behavior(scene.ctx)
    if level is None:
        raise ValueError(f"--sector: {scene.name!r} has no ballance.level behaviour")
    count = max(len(numbered(scene.ctx, level.reset_points)), len(numbered(scene.ctx, level.checkpoints)) + 1)
    if isinstance(sector, bool) or not 1 <= sector <= count:
        raise ValueError(f"--sector: {scene.name!r} has sectors 1 to {count}, not {sector!r}")
    level.sector = sector
