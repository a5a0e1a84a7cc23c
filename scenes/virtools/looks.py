"""How an imported mesh looks: its UVs and, per material slot, the faces, the
diffuse colour and the texture (virtools-nmo.md 3.4-3.6). Plain data for the
viewer (viewer/textures.py draws it); nothing here reads an image.

A texture is the file its CKTexture names, found in the game's ``Textures/``
folder without regard to case (5.7), or the pixels embedded in the file (3.6,
preferred when both are there). A texture that is neither is left out: the
faces keep the material colour, and the import warns once per texture.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from . import reader as r
from .game import TEXTURES_DIR, find_ci

DEFAULT_DIFFUSE = (0.7, 0.7, 0.7, 1.0)      # 3.4: Virtools' default material, for null slots (7.8)


@dataclass
class LookPart:
    """The faces (indices into the mesh's faces) drawn with one material: its
    diffuse colour (r, g, b, a) and a texture: an image file path, embedded
    pixels ((h, w, 4) RGBA uint8, top row first), or None."""

    faces: np.ndarray
    colour: tuple
    texture: object = None
    name: str = ""


@dataclass
class Look:
    """A mesh's per-vertex UVs ((V, 2), v = 0 at the image's top, 4) and its parts."""

    uvs: np.ndarray
    parts: list


class Textures:
    """Resolves the textures of one file against a game folder, once each;
    ``warnings`` gets one line per texture that cannot be found."""

    def __init__(self, game: str | None, warnings: list):
        self.folder = find_ci(game, TEXTURES_DIR) if game else None
        self.game = game
        self.warnings = warnings
        self.cache = {}

    def image(self, nmo: r.NmoFile, index) -> object:
        tex = nmo.get(index, r.Texture)
        if tex is None:
            return None
        key = (nmo.path, tex.index)
        if key not in self.cache:
            self.cache[key] = self._resolve(nmo, tex)
        return self.cache[key]

    def _resolve(self, nmo: r.NmoFile, tex: r.Texture):
        if tex.pixels is not None:
            return tex.pixels
        names = [f for f in tex.files if f]
        if not names:
            self.warnings.append(f"{nmo.path}: {tex.label} has no file name and no embedded pixels: "
                                 "its faces are drawn in the material colour")
            return None
        for name in names:
            path = find_ci(self.folder, os.path.basename(name.replace("\\", "/"))) if self.folder else None
            if path is not None:
                return path
        where = (f"in {self.folder}" if self.folder else
                 f"no {TEXTURES_DIR} folder in {self.game}" if self.game else "no game folder is known (--game)")
        self.warnings.append(f"texture {names[0]!r} ({tex.label}) not found ({where}): "
                             "its faces are drawn in the material colour")
        return None


def mesh_look(nmo: r.NmoFile, mesh: r.Mesh, textures: Textures) -> Look:
    """3.4 / 3.5: the mesh's faces grouped by material slot, in slot order."""
    parts = []
    slots = mesh.face_slots if len(mesh.face_slots) == len(mesh.faces) else np.zeros(len(mesh.faces), np.int32)
    for slot in np.unique(slots).tolist():
        mat = nmo.get(mesh.slots[slot] if slot < len(mesh.slots) else None, r.Material)
        colour = DEFAULT_DIFFUSE if mat is None else r.rgba(mat.diffuse)
        texture = None if mat is None else textures.image(nmo, mat.texture)
        parts.append(LookPart(np.flatnonzero(slots == slot).astype(np.int32), tuple(colour), texture,
                              "" if mat is None else mat.name))
    uvs = mesh.uvs if len(mesh.uvs) == len(mesh.vertices) else np.zeros((len(mesh.vertices), 2), np.float32)
    return Look(np.ascontiguousarray(uvs, np.float32), parts)
