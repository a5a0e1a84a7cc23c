"""A game's level file as a scene (virtools-nmo.md 5; docs/levels.md).

``import_level`` reads a level (.nmo) and returns an ``Import``: a scene
document in the YAML format (docs/scenes.md), its meshes (OBJ sidecars, kept in
memory), and a ``LevelReport`` of what was found and what was skipped. Group
membership carries the semantics (5.1), and what each group means is the game
plug-in's ``LevelMeaning`` (behaviors.levels; Ballance's is
behaviors.ballance.level_meaning): the physics groups get the included
physics presets, the prop placeholders the prop presets, and the level
behaviour gets the reset points, checkpoints, death cubes, pickups and the
finish. The behaviour finds sector N's reset point and checkpoint by name
(Ballance's PR_Resetpoint_0N, PC_TwoFlames_0N: the number in the name is the
sector's, 5.2 and 7.5), so their members are named so. The level settings
(5.6, Ballance's Levelinit.nmo) are read from the game folder when it is
there. Axes stay Virtools' (the scene format is left-handed, Y up too).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from behaviors.levels import LevelMeaning, level_meaning
from ivp import umath
from ivp.surface import usable_faces

from . import reader as r
from .game import SKY_DIR, SOUNDS_DIR, TEXTURES_DIR, find_ci, game_folder, sky_images
from .looks import Surface, Textures, mesh_look
from .modules import build_module, placed, read_prefab, under
from .particles import particle_looks

RUN_LENGTH = 30.0                   # seconds `ivp run` plays by default
DEFAULT_COLOUR = (0.7, 0.7, 0.7, 1.0)   # 3.4: Virtools' default material
ORTHO_TOLERANCE = 1e-4
ADDED = (2, 2)                      # 3.5's blend factors one, one: a colour added to what is behind
MAX_SKY_SCROLL = 100.0              # texture repeats per second: a larger Skytranslation is refused (a bad file)


@dataclass
class LevelSettings:
    """5.6: the level's row of the settings table (Ballance: Levelinit's
    AllLevel), or the level meaning's defaults (Level_01's row)."""

    level: int
    start_ball: str
    sky: str
    bonus: int
    light: tuple = (1.0, 1.0, 1.0, 1.0)
    sky_scroll: tuple = (0.0, 0.0)          # Skytranslation: the sky layer's texture, per second
    music: int = 1
    source: str = "defaults (no Levelinit.nmo)"


@dataclass
class LevelReport:
    """What an import found, for ``ivp check``."""

    path: str
    settings: LevelSettings
    objects: int = 0
    counts: Counter = field(default_factory=Counter)             # class name -> objects
    groups: dict = field(default_factory=dict)                   # group -> (members, triangles)
    sectors: list = field(default_factory=list)
    places: list = field(default_factory=list)                   # (role, name, position)
    skipped: list = field(default_factory=list)                  # (what, reason)
    unknown_groups: list = field(default_factory=list)
    modules: list = field(default_factory=list)                  # (placeholder, what was built from its prefab)
    module_parts: list = field(default_factory=list)             # (placeholder, which part plays which role)
    warnings: list = field(default_factory=list)
    triangles: int = 0
    physics_triangles: int = 0

    def text(self) -> str:
        s = self.settings
        lines = [f"  level {s.level}: start ball {s.start_ball}, sky {s.sky}, light {_fmt(s.light)}, "
                 f"bonus {s.bonus}, music {s.music} ({s.source})",
                 f"  objects {self.objects}: " + ", ".join(f"{k} {n}" for k, n in sorted(self.counts.items())),
                 f"  triangles {self.triangles}, in Phys_* groups {self.physics_triangles}",
                 f"  sectors {len(self.sectors)}: {', '.join(self.sectors) or 'none'}"]
        lines += [f"  group {g}: {n} members, {t} triangles" for g, (n, t) in sorted(self.groups.items())]
        lines += [f"  {role} {name} at {_fmt(p)}" for role, name, p in self.places]
        for name, what in self.modules:
            lines.append(f"  module {name}: built from {what}")
            lines += [f"    {line}" for n, line in self.module_parts if n == name]
        lines += [f"  unknown group {g}: kept as a plain group, nothing uses it" for g in self.unknown_groups]
        lines += [f"  skipped {what}: {why}" for what, why in self.skipped]
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)


@dataclass
class Import:
    """A level as a scene document (plain data in the YAML format) and its meshes:
    sidecar path (relative to the document) -> (vertices, faces)."""

    document: dict
    meshes: dict
    report: LevelReport
    looks: dict = field(default_factory=dict)         # entity name -> looks.Look (the viewer's textures)
    sidecar_looks: dict = field(default_factory=dict)  # sidecar path -> looks.Look (written with the OBJ)
    sky_box: tuple | None = None                      # the sky's images (game.SKY_FACES order, None: missing)
    particles: dict = field(default_factory=dict)     # emitter entity name -> particles.ParticleLook


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _fmt(v) -> str:
    return "(" + ", ".join(f"{x:.4g}" for x in v) + ")"


# --- level settings (5.6) ------------------------------------------------------------------------

def level_number(path: str) -> int:
    m = re.search(r"level_?(\d+)", os.path.basename(path), re.IGNORECASE)
    return int(m.group(1)) if m else 1


def level_settings(level_path: str, game: str | None, meaning: LevelMeaning, encodings=r.ENCODINGS) -> LevelSettings:
    """5.6: the row for this level of the meaning's settings table (Ballance:
    Levelinit.nmo's AllLevel; by Levelfile, else by row number), or the
    meaning's defaults with the reason."""
    number = level_number(level_path)
    out = LevelSettings(number, meaning.default_start_ball, meaning.default_sky, meaning.level_bonus * number,
                        source=f"defaults (no {meaning.settings_file[-1]})")
    path = find_ci(game, *meaning.settings_file) if game else None
    if path is None:
        return out
    try:
        init = r.read_file(path, encodings)
    except (r.VirtoolsError, OSError) as exc:
        out.source = f"defaults: {meaning.settings_file[-1]} is unreadable: {exc}"
        return out
    table = next((a for a in init.objects if isinstance(a, r.DataArray) and a.name == meaning.settings_table), None)
    if table is None or not table.rows:
        out.source = f"defaults: {path} has no {meaning.settings_table} table"
        return out
    cols = {name: i for i, (name, _) in enumerate(table.columns)}
    base = os.path.basename(level_path).lower()
    row = next((row for row in table.rows if "Levelfile" in cols and str(row[cols["Levelfile"]]).lower() == base),
               table.rows[number - 1] if 0 < number <= len(table.rows) else None)
    if row is None:
        out.source = f"defaults: {path} has no {meaning.settings_table} row for level {number}"
        return out

    def cell(name, kind, default):
        v = row[cols[name]] if name in cols else None
        return v if isinstance(v, kind) and not isinstance(v, bool) else default

    out.start_ball = cell("StartBall", str, out.start_ball)
    out.sky = cell("Sky", str, out.sky)
    out.bonus = cell("LevelBonus", int, out.bonus)
    out.music = cell("Music", int, out.music)
    light = _floats(init, cell("Light", int, None), 4)
    if light is not None:
        out.light = tuple(min(max(x, 0.0), 1.0) for x in light)
    scroll = _floats(init, cell("Skytranslation", int, None), 2)
    if scroll is not None and all(abs(x) <= MAX_SKY_SCROLL for x in scroll):
        out.sky_scroll = scroll
    out.source = path
    return out


def _floats(nmo: r.NmoFile, index, n: int) -> tuple | None:
    """A parameter's value as ``n`` finite f32 (a colour, a 2D vector), or None."""
    p = nmo.get(index, r.Parameter)
    if p is None or not isinstance(p.value, bytes) or len(p.value) < 4 * n:
        return None
    out = tuple(float(x) for x in np.frombuffer(p.value[:4 * n], "<f4"))
    return out if all(math.isfinite(x) for x in out) else None


# --- poses (3.3, 4) ------------------------------------------------------------------------------

def decompose(matrix):
    """A world matrix (4 rows of 3: X, Y, Z axes, position; row vectors) as
    (position, quaternion mapping local to world, scale), or None when its axes
    are not a rotation times a positive scale (shear, mirror, zero axis)."""
    rows = np.array(matrix[:9], np.float64).reshape(3, 3)
    scale = np.linalg.norm(rows, axis=1)
    if not np.all(scale > 1e-9):
        return None
    axes = rows / scale[:, None]
    if np.abs(axes @ axes.T - np.eye(3)).max() > ORTHO_TOLERANCE or np.linalg.det(axes) < 0:
        return None
    q = umath.matrix_to_quat(tuple(float(x) for x in axes.T.reshape(9)))   # column i = local axis i
    return tuple(_f32(x) for x in matrix[9:12]), q, tuple(_f32(s) for s in scale)


def _f32(x: float) -> float:
    """The shortest decimal that is the same float32 (readable YAML, same value)."""
    return float(str(np.float32(x)))


def bake(vertices: np.ndarray, faces: np.ndarray, matrix):
    """The mesh with the matrix's linear part applied (v' = v . L); faces
    turned when L mirrors, so they keep facing out."""
    lin = np.array(matrix[:9], np.float64).reshape(3, 3)
    v = (vertices.astype(np.float64) @ lin).astype(np.float32)
    return v, (faces[:, [0, 2, 1]] if np.linalg.det(lin) < 0 else faces)


# --- the import --------------------------------------------------------------------------------------

def _number(name: str) -> int:
    """7.5: checkpoint and reset-point numbers are the last digits in the name."""
    m = re.findall(r"\d+", name)
    return int(m[-1]) if m else 0


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "mesh"


class _Importer:
    def __init__(self, nmo: r.NmoFile, settings: LevelSettings, game: str | None, encodings, meaning: LevelMeaning):
        self.nmo = nmo
        self.m = meaning             # what the groups and names mean (behaviors.levels)
        self.game = game
        self.encodings = encodings
        self.stem = _safe(os.path.splitext(os.path.basename(nmo.path))[0])
        self.report = LevelReport(nmo.path, settings, objects=len(nmo.objects), warnings=list(nmo.warnings))
        self.meshes = {}             # sidecar path -> (vertices, faces)
        self.mesh_names = {}         # (file, mesh index, baked entity name or None) -> (name in meshes:, path)
        self.files = set()
        self.looks = {}              # entity name -> Look
        self.mesh_looks = {}         # mesh key (file, mesh index, faces dropped) -> Look
        self.usable = {}             # mesh key -> the mesh without those faces (when there are any)
        self.warned = set()          # mesh keys whose dropped faces were reported (physical meshes only)
        self.sidecar_looks = {}      # sidecar path -> the Look of its entities (an `ivp import`'s materials)
        self.meshes_by_name = {}     # meshes: name -> sidecar path
        self.textures = Textures(game, self.report.warnings)
        self.prefabs = {}            # module kind -> (Prefab or None, reason)
        self.particles = {}          # emitter entity name -> ParticleLook (the flames' prefabs)

    def run(self) -> Import:
        nmo, rep = self.nmo, self.report
        rep.counts = Counter(r.CLASS_NAMES.get(o.class_id, f"class {o.class_id}") for o in nmo.objects)
        for o in nmo.objects:
            if isinstance(o, r.Mesh):
                rep.triangles += len(o.faces)
            elif o.class_id in r.ENTITY_CLASSES and o.class_id not in (r.CK_3DENTITY, r.CK_3DOBJECT):
                rep.skipped.append((o.label, "cameras, lights, sprites and curves are not imported"))
        self.memberships = self._memberships()
        self.names = self._names()
        entities, extra = [], []
        for e in nmo.entities:
            if e.class_id in (r.CK_3DENTITY, r.CK_3DOBJECT):
                entities.append(self._entity(e))
        order = {self.m.reset_points: 1, self.m.checkpoints: 2}
        entities.sort(key=lambda item: (max((order.get(g, 0) for g in item[1]["groups"]), default=0),
                                        _number(item[1]["name"]) if set(item[1]["groups"]) & set(order) else 0))
        docs = [d for _, d in entities]
        for role, group in (("start", self.m.start), ("reset point", self.m.reset_points),
                            ("checkpoint", self.m.checkpoints), ("finish", self.m.finish)):
            rep.places += [(role, d["name"], tuple(d["position"])) for d in docs if group in d["groups"]]
        behaviours = self._behaviours(docs, extra)
        joints = self._modules(docs, extra, behaviours)
        joints += self._balloon(docs, extra, behaviours)
        self._flames(docs, extra)
        self._camera(extra)
        s = rep.settings
        start = next((p for role, _, p in rep.places if role == "start"), (0.0, 0.0, 0.0))
        doc = {
            "version": 1,
            "scene": {"name": os.path.basename(nmo.path), "length": RUN_LENGTH,
                      "description": f"Imported from {nmo.path}; sky {s.sky}",
                      "gravity": list(self.m.gravity), "time_factor": self.m.time_factor,
                      "camera": {"position": [start[0], start[1] + 35.0, start[2] - 22.0], "target": list(start)},
                      "lights": [{"type": "directional", "direction": self._light_direction(),
                                  "color": list(s.light[:3])},
                                 {"type": "ambient", "color": [self.m.ambient] * 3}]},
            "includes": [{"file": f} for f in self.m.includes],
            "meshes": {name: {"obj": path} for (name, path) in sorted(set(self.mesh_names.values()))},
            "entities": docs + extra,
            "joints": joints,
            "behaviours": behaviours,
        }
        if not joints:
            del doc["joints"]
        return Import(doc, self.meshes, rep, self.looks, self.sidecar_looks, self._sky(), self.particles)

    # --- groups ----------------------------------------------------------------------------------

    def _memberships(self) -> dict:
        """Entity index -> the group names it is in (sectors as Sector_NN), with
        one Phys_* group and one prop group at most (two presets would clash)."""
        nmo, rep = self.nmo, self.report
        out = {}
        sectors = set()
        m = self.m
        known = set(m.physics_groups + m.prop_groups + m.trafo_groups) | {
            m.start, m.finish, m.checkpoints, m.reset_points, m.death_cubes, m.extra_life, m.extra_point}
        for g in nmo.groups:
            name = g.name
            number = m.sector.fullmatch(name)
            if number:
                name = m.sector_name.format(int(number.group(1)))
                sectors.add(int(number.group(1)))
            elif not (name in known or m.module.fullmatch(name) or m.plain_groups.fullmatch(name)):
                rep.unknown_groups.append(name)
            members = [i for i in g.members if isinstance(nmo.objects[i], r.Entity)]
            if len(members) != len(g.members):
                rep.skipped.append((f"{len(g.members) - len(members)} members of group {g.name!r}",
                                    "not 3D entities"))
            tris = 0
            for i in members:
                mesh = nmo.get(nmo.objects[i].mesh, r.Mesh)
                tris += len(mesh.faces) if mesh is not None else 0
                have = out.setdefault(i, [])
                for kinds in (self.m.physics_groups, self.m.prop_groups):
                    if name in kinds and any(h in kinds for h in have):
                        rep.skipped.append((f"{nmo.objects[i].label} in {name}",
                                            f"already in {next(h for h in have if h in kinds)}"))
                        break
                else:
                    if name not in have:
                        have.append(name)
            old = rep.groups.get(name, (0, 0))
            rep.groups[name] = (old[0] + len(members), old[1] + tris)
            if name in self.m.physics_groups:
                rep.physics_triangles += tris
        n = 1
        while n in sectors:
            rep.sectors.append(self.m.sector_name.format(n))
            n += 1
        for k in sorted(sectors - set(range(1, n))):
            rep.skipped.append((f"group {self.m.sector_name.format(k)}",
                                f"sectors stop at {n - 1}: the run from {self.m.sector_name.format(1)} "
                                f"has a gap (7.11)"))
        return out

    def _names(self) -> dict:
        """Entity index -> a unique scene name: the object's, or with "#index"
        when another entity, a group or the player rig has it; then the reset
        points' and checkpoints' names the level finds them by."""
        self.taken = taken = set(self.m.reserved) | set(g for gs in self.memberships.values() for g in gs)
        counts = Counter(e.name for e in self.nmo.entities)
        out = {}
        for e in self.nmo.entities:
            name = e.name or f"object_{e.index}"
            if counts[e.name] > 1 or name in taken:
                name = f"{name}#{e.index}"
                self.report.skipped.append((e.label, f"its name is taken: imported as {name!r}"))
            out[e.index] = name
            taken.add(name)
        self._sector_names(out, self.m.reset_points, self.m.reset_point_name, "reset point")
        self._sector_names(out, self.m.checkpoints, self.m.checkpoint_name, "checkpoint")
        return out

    def _sector_names(self, out: dict, group: str, fmt: str, role: str) -> None:
        """5.2 / 7.5: the level finds sector N's reset point (the checkpoint
        ending sector N) by the name ``fmt.format(N)``, N the number in the
        member's name. A member named otherwise (``PR_Resetpoint_1``,
        ``PC_TwoFlames_01a``) gets that name while no other object has it;
        members past a gap in the numbers are not used (the level stops there)."""
        rep = self.report
        members = sorted((i for i, gs in self.memberships.items() if group in gs),
                         key=lambda i: (_number(self.nmo.objects[i].name), i))
        named = []                                  # (member, its sector number)
        for i in members:
            what, n = f"{self.nmo.objects[i].label} in {group}", _number(self.nmo.objects[i].name)
            want = fmt.format(n)
            if out[i] == want:
                named.append((what, n))
            elif not 1 <= n <= self.m.max_sectors:
                rep.skipped.append((what, f"not a {role}: its name has no sector number 1 to "
                                          f"{self.m.max_sectors}"))
            elif want in self.taken:
                rep.skipped.append((what, f"not {role} {n}: another object is {want!r}"))
            else:
                rep.warnings.append(f"{what} is imported as {want!r}, the name of {role} {n}")
                self.taken.add(want)
                out[i] = want
                named.append((what, n))
        run = 1
        while fmt.format(run) in self.taken:
            run += 1
        rep.skipped += [(what, f"{role}s stop at {run - 1}: there is no {fmt.format(run)!r}")
                        for what, n in named if n > run]

    # --- entities --------------------------------------------------------------------------------

    def _mesh_name(self, nmo: r.NmoFile, stem: str, mesh: r.Mesh, baked: tuple | None, dropped: tuple = ()) -> str:
        """The meshes: name of a mesh of ``nmo`` (instanced, 7.7) without the
        faces ``dropped`` (``_usable``), or of its copy baked with the ``baked``
        (entity name, world matrix); its OBJ sidecar path."""
        key = (nmo.path, mesh.index, dropped, None if baked is None else baked[0])
        if key not in self.mesh_names:
            base = _safe(f"{stem}_{mesh.name}" + ("" if baked is None else f"@{baked[0]}"))
            name, n = base, 1
            while name.lower() in self.files:
                n += 1
                name = f"{base}_{n}"
            self.files.add(name.lower())
            path = f"{self.stem}.meshes/{name}.obj"
            v, f = mesh.vertices, mesh.faces
            if baked is not None:
                v, f = bake(v, f, baked[1])
            self.meshes[path] = (v, f)
            self.mesh_names[key] = (name, path)
            self.meshes_by_name[name] = path
        return self.mesh_names[key][0]

    def _usable(self, nmo: r.NmoFile, mesh: r.Mesh, points: np.ndarray, physical: bool) -> tuple:
        """(the mesh, the faces dropped): the mesh without the faces that are
        degenerate at ``points`` (its vertices as the entity places them), by
        the engine's own rule (ivp.surface.usable_faces; the original draws
        and collides without them), their materials dropped in step; one
        warning per mesh and set of faces dropped when the mesh is
        ``physical`` (a degenerate face only drawn shows nothing: the flames'
        frames have dozens, silently)."""
        keep = usable_faces(points, mesh.faces)
        dropped = tuple(np.flatnonzero(~keep).tolist())
        key = (nmo.path, mesh.index, dropped)
        if dropped and key not in self.usable:
            slots = mesh.face_slots[keep] if len(mesh.face_slots) == len(mesh.faces) else mesh.face_slots
            self.usable[key] = replace(mesh, faces=mesh.faces[keep], face_slots=slots)
        if dropped and physical and key not in self.warned:
            self.warned.add(key)
            what = _count(len(dropped), "degenerate triangle", "degenerate triangles")
            self.report.warnings.append(f"{nmo.path}: mesh {mesh.name!r}: {what} of {len(mesh.faces)} dropped "
                                        f"with their materials (the first: triangle {dropped[0]})")
        return self.usable.get(key, mesh), dropped

    def _entity(self, e: r.Entity):
        groups = self.memberships.get(e.index, [])
        mesh = self.nmo.get(e.mesh, r.Mesh)
        if e.mesh is not None and mesh is None:
            self.report.skipped.append((f"the mesh of {e.label}", "it is not a CKMesh (7.3)"))
        if any(g in self.m.prop_groups for g in groups):
            mesh = None                     # 5.2: the placeholder's mesh is an editing aid; the preset has the prop's
        item = self._item(self.nmo, self.stem, e, e.matrix, self.names[e.index], groups, mesh)
        if item["name"] == self.m.sky_layer and "mesh" in item:
            self._sky_layer(item)
        if e.parent is not None:
            item["attributes"] = {"Virtools Parent": self.names.get(e.parent, str(e.parent))}
        return e, item

    def _item(self, nmo: r.NmoFile, stem: str, e: r.Entity, matrix, name: str, groups: list,
              mesh: r.Mesh | None) -> dict:
        """An entity of ``nmo`` at the world ``matrix`` (3.3) as a scene entity:
        pose, mesh (baked when the matrix is no rotation and positive scale),
        colour and look, visibility and groups."""
        rep = self.report
        item = {"name": name}
        if mesh is not None and not len(mesh.faces):
            mesh = None
        pose = decompose(matrix)
        baked = pose is None
        if baked:
            pose = (tuple(_f32(x) for x in matrix[9:12]), umath.IDENTITY_Q, (1.0, 1.0, 1.0))
            rep.skipped.append((f"the matrix of {e.label}", "not a rotation and a positive scale: baked into "
                                                          "its mesh" if mesh is not None else
                                                          "not a rotation and a positive scale: position only"))
        position, q, scale = pose
        item.update(position=list(position), rotation={"quaternion": list(q)}, scale=list(scale))
        dropped = ()
        if mesh is not None:
            placed_points = bake(mesh.vertices, mesh.faces, matrix)[0] if baked else \
                np.asarray(mesh.vertices, np.float64) * np.asarray(scale, np.float64)
            physical = any(g in self.m.physics_groups for g in groups)
            mesh, dropped = self._usable(nmo, mesh, placed_points, physical)
        if mesh is not None and len(mesh.faces):
            item["mesh"] = self._mesh_name(nmo, stem, mesh, (name, matrix) if baked else None, dropped)
            item["color"] = list(self._colour(nmo, mesh))
            key = (nmo.path, mesh.index, dropped)
            if key not in self.mesh_looks:          # one look per mesh: instances share it (7.7)
                self.mesh_looks[key] = mesh_look(nmo, mesh, self.textures, self.m.env_textures)
            self.looks[name] = self.mesh_looks[key]
            self.sidecar_looks[self.meshes_by_name[item["mesh"]]] = self.mesh_looks[key]
        elif any(g in self.m.physics_groups for g in groups):
            rep.skipped.append((f"{e.label} in {', '.join(g for g in groups if g in self.m.physics_groups)}",
                                "it has no usable triangles: no collision"))
            groups = [g for g in groups if g not in self.m.physics_groups]
        if e.hidden or any(g in self.m.hidden_groups for g in groups):
            item["visible"] = False
        item["groups"] = list(groups)
        return item

    @staticmethod
    def _colour(nmo: r.NmoFile, mesh: r.Mesh) -> tuple:
        """The diffuse colour of the material most faces use (3.5), or the default."""
        if not len(mesh.face_slots):
            return DEFAULT_COLOUR
        slot = int(np.bincount(mesh.face_slots).argmax())
        mat = nmo.get(mesh.slots[slot] if slot < len(mesh.slots) else None, r.Material)
        return DEFAULT_COLOUR if mat is None else tuple(round(c, 4) for c in r.rgba(mat.diffuse)[:3]) + (1.0,)

    # --- behaviours -------------------------------------------------------------------------------------

    def _behaviours(self, docs: list, extra: list) -> list:
        """The level flow (Ballance's ballance.level), the transformers and the fans."""
        rep = self.report
        present = {g for d in docs for g in d["groups"]}
        members = {g: [d for d in docs if g in d["groups"]] for g in present}
        m = self.m
        fallback = m.start_balls[m.default_start_ball]
        params = {"level": rep.settings.level, "start_kind": m.start_balls.get(rep.settings.start_ball, fallback)}
        if rep.settings.start_ball not in m.start_balls:
            rep.skipped.append((f"start ball {rep.settings.start_ball!r}", f"not a ball kind: {fallback} instead"))
        params.update(reset_points=m.reset_point_name, checkpoints=m.checkpoint_name, sector_groups=m.sector_name)
        if self.m.reset_point_name.format(1) not in self.taken:
            extra.append(self._first_reset_point(members.get(self.m.start, [])))
        for key, group in (("death_boxes", self.m.death_cubes), ("extra_lives", self.m.extra_life),
                           ("extra_points", self.m.extra_point)):
            if group in present:
                params[key] = group
        out = [{"type": m.behaviours["level"], "params": params}]
        if "music" in m.behaviours:         # the level's music number (5.6) and the waves' folder
            sounds = find_ci(self.game, SOUNDS_DIR) if self.game else None
            out.append({"type": m.behaviours["music"], "params": {"theme": rep.settings.music, "sounds": sounds or ""}})
        if present & set(m.trafo_groups):
            out.append({"type": m.behaviours["transformers"]})
        for d in members.get(m.fan, []):
            out.append({"type": m.behaviours["fan"], "entity": d["name"]})
        if members.get(m.fan) and "fan_sound" in m.behaviours:
            out.append({"type": m.behaviours["fan_sound"], "params": {"fans": m.fan}})
        return out

    def _modules(self, docs: list, extra: list, behaviours: list) -> list:
        """Each module placeholder replaced by its prefab's parts at its matrix
        (5.2, modules.py), with the hinged modules' bodies, joints and wake
        gates; the joints. Without a prefab the placeholder stays (the fan
        still works) and the report says why."""
        rep = self.report
        joints = []
        by_name = {self.names[e.index]: e for e in self.nmo.entities}
        for kind in sorted({g for d in docs for g in d["groups"] if self.m.module.fullmatch(g)}):
            if kind not in self.prefabs:
                self.prefabs[kind] = read_prefab(self.game, kind, self.m.module_root, self.encodings)
            prefab, why = self.prefabs[kind]
            placeholders = [d for d in docs if kind in d["groups"]]
            if prefab is None:
                keep = "the fan works, drawn as its placeholder" if kind == self.m.fan else \
                    "shown as their placeholders, without physics"
                rep.skipped.append((f"{len(placeholders)} {kind} placeholders", f"{why}: {keep}"))
                continue
            for d in placeholders:
                e = by_name[d["name"]]
                matrix = e.matrix
                d.pop("mesh", None)                 # 5.2: the placeholder's mesh is an editing aid
                d.pop("color", None)
                self.looks.pop(d["name"], None)
                floors = [g for g in d["groups"] if g in self.m.physics_groups]
                if floors:                          # 5.2: the game deletes or hides it: it is no floor
                    rep.skipped.append((f"{e.label} in {', '.join(floors)}", f"a {kind} placeholder, replaced by "
                                                                            "its prefab: no collision"))
                    d["groups"] = [g for g in d["groups"] if g not in floors]
                sectors = [g for g in d["groups"] if self.m.sector.fullmatch(g)]
                names = {p.index: self._unique(f"{d['name']}.{p.name}") for p in prefab.parts}
                built = build_module(self.m, kind, prefab, names, d["name"],
                                     lambda m: self._mesh_name(prefab.nmo, _safe(kind), m, None))
                self._place(kind, prefab, prefab.parts, matrix, names, sectors, built, extra)
                joints += built.joints
                behaviours += built.behaviours
                head = f"{kind}.nmo, {len(prefab.parts)} parts"
                if built.why:
                    rep.modules.append((d["name"], f"{head} drawn; {built.why}"))
                else:
                    rep.modules.append((d["name"], f"{head}, {_count(len(built.physics), 'body', 'bodies')}, "
                                                   f"{_count(len(built.joints), 'joint', 'joints')}"))
                rep.module_parts += [(d["name"], line) for line in built.found]
        return joints

    def _sky(self) -> tuple | None:
        """5.6: the sky box of the level's Sky (Levelinit, or the default
        Sky_L) from Textures/Sky/, for the viewer; a face missing is a warning."""
        sky = self.report.settings.sky
        paths, missing = sky_images(self.game, sky)
        if not self.game or len(missing) == len(paths):
            where = f"in {os.path.join(self.game, TEXTURES_DIR, SKY_DIR)}" if self.game else "no game folder"
            self.report.skipped.append((f"sky {sky}", f"no images ({where}): the viewer's plain sky"))
            return None
        if missing:
            self.report.warnings.append(f"sky {sky}: no {', '.join(missing)}: those faces show the plain sky")
        return paths

    def _place(self, kind: str, prefab, parts: list, matrix, names: dict, sectors: list, built, extra: list) -> None:
        """5.2: the prefab's ``parts`` at the placeholder's matrix, the built
        module's bodies first (in its roles' order), with their physics and groups."""
        first = {i: k for k, i in enumerate(built.order)}
        for p in sorted(parts, key=lambda p: (first.get(p.index, len(first)), p.index)):
            world = placed(p, prefab.root, matrix)
            item = self._item(prefab.nmo, _safe(kind), p, world, names[p.index], list(sectors),
                              prefab.nmo.get(p.mesh, r.Mesh))
            if p.index in built.physics:
                item["physics"] = self._part_physics(built.physics[p.index], world, p, built.found)
            item["groups"] += [g for g in built.groups.get(p.index, []) if g not in item["groups"]]
            extra.append(item)

    def _balloon(self, docs: list, extra: list, behaviours: list) -> list:
        """5.2 / 5.5, glue-and-content 3 "Finish balloon": the balloon's prefab
        (PE_Balloon.nmo) at the PE_Levelende placeholder: the parts under its
        root PE_Balloon_MF (the prefab's other roots, PE_UFO_Body ..., are left
        out), the placeholder hidden, the meaning's ``balloon_shown`` parts
        shown (the prefab saves them hidden). The meaning's module table of
        the prefab gives the platform, its slider and spring to the box and
        the bridge of 8 hinged plates, in the placeholder's sector or else the
        last one (the balloon is a part of the last sector, Three.js' notes);
        the finish trigger (1 around the platform) is then the platform
        itself. Without the prefab or a part, it is a trigger entity
        ``finish_height`` above the placeholder. Returns the joints."""
        rep = self.report
        finish = [d for d in docs if self.m.finish in d["groups"]][:1]
        if not finish:
            return []
        d = finish[0]
        trigger, joints = None, []
        prefab, why = read_prefab(self.game, self.m.balloon, self.m.module_root, self.encodings)
        if prefab is None:
            rep.skipped.append((f"the balloon of {d['name']}", f"{why}: the finish is a trigger only"))
        else:
            parts = [p for p in prefab.parts if under(p, prefab.root, prefab.nmo)]
            matrix = next(e for e in self.nmo.entities if self.names[e.index] == d["name"]).matrix
            d["visible"] = False            # the placeholder is an untextured stand-in of the prefab
            names = {p.index: self._unique(f"{d['name']}.{p.name}") for p in parts}
            part_view = replace(prefab, parts=parts)
            built = build_module(self.m, self.m.balloon, part_view, names, d["name"],
                                 lambda m: self._mesh_name(prefab.nmo, _safe(self.m.balloon), m, None))
            sectors = [g for g in d["groups"] if self.m.sector.fullmatch(g)] or rep.sectors[-1:]
            self._place(self.m.balloon, prefab, parts, matrix, names, sectors, built, extra)
            shown = tuple((self.m.balloon + k).lower() for k in self.m.balloon_shown)
            placed_names = set(names.values())
            for item in extra:
                if item["name"] in placed_names and item["name"].partition(".")[2].lower().startswith(shown):
                    item.pop("visible", None)
            head = f"{self.m.balloon}.nmo, {len(parts)} parts under {prefab.root.name}"
            left = f"{len(prefab.parts) - len(parts)} others left out"
            if built.why or not built.physics:
                rep.modules.append((d["name"], f"{head} drawn, {left}; {built.why or 'no physics table'}"))
            else:
                rep.modules.append((d["name"], f"{head}, {_count(len(built.physics), 'body', 'bodies')}, "
                                               f"{_count(len(built.joints), 'joint', 'joints')}, {left}"))
                trigger = built.params.get("finish")    # the table's platform
                joints = built.joints
                behaviours += built.behaviours
            rep.module_parts += [(d["name"], line) for line in built.found]
        if trigger is None:                     # no prefab or a part missing: the old trigger
            p = d["position"]
            trigger = f"{self.m.finish}.trigger"
            extra.append({"name": trigger, "position": [p[0], p[1] + self.m.finish_height, p[2]]})
        level = next(b for b in behaviours if b["type"] == self.m.behaviours["level"])
        level["params"]["finish"] = trigger
        return joints

    def _sky_layer(self, item: dict) -> None:
        """5.4 / 5.6: the cloud sheet, saved hidden, shown as the game's script
        shows it, prelit (unlit, the meaning's sky_layer_light), its texture
        scrolling by the level's Skytranslation per second, added to what is
        behind it (its clouds are drawn on black; inferred: the file's
        material is opaque), writing no depth, marked as the sky's."""
        item.pop("visible", None)
        look = self.looks[item["name"]]
        scroll, light = self.report.settings.sky_scroll, (self.m.sky_layer_light,) * 3
        self.looks[item["name"]] = replace(look, parts=[
            replace(p, uv_scroll=scroll, prelit=light, surface=replace(p.surface or Surface(), blend=ADDED,
                                                                      z_write=False, sky=True))
            for p in look.parts])

    def _flames(self, docs: list, extra: list) -> None:
        """5.2 / 5.5: the flames' frames of the start's and the checkpoints'
        prefabs (the meaning's ``flame_prefabs``, named as the placeholder
        without its number) at each placeholder, hidden, as
        ``<placeholder>.<frame>``: the emitters the level's behaviour lights,
        with their particle systems' settings (particles.py)."""
        rep, looks = self.report, {}
        for d in [d for d in docs if {self.m.start, self.m.checkpoints} & set(d["groups"])]:
            kind = re.sub(r"_\d+$", "", d["name"])
            if kind not in self.m.flame_prefabs:
                continue
            if kind not in self.prefabs:
                self.prefabs[kind] = read_prefab(self.game, kind, self.m.module_root, self.encodings)
            prefab, why = self.prefabs[kind]
            if prefab is None:
                rep.skipped.append((f"the flames of {d['name']}", f"{why}: no flames"))
                continue
            if kind not in looks:
                looks[kind], left = particle_looks(prefab.nmo, kind, [p.name for p in prefab.parts])
                rep.skipped += [(f"the particles of {kind}'s {name}", "not matched to a particle system's "
                                 "script: the viewer's flame") for name in left]
            matrix = next(e for e in self.nmo.entities if self.names[e.index] == d["name"]).matrix
            for p in prefab.parts:
                item = self._item(prefab.nmo, kind, p, placed(p, prefab.root, matrix),
                                  self._unique(f"{d['name']}.{p.name}"), [], None)
                item["visible"] = False
                extra.append(item)
                if p.name in looks[kind]:
                    self.particles[item["name"]] = looks[kind][p.name]

    def _light_direction(self) -> list:
        """Where the level's light shines: the Z axis of the meaning's light
        entity in its file (Ballance: Gameplay.nmo's Light_Ingame), or a
        stated one when the file or the entity is missing (the report says so)."""
        stated = [0.3, -1.0, 0.5]
        if not self.m.light_file:
            return stated
        want = "/".join(self.m.light_file)
        path = find_ci(self.game, *self.m.light_file) if self.game else None
        try:
            lights = r.read_file(path, self.encodings).named(self.m.light, r.Entity) if path else []
        except (r.VirtoolsError, OSError) as exc:
            self.report.skipped.append((f"the light {self.m.light}", f"{want} is unreadable: {exc}: a stated light"))
            return stated
        if not lights:
            where = f"not in {path}" if path else f"no {want}"
            self.report.skipped.append((f"the light {self.m.light}", f"{where}: a stated light"))
            return stated
        z = np.asarray(lights[0].matrix, np.float64).reshape(4, 3)[2]
        if not np.isfinite(z).all() or np.linalg.norm(z) == 0.0:
            self.report.skipped.append((f"the light {self.m.light}", "its Z axis has no direction: a stated light"))
            return stated
        return [float(x) for x in z / np.linalg.norm(z)]

    def _camera(self, extra: list) -> None:
        """The game's camera rig (the meaning's camera file, Ballance's
        Camera.nmo): its 3D entities at their authored world matrices, hidden,
        for the camera behaviour to read; without the file it has the stated
        rig (the report says so)."""
        rep, want = self.report, "/".join(self.m.camera_file)
        path = find_ci(self.game, *self.m.camera_file) if self.game else None
        if path is None:
            where = f"in {self.game}" if self.game else "no game folder is known"
            rep.skipped.append(("the camera rig", f"no {want} ({where}): the stated rig"))
            return
        try:
            rig = r.read_file(path, self.encodings)
        except (r.VirtoolsError, OSError) as exc:
            rep.skipped.append(("the camera rig", f"{want} is unreadable: {exc}: the stated rig"))
            return
        added = set()
        for e in rig.entities:
            if e.class_id not in (r.CK_3DENTITY, r.CK_3DOBJECT):
                continue
            if e.name in added or (e.name in self.taken and e.name not in self.m.reserved):
                rep.skipped.append((f"{e.label} of {want}", "another object has its name"))
                continue
            added.add(e.name)
            self.taken.add(e.name)
            item = self._item(rig, "Camera", e, e.matrix, e.name, [], None)
            item["visible"] = False
            extra.append(item)
            rep.places.append(("camera rig", e.name, tuple(item["position"])))

    @staticmethod
    def _part_physics(pins: dict, world, part: r.Entity, found: list) -> dict:
        """A module part's pins; its hulls dropped when its matrix is baked into
        its mesh (they are in the unbaked frame): then its own mesh collides."""
        if "convex" in pins and decompose(world) is None:
            found.append(f"{part.name!r} collides as its own mesh, convex: its matrix is baked")
            return {k: v for k, v in pins.items() if k != "convex"}
        return pins

    def _unique(self, name: str) -> str:
        """``name``, or with a number when an object already has it."""
        out, n = name, 1
        while out in self.taken:
            n += 1
            out = f"{name}#{n}"
        self.taken.add(out)
        return out

    def _first_reset_point(self, starts: list) -> dict:
        """Sector 1 starts at PR_Resetpoint_01; a level without one gets it
        3.65 above its PS_Levelstart member (5.2), turned as that is."""
        first = self.m.reset_point_name.format(1)
        if not starts:
            raise r.VirtoolsError(f"{self.nmo.path}: the level has no {first} (in {self.m.reset_points}) and no "
                                  f"{self.m.start} member: there is nowhere to start")
        s = starts[0]
        p = s["position"]
        self.report.warnings.append(f"no {first}: sector 1 starts {self.m.start_height} above {s['name']} "
                                    f"({self.m.start})")
        self.report.places.append(("reset point", first, (p[0], p[1] + self.m.start_height, p[2])))
        return {"name": first, "position": [p[0], p[1] + self.m.start_height, p[2]], "rotation": s["rotation"]}


def import_level(path: str, game: str | None = None, encodings=r.ENCODINGS,
                 meaning: LevelMeaning | None = None) -> Import:
    """The level file at ``path`` as a scene document; ``game`` is the game
    folder (default: found from the level's place in it, 5.7); ``meaning``
    what its groups mean (default: the ``ivp.levels`` plug-in's)."""
    meaning = meaning if meaning is not None else level_meaning()
    nmo = r.read_file(path, encodings)
    game = game if game is not None else game_folder(path)
    return _Importer(nmo, level_settings(path, game, meaning, encodings), game, encodings, meaning).run()
