"""Benchmark: this checkout's ivp against another revision's, on bench_peers' workloads.

A machine whose speed drifts (this project's 2-core machine: by a third from
hour to hour) hides a change of 10-20 % between two runs made one after the
other. Here the two versions run at the same time, each process pinned to
one core (Linux), the cores swapped between rounds, so both see the same
machine; per workload the script prints each round's ms per step (the best of
two runs, bench_peers.measure, ivp only) and the mean ratio this / other.

The other revision is checked out into a temporary git worktree (removed at
the end); both run the workloads of this checkout's bench_peers (the ivp API
they use must be the same in both). The first round of each version may
include numba compiling the other's kernels: pass --rounds 3 or more.

Usage: python benchmarks/ab_peers.py REV [--only NAME[,NAME]] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def child(name: str, cpu: int) -> None:
    """One workload timed in this process (the ivp on sys.path): prints ms per step."""
    if hasattr(os, "sched_setaffinity") and cpu < os.cpu_count():
        os.sched_setaffinity(0, {cpu})
    import ivp                     # the tree's, from PYTHONPATH, before bench_peers puts this checkout first
    sys.path.insert(0, str(HERE))
    import bench_peers as bp
    tree = Path(os.environ["PYTHONPATH"]).resolve()
    if tree not in Path(ivp.__file__).resolve().parents:
        raise SystemExit(f"ab_peers: imported {ivp.__file__}, not the ivp of {tree}")
    w = next(w for w in bp.WORKLOADS if w.name == name)
    best, failed = bp.measure(w, "ivp", 2, w.steps)
    print(f"{best:.6f} {len(failed)}")


def run_pair(tree: Path, name: str, round_no: int) -> tuple[float, float]:
    """(this checkout's, the other tree's) ms per step, run at the same time."""
    procs = []
    for k, src in enumerate((ROOT, tree)):
        env = dict(os.environ, PYTHONPATH=str(src))
        cpu = (round_no + k) % 2
        procs.append(subprocess.Popen([sys.executable, __file__, "--child", name, str(cpu)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=src))
    out = []
    for p in procs:
        stdout, stderr = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"ab_peers: {name} failed in {p.args}:\n{stderr[-2000:]}")
        ms, failed = stdout.split()
        if failed != "0":
            print(f"  note: {name}: {failed} physics check(s) failed in one version", file=sys.stderr)
        out.append(float(ms))
    return out[0], out[1]


def main(argv=None) -> None:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return
    sys.path.insert(0, str(HERE))
    import bench_peers as bp
    names = [w.name for w in bp.WORKLOADS]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rev", help="the other revision (a commit, branch or tag of this repository)")
    ap.add_argument("--only", help="workloads, comma-separated: " + ",".join(names))
    ap.add_argument("--rounds", type=int, default=4, help="rounds per workload (default 4)")
    args = ap.parse_args(argv)
    only = names if not args.only else [n.strip() for n in args.only.split(",")]
    for n in only:
        if n not in names:
            ap.error(f"--only: unknown workload {n!r} (known: {', '.join(names)})")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    with tempfile.TemporaryDirectory(prefix="ab_peers_") as tmp:
        tree = Path(tmp) / "other"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), args.rev],
                       check=True)
        try:
            print(f"ab_peers: ms per step, this checkout against {args.rev}, {args.rounds} rounds, "
                  "both at once on swapped cores")
            for name in only:
                pairs = []
                for r in range(args.rounds):
                    pairs.append(run_pair(tree, name, r))
                    print(f"  {name:10s} round {r + 1}: this {pairs[-1][0]:.3f}  other {pairs[-1][1]:.3f}",
                          flush=True)
                ratio = statistics.mean(a / b for a, b in pairs)
                print(f"{name:10s} this / other {ratio:.2f} (mean of the rounds; best this "
                      f"{min(a for a, _ in pairs):.3f}, other {min(b for _, b in pairs):.3f})", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


if __name__ == "__main__":
    main()
