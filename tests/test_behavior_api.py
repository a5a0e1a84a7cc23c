"""The behaviour API: hooks and their order, timers, delayed messages, initial
conditions, error isolation, and the registry (issue 7, "The API")."""

import math

import pytest

import behaviors
from bbglue.blocks import Physicalize, SetPhysicsForce
from bbglue.context import CKContext
from behaviors import Behavior, Param, Vec3, manager_of, register, registry
from behaviors.api import FAILED, RUNNING


@register("test.recorder")
class Recorder(Behavior):
    messages = ("ping",)
    label = Param(str, "r")
    period = Param(float, 0.5, bounds=(0.0, 60.0))
    offset = Param(Vec3, (0.0, 0.0, 0.0), bounds=(-100.0, 100.0))

    def on_start(self):
        self.log = [("start", self.time)]

    def on_frame(self, dt):
        self.log.append(("frame", dt))

    def on_message(self, message):
        self.log.append(("message", message.name, message.data.get("n")))

    def on_reset(self):
        self.log.append(("reset",))


@register("test.raiser")
class Raiser(Behavior):
    hook = Param(str, "on_frame", choices=("on_start", "on_frame"))

    def on_start(self):
        self.frames = 0
        if self.hook == "on_start":
            raise RuntimeError("boom at start")

    def on_frame(self, dt):
        self.frames += 1
        if self.frames == 3:
            1 / 0


def make_ctx():
    ctx = CKContext()
    ctx.create_entity("Cube", position=(0.0, 10.0, 0.0))
    return ctx


def frames(ctx, n, ms=100.0):
    for _ in range(n):
        ctx.process_frame(ms)


def test_hooks_run_in_order_with_the_clamped_frame_time():
    ctx = make_ctx()
    r = registry.create(ctx, "test.recorder", "Cube")
    assert r.state == behaviors.PENDING and r.entity is ctx.get("Cube")
    ctx.process_frame(2000.0)           # clamped to 1000 ms (Ballance's 1..1000)
    ctx.process_frame(0.25)             # clamped to 1 ms
    assert r.log == [("start", 1.0), ("frame", 1.0), ("frame", 0.001)]
    assert r.state == RUNNING


def test_after_every_each_frame_and_next_frame():
    ctx = make_ctx()
    r = registry.create(ctx, "test.recorder", "Cube")
    hits = []
    ctx.process_frame(100.0)                                  # t = 100 ms: started
    r.after(0.25, lambda: hits.append(("after", r.time)))     # due at 350 ms
    r.every(0.5, lambda: hits.append(("every", r.time)))      # due at 600, 1100, ...
    r.next_frame(lambda: hits.append(("next", r.time)))
    count = []
    r.each_frame(lambda dt: count.append(dt) or len(count) == 3)
    frames(ctx, 4)                                             # t = 200..500 ms
    assert hits == [("next", 0.2), ("after", 0.4)]
    assert count == [0.1, 0.1, 0.1]                            # removed itself after 3 calls
    ctx.process_frame(1000.0)                                  # t = 1500: 600, 1100 due; 1600 not
    assert hits[2:] == [("every", 1.5), ("every", 1.5)]
    assert len(manager_of(ctx).timers) == 1                    # only the repeating one is left


def test_delayed_message_arrives_after_its_delay():
    ctx = make_ctx()
    r = registry.create(ctx, "test.recorder", "Cube")
    ctx.process_frame(100.0)
    r.send("ping", to=ctx.get("Cube"), delay=0.3, n=1)         # due at t = 400 ms
    r.send("ping", n=2)                                        # a broadcast, now
    frames(ctx, 4)                                             # t = 200 .. 500
    msgs = [(e[1], e[2], i) for i, e in enumerate(r.log) if e[0] == "message"]
    # The immediate one is delivered at the next frame (t = 200, log index 2);
    # the delayed one is posted at t = 400 and delivered at t = 500.
    assert [(m[0], m[1]) for m in msgs] == [("ping", 2), ("ping", 1)]
    frame_times = [i for i, e in enumerate(r.log) if e[0] == "frame"]
    assert msgs[0][2] == frame_times[0] + 1 and msgs[1][2] == frame_times[3] + 1
    with pytest.raises(ValueError, match="delay"):
        r.send("ping", delay=-1.0)


def test_a_behaviour_that_raises_is_isolated():
    ctx = make_ctx()
    Physicalize(ctx.get("Cube"), ctx, collision_surface="").trigger()
    good = registry.create(ctx, "test.recorder", "Cube")
    bad = registry.create(ctx, "test.raiser", "Cube")
    force = bad.own(SetPhysicsForce(ctx.get("Cube"), ctx, force_value=1.0))
    force.create()
    assert force.handle is not None
    frames(ctx, 5)
    assert bad.state == FAILED and bad not in manager_of(ctx).behaviors
    err = manager_of(ctx).errors[0]
    assert err.behavior == "test.raiser" and err.entity == "'Cube'" and err.hook == "on_frame"
    assert "ZeroDivisionError" in err.traceback and "on_frame" in err.traceback
    assert any("test.raiser" in str(e) and "on_frame" in str(e) for e in ctx.errors)
    assert force.handle is None                                # its blocks were destroyed
    assert [e[0] for e in good.log].count("frame") == 5        # the other one went on
    assert bad.frames == 3                                     # stopped at the raise
    y = ctx.get("Cube").get_position()[1]
    assert y < 10.0                                            # the physics went on


def test_a_behaviour_that_raises_in_on_start_never_runs_on_frame():
    ctx = make_ctx()
    bad = registry.create(ctx, "test.raiser", "Cube", {"hook": "on_start"})
    frames(ctx, 2)
    assert bad.state == FAILED and bad.frames == 0
    assert manager_of(ctx).errors[0].hook == "on_start"


def test_timer_that_raises_fails_its_owner_only():
    ctx = make_ctx()
    a = registry.create(ctx, "test.recorder", "Cube")
    b = registry.create(ctx, "test.recorder", "Cube", {"label": "b"})
    ctx.process_frame(100.0)
    a.after(0.0, lambda: {}["missing"])
    frames(ctx, 2)
    assert a.state == FAILED and b.state == RUNNING
    assert manager_of(ctx).errors[0].hook.startswith("timer ")


def test_initial_conditions_save_and_restore():
    ctx = make_ctx()
    cube = ctx.get("Cube")
    cube.set_attribute("color", "red")
    r = registry.create(ctx, "test.recorder", "Cube")
    ctx.process_frame(100.0)
    r.save_ic()
    cube.set_position((5.0, 6.0, 7.0))
    cube.rotate((0.0, 1.0, 0.0), 1.0)
    cube.hide()
    cube.set_attribute("color", "blue")
    cube.set_attribute("extra", 1)
    r.restore_ic()
    assert cube.get_position() == (0.0, 10.0, 0.0)
    assert cube.get_orientation()[0] == (0.0, 0.0, 1.0)
    assert cube.is_visible() and cube.attributes == {"color": "red"}


def test_reset_calls_on_reset_then_on_start_again():
    ctx = make_ctx()
    r = registry.create(ctx, "test.recorder", "Cube")
    t = None
    ctx.process_frame(100.0)
    t = r.every(0.1, lambda: None)
    manager_of(ctx).reset()
    assert t.done and r.log[-1] == ("reset",) and r.state == behaviors.PENDING
    ctx.process_frame(100.0)
    assert r.log == [("start", 0.2), ("frame", 0.1)]


def test_stop_runs_on_stop_and_detaches():
    ctx = make_ctx()
    stopped = []

    class Stopper(Behavior):
        def on_stop(self):
            stopped.append(self.time)

    s = manager_of(ctx).attach(Stopper(ctx))
    ctx.process_frame(100.0)
    s.stop()
    ctx.process_frame(100.0)
    assert stopped == [0.1] and s.state == behaviors.STOPPED


# --- the registry -----------------------------------------------------------------------


def test_registry_names_include_the_ballance_behaviours():
    names = registry.names()
    for n in ("ballance.navigation", "ballance.camera", "ballance.level", "ballance.player",
              "ballance.transformers", "ballance.fan", "ballance.swing", "ballance.sack",
              "ballance.plank_bridge", "ballance.wake_gate", "ballance.finish_balloon", "test.recorder"):
        assert n in names


def test_unknown_behaviour_names_where_and_suggests():
    ctx = make_ctx()
    with pytest.raises(ValueError, match=r"level\.yaml:3:5: unknown behaviour 'ballance.navigaton'.*"
                                         r"did you mean 'ballance.navigation'"):
        registry.create(ctx, "ballance.navigaton", where="level.yaml:3:5")


def test_unknown_parameter_names_where_and_suggests():
    ctx = make_ctx()
    with pytest.raises(ValueError, match=r"s\.yaml:9:1: .*no parameter 'perod'.*did you mean 'period'"):
        registry.create(ctx, "test.recorder", "Cube", {"perod": 1.0}, where="s.yaml:9:1")


@pytest.mark.parametrize("params, expected", [
    ({"period": "fast"}, "parameter 'period': expected a number"),
    ({"period": float("nan")}, "parameter 'period': expected a number"),
    ({"period": True}, "parameter 'period': expected a number"),
    ({"offset": (1, 2)}, "parameter 'offset': expected three numbers"),
    ({"label": 3}, "parameter 'label': expected a string"),
])
def test_ill_typed_parameter_is_a_located_value_error(params, expected):
    ctx = make_ctx()
    with pytest.raises(ValueError, match=r"^x\.yaml:1:2: .*" + expected):
        registry.create(ctx, "test.recorder", "Cube", params, where="x.yaml:1:2")
    assert manager_of(ctx).behaviors == []


def test_choices_and_missing_entities_are_located_errors():
    ctx = make_ctx()
    with pytest.raises(ValueError, match=r"w:1:1: .*expected one of 'on_start', 'on_frame'"):
        registry.create(ctx, "test.raiser", params={"hook": "on_stop"}, where="w:1:1")
    with pytest.raises(ValueError, match=r"w:2:1: .*no object named 'Cub'.*did you mean 'Cube'"):
        registry.create(ctx, "test.recorder", "Cub", where="w:2:1")
    with pytest.raises(ValueError, match=r"w:3:1: .*parameter 'bodies'.*no object named 'Nothing'"):
        registry.create(ctx, "ballance.wake_gate", "Cube", {"bodies": "Nothing"}, where="w:3:1")
    with pytest.raises(ValueError, match=r"w:4:1: .*missing required parameter 'bodies'"):
        registry.create(ctx, "ballance.wake_gate", "Cube", where="w:4:1")


def test_register_rejects_non_behaviours_and_taken_names():
    with pytest.raises(TypeError, match="not a Behavior subclass"):
        register("test.bad")(object)

    class Other(Behavior):
        pass

    with pytest.raises(ValueError, match="already taken"):
        register("test.recorder")(Other)


def test_entry_point_behaviours_load_by_name(monkeypatch):
    class Spinner(Behavior):
        speed = Param(float, 90.0, bounds=(-360.0, 360.0))

        def on_frame(self, dt):
            self.entity.rotate((0.0, 1.0, 0.0), math.radians(self.speed) * dt)

    class FakeEntryPoint:
        name = "thirdparty.spinner"
        value = "thirdparty:Spinner"

        def load(self):
            return Spinner

    monkeypatch.setattr(registry, "_entry_points", lambda: {"thirdparty.spinner": FakeEntryPoint()})
    monkeypatch.setattr(registry, "_registry", dict(registry._registry))
    assert "thirdparty.spinner" in registry.names()
    ctx = make_ctx()
    s = registry.create(ctx, "thirdparty.spinner", "Cube", {"speed": 90.0})
    frames(ctx, 10)                                          # 1 s at 90 deg/s
    d = ctx.get("Cube").get_orientation()[0]
    assert s.registered_name == "thirdparty.spinner"
    assert d == pytest.approx((1.0, 0.0, 0.0), abs=1e-5)


def test_collision_and_contact_blocks_feed_the_hooks():
    """A ball dropped 3.5 onto a floor hits at about sqrt(2 g h) = 11.8 > Max Speed
    10, so Speed (0-1) is 1; then it rests in contact with group 0."""
    from bbglue import meshes
    from bbglue.blocks import SetPhysicsGlobals

    ctx = CKContext()
    SetPhysicsGlobals(None, ctx, gravity=(0.0, -20.0, 0.0), physic_time_factor=2.0).trigger()
    floor = ctx.create_entity("Floor", mesh=meshes.box(40.0, 1.0, 40.0, name="floor"))
    floor.set_attribute("Continuous Contact ID", 0)
    Physicalize(floor, ctx, fixed=True, convex_count=0, concave_count=1).trigger()
    ball = ctx.create_entity("Ball", position=(0.0, 5.0, 0.0))
    Physicalize(ball, ctx, collision_surface="ball", ball_count=1, convex_count=0).trigger()

    class Listener(Behavior):
        def on_start(self):
            self.events = []
            self.collision_detection()
            self.continuous_contact()

        def on_collision(self, ev):
            self.events.append(("collision", ev.entity, ev.other, ev.speed))

        def on_contact(self, ev):
            self.events.append(("contact", ev.entity, ev.group, ev.on))

    b = manager_of(ctx).attach(Listener(ctx, ball))
    frames(ctx, 60, ms=1000.0 / 60.0)
    assert b.events[0] == ("collision", ball, floor, 1.0)
    assert ("contact", ball, 0, True) in b.events
    assert manager_of(ctx).errors == []
    b.stop()                                                   # its blocks are destroyed
    assert all(blk.handle is None for blk in b._owned_blocks) and b._owned_blocks == []


def test_lookups_do_not_add_a_manager_to_a_bare_context():
    ctx = make_ctx()
    assert behaviors.hooks.hud_fields(ctx) == {} and manager_of(ctx, create=False) is None


def test_describe_lists_parameters_with_defaults():
    lines = registry.describe("test.recorder")
    assert lines == ["label: a string (default 'r')", "period: a number >= 0 and <= 60 (default 0.5)",
                     "offset: three numbers, each >= -100 and <= 100 (default (0.0, 0.0, 0.0))"]


def test_find_follows_attach_and_stop_and_stays_out_of_snapshots():
    from bbglue.snapshot import game_hash
    ctx = CKContext()
    m = manager_of(ctx)
    assert m.find(Recorder) == [] and m.find("test.recorder") == []
    a = registry.create(ctx, "test.recorder")
    hash_before_find = game_hash(ctx)
    assert m.find(Recorder) == [a] and m.find("test.recorder") == [a]
    assert game_hash(ctx) == hash_before_find                  # the kept answers are not state
    b = registry.create(ctx, "test.recorder", params={"label": "b"})
    assert m.find(Recorder) == [a, b]
    m.find(Recorder).clear()                                    # a caller's list is its own
    m.stop(a)
    assert m.find(Recorder) == [b] and m.find("test.recorder") == [b]
