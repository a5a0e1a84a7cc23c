"""Viewer speed: frames per second drawing only (physics paused), and the frame
time split between physics and drawing with the physics running.

    python benchmarks/bench_viewer.py [--frames N] [--size 1024x768] [--scene NAME ...] [--game DIR N ...]
                                      [--hud] [--passes]

By default it measures the bundled default level (scenes.DEFAULT_SCENE) and the
1000-ball stress scene (stress/floor_1000); --scene takes scene files or other
bundled names, --game an original level of a Ballance folder (as `ivp render
--game DIR N`), drawn with its textures and sky as the viewer draws it. --hud
draws the HUD the window shows over each frame (a level's game HUD, else the
debug HUD); --passes also prints where the paused and the running frames'
drawing goes (while running the sky's target is drawn anew each frame), pass
by pass (glFinish around each, so the passes do not overlap: their sum is a
little more than the frame's).

Draws offscreen under headless EGL, without multisampling. Mesa's llvmpipe
(here) renders in software: the numbers are CPU-bound; a GPU draws the same
calls far faster. Prints the mean and the median frame (the median is
less moved by other work on a shared machine), asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict


class Passes:
    """Wall ms of the drawing's passes, each between two glFinish: a pass's
    own time (the passes it calls are their own), summed over the frames."""

    def __init__(self, gl):
        self.gl = gl
        self.ms = defaultdict(float)
        self.stack = []                 # the inner passes' time of each open pass
        self.on = False

    def wrap(self, owner, name: str, label) -> None:
        """Time ``owner.name`` as the pass ``label`` (a string, or a function
        of the call's arguments giving one)."""
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            if not self.on:
                return inner(*args, **kwargs)
            self.gl.glFinish()
            self.stack.append(0.0)
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.gl.glFinish()
                spent = time.perf_counter() - t0
                nested = self.stack.pop()
                if self.stack:
                    self.stack[-1] += spent
                self.ms[label if isinstance(label, str) else label(*args, **kwargs)] += (spent - nested) * 1000.0

        setattr(owner, name, timed)

    def report(self, frames: int, draw_ms: float) -> None:
        for label, ms in sorted(self.ms.items(), key=lambda item: -item[1]):
            print(f"    {label:<44} {ms / frames:7.2f} ms")
        print(f"    {'the rest (Python, state, uploads)':<44} {draw_ms - sum(self.ms.values()) / frames:7.2f} ms")
        self.ms.clear()


def instrument(passes: Passes) -> None:
    """The viewer's passes timed (benchmarks only: the classes are patched)."""
    from viewer import renderer, static, sky, textures, window

    passes.wrap(renderer.gl, "glClear", "clear")
    passes.wrap(static.StaticLayer, "draw", lambda self, programs, opaque, *a, **k:
                "static buffers, " + ("opaque" if opaque else "blended"))
    passes.wrap(sky.SkyPass, "render", "sky: its target (binding, clear)")
    passes.wrap(sky.SkyPass, "spread", "sky: spreading it over the view")
    passes.wrap(textures.SkyBox, "draw", "sky: its low-resolution pass")
    passes.wrap(renderer._MeshBatch, "draw", "moving entities")
    passes.wrap(textures.LookBatch, "draw", "moving entities")
    passes.wrap(textures.Effects, "draw", "flames, shadow, birth, fade")
    passes.wrap(textures.Effects, "update", "effects' update (Python)")
    passes.wrap(window, "gather", "gathering (Python)")
    passes.wrap(window.Overlay2D, "draw", "HUD")


def measure(session, view, renderer, target, size, frames: int, gl, overlay=None, window=None) -> dict:
    """Mean ms per frame for the simulation and the drawing (as the viewer's
    View.draw: gathering, buffers and GL, and the `overlay`'s HUD when given,
    finished)."""
    from viewer import hud

    sim = draw = 0.0
    draws = []
    for _ in range(frames):
        t0 = time.perf_counter()
        session.tick(1.0 / 60.0)
        t1 = time.perf_counter()
        target.bind()
        view.draw(renderer, size)
        if overlay is not None:
            game_level = getattr(session.scene, "level", None) is not None
            status = () if game_level else hud.status_lines(session, 60.0, 20.0)    # as the window's
            overlay.draw(window, view, size, status, lens=renderer.lens)
        gl.glFinish()
        t2 = time.perf_counter()
        sim += t1 - t0
        draw += t2 - t1
        draws.append(t2 - t1)
    k = 1000.0 / frames
    return {"sim": sim * k, "draw": draw * k, "median": 1000.0 * statistics.median(draws),
            "draw_calls": renderer.draw_calls}


def per_pass(passes: Passes, title: str, measure_, *args) -> None:
    """The frames of ``measure_(*args)`` timed pass by pass."""
    passes.on = True
    timed = measure_(*args)
    passes.on = False
    print(f"  per pass, {title} ({timed['draw']:.2f} ms of drawing a frame with the glFinish between passes):")
    passes.report(args[5], timed["draw"])


def report(title: str, r: dict) -> None:
    total = r["sim"] + r["draw"]
    print(f"{title}: {1000.0 / total:6.1f} fps overall, {1000.0 / r['draw']:6.1f} fps drawing only; "
          f"per frame: physics+behaviours {r['sim']:7.2f} ms, drawing {r['draw']:7.2f} ms "
          f"(median {r['median']:.2f}) "
          f"({r['draw_calls']} draw calls)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", default="1024x768")
    ap.add_argument("--scene", action="append", help="a scene file or bundled name (repeatable)")
    ap.add_argument("--game", nargs=2, action="append", metavar=("DIR", "N"),
                    help="level N of the Ballance folder DIR (repeatable)")
    ap.add_argument("--hud", action="store_true", help="draw the window's HUD over each frame")
    ap.add_argument("--passes", action="store_true", help="print the paused and running frames' ms per pass")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))

    from viewer import display
    display.configure(headless=True)
    import pyglet
    from pyglet import gl

    import scenes
    from behaviors import hooks
    from scenes.virtools import game_level
    from viewer.renderer import Offscreen, Renderer
    from viewer.gameplay import scene_look
    from viewer.session import Session
    from viewer.window import Overlay2D, View
    _context = pyglet.window.Window(16, 16, visible=False)
    print(f"OpenGL {gl.gl_info.get_version_string()} on {gl.gl_info.get_renderer()}, {size[0]}x{size[1]}")
    target = Offscreen(*size, samples=0)
    passes = Passes(gl)
    if args.passes:
        instrument(passes)
    names = list(args.scene or ()) + [game_level(d, int(n)) for d, n in args.game or ()]
    for name in names or (scenes.DEFAULT_SCENE, "stress/floor_1000"):
        session = Session(lambda name=name: scenes.load(name))
        view = View(session)
        renderer = Renderer(*scene_look(session))
        hud = (Overlay2D(), _context) if args.hud else (None, None)
        measure(session, view, renderer, target, size, 2, gl, *hud)       # the scene's first frames
        for _ in range(300):                                              # a level's birth: the ball played 4 s in
            if hooks.hud_fields(session.ctx).get("state") != "starting":
                break
            session.tick(1.0 / 60.0)
        session.toggle_pause()
        measure(session, view, renderer, target, size, 40, gl, *hud)      # warm-up: buffers, shaders, settling
        paused = measure(session, view, renderer, target, size, args.frames, gl, *hud)
        report(f"{name}, physics paused", paused)
        if args.passes:
            per_pass(passes, "paused", measure, session, view, renderer, target, size, args.frames, gl, *hud)
        session.toggle_pause()
        report(f"{name}, physics running", measure(session, view, renderer, target, size, args.frames, gl, *hud))
        if args.passes:
            per_pass(passes, "running", measure, session, view, renderer, target, size, args.frames, gl, *hud)


if __name__ == "__main__":
    main()
