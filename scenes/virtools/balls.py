"""The player's balls as the game draws them (issue 42; virtools-nmo.md 5.7):
the meshes and textures of the ball entities and of the pieces' groups in the
meaning's balls file (Ballance: ``3D Entities/Balls.nmo``), for the rig that
the level includes (``scenes/bundled/parts/player.yaml``), whose shapes are
the fallback.

A ball entity gives its mesh to the rig's entity of its name; a group's
members give theirs, in stored order, to the rig's group of its name (the
pieces: wood 16, stone 17, paper 18). Each mesh has its entity's rotation
and scale baked in and its position left out: the rig's behaviours place
them (the paper ball's hull is its mesh's, as in the game).
"""

from __future__ import annotations

from bbglue import CKGroup
from bbglue.meshes import Mesh

from . import reader as r
from .game import find_ci
from .level import bake
from .looks import Textures, mesh_look


def _shape(nmo: r.NmoFile, e: r.Entity, textures: Textures):
    """(a bbglue Mesh named after the file's mesh, its Look), or None without faces."""
    mesh = nmo.get(e.mesh, r.Mesh)
    if mesh is None or not len(mesh.faces):
        return None
    vertices, faces = bake(mesh.vertices, mesh.faces, e.matrix)     # the linear part only
    return Mesh(f"Balls.{mesh.name}", vertices, faces), mesh_look(nmo, mesh, textures)


def read_balls(game: str | None, file: tuple, names: tuple, textures: Textures, encodings=r.ENCODINGS):
    """({name: [(Mesh, Look), ...]} for each of ``names`` the balls file has
    (an entity: one; a group: its members'), None) or ({}, why not)."""
    want = "/".join(file)
    path = find_ci(game, *file) if game and file else None
    if path is None:
        return {}, f"no {want} ({f'in {game}' if game else 'no game folder is known'}): the rig's own shapes"
    try:
        nmo = r.read_file(path, encodings)
    except (r.VirtoolsError, OSError) as exc:
        return {}, f"{want} is unreadable: {exc}: the rig's own shapes"
    out = {}
    for name in names:
        groups, entities = nmo.named(name, r.Group), nmo.named(name, r.Entity)
        members = [nmo.get(i, r.Entity) for i in groups[0].members] if groups else entities[:1]
        shapes = [_shape(nmo, e, textures) for e in members if e is not None]
        if shapes and all(s is not None for s in shapes):
            out[name] = shapes
    missing = [n for n in names if n not in out]
    return out, (f"{want} has no meshes for {', '.join(missing)}: the rig's own shapes for them" if missing
                 else None)


def give_balls(ctx, looks: dict, balls: dict) -> list:
    """Each entity of ``ctx`` named in ``balls`` (a group: its members in
    order) takes its mesh, and ``looks`` its look; returns the lines saying
    what was left as it was (a group of another size, a name not in ctx)."""
    left = []
    for name, shapes in balls.items():
        obj = ctx.get(name) if name in ctx else None
        targets = obj.entities if isinstance(obj, CKGroup) else [obj] if obj is not None else []
        if len(targets) != len(shapes):
            left.append(f"{name}: {len(shapes)} in the balls file, {len(targets)} in the scene: its own shapes")
            continue
        for e, (mesh, look) in zip(targets, shapes):
            e.mesh = mesh
            looks[e.name] = look
    return left
