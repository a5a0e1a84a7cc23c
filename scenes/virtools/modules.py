"""Module placeholders built from their PH prefabs (virtools-nmo.md 5.2, 5.5;
glue-and-content 3, "PH modules"; docs/levels.md).

A placeholder ``P_Modul_NN_xx`` in group ``P_Modul_NN`` is replaced by the
prefab ``<game>/3D Entities/PH/P_Modul_NN.nmo`` when the game folder has it:
the prefab's root frame ``P_Modul_NN_MF`` goes to the placeholder's world
matrix and every other 3D entity of the prefab keeps its offset from that root
(5.2). The prefab's scripts are not read (5.5): the physics comes from the
table below, the glue-and-content values, on parts found by name:

- ``P_Modul_NN_Body``: the moving body (a 3D object with a mesh),
- ``P_Modul_NN_Hinge``: the hinge frame (anchor at its origin, axis its Z).

These two names are this project's convention (the original prefabs' part
names are not in the spec). The other parts are drawn, without collision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from behaviors.ballance.values import WAKE_GATE_RADIUS

from . import reader as r
from .game import PREFAB_DIR, find_ci

FAN = "P_Modul_18"
MODULE = re.compile(r"P_Modul_\d+")
ROOT, BODY, HINGE = "{}_MF", "{}_Body", "{}_Hinge"
DAMPED = {"linear_speed_dampening": 1, "rot_speed_dampening": 0.05}     # as the bundled module scenes


def _shift(x, y, z) -> dict:
    return {"automatic_calculate_mass_center": False, "shift_mass_center": [x, y, z]}


@dataclass(frozen=True)
class HingedModule:
    """One body on a hinge to the world: its physics, whether it starts frozen
    behind a wake gate (radius 50), and behaviours the body owns."""

    physics: dict
    gated: bool = True
    behaviours: tuple = ()


HINGED = {
    "P_Modul_08": HingedModule({"mass": 10, "collision_group": "Floor", "linear_speed_dampening": 0.4,
                                "rot_speed_dampening": 0.1}, behaviours=("ballance.swing",)),
    "P_Modul_19": HingedModule({"mass": 3, **DAMPED, **_shift(1, 1, 0)}),
    "P_Modul_25": HingedModule({"mass": 3, "elasticity": 1, **DAMPED, **_shift(-2.5, 0.2, 0)}),
    "P_Modul_30": HingedModule({"mass": 3, "linear_speed_dampening": 1, "rot_speed_dampening": 1,
                                **_shift(0, 4, 0)}),
    "P_Modul_37": HingedModule({"mass": 3, "elasticity": 1, **DAMPED, **_shift(-7.5, 0, 0)}),
    "P_Modul_41": HingedModule({"mass": 1}, gated=False),
}
# Modules whose prefab is drawn but whose physics needs more than one hinged body.
NOT_BUILT = {
    "P_Modul_01": "the sliding gate's pusher and channel",
    "P_Modul_03": "the spring lift's platform, slider and weights",
    "P_Modul_17": "the rotating arm's hinge and return spring",
    "P_Modul_26": "the sack's rope and ball joints",
    "P_Modul_29": "the plank bridge's planks and hinges",
    "P_Modul_34": "the falling stone's slider and crate",
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


def module_physics(kind: str, prefab: Prefab, body_name: str, hinge_name: str, placeholder: str,
                   sector_groups: list):
    """The joints, behaviours and body physics of a hinged module, or the reason
    there are none: (physics, joints, behaviours, gate group) or (None, why)."""
    spec = HINGED.get(kind)
    if spec is None:
        return None, f"its physics ({NOT_BUILT.get(kind, 'no physics table')}) is not built from a prefab yet"
    names = {e.name for e in prefab.parts}
    for want, role in ((BODY.format(kind), "body"), (HINGE.format(kind), "hinge frame")):
        if want not in names:
            return None, f"the prefab has no {role} {want!r}: drawn without physics"
    gate = f"{placeholder}.bodies"
    physics = dict(spec.physics, start_frozen=spec.gated)
    joints = [{"type": "hinge", "name": f"{placeholder}.hinge", "object": body_name,
               "joint_referential": hinge_name}]
    behaviours = [{"type": t, "entity": body_name} for t in spec.behaviours]
    if spec.gated:
        behaviours.append({"type": "ballance.wake_gate", "entity": body_name,
                           "params": {"bodies": gate, "radius": WAKE_GATE_RADIUS}})
    return (physics, joints, behaviours, [gate] + list(sector_groups)), None
