"""Transformers and ball pieces as the original plays them (issue 12's table,
docs/behaviors.md "Rules")."""

import math

import pytest

from bbglue import meshes
from behaviors import manager_of, registry
from behaviors.ballance import player_of
from behaviors.ballance.values import BALL_KINDS, PIECE_COUNTS
from test_ballance_world import FRAME_MS, ball_body, ballance_ctx, run

PAD = (0.0, -1.0, 15.0)


def add_pieces(ctx):
    """The piece groups (wood 16, stone 17, paper 18) and the ball_pieces behaviour."""
    for kind, n in PIECE_COUNTS.items():
        name = f"Ball_{kind.capitalize()}_Pieces"
        ctx.create_group(name, [ctx.create_entity(f"{name}{i}", mesh=meshes.box(0.8, 0.8, 0.8, name=f"{name}{i}_mesh"))
                                for i in range(n)])
    return registry.create(ctx, "ballance.ball_pieces")


def transformer_course(pad_kind):
    """Gravity off; Up pushes the wood ball along +Z toward a pad at z 15."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0))
    ctx.create_group(f"P_Trafo_{pad_kind.capitalize()}", [ctx.create_entity("Pad", position=PAD)])
    registry.create(ctx, "ballance.transformers")
    add_pieces(ctx)
    return ctx


def frames_until(ctx, cond, keys=("Up",), limit=600):
    for i in range(limit):
        run(ctx, keys=set(keys))
        if cond():
            return i
    raise AssertionError("condition never met")


def test_transformer_spring_1_35_s_burst_2_35_s_new_kind_2_5_s():
    ctx = transformer_course("paper")
    player = player_of(ctx)
    trafo = manager_of(ctx).find("ballance.transformers")[0]
    frames_until(ctx, lambda: trafo.swapping is not None)
    p = player.ball.get_position()
    assert math.dist(p, PAD) <= 4.3
    start_y = p[1]
    run(ctx, 60)                                               # 1 s: still on the spring, pulled up
    assert player.ball is ctx.get("Ball_Wood") and ctx.physics.is_physicalized(ctx.get("Ball_Wood"))
    assert player.ball.get_position()[1] > start_y + 1.0
    run(ctx, 22)                                               # 1.367 s: held
    wood = ctx.get("Ball_Wood")
    assert player.held and not ctx.physics.is_physicalized(wood) and wood.is_visible()
    run(ctx, 58)                                               # 2.333 s
    assert wood.is_visible()
    run(ctx, 2)                                                # 2.367 s: burst
    assert not wood.is_visible()
    run(ctx, 1)                                                # "Ball Break" arrives: its 16 pieces
    pieces = ctx.get("Ball_Wood_Pieces").entities
    assert all(e.is_visible() and ctx.physics.is_physicalized(e) for e in pieces)
    assert player.kind == "wood"
    held_at = wood.get_position()
    run(ctx, 6)                                                # 2.483 s
    assert player.kind == "wood"
    run(ctx, 2)                                                # 2.517 s: the new kind
    ball = player.ball
    assert player.kind == "paper" and ball is ctx.get("Ball_Paper") and ball.is_visible()
    assert ball.get_position() == pytest.approx(held_at, abs=1e-6)
    core = ball_body(ctx).core
    assert core.speed == (0.0, 0.0, 0.0) and core.rot_speed == (0.0, 0.0, 0.0)
    assert manager_of(ctx).errors == []


def test_the_nearest_pad_of_another_kind_wins():
    ctx = transformer_course("paper")
    ctx.create_group("P_Trafo_Stone", [ctx.create_entity("Pad2", position=(0.0, -1.0, 15.5))])
    trafo = manager_of(ctx).find("ballance.transformers")[0]
    manager_of(ctx).stop(trafo)
    trafo = registry.create(ctx, "ballance.transformers")
    frames_until(ctx, lambda: trafo.swapping is not None)
    assert trafo.swapping["kind"] == "paper"                   # z 15 is met before z 15.5


def test_a_pad_of_the_balls_own_kind_does_nothing():
    ctx = transformer_course("wood")
    run(ctx, 120, keys={"Up"})
    player = player_of(ctx)
    assert player.kind == "wood" and not player.held
    assert player.ball.get_position()[2] > 20.0


@pytest.mark.parametrize("kind", ["wood", "stone", "paper"])
def test_a_ball_bursts_into_its_pieces_pushed_out_and_removed_after_20_s(kind):
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0))
    pieces = add_pieces(ctx)
    run(ctx)
    centre = (0.0, 50.0, 0.0)
    pieces.break_at(kind, centre)
    group = pieces.groups[kind].entities
    assert len(group) == {"wood": 16, "stone": 17, "paper": 18}[kind]
    share = BALL_KINDS[kind].mass / len(group)
    assert [ctx.physics.body_of(e).core.mass for e in group] == pytest.approx([share] * len(group), rel=1e-6)
    run(ctx, 5)
    for e in group:
        out = [e.get_position()[i] - centre[i] for i in range(3)]
        assert math.hypot(*out) > pieces.spread                 # moving outward
    run(ctx, int(20000.0 / FRAME_MS) - 7)                       # 19.98 s
    assert all(ctx.physics.is_physicalized(e) and e.is_visible() for e in group)
    run(ctx, 3)                                                 # 20.03 s
    assert not any(ctx.physics.is_physicalized(e) or e.is_visible() for e in group)


def test_wrong_piece_counts_are_an_error():
    ctx = ballance_ctx(level=False)
    add_pieces(ctx)
    ctx.get("Ball_Stone_Pieces").remove(ctx.get("Ball_Stone_Pieces0"))
    manager_of(ctx).stop(manager_of(ctx).find("ballance.ball_pieces")[0])
    registry.create(ctx, "ballance.ball_pieces")
    run(ctx)
    errors = manager_of(ctx).errors
    assert errors and "a stone ball bursts into 17 pieces" in str(errors[-1].error)


@pytest.mark.parametrize("when", [30, 100])          # on the spring (0.5 s), held (1.67 s)
def test_a_ball_taken_away_during_a_swap_ends_it_and_the_next_swap_runs(when):
    """A respawn in the middle of a swap (a death, a new ball) gives it up: no
    burst, no new kind, no error; the pad swaps the next ball as usual."""
    ctx = transformer_course("paper")
    player = player_of(ctx)
    trafo = manager_of(ctx).find("ballance.transformers")[0]
    frames_until(ctx, lambda: trafo.swapping is not None)
    run(ctx, when)
    player.spawn("wood", (0.0, 0.0, -30.0))                    # far from the pad
    run(ctx, 120)                                              # past the swap's 2.5 s
    assert trafo.swapping is None and player.kind == "wood" and player.ball is ctx.get("Ball_Wood")
    assert not player.held and ctx.get("Ball_Wood").is_visible()
    assert manager_of(ctx).errors == [] and ctx.errors == []
    player.spawn("wood", PAD)
    frames_until(ctx, lambda: trafo.swapping is not None, keys=())
    run(ctx, 160)                                              # 2.67 s
    assert player.kind == "paper"
