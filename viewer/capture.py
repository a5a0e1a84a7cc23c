"""Headless capture: run a session with a fixed frame time and render frames to
images, a PNG or a video (`ivp render`). Works under headless EGL or any X display.

Call `display.configure` before importing this module.
"""

from __future__ import annotations

import numpy as np
import pyglet

from . import png
from .renderer import Offscreen, Renderer
from .video import open_video
from .window import Overlay2D, View, render_image

FRAME_S = 1.0 / 60.0


class Capture:
    """A hidden GL context, a renderer and a view of the session."""

    def __init__(self, session, size=(800, 600), scene_camera=None, hud: bool = False, labels: bool = False):
        """`scene_camera(session)` overrides the scene's camera (see View)."""
        self.session = session
        self.size = (int(size[0]), int(size[1]))
        self._context = pyglet.window.Window(16, 16, visible=False)     # holds the GL context
        self.renderer = Renderer()
        self.target = Offscreen(*self.size)
        self.view = View(session) if scene_camera is None else View(session, scene_camera)
        self.overlay = Overlay2D() if hud or labels else None       # labels: drawn with the 2D panels
        self.hud = hud
        self.frame_time = 0.0           # seconds of frame time run so far

    def run_until(self, t: float, frame_s: float = FRAME_S) -> None:
        """Frames of `frame_s` (or a scripted input's frame times) until `t`
        seconds of frame time have run, and at least one: what is drawn follows
        a frame's behaviours and physics (DESIGN "One frame"), so the scene's
        behaviours have set it up."""
        if not np.isfinite(t) or t < 0.0:
            raise ValueError(f"render: the time {t!r} must be a number of seconds >= 0")
        if self.session.paused:
            raise ValueError("render: the session is paused, no frame would run")
        while self.frame_time < t - 1e-9 or self.session.frames == 0:
            self.frame_time += self.session.tick(frame_s) / 1000.0

    def image(self) -> np.ndarray:
        return render_image(self._context, self.view, self.renderer, self.target, self.overlay, self.hud)

    def screenshot(self, path) -> str:
        return str(png.write(path, self.image()))

    def video(self, path, seconds: float, fps: float = 30.0) -> str:
        """`seconds` of frame time from now, one image per 1/fps s."""
        if not seconds > 0.0:
            raise ValueError(f"render: --seconds must be positive, got {seconds}")
        sink = open_video(path, *self.size, fps)
        try:
            for _ in range(max(1, round(seconds * fps))):
                self.run_until(self.frame_time + 1.0 / fps, min(FRAME_S, 1.0 / fps))
                sink.write(self.image())
        finally:
            summary = sink.close()
        return summary

    def close(self) -> None:
        self._context.close()
