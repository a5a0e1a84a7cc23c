"""What a game's level files mean, offered by its plug-in (DESIGN "The game is
a plug-in"; docs/levels.md).

``scenes.virtools`` reads Virtools files for any game; which groups are
floors, props, reset points or modules, and what a module prefab's parts do,
is a ``LevelMeaning`` a plug-in names in the entry-point group ``ivp.levels``
(as its behaviours are named in ``ivp.behaviors``)::

    [project.entry-points."ivp.levels"]
    ballance = "behaviors.ballance.level_meaning:MEANING"

The values are plain data: nothing here reads a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .registry import plugin_entry_points

ENTRY_POINT_GROUP = "ivp.levels"


@dataclass(frozen=True)
class Part:
    """A prefab part a module needs: ``role`` names it in the report; the
    original's name is the module kind + ``suffix``; ``convention`` are this
    project's names for it (suffixes too), ``keyword`` the word a name may
    have instead. ``physics`` (None: a frame, not physicalized) are its
    Physicalize pins; ``hulls`` the suffixes of its collision meshes in the
    prefab (the convex pieces; without them, its own mesh). ``optional``: the
    module is built without it (a force's frame falls back to the root)."""

    role: str
    suffix: str
    physics: dict | None = None
    hulls: tuple = ()
    convention: tuple = ()
    keyword: str = ""
    optional: bool = False


@dataclass(frozen=True)
class Joint:
    """A joint of the module (glue-and-content 2): ``type`` as the scene
    format's joints; ``body`` the role of the block's target, ``other`` of
    Object2 (None: FixCube, the world); ``frames`` the roles of the frames the
    joint needs: hinge and ball joint the joint's frame, slider the axis'
    first and second points, spring its two referentials; ``pins`` the rest."""

    name: str
    type: str
    body: str
    frames: tuple
    other: str | None = None
    pins: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Module:
    """A module's parts, joints and script: ``script`` a behaviour type whose
    ``entities`` params are parts (role, or None: the module's root) and whose
    ``groups`` params are groups of parts (roles, in order); the importer
    reads ``entities`` too (the finish balloon's ``finish``: its trigger).
    Frozen bodies are woken by the meaning's wake gate of ``gate_radius`` (None: the
    meaning's ``wake_gate_radius``) measured to the part ``gate_role`` (None:
    the module's root)."""

    what: str
    parts: tuple
    joints: tuple = ()
    gate_radius: float | None = None
    gate_role: str | None = None
    script: str = ""
    entities: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)


@dataclass(frozen=True)
class LevelMeaning:
    """What the groups and names of a game's level files mean (virtools-nmo.md 5).

    Groups: ``physics_groups`` get the group presets of ``includes`` (one of
    them at most per object), ``prop_groups`` too (the placeholder's mesh is
    dropped for the preset's), ``trafo_groups`` start the ``transformers``
    behaviour; ``start``, ``finish``, ``checkpoints``, ``reset_points``,
    ``death_cubes``, ``extra_life`` and ``extra_point`` are the ``level``
    behaviour's; ``sector`` matches the sector groups (renamed
    ``sector_name``), ``module`` the module groups (their prefabs
    ``<kind>.nmo`` rooted at ``module_root``), ``plain_groups`` the groups kept
    with no meaning. ``modules`` is the module table, ``fan`` the module that
    is the ``fan`` behaviour, ``balloon`` the finish's prefab (its physics: its row of ``modules``).
    ``hidden_groups``: groups whose members are imported hidden (what the
    game's scripts hide at start), besides the objects the file itself saves
    hidden. ``balls``: the included rig's entities and groups that take their
    meshes and looks from the same names in the game's ``balls_file``.
    """

    name: str
    includes: tuple                     # scene files every level includes (the player rig, the presets)
    gravity: tuple
    time_factor: float
    physics_groups: tuple
    prop_groups: tuple
    trafo_groups: tuple
    start: str
    finish: str
    checkpoints: str
    reset_points: str
    death_cubes: str
    extra_life: str
    extra_point: str
    plain_groups: re.Pattern
    sector: re.Pattern                  # its first group is the sector number
    sector_name: str                    # str.format of the number
    reset_point_name: str               # sector N starts at reset_point_name.format(N)
    checkpoint_name: str                # checkpoint_name.format(N) ends sector N
    max_sectors: int
    start_height: float                 # sector 1's reset point above the start, when there is none
    finish_height: float                # the finish trigger above the finish placeholder
    start_balls: dict                   # Levelinit's StartBall -> the level behaviour's start_kind
    reserved: frozenset                 # names the included rig has: a level object with one is renamed
    behaviours: dict                    # role -> behaviour type: level, transformers, fan, wake_gate
    module: re.Pattern
    module_root: str                    # str.format of the kind
    fan: str
    balloon: str
    modules: dict                       # kind -> Module
    wake_gate_radius: float             # a module's wake gate, unless its Module says otherwise
    camera_file: tuple                  # the camera rig's file under the game folder: its 3D entities are added
    settings_file: tuple                # the level settings' file under the game folder (5.6)
    settings_table: str
    default_start_ball: str
    default_sky: str
    level_bonus: int                    # the default bonus per level number
    hidden_groups: tuple = ()           # members hidden at start (the file's hidden flag hides others too)
    balls_file: tuple = ()              # the balls' shapes under the game folder (scenes/virtools/balls.py)
    balls: tuple = ()                   # the rig's entities and groups (members in order) that take them
    autopilot: str = ""                 # "module:function" that plays a loaded level (``ivp run --autopilot``)
    start_sector: str = ""              # "module:function(scene, k)": a loaded level starts at sector k (``--sector``)
    flame_prefabs: tuple = ()           # prefabs of start and checkpoint placeholders whose frames are imported
    balloon_shown: tuple = ()           # the balloon's parts (names after ``balloon``) shown, saved hidden
    sky_layer: str = ""                 # the cloud sheet: saved hidden, shown with its texture scrolling
    sky_layer_light: float = 1.0        # its prelit vertex colour (grey): it is drawn unlit
    env_textures: tuple = ()            # textures drawn as spherical environment maps (reflections)
    light_file: tuple = ()              # the file under the game folder holding the level's light
    light: str = ""                     # its directional light entity: it shines along its Z axis
    ambient: float = 0.35               # the scene's ambient light (grey)


def level_meaning() -> LevelMeaning:
    """The LevelMeaning of the one plug-in in ``ivp.levels``; a ValueError
    naming the group when there is none or several, or it is no LevelMeaning."""
    eps = plugin_entry_points(ENTRY_POINT_GROUP)
    if len(eps) != 1:
        have = ", ".join(sorted(eps)) or "none"
        raise ValueError(f"level files need exactly one plug-in in the entry-point group {ENTRY_POINT_GROUP!r} "
                         f"(docs/levels.md); installed: {have}")
    (ep,) = eps.values()
    try:
        meaning = ep.load()
    except Exception as exc:
        raise ValueError(f"the {ENTRY_POINT_GROUP} entry point {ep.name!r} = {ep.value!r} failed to load: "
                         f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(meaning, LevelMeaning):
        raise ValueError(f"the {ENTRY_POINT_GROUP} entry point {ep.name!r} = {ep.value!r} is not a LevelMeaning")
    return meaning


def autopilot_of(meaning: LevelMeaning):
    """The plug-in's autopilot function (LevelMeaning.autopilot); a ValueError
    when it names none or what it names does not load."""
    return _function(meaning, "autopilot")


def start_sector_of(meaning: LevelMeaning):
    """The plug-in's function putting a loaded level at a sector before its
    first frame (LevelMeaning.start_sector); a ValueError as autopilot_of."""
    return _function(meaning, "start_sector")


def _function(meaning: LevelMeaning, name: str):
    value = getattr(meaning, name)
    if not value:
        raise ValueError(f"the level plug-in {meaning.name!r} has no {name.replace('_', ' ')}")
    from ivp.snapshot import import_name
    try:
        return import_name(value)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"the level plug-in {meaning.name!r}: {name} {value!r} does not load: "
                         f"{type(exc).__name__}: {exc}") from exc
