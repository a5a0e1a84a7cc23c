"""Benchmark: Virtools level files (issue 16's targets).

Prints
* the load time of a written level of 40,000 floor triangles (read, import,
  build with Physicalize; target: under 5 s) and how fast it plays headless
  with the ball rolling (target: 2x real time or better),
* 10,000 mutated files (tests/test_virtools_reader.mutations): how many are
  refused with a VirtoolsError, how many read, the slowest one (target: no
  file over 2 s), and any other exception (target: none).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import scenes  # noqa: E402
from bbglue import meshes  # noqa: E402
from behaviors.recording import Frame, Recording, replay  # noqa: E402
from scenes.virtools import reader  # noqa: E402
from test_virtools_reader import mutations  # noqa: E402
from virtools_levels import LevelBuilder, translation, two_sector_level  # noqa: E402


def big_level() -> bytes:
    """Two 100 x 100 floors of 20,000 triangles each, end to end along +Z."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    floors = []
    for i in range(2):
        m = b.mesh(f"Floor_{i}_Mesh", meshes.tessellated_plane(100.0, 100.0, 100, 100), mat)
        floors.append(b.entity(f"Floor_{i}", m, translation(0, 0, 50 + 100 * i)))
    b.group("Phys_Floors", floors)
    b.group("PR_Resetpoints", [b.entity("PR_Resetpoint_01", None, translation(0, 2.1, 5))])
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
        frames = 240
        t0 = time.perf_counter()
        replay(scene.ctx, Recording([Frame(1000.0 / 60.0, frozenset({"Up"}))] * frames))
        wall = time.perf_counter() - t0
        z = scene.entity("Ball_Wood").get_position()[2]
        print(f"  played {frames / 60:.0f} s with Up held in {wall:.2f} s: {frames / 60 / wall:.1f}x real time "
              f"(the ball rolled to z = {z:.1f}, on the floor: {0 < z < 200})")
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


if __name__ == "__main__":
    main()
