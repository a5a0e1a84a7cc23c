"""Every bundled scene loads and runs its length headless: no NaN, no behaviour
error, and energy that never rises in passive scenes and stays within what the
drives can give in driven ones."""

import pytest

import scenes
from scenes.headless import energy, run

# Driven scenes: (force in N of the drives, distance in m their target can travel
# in the run). A force of J per PSI is J * 66 N (glue-and-content 2); its work is
# at most force x distance.
PSI_RATE = 66.0
DRIVEN = {
    "box_push": (0.92 * PSI_RATE, 80.0),               # the push along the 80-long floor
    "fan_column": (6 * 0.1 * PSI_RATE, 16.0),          # six fans, up the 16-high column
    "modules/ph18_fan": (0.1 * PSI_RATE, 16.0),
    "modules/ph08_swing": (1.1 * PSI_RATE, 8 * 20.0),  # 8 pushes of 500 ms, each across at most 20
    "modules/ph26_sack": (0.25 * PSI_RATE, 3 * 22.0),  # 3 flips, each across at most 22
    "finish_balloon": ((4 * 0.3 + 4 * 0.3 + 2.0) * PSI_RATE, 150.0),   # balloons, ropes and the launch, at most 150
}
STRESS_SECONDS = 0.25          # the stress scenes are checked briefly (benchmarks run them longer)


def test_the_bundled_library_has_every_mechanic():
    names = set(scenes.bundled_names())
    modules = {n for n in names if n.startswith("modules/ph")}
    assert {m[len("modules/"):m.index("_")] for m in modules} == {
        "ph01", "ph03", "ph08", "ph17", "ph18", "ph19", "ph25", "ph26", "ph29", "ph30", "ph34", "ph37", "ph41"}
    assert {"ball_paper", "ball_wood", "ball_stone", "rails", "slope", "box_push", "stack", "fan_column",
            "finish_balloon", "stress/bowl_100", "stress/floor_1000", scenes.DEFAULT_SCENE} <= names
    assert not any(n.startswith(("parts/", "lib/")) for n in names)


def test_stress_scenes_have_their_ball_counts():
    for name, count in (("stress/bowl_100", 100), ("stress/floor_1000", 1000)):
        p = scenes.plan(scenes.document.bundled_path(name))
        assert sum(1 for e in p.entities if e.physics is not None and not e.physics["fixed"]) == count


@pytest.mark.parametrize("name", scenes.bundled_names())
def test_bundled_scene_runs_its_length(name):
    scene = scenes.load(name)
    assert 0 < scene.length <= 5
    energies = []
    summary = run(scene, seconds=STRESS_SECONDS if name.startswith("stress/") else None,
                  on_frame=lambda n, ctx: energies.append(energy(ctx.physics.env)))
    assert summary.finite, f"{name}: NaN or infinity in a body"
    assert summary.errors == 0, [str(e) for e in scene.ctx.errors]
    assert summary.psis > 0 and summary.bodies > 0
    e1 = energies[0]                  # after the first frame: the player's ball exists
    rise = max(energies) - e1
    if name in DRIVEN:
        force, distance = DRIVEN[name]
        assert rise <= force * distance, f"{name}: energy rose {rise:.1f}, the drives give at most {force * distance:.1f}"
    else:
        assert rise <= 1e-6 * abs(e1) + 1e-3, f"{name}: a passive scene gained {rise:.6f} J"
