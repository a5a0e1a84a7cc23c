"""The settings of a prefab's particle systems (virtools-nmo.md 5.5: the
flame prefabs hold frames and Point Particle System behaviours; docs/levels.md
"The flames").

The behaviours' graphs are not decoded; their parameters are: a Point
Particle System's settings are parameters (3.8) named as its inputs
("Lifespan", "Initial Color and Alpha" ...) stored before the block's own
object, and the script that runs it follows, named after the frame it burns
on ("PC_TwoFlames_SmallFlameB script" for the frame
"PC_TwoFlames_Flame_SmallB"). A script is matched to the frame whose name,
without the prefab's name, "flame" and "script", is the same; one script
and one frame left over are paired ("CenterFlame" burns on "Flame_Big").
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from . import reader as r

BLOCK = "Point Particle System"
CK_BEHAVIOR = 8                 # a CKBehavior's class id (Virtools' CKCID_BEHAVIOR): a block or a script


@dataclass(frozen=True)
class ParticleLook:
    """A Point Particle System's settings, in its own units: times in ms,
    speeds in units per ms, sizes in units, colours r g b a in 0..1, the
    blend factors as 3.5 numbers them; (value, variance) pairs vary
    uniformly by up to the variance either way."""

    emission_delay: float = 20.0
    emission: tuple = (1, 1)                # particles per emission
    lifespan: tuple = (1000.0, 250.0)
    speed: tuple = (0.008, 0.003)
    spread: tuple = (0.0, 0.0)              # yaw and pitch variance, radians
    initial_size: tuple = (3.0, 0.3)
    ending_size: tuple = (0.1, 0.0)
    initial_colour: tuple = (1.0, 1.0, 1.0, 1.0)
    ending_colour: tuple = (0.0, 0.0, 0.0, 0.0)
    maximum: int = 50
    blend: tuple = (5, 2)                   # source alpha, one


_FLOAT = {"Emission Delay": "emission_delay"}
_PAIRS = {"Lifespan": "lifespan", "Speed": "speed", "Initial Size": "initial_size", "Ending Size": "ending_size"}


def _value(p: r.Parameter, fmt: str, where: str):
    if not isinstance(p.value, bytes) or len(p.value) != struct.calcsize(fmt):
        raise r.VirtoolsError(f"{where}: {p.label} holds {p.value!r}, not {struct.calcsize(fmt)} bytes")
    out = struct.unpack("<" + fmt, p.value)
    return out if len(out) > 1 else out[0]


def _look(params: list, where: str) -> ParticleLook:
    """The block's settings from its parameters in stored order (a "Variance"
    follows the value it varies)."""
    values, last = {}, None
    for p in params:
        values[f"{last} Variance" if p.name == "Variance" and last else p.name] = p
        last = p.name if p.name != "Variance" else last
    kw = {}

    def get(name, fmt, default):
        return _value(values[name], fmt, where) if name in values else default

    for name, field in _FLOAT.items():
        kw[field] = get(name, "f", ParticleLook.emission_delay)
    for name, field in _PAIRS.items():
        base = getattr(ParticleLook, field)
        kw[field] = (get(name, "f", base[0]), get(f"{name} Variance", "f", base[1]))
    kw["emission"] = (get("Emission", "i", 1), get("Emission Variance", "i", 1))
    kw["spread"] = (get("Yaw Variance", "f", 0.0), get("Pitch Variance", "f", 0.0))
    kw["initial_colour"] = get("Initial Color and Alpha", "4f", ParticleLook.initial_colour)
    kw["ending_colour"] = get("Ending Color and Alpha", "4f", ParticleLook.ending_colour)
    kw["maximum"] = get("Maximum Number", "i", ParticleLook.maximum)
    kw["blend"] = (get("Source Blend", "i", 5), get("Destination Blend", "i", 2))
    return ParticleLook(**kw)


def _key(name: str, kind: str) -> str:
    """A script's or a frame's name without the prefab's name, "flame", "script" and separators."""
    s = name.lower().replace(kind.lower(), "")
    return re.sub(r"flame|script|[\s_]", "", s)


def particle_looks(nmo: r.NmoFile, kind: str, frames: list) -> tuple[dict, list]:
    """({frame name: ParticleLook}, [what was left unmatched]) of the prefab
    ``kind``'s Point Particle Systems on its ``frames`` (names)."""
    blocks, params, pending = [], [], None
    for o in nmo.objects:
        if isinstance(o, r.Parameter) and o.class_id == r.CK_PARAMETER_LOCAL and o.name:
            params.append(o)
        elif o.class_id == CK_BEHAVIOR and o.name == BLOCK:
            pending, params = _look(params, f"{nmo.path}: particle system {len(blocks) + 1}"), []
        elif o.class_id == CK_BEHAVIOR and pending is not None and o.name.lower().rstrip().endswith("script"):
            blocks.append((o.name, pending))
            pending, params = None, []
        elif o.class_id == CK_BEHAVIOR:
            params = []
    by_key = {_key(f, kind): f for f in frames}
    out, left = {}, []
    for script, look in blocks:
        frame = by_key.pop(_key(script, kind), None)
        if frame is None:
            left.append((script, look))
        else:
            out[frame] = look
    if len(left) == 1 and len(by_key) == 1:
        out[by_key.popitem()[1]] = left.pop()[1]
    return out, [s for s, _ in left] + list(by_key.values())
