"""Benchmark: ivp against its peers, PyBullet and MuJoCo (issue 11's table and targets).

Each workload is built once in ivp (with the builders of bench_free_bodies,
bench_joints and the collision tests' scene helpers, or the same parameters as
bench_collision), then described (every body's shape, pose, mass, material and
damping read back from the ivp world) and rebuilt from that description in
each peer that imports, so all engines run the same geometry. Everything is
Y-up with gravity (0, -20, 0) and dt = 1/66 s.

For every engine the script checks that the physics happened (body and
contact counts, bodies resting on the floor, nothing through the floor or the
bowl, the rolling ball moved, the bridge's hinges held) and prints ms per step
(the best of a few runs; warm-up and settling steps are not timed, nor is
re-waking bodies for the "awake" workloads), the ratios ivp / PyBullet and
ivp / MuJoCo next to the issue's targets, ivp's memory per body
(tracemalloc) and ivp's first-call cost (numba compiling, or loading its
on-disk cache, in a fresh process).

How each peer models what ivp does:
* triangle meshes: PyBullet's concave triangle mesh; in MuJoCo (whose meshes
  collide as convex hulls) a flat tessellated floor is a height field with the
  same triangles, any other mesh one thin prism per triangle;
* ivp's elasticity e (an energy ratio, a pair separates at v sqrt(e0 e1)) is
  PyBullet's restitution sqrt(e) (Bullet multiplies the two); MuJoCo keeps its
  soft default contacts;
* ivp's damp factor d (per second) is Bullet's damping 1 - exp(-d) and MuJoCo's
  free-joint damping m d;
* a hinge is two point-to-point constraints on its axis in PyBullet; in MuJoCo
  the plank chain is a tree of hinge joints whose last hinge (closing the loop
  to the fixed end) is a connect constraint;
* "settling" lets each engine sleep bodies (ivp always can; PyBullet and MuJoCo
  with sleeping enabled); "at rest, awake" disables sleeping in the peers and
  re-wakes ivp's bodies (``wake()``, 10.4) before every step, untimed.

Usage: python benchmarks/bench_peers.py [--quick] [--only NAME[,NAME]] [--engines ivp,pybullet,mujoco]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE), str(HERE.parent / "tests")]   # this checkout's ivp, not an installed one

from bench_collision import bowl_mesh  # noqa: E402
from bench_free_bodies import make_world  # noqa: E402
from bench_joints import plank_bridge  # noqa: E402
from test_collision_scenes import FLOOR_MAT, WOOD, box, floor, grid_mesh  # noqa: E402

from ivp import BallTemplate, Environment, ForceController, ObjectTemplate, build_surface, umath  # noqa: E402
from ivp.collision import Material  # noqa: E402

DT = 1.0 / 66.0
GRAVITY = (0.0, -20.0, 0.0)
ENGINES = ("ivp", "pybullet", "mujoco")
TOL = 0.05                      # length tolerance of the resting checks
STACK_TOL = 0.025               # resting height tolerance of a box, per contact under it
HINGE_TOL = 0.2                 # how far a hinge may open
HOP_TOL = 0.5                   # how high the rolling ball may hop
REST_SPEED = 0.2                # the fastest mean speed of a body at rest (MuJoCo's heap creeps at 0.1)


# --- the description every engine is built from ---------------------------------------

@dataclass
class Body:
    """A moving ball (half = None, radius) or box (half extents), at its mass centre."""
    pos: tuple
    quat: tuple                 # (x, y, z, w)
    mass: float
    friction: float
    elasticity: float
    damp: float                 # ivp speed damp factor, 1/s
    rot_damp: float             # ivp rotation damp factor (x), 1/s
    radius: float = 0.0
    half: tuple | None = None
    collide: bool = True


@dataclass
class Mesh:
    """A fixed triangle mesh in world coordinates."""
    V: np.ndarray
    F: np.ndarray
    friction: float
    elasticity: float


@dataclass
class World:
    bodies: list = field(default_factory=list)
    meshes: list = field(default_factory=list)
    hinges: list = field(default_factory=list)     # (body a, body b or None for fixed, point, axis)
    force: tuple | None = None                     # (body, world force) every step
    push: tuple | None = None                      # (body, world point, impulse) once, at the start


def describe(env, moving) -> World:
    """The World of an ivp environment: its fixed colliding meshes and the
    ``moving`` objects (balls and centred boxes) in that order."""
    world = World()
    for o in env.objects:
        if o.core.physical_unmoveable and o.collision_enabled:
            R, vv = o.get_m_world_f_object_AT(env.current_time)
            M = np.array(R).reshape(3, 3)
            for s in o.surface.soups:
                world.meshes.append(Mesh(s.vertices @ M.T + np.array(vv), np.array(s.faces),
                                         o.material.friction, o.material.elasticity))
    for o in moving:
        c = o.core
        mat = o.material or Material()
        body = Body(tuple(c.pos_world_f_core_last_psi), tuple(c.q_world_f_core_last_psi), c.mass, mat.friction,
                    mat.elasticity, c.speed_damp_factor, c.rot_speed_damp_factor[0],
                    collide=o.collision_enabled)
        if o.ball_radius > 0.0:
            body.radius = o.ball_radius
        else:
            v = o.surface.all_vertices()
            lo, hi = v.min(axis=0), v.max(axis=0)
            assert len(v) == 8 and np.allclose(lo + hi, 0.0) and o.shift_is_zero, f"{o.name} is no centred box"
            body.half = tuple(hi)
        world.bodies.append(body)
    return world


# --- the workloads in ivp ------------------------------------------------------------

def ivp_env() -> Environment:
    return Environment(gravity=GRAVITY, delta_psi_time=DT)


def fixed_mesh(env, name: str, V, F) -> None:
    env.create_polygon(build_surface(name, concave_meshes=[(V, F)]),
                       ObjectTemplate(name=name, physical_unmoveable=True, material=FLOOR_MAT), (0.0, 0.0, 0.0))


def heap_ball(env, name: str, pos):
    """bench_collision's heap ball: radius 1, mass 1, (0.6, 0.2), damped 0.1."""
    return env.create_ball(BallTemplate(name=name, radius=1.0, mass=1.0, material=Material(0.6, 0.2),
                                        speed_damp_factor=0.1, rot_speed_damp_factor=(0.1,) * 3), pos)


def build_free(scale: int):
    """bench_free_bodies.make_world: half balls (r 2), half boxes (5 x 2 x 1), high up."""
    env = make_world(1000 // scale)
    return env, list(env.objects), describe(env, list(env.objects))


def build_big_floor(scale: int):
    """bench_collision.ball_on_big_floor: a wood ball (r 2) pushed across 20,000 triangles."""
    env = ivp_env()
    floor(env, n=100 // scale, size=200.0)
    ball = env.create_ball(BallTemplate(name="wood", radius=2.0, **WOOD), (-60.0, 2.3, -50.0))
    impulse = (0.43, 0.0, 0.3)                  # per PSI, as the bench's ForceController
    env.sim_unit_manager.add_controller_to_core(ForceController(ball.core, (0, 0, 0), impulse), ball.core)
    ball.wake()
    world = describe(env, [ball])
    world.force = (0, tuple(x / DT for x in impulse))
    return env, [ball], world


def build_bowl(scale: int):
    """bench_collision.balls_in_a_bowl: 100 balls dropped into a hemisphere of radius 30."""
    env = ivp_env()
    fixed_mesh(env, "bowl", *bowl_mesh())
    n = 100 // scale
    balls = [heap_ball(env, f"b{i}", ((i % 10 - 4.5) * 2.5, -10.0 + (i % 3) * 0.7, (i // 10 - 4.5) * 2.5))
             for i in range(n)]
    for b in balls:
        b.wake()
    return env, balls, describe(env, balls)


def build_floor(scale: int):
    """bench_collision.balls_on_a_floor (stress/floor_1000): 40 x 25 balls of radius 1
    (not the issue's 0.5), 3 apart, 0.5 above a 140 x 100 floor of 28 x 20 cells."""
    env = ivp_env()
    fixed_mesh(env, "floor", *grid_mesh(28, 140.0, 20, 100.0))
    balls = []
    for i in range(40 // scale):
        for k in range(25 // scale):
            b = env.create_ball(BallTemplate(name=f"b{i}_{k}", radius=1.0, mass=1.0, material=Material(0.6, 0.2)),
                                (-58.5 + 3.0 * i, 1.5, -36.0 + 3.0 * k))
            b.wake()
            balls.append(b)
    return env, balls, describe(env, balls)


def build_stack(scale: int):
    """bench_collision.stack_of_boxes: 10 unit boxes 0.02 apart on a 40 x 40 floor."""
    env = ivp_env()
    floor(env)
    boxes = [box(env, (0.0, 0.52 + 1.02 * i, 0.0), name=f"box{i}", material=Material(0.7, 0.3))
             for i in range(10 // scale)]
    for b in boxes:
        b.wake()
    return env, boxes, describe(env, boxes)


def build_bridge(scale: int):
    """bench_joints.plank_bridge: 9 planks (2 x 0.2 x 3) hinged about z at their edges,
    both ends to a fixed point, collision off; a ball lands on the middle plank
    (an impulse (0, -3, 0) at (9, 0, 0))."""
    env = plank_bridge()
    planks = sorted((o for o in env.objects if not o.core.physical_unmoveable),
                    key=lambda o: o.core.pos_world_f_core_last_psi[0])
    world = describe(env, planks)
    xs = [b.pos[0] for b in world.bodies]
    z = (0.0, 0.0, 1.0)
    world.hinges = ([(0, None, (xs[0] - 1.0, 0.0, 0.0), z)]
                    + [(i, i + 1, (xs[i] + 1.0, 0.0, 0.0), z) for i in range(len(xs) - 1)]
                    + [(len(xs) - 1, None, (xs[-1] + 1.0, 0.0, 0.0), z)])
    world.push = (4, (9.0, 0.0, 0.0), (0.0, -3.0, 0.0))
    return env, planks, world


# --- the checks (the same for every engine) ------------------------------------------

def check_free(world, P, R, P0, contacts, V_timed):
    n = len(world.bodies)
    out = [] if contacts == 0 else [f"{contacts} contacts in free fall"]
    if not np.all(P[:, 1] < P0[:, 1] - 0.1):
        out.append("not every body fell")
    return out + ([] if len(P) == n else [f"{len(P)} of {n} bodies"])


def resting_on_floor(world, P, what="floor"):
    """Balls at floor height +- TOL (y = r): none sunk in, none still bouncing."""
    r = np.array([b.radius for b in world.bodies])
    low = int(np.sum(P[:, 1] < r - TOL))
    high = int(np.sum(P[:, 1] > r + TOL))
    return ([f"{low} balls below the {what}"] if low else []) + ([f"{high} balls not down"] if high else [])


def check_big_floor(world, P, R, P0, contacts, V_timed):
    """The ball rolled on (not through, not off) the floor: it may hop over seams
    (Bullet's ball does, by up to 0.2 at 12 m/s), so no contact count."""
    moved = P[0, 0] - P0[0, 0]
    y = P[0, 1] - world.bodies[0].radius
    return ([] if moved > 5.0 else [f"the ball moved only {moved:.2f} in x"]) + \
        ([] if -TOL < y < HOP_TOL else [f"the ball is {y:.3f} above the floor"])


def check_bowl(world, P, R, P0, contacts, V_timed):
    r = np.array([b.radius for b in world.bodies])
    out_of = int(np.sum(np.linalg.norm(P, axis=1) > 30.0 - r + TOL))
    n = len(world.bodies)
    return ([f"{out_of} balls through the bowl"] if out_of else []) + \
        enough_contacts(contacts, n)


def enough_contacts(contacts, n: int) -> list:
    """At least one contact per ball (None: the engine lists none for sleeping bodies)."""
    return [] if contacts is None or contacts >= n else [f"only {contacts} contacts for {n} balls"]


def at_rest(V_timed, what):
    """No body faster than REST_SPEED on average over the last timed run."""
    v = float(np.max(np.linalg.norm(V_timed, axis=1)))
    return [] if v < REST_SPEED else [f"{what} moved at {v:.3f} per s while timed at rest"]


def check_bowl_rest(world, P, R, P0, contacts, V_timed):
    return check_bowl(world, P, R, P0, contacts, V_timed) + at_rest(V_timed, "a ball")


def check_floor(world, P, R, P0, contacts, V_timed):
    n = len(world.bodies)
    return resting_on_floor(world, P) + enough_contacts(contacts, n)


def check_floor_rest(world, P, R, P0, contacts, V_timed):
    return check_floor(world, P, R, P0, contacts, V_timed) + at_rest(V_timed, "a ball")


def check_stack(world, P, R, P0, contacts, V_timed):
    """Every box on the one below: at its touching height (+- STACK_TOL per contact
    under it: ivp rests bodies 0.02 apart, twice coll_dist; peers sink a few mm)
    and its centre less than half a box off the one below (it stands)."""
    h = np.array([b.half[1] for b in world.bodies])
    want = h[0] + np.concatenate(([0.0], np.cumsum(h[:-1] + h[1:])))
    out = []
    if np.any(P[:, 1] < h - TOL):
        out.append("a box below the floor")
    off = float(np.max(np.abs(P[:, 1] - want) / np.arange(1, len(h) + 1)))
    if off > STACK_TOL:
        out.append(f"the boxes are {off:.3f} per contact off their resting heights")
    below = np.vstack(([0.0, 0.0, 0.0], P[:-1]))
    side = float(np.max(np.hypot(P[:, 0] - below[:, 0], P[:, 2] - below[:, 2]) / h))
    return out + ([] if side < 1.0 else ["a box fell off the stack"])


def check_bridge(world, P, R, P0, contacts, V_timed):
    """The hinges held (their points on both bodies within HINGE_TOL: the chain is
    taut, so the push stretches ivp's soft hinges) and the push moved the bridge."""
    gap = 0.0
    for a, b, p, _ in world.hinges:
        pa = P[a] + R[a] @ (np.array(p) - P0[a])
        pb = np.array(p) if b is None else P[b] + R[b] @ (np.array(p) - P0[b])
        gap = max(gap, float(np.linalg.norm(pa - pb)))
    moved = float(np.max(np.linalg.norm(P - P0, axis=1)))
    return ([] if gap < HINGE_TOL else [f"a hinge opened by {gap:.3f}"]) + \
        ([] if moved > 1e-3 else ["the push did not move the bridge"])


# --- engines: build a World, step, report poses and contacts --------------------------

class IvpRun:
    name = "ivp"

    def __init__(self, env, moving, awake):
        self.env = env
        self.objects = moving
        self.awake = awake

    def prepare(self):
        if self.awake:
            for o in self.objects:
                o.wake()

    def step(self):
        self.env.simulate(DT)

    def poses(self):
        cores = [o.core for o in self.objects]
        P = np.array([c.pos_world_f_core_last_psi for c in cores])
        R = np.array([umath.quat_to_matrix(c.q_world_f_core_last_psi) for c in cores]).reshape(-1, 3, 3)
        return P, R

    def contacts(self):
        return len(list(self.env.collision.contacts())) if self.env.collision is not None else 0

    def close(self):
        pass


def bullet_damping(d: float) -> float:
    return 1.0 - math.exp(-d)


class BulletRun:
    name = "pybullet"

    def __init__(self, world, awake):
        import pybullet as p
        self.p = p
        self.cid = c = p.connect(p.DIRECT)
        p.setGravity(*GRAVITY, physicsClientId=c)
        p.setPhysicsEngineParameter(fixedTimeStep=DT, physicsClientId=c)
        for m in world.meshes:
            shape = p.createCollisionShape(p.GEOM_MESH, vertices=m.V.tolist(), indices=m.F.ravel().tolist(),
                                           flags=p.GEOM_FORCE_CONCAVE_TRIMESH, physicsClientId=c)
            fixed = p.createMultiBody(0.0, shape, physicsClientId=c)
            p.changeDynamics(fixed, -1, lateralFriction=m.friction, restitution=math.sqrt(m.elasticity),
                             physicsClientId=c)
        sleep = p.ACTIVATION_STATE_DISABLE_SLEEPING if awake else p.ACTIVATION_STATE_ENABLE_SLEEPING
        shapes = {}
        self.ids = []
        for b in world.bodies:
            key = (b.radius, b.half)
            if key not in shapes:
                shapes[key] = (p.createCollisionShape(p.GEOM_SPHERE, radius=b.radius, physicsClientId=c)
                               if b.half is None else
                               p.createCollisionShape(p.GEOM_BOX, halfExtents=b.half, physicsClientId=c))
            i = p.createMultiBody(b.mass, shapes[key], basePosition=b.pos, baseOrientation=b.quat,
                                  useMaximalCoordinates=True, physicsClientId=c)
            p.changeDynamics(i, -1, lateralFriction=b.friction, restitution=math.sqrt(b.elasticity),
                             linearDamping=bullet_damping(b.damp), angularDamping=bullet_damping(b.rot_damp),
                             activationState=sleep, physicsClientId=c)
            if not b.collide:
                p.setCollisionFilterGroupMask(i, -1, 0, 0, physicsClientId=c)
            self.ids.append(i)
        if world.hinges:        # a rigid body cannot be constrained to the world: to a fixed body at 0
            anchor = p.createMultiBody(0.0, -1, useMaximalCoordinates=True, physicsClientId=c)
        for a, b, pt, axis in world.hinges:
            for side in (-1.0, 1.0):        # two ball joints on the axis, at body a's sides
                q = tuple(np.add(pt, side * np.array(axis) * world.bodies[a].half[2]))
                child = anchor if b is None else self.ids[b]
                child_at = q if b is None else tuple(np.subtract(q, world.bodies[b].pos))
                p.createConstraint(self.ids[a], -1, child, -1, p.JOINT_POINT2POINT, (0, 0, 0),
                                   tuple(np.subtract(q, world.bodies[a].pos)), child_at, physicsClientId=c)
        self.force = world.force
        self.push = world.push

    def prepare(self):
        pass

    def step(self):
        p, c = self.p, self.cid
        if self.force is not None:
            i = self.ids[self.force[0]]
            p.applyExternalForce(i, -1, self.force[1], p.getBasePositionAndOrientation(i, physicsClientId=c)[0],
                                 p.WORLD_FRAME, physicsClientId=c)
        if self.push is not None:
            i, at, imp = self.push
            p.applyExternalForce(self.ids[i], -1, tuple(x / DT for x in imp), at, p.WORLD_FRAME, physicsClientId=c)
            self.push = None
        p.stepSimulation(physicsClientId=c)

    def poses(self):
        p, c = self.p, self.cid
        pq = [p.getBasePositionAndOrientation(i, physicsClientId=c) for i in self.ids]
        P = np.array([x[0] for x in pq])
        R = np.array([p.getMatrixFromQuaternion(x[1]) for x in pq]).reshape(-1, 3, 3)
        return P, R

    def contacts(self):
        return len(self.p.getContactPoints(physicsClientId=self.cid))

    def close(self):
        self.p.disconnect(physicsClientId=self.cid)


def fmt(v) -> str:
    return " ".join(f"{x:.9g}" for x in v)


def mujoco_quat(q) -> tuple:
    """(x, y, z, w) -> MuJoCo's (w, x, y, z)."""
    return (q[3], q[0], q[1], q[2])


def mujoco_statics(m: Mesh, k: int) -> tuple[list, list]:
    """(assets, geoms) of a fixed mesh: a height field if it is a flat grid at
    y = 0, else one prism (0.5 thick, behind the face) per triangle."""
    V = m.V
    attrs = f'friction="{m.friction:g} 0.005 0.0001"'
    xs, zs = np.unique(V[:, 0]), np.unique(V[:, 2])
    if np.all(V[:, 1] == 0.0) and len(m.F) == 2 * (len(xs) - 1) * (len(zs) - 1):
        rx, rz = (xs[-1] - xs[0]) / 2, (zs[-1] - zs[0]) / 2
        centre = ((xs[-1] + xs[0]) / 2, 0.0, (zs[-1] + zs[0]) / 2)
        asset = f'<hfield name="h{k}" nrow="{len(zs)}" ncol="{len(xs)}" size="{rx:g} {rz:g} 1 1"/>'
        geom = (f'<geom type="hfield" hfield="h{k}" pos="{fmt(centre)}" '      # its z is world y
                f'quat="0.70710678 -0.70710678 0 0" {attrs}/>')
        return [asset], [geom]
    assets, geoms = [], []
    for t, (a, b, c) in enumerate(m.F):
        tri = V[[a, b, c]]
        n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        back = tri - 0.5 * n / np.linalg.norm(n)
        assets.append(f'<mesh name="m{k}_{t}" vertex="{fmt(np.concatenate((tri, back)).ravel())}"/>')
        geoms.append(f'<geom type="mesh" mesh="m{k}_{t}" {attrs}/>')
    return assets, geoms


def mujoco_body(world, i: int, parent_pos, children: dict) -> str:
    """A body, its joint (free, or the hinge to its parent) and its hinged children."""
    b = world.bodies[i]
    pos = np.subtract(b.pos, parent_pos)
    if b.half is None:
        shape = f'type="sphere" size="{b.radius:g}"'
    else:
        shape = f'type="box" size="{fmt(b.half)}"'
    coll = "" if b.collide else ' contype="0" conaffinity="0"'
    hinge = children.get(("joint", i))
    if hinge is None:
        joint = f'<joint type="free" damping="{b.mass * b.damp:g}"/>'
    else:
        joint = (f'<joint type="hinge" pos="{fmt(np.subtract(hinge[2], b.pos))}" axis="{fmt(hinge[3])}" '
                 f'damping="{b.mass * b.rot_damp:g}"/>')
    inner = "".join(mujoco_body(world, j, b.pos, children) for j in children.get(i, []))
    return (f'<body name="b{i}" pos="{fmt(pos)}" quat="{fmt(mujoco_quat(b.quat))}">{joint}'
            f'<geom {shape} mass="{b.mass:g}" friction="{b.friction:g} 0.005 0.0001"{coll}/>{inner}</body>')


class MujocoRun:
    name = "mujoco"

    def __init__(self, world, awake):
        import mujoco
        self.mj = mujoco
        assets, geoms = [], []
        for k, m in enumerate(world.meshes):
            a, g = mujoco_statics(m, k)
            assets += a
            geoms += g
        # hinges: a tree from the fixed end; a hinge closing a loop becomes a connect
        children, placed, roots, connects = {}, set(), [], []
        for a, b, pt, axis in world.hinges:
            if b is None and a not in placed:
                roots.append(a)
                children[("joint", a)] = (a, b, pt, axis)
                placed.add(a)
            elif b is not None and a in placed and b not in placed:
                children.setdefault(a, []).append(b)
                children[("joint", b)] = (b, a, pt, axis)
                placed.add(b)
            else:
                connects.append(f'<connect body1="b{a}" body2="{"world" if b is None else f"b{b}"}" '
                                f'anchor="{fmt(np.subtract(pt, world.bodies[a].pos))}"/>')
        roots += [i for i in range(len(world.bodies)) if i not in placed]
        bodies = "".join(mujoco_body(world, i, (0.0, 0.0, 0.0), children) for i in roots)
        flag = "" if awake else '<flag sleep="enable"/>'
        xml = (f'<mujoco><option timestep="{DT!r}" gravity="{fmt(GRAVITY)}">{flag}</option>'
               f'<asset>{"".join(assets)}</asset><worldbody>{"".join(geoms)}{bodies}</worldbody>'
               f'<equality>{"".join(connects)}</equality></mujoco>')
        self.model = mujoco.MjModel.from_xml_string(xml)
        self.data = mujoco.MjData(self.model)
        self.ids = [mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, f"b{i}")
                    for i in range(len(world.bodies))]
        if world.force is not None:
            self.data.xfrc_applied[self.ids[world.force[0]], :3] = world.force[1]
        self.push = None
        if world.push is not None:
            i, at, imp = world.push
            f = np.array(imp) / DT
            self.push = self.ids[i]
            self.data.xfrc_applied[self.push, :3] = f
            self.data.xfrc_applied[self.push, 3:] = np.cross(np.subtract(at, world.bodies[i].pos), f)

    def prepare(self):
        pass

    def step(self):
        self.mj.mj_step(self.model, self.data)
        if self.push is not None:
            self.data.xfrc_applied[self.push] = 0.0
            self.push = None

    def poses(self):
        return self.data.xpos[self.ids].copy(), self.data.xmat[self.ids].reshape(-1, 3, 3).copy()

    def contacts(self):
        """None while a body sleeps (MuJoCo does not collide sleeping bodies)."""
        return int(self.data.ncon) if self.data.nbody_awake == self.model.nbody else None

    def close(self):
        pass


# --- running ---------------------------------------------------------------------------

@dataclass
class Workload:
    name: str
    title: str
    build: object               # scale -> (ivp env, its moving objects, their World)
    check: object
    steps: int                  # timed steps per run
    settle: int = 0             # untimed steps before the first run (warm-up or settling)
    awake: bool = False         # sleeping off, bodies kept awake
    fresh: bool = True          # a new world per run (else consecutive windows of one world)
    target: float = 1.0         # ivp / PyBullet
    per_body: bool = False      # also print us per body per PSI


WARM_UP = 5

WORKLOADS = [
    Workload("free", "1000 free bodies (500 balls, 500 boxes)", build_free, check_free, 33, per_body=True),
    Workload("big_floor", "one ball (r 2) rolling on 20k triangles", build_big_floor, check_big_floor, 330,
             settle=66),
    Workload("bowl", "100 balls in a bowl, settling", build_bowl, check_bowl, 198),
    Workload("bowl_rest", "the bowl heap at rest, awake", build_bowl, check_bowl_rest, 66, settle=396,
             awake=True, fresh=False, target=0.5),
    Workload("floor", "1000 balls (r 1) on a floor, settling", build_floor, check_floor, 132),
    Workload("floor_rest", "the 1000 balls resting, sleep off", build_floor, check_floor_rest, 33, settle=132,
             awake=True, fresh=False, target=0.5),
    Workload("stack", "stack of 10 boxes", build_stack, check_stack, 198),
    Workload("bridge", "9-plank hinge bridge, a ball lands", build_bridge, check_bridge, 132),
]


def make_engine(engine: str, env, moving, world, awake):
    if engine == "ivp":
        return IvpRun(env, moving, awake)
    if engine == "pybullet":
        return BulletRun(world, awake)
    return MujocoRun(world, awake)


def run_steps(run, n: int) -> float:
    """Seconds spent in n steps (the untimed prepare before each excluded)."""
    total = 0.0
    for _ in range(n):
        run.prepare()
        t0 = time.perf_counter()
        run.step()
        total += time.perf_counter() - t0
    return total


def measure(w: Workload, engine: str, runs: int, steps: int, scale: int = 1):
    """(best ms per step, failed checks) of one workload in one engine."""
    best = math.inf
    run = None
    for k in range(runs):
        if run is None or w.fresh:
            if run is not None:
                run.close()
            env, moving, world = w.build(scale)
            run = make_engine(engine, env, moving, world, w.awake)
            P0, _ = run.poses()
            run_steps(run, WARM_UP + w.settle)
        P_timed, _ = run.poses()
        best = min(best, run_steps(run, steps) / steps * 1e3)
    P, R = run.poses()
    failed = w.check(world, P, R, P0, run.contacts(), (P - P_timed) / (steps * DT))
    run.close()
    return best, failed


def available(engine: str) -> str | None:
    """None if the engine imports, else why not."""
    if engine == "ivp":
        return None
    try:
        __import__(engine)
    except ImportError as e:
        return f"{engine} not importable ({e})"
    return None


def memory_per_body(quick: bool) -> list[str]:
    """ivp's traced Python memory per body: the free 1000 after 5 PSIs, and
    (full run) the 1000 floor balls after 30 PSIs, contacts included."""
    out = []
    cases = [("1000 free bodies, 5 PSIs", lambda: build_free(1)[0], 5)]
    if not quick:
        cases.append(("1000 balls on the floor, 30 PSIs", lambda: build_floor(1)[0], 30))
    for what, build, psis in cases:
        tracemalloc.start()
        env = build()
        for _ in range(psis):
            env.simulate(DT)
        used = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        n = sum(1 for o in env.objects if not o.core.physical_unmoveable)
        out.append(f"ivp memory per body ({what}): {used / n / 1024:.2f} KiB")
        del env
    return out


FIRST_CALL = """
import time
t0 = time.perf_counter()
import ivp, ivp.jit
from test_collision_scenes import floor, box, ball
imported = time.perf_counter() - t0
def scene():
    env = ivp.Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    for o in (ball(env, (0.0, 2.5, 0.0), radius=2.0), box(env, (5.0, 1.0, 0.0))):
        o.wake()
    t = time.perf_counter()
    env.simulate(1.0)
    return time.perf_counter() - t
first, second = scene(), scene()
print(ivp.jit.ENABLED, imported, first - second)
"""


def first_call(cache_dir: str) -> tuple[bool, float, float]:
    """(jit on, import s, first-world extra s) in a fresh process with numba's cache in cache_dir."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir,
               PYTHONPATH=os.pathsep.join([str(HERE.parent), str(HERE.parent / "tests")]))
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0] == "True", float(out[1]), float(out[2])


def first_call_lines(cold: bool) -> list[str]:
    """The first world's extra time, with an empty numba cache (cold) and with
    the cache that run left on disk (warm); quick runs use the usual cache."""
    with tempfile.TemporaryDirectory() as d:
        if cold:
            jit, imp, extra = first_call(d)
            _, imp_warm, warm = first_call(d)
        else:
            jit, imp_warm, warm = first_call(os.environ.get("NUMBA_CACHE_DIR", ""))
    what = "ivp first call (a ball and a box dropped on a floor, 66 PSIs, fresh process)"
    if not jit:
        return [f"{what}: numba off (plain Python): import {imp_warm:.2f} s, first world +{warm:.2f} s"]
    line = f"{what}: +{warm:.2f} s with the numba cache on disk (import {imp_warm:.2f} s)"
    if cold:
        line += f"; +{extra:.2f} s compiling with an empty cache (import {imp:.2f} s)"
    return [line]


def ratio(a, b) -> str:
    return f"{a / b:7.2f}" if a is not None and b is not None else "      -"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: 1 run, a third of the resting steps, no cold compile")
    ap.add_argument("--only", help="workloads, comma-separated: " + ",".join(w.name for w in WORKLOADS))
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, of " + ",".join(ENGINES))
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for e in engines:
        if e not in ENGINES:
            ap.error(f"--engines: unknown engine {e!r} (known: {', '.join(ENGINES)})")
    names = [w.name for w in WORKLOADS]
    only = names if not args.only else [n.strip() for n in args.only.split(",")]
    for n in only:
        if n not in names:
            ap.error(f"--only: unknown workload {n!r} (known: {', '.join(names)})")
    notes = []
    for e in engines:
        why = available(e)
        if why is not None:
            notes.append(f"skipped {why}")
    engines = [e for e in engines if available(e) is None]
    runs = 1 if args.quick else 3
    print(f"peers: ms per step, dt = 1/66 s, gravity (0, -20, 0), best of {runs}"
          f"{' (quick: a third of the resting steps)' if args.quick else ''}")
    for n in notes:
        print("  " + n)
    head = f"{'workload':42s}" + "".join(f"{e:>10s}" for e in engines)
    head += "   ivp/PyB  target  ivp/MuJ  checks"
    print(head)
    failures = 0
    for w in WORKLOADS:
        if w.name not in only:
            continue
        steps = max(10, w.steps // 3) if args.quick and not w.fresh else w.steps
        ms, fails = {}, []
        for e in engines:
            ms[e], failed = measure(w, e, runs, steps)
            fails += [f"{e}: {f}" for f in failed]
        failures += len(fails)
        line = f"{w.title:42s}" + "".join(f"{ms[e]:10.3f}" for e in engines)
        line += f"   {ratio(ms.get('ivp'), ms.get('pybullet'))}  <= {w.target:.1f}  {ratio(ms.get('ivp'), ms.get('mujoco'))}"
        line += "  " + ("ok" if not fails else "; ".join(fails))
        print(line, flush=True)
        if w.per_body and "ivp" in ms:
            print(f"{'':42s}ivp {ms['ivp']:.2f} us per body per PSI (target <= 0.5)")
    if "ivp" in engines:
        for line in memory_per_body(args.quick) + first_call_lines(cold=not args.quick):
            print(line)
    if failures:
        sys.exit(f"{failures} physics checks failed")


if __name__ == "__main__":
    main()
