"""The installed game's folder (virtools-nmo.md 5.7): names matched without
regard to case, as directory case varies between installs."""

from __future__ import annotations

import os
import re

from . import reader as r

LEVEL_FILE = "Level_{:02d}.NMO"
LEVEL_DIR = ("3D Entities", "Level")
PREFAB_DIR = ("3D Entities", "PH")
TEXTURES_DIR = "Textures"
SKY_DIR = "Sky"
SOUNDS_DIR = "Sounds"
SKY_FACES = ("Back", "Right", "Front", "Left", "Down")     # 5.6 / 5.7: Sky_<X>_<face>.bmp, no top face


def find_ci(base: str, *parts: str) -> str | None:
    """The path under ``base`` whose components match ``parts`` case-insensitively."""
    path = base
    for part in parts:
        try:
            names = os.listdir(path)
        except OSError:
            return None
        match = next((n for n in names if n.lower() == part.lower()), None)
        if match is None:
            return None
        path = os.path.join(path, match)
    return path


def game_level(game: str, number: int) -> str:
    """5.7: level ``number``'s file in the game folder (<game>/3D Entities/Level/
    Level_NN.NMO, any case); a VirtoolsError naming what was looked for."""
    want = os.path.join(game, *LEVEL_DIR, LEVEL_FILE.format(number))
    if not os.path.isdir(game):
        raise r.VirtoolsError(f"--game {game}: no such folder (looked for the level {want})")
    folder = find_ci(game, *LEVEL_DIR)
    if folder is None:
        raise r.VirtoolsError(f"--game {game}: there is no '{os.path.join(*LEVEL_DIR)}' folder in it "
                              f"(any case; looked for {want}): is it the Ballance folder?")
    path = find_ci(folder, LEVEL_FILE.format(number))
    if path is None:
        have = sorted(n for n in os.listdir(folder) if re.fullmatch(r"level_?\d+\.nmo", n, re.IGNORECASE))
        raise r.VirtoolsError(f"--game {game}: no level {number}: there is no {LEVEL_FILE.format(number)} (any case) "
                              f"in {folder}" + (f"; it has {', '.join(have)}" if have else ""))
    return path


def game_folder(level_path: str) -> str | None:
    """<game>/3D Entities/Level/Level_NN.nmo -> <game> (5.7), else None."""
    level_dir = os.path.dirname(os.path.abspath(level_path))
    entities_dir = os.path.dirname(level_dir)
    if os.path.basename(level_dir).lower() == "level" and os.path.basename(entities_dir).lower() == "3d entities":
        return os.path.dirname(entities_dir)
    return None


def sky_images(game: str | None, sky: str) -> tuple:
    """5.6 / 5.7: the sky's five images <game>/Textures/Sky/<sky>_<face>.bmp
    (any case) in SKY_FACES order, None where missing; and the names missing."""
    folder = find_ci(game, TEXTURES_DIR, SKY_DIR) if game else None
    paths = tuple(find_ci(folder, f"{sky}_{face}.bmp") if folder else None for face in SKY_FACES)
    return paths, [f"{sky}_{face}.bmp" for face, p in zip(SKY_FACES, paths) if p is None]
