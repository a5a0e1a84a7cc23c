"""The bundled module scenes carry the original's frozen starts, wake gates and
values (issue 12's table: "modules frozen", "module values")."""

import pytest

import scenes
from behaviors import manager_of

FROZEN = {  # scene: (bodies that start frozen, the gate's radius)
    "modules/ph01_sliding_gate": (["pusher"], 50.0),
    "modules/ph03_spring_lift": (["weight0_0", "weight3_1"], 35.0),
    "modules/ph08_swing": (["deck"], 50.0),
    "modules/ph19_flaps": (["flap"], 50.0),
    "modules/ph25_drawbridge": (["bridge"], 50.0),
    "modules/ph29_plank_bridge": (["ph29_plank0", "ph29_plank8"], 80.0),
    "modules/ph30_seesaw": (["seesaw"], 50.0),
    "modules/ph37_t_board": (["t_board"], 50.0),
    "finish_balloon": (["PE_Platform", "PE_Balloon0_0", "PE_Rope1_1"], 70.0),
}


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_modules_start_frozen_and_wake_by_their_gate(name):
    bodies, radius = FROZEN[name]
    ctx = scenes.load(name).ctx
    for b in bodies:
        assert ctx.physics.record_of(ctx.get(b)).pins["Start Frozen"] is True, b
    gates = manager_of(ctx).find("ballance.wake_gate")
    assert [g.radius for g in gates] == [radius]


def pins(name, entity):
    ctx = scenes.load(name).ctx
    return ctx.physics.record_of(ctx.get(entity)).pins


@pytest.mark.parametrize("name, entity, values", [
    ("modules/ph08_swing", "deck", {"Linear Speed Dampening": 0.4, "Rot Speed Dampening": 0.1}),
    ("modules/ph19_flaps", "flap", {"Linear Speed Dampening": 1.0, "Rot Speed Dampening": 0.05}),
    ("modules/ph25_drawbridge", "bridge", {"Linear Speed Dampening": 1.0, "Rot Speed Dampening": 0.05}),
    ("modules/ph37_t_board", "t_board", {"Linear Speed Dampening": 1.0, "Rot Speed Dampening": 0.05}),
    ("modules/ph29_plank_bridge", "ph29_plank3", {"Rot Speed Dampening": 0.3}),
    ("modules/ph03_spring_lift", "weight1_0", {"Mass": 2.0, "Friction": 0.4, "Elasticity": 0.01,
                                                "Linear Speed Dampening": 0.5, "Rot Speed Dampening": 1.5}),
    ("modules/ph34_falling_stone", "stone", {"Friction": 0.5}),
])
def test_module_values(name, entity, values):
    p = pins(name, entity)
    assert {k: p[k] for k in values} == pytest.approx(values)


def test_the_finish_balloon_has_4_balloons_and_4_ropes_and_18_bodies():
    ctx = scenes.load("finish_balloon").ctx
    assert len(ctx.get("PE_Balloons")) == 4 and len(ctx.get("PE_Ropes")) == 4
    assert len(ctx.get("PE_Bodies")) == 18


def test_the_player_rig_has_16_17_18_pieces():
    ctx = scenes.load("sample_level").ctx
    assert [len(ctx.get(f"Ball_{k}_Pieces")) for k in ("Wood", "Stone", "Paper")] == [16, 17, 18]
