"""The plot panel (issue 43): the last seconds of a few quantities, one
sample per frame run, so a user sees how the selected body moves and where
a frame's time goes.

Plotted: the selected body's speed |v| (its core's, m/s), height (its
entity's world Y, m) and energy (scenes.headless.body_energy, J: the measure
`ivp run` sums); PSIs of the frame; the frame's behaviours + physics time
and the window's last drawing time (ms). `Samples` gathers them (no OpenGL);
`PlotPanel` draws them. Another selection starts the series afresh; a move
back in the history (or a restart) drops the frames after the one shown.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pyglet
from pyglet import gl

from scenes.headless import body_energy

PLOT_FRAMES = 600           # samples kept: 10 s at 60 frames per second
PLOT_POINTS = 150           # points drawn per plot, at most (every k-th sample)
PLOT_W, PLOT_H = 240, 30    # pixels of one plot
ROW = PLOT_H + 16           # pixels of a plot with its label
MARGIN = 8


def body_speed(session):
    body = session.body_of(session.selected) if session.selected is not None else None
    if body is None or body.core.physical_unmoveable:
        return None
    return math.sqrt(sum(v * v for v in body.core.speed))


def body_height(session):
    if session.selected is None:
        return None
    return float(session.selected.get_world_matrix().as_array()[3, 1])


def energy_of_selection(session):
    body = session.body_of(session.selected) if session.selected is not None else None
    if body is None or body.core.physical_unmoveable:
        return None
    return body_energy(session.env, body)


# name, unit, colour, value(session, draw_ms) (None: nothing to plot)
QUANTITIES = (
    ("speed", "m/s", (255, 120, 90), lambda s, d: body_speed(s)),
    ("height", "m", (120, 200, 255), lambda s, d: body_height(s)),
    ("energy", "J", (255, 220, 90), lambda s, d: energy_of_selection(s)),
    ("PSIs", "", (180, 255, 140), lambda s, d: float(s.frame_psis)),
    ("sim", "ms", (255, 150, 220), lambda s, d: s.sim_ms),
    ("draw", "ms", (200, 200, 200), lambda s, d: d),
)


class Samples:
    """One row of QUANTITIES' values per frame run, the last PLOT_FRAMES."""

    def __init__(self):
        self.rows = deque(maxlen=PLOT_FRAMES)
        self.frames = deque(maxlen=PLOT_FRAMES)      # the session's frame number of each row
        self._key = None

    def sample(self, session, draw_ms: float) -> None:
        """After a tick: a row if a frame ran since the last one. The series
        start afresh on another selection; on another context (a move in the
        history, a restart) they keep the frames up to the one shown."""
        selected = session.selected.id if session.selected is not None else None
        if selected != self._key:
            self._key = selected
            self.rows.clear()
            self.frames.clear()
        while self.frames and self.frames[-1] > session.frames:
            self.frames.pop()
            self.rows.pop()
        if self.frames and self.frames[-1] == session.frames:
            return
        self.frames.append(session.frames)
        self.rows.append(tuple(q[3](session, draw_ms) for q in QUANTITIES))

    def series(self, i: int) -> list:
        """The values of quantity i, oldest first (None where it had none)."""
        return [r[i] for r in self.rows]


class _LineGroup(pyglet.graphics.Group):
    """Binds pyglet's 2D shape program (blended) for the plots' GL_LINES."""

    def __init__(self, program, order: int):
        super().__init__(order=order)
        self.program = program

    def set_state(self) -> None:
        self.program.bind()
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)

    def unset_state(self) -> None:
        gl.glDisable(gl.GL_BLEND)
        self.program.unbind()


class PlotPanel:
    """The plots stacked at the bottom left, each with its name, last value
    and range; a line over the samples (every k-th, at most PLOT_POINTS)."""

    def __init__(self):
        self.batch = pyglet.graphics.Batch()
        self.back = pyglet.graphics.Group(order=0)
        self.front = pyglet.graphics.Group(order=1)
        n = len(QUANTITIES)
        self.backing = pyglet.shapes.Rectangle(MARGIN, MARGIN, PLOT_W + 8, n * ROW + 4,
                                               color=(0, 0, 0, 150), batch=self.batch, group=self.back)
        self.labels = [pyglet.text.Label("", font_name="DejaVu Sans Mono", font_size=9, color=(*q[2], 255),
                                         x=MARGIN + 4, y=0, anchor_y="bottom", batch=self.batch, group=self.front)
                       for q in QUANTITIES]
        self.program = pyglet.shapes.get_default_shader()
        self.line_group = _LineGroup(self.program, order=2)
        self.lines = []

    def _polyline(self, points: np.ndarray, colour) -> None:
        """The segments joining (k, 2) points, as one GL_LINES vertex list."""
        pairs = np.repeat(points, 2, axis=0)[1:-1]             # p0 p1 p1 p2 ... as segment ends
        n = len(pairs)
        zeros = np.zeros(n, dtype=np.float32)
        self.lines.append(self.program.vertex_list(
            n, gl.GL_LINES, self.batch, self.line_group, position=("f", pairs.astype(np.float32).ravel()),
            colors=("Bn", (*colour, 255) * n), translation=("f", np.zeros(2 * n, dtype=np.float32)),
            rotation=("f", zeros), zposition=("f", zeros)))

    def rect(self) -> tuple:
        """(x, y, w, h) of the panel."""
        b = self.backing
        return (b.x, b.y, b.width, b.height)

    def draw(self, samples: Samples) -> None:
        for line in self.lines:
            line.delete()
        self.lines = []
        n = len(QUANTITIES)
        for i, (name, unit, colour, _) in enumerate(QUANTITIES):
            y0 = MARGIN + 4 + (n - 1 - i) * ROW
            values = [v for v in samples.series(i) if v is not None and math.isfinite(v)]
            label = self.labels[i]
            label.y = y0 + PLOT_H + 2
            if not values:
                label.text = f"{name}: {'select a body' if i < 3 else '-'}"
                continue
            lo, hi = min(values), max(values)
            label.text = f"{name} {values[-1]:.4g} {unit}   ({lo:.4g} .. {hi:.4g})"
            step = max(1, math.ceil(len(values) / PLOT_POINTS))
            picked = [*range(len(values) - 1, -1, -step)][::-1]      # every step-th, the last one kept
            if len(picked) < 2:
                continue
            span = hi - lo if hi > lo else 1.0
            right = MARGIN + 4 + PLOT_W
            points = np.array([(right - PLOT_W * (len(values) - 1 - j) / (PLOT_FRAMES - 1),
                                y0 + (values[j] - lo) / span * PLOT_H) for j in picked])
            self._polyline(points, colour)
        self.batch.draw()
