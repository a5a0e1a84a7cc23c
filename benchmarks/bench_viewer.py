"""Viewer speed: frames per second drawing only (physics paused), and the frame
time split between physics and drawing with the physics running.

    python benchmarks/bench_viewer.py [--frames N] [--size 1024x768] [--scene NAME ...] [--game DIR N ...]

By default it measures the bundled default level (scenes.DEFAULT_SCENE) and the
1000-ball stress scene (stress/floor_1000); --scene takes scene files or other
bundled names, --game an original level of a Ballance folder (as `ivp render
--game DIR N`), drawn with its textures and sky as the viewer draws it.

Draws offscreen under headless EGL, without multisampling. Mesa's llvmpipe
(here) renders in software: the numbers are CPU-bound; a GPU draws the same
calls far faster. Prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import time


def measure(session, view, renderer, target, size, frames: int, gl) -> dict:
    """Mean ms per frame for the simulation and the drawing (as the viewer's
    View.draw: gathering, buffers and GL, finished)."""
    sim = draw = 0.0
    for _ in range(frames):
        t0 = time.perf_counter()
        session.tick(1.0 / 60.0)
        t1 = time.perf_counter()
        target.bind()
        view.draw(renderer, size)
        gl.glFinish()
        t2 = time.perf_counter()
        sim += t1 - t0
        draw += t2 - t1
    k = 1000.0 / frames
    return {"sim": sim * k, "draw": draw * k, "draw_calls": renderer.draw_calls}


def report(title: str, r: dict) -> None:
    total = r["sim"] + r["draw"]
    print(f"{title}: {1000.0 / total:6.1f} fps overall, {1000.0 / r['draw']:6.1f} fps drawing only; "
          f"per frame: physics+behaviours {r['sim']:7.2f} ms, drawing {r['draw']:7.2f} ms "
          f"({r['draw_calls']} draw calls)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", default="1024x768")
    ap.add_argument("--scene", action="append", help="a scene file or bundled name (repeatable)")
    ap.add_argument("--game", nargs=2, action="append", metavar=("DIR", "N"),
                    help="level N of the Ballance folder DIR (repeatable)")
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
    from viewer.window import View
    _context = pyglet.window.Window(16, 16, visible=False)
    print(f"OpenGL {gl.gl_info.get_version_string()} on {gl.gl_info.get_renderer()}, {size[0]}x{size[1]}")
    target = Offscreen(*size, samples=0)
    names = list(args.scene or ()) + [game_level(d, int(n)) for d, n in args.game or ()]
    for name in names or (scenes.DEFAULT_SCENE, "stress/floor_1000"):
        session = Session(lambda name=name: scenes.load(name))
        view = View(session)
        renderer = Renderer(*scene_look(session))
        measure(session, view, renderer, target, size, 2, gl)             # the scene's first frames
        for _ in range(300):                                              # a level's birth: the ball played 4 s in
            if hooks.hud_fields(session.ctx).get("state") != "starting":
                break
            session.tick(1.0 / 60.0)
        session.toggle_pause()
        measure(session, view, renderer, target, size, 40, gl)            # warm-up: buffers, shaders, settling
        report(f"{name}, physics paused", measure(session, view, renderer, target, size, args.frames, gl))
        session.toggle_pause()
        report(f"{name}, physics running", measure(session, view, renderer, target, size, args.frames, gl))


if __name__ == "__main__":
    main()
