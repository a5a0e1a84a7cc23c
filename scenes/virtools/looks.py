"""How an imported mesh looks: its UVs and, per material slot, the faces, the
diffuse colour and the texture (virtools-nmo.md 3.4-3.6). Plain data for the
viewer (viewer/textures.py draws it); nothing here reads an image.

A texture is the file its CKTexture names, found in the game's ``Textures/``
folder without regard to case (5.7), or the pixels embedded in the file (3.6,
preferred when both are there). A texture that is neither is left out: the
faces keep the material colour, and the import warns once per texture.

An `ivp import` writes the looks into the OBJ sidecars (vt, usemtl) and one
MTL file (Kd, d, map_Kd); ``plan_looks`` reads them back for the viewer.
"""

from __future__ import annotations

import logging
import os
import re
import struct
from dataclasses import dataclass

import numpy as np

from ..limits import MAX_OBJ_BYTES
from . import reader as r
from .game import TEXTURES_DIR, find_ci

log = logging.getLogger(__name__)
DEFAULT_DIFFUSE = (0.7, 0.7, 0.7, 1.0)      # 3.4: Virtools' default material, for null slots (7.8)


ALPHA_BLEND, ALPHA_TEST, TWO_SIDED, Z_WRITE = 0x8, 0x10, 0x1, 0x2     # 3.5: the material's flags
COLOUR_KEY = 0x1                    # 3.6: the texture's flag (properties bits 8-15)


@dataclass(frozen=True)
class Surface:
    """How a material's faces are drawn (3.5's modes and flags, 3.6's colour
    key): ``blend`` the (source, destination) blend factor codes while alpha
    blending is on, else None (opaque); ``alpha_test`` the (compare function
    code, reference 0-255) while alpha testing is on, else None; back faces
    drawn when ``two_sided``; depth written when ``z_write``; ``colour_key``
    the RGB (0xRRGGBB) of the texture's transparent pixels, else None;
    ``sky`` a sky layer's (5.6): a viewer may draw it in its sky's pass."""

    blend: tuple | None = None
    alpha_test: tuple | None = None
    two_sided: bool = False
    z_write: bool = True
    colour_key: int | None = None
    sky: bool = False


def material_surface(mat: r.Material, tex: r.Texture | None) -> Surface:
    """3.5 / 3.6. A colour-keyed texture's colour is not stored in Ballance's
    files (a 1-dword properties payload): black, as Virtools falls back to."""
    f, modes = mat.flags, mat.modes
    keyed = tex is not None and tex.properties is not None and (tex.properties >> 8) & COLOUR_KEY
    return Surface(blend=((modes >> 12) & 15, (modes >> 16) & 15) if f & ALPHA_BLEND else None,
                   alpha_test=((f >> 16) & 255, f >> 24) if f & ALPHA_TEST else None,
                   two_sided=bool(f & TWO_SIDED), z_write=bool(f & Z_WRITE), colour_key=0 if keyed else None)


@dataclass(frozen=True)
class Shading:
    """3.5: how a material is lit besides its diffuse colour, as Direct3D's
    fixed function lights it (the texture times the emissive colour plus the
    ambient light times ``ambient`` plus the diffuse light, then the
    highlight added): colours (r, g, b); ``power`` the specular exponent, 0
    for no highlight; ``env_map`` the texture is a spherical environment map
    (reflected, not laid by the UVs)."""

    ambient: tuple = (0.0, 0.0, 0.0)
    emissive: tuple = (0.0, 0.0, 0.0)
    specular: tuple = (0.0, 0.0, 0.0)
    power: float = 0.0
    env_map: bool = False


def material_shading(mat: r.Material, env_map: bool = False) -> Shading:
    """3.5's ambient, emissive and specular colours and power."""
    return Shading(*(tuple(r.rgba(c)[:3]) for c in (mat.ambient, mat.emissive, mat.specular)), float(mat.power),
                   env_map)


@dataclass
class LookPart:
    """The faces (indices into the mesh's faces) drawn with one material: its
    diffuse colour (r, g, b, a), a texture (an image file path, embedded
    pixels ((h, w, 4) RGBA uint8, top row first), or None), its Surface
    (None: the viewer's default, blended by alpha, both sides), the
    texture's scroll, the colour it has unlit (the sky layer's, 5.6) and
    its Shading."""

    faces: np.ndarray
    colour: tuple
    texture: object = None
    name: str = ""
    surface: Surface | None = None
    uv_scroll: tuple = (0.0, 0.0)       # the texture moves by this (u, v) per second of the behaviour clock
    prelit: tuple | None = None         # unlit: drawn in its colour times this (r, g, b), as a prelit mesh
    shading: Shading | None = None      # its material's lighting (None: the viewer's own)


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


def mesh_look(nmo: r.NmoFile, mesh: r.Mesh, textures: Textures, env_textures: tuple = ()) -> Look:
    """3.4 / 3.5: the mesh's faces grouped by material slot, in slot order;
    a material whose texture is named in ``env_textures`` is environment-mapped."""
    parts = []
    slots = mesh.face_slots if len(mesh.face_slots) == len(mesh.faces) else np.zeros(len(mesh.faces), np.int32)
    for slot in np.unique(slots).tolist():
        mat = nmo.get(mesh.slots[slot] if slot < len(mesh.slots) else None, r.Material)
        colour = DEFAULT_DIFFUSE if mat is None else r.rgba(mat.diffuse)
        texture = None if mat is None else textures.image(nmo, mat.texture)
        surface = None if mat is None else material_surface(mat, nmo.get(mat.texture, r.Texture))
        tex = None if mat is None else nmo.get(mat.texture, r.Texture)
        shading = None if mat is None else material_shading(mat, tex is not None and tex.name in env_textures)
        parts.append(LookPart(np.flatnonzero(slots == slot).astype(np.int32), tuple(colour), texture,
                              "" if mat is None else mat.name, surface, shading=shading))
    uvs = mesh.uvs if len(mesh.uvs) == len(mesh.vertices) else np.zeros((len(mesh.vertices), 2), np.float32)
    return Look(np.ascontiguousarray(uvs, np.float32), parts)


# --- looks in OBJ / MTL sidecars (an `ivp import`ed scene; docs/levels.md) ---------------------------

MATERIALS_FILE = "materials.mtl"
TEXTURES_SUBDIR = "textures"


def _tga(path: str, pixels: np.ndarray) -> None:
    """Embedded pixels ((h, w, 4) RGBA, top row first) as an uncompressed
    32-bit TGA with a top-left origin (any image library reads it)."""
    h, w = pixels.shape[:2]
    head = bytes([0, 0, 2]) + bytes(5) + struct.pack("<HHHHBB", 0, 0, w, h, 32, 0x28)
    with open(path, "wb") as fh:
        fh.write(head + np.ascontiguousarray(pixels[:, :, [2, 1, 0, 3]], np.uint8).tobytes())


class MaterialLibrary:
    """The materials of an import's sidecars, written as one MTL file in
    ``folder``: Kd and d the diffuse colour, map_Kd the texture (relative to
    the folder; embedded pixels written as TGA files under textures/)."""

    def __init__(self, folder: str):
        self.folder = folder
        self.names = {}                 # (material name, colour, texture key) -> MTL name
        self.lines = []
        self.written = []

    def name_of(self, part: LookPart) -> str:
        tex = part.texture
        key = (part.name, tuple(part.colour), tex if isinstance(tex, str) or tex is None else id(tex))
        if key not in self.names:
            base = re.sub(r"[^A-Za-z0-9_.-]", "_", part.name) or "material"
            name, n = base, 1
            while name in self.names.values():
                n += 1
                name = f"{base}_{n}"
            self.names[key] = name
            r_, g, b, a = (float(c) for c in part.colour)
            self.lines += [f"newmtl {name}", f"Kd {r_:.6g} {g:.6g} {b:.6g}", f"d {a:.6g}"]
            if tex is not None:
                self.lines.append(f"map_Kd {self._texture_file(name, tex)}")
            self.lines.append("")
        return self.names[key]

    def _texture_file(self, name: str, tex) -> str:
        if isinstance(tex, str):
            return os.path.relpath(tex, self.folder).replace(os.sep, "/")
        os.makedirs(os.path.join(self.folder, TEXTURES_SUBDIR), exist_ok=True)
        rel = f"{TEXTURES_SUBDIR}/{name}.tga"
        _tga(os.path.join(self.folder, rel), tex)
        self.written.append(os.path.join(self.folder, rel))
        return rel

    def write(self) -> list:
        """The MTL file (when a sidecar used a material) and the textures written."""
        if not self.lines:
            return []
        path = os.path.join(self.folder, MATERIALS_FILE)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("# materials of an imported level (docs/levels.md)\n" + "\n".join(self.lines))
        return [path] + self.written


def write_obj(path: str, vertices: np.ndarray, faces: np.ndarray, look: Look | None = None,
              library: MaterialLibrary | None = None) -> None:
    """An OBJ file of v and f records (floats with 9 digits: float32 exactly);
    with a look, one vt per vertex (OBJ's v = 0 is the image's bottom: 1 - v)
    and usemtl records from ``library``'s MTL file, faces in their order."""
    lines = [f"v {x:.9g} {y:.9g} {z:.9g}" for x, y, z in vertices.tolist()]
    if look is None or library is None:
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces.tolist()]
    else:
        rel = os.path.relpath(os.path.join(library.folder, MATERIALS_FILE), os.path.dirname(path))
        lines.insert(0, f"mtllib {rel.replace(os.sep, '/')}")
        lines += [f"vt {u:.9g} {1.0 - v:.9g}" for u, v in look.uvs.tolist()]
        material = np.zeros(len(faces), np.int64)
        names = [library.name_of(p) for p in look.parts]
        for k, p in enumerate(look.parts):
            material[p.faces] = k
        current = None
        for i, (a, b, c) in enumerate(faces.tolist()):
            if material[i] != current:
                current = material[i]
                lines.append(f"usemtl {names[current]}")
            lines.append(f"f {a + 1}/{a + 1} {b + 1}/{b + 1} {c + 1}/{c + 1}")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def _numbers(parts, n: int, where: str) -> tuple:
    try:
        out = tuple(float(t) for t in parts[1:n + 1])
    except ValueError:
        raise ValueError(f"{where}: {parts[0]} needs {n} numbers, got {parts[1:n + 1]}") from None
    if len(out) < n or not all(np.isfinite(out)):
        raise ValueError(f"{where}: {parts[0]} needs {n} finite numbers, got {parts[1:n + 1]}")
    return out


def _records(path: str):
    """An OBJ or MTL file's lines that say something, comments cut: ("file:line", words)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split("#", 1)[0].split()
            if parts:
                yield f"{path}:{lineno}", parts


def read_materials(path: str) -> dict:
    """An MTL file's materials: name -> (colour (r, g, b, a), texture path or None)."""
    if os.path.getsize(path) > MAX_OBJ_BYTES:
        raise ValueError(f"{path}: the MTL file has {os.path.getsize(path)} bytes, more than MAX_OBJ_BYTES")
    out, name = {}, None
    for where, parts in _records(path):
        if parts[0] == "newmtl":
            name = " ".join(parts[1:])
            out[name] = [(0.8, 0.8, 0.8, 1.0), None]
        elif name is None and parts[0] in ("Kd", "d", "map_Kd"):
            raise ValueError(f"{where}: {parts[0]} before any newmtl")
        elif parts[0] == "Kd":
            out[name][0] = _numbers(parts, 3, where) + out[name][0][3:]
        elif parts[0] == "d":
            out[name][0] = out[name][0][:3] + _numbers(parts, 1, where)
        elif parts[0] == "map_Kd" and len(parts) > 1:
            out[name][1] = os.path.normpath(os.path.join(os.path.dirname(path), parts[-1]))
    return {k: (tuple(c), t) for k, (c, t) in out.items()}


def obj_look(path: str, warnings: list) -> Look | None:
    """The look of an OBJ file written by ``write_obj`` (or any OBJ with
    mtllib, usemtl and one vt per vertex): None when it names no material.
    Faces count as bbglue.meshes.load_obj counts them (polygons fanned)."""
    uvs_in, uv_of, materials, face_mtl, vertex_count = [], {}, None, [], 0
    current = None
    for where, parts in _records(path):
        if parts[0] == "v":
            vertex_count += 1
        elif parts[0] == "vt":
            u, v = _numbers(parts, 2, where)
            uvs_in.append((u, 1.0 - v))
        elif parts[0] == "mtllib" and materials is None:
            mtl = os.path.normpath(os.path.join(os.path.dirname(path), " ".join(parts[1:])))
            if not os.path.isfile(mtl):
                warnings.append(f"{where}: no material file {mtl}: drawn in the entity colour")
                return None
            materials = read_materials(mtl)
        elif parts[0] == "usemtl":
            current = " ".join(parts[1:])
            if materials is not None and current not in materials:
                warnings.append(f"{where}: material {current!r} is not in the material file")
        elif parts[0] == "f":
            corners = [tok.split("/") for tok in parts[1:]]
            for c in corners:
                if len(c) > 1 and c[1]:
                    if not c[1].lstrip("-").isdigit():
                        raise ValueError(f"{where}: texture index {c[1]!r} is not an integer")
                    vi, ti = int(c[0]), int(c[1])
                    vi = vi - 1 if vi > 0 else vertex_count + vi
                    ti = ti - 1 if ti > 0 else len(uvs_in) + ti
                    if 0 <= ti < len(uvs_in):
                        uv_of.setdefault(vi, uvs_in[ti])
            face_mtl += [current] * max(len(corners) - 2, 0)
    if materials is None or all(m is None for m in face_mtl):
        return None
    uvs = np.zeros((vertex_count, 2), np.float32)
    for vi, uv in uv_of.items():
        if 0 <= vi < vertex_count:
            uvs[vi] = uv
    parts, by_face = [], np.array([m or "" for m in face_mtl], object)
    for name in dict.fromkeys(by_face.tolist()):
        colour, texture = materials.get(name, (DEFAULT_DIFFUSE, None))
        if texture is not None and not os.path.isfile(texture):
            warnings.append(f"{path}: material {name!r}: no texture file {texture}: drawn in its colour")
            texture = None
        parts.append(LookPart(np.flatnonzero(by_face == name).astype(np.int32), colour, texture, name))
    return Look(uvs, parts)


def plan_looks(plan) -> dict:
    """Entity name -> the look of its OBJ mesh, for the entities whose OBJ
    files name materials (an `ivp import`ed level's sidecars); what cannot be
    found is logged as a warning and drawn in the colours it has."""
    by_file, out, warnings = {}, {}, []
    for e in plan.entities:
        if e.mesh is None or e.mesh.kind != "obj":
            continue
        if e.mesh.value not in by_file:
            by_file[e.mesh.value] = obj_look(e.mesh.value, warnings)
        if by_file[e.mesh.value] is not None:
            out[e.name] = by_file[e.mesh.value]
    for w in warnings:
        log.warning("%s", w)
    return out
