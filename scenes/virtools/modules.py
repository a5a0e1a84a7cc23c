"""Module placeholders built from their prefabs (virtools-nmo.md 5.2, 5.5;
docs/levels.md).

A placeholder in a module group (the level meaning's ``module``, Ballance's
``P_Modul_NN``) is replaced by the prefab ``<game>/3D Entities/PH/<kind>.nmo``
when the game folder has it: the prefab's root frame (``module_root``,
``<kind>_MF``) goes to the placeholder's world matrix and every other 3D
entity of the prefab keeps its offset from that root (5.2). The prefab's
scripts are not read (5.5): the physics comes from the meaning's module table
(behaviors.levels.Module), put on parts found by name.

Part names: each part is looked for as the original prefab names it, then
under the table's convention, then as the one part of its kind whose name
has the part's keyword. The report says which of these found each part; a
module missing a part it needs is drawn without physics, and the report says
which part.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from behaviors.levels import Joint, LevelMeaning, Part

from . import reader as r
from .game import PREFAB_DIR, find_ci
BUNDLED = {"linear_speed_dampening": 1, "rot_speed_dampening": 0.05}   # as the bundled module scenes
FROZEN = {"start_frozen": True}


def _shift(x, y, z) -> dict:
    return {"automatic_calculate_mass_center": False, "shift_mass_center": [x, y, z]}


@dataclass
class Prefab:
    """A read prefab: its root frame and its other 3D entities and objects
    (cameras, lights and the like are left out), in table order."""

    nmo: r.NmoFile
    root: r.Entity
    parts: list = field(default_factory=list)


def read_prefab(game: str | None, kind: str, root_name: str, encodings=r.ENCODINGS):
    """(the prefab, None) or (None, why there is none); ``root_name`` is the
    str.format of the kind that names its root frame."""
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
    roots = nmo.named(root_name.format(kind), r.Entity)
    if not roots:
        return None, f"{path} has no root frame {root_name.format(kind)!r} (5.5)"
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
    params: dict = field(default_factory=dict)          # the table's entities and groups, as scene names
    found: list = field(default_factory=list)
    why: str = ""


def build_module(meaning: LevelMeaning, kind: str, prefab: Prefab, names: dict, placeholder: str,
                 mesh_ref) -> Built:
    """The physics of one placeholder's module from the meaning's table:
    ``names`` maps the prefab's parts (table positions) to their scene names,
    ``mesh_ref`` turns a prefab mesh into a mesh name of the scene."""
    out = Built()
    spec = meaning.modules.get(kind)
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
    params = out.params
    params.update({k: role_names[role] for k, role in spec.entities.items() if k != "entity"})
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
        radius = meaning.wake_gate_radius if spec.gate_radius is None else spec.gate_radius
        out.behaviours.append({"type": meaning.behaviours["wake_gate"], "entity": role_names[spec.gate_role],
                               "params": {"bodies": gate, "radius": radius}})
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
