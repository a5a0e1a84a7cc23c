"""Scene lights as the mesh shader uses them (no OpenGL here).

A scene file's `lights` (docs/scenes.md, "Scene settings") are ambient,
directional and point lights with a colour times an intensity. Their
directions and positions are Virtools world coordinates and the shader lights
in world coordinates, so they are used as written: the viewer's one change of
handedness stays in `camera.gl_view`. A scene without lights gets the viewer's
sun: a directional light from above and an ambient fill.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_LIGHTS = 8              # directional and point lights each (the shader's arrays)
SPECULAR = 0.3              # highlight strength, a fraction of each light's colour


def _unit(v, where: str) -> tuple:
    n = math.sqrt(sum(float(x) * float(x) for x in v))
    if not math.isfinite(n) or n == 0.0:
        raise ValueError(f"{where}: the direction {tuple(v)} has no length")
    return tuple(float(x) / n for x in v)


@dataclass(frozen=True)
class Lighting:
    """Ambient colour, directional lights (unit vector towards the light, colour)
    and point lights (position, colour); colours are rgb already times intensity."""
    ambient: tuple = (0.0, 0.0, 0.0)
    directional: tuple = ()
    points: tuple = ()

    def __post_init__(self):
        for kind in ("directional", "points"):
            n = len(getattr(self, kind))
            if n > MAX_LIGHTS:
                raise ValueError(f"scene lights: {n} {kind} lights; the viewer draws at most {MAX_LIGHTS}")


SUN = Lighting(ambient=(0.31, 0.31, 0.31),
               directional=((_unit((0.35, 0.85, -0.40), "sun"), (0.65, 0.65, 0.65)),))


def scene_lighting(lights) -> Lighting:
    """The scene file's light records (type, direction, position, color, intensity),
    or the sun when there are none. Ambient lights add up."""
    if not lights:
        return SUN
    ambient = [0.0, 0.0, 0.0]
    directional, points = [], []
    for i, light in enumerate(lights, 1):
        rgb = tuple(float(c) * float(light["intensity"]) for c in light["color"][:3])
        kind = light["type"]
        if kind == "ambient":
            ambient = [a + c for a, c in zip(ambient, rgb)]
        elif kind == "directional":     # the file gives where the light travels
            d = _unit(light["direction"], f"scene light {i}")
            directional.append((tuple(-x for x in d), rgb))
        elif kind == "point":
            points.append((tuple(float(x) for x in light["position"]), rgb))
        else:
            raise ValueError(f"scene light {i}: unknown type {kind!r} (ambient, directional or point)")
    return Lighting(tuple(ambient), tuple(directional), tuple(points))
