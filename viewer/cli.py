"""The ``ivp`` command line.

    ivp play [SCENE] [--record REC.jsonl] [--input REC.jsonl]   the viewer window (default: the bundled level)
    ivp play [SCENE] --snapshot FILE           resume a state the viewer saved (F6)
    ivp render [SCENE] --at T -o shot.png      a frame rendered headless
    ivp render [SCENE] --video out.mp4 --seconds N
    ivp play --game BALLANCE N                 level N of your game folder (also run and render; docs/levels.md)

The scenes layer adds its own subcommands (run, check, list) through
``scenes.cli.add_subcommands``.
"""

from __future__ import annotations

import argparse
import gc
import sys

from behaviors.api import hook_watchdog
from ivp import jit as engine_jit
from scenes import DEFAULT_SCENE
from scenes.cli import (add_behaviors_option, add_input_options, add_scene_argument, add_snapshot_option,
                        add_subcommands, add_watchdog_option, check_snapshot_input, find_scene, load_scene,
                        say_if_compiling, scripted_input)

from .history import HISTORY_S

MAX_HISTORY_S = 3600.0      # an hour of history at most (the ring's 256 MB bound the copies anyway)
OVERLAYS = ("contacts", "sleeping", "spheres", "joints", "forces", "contact_forces", "mass", "labels")


def _history(text: str) -> float:
    try:
        s = float(text)
    except ValueError:
        s = float("nan")
    if not 0.0 <= s <= MAX_HISTORY_S:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to {MAX_HISTORY_S:g}, got {text!r}")
    return s


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 800x600, got {text!r}") from None
    if w < 2 or h < 2:
        raise argparse.ArgumentTypeError(f"the size must be at least 2x2, got {text!r}")
    return w, h


def _session(args, name: str, default_input: bool):
    """A session of the scene `name` (a file or a bundled name) after the
    --behaviors files, playing --input (or, with `default_input`, the scene's
    demo input) or resuming --snapshot; SceneError says what is wrong. A
    restart loads the scene (or the snapshot) afresh without the input."""
    from .session import Session
    check_snapshot_input(args)
    say_if_compiling()
    session = Session(lambda: load_scene(name, args.behaviors, args.snapshot))
    recording = scripted_input(session.scene, args.input,
                               args.no_input or not default_input or args.snapshot is not None)
    if recording is not None:
        session.play(recording)
    return session


def _play(args) -> int:
    from . import display
    find_scene(args.scene)                   # a misspelt name first: no display would not help it
    if not display.has_display():
        print("ivp play: there is no display here (DISPLAY is not set), so no window can open.\n"
              "Render frames headless instead:\n"
              "  ivp render SCENE --at 2.0 -o shot.png\n"
              "  ivp render SCENE --video run.mp4 --seconds 10", file=sys.stderr)
        return 2
    session = _session(args, args.scene, default_input=False)
    display.configure(headless=False)
    import pyglet

    from .sound import SoundOutput, sounds_folder
    from .window import MAX_FPS, ViewerWindow
    width, height = args.size
    sound = SoundOutput(sounds_folder(getattr(session.scene, "path", None), args.game))
    ViewerWindow(session, width, height, samples=args.samples, vsync=not args.no_vsync, record=args.record,
                 sound=sound, history_s=args.history)
    if args.paused:
        session.toggle_pause()
    try:
        with hook_watchdog(args.hook_time_limit, busy=engine_jit.compiling):
            pyglet.app.run(1.0 / MAX_FPS)
    finally:
        said = session.stop_recording()
    if said:                                 # where the recording went; the other messages were the HUD's
        print(said)
    return 0


def _render(args) -> int:
    if args.video is None and args.seconds is not None:
        raise ValueError("render: --seconds goes with --video")
    session = _session(args, args.scene, default_input=True)
    from . import display
    display.configure(headless=args.headless or None)
    from .camera import look_at
    from .capture import Capture
    scene_camera = None
    if args.eye is not None:
        eye, target = args.eye, args.look if args.look is not None else (0.0, 0.0, 0.0)
        scene_camera = lambda _session: look_at(eye, target)      # noqa: E731
    cap = Capture(session, args.size, scene_camera=scene_camera, hud=args.hud or "labels" in args.overlay)
    for name in args.overlay:
        cap.view.overlays[name] = True
    if args.free_camera:
        cap.view.use_scene_camera = False
    try:
        cap.run_until(args.at)
        if args.video is not None:
            print(cap.video(args.video, args.seconds if args.seconds is not None else session.scene.length,
                            args.fps))
        else:
            print(f"frame at {args.at:g} s written to {cap.screenshot(args.output)}")
    finally:
        cap.close()
    return 0


def add_game_option(p) -> None:
    p.add_argument("--game", metavar="BALLANCE", help="your Ballance folder: the scene is then a level number, "
                                                      "its '3D Entities/Level/Level_NN.NMO' (docs/levels.md)")


def resolve_scene(args) -> None:
    """The scene argument of run, play and render: with --game a level number,
    which becomes that level's file in the game folder (a ValueError naming
    what was looked for); else DEFAULT_SCENE when none is given."""
    if getattr(args, "game", None) is None:
        if getattr(args, "scene", "") is None:
            args.scene = DEFAULT_SCENE
        return
    from scenes.virtools import game_level
    text = args.scene if args.scene is not None else ""
    if not text.isdigit() or not 1 <= int(text) <= 99:
        raise ValueError(f"--game {args.game}: expected a level number 1 to 99 after it, got {text!r}"
                         if text else f"--game {args.game}: give the level's number, e.g. "
                                      f"`ivp {args.command} --game {args.game} 1`")
    args.scene = game_level(args.game, int(text))


def add_viewer_subcommands(sub) -> None:
    p = sub.add_parser("play", help="open the viewer window on a scene")
    add_scene_argument(p)
    p.add_argument("--size", type=_size, default=(1024, 768), help="window size, WIDTHxHEIGHT")
    p.add_argument("--samples", type=int, help="multisampling (default: 4 on a GPU, none in software GL)")
    p.add_argument("--no-vsync", action="store_true", help="do not wait for the display's refresh "
                                                           "(frames are still capped at 60 per second)")
    p.add_argument("--record", metavar="RECORDING", help="record the frame times and keys from the first frame "
                                                         "(JSON lines, for ivp run --input); F9 stops")
    p.add_argument("--paused", action="store_true", help="start paused")
    p.add_argument("--history", type=_history, default=HISTORY_S, metavar="S",
                   help=f"seconds of history to scrub through (default {HISTORY_S:g}; 0: none, no snapshot pauses)")
    p.add_argument("--input", metavar="RECORDING", help="play a recording's frame times and keys, then yours")
    p.set_defaults(func=_play, no_input=False)
    add_snapshot_option(p)
    add_behaviors_option(p)
    add_watchdog_option(p)
    add_game_option(p)

    p = sub.add_parser("render", help="render a frame (PNG) or a video of a scene, without a window")
    add_scene_argument(p)
    p.add_argument("--at", type=float, default=0.0, help="seconds of frame time to run first (60 frames/s)")
    p.add_argument("-o", "--output", default="shot.png", help="the PNG to write")
    p.add_argument("--size", type=_size, default=(800, 600), help="image size, WIDTHxHEIGHT")
    p.add_argument("--video", help="write a video of the run instead (ffmpeg, or PNGs beside it)")
    p.add_argument("--seconds", type=float, help="video length (default: the scene's length)")
    p.add_argument("--fps", type=float, default=30.0, help="video frames per second")
    p.add_argument("--eye", type=float, nargs=3, metavar=("X", "Y", "Z"), help="camera position")
    p.add_argument("--look", type=float, nargs=3, metavar=("X", "Y", "Z"), help="point the --eye looks at")
    p.add_argument("--free-camera", action="store_true", help="frame the whole scene instead of its camera")
    p.add_argument("--overlay", action="append", default=[], choices=OVERLAYS, help="debug overlay (repeatable)")
    p.add_argument("--hud", action="store_true", help="draw the heads-up display")
    p.add_argument("--headless", action="store_true", help="use EGL even when a display is set")
    add_input_options(p)
    add_snapshot_option(p)
    add_behaviors_option(p)
    add_game_option(p)
    p.set_defaults(func=_render)


# Python's cycle collector, tuned for a world of many long-lived objects (the
# program's own setting; docs/ivp.md): a young collection after 50,000
# allocations instead of 700. ivp.limits.advance pauses the collector during a
# PSI, so each frame's allocations come due at once: stress/floor_1000 at time
# factor 2 spent 0.30 s of 3 s in it, 0.04 s with this.
GC_THRESHOLDS = (50_000, 20, 10)


def main(argv=None) -> int:
    gc.set_threshold(*GC_THRESHOLDS)
    parser = argparse.ArgumentParser(prog="ivp", description="Ballance's IVP physics in Python")
    sub = parser.add_subparsers(dest="command", required=True)
    add_viewer_subcommands(sub)
    add_subcommands(sub)
    add_game_option(sub.choices["run"])
    args = parser.parse_args(argv)
    try:
        resolve_scene(args)
        return args.func(args)
    except ValueError as exc:           # a bad scene file (SceneError) or argument: say what, no trace
        print(f"ivp {args.command}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:              # a recording, trajectory, trace or image path that fails
        print(f"ivp {args.command}: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
