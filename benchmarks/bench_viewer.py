"""Viewer speed: frames per second drawing only (physics paused), and the frame
time split between physics and drawing with the physics running.

    python benchmarks/bench_viewer.py [--frames N] [--size 1024x768] [--scene NAME ...]

By default it measures the bundled default level (scenes.DEFAULT_SCENE) and the
1000-ball stress scene (stress/floor_1000); --scene takes scene files or other
bundled names.

Draws offscreen under headless EGL. Mesa's llvmpipe (here) renders in
software: the numbers are CPU-bound and 4x multisampling costs about 3.5x; a
GPU draws the same single instanced call far faster. Prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import time


def measure(session, view, renderer, target, size, frames: int, gl) -> dict:
    """Mean ms per frame for the simulation and the drawing (gather + GL, finished)."""
    from viewer.drawlist import gather
    sim = gather_ms = draw = 0.0
    for _ in range(frames):
        t0 = time.perf_counter()
        session.tick(1.0 / 60.0)
        t1 = time.perf_counter()
        groups = gather(session.ctx.entities, renderer.mesh_keys, view.colour_of)
        t2 = time.perf_counter()
        target.bind()
        renderer.draw(groups, view.camera_world(), size, *view.lines())
        gl.glFinish()
        t3 = time.perf_counter()
        sim += t1 - t0
        gather_ms += t2 - t1
        draw += t3 - t2
    k = 1000.0 / frames
    return {"sim": sim * k, "gather": gather_ms * k, "gl": draw * k, "draw_calls": renderer.draw_calls}


def report(title: str, r: dict) -> None:
    total = r["sim"] + r["gather"] + r["gl"]
    draw = r["gather"] + r["gl"]
    print(f"{title}: {1000.0 / total:6.1f} fps overall, {1000.0 / draw:6.1f} fps drawing only; "
          f"per frame: physics+behaviours {r['sim']:7.2f} ms, gather {r['gather']:6.2f} ms, "
          f"GL {r['gl']:7.2f} ms ({r['draw_calls']} draw calls)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", default="1024x768")
    ap.add_argument("--scene", action="append", help="a scene file or bundled name (repeatable)")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))

    from viewer import display
    display.configure(headless=True)
    import pyglet
    from pyglet import gl

    import scenes
    from viewer.renderer import Offscreen, Renderer
    from viewer.gameplay import scene_look
    from viewer.session import Session
    from viewer.window import View
    _context = pyglet.window.Window(16, 16, visible=False)
    print(f"OpenGL {gl.gl_info.get_version_string()} on {gl.gl_info.get_renderer()}, {size[0]}x{size[1]}")
    plain, msaa = Offscreen(*size, samples=0), Offscreen(*size, samples=4)
    for name in args.scene or (scenes.DEFAULT_SCENE, "stress/floor_1000"):
        session = Session(lambda name=name: scenes.load(name))
        view = View(session)
        renderer = Renderer(*scene_look(session))
        measure(session, view, renderer, plain, size, 2, gl)             # warm-up: buffers, shaders
        session.toggle_pause()
        for target, samples in ((plain, "no MSAA"), (msaa, "4x MSAA")):
            report(f"{name}, physics paused, {samples}",
                   measure(session, view, renderer, target, size, args.frames, gl))
        session.toggle_pause()
        report(f"{name}, physics running, no MSAA", measure(session, view, renderer, plain, size, args.frames, gl))


if __name__ == "__main__":
    main()
