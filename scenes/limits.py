"""What a scene file may ask for (docs/scenes.md, "Limits").

Nothing a file asks for may hang the loader or the engine or exhaust memory:
each limit is checked where the value enters, and going over it is a located
error that names the limit. The values leave room for every bundled scene and
imported Ballance level many times over.
"""

from __future__ import annotations

import numpy as np

from ivp.surface import usable_faces

# --- the YAML text ------------------------------------------------------------------
MAX_FILE_BYTES = 8 * 2 ** 20        # one scene file
MAX_NESTING = 64                    # levels of values inside each other (the document is level 1)
MAX_NODES = 1_000_000               # values in one file, counted after YAML aliases are expanded

# --- what the files make ---------------------------------------------------------------
MAX_INCLUDE_DEPTH = 16              # files placed inside each other (includes and prefabs)
MAX_PLACEMENTS = 10_000             # placements of files (includes, prefab instances and their copies)
MAX_REPEAT = 10_000                 # copies one repeat makes (count, or the grid's nx * ny * nz)
MAX_ENTITIES = 20_000               # entities of the scene, after repeats and prefabs
MAX_ITEMS = 20_000                  # joints, forces and behaviours together

# --- geometry ------------------------------------------------------------------------
MAX_COORD = 1e5                     # metres: |x|, |y|, |z| of a position, point or offset
MIN_SIZE = 1e-3                     # metres: a primitive's sizes, radii, lengths; a ball's radius
MAX_SIZE = 1e4                      # metres: the same, and a mesh's extent along an axis after scale
MIN_SCALE, MAX_SCALE = 1e-3, 1e3    # an entity's scale factors
MAX_SEGMENTS = 256                  # a sphere's or cylinder's segments
MAX_DIVISIONS = 300                 # a tessellated plane's cells along x or z
MAX_OBJ_BYTES = 64 * 2 ** 20        # one OBJ file
MAX_MESH_VERTICES = 200_000         # vertices of one mesh
MAX_MESH_TRIANGLES = 400_000        # triangles of one mesh

# --- time ------------------------------------------------------------------------------
MIN_PSI_LENGTH, MAX_PSI_LENGTH = 1e-4, 1.0      # seconds per PSI
MAX_LENGTH = 3600.0                 # seconds of frame time a run lasts by default


def over(name: str, what: str = "") -> str:
    """How a message names a limit: "more than 20000 entities (limit MAX_ENTITIES, docs/scenes.md)"."""
    value = globals()[name]
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"more than {text}{' ' + what if what else ''} (limit {name}, docs/scenes.md)"


def mesh_problem(vertices, faces, scale=(1.0, 1.0, 1.0), concave: bool = False) -> str | None:
    """What is wrong with a mesh (arrays (n, 3) and (m, 3)) at ``scale`` for a
    scene, or None: too many vertices or triangles, an extent over MAX_SIZE,
    and for a concave shape a degenerate triangle (ivp.surface.usable_faces:
    the engine would drop it; a convex hull ignores such triangles)."""
    if len(vertices) > MAX_MESH_VERTICES:
        return f"it has {len(vertices)} vertices, {over('MAX_MESH_VERTICES')}"
    if len(faces) > MAX_MESH_TRIANGLES:
        return f"it has {len(faces)} triangles, {over('MAX_MESH_TRIANGLES')}"
    if not len(faces):
        return None
    pts = np.asarray(vertices, dtype=np.float64) * np.asarray(scale, dtype=np.float64)
    extent = float((pts.max(axis=0) - pts.min(axis=0)).max())
    if not extent <= MAX_SIZE:
        return f"its extent after scale is {extent:g} m, {over('MAX_SIZE', 'm')}"
    if not concave:
        return None
    flat = np.flatnonzero(~usable_faces(pts, faces))
    if len(flat):
        n = int(flat[0])
        i, j, k = (int(x) for x in faces[n])
        return (f"triangle {n} (vertices {i}, {j}, {k}) is degenerate after scale ({len(flat)} such; "
                f"DEGENERATE_SIN2 of ivp.surface, docs/scenes.md)")
    return None
