"""Benchmark: Virtools level files (issue 16's targets).

Prints
* the load time of a written level of 40,000 floor triangles (read, import,
  build with Physicalize; target: under 5 s) and how fast it plays headless
  with the ball rolling along the floor (target: 2x real time or better):
  the first second (numba compiling or loading its cache) apart from the
  next four (the ball stays on the floors),
* 10,000 mutated files (tests/test_virtools_reader.mutations): how many are
  refused with a VirtoolsError, how many read, the slowest one (target: no
  file over 2 s), and any other exception (target: none); then the mutants
  of 1,500 that read, imported and built as scenes.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import scenes  # noqa: E402
from bbglue import meshes  # noqa: E402
from behaviors.recording import Frame, Recording, replay  # noqa: E402
from scenes.virtools import reader  # noqa: E402
from test_virtools_reader import mutations  # noqa: E402
from virtools_levels import LevelBuilder, heading_z, translation, two_sector_level  # noqa: E402

FRAME_MS = 1000.0 / 60.0


def big_level() -> bytes:
    """Two 50 x 200 floors of 20,000 triangles each, end to end along +Z (z 0
    to 400); the reset point heads +Z (its -X axis, 5.2), so Up rolls the ball
    along the floors."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    floors = []
    for i in range(2):
        m = b.mesh(f"Floor_{i}_Mesh", meshes.tessellated_plane(50.0, 200.0, 50, 200), mat)
        floors.append(b.entity(f"Floor_{i}", m, translation(0, 0, 100 + 200 * i)))
    b.group("Phys_Floors", floors)
    b.group("PR_Resetpoints", [b.entity("PR_Resetpoint_01", None, heading_z(0, 2.1, 5))])
    return b.data()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "Level_01.NMO")
        with open(path, "wb") as fh:
            fh.write(big_level())
        t0 = time.perf_counter()
        scene = scenes.load(path)
        load = time.perf_counter() - t0
        print(f"40,000-triangle level: {os.path.getsize(path)} bytes, loaded in {load:.2f} s "
              f"({scene.level.physics_triangles} physics triangles)")
        ball = scene.entity("Ball_Wood")
        for label, seconds in (("first", 1), ("next", 4)):
            t0 = time.perf_counter()
            replay(scene.ctx, Recording([Frame(FRAME_MS, frozenset({"Up"}))] * (60 * seconds)))
            wall = time.perf_counter() - t0
            x, y, z = ball.get_position()
            on_floor = abs(x) < 25 and 0 < z < 400 and abs(y - 2.0) < 0.1
            print(f"  {label} {seconds} s with Up held: {wall:.2f} s wall, {seconds / wall:.1f}x real time; "
                  f"the ball at ({x:.1f}, {y:.2f}, {z:.1f}), rolling on the floor: {on_floor}")
    for compressed in (False, True):
        data = two_sector_level().data(compressed)
        refused = read = 0
        other = []
        slowest = 0.0
        for d in mutations(data, 5000, seed=1600 + compressed):
            t0 = time.perf_counter()
            try:
                reader.read_bytes(d, "fuzz.nmo")
                read += 1
            except reader.VirtoolsError:
                refused += 1
            except Exception as exc:            # noqa: BLE001 -- counted: the target is none
                other.append(repr(exc))
            slowest = max(slowest, time.perf_counter() - t0)
        mode = "write mode 8" if compressed else "write mode 0"
        print(f"5,000 mutations ({mode}, {len(data)} bytes): {refused} refused, {read} read, "
              f"{len(other)} other exceptions, slowest {slowest * 1000:.1f} ms")
        for o in other[:5]:
            print("   ", o)
    build_mutants(two_sector_level().data(), 1500)


def build_mutants(data: bytes, n: int) -> None:
    """The mutated files the reader accepts, imported and built (scenes.load):
    each builds or is a ValueError naming the file (target: nothing else)."""
    built = refused = 0
    other = []
    slowest = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "Level_01.NMO")
        for d in mutations(data, n, seed=1616):
            try:
                reader.read_bytes(d, path)
            except reader.VirtoolsError:
                continue
            with open(path, "wb") as fh:
                fh.write(d)
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")     # dropped degenerate triangles, float overflow
                    scenes.load(path)
                built += 1
            except ValueError as exc:
                if path in str(exc):
                    refused += 1
                else:
                    other.append(repr(exc))
            except Exception as exc:            # noqa: BLE001 -- counted: the target is none
                other.append(repr(exc))
            slowest = max(slowest, time.perf_counter() - t0)
    print(f"{built + refused + len(other)} of {n} mutations read; imported and built: {built} built, "
          f"{refused} refused naming the file, {len(other)} other errors, slowest {slowest:.2f} s")
    for o in other[:5]:
        print("   ", o)


if __name__ == "__main__":
    main()
