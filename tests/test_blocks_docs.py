"""docs/ck-api.md "Pins of each block" is the blocks' pin declarations (a
block's pins, settings, defaults, inputs and outputs), and the unknown-pin
error says how to reach the pins that settings make (issue 43, 11)."""

import math
import os
import re

import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import BuildingBlock
from bbglue.blocks.base import BOOL

DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "ck-api.md")
BEGIN, END = "<!-- pins: generated from the pin declarations, kept by tests/test_blocks_docs.py -->", \
    "<!-- end of pins -->"
BLOCKS = [getattr(blocks, name) for name in blocks.__all__
          if isinstance(getattr(blocks, name), type) and issubclass(getattr(blocks, name), BuildingBlock)
          and getattr(blocks, name).NAME != BuildingBlock.NAME and not name.endswith("Block")]


def value_text(kind, v) -> str:
    if v is None:
        return "none"
    if kind == BOOL:
        return "TRUE" if v else "FALSE"
    if isinstance(v, tuple):
        return "(" + ", ".join(f"{x:g}" for x in v) + ")"
    if isinstance(v, str):
        return f'"{v}"'
    return f"{v:g}"


def row(pin, name=None, py=None) -> str:
    return f"| {name or pin.name} | `{py or pin.py}` | {pin.kind} | {value_text(pin.kind, pin.default)} |"


def block_section(cls) -> list:
    blk = cls()
    lines = [f"#### {cls.NAME}", "",
             f"`bbglue.blocks.{cls.__name__}`. Inputs: {', '.join(blk.INPUTS)}. "
             f"Outputs: {', '.join(blk.OUTPUTS)}."]
    if cls.OUT_PINS:
        lines[-1] += f" Output pins: {', '.join(p.name for p in cls.OUT_PINS)}."
    rows = [row(p) for p in getattr(cls, "FIXED_PINS", cls.PINS)]
    for count, group in getattr(cls, "NUMBERED_PINS", ()):
        rows += [row(p, f"{p.name} N (N = 1 .. {count})", f"{p.py}_N") for p in group]
    rows += [row(p, f"setting {p.name}") for p in cls.SETTINGS]
    if not rows:
        lines[-1] += " No pins."
        return lines + [""]
    return lines + ["", "| pin | keyword | kind | default |", "|---|---|---|---|", *rows, ""]


def generated() -> str:
    lines = [BEGIN, ""]
    for cls in BLOCKS:
        lines += block_section(cls)
    return "\n".join(lines + [END])


def test_the_doc_lists_every_blocks_pins_as_declared():
    assert len(BLOCKS) == 13
    text = open(DOC, encoding="utf-8").read()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == generated(), "regenerate the section with tests/test_blocks_docs.py:generated()"


def unknown_pin_error(**pins) -> str:
    ctx = CKContext()
    e = ctx.create_entity("ball", mesh=meshes.sphere(1.0))
    with pytest.raises(TypeError) as err:
        blocks.physicalize(ctx, e, **pins)
    return str(err.value)


def test_an_unknown_pin_lists_the_settings_and_how_a_ball_is_made():
    msg = unknown_pin_error(balls=[{"radius": 1}])
    assert "Physicalize on 'ball': unknown pin 'balls'" in msg
    assert "settings: convex_count, ball_count, concave_count, shift_mass_center" in msg
    assert "a ball: ball_count=1, ball_radius_1=R" in msg


def test_a_numbered_pin_names_the_setting_that_makes_it():
    assert "ball_radius_N exists for N = 1 .. setting ball_count (now 0): pass ball_count=1 too" \
        in unknown_pin_error(ball_radius_1=1.0)
    assert "convex_N exists for N = 1 .. setting convex_count (now 1): pass convex_count=3 too" \
        in unknown_pin_error(convex_3=None)


def test_the_ball_the_error_describes_is_made():
    ctx = CKContext()
    e = ctx.create_entity("ball", mesh=meshes.sphere(1.0))
    body = blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=1.5)
    assert body.is_ball and body.ball_radius == 1.5


# --- the docs' examples, run as written (issue 43, 1 and 2) ---------------------------

FRAME_MS = 1000.0 / 60.0
G = 9.81                                        # the default gravity (docs/ck-api.md)


def doc_blocks(name: str, lang: str) -> list:
    text = open(os.path.join(os.path.dirname(DOC), name), encoding="utf-8").read()
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def tilt_deg(entity) -> float:
    """The angle between the entity's up axis and world up."""
    return math.degrees(math.acos(min(1.0, entity.get_orientation()[1][1])))


def ck_api_example() -> dict:
    code = [c for c in doc_blocks("ck-api.md", "python") if "blocks.spring(" in c]
    assert len(code) == 1
    ns = {"__name__": "ck_api_example"}
    exec(code[0], ns)
    return ns


def test_ck_api_example_pushes_at_the_centres_it_names():
    ns = ck_api_example()
    crate, ball, lift = ns["crate"], ns["ball"], ns["lift"]
    # 0.08 per PSI is 5.28 N against 0.7 x 0.7 x 9.81 = 4.8 N of friction: it slides
    # along +x, flat (a push at its centre has no lever)
    x, y, z = crate.get_position()
    assert x > 10.0 and abs(z) < 0.1 * x and y == pytest.approx(1.0, abs=0.05)
    assert tilt_deg(crate) < 0.5
    # the impulse at the ball's centre has no x part and no lever: no x motion
    bx, _, bz = ball.get_position()
    assert bx == -5.0 and bz > -15.0 + 10.0
    # the spring's ends are the lift's and the anchor's origins: it hangs at
    # length + m g / k below the anchor
    assert lift.get_position()[1] == pytest.approx(20.0 - 2.0 - 3.0 * G / 15.0, abs=0.05)


def test_without_a_referential_the_force_acts_at_the_world_origin_and_turns_the_crate():
    ctx = CKContext()
    floor = ctx.create_entity("floor", mesh=meshes.box(100, 1, 100), position=(0, -0.5, 0))
    blocks.physicalize(ctx, floor, fixed=True)
    crate = ctx.create_entity("crate", mesh=meshes.box(2, 2, 2), position=(5, 1, 0))
    blocks.physicalize(ctx, crate)
    blk = blocks.set_force(ctx, crate, direction=(1, 0, 0), force_value=0.08)
    # the point is the world origin, in the crate's frame 5 m behind and 1 m below its centre
    assert blk.handle.point == pytest.approx((-5.0, -1.0, 0.0), abs=1e-6)
    for _ in range(300):
        ctx.process_frame(FRAME_MS)
    assert tilt_deg(crate) > 5.0


def test_an_impulse_at_the_world_origin_ahead_of_a_ball_rolls_it_backwards():
    """docs/ck-api.md: about the ball's contact point, the impulse J at the origin
    has the angular impulse (O - C) x J, with O - C = (0, 0, 10): its x part is
    -10 x 8.57, so once friction has made the ball roll it rolls towards -z."""
    ctx = CKContext()
    floor = ctx.create_entity("floor", mesh=meshes.box(200, 1, 200), position=(0, -0.5, 0))
    blocks.physicalize(ctx, floor, fixed=True)
    ball = ctx.create_entity("ball", mesh=meshes.sphere(1), position=(0, 1, -10))
    blocks.physicalize(ctx, ball, ball_count=1, ball_radius_1=1.0)
    for _ in range(30):
        ctx.process_frame(FRAME_MS)
    blocks.impulse(ctx, ball, direction=(0, 5, 3), impulse=10)
    ctx.process_frame(FRAME_MS)
    assert ctx.physics.body_of(ball).core.speed[2] > 0.0           # the linear part: +z
    for _ in range(300):
        ctx.process_frame(FRAME_MS)
    assert ctx.physics.body_of(ball).core.speed[2] < 0.0           # rolling back, towards -z


def test_behaviors_blinker_example_slides_its_crate_flat():
    from behaviors import manager_of, registry
    code = [c for c in doc_blocks("behaviors.md", "python") if "class Blinker" in c]
    assert len(code) == 1
    exec(code[0], {"__name__": "behaviors_doc_blinker"})
    ctx = CKContext()
    floor = ctx.create_entity("floor", mesh=meshes.box(400, 1, 400), position=(0, -0.5, 0))
    blocks.physicalize(ctx, floor, fixed=True)
    crate = ctx.create_entity("Crate", mesh=meshes.box(2, 2, 2), position=(0, 1, 0))
    blocks.physicalize(ctx, crate)
    ctx.create_entity("Lamp")
    registry.create(ctx, "my.blinker", entity="Lamp", params={"period": 0.25, "body": "Crate"})
    for _ in range(120):
        ctx.process_frame(FRAME_MS)
    assert not manager_of(ctx).errors
    x, y, z = crate.get_position()
    # 0.5 per PSI (33 N) along +z, half of the time: it slides along +z, flat
    assert z > 5.0 and abs(x) < 0.1 * z and y == pytest.approx(1.0, abs=0.05)
    assert tilt_deg(crate) < 0.5


def run_scenes_joint_example(tmp_path, door_push):
    """docs/scenes.md's joints example, with a push on the door's free edge
    (2, 3, 0) along ``door_push`` (a world direction); the lift's heights and
    the door's turns about +y (degrees), one per frame of 20 s."""
    import scenes
    example = [c for c in doc_blocks("scenes.md", "yaml") if "type: slider" in c]
    assert len(example) == 1
    path = tmp_path / "joints.yaml"
    path.write_text(example[0])
    ctx = scenes.load(str(path)).ctx
    lift, door = ctx.get("lift"), ctx.get("door")
    blocks.set_force(ctx, door, position=(2, 0, 0), pos_referential=door, direction=door_push, force_value=0.2)
    heights, angles = [], []
    for _ in range(1200):
        ctx.process_frame(FRAME_MS)
        heights.append(lift.get_position()[1])
        right = door.get_orientation()[2]
        angles.append(math.degrees(math.atan2(-right[2], right[0])))
    return heights, angles


def test_scenes_joint_example_lift_rises_to_where_its_spring_holds_it(tmp_path):
    heights, _ = run_scenes_joint_example(tmp_path, (0, 0, 1))
    # limits -30000 .. 0 on the lift (the target) against FixCube: it moves only up
    assert min(heights) > -0.05 and max(heights) > 18.0
    # the spring (length 0, k 15) holds 3 kg at 3 x 9.81 / 15 below lift_anchor
    # (mean over the last two periods, 2 pi sqrt(3 / 15) = 2.8 s each)
    assert sum(heights[-336:]) / 336 == pytest.approx(20.0 - 3.0 * G / 15.0, abs=0.15)


@pytest.mark.parametrize("push, stop", [((0, 0, 1), -90.0), ((0, 0, -1), 45.0)])
def test_scenes_joint_example_door_turns_within_its_mirrored_limits(tmp_path, push, stop):
    """The hinge's axis is +y at (-2, 3, 0): the lever (4, 0, 0) x (0, 0, f) turns
    the door by a negative angle, x (0, 0, -f) by a positive one, and on to the
    limit (-45 .. 90 on the target against FixCube: a turn of -90 .. 45)."""
    _, angles = run_scenes_joint_example(tmp_path, push)
    assert angles[-1] == pytest.approx(stop, abs=3.0)
    assert min(angles) > -90.0 - 6.0 and max(angles) < 45.0 + 6.0
