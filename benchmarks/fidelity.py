"""Fidelity report (issue 17): the port against reference traces of the real IVP engine.

    python benchmarks/fidelity.py [scenario ...] [--build sse|x87] [--json out.json]
                                  [--traces DIR] [--write-trimmed DIR]

Every scenario is built from its trace's setup alone and run frame by frame;
per scenario a table gives the largest position / speed / rotation-speed error
at PSI starts and at frames against each build, the noise floor (the two
builds against each other), the events (impacts, contact points created and
deleted, freezes) and the derived quantities of the contact tests. The last
line names the worst scenario: the largest position error at PSI starts in
units of its tolerance max(3 x floor, 1e-4 m).

Traces default to tests/data/reference_traces (trimmed copies); --traces takes
a full set such as ../shared/reference-traces. --write-trimmed DIR writes
trimmed copies of --traces' files to DIR (how the test data was made).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this checkout's ivp and harness, not an installed copy
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
import ivp  # noqa: E402
import reference_traces as rt  # noqa: E402

PROGRESS_AFTER = 1.0        # s of wall time before a scenario's progress is shown
PROGRESS_EVERY = 0.5        # s between progress updates


def _g(x, unit="") -> str:
    """A number for the table ('-' for none)."""
    if x is None:
        return "-"
    if isinstance(x, int):
        return str(x)
    return f"{x:.3e}{unit}" if x != 0.0 and (abs(x) < 1e-3 or abs(x) >= 1e5) else f"{x:.6g}{unit}"


def _row(label: str, cells) -> str:
    return f"  {label:<42}" + "".join(f"{c:>14}" for c in cells)


class Progress:
    """Frame progress on stderr once a scenario has run PROGRESS_AFTER seconds."""

    def __init__(self, label: str):
        self.label = label
        self.start = time.perf_counter()
        self.last = self.start
        self.shown = False

    def __call__(self, frame: int, n: int) -> None:
        now = time.perf_counter()
        if now - self.start >= PROGRESS_AFTER and now - self.last >= PROGRESS_EVERY:
            self.last = now
            self.shown = True
            print(f"\r{self.label}: frame {frame}/{n} ({now - self.start:.0f} s)", end="", file=sys.stderr,
                  flush=True)

    def done(self) -> float:
        if self.shown:
            print(file=sys.stderr)
        return time.perf_counter() - self.start


def table(c: rt.Comparison, builds, creation, seconds: float) -> str:
    """The readable table of one scenario."""
    port = c.port
    movable = ", ".join(port.frames[0].bodies) if port.frames else "-"
    lines = [f"== {c.scenario}: {len(port.frames) - 1} frames, {len(port.psis)} PSIs, movable: {movable}; "
             f"port ran {seconds:.2f} s =="]
    has_floor = bool(c.floor)
    head = [f"port-{b}" for b in builds] + (["floor sse-x87"] if has_floor else [])
    lines.append(_row("", head))
    for where, name in (("psis", "PSI starts"), ("frames", "frames")):
        for key, what in (("pos", "max |dpos| m"), ("speed", "max |dv| m/s"), ("rot_speed", "max |dw| rad/s")):
            cells = [_g(c.errors[b][where][key]) for b in builds]
            cells += [_g(c.floor[where][key])] if has_floor else []
            lines.append(_row(f"{name}: {what}", cells))
    for key, what in (("first_over_t", f"first |dpos| > {rt.POSITION_FLOOR_MIN:g} m at s"),
                      ("worst_t", "largest |dpos| at s"), ("state_mismatches", "movement states differing")):
        cells = [_g(c.errors[b]["psis"][key]) for b in builds]
        cells += [_g(c.floor["psis"][key])] if has_floor else []
        lines.append(_row(f"PSI starts: {what}", cells))
    tol = c.tolerance()
    verdict = ["yes" if c.errors[b]["psis"]["pos"] <= tol else "NO" for b in builds]
    lines.append(_row(f"within max(3 floor, 1e-4) = {tol:.2e} m", verdict))
    for body, key, have, want in creation:
        lines.append(f"  created {body}.{key}: port {have}, engine {want}")

    cols = ["port"] + list(c.traces)
    lines.append(_row("", cols))
    ev = c.events
    for kind, what in (("impact_post", "impacts"), ("friction_created", "contact points created"),
                       ("friction_deleted", "contact points deleted"), ("object_frozen", "freezes"),
                       ("object_revived", "revivals")):
        lines.append(_row(what, [_g(ev[k][kind]["count"]) for k in cols]))
        if ev["port"][kind]["count"] or any(ev[k][kind]["count"] for k in c.traces):
            lines.append(_row("  first at s", [_g(next(iter(ev[k][kind]["times"]), None)) for k in cols]))
            cells = ["", *(_g(c.event_dt[k][kind]) for k in c.traces)]
            lines.append(_row("  max |dt| to port (i-th events) s", cells))
            if "floor" in c.event_dt:
                lines.append(_row("  max |dt| sse-x87 s", ["", _g(c.event_dt["floor"][kind])]))
    if any(ev[k]["impact_post"]["speeds"] for k in cols):
        lines.append(_row("first impact speed m/s", [_g(next(iter(ev[k]["impact_post"]["speeds"]), None))
                                                     for k in cols]))
    d = c.derived
    lines.append(_row("all frozen at s", [_g(d[k]["frozen_at"]) for k in cols]))
    lines.append(_row(f"speeds < {rt.SETTLE_SPEED} m/s from s", [_g(d[k]["settle_t"]) for k in cols]))
    for key, what in (("kinetic", "max KE gain between PSIs J"), ("mechanical", "max KE+PE gain between PSIs J")):
        lines.append(_row(what, [_g(d[k]["energy_gain"][key]) for k in cols]))
        lines.append(_row("  at s", [_g(d[k]["energy_gain"][key + "_t"]) for k in cols]))
    names = sorted({n for k in cols for n in d[k]["rest_gap"]})
    for n in names:
        lines.append(_row(f"rest gap {n} m", [_g(d[k]["rest_gap"].get(n)) for k in cols]))
    for n in sorted({n for k in cols for n in d[k]["first_apex"]}):
        lines.append(_row(f"first bounce apex {n} m", [_g(d[k]["first_apex"].get(n)) for k in cols]))
    for n in sorted({n for k in cols for n in d[k]["rolling"]}):
        for stat in ("median", "min", "max", "n"):
            lines.append(_row(f"rolling v/|w| {n} {stat}", [_g(d[k]["rolling"].get(n, {}).get(stat)) for k in cols]))
    if "slide" in d["port"]:
        lines.append(_row(f"slide {d['port']['slide']['body']} distance m",
                          [_g(d[k]["slide"]["distance"]) for k in cols]))
        lines.append(_row(f"  |v| < {rt.STOP_SPEED} m/s from s", [_g(d[k]["slide"]["stop_t"]) for k in cols]))
    return "\n".join(lines)


def worst(comparisons, builds):
    """(ratio of the PSI position error to its tolerance, scenario, build), largest first."""
    out = [(c.errors[b]["psis"]["pos"] / c.tolerance(), c.scenario, b) for c in comparisons for b in builds]
    return sorted(out, reverse=True)


def _jsonable(c: rt.Comparison, creation, seconds: float) -> dict:
    return {"scenario": c.scenario, "port_seconds": seconds, "tolerance": c.tolerance(), "errors": c.errors,
            "floor": c.floor, "events": c.events, "event_dt": c.event_dt, "derived": c.derived,
            "creation_differences": [list(x) for x in creation]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*", help="scenario names (default: every scenario of --traces)")
    ap.add_argument("--build", choices=sorted(rt.BUILDS), help="compare the port with this build only")
    ap.add_argument("--dll-countdown", action="store_true",
                    help="run the port with Ballance's sleep countdown (skipped for fast units) instead of "
                         "the traces' Valve rule; freeze times then differ by whole sleep tests")
    ap.add_argument("--json", type=Path, help="also write the numbers to this file")
    ap.add_argument("--traces", type=Path, default=rt.DEFAULT_TRACES, help="directory of the traces")
    ap.add_argument("--write-trimmed", type=Path, metavar="DIR",
                    help="write trimmed copies of the traces to DIR and stop")
    args = ap.parse_args(argv)
    try:
        if args.write_trimmed:
            for p in rt.write_trimmed(args.traces, args.write_trimmed, args.scenarios or None):
                print(p)
            return 0
        names = args.scenarios or rt.scenarios_in(args.traces)
        if not names:
            print(f"fidelity: no scenario with traces of every build in {args.traces}", file=sys.stderr)
            return 2
        builds = [args.build] if args.build else list(rt.BUILDS)
        print(f"port: {Path(ivp.__file__).parent}; "
              f"traces: {args.traces}\n")
        comparisons, out, failed = [], [], []
        for i, name in enumerate(names, 1):
            available = [b for b in rt.BUILDS if rt.trace_path(args.traces, b, name).is_file()]
            traces = rt.load_scenario(args.traces, name, sorted(set(available) | set(builds)))
            prog = Progress(f"[{i}/{len(names)}] {name}")
            try:
                port = rt.run_port(traces[builds[0]], prog, not args.dll_countdown)
            except rt.TraceError:
                raise
            except Exception as exc:            # the engine under test failed: report it, go on
                prog.done()
                failed.append((name, f"{type(exc).__name__}: {exc}"))
                print(f"== {name}: the port failed: {failed[-1][1]} ==\n", flush=True)
                out.append({"scenario": name, "port_failed": failed[-1][1]})
                continue
            seconds = prog.done()
            c = rt.compare_scenario(traces, port)
            creation = rt.creation_differences(traces[builds[0]], rt.build_scenario(traces[builds[0]]))
            print(table(c, builds, creation, seconds), end="\n\n", flush=True)
            comparisons.append(c)
            out.append(_jsonable(c, creation, seconds))
    except rt.TraceError as exc:
        print(f"fidelity: {exc}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    ranked = worst(comparisons, builds)
    print(f"{'scenario':<22}{'build':>6}{'max |dpos| m':>14}{'tolerance m':>13}{'ratio':>10}")
    for ratio, name, b in ranked:
        c = next(x for x in comparisons if x.scenario == name)
        print(f"{name:<22}{b:>6}{c.errors[b]['psis']['pos']:>14.3e}{c.tolerance():>13.2e}{ratio:>10.3g}")
    for name, why in failed:
        print(f"{name:<22}  the port failed")
    if failed:
        print(f"worst scenario: {failed[0][0]} (the port failed: {failed[0][1]})")
        return 1
    ratio, name, b = ranked[0]
    c = next(x for x in comparisons if x.scenario == name)
    print(f"worst scenario: {name} (against {b}: max position error at PSI starts "
          f"{c.errors[b]['psis']['pos']:.3e} m = {ratio:.3g} x its tolerance {c.tolerance():.2e} m)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
