"""Speed of the physics manager's frame (glue-and-content 1): N awake balls falling
freely at Ballance's globals, 60 frames per second. Prints microseconds per frame,
per PSI and per write-back (the best of five rounds of the frames).
Run: python benchmarks/bench_manager.py [N]"""

import sys
import time

from bbglue import CKContext, blocks, meshes


def main(n: int = 50, frames: int = 120) -> None:
    ctx = CKContext()
    ctx.physics.set_globals((0.0, -20.0, 0.0), 2.0)
    mesh = meshes.sphere(2.0)
    for i in range(n):
        e = ctx.create_entity(f"ball{i}", mesh=mesh, position=(i * 10.0, 1000.0, 0.0))
        blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=2.0, mass=1.9, enable_collision=False)
    for _ in range(30):
        ctx.process_frame(1000.0 / 60.0)
    env = ctx.physics.env
    rounds = 5
    per_round = frames // rounds
    total, psis = float("inf"), 0
    for _ in range(rounds):
        p0 = env.psi_count
        t0 = time.perf_counter()
        for _ in range(per_round):
            ctx.process_frame(1000.0 / 60.0)
        t = time.perf_counter() - t0
        if t < total:
            total, psis = t, env.psi_count - p0
    wb = float("inf")
    for _ in range(rounds):
        t1 = time.perf_counter()
        for _ in range(per_round):
            ctx.physics.write_back()
        wb = min(wb, time.perf_counter() - t1)
    objs = ctx.physics.write_back_objects
    print(f"{n} awake balls, {rounds} rounds of {per_round} frames, the best: {psis} PSIs")
    print(f"  frame:      {total / per_round * 1e6:10.1f} us")
    print(f"  PSI:        {total / max(psis, 1) * 1e6:10.1f} us (whole frame time / PSIs)")
    print(f"  write-back: {wb / per_round / max(len(objs), 1) * 1e6:10.1f} us per body")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
