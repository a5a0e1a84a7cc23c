"""Module placeholders built from their PH prefabs (virtools-nmo.md 5.2, 5.5;
glue-and-content 3, "PH modules"; docs/levels.md).

A placeholder ``P_Modul_NN_xx`` in group ``P_Modul_NN`` is replaced by the
prefab ``<game>/3D Entities/PH/P_Modul_NN.nmo`` when the game folder has it:
the prefab's root frame ``P_Modul_NN_MF`` goes to the placeholder's world
matrix and every other 3D entity of the prefab keeps its offset from that root
(5.2). The prefab's scripts are not read (5.5): the physics comes from the
table ``MODULES`` below (glue-and-content 3's values; the values it leaves out
are the bundled module scenes'), put on parts found by name.

Part names: each part is looked for as the original prefab names it (the
names 5.5 points to, recorded with Three.js' physTable), then under this
project's older convention (``P_Modul_NN_Body``, ``P_Modul_NN_Hinge``), then
as the one part of its kind whose name has a keyword (``hinge``). The report
says which of these found each part; a module missing a part it needs is
drawn without physics, and the report says which part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from behaviors.ballance.values import WAKE_GATE_RADIUS

from . import reader as r
from .game import PREFAB_DIR, find_ci

FAN = "P_Modul_18"
BALLOON = "PE_Balloon"
MODULE = re.compile(r"P_Modul_\d+")
ROOT = "{}_MF"
BUNDLED = {"linear_speed_dampening": 1, "rot_speed_dampening": 0.05}   # as the bundled module scenes
FROZEN = {"start_frozen": True}


def _shift(x, y, z) -> dict:
    return {"automatic_calculate_mass_center": False, "shift_mass_center": [x, y, z]}


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
    ``groups`` params are groups of parts (roles, in order). Frozen bodies
    are woken by a wake gate of ``gate_radius`` at the root."""

    what: str
    parts: tuple
    joints: tuple = ()
    gate_radius: float = WAKE_GATE_RADIUS
    script: str = ""
    entities: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)


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

MODULES = {
    "P_Modul_01": Module("a sliding gate", (
        Part("pusher", "_Pusher", {"mass": 3, "friction": 0.6, "elasticity": 0.4, "linear_speed_dampening": 0.1,
                                   "rot_speed_dampening": 1, "collision_group": "Floor", **FROZEN},
             _cols(3, 2)),
        Part("channel", "_Rinne", {"fixed": True, "collision_group": "Ball"},
             ("_Rinne_01_Mesh", "_Rinne_02_Mesh", "_Rinne_03_Mesh")),
        # The filler's group is not in the spec: Floor, so the ball rolls on it and the pusher slides over it.
        Part("filler", "_Filler", {"fixed": True, "collision_group": "Floor"}, ("_Filler_Mesh",), optional=True))),
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
             _cols(3, 2), convention=("_Body",)),
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
        (Joint("slider", "slider", "stone", ("first slider frame", "second slider frame")),)),
    "P_Modul_37": _hinged("a T-board", "_Bridge", {"mass": 3, "elasticity": 1, **BUNDLED, **_shift(-7.5, 0, 0),
                                                   **FROZEN}, _cols(3)),
    "P_Modul_41": _hinged("a float board", "", {"mass": 1}, _cols(2)),
}


@dataclass
class Prefab:
    """A read prefab: its root frame and its other 3D entities and objects
    (cameras, lights and the like are left out), in table order."""

    nmo: r.NmoFile
    root: r.Entity
    parts: list = field(default_factory=list)


def read_prefab(game: str | None, kind: str, encodings=r.ENCODINGS):
    """(the prefab, None) or (None, why there is none)."""
    want = "/".join(PREFAB_DIR + (f"{kind}.nmo",))
    if game is None:
        return None, f"no game folder is known, so no {want} (--game, or a level inside the game folder)"
    path = find_ci(game, *PREFAB_DIR, f"{kind}.nmo")
    if path is None:
        return None, f"no {want} (any case) in {game}"
    try:
        nmo = r.read_file(path, encodings)
    except (r.VirtoolsError, OSError) as exc:
        return None, f"the prefab is unreadable: {exc}"
    roots = nmo.named(ROOT.format(kind), r.Entity)
    if not roots:
        return None, f"{path} has no root frame {ROOT.format(kind)!r} (5.5)"
    parts = [e for e in nmo.entities if e is not roots[0] and e.class_id in (r.CK_3DENTITY, r.CK_3DOBJECT)]
    return Prefab(nmo, roots[0], parts), None


def _m4(matrix) -> np.ndarray:
    """A world matrix (4 rows of 3, 3.3) as a 4 x 4 row-vector matrix."""
    m = np.zeros((4, 4))
    m[:, :3] = np.asarray(matrix, np.float64).reshape(4, 3)
    m[3, 3] = 1.0
    return m


def placed(part: r.Entity, root: r.Entity, placeholder_matrix) -> tuple:
    """5.2: the part's world matrix with the prefab root moved onto the
    placeholder: part . root^-1 . placeholder (row vectors, 4)."""
    m = _m4(part.matrix) @ np.linalg.inv(_m4(root.matrix)) @ _m4(placeholder_matrix)
    return tuple(float(x) for x in m[:, :3].reshape(12))


def under(part: r.Entity, root: r.Entity, nmo: r.NmoFile) -> bool:
    """3.3: whether ``root`` is among the part's parents (a parent loop ends the walk)."""
    seen = set()
    e = part
    while e is not None and e.index not in seen:
        seen.add(e.index)
        if e.parent == root.index:
            return True
        e = nmo.get(e.parent, r.Entity)
    return False


def find_part(kind: str, part: Part, prefab: Prefab):
    """(the prefab entity, how it was found) or (None, what was looked for)."""
    bodies = part.physics is not None
    candidates = [e for e in prefab.parts if not bodies or prefab.nmo.get(e.mesh, r.Mesh) is not None]
    by_name = {e.name.lower(): e for e in reversed(candidates)}     # the first of a name wins
    original = kind + part.suffix
    if original.lower() in by_name:
        return by_name[original.lower()], "the original's name"
    for suffix in part.convention:
        if (kind + suffix).lower() in by_name:
            return by_name[(kind + suffix).lower()], f"this project's name; the original's {original!r} is not there"
    if part.keyword:
        have = [e for e in candidates if part.keyword in e.name.lower()]
        if len(have) == 1:
            return have[0], f"the one part with {part.keyword!r} in its name; {original!r} is not there"
    kind_of = "3D object with a mesh" if bodies else "part"
    tried = [original] + [kind + s for s in part.convention]
    return None, f"no {kind_of} named {' or '.join(repr(t) for t in tried)}"


@dataclass
class Built:
    """What a module placeholder became: per prefab part (table position) its
    physics and extra groups; the joints and behaviours; the report lines
    (``found``: role = part (how); ``why``: why there is no physics)."""

    physics: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    joints: list = field(default_factory=list)
    behaviours: list = field(default_factory=list)
    order: list = field(default_factory=list)           # the found parts' table positions, in role order
    found: list = field(default_factory=list)
    why: str = ""


def build_module(kind: str, prefab: Prefab, names: dict, placeholder: str, mesh_ref) -> Built:
    """The physics of one placeholder's module from the table: ``names`` maps
    the prefab's parts (table positions) to their scene names, ``mesh_ref``
    turns a prefab mesh into a mesh name of the scene."""
    out = Built()
    spec = MODULES.get(kind)
    if spec is None:
        out.why = "no physics table for this module (no body of its own, or not one of glue-and-content 3)"
        return out
    role_names = {None: placeholder}
    role_parts = {}                 # role -> the found part's table position
    missing = []
    for part in spec.parts:
        e, how = find_part(kind, part, prefab)
        if e is None:
            if part.optional:
                stand_in = "left out" if part.physics is not None else "the module's root instead"
                out.found.append(f"{part.role}: {how}: {stand_in}")
                role_names[part.role] = placeholder
            else:
                missing.append(f"{part.role}: {how}")
            continue
        role_names[part.role] = names[e.index]
        role_parts[part.role] = e.index
        out.order.append(e.index)
        out.found.append(f"{part.role} = {e.name!r} ({how})")
        if part.physics is not None:
            out.physics[e.index] = _pins(kind, part, e, prefab, mesh_ref, out.found)
    if missing:
        needed = sum(not p.optional for p in spec.parts)
        listed = "; ".join(missing) if len(missing) <= 2 else \
            f"{len(missing)} of the {needed} parts it needs are not there ({missing[0]}, ...)"
        out.why = listed + ": drawn without physics"
        out.physics.clear()
        return out
    gate = f"{placeholder}.bodies"
    frozen = [i for i, pins in out.physics.items() if pins.get("start_frozen")]
    for i in frozen:
        out.groups[i] = [gate]
    for j in spec.joints:
        out.joints.append(_joint(j, role_names, placeholder))
    params = {k: role_names[role] for k, role in spec.entities.items() if k != "entity"}
    for key, roles in spec.groups.items():
        params[key] = f"{placeholder}.{key}"
        for role in roles:
            out.groups.setdefault(role_parts[role], []).append(params[key])
    if spec.script:
        out.found.append(f"script {spec.script}")
        b = {"type": spec.script}
        if "entity" in spec.entities:
            b["entity"] = role_names[spec.entities["entity"]]
        out.behaviours.append(dict(b, params=params) if params else b)
    if frozen:
        out.behaviours.append({"type": "ballance.wake_gate", "entity": placeholder,
                               "params": {"bodies": gate, "radius": spec.gate_radius}})
    return out


def _pins(kind: str, part: Part, e: r.Entity, prefab: Prefab, mesh_ref, found: list) -> dict:
    """The part's Physicalize pins, with its collision hulls as the convex
    pieces when the prefab has them (else the part's own mesh, convex)."""
    pins = dict(part.physics)
    hulls = [prefab.nmo.named(kind + h, r.Mesh) for h in part.hulls]
    have = [m[0] for m in hulls if m and len(m[0].faces)]
    if have:
        pins["convex"] = [mesh_ref(m) for m in have]
    if len(have) < len(part.hulls):
        lost = [kind + h for h, m in zip(part.hulls, hulls) if not m or not len(m[0].faces)]
        found.append(f"{part.role} collides as " + (f"{len(have)} of its {len(part.hulls)} hulls" if have else
                                                   "its own mesh, convex") +
                     f" (no {', '.join(repr(n) for n in lost)})")
    return pins


def _joint(j: Joint, role_names: dict, placeholder: str) -> dict:
    """The scene format's joint entry (docs/scenes.md) for a table joint."""
    out = {"type": j.type, "name": f"{placeholder}.{j.name}", "object": role_names[j.body]}
    if j.other is not None:
        out["object2"] = role_names[j.other]
    frames = [role_names[f] for f in j.frames]
    if j.type == "hinge":
        out["joint_referential"] = frames[0]
    elif j.type == "ball_joint":
        out["referential_1"] = frames[0]
    elif j.type == "slider":
        out["axis_first_point"], out["axis_second_point"] = frames
    else:
        out["referential_1"], out["referential_2"] = frames
    out.update(j.pins)
    return out
