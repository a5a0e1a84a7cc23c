"""The behaviour graph runtime, the frame loop and bad input (glue-and-content 4; DESIGN "One frame")."""

import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import (ACTIVATE_NEXT_FRAME, DONE, BuildingBlock, DeleteCollisionSurfaces, Physicalize,
                           PhysicsReset, PhysicsWakeUp, SetPhysicsForce, SetPhysicsGlobals, snake)
from bbglue.graph import BehaviorGraph

FRAME_MS = 1000.0 / 60.0


class Probe(BuildingBlock):
    """Records (frame, inputs) when it runs; Out fires each run."""

    NAME = "Probe"
    INPUTS = ("In", "In2")
    OUTPUTS = ("Out",)

    def __init__(self, log, tag, again=0, **kw):
        super().__init__(**kw)
        self.log, self.tag, self.again = log, tag, again

    def execute(self, ctx):
        self.log.append((ctx.time_manager.frame_count, self.tag, sorted(self.active_inputs)))
        self.activate_output("Out")
        if self.again:
            self.again -= 1
            return ACTIVATE_NEXT_FRAME
        return DONE


class Boom(BuildingBlock):
    NAME = "Boom"

    def execute(self, ctx):
        raise ValueError("exploded")


def test_snake_case_of_pin_names():
    assert snake("Force Value") == "force_value"
    assert snake("Speed (0-1)") == "speed_0_1"
    assert snake("Automatic Calculate Mass Center") == "automatic_calculate_mass_center"


def test_links_with_delays_and_fifo_order():
    ctx = CKContext()
    log = []
    g = BehaviorGraph("script")
    a, b, c, d = (Probe(log, t, context=ctx) for t in "abcd")
    g.link(a, "Out", b, "In")             # same frame
    g.link(a, "Out", c, "In2", delay=2)   # two frames later
    g.link(b, "Out", d, "In")
    g.start(a)
    ctx.add_behavior(g)
    for _ in range(4):
        ctx.process_frame(FRAME_MS)
    assert log == [(1, "a", ["In"]), (1, "b", ["In"]), (1, "d", ["In"]), (3, "c", ["In2"])]


def test_activate_next_frame_runs_again_without_inputs():
    ctx = CKContext()
    log = []
    g = BehaviorGraph()
    p = Probe(log, "p", again=2, context=ctx)
    g.start(p)
    ctx.add_behavior(g)
    for _ in range(4):
        ctx.process_frame(FRAME_MS)
    assert log == [(1, "p", ["In"]), (2, "p", []), (3, "p", [])]


def test_a_zero_delay_loop_runs_each_block_once_per_frame():
    ctx = CKContext()
    log = []
    g = BehaviorGraph()
    a, b = Probe(log, "a", context=ctx), Probe(log, "b", context=ctx)
    g.link(a, "Out", b, "In")
    g.link(b, "Out", a, "In")
    g.start(a)
    ctx.add_behavior(g)
    ctx.process_frame(FRAME_MS)
    ctx.process_frame(FRAME_MS)
    assert [(f, t) for f, t, _ in log] == [(1, "a"), (1, "b"), (2, "a"), (2, "b")]


def test_a_failing_block_is_reported_and_the_frame_goes_on():
    ctx = CKContext()
    e = ctx.create_entity("ball", mesh=meshes.sphere(2.0), position=(0, 10, 0))
    log = []
    g = BehaviorGraph("level")
    boom, after = Boom(context=ctx), Probe(log, "after", context=ctx)
    g.start(boom)
    g.start(after)
    g.start(Physicalize(target=e, ball_count=1, ball_radius_1=2.0))
    ctx.add_behavior(g)
    ctx.add_behavior(lambda c: log.append("script ran"), name="script")
    ctx.process_frame(FRAME_MS)
    assert [str(x) for x in ctx.errors] == ["frame 1: graph 'level': Boom: ValueError: exploded"]
    assert log == [(1, "after", ["In"]), "script ran"]
    assert ctx.physics.is_physicalized(e) and ctx.physics.env.psi_count == 1


def test_a_block_with_a_missing_mesh_names_block_pin_and_entity_in_the_graph():
    ctx = CKContext()
    bare = ctx.create_entity("bare")
    g = BehaviorGraph("level")
    g.start(Physicalize(target=bare, collision_surface="bare"))
    ctx.add_behavior(g)
    ctx.process_frame(FRAME_MS)
    assert "Physicalize on 'bare': pin 'convex 1': no mesh" in str(ctx.errors[0])


def test_a_raising_behaviour_does_not_stop_physics_and_strict_reraises():
    ctx = CKContext(strict=True)
    ctx.add_behavior(lambda c: 1 / 0, name="bad")
    with pytest.raises(ZeroDivisionError):
        ctx.process_frame(FRAME_MS)
    assert ctx.physics.env.psi_count == 1 and "behaviour bad" in ctx.console[0]


def test_param_link_feeds_an_output_parameter_into_a_pin():
    ctx = CKContext()
    a = ctx.create_entity("a", mesh=meshes.sphere(2.0))
    src = Probe([], "src", context=ctx)
    src.outputs["Entity"] = a
    force = SetPhysicsForce(context=ctx)
    g = BehaviorGraph()
    with pytest.raises(ValueError, match="no output parameter"):
        g.link_param(src, "Nope", force, "Pos Referential")
    g.link_param(src, "Entity", force, "pos_referential")
    g.link(src, "Out", force, "Create")
    g.start(src)
    ctx.add_behavior(g)
    ctx.process_frame(FRAME_MS)
    assert force.params["Pos Referential"] is a


def test_a_param_link_of_the_wrong_type_is_reported_and_the_frame_goes_on():
    ctx = CKContext()
    src = Probe([], "src", context=ctx)
    src.outputs["Entity"] = "not an entity"
    force = SetPhysicsForce(context=ctx)
    g = BehaviorGraph("g")
    g.link_param(src, "Entity", force, "Direction Ref")
    g.link(src, "Out", force, "Create")
    g.start(src)
    ctx.add_behavior(g)
    ctx.process_frame(FRAME_MS)
    assert "SetPhysicsForce: pin 'Direction Ref': expected a 3D entity" in str(ctx.errors[0])
    assert ctx.physics.env.psi_count == 1


def test_links_to_unknown_inputs_are_errors():
    g = BehaviorGraph("g")
    with pytest.raises(ValueError, match="no input 'Go'.*Create, Destroy"):
        g.link(Probe([], "p"), "Out", SetPhysicsForce(), "Go")


def test_wake_up_is_deferred_until_the_body_exists():
    ctx = CKContext()
    e = ctx.create_entity("box", mesh=meshes.box(1, 1, 1))
    PhysicsWakeUp(target=e).trigger()
    assert ctx.console == ["You must Physicalize box !!!"]
    body = blocks.physicalize(ctx, e, start_frozen=True)
    assert not body.core.is_in_wakeup_vec
    ctx.process_frame(FRAME_MS)
    assert body.object_state == 1


def test_set_physics_globals_and_clean_physics_world():
    ctx = CKContext()
    g = SetPhysicsGlobals(context=ctx)
    assert g.params == {"Gravity": (0.0, pytest.approx(-9.81), 0.0), "Physic Time Factor": 1.0}
    assert ctx.physics.env.gravity == pytest.approx((0.0, -9.81, 0.0))
    g.set_pin("gravity", (0.0, -20.0, 0.0))
    g.set_pin("Physic Time Factor", 2.0)
    assert g.trigger("Set Values") == ["Out1"]
    assert ctx.physics.env.gravity == (0.0, -20.0, 0.0) and ctx.physics.time_factor == 2.0
    e = ctx.create_entity("box", mesh=meshes.box(1, 1, 1))
    blocks.physicalize(ctx, e)
    force = blocks.set_force(ctx, e, pos_referential=e)
    old = ctx.physics.env
    assert g.trigger("Clean Physics World") == ["Out2"]
    assert ctx.physics.env is not old and ctx.physics.body_of(e) is None and force.handle is None
    assert ctx.physics.env.gravity == (0.0, -20.0, 0.0) and ctx.physics.surfaces


def test_physics_reset_empties_the_queue_and_delete_surfaces_the_cache():
    ctx = CKContext()
    blocks.set_force(ctx, ctx.create_entity("late"))
    blocks.physicalize(ctx, ctx.create_entity("box", mesh=meshes.box(1, 1, 1)))
    assert ctx.physics.commands and ctx.physics.surfaces
    PhysicsReset(context=ctx).trigger()
    assert ctx.physics.commands == [] and ctx.physics.env.objects == []
    DeleteCollisionSurfaces(context=ctx).trigger()
    assert ctx.physics.surfaces == {}


def test_context_reset_restores_the_play_state():
    ctx = CKContext()
    ctx.physics.set_globals((0.0, -20.0, 0.0), 2.0)
    ctx.process_frame(FRAME_MS)
    ctx.reset()
    assert ctx.physics.time_factor == 1.0 and ctx.physics.smoothed_ms == 0.0
    assert ctx.physics.env.gravity == pytest.approx((0.0, -9.81, 0.0)) and ctx.time_manager.frame_count == 0


def test_input_edges_per_frame():
    ctx = CKContext()
    im = ctx.input_manager
    im.set_keys({"Up"})
    ctx.process_frame(FRAME_MS)
    assert im.is_key_down("Up") and im.was_key_pressed("Up")
    ctx.process_frame(FRAME_MS)
    assert im.is_key_down("Up") and not im.was_key_pressed("Up")
    im.set_keys(())
    ctx.process_frame(FRAME_MS)
    assert not im.is_key_down("Up") and im.was_key_released("Up")


def test_messages_are_delivered_at_the_next_frame_only():
    ctx = CKContext()
    ball = ctx.create_entity("ball")
    other = ctx.create_entity("other")
    got = []
    ctx.message_manager.subscribe("Ball Nav On", got.append, entity=ball)
    ctx.message_manager.send("Ball Nav On", to=ball)
    ctx.message_manager.send("Level_Finish")
    assert not ctx.message_manager.was_received("Ball Nav On", ball)
    ctx.process_frame(FRAME_MS)
    mm = ctx.message_manager
    assert mm.was_received("Ball Nav On", ball) and not mm.was_received("Ball Nav On", other)
    assert mm.was_received("Level_Finish", other)             # a broadcast reaches everyone
    assert [m.name for m in got] == ["Ball Nav On"]
    ctx.process_frame(FRAME_MS)
    assert not mm.was_received("Ball Nav On", ball)
