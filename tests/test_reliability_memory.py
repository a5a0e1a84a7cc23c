"""Reloading a scene frees the one before (issue 15, "Long runs": a context
kept alive by its behaviour manager leaked about 1 MB of resident memory per
reload). 200 loads and runs of a scene with behaviours leave no old context
alive, no more garbage-collected objects than the first reload did (give or
take a few cache entries), and the resident memory within 10 % of its level
after the first reload."""

import gc
import os
import weakref

import scenes

RELOADS = 200
FRAMES = 2
SPARE_OBJECTS = 100        # caches that fill once (one leaked scene is thousands of objects)


def resident_bytes() -> int:
    with open("/proc/self/statm") as fh:                 # Linux: sizes in pages, the second is resident
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def load_and_run():
    scene = scenes.load("ball_wood")                    # a ballance.level scene: behaviours, blocks, bodies
    assert scene.ctx.behavior_named("behaviors") is not None
    for _ in range(FRAMES):
        scene.ctx.process_frame(1000.0 / 60.0)
    return scene


def test_200_reloads_free_every_old_scene():
    scene = load_and_run()                               # the first load, with the caches it fills
    scene = load_and_run()                               # the first reload
    gc.collect()
    level, objects = resident_bytes(), len(gc.get_objects())
    old = []
    for _ in range(RELOADS - 1):
        old.append(weakref.ref(scene.ctx))
        scene = load_and_run()
    gc.collect()
    alive = sum(r() is not None for r in old)
    del old
    assert alive == 0                                     # every earlier context was freed
    assert len(gc.get_objects()) <= objects + SPARE_OBJECTS
    assert resident_bytes() <= 1.1 * level
