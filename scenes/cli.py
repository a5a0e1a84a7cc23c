"""``ivp run`` and ``ivp check``: the scenes layer's subcommands of the ``ivp``
command line (viewer/cli.py owns the command and calls ``add_subcommands``).

    ivp run [SCENE] [--seconds N] [--frame-ms MS] [--time-factor F] [--no-smoothing]
            [--input REC.jsonl] [--trajectory FILE.csv|.jsonl] [--trace FILE.jsonl [--per-psi]]
            [--summary FILE.json] [--quiet]
    ivp check SCENE...
    ivp import LEVEL.NMO -o level.yaml [--game DIR]

A scene may be a Virtools level file (.nmo / .cmo, docs/levels.md).
"""

from __future__ import annotations

import sys
from collections import Counter

from . import DEFAULT_SCENE, bundled_names, load
from .headless import DEFAULT_FRAME_MS, run, write_summary


def add_subcommands(sub) -> None:
    p = sub.add_parser("run", help="run a scene headless (no window) and print a summary")
    p.add_argument("scene", nargs="?", default=DEFAULT_SCENE,
                   help=f"a scene file or a bundled scene name (default: {DEFAULT_SCENE})")
    p.add_argument("--seconds", type=float, help="seconds of frame time (default: the scene's length)")
    p.add_argument("--frame-ms", type=float, default=DEFAULT_FRAME_MS, help="frame time in ms (default 1000/60)")
    p.add_argument("--time-factor", type=float, help="the physics time factor (default: the scene's)")
    p.add_argument("--no-smoothing", action="store_true",
                   help="feed each frame's time straight to simulate (default: the manager's smoothing)")
    p.add_argument("--input", metavar="RECORDING", help="scripted input: a recording (JSON lines of frame "
                                                         "times and keys); its frames set the frame times "
                                                         "(default: the scene's demo_input, if any)")
    p.add_argument("--no-input", action="store_true", help="no scripted input, not even the scene's demo_input")
    p.add_argument("--trajectory", metavar="FILE", help="write time, entity, position, quaternion, awake "
                                                        "per frame (CSV, or JSON lines for .jsonl)")
    p.add_argument("--trace", metavar="FILE", help="write a JSON-lines trace, one record per frame")
    p.add_argument("--per-psi", action="store_true", help="with --trace: one record per PSI, at its start")
    p.add_argument("--summary", metavar="FILE", help="write the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_run)

    p = sub.add_parser("check", help="validate scene files and list what they contain")
    p.add_argument("scenes", nargs="*", help="scene files or bundled names (default: every bundled scene)")
    p.set_defaults(func=_check)

    p = sub.add_parser("import", help="import a Ballance level (.nmo) as a YAML scene with OBJ meshes beside it")
    p.add_argument("level", help="a level file from your own game, e.g. '3D Entities/Level/Level_01.NMO'")
    p.add_argument("-o", "--output", required=True, help="the YAML scene to write (meshes go to NAME.meshes/)")
    p.add_argument("--game", help="the game folder, for Levelinit.nmo (default: found from the level's path)")
    p.set_defaults(func=_import)


def _import(args) -> int:
    from . import virtools
    imp = virtools.import_level(args.level, args.game)
    written = virtools.write_scene(imp, args.output)
    print(f"{args.output}: the scene, with {len(written) - 1} meshes beside it")
    print(imp.report.text())
    return 0


def _run(args) -> int:
    if args.per_psi and not args.trace:
        raise ValueError("--per-psi goes with --trace")
    scene = load(args.scene)
    recording = None
    source = None if args.no_input else (args.input or scene.settings.get("demo_input"))
    if source:
        from behaviors.recording import Recording
        recording = Recording.load(source)
    summary = run(scene, args.seconds, args.frame_ms, args.time_factor, not args.no_smoothing, recording,
                  args.trajectory, args.trace, args.per_psi, None if args.quiet else sys.stderr)
    print(summary.text())
    outcome = _outcome(scene.ctx)
    if outcome:
        print(outcome)
    for e in scene.ctx.errors[:10]:
        print(f"error: {e}", file=sys.stderr)
    if args.summary:
        write_summary(summary, args.summary)
    return 0 if summary.finite else 1


def _outcome(ctx) -> str:
    """The gameplay's state at the end of a run (empty when the scene has none)."""
    from behaviors import gameplay_state
    st = gameplay_state(ctx)
    if not st:
        return ""
    final = f", final score {st['final']}" if st.get("final") is not None else ""
    return f"level {st['level']}: {st['state']}, score {st['score']}, lives {st['lives']}{final}"


def describe(name: str) -> str:
    """What a scene file holds, after checking it and building it."""
    scene = load(name)
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
    failed = 0
    for name in args.scenes or bundled_names():
        try:
            print(describe(name))
        except ValueError as exc:
            failed += 1
            print(f"{name}: FAILED\n{exc}", file=sys.stderr)
    return 1 if failed else 0
