"""PhysicsCollDetection and PhysicsContinuousContact (glue-and-content 2).

The collision events come from a stand-in collision system that records the
listeners (the contract of ivp.collision), so the block semantics are tested
on their own.
"""

from types import SimpleNamespace

import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import PhysicsCollDetection, PhysicsContinuousContact

FRAME_MS = 1000.0 / 60.0


class StandInCollision:
    """The hooks ivp.Environment calls, and the listener registration."""

    def __init__(self):
        self.collision = []
        self.contact = []

    def add_listener_collision(self, listener, obj=None):
        self.collision.append((listener, obj))

    def add_listener_contact(self, listener, obj=None):
        self.contact.append((listener, obj))

    def remove_listener_contact(self, listener, obj=None):
        self.contact.remove((listener, obj))

    def revive_partners(self, core):
        return False

    def __getattr__(self, name):           # object_created, begin_psi, ...: nothing to do
        return lambda *a: None


@pytest.fixture
def ctx():
    c = CKContext()
    c.physics.set_globals((0.0, 0.0, 0.0), 1.0)
    c.physics.env.collision = StandInCollision()
    return c


def body(ctx, name, **attrs):
    e = ctx.create_entity(name, mesh=meshes.box(1, 1, 1, name="cube"), position=(len(ctx.entities) * 5.0, 0, 0))
    for k, v in attrs.items():
        e.set_attribute(k, v)
    blocks.physicalize(ctx, e)
    return e


def hit(ctx, lst, me, other, speed=5.0, mine_first=True):
    b0, b1 = ctx.physics.body_of(me), ctx.physics.body_of(other)
    if not mine_first:
        b0, b1 = b1, b0
    lst.event_post_collision(SimpleNamespace(obj0=b0, obj1=b1, point_ws=(1.0, 2.0, 3.0),
                                             normal_ws=(0.0, 1.0, 0.0), speed=(0.0, speed, 0.0)))


def advance(ctx, seconds):
    env = ctx.physics.env
    env.simulate(seconds)


def test_coll_detection_pins_and_outputs():
    blk = PhysicsCollDetection()
    assert blk.INPUTS == ("Create", "Stop") and blk.OUTPUTS == ("Collision",)
    assert blk.params == {"Min Speed": pytest.approx(0.3), "Max Speed": 10.0, "Sleep afterwards": 0.5,
                          "Collision ID": 1}
    assert blk.settings == {"Use Collision ID": False}
    assert list(blk.outputs) == ["Entity", "Speed (0-1)", "Collision Normal World", "Position World"]


def test_coll_detection_registers_once_the_target_is_physicalized(ctx):
    ball = ctx.create_entity("ball", mesh=meshes.sphere(2))
    blk = blocks.coll_detection(ctx, ball)
    ctx.process_frame(FRAME_MS)
    assert ctx.console == ["You must Physicalize ball !!!"] and ctx.physics.env.collision.collision == []
    blocks.physicalize(ctx, ball)
    ctx.process_frame(FRAME_MS)
    [(lst, obj)] = ctx.physics.env.collision.collision
    assert lst is blk.handle and obj is ctx.physics.body_of(ball)


def test_coll_detection_out_pins_and_min_speed(ctx):
    me, wall = body(ctx, "ball"), body(ctx, "wall")
    blk = blocks.coll_detection(ctx, me, max_speed=8.0)
    lst = blk.handle
    hit(ctx, lst, me, wall, speed=blk.params["Min Speed"])       # |speed| <= Min: ignored
    assert blk.take_outputs() == []
    hit(ctx, lst, me, wall, speed=4.0)
    assert blk.take_outputs() == ["Collision"]
    assert blk.outputs == {"Entity": wall, "Speed (0-1)": 0.5, "Collision Normal World": (0.0, 1.0, 0.0),
                           "Position World": (1.0, 2.0, 3.0)}


def test_coll_detection_speed_is_capped_at_1_and_normal_negated_for_the_second_body(ctx):
    me, wall = body(ctx, "ball"), body(ctx, "wall")
    blk = blocks.coll_detection(ctx, me)
    hit(ctx, blk.handle, me, wall, speed=25.0, mine_first=False)
    assert blk.outputs["Speed (0-1)"] == 1.0
    assert blk.outputs["Collision Normal World"] == (0.0, -1.0, 0.0)


def test_coll_detection_sleep_afterwards_and_active_output(ctx):
    me, wall = body(ctx, "ball"), body(ctx, "wall")
    blk = blocks.coll_detection(ctx, me)
    lst = blk.handle
    hit(ctx, lst, me, wall)
    hit(ctx, lst, me, wall)                      # output still active: ignored
    assert blk.take_outputs() == ["Collision"]
    advance(ctx, 0.3)
    hit(ctx, lst, me, wall)                      # 0.3 s < Sleep afterwards 0.5
    assert blk.take_outputs() == []
    advance(ctx, 0.3)
    hit(ctx, lst, me, wall)
    assert blk.take_outputs() == ["Collision"]


def test_coll_detection_id_filter_reads_the_other_body_attribute(ctx):
    me = body(ctx, "ball")
    three, two, none = (body(ctx, "three", **{"Coll Detection ID": 3}),
                        body(ctx, "two", **{"Coll Detection ID": 2}), body(ctx, "none"))
    blk = blocks.coll_detection(ctx, me, use_collision_id=True, collision_id=3, sleep_afterwards=0.0)
    for other, fired in ((two, []), (none, []), (three, ["Collision"])):
        hit(ctx, blk.handle, me, other)
        assert blk.take_outputs() == fired
    unfiltered = blocks.coll_detection(ctx, body(ctx, "ball2"), sleep_afterwards=0.0)
    hit(ctx, unfiltered.handle, ctx.get("ball2"), two)
    assert unfiltered.take_outputs() == ["Collision"]


def test_coll_detection_stop_silences_the_listener(ctx):
    me, wall = body(ctx, "ball"), body(ctx, "wall")
    blk = blocks.coll_detection(ctx, me)
    lst = blk.handle
    blk.trigger("Stop")
    hit(ctx, lst, me, wall)
    assert blk.take_outputs() == [] and blk.handle is None


def contact(lst, ctx, me, other, created=True):
    ev = SimpleNamespace(obj0=ctx.physics.body_of(me), obj1=ctx.physics.body_of(other))
    (lst.event_friction_created if created else lst.event_friction_deleted)(ev)


def test_continuous_contact_outputs_from_the_setting():
    blk = PhysicsContinuousContact(number_group_output=2)
    assert blk.OUTPUTS == ("contact on 0", "contact off 0", "contact on 1", "contact off 1")
    assert blk.params == {"Time Delay Start": pytest.approx(0.1), "Time Delay End": pytest.approx(0.1)}
    assert len(PhysicsContinuousContact().OUTPUTS) == 10


def test_continuous_contact_fires_on_and_off_after_the_delays(ctx):
    me = body(ctx, "ball")
    rail = body(ctx, "rail", **{"Continuous Contact ID": 1})
    rail2 = body(ctx, "rail2", **{"Continuous Contact ID": 1})
    blk = blocks.continuous_contact(ctx, me, time_delay_start=0.1, time_delay_end=0.2)
    lst = blk.handle
    mgr = ctx.physics
    contact(lst, ctx, me, rail)
    contact(lst, ctx, me, rail2)                 # a second contact point in the same group
    advance(ctx, 0.05)
    mgr.step(0.0)
    assert blk.take_outputs() == []
    advance(ctx, 0.06)
    mgr.step(0.0)                                # in contact 0.11 s > 0.1
    assert blk.take_outputs() == ["contact on 1"]
    contact(lst, ctx, me, rail, created=False)   # one point left: still in contact
    advance(ctx, 0.5)
    mgr.step(0.0)
    assert blk.take_outputs() == []
    contact(lst, ctx, me, rail2, created=False)
    advance(ctx, 0.1)
    mgr.step(0.0)
    assert blk.take_outputs() == []
    advance(ctx, 0.11)
    mgr.step(0.0)
    assert blk.take_outputs() == ["contact off 1"]


def test_continuous_contact_short_touch_fires_nothing_and_unknown_groups_are_ignored(ctx):
    me = body(ctx, "ball")
    floor = body(ctx, "floor", **{"Continuous Contact ID": 0})
    other = body(ctx, "box")                     # no "Continuous Contact ID"
    blk = blocks.continuous_contact(ctx, me)
    contact(blk.handle, ctx, me, floor)
    contact(blk.handle, ctx, me, other)
    advance(ctx, 0.05)
    contact(blk.handle, ctx, me, floor, created=False)
    advance(ctx, 0.5)
    ctx.physics.step(0.0)
    assert blk.take_outputs() == []
    assert blk.handle.count == [0, 0, 0, 0, 0]


def test_continuous_contact_handler_goes_with_the_body(ctx):
    me = body(ctx, "ball")
    blk = blocks.continuous_contact(ctx, me)
    lst = blk.handle
    assert ctx.physics.record_of(me).continuous_contact is lst and lst in ctx.physics.timers
    blocks.unphysicalize(ctx, me)
    assert lst not in ctx.physics.timers and not lst.active and blk.handle is None
    assert ctx.physics.env.collision.contact == []


def test_coll_detection_and_contact_on_a_real_impact():
    """With ivp's collision system: a stone ball dropped on a fixed floor fires
    Collision (the floor, normal from the ball toward the floor), then "contact on 0"."""
    ctx = CKContext()
    ctx.physics.set_globals((0.0, -20.0, 0.0), 2.0)
    floor = ctx.create_entity("floor", mesh=meshes.tessellated_plane(40, 40, 2, 2))
    floor.set_attribute("Continuous Contact ID", 0)
    blocks.physicalize(ctx, floor, fixed=True, convex_count=0, concave_count=1, elasticity=0.3)
    ball = ctx.create_entity("ball", mesh=meshes.sphere(2.0), position=(0.0, 6.0, 0.0))
    blocks.physicalize(ctx, ball, ball_count=1, ball_radius_1=2.0, mass=10.0, friction=0.5, elasticity=0.1)
    cd = blocks.coll_detection(ctx, ball)
    cc = blocks.continuous_contact(ctx, ball)
    fired = []
    for frame in range(90):
        ctx.process_frame(FRAME_MS)
        fired += [(frame, o) for o in cd.take_outputs() + cc.take_outputs()]
    assert [o for _, o in fired][:2] == ["Collision", "contact on 0"]
    assert cd.outputs["Entity"] is floor
    assert cd.outputs["Collision Normal World"] == pytest.approx((0.0, -1.0, 0.0))
    # falling 4 - 0.01 units at g = 20: about 0.63 s simulated, 19 frames at time factor 2
    assert 15 <= fired[0][0] <= 40
    assert ctx.errors == []
