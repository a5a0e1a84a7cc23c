"""Destroying a body in the middle of a frame (reliability issue): a hinged
plank or a spring's body deleted from a PSI listener, a collision listener or
a contact listener.

The rule (dynamics 6.4, 10.0, 12 "controller vtable slot 0: core deleted,
deletes self"): the deleted body's joints and springs leave, each one off both
of its cores and out of their unit; every other controller of every other body
stays where it was. The world then goes on: what is left of the bridge hangs
on its remaining hinges, whose anchors stay together.

The world: a bridge of five planks (collision on, 0.2 m gaps between them)
hinged end to end about z, both ends on fixed FixCubes, hanging with slack; a weight hung from
plank 3 by a spring; a ball resting on the level plank 2.
"""

import math

import pytest

from ivp import (MT_NOT_SIM, BallTemplate, Environment, ObjectTemplate, SpringTemplate, build_surface, create_hinge,
                 create_spring, umath)
from scenes.headless import finite_state

G = 20.0
N_PLANKS = 5
HALF = (0.9, 0.1, 1.5)          # planks 1.8 m long, 2 m apart: 0.2 m gaps at the hinges
SAG = math.radians(20.0)       # slope of the outer planks
# m: a hinge holds when its anchors stay this close. Under the chain's load
# the solver leaves a few cm of error at the hinges (the intact world below);
# a hinge that let go would be metres apart after 2 s (g t^2 / 2 = 40 m).
HOLD = 0.15


def box_surface(hx, hy, hz):
    return build_surface("box", [[(x, y, z) for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)]])


def hinge_points():
    """(x, y) of the six hinges: two planks sloping down by SAG, one level, two
    sloping up, so the chain hangs with slack (a taut chain could only sag by
    pulling its hinges open)."""
    c, s = 2.0 * math.cos(SAG), 2.0 * math.sin(SAG)
    pts = [(0.0, 0.0)]
    for dx, dy in ((c, -s), (c, -s), (2.0, 0.0), (c, s), (c, s)):
        x, y = pts[-1]
        pts.append((x + dx, y + dy))
    return pts


class World:
    """The bridge, its hinges (name -> (constraint, body, body)), the spring, the weight and the ball."""

    def __init__(self):
        env = self.env = Environment(gravity=(0.0, -G, 0.0))
        fixed = BallTemplate(name="FixCube", radius=0.5, physical_unmoveable=True, collision_enabled=False)
        self.fix = env.create_ball(fixed, (0.0, 0.0, 0.0))
        self.fix2 = env.create_ball(fixed, (*hinge_points()[-1], 0.0))
        surf = box_surface(*HALF)
        h = hinge_points()
        self.planks = []
        for i in range(N_PLANKS):
            (x0, y0), (x1, y1) = h[i], h[i + 1]
            a = math.atan2(y1 - y0, x1 - x0)
            q = (0.0, 0.0, math.sin(a / 2.0), math.cos(a / 2.0))
            self.planks.append(env.create_polygon(surf, ObjectTemplate(name=f"plank{i}", mass=0.5),
                                                  ((x0 + x1) / 2.0, (y0 + y1) / 2.0, 0.0), q))
        p = self.planks
        z = (0.0, 0.0, 1.0)
        self.joints = {"fix-0": create_hinge(env, p[0], self.fix, (0.0, 0.0, 0.0), z)}
        for i in range(N_PLANKS - 1):
            self.joints[f"{i}-{i + 1}"] = create_hinge(env, p[i + 1], p[i], (*h[i + 1], 0.0), z)
        self.joints[f"{N_PLANKS - 1}-fix"] = create_hinge(env, p[-1], self.fix2, (*h[-1], 0.0), z)
        x3, y3 = (h[3][0] + h[4][0]) / 2.0, (h[3][1] + h[4][1]) / 2.0
        self.weight = env.create_polygon(box_surface(0.3, 0.3, 0.3),
                                         ObjectTemplate(name="weight", mass=1.0, collision_enabled=False),
                                         (x3, y3 - 2.0, 0.0))
        self.spring = create_spring(env, SpringTemplate(p[3], (x3, y3, 0.0), self.weight, (x3, y3 - 2.0, 0.0),
                                                        length=2.0, constant=200.0, damp_lin=2.0, damp_rel=1.0))
        x2, y2 = h[2]
        self.ball = env.create_ball(BallTemplate(name="ball", mass=1.0, radius=0.5),
                                    (x2 + 1.0, y2 + HALF[1] + 0.5, 0.0))
        for o in p + [self.weight, self.ball]:
            o.wake()

    def bodies(self):
        return self.planks + [self.weight, self.ball]

    def joints_of(self, obj):
        out = [j for j in self.joints.values() if obj in j.objects]
        return out + ([self.spring] if obj in self.spring.objects else [])


def unit_entries(core):
    """The controllers of the core's unit whose entry holds this core, in entry order."""
    return [e.controller for e in core.sim_unit_of_core.entries if any(c is core for c in e.cores)]


def controllers_view(objs):
    """name -> (controllers of the core, the unit's entries holding the core)."""
    return {o.name: (list(o.core.controllers_of_core), unit_entries(o.core)) for o in objs}


def hinge_gap(c):
    """Distance between the hinge's anchor on R and on A, at the PSI poses."""
    wr = c.objects[0].core.m_world_f_core_last_psi
    wa = c.objects[1].core.m_world_f_core_last_psi
    return math.dist(umath.mat_mul_point(wr, c.anchor_r), umath.mat_mul_point(wa, c.anchor_a))


def live_unit(env, core):
    su = core.sim_unit_of_core
    return su.alive and any(c is core for c in su.cores) and (su in env.sim_unit_manager.active
                                                               or su in env.sim_unit_manager.frozen)


class Deleter:
    """Deletes ``victim`` once, at the first call when ``when()`` holds, and
    records the controllers of the others just before and just after."""

    def __init__(self, w, victim, when=lambda: True):
        self.w = w
        self.victim = victim
        self.when = when
        self.others = [o for o in w.bodies() if o is not victim]
        self.before = self.after = None
        self.contacts_only_with_victim = set()

    def fire(self, *_):
        if self.before is not None or not self.when():
            return
        self.before = controllers_view(self.others)
        for o in self.others:
            fs = o.core.friction_system
            if fs is not None and all(self.victim in (c.obj0, c.obj1) for c in fs.core_contacts[o.core]):
                self.contacts_only_with_victim.add(o.name)
        self.w.env.delete_object(self.victim)
        self.after = controllers_view(self.others)

    def event_post_collision(self, ev):
        if self.victim in (ev.obj0, ev.obj1):
            self.fire()

    def event_friction_created(self, ev):
        if self.victim in (ev.obj0, ev.obj1):
            self.fire()

    def event_friction_deleted(self, ev):
        pass


def check_after_delete(w, d):
    """What must hold right after the delete and after 2 s more."""
    assert d.before is not None, "the deletion never happened"
    gone = w.joints_of(d.victim)
    assert gone and all(j.deleted for j in gone)
    for o in d.others:
        ctrls, entries = d.before[o.name]
        # 5.9: a body whose every contact point was with the victim loses its
        # friction system's controllers with them
        lost = set(gone)
        if o.name in d.contacts_only_with_victim:
            lost |= {c for c in ctrls if getattr(c, "system", None) is not None}
        assert d.after[o.name] == ([c for c in ctrls if c not in lost], [c for c in entries if c not in lost]), \
            o.name
    for j in gone:
        for o in j.objects:
            assert j not in o.core.controllers_of_core
    assert d.victim.deleted and d.victim not in w.env.objects
    assert d.victim.anchors == []
    w.env.simulate(2.0)
    assert finite_state(w.env)
    for o in d.others:
        assert not o.deleted and live_unit(w.env, o.core), o.name
        assert w.env.gravity_controller in unit_entries(o.core), o.name
        assert set(unit_entries(o.core)) >= set(o.core.controllers_of_core), o.name
    for name, j in w.joints.items():
        if j in gone:
            continue
        assert not j.deleted and all(j in o.core.controllers_of_core for o in j.objects
                                    if not o.core.physical_unmoveable), name
        assert hinge_gap(j) < HOLD, name
    for c in w.env.collision.contacts():
        assert not c.obj0.deleted and not c.obj1.deleted


# --- from a PSI listener ------------------------------------------------------------------


def settled(t=1.0):
    """A world run for t seconds: the bridge sags, the ball rests on it."""
    w = World()
    w.env.simulate(t)
    return w


def test_the_intact_world_holds_together():
    # the reference for the others: every hinge holds, the ball stays on the
    # level plank 2 or rolls onto plank 3, and touches the bridge
    w = settled()
    w.env.simulate(2.0)
    assert finite_state(w.env)
    assert all(hinge_gap(j) < HOLD for j in w.joints.values())
    h = hinge_points()
    assert h[2][0] < w.ball.core.m_world_f_core_last_psi[1][0] < h[4][0]
    assert any(w.ball in (c.obj0, c.obj1) for c in w.env.collision.contacts())


@pytest.mark.parametrize("victim", ["plank1", "plank2", "plank3", "weight"])
def test_delete_from_a_psi_listener(victim):
    w = settled()
    d = Deleter(w, next(o for o in w.bodies() if o.name == victim))
    w.env.add_listener_psi(d.fire)
    w.env.simulate(0.1)
    w.env.remove_listener_psi(d.fire)
    check_after_delete(w, d)


def test_a_deleted_middle_plank_splits_the_bridge_in_two_units():
    # 10.0: a unit splits along its linking controllers; without plank 2 the
    # bridge is two chains, each hanging from one FixCube
    w = settled()
    d = Deleter(w, w.planks[2])
    w.env.add_listener_psi(d.fire)
    w.env.simulate(0.5)
    p = w.planks
    left, right = p[0].core.sim_unit_of_core, p[3].core.sim_unit_of_core
    assert left is p[1].core.sim_unit_of_core and right is p[4].core.sim_unit_of_core
    assert right is w.weight.core.sim_unit_of_core and left is not right


# --- from collision and contact listeners (between PSIs) ---------------------------------


def dropped_ball_world():
    """The bridge at rest with a second ball falling onto plank 2."""
    w = settled()
    w.drop = w.env.create_ball(BallTemplate(name="drop", mass=1.0, radius=0.5), (5.0, 3.0, 0.0))
    w.drop.wake()
    return w


@pytest.mark.parametrize("hook", ["add_listener_collision", "add_listener_contact"])
@pytest.mark.parametrize("victim", ["plank2", "drop"])
def test_delete_from_a_collision_or_contact_listener(hook, victim):
    w = dropped_ball_world()
    w_bodies = w.bodies
    w.bodies = lambda: w_bodies() + [w.drop]
    d = Deleter(w, next(o for o in w.bodies() if o.name == victim))
    getattr(w.env.collision, hook)(d)
    w.env.simulate(1.0)
    if victim == "drop":
        assert d.before is not None and w.joints_of(w.drop) == []
        w.env.simulate(2.0)
        assert finite_state(w.env)
        for o in d.others:
            assert live_unit(w.env, o.core) and w.env.gravity_controller in unit_entries(o.core), o.name
        assert all(hinge_gap(j) < HOLD for j in w.joints.values())
        assert all(not c.obj0.deleted and not c.obj1.deleted for c in w.env.collision.contacts())
    else:
        check_after_delete(w, d)


class DeleteOnContact:
    """A contact listener that deletes ``victim`` at its first contact point."""

    def __init__(self, env, victim):
        self.env = env
        self.victim = victim
        self.fired = 0

    def event_friction_created(self, ev):
        if self.victim in (ev.obj0, ev.obj1) and not self.victim.deleted:
            self.fired += 1
            self.env.delete_object(self.victim)

    def event_friction_deleted(self, ev):
        pass


@pytest.mark.parametrize("victim", ["box", "ball"])
def test_delete_from_a_contact_created_by_a_revive(victim):
    # 5.2 grow_friction_system: a ball made resting on a box that has no
    # friction system yet gets its contact point when it is woken, inside the
    # revive; the listener deletes one of the two there
    env = Environment(gravity=(0.0, -G, 0.0))
    box = env.create_polygon(box_surface(1.0, 0.5, 1.0), ObjectTemplate(name="box", mass=2.0), (0.0, 0.5, 0.0))
    ball = env.create_ball(BallTemplate(name="ball", mass=1.0, radius=0.5), (0.0, 1.51, 0.0))
    other = env.create_ball(BallTemplate(name="other", mass=1.0, radius=0.5), (5.0, 10.0, 0.0))
    other.wake()
    env.simulate(0.1)
    kept = box if victim == "ball" else ball
    d = DeleteOnContact(env, {"box": box, "ball": ball}[victim])
    env.collision.add_listener_contact(d)
    ball.wake()                             # queued: revived at the next PSI (10.4)
    env.simulate(env.delta_PSI_time)
    assert d.fired == 1 and d.victim.deleted
    assert list(env.collision.contacts()) == [] and kept.core.controllers_of_core == []
    assert all(s.obj is not d.victim for s in env.collision.movable)
    env.simulate(1.0)
    assert finite_state(env) and not kept.deleted
    for o in (kept, other):
        assert live_unit(env, o.core) and env.gravity_controller in unit_entries(o.core)
    if victim == "box":                     # no floor: the ball falls freely, v = g t
        assert kept.core.speed[1] == pytest.approx(-G * 1.0, rel=0.05)
    else:                                   # 5.9: a silent deletion wakes no partner
        assert kept.object_state == MT_NOT_SIM and kept.core.m_world_f_core_last_psi[1] == (0.0, 0.5, 0.0)
    assert all(not (s.obj is d.victim) for md in env.collision.mindists() for s in (md.a, md.b))
