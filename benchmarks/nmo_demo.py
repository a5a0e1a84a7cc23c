"""A demo game folder written with scenes.virtools.writer (never the game's
files): to try the level commands as a user would (docs/levels.md).

    python -m benchmarks.nmo_demo /tmp/ballance_demo
    python -m viewer.cli check "/tmp/ballance_demo/3D Entities/Level/Level_01.NMO"
    python -m viewer.cli run --game /tmp/ballance_demo 1 --seconds 10
    xvfb-run -a python -m viewer.cli render --game /tmp/ballance_demo 1 --at 2 -o demo.png

The folder holds the tests' two-sector level (tests/virtools_levels.py) with,
beside the course, one placeholder of every module that has physics; each
module's prefab in 3D Entities/PH/ with the original's part names
(tests/test_import_modules.py); and the textures its materials name, drawn
here: a checker for the floor, stripes for the rails, and the default sky
Sky_L's five faces (each tinted so the faces can be told apart).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from scenes.virtools import reader as r  # noqa: E402
from scenes.virtools.game import SKY_FACES  # noqa: E402
from test_import_modules import PARTS, prefab  # noqa: E402
from virtools_levels import two_sector_level  # noqa: E402


def demo_level() -> bytes:
    """The two-sector level, its floor and rail textured, and the modules in a
    row at x = 30 (sector 1), 25 apart along Z."""
    b = two_sector_level()
    rail_tex = b.texture("Rail_Environment", "Rail_Environment.bmp")
    for o in b.objects:
        if isinstance(o, r.Material) and o.name == "Rail":
            o.texture = rail_tex
    sector = next(o for o in b.objects if o.name == "Sector_01")
    for k, kind in enumerate(sorted(PARTS)):
        p = b.box(f"{kind}_90", (2, 0.4, 2), (30, 0.2, -20 + 25 * k), None)
        group = next((o for o in b.objects if isinstance(o, r.Group) and o.name == kind), None)
        if group is None:
            b.group(kind, [p])
        else:
            group.members.append(p)
        sector.members.append(p)
    return b.data()


def write_demo(folder: str) -> str:
    """The demo game folder; the level's path."""
    level_dir = os.path.join(folder, "3D Entities", "Level")
    ph = os.path.join(folder, "3D Entities", "PH")
    textures = os.path.join(folder, "Textures")
    for d in (level_dir, ph, textures):
        os.makedirs(d, exist_ok=True)
    level = os.path.join(level_dir, "Level_01.NMO")
    with open(level, "wb") as fh:
        fh.write(demo_level())
    for kind in PARTS:
        with open(os.path.join(ph, f"{kind}.nmo"), "wb") as fh:
            fh.write(prefab(kind))
    yy, xx = np.mgrid[0:64, 0:64]
    checker = np.where(((xx // 8 + yy // 8) % 2)[..., None] == 0, (200, 190, 160), (120, 110, 90)).astype(np.uint8)
    Image.fromarray(checker).save(os.path.join(textures, "Floor_Top_Flat.bmp"))
    stripes = np.where((yy // 4 % 2)[..., None] == 0, (230, 230, 240), (90, 100, 130)).astype(np.uint8)
    Image.fromarray(stripes).save(os.path.join(textures, "Rail_Environment.bmp"))
    sky = os.path.join(textures, "Sky")
    os.makedirs(sky, exist_ok=True)
    for face, tint in zip(SKY_FACES, ((0, 0, 40), (0, 30, 0), (40, 0, 0), (30, 30, 0), (0, 0, 0))):
        rows = np.linspace(1.0, 0.55, 64)[:, None, None]            # light at the top, darker at the horizon
        img = np.clip(rows * np.array((150, 190, 235)) + tint, 0, 255).astype(np.uint8).repeat(64, axis=1)
        Image.fromarray(img).save(os.path.join(sky, f"Sky_L_{face}.bmp"))
    return level


if __name__ == "__main__":
    print(write_demo(sys.argv[1] if len(sys.argv) > 1 else "ballance_demo"))
