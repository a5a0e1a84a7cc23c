"""``ivp run``, ``ivp check`` and ``ivp list``: the scenes layer's subcommands of
the ``ivp`` command line (viewer/cli.py owns the command and calls ``add_subcommands``).

    ivp run [SCENE] [--seconds N] [--frame-ms MS] [--time-factor F] [--no-smoothing]
            [--input REC.jsonl] [--trajectory FILE.csv|.jsonl] [--trace FILE.jsonl [--per-psi]]
            [--summary FILE.json] [--sound-log FILE.csv] [--quiet] [--strict] [--behaviors FILE.py ...]
            [--snapshot FILE]
    ivp run LEVEL --autopilot [--record ROUTE.jsonl] [--seconds N] [--sector K]
    ivp check SCENE... [--behaviors FILE.py ...]
    ivp list
    ivp import LEVEL.NMO -o level.yaml [--game DIR]

A scene may be a Virtools level file (.nmo / .cmo, docs/levels.md).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from collections import Counter

from bbglue.values import did_you_mean
from behaviors.api import DEFAULT_HOOK_TIME_LIMIT, hook_watchdog
from ivp import jit as engine_jit, limits as engine_limits, rng
from ivp.precompile import start_second_compiler

from . import DEFAULT_SCENE, bundled_names, load, plan
from .document import bundled_path
from .headless import (DEFAULT_FRAME_MS, FrameTimes, check_run_length, error_line, error_text, recording_warnings,
                       run, write_summary)

INTERRUPTED = 130           # the exit status after Ctrl-C (128 + SIGINT), as a shell gives
MAX_ERROR_LINES = 20        # ivp run prints at most this many error lines, then the count
UNKNOWN_BEHAVIOUR_HINT = ("a behaviour of your own: name its Python file with --behaviors FILE.py (the file "
                          "registers it with @behaviors.register(\"name\")), or install a package that "
                          "names it in the entry-point group ivp.behaviors (docs/behaviors.md)")


def add_behaviors_option(p) -> None:
    p.add_argument("--behaviors", action="append", default=[], metavar="FILE.py",
                   help="a Python file that registers behaviours (repeatable; only the files named are loaded)")


def add_watchdog_option(p) -> None:
    p.add_argument("--hook-time-limit", type=float, default=DEFAULT_HOOK_TIME_LIMIT, metavar="S",
                   help="a behaviour hook running longer than S seconds is stopped and named "
                        f"(default {DEFAULT_HOOK_TIME_LIMIT:g}; 0: no limit)")


def add_snapshot_option(p) -> None:
    p.add_argument("--snapshot", metavar="FILE", help="resume a whole-game snapshot (the viewer's F6 writes one) "
                                                      "of the scene, instead of its start")


def behaviour_module(path: str) -> str:
    """The module name a --behaviors file runs as."""
    return "ivp_behaviors_" + os.path.splitext(os.path.basename(path))[0]


def load_behaviour_files(paths) -> None:
    """Run each named Python file once as a module, so that its ``@register``
    behaviours can be named by scenes; an error names the file."""
    for path in paths:
        if not path.endswith(".py"):
            raise ValueError(f"--behaviors {path}: expected a Python file (.py)")
        if not os.path.isfile(path):
            raise ValueError(f"--behaviors {path}: no such file")
        name = behaviour_module(path)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise ValueError(f"--behaviors {path}: {type(exc).__name__}: {exc}") from None


def find_scene(name: str) -> str:
    """The scene file for a path or a bundled name; a ValueError with a
    did-you-mean among the bundled names otherwise."""
    if os.path.exists(name):
        return name
    if os.path.exists(bundled_path(name)):
        return bundled_path(name)
    raise ValueError(f"no scene file {name}{did_you_mean(name, bundled_names())}; "
                     "`ivp list` names the bundled scenes")


COMPILE_NOTICE = ("ivp: compiling the engine's kernels for this install: {n} have no compiled copy yet, the scene "
                  "compiles those it calls (the first run only; later runs load them from numba's cache)")
PROGRESS_STEP = 15              # kernel versions between two progress lines of a first run's compile


def compile_notice() -> str | None:
    """What to tell a user whose first run compiles most of the kernels (numba
    present, the disk cache holding fewer than half of them), else None."""
    if not engine_jit.ENABLED:
        return None
    n = engine_jit.uncached_kernels()
    return COMPILE_NOTICE.format(n=n) if 2 * n > len(engine_jit.KERNELS) else None


def progress_line(here: int, there: int, name: str) -> str | None:
    """The line after a kernel version is ready, ``here`` compiled by this
    process and ``there`` by the second compiler so far (``engine_jit.watch_compiles``):
    every PROGRESS_STEP versions, else None. No total is promised: a scene
    compiles only the kernels it calls, some for two kinds of argument."""
    n = here + there
    if n % PROGRESS_STEP:
        return None
    done = f"{n} ready: {here} compiled here, {there} by the second process" if there else f"{n} compiled"
    return f"ivp: compiling kernels, {done} (last: {name})"


def say_if_compiling() -> None:
    """:func:`compile_notice` on stderr, when there is one, then the
    :func:`progress_line` s as the kernels compile."""
    notice = compile_notice()
    if notice is None:
        return
    print(notice, file=sys.stderr, flush=True)
    if start_second_compiler():
        print("ivp: a second process compiles the same kernels from the other end, into the same cache",
              file=sys.stderr, flush=True)

    def say(here, there, name):
        line = progress_line(here, there, name)
        if line is not None:
            print(line, file=sys.stderr, flush=True)
    engine_jit.watch_compiles(say)


def load_scene(name: str, behaviour_files=(), snapshot: str | None = None):
    """`load` after the --behaviors files, with how to provide an unknown
    behaviour; with `snapshot`, its context replaces the scene's (the scene
    still gives the looks, camera and settings)."""
    load_behaviour_files(behaviour_files)
    path = find_scene(name)
    try:
        scene = load(path)
    except ValueError as exc:
        if "unknown behaviour" in str(exc):
            raise ValueError(f"{exc}\n{UNKNOWN_BEHAVIOUR_HINT}") from None
        raise
    if snapshot is not None:
        resume(scene, snapshot, [behaviour_module(p) for p in behaviour_files])
    return scene


def resume(scene, path: str, packages=()) -> None:
    """Put the context of a whole-game snapshot file (bbglue.snapshot) in
    place of the scene's, with its RNG seed; the packages of the scene's
    behaviours may be named in it. A file that is no snapshot is a ValueError;
    a warning when the scene has entities the snapshot lacks (another scene's?)."""
    from bbglue import snapshot as game_snapshot
    packages = {*packages, *(type(b).__module__.split(".")[0] for b in scene.behaviours)}
    try:
        ctx = game_snapshot.load(path, packages=tuple(sorted(packages)))
    except game_snapshot.SnapshotError as exc:
        raise ValueError(f"--snapshot {exc}") from None
    missing = sorted({e.name for e in scene.ctx.entities} - {e.name for e in ctx.entities})
    if missing:
        print(f"warning: --snapshot {path}: {len(missing)} entities of {scene.name} are not in it "
              f"({', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}): saved from another scene?",
              file=sys.stderr)
    scene.ctx = ctx


def check_snapshot_input(args) -> None:
    """A recording plays from a scene's first frame, a snapshot resumes a later one."""
    if getattr(args, "snapshot", None) and getattr(args, "input", None):
        raise ValueError("--input plays a recording from the scene's start; it does not go with --snapshot")


def add_scene_argument(p) -> None:
    """The scene of run, play and render: a file or a bundled name (viewer.cli's
    resolve_scene makes an unset one DEFAULT_SCENE, or with --game a level number)."""
    p.add_argument("scene", nargs="?",
                   help=f"a scene file or a bundled scene name (default: {DEFAULT_SCENE})")


def add_input_options(p) -> None:
    p.add_argument("--input", metavar="RECORDING", help="scripted input: a recording (JSON lines of frame "
                                                         "times and keys); its frames set the frame times "
                                                         "(default: the scene's demo_input, if any)")
    p.add_argument("--no-input", action="store_true", help="no scripted input, not even the scene's demo_input")


def scripted_input(scene, path: str | None, no_input: bool = False):
    """The recording to play on a freshly loaded scene (``path``, else the
    scene's demo_input, none with ``no_input``), its mismatches printed as
    warnings; the RNG takes the seed its header names."""
    source = None if no_input else (path or scene.settings.get("demo_input"))
    if not source:
        return None
    from behaviors.recording import Recording
    recording = Recording.load(source)
    for w in recording_warnings(recording, source, scene):
        print(f"warning: {w}", file=sys.stderr)
    if "seed" in recording.meta:          # as the recorded run had it (no frame has run yet)
        rng.set_seed(recording.meta["seed"])
    return recording


def add_subcommands(sub) -> None:
    p = sub.add_parser("run", help="run a scene headless (no window) and print a summary",
                       description="Run a scene headless and print a summary. Ctrl-C stops the run after the "
                                   "frame it came in, prints and writes the summary of the frames done and "
                                   "exits with 130.")
    add_scene_argument(p)
    p.add_argument("--seconds", type=float,
                   help="seconds of frame time: a recording (--input, the demo input) plays first, then frames "
                        "of --frame-ms without keys (default: the recording's length, else the scene's length)")
    p.add_argument("--frame-ms", type=float, default=DEFAULT_FRAME_MS, help="frame time in ms (default 1000/60)")
    p.add_argument("--time-factor", type=float, help="the physics time factor (default: the scene's)")
    p.add_argument("--no-smoothing", action="store_true",
                   help="feed each frame's time straight to simulate (default: the manager's smoothing)")
    add_input_options(p)
    add_snapshot_option(p)
    p.add_argument("--trajectory", metavar="FILE", help="write time, entity, position, quaternion, awake "
                                                        "per frame (CSV, or JSON lines for .jsonl)")
    p.add_argument("--trace", metavar="FILE", help="write a JSON-lines trace, one record per frame")
    p.add_argument("--per-psi", action="store_true", help="with --trace: one record per PSI, at its start")
    p.add_argument("--summary", metavar="FILE", help="write the summary as JSON")
    p.add_argument("--sound-log", metavar="FILE", help="write the sound events the behaviours decide (CSV: time, "
                                                       "name, volume, pitch, action)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--autopilot", action="store_true",
                   help="the level plug-in's autopilot plays the level with a player's keys and says how it "
                        "ended; --seconds bounds its play (default 900)")
    p.add_argument("--record", metavar="ROUTE.jsonl",
                   help="with --autopilot: save its keys as a recording, for --input")
    p.add_argument("--sector", type=int, metavar="K",
                   help="a level starts at sector K, as after reaching its checkpoint (a recording made from "
                        "sector K replays with --sector K)")
    p.add_argument("--strict", action="store_true", help="exit 3 when a behaviour or block raised")
    p.add_argument("--traceback", action="store_true", help="each behaviour or block error with its traceback")
    add_behaviors_option(p)
    add_watchdog_option(p)
    p.set_defaults(func=_run)

    p = sub.add_parser("check", help="validate scene files and list what they contain")
    p.add_argument("scenes", nargs="*", help="scene files or bundled names (default: every bundled scene)")
    add_behaviors_option(p)
    p.set_defaults(func=_check)

    p = sub.add_parser("import", help="import a Ballance level (.nmo) as a YAML scene with OBJ meshes beside it")
    p.add_argument("level", help="a level file from your own game, e.g. '3D Entities/Level/Level_01.NMO'")
    p.add_argument("-o", "--output", required=True, help="the YAML scene to write (meshes go to NAME.meshes/)")
    p.add_argument("--game", help="the game folder, for Levelinit.nmo (default: found from the level's path)")
    p.set_defaults(func=_import)

    p = sub.add_parser("list", help="the bundled scenes, one line each")
    p.set_defaults(func=_list)


def _import(args) -> int:
    from . import virtools
    imp = virtools.import_level(args.level, args.game)
    written = virtools.write_scene(imp, args.output)
    print(f"{args.output}: the scene, with {len(written) - 1} meshes beside it")
    print(imp.report.text())
    return 0


def _run(args) -> int:
    """Exit 0, 1 when the state became NaN or infinite, 3 with --strict after
    errors, 130 after Ctrl-C (the summary of the frames done is printed and written)."""
    if args.per_psi and not args.trace:
        raise ValueError("--per-psi goes with --trace")
    if args.time_factor is not None:
        engine_limits.check("--time-factor", args.time_factor, "MIN_TIME_FACTOR", "MAX_TIME_FACTOR")
    check_run_length(args.seconds, args.frame_ms)
    check_snapshot_input(args)
    if args.record and not args.autopilot:
        raise ValueError("--record goes with --autopilot (ivp play --record records your keys)")
    if args.autopilot:
        return _autopilot(args)
    say_if_compiling()
    scene = load_scene(args.scene, args.behaviors, args.snapshot)
    _start_sector(scene, args)
    recording = scripted_input(scene, args.input, args.no_input or args.snapshot is not None)
    if recording is not None and args.seconds is not None:
        frames = FrameTimes(args.seconds, args.frame_ms, recording)
        if frames.added:
            print(f"note: the recording ends after {frames.recorded_ms / 1000.0:g} s; {frames.added} frames of "
                  f"{args.frame_ms:g} ms without keys follow, to --seconds {args.seconds:g}", file=sys.stderr)
    log = logging.getLogger("bbglue")        # the context logs every error in full: the lines below say it once
    quiet = logging.NullHandler()
    log.addHandler(quiet)
    try:
        with hook_watchdog(args.hook_time_limit, busy=engine_jit.compiling):
            summary = run(scene, args.seconds, args.frame_ms, args.time_factor, not args.no_smoothing, recording,
                          args.trajectory, args.trace, args.per_psi, None if args.quiet else sys.stderr,
                          sound_log=args.sound_log)
    finally:
        log.removeHandler(quiet)
    print(summary.text())
    outcome = _outcome(scene.ctx)
    if outcome:
        print(outcome)
    errors = scene.ctx.errors
    say = error_text if args.traceback else error_line
    for e in errors[:MAX_ERROR_LINES]:
        print(f"error: {say(e)}", file=sys.stderr)
    if errors:
        count = scene.ctx.error_count
        shown = min(len(errors), MAX_ERROR_LINES)
        more = f" ({count - shown} not shown)" if count > shown else ""
        print(f"{count} behaviour or block error(s){more}"
              + ("" if args.strict else "; --strict makes them fail the run")
              + ("" if args.traceback else "; --traceback shows where they came from"), file=sys.stderr)
    if args.summary:
        write_summary(summary, args.summary)
    if summary.interrupted is not None:
        return INTERRUPTED
    if not summary.finite:
        return 1
    return 3 if args.strict and errors else 0


AUTOPILOT_SECONDS = 900.0       # the autopilot's play at most, without --seconds
AUTOPILOT_CONFLICTS = ("input", "trajectory", "trace", "summary", "time_factor")


def _autopilot(args) -> int:
    """``run --autopilot``: the level plug-in's autopilot (behaviors.levels)
    plays the scene; exit 0 when it finished the level, else 1."""
    from behaviors.levels import autopilot_of, level_meaning
    for name in AUTOPILOT_CONFLICTS:
        if getattr(args, name):
            raise ValueError(f"--autopilot plays with its own keys and frames: no --{name.replace('_', '-')}")
    if args.no_smoothing or args.frame_ms != DEFAULT_FRAME_MS:
        raise ValueError("--autopilot plays at a player's frame rate: no --frame-ms, no --no-smoothing")
    drive = autopilot_of(level_meaning())
    say_if_compiling()
    scene = load_scene(args.scene, args.behaviors)
    _start_sector(scene, args)
    with hook_watchdog(args.hook_time_limit, busy=engine_jit.compiling):
        outcome = drive(scene, args.seconds if args.seconds is not None else AUTOPILOT_SECONDS, args.record,
                        None if args.quiet else sys.stderr)
    print(outcome.text())
    if args.record:
        sector = f" --sector {args.sector}" if args.sector is not None else ""
        print(f"the route: {args.record} (replay: ivp run {args.scene} --input {args.record}{sector})")
    return 0 if outcome.finished else 1


def _start_sector(scene, args) -> None:
    """``--sector K``: the level plug-in puts the loaded level at sector K (behaviors.levels)."""
    if args.sector is None:
        return
    if args.snapshot is not None:
        raise ValueError("--sector starts a level: not with --snapshot")
    from behaviors.levels import level_meaning, start_sector_of
    start_sector_of(level_meaning())(scene, args.sector)


def _outcome(ctx) -> str:
    """The outcome the behaviours offer at the end of a run (behaviors.hooks; empty without one)."""
    from behaviors import hooks
    return hooks.outcome(ctx)


def describe(name: str) -> str:
    """What a scene file holds, after checking it and building it."""
    scene = load_scene(name)
    p = scene.plan
    s = p.settings
    bodies = [e for e in p.entities if e.physics is not None]
    kinds = Counter("fixed" if e.physics["fixed"] else "movable" for e in bodies)
    groups = Counter(g for e in p.entities for g in e.groups)
    lines = [f"{scene.path}: OK, scene {scene.name!r}, length {s['length']:g} s",
             f"  files: {', '.join(p.files)}",
             f"  gravity {tuple(s['gravity'])}, time factor {s['time_factor']:g}, PSI {s['psi_length']:.9g} s",
             f"  entities {len(p.entities)}: bodies {len(bodies)} ({kinds['movable']} movable, "
             f"{kinds['fixed']} fixed)",
             f"  groups: {', '.join(f'{g} ({n})' for g, n in sorted(groups.items())) or 'none'}",
             f"  joints: {_counted(j.type for j in p.joints)}",
             f"  forces: {_counted(f.type for f in p.forces)}",
             f"  behaviours: {_counted(b.type for b in p.behaviours)}"]
    if scene.level is not None:
        lines.append(scene.level.text())
    return "\n".join(lines)


def _counted(items) -> str:
    c = Counter(items)
    return ", ".join(f"{k} x{n}" for k, n in sorted(c.items())) or "none"


def _check(args) -> int:
    load_behaviour_files(args.behaviors)
    failed = 0
    for name in args.scenes or bundled_names():
        try:
            print(describe(name))
        except ValueError as exc:
            failed += 1
            print(f"{name}: FAILED\n{exc}", file=sys.stderr)
    return 1 if failed else 0


def _list(args) -> int:
    """Each bundled scene's name and its file's description."""
    names = bundled_names()
    width = max(len(n) for n in names)
    for name in names:
        settings = plan(bundled_path(name)).settings
        print(f"{name:<{width}}  {settings.get('description') or settings.get('name') or ''}")
    return 0
