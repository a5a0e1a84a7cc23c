"""Call cases: one call with hostile arguments into a building block, the
glue's physics manager or an engine entry point (templates, create_*,
joints, springs, forces, pushes on a body), on a small world (a falling ball
'keeper' with a force on it, a box 'victim' without a body, a fixed 'anchor'
ball), which then runs FRAMES frames.

A refusal is LOCATED when it is a ValueError or TypeError whose message names
the thing the call was about (the entity, the object, the block or the
manager), UNLOCATED otherwise."""

from __future__ import annotations

import math
import random

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import SetPhysicsGlobals
from ivp import (BallTemplate, Environment, ForceController, ObjectTemplate, SpringTemplate, build_surface,
                 create_ball_joint, create_hinge, create_slider, create_spring)
from ivp import rng as ivp_rng

from . import BAD, LOCATED, UNCAUGHT, UNLOCATED, Outcome, describe, run_frames

NUMBERS = [math.nan, math.inf, -math.inf, 0.0, -1.0, 1e-300, 1e-30, 1e-8, 1e30, 1e300, -1e300, 3.5e38, 2.0 ** 64,
           9.2e18, -9.2e18, 0.5, 1.0, 100.0, 10 ** 9, -(10 ** 9)]
OTHERS = ["x", None, True, [1.0, 2.0], {"a": 1}, (1.0, 2.0, 3.0), [[1.0]], ""]
CUBE = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]


def number(rnd):
    return rnd.choice(NUMBERS) if rnd.random() < 0.9 else rnd.choice(OTHERS)


def vector(rnd):
    if rnd.random() < 0.1:
        return rnd.choice(OTHERS + [(1.0, 2.0), (1.0, 2.0, 3.0, 4.0)])
    return tuple(number(rnd) if rnd.random() < 0.5 else rnd.uniform(-2.0, 2.0) for _ in range(3))


def small_world():
    ctx = CKContext()
    keeper = ctx.create_entity("keeper", position=(0.0, 10.0, 0.0))
    blocks.physicalize(ctx, keeper, ball_count=1, ball_radius_1=1.0)
    blocks.set_force(ctx, keeper, force_value=0.5, direction=(1.0, 0.0, 0.0))
    ctx.create_entity("victim", mesh=meshes.box(1.0, 1.0, 1.0, name="victim_mesh"), position=(5.0, 0.0, 0.0))
    anchor = ctx.create_entity("anchor", position=(0.0, 14.0, 0.0))
    blocks.physicalize(ctx, anchor, ball_count=1, ball_radius_1=0.5, fixed=True)
    ctx.process_frame(20.0)
    return ctx


PHYSICALIZE_PINS = ("mass", "friction", "elasticity", "linear_speed_dampening", "rot_speed_dampening",
                    "convex_count", "concave_count", "ball_radius_1", "shift_mass_center", "ball_position_1")
BALL_FIELDS = ("mass", "radius", "extra_radius", "speed_damp_factor", "rot_inertia", "rot_speed_damp_factor",
               "auto_check_rot_inertia", "rot_inertia_is_factor", "material", "name")
VECTOR_FIELDS = ("rot_inertia", "rot_speed_damp_factor")
SPRING_FIELDS = ("pos0_ws", "pos1_ws", "length", "constant", "damp_lin", "damp_rel", "break_length")


def _physicalize(ctx, rnd):
    pin = rnd.choice(PHYSICALIZE_PINS)
    pins = {pin: vector(rnd) if pin in ("shift_mass_center", "ball_position_1") else number(rnd)}
    if pin.startswith("ball_"):
        pins["ball_count"] = 1
    if pin == "shift_mass_center":
        pins["automatic_calculate_mass_center"] = False
    return lambda: blocks.physicalize(ctx, ctx.get("victim"), **pins), "victim"


def _force(ctx, rnd):
    pin = rnd.choice(("force_value", "direction", "position"))
    value = number(rnd) if pin == "force_value" else vector(rnd)
    return lambda: blocks.set_force(ctx, ctx.get("keeper"), **{pin: value}), "keeper"


def _impulse(ctx, rnd):
    pin = rnd.choice(("impulse", "direction", "position"))
    value = number(rnd) if pin == "impulse" else vector(rnd)
    return lambda: blocks.impulse(ctx, ctx.get("keeper"), **{pin: value}), "keeper"


def _spring(ctx, rnd):
    pin = rnd.choice(("length", "constant", "linear_dampening", "global_dampening", "position_1", "position_2"))
    value = vector(rnd) if pin.startswith("position") else number(rnd)
    return lambda: blocks.spring(ctx, ctx.get("keeper"), object2=ctx.get("anchor"), **{pin: value}), "keeper"


def _hinge(ctx, rnd):
    lo, hi = number(rnd), number(rnd)
    return (lambda: blocks.hinge(ctx, ctx.get("keeper"), object2=ctx.get("anchor"), limitations=True,
                                 lower_limit=lo, upper_limit=hi), "keeper")


def _contacts(ctx, rnd):
    pin = rnd.choice(("min_speed", "max_speed", "sleep_afterwards", "collision_id"))
    value = number(rnd)
    return lambda: blocks.coll_detection(ctx, ctx.get("keeper"), **{pin: value}), "keeper"


def _globals_block(ctx, rnd):
    pins = rnd.choice(({"gravity": vector(rnd)}, {"physic_time_factor": number(rnd)}))
    return lambda: SetPhysicsGlobals(context=ctx, **pins).trigger("Set Values"), "Set Physics Globals"


def _manager(ctx, rnd):
    m = ctx.physics
    return rnd.choice([
        (lambda v=vector(rnd), f=number(rnd): m.set_globals(v, f), "physics globals"),
        (lambda v=number(rnd): m.set_psi_length(v), "PSI length"),
        (lambda v=number(rnd): ctx.process_frame(v), "frame time"),
        (lambda a=number(rnd), b=number(rnd): ctx.time_manager.set_clamp(a, b), "time manager"),
        (lambda v=vector(rnd): ctx.create_entity("fz", position=v), "fz"),
        (lambda v=vector(rnd): ctx.get("keeper").set_position(v), "keeper"),
    ])


def _engine_ball(ctx, rnd):
    env = ctx.physics.env
    field = rnd.choice(BALL_FIELDS + ("position",))
    value = vector(rnd) if field in VECTOR_FIELDS + ("position",) else number(rnd)
    if field == "position":
        return lambda: env.create_ball(BallTemplate(name="fz"), value), "fz"
    pins = {"name": "fz", field: value}
    return lambda: env.create_ball(BallTemplate(**pins), (0.0, 20.0, 0.0)), "fz"


def _engine_polygon(ctx, rnd):
    env = ctx.physics.env
    if rnd.random() < 0.5:
        points = CUBE[:7] + [rnd.choice([vector(rnd), (number(rnd), 1.0, 1.0), number(rnd)])]
        return lambda: env.create_polygon(build_surface("fzs", [points]), ObjectTemplate(name="fz"),
                                          (0.0, 20.0, 0.0)), "fzs"
    if rnd.random() < 0.5:
        scale = rnd.choice(NUMBERS)
        return lambda: env.create_polygon(build_surface("fzs", [[(x * scale, y, z) for x, y, z in CUBE]]),
                                          ObjectTemplate(name="fz"), (0.0, 20.0, 0.0)), "fzs"
    if rnd.random() < 0.5:
        surface = rnd.choice(OTHERS)
        return lambda: env.create_polygon(surface, ObjectTemplate(name="fz"), (0.0, 20.0, 0.0)), "fz"
    shift = vector(rnd)
    return (lambda: env.create_polygon(build_surface("fzs", [CUBE]), ObjectTemplate(name="fz", mass_center_override=shift),
                                       (0.0, 20.0, 0.0)), "fz")


def _engine_joint(ctx, rnd):
    env = ctx.physics.env
    body, other = ctx.physics.body_of(ctx.get("keeper")), ctx.physics.body_of(ctx.get("anchor"))
    other = rnd.choice([other, None, "x"]) if rnd.random() < 0.3 else other
    a, b, lim = vector(rnd), vector(rnd), rnd.choice([(number(rnd), number(rnd)), None])
    return rnd.choice([
        (lambda: create_hinge(env, body, other, a, b, lim), "keeper"),
        (lambda: create_slider(env, body, other, a, b, lim), "keeper"),
        (lambda: create_ball_joint(env, body, other, a), "keeper"),
    ])


def _engine_spring(ctx, rnd):
    env = ctx.physics.env
    body, other = ctx.physics.body_of(ctx.get("keeper")), ctx.physics.body_of(ctx.get("anchor"))
    field = rnd.choice(SPRING_FIELDS)
    pins = {"obj0": body, "pos0_ws": (0.0, 10.0, 0.0), "obj1": other, "pos1_ws": (0.0, 14.0, 0.0),
            field: vector(rnd) if field.endswith("_ws") else number(rnd)}
    return lambda: create_spring(env, SpringTemplate(**pins)), "spring"


def _engine_force(ctx, rnd):
    core = ctx.physics.body_of(ctx.get("keeper")).core
    point, force = vector(rnd), vector(rnd)
    return lambda: ctx.physics.env.controller_manager.add_controller(ForceController(core, point, force)), "force"


def _engine_push(ctx, rnd):
    body = ctx.physics.body_of(ctx.get("keeper"))
    return rnd.choice([
        (lambda p=vector(rnd), i=vector(rnd): body.async_push_object_ws(p, i), "keeper"),
        (lambda v=vector(rnd): body.async_add_speed_object_ws(v), "keeper"),
        (lambda v=vector(rnd): body.async_add_rot_speed_object_cs(v), "keeper"),
    ])


def _engine_world(ctx, rnd):
    env = ctx.physics.env
    return rnd.choice([
        (lambda v=number(rnd): env.simulate(v), "environment"),
        (lambda v=vector(rnd): env.set_gravity(v), "gravity"),
        (lambda g=vector(rnd), d=number(rnd): Environment(gravity=g, delta_psi_time=d), "environment"),
    ])


CALLS = (_physicalize, _force, _impulse, _spring, _hinge, _contacts, _globals_block, _manager, _engine_ball,
         _engine_polygon, _engine_push, _engine_world, _engine_joint, _engine_spring, _engine_force)


def reproducer(seed: int, _setting=None) -> dict:
    """A script that replays the case (run from the checkout's root: PYTHONPATH=. python FILE)."""
    label = random.Random(seed).choice(CALLS).__name__.lstrip("_")
    return {f"calls/{label}__fz{seed}.py": f"# call case {seed} ({label}); from the checkout's root: "
            "PYTHONPATH=. python THIS_FILE\n"
            "from tests.fuzz import call_cases\n"
            f"print(call_cases.run_case({seed}))\n"}


def run_case(seed: int, _setting=None) -> Outcome:
    rnd = random.Random(seed)
    ivp_rng.reset()
    make = rnd.choice(CALLS)
    label = make.__name__.lstrip("_")
    try:
        ctx = small_world()
        call, names = make(ctx, rnd)
        try:
            call()
        except (ValueError, TypeError, KeyError) as exc:
            text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            after, detail = run_frames(ctx)     # the world steps on after a refusal
            if after in BAD:
                return Outcome("call", seed, after, f"{label}, after a refusal: {detail}")
            if names not in str(text):
                return Outcome("call", seed, UNLOCATED, f"{label}: {describe(exc)} (should name {names!r})")
            return Outcome("call", seed, LOCATED)
        cls, detail = run_frames(ctx)
        return Outcome("call", seed, cls, f"{label}: {detail}" if cls in BAD else "")
    except Exception as exc:            # noqa: BLE001 - the harness classifies every exception
        return Outcome("call", seed, UNCAUGHT, f"{label}: {describe(exc)}")
