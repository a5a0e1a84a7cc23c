"""Module scripts: fan, swing, sack, wake gate, plank bridge, finish balloon
(glue-and-content 3, "PH modules"; ivp spec 6.3, 7.2)."""

import math

import pytest

from bbglue import meshes
from bbglue.blocks import Physicalize
from behaviors import manager_of, registry
from behaviors.ballance import player_of
from test_ballance_world import PSI_DT, ball_body, ballance_ctx, run


@pytest.mark.parametrize("kind, rises", [("paper", True), ("wood", False), ("stone", False)])
def test_a_fan_lifts_paper_but_not_wood_or_stone(kind, rises):
    """Force (0,1,0) 0.1 per PSI against gravity 20 x dt per PSI: F/m = 0.5 for
    paper > 0.303 > 0.053 for wood and 0.01 for stone."""
    ctx = ballance_ctx(kind=kind, start=(0.0, 4.0, 0.0), level=False)
    ctx.create_entity("Fan")
    registry.create(ctx, "ballance.fan", "Fan")
    player_of(ctx).spawn(kind, (0.0, 4.0, 0.0))
    log = []
    ctx.physics.env.add_listener_psi(lambda env: log.append(ball_body(ctx).core.speed[1]))
    run(ctx, 6)
    k = 1.0 - {"paper": 1.5, "wood": 0.9, "stone": 0.3}[kind] * PSI_DT
    pushes = [b - k * a for a, b in zip(log, log[1:])]
    expected = 0.1 / {"paper": 0.2, "wood": 1.9, "stone": 10.0}[kind] - 20.0 * PSI_DT
    assert pushes == pytest.approx([expected] * len(pushes), rel=1e-4)
    assert (ball_body(ctx).core.speed[1] > 0.0) == rises


@pytest.mark.parametrize("y, on", [(-0.85, True), (-0.87, False), (19.13, True), (19.15, False)])
def test_the_fan_pushes_while_the_balls_box_overlaps_the_column_1_14_above_it(y, on):
    """The column spans 1.14 .. 17.14 above the fan; the ball's box reaches 2
    below and above its centre: overlap for -0.86 <= y <= 19.14."""
    ctx = ballance_ctx(kind="paper", gravity=(0.0, 0.0, 0.0), start=(0.0, y, 0.0), level=False)
    ctx.create_entity("Fan")
    fan = registry.create(ctx, "ballance.fan", "Fan")
    player_of(ctx).spawn("wood", (0.0, y, 0.0))
    run(ctx, 1)
    assert (fan.block.handle is not None) == on


def deck_ctx(behaviour, mass=10.0):
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    deck = ctx.create_entity("Deck", position=(50.0, 0.0, 0.0))
    Physicalize(deck, ctx, collision_surface="", mass=mass).trigger()
    b = registry.create(ctx, behaviour, "Deck")
    log = []
    body = ctx.physics.body_of(deck)
    ctx.physics.env.add_listener_psi(lambda env: log.append((ctx.time_manager.frame_count, body.core.speed[2])))
    return ctx, b, log


def pushes_by_frame(log, damping=0.1):
    """Frame -> the set of pushes its PSIs added (v[n+1] - k v[n])."""
    k = 1.0 - damping * PSI_DT
    out = {}
    for (f, a), (_, b) in zip(log, log[1:]):
        out.setdefault(f, []).append(round(b - k * a, 6))
    return out


def test_the_swing_force_flips_on_its_500_ms_cycle():
    """Module 08: +Z, idle, -Z, idle, 500 ms each, 1.1 per PSI on mass 10."""
    ctx, swing, log = deck_ctx("ballance.swing")
    run(ctx, 45, ms=100.0)                                     # started at t = 100 ms
    pushes = pushes_by_frame(log)
    expected = {0: 0.11, 1: 0.0, 2: -0.11, 3: 0.0}
    for frame in range(2, 45):
        # Frame f (t = 100 f ms) runs its timers before physics: the phase of
        # t - 100 ms since the start, 500 ms each.
        phase = ((frame * 100 - 100) // 500) % 4
        assert set(pushes[frame]) == {expected[phase]}, frame
    assert manager_of(ctx).errors == []


def test_the_sack_force_flips_every_1_5_s():
    ctx, sack, log = deck_ctx("ballance.sack")
    run(ctx, 40, ms=100.0)
    pushes = pushes_by_frame(log)
    for frame in range(2, 40):
        sign = 1.0 if ((frame * 100 - 100) // 1500) % 2 == 0 else -1.0
        assert set(pushes[frame]) == {round(sign * 0.025, 6)}, frame


def test_wake_gate_wakes_frozen_bodies_within_50_horizontal_units():
    ctx = ballance_ctx(gravity=(0.0, -20.0, 0.0), start=(0.0, 0.0, 0.0), level=False)
    player_of(ctx).spawn("wood", (0.0, 0.0, 0.0))
    pusher = ctx.create_entity("Pusher", position=(55.0, 200.0, 0.0))
    Physicalize(pusher, ctx, collision_surface="", start_frozen=True).trigger()
    ctx.create_group("Module01", [pusher])
    gate = ctx.create_entity("Gate", position=(51.0, 500.0, 0.0))
    registry.create(ctx, "ballance.wake_gate", "Gate", {"bodies": "Module01"})
    body = ctx.physics.body_of(pusher)
    run(ctx, 5)
    assert body not in ctx.physics.write_back_objects and pusher.get_position()[1] == 200.0
    gate.set_position((49.0, 500.0, 0.0))                      # 49 horizontal, 500 above
    run(ctx, 5)
    assert body in ctx.physics.write_back_objects and pusher.get_position()[1] < 200.0


def bridge_ctx(kind):
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 30.0, 0.0), kind=kind, level=False)
    fix = ctx.create_entity("FixCube", position=(0.0, -100.0, 0.0))
    Physicalize(fix, ctx, fixed=True, enable_collision=False, collision_surface="").trigger()
    planks, joints = [], []
    for i in range(9):
        p = ctx.create_entity(f"Plank{i + 1}", mesh=meshes.box(1.0, 0.2, 2.0, name="plank"),
                              position=(i * 1.0 + 0.5, 0.0, 0.0))
        Physicalize(p, ctx, mass=1.0 if i == 8 else 0.5, collision_group="Modul29").trigger()
        planks.append(p)
    for k in range(10):
        joints.append(ctx.create_entity(f"Joint{k}", position=(k * 1.0, 0.0, 0.0)))
    ctx.create_group("Planks", planks)
    ctx.create_group("Joints", joints)
    bridge = registry.create(ctx, "ballance.plank_bridge", params={"planks": "Planks", "joints": "Joints"})
    return ctx, bridge


@pytest.mark.parametrize("kind, breaks", [("stone", True), ("wood", False)])
def test_plank_bridge_breaks_under_a_stone_ball_only(kind, breaks):
    ctx, bridge = bridge_ctx(kind)
    run(ctx, 2)
    assert all(h.handle is not None for h in bridge.hinges) and len(bridge.hinges) == 10
    player_of(ctx).spawn(kind, (6.0, 2.0, 0.0))               # over the joint of planks 6 and 7
    run(ctx, 2)
    assert bridge.broken == breaks
    assert (bridge.hinges[6].handle is None) == breaks
    assert sum(h.handle is not None for h in bridge.hinges) == (9 if breaks else 10)


def test_finish_balloon_pushes_balloons_and_ropes_and_launches_on_level_finish():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    names = {"Balloon": (0.0, 100.0, 50.0), "Rope": (0.0, 95.0, 50.0), "Platform": (0.0, 90.0, 50.0)}
    for name, p in names.items():
        Physicalize(ctx.create_entity(name, position=p), ctx, collision_surface="", start_frozen=True,
                    mass=0.5).trigger()
    ctx.create_group("Balloons", [ctx.get("Balloon")])
    ctx.create_group("Ropes", [ctx.get("Rope")])
    fb = registry.create(ctx, "ballance.finish_balloon", params={"balloons": "Balloons", "ropes": "Ropes",
                                                                 "platform": "Platform"})
    log = []
    ctx.physics.env.add_listener_psi(lambda env: log.append(
        (ctx.physics.body_of(ctx.get("Balloon")).core.speed, ctx.physics.body_of(ctx.get("Rope")).core.speed)))
    run(ctx, 3)
    assert ctx.get("Balloon").get_position()[1] == 100.0       # frozen: the forces wait
    ctx.message_manager.send("Level_Finish")
    run(ctx, 10)
    k = 1.0 - 0.1 * PSI_DT
    (b0, r0), (b1, r1) = log[-2], log[-1]
    assert b1[1] - k * b0[1] == pytest.approx(0.3 / 0.5, rel=1e-4)          # (0,1,0) 0.3 per PSI
    assert r1[0] - k * r0[0] == pytest.approx(-0.3 / 0.5, rel=1e-4)         # (-0.2,0,0) x 0.3: 0.3 along -X
    assert ctx.get("Platform").get_position()[1] > 90.0                     # the launch force
    assert fb.launch > 0.0
