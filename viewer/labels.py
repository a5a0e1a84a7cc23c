"""The labels overlay (issue 43): each movable body's name at its place on
the screen, and for the selected body (movable or fixed) its mass and speed
too (its core's: mass in kg, |v| in m/s).

A label sits centred just above the body's bounding sphere (its core's
upper_limit_radius about the entity's position, along the camera's up axis)
as the camera projects it (the renderer's lens and camera, camera.gl_view). Labels are placed
greedily, the selected body's first, then by distance to the camera, nearest
first; one that would cover a panel (the HUD, the selection, help, plots),
an earlier label or the window's edge tries below its point, else is left
out, so the text stays readable. No pyglet here: sizes come from the
character cell the window measures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import camera

MAX_LABELS = 40             # labels placed, at most (the nearest ones)
GAP = 6                     # pixels between a label and its point
PAD = 3                     # pixels of backing around the text


@dataclass(frozen=True)
class Label:
    text: str
    rect: tuple             # (x, y, w, h) of the backing, pixels, y up from the bottom


def label_text(session, entity, body) -> str:
    """The name; for the selected body also its mass and speed."""
    if entity is not session.selected:
        return entity.name
    core = body.core
    if core.physical_unmoveable:
        return f"{entity.name}\nfixed"
    speed = math.sqrt(sum(v * v for v in core.speed))
    return f"{entity.name}\nmass {core.mass:g} kg\n|v| {speed:.3f} m/s"


def labelled(session) -> list[tuple[np.ndarray, float, str, bool]]:
    """(world position, radius, text, whether selected) of each movable body and of the selected one."""
    out = []
    for entity in session.ctx.entities:
        body = session.body_of(entity)
        selected = entity is session.selected
        if body is not None and (selected or not body.core.physical_unmoveable):
            out.append((np.asarray(entity.get_world_matrix().as_array()[3, :3], dtype=np.float64),
                        float(body.core.upper_limit_radius), label_text(session, entity, body), selected))
    return out


def project(points, camera_world, lens: camera.Lens, size) -> tuple[np.ndarray, np.ndarray]:
    """Pixel positions (k, 2), y up, of world points and whether each lies in
    front of the near plane and inside the image."""
    width, height = size
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    clip = np.c_[pts, np.ones(len(pts))] @ (lens.perspective(width / height) @ camera.gl_view(camera_world)).T
    w = clip[:, 3]
    front = w > lens.near
    ndc = clip[:, :2] / np.where(front, w, 1.0)[:, None]
    pixels = (ndc + 1.0) / 2.0 * np.array([width, height], dtype=np.float64)
    inside = front & np.all(np.abs(ndc) <= 1.0, axis=1)
    return pixels, inside


def overlaps(a, b) -> bool:
    """Whether two (x, y, w, h) rectangles share an area."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def place(items, camera_world, lens: camera.Lens, size, cell: tuple, blocked=()) -> list[Label]:
    """The labels of `items` ((world position, radius, text, whether
    selected)) that fit: above the sphere of that radius about the position,
    else below it, clear of the `blocked` rectangles,
    of each other and of the window's edges; `cell` is a character's (w, h)
    in pixels. At most MAX_LABELS, the selected then the nearest first."""
    if not items:
        return []
    width, height = size
    cam = np.asarray(camera_world, dtype=np.float64)
    up = np.array([r * cam[1, :3] for _, r, _, _ in items])
    centres = np.array([it[0] for it in items])
    tops, inside = project(centres + up, cam, lens, size)
    bottoms, _ = project(centres - up, cam, lens, size)
    order = sorted(range(len(items)), key=lambda i: (not items[i][3], float(np.linalg.norm(centres[i] - cam[3, :3]))))
    taken = list(blocked)
    out = []
    for i in order:
        if not inside[i]:
            continue
        text = items[i][2]
        lines = text.split("\n")
        w = math.ceil(max(len(li) for li in lines) * cell[0]) + 2 * PAD
        h = math.ceil(len(lines) * cell[1]) + 2 * PAD
        x = round(tops[i, 0] - w / 2)
        for y in (round(tops[i, 1]) + GAP, round(bottoms[i, 1]) - GAP - h):
            rect = (x, y, w, h)
            if (0 <= x and x + w <= width and 0 <= y and y + h <= height
                    and not any(overlaps(rect, r) for r in taken)):
                taken.append(rect)
                out.append(Label(text, rect))
                break
        if len(out) == MAX_LABELS:
            break
    return out
