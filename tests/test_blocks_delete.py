"""Destroying a hinged plank entity or a spring's body in the middle of a
frame, through the glue (reliability issue; glue-and-content 1, ivp spec 12).

A behaviour (before the frame's physics step) or a PSI listener (inside it:
the delete waits for step 5) destroys the entity. The physics manager's
registry forgets it; every other entity keeps its body and every controller
but the victim's joints and springs, whose blocks are told (their handle goes,
so their Create input can make them again); the rest goes on.

The world: a chain of four planks hanging straight down from a fixed FixCube
on hinges (at rest: in equilibrium), a weight on a spring under the last one.
Damping is off, so a part cut loose falls freely: its centre of mass gains
g t of downward speed (less the calm cores' extra damping, spec 7.3).
"""


import pytest

from bbglue import CKContext, blocks, meshes
from scenes.headless import finite_state
from test_reliability_delete import hinge_gap

FRAME_MS = 1000.0 / 60.0
G = 9.81                        # the glue's default gravity
N = 4
HOLD = 0.02                     # m: a hinge at rest or falling freely carries (almost) no load


class Chain:
    def __init__(self):
        ctx = self.ctx = CKContext()
        fix = ctx.create_entity("FixCube", mesh=meshes.box(1.0, 1.0, 1.0), position=(0.0, 0.0, 0.0))
        blocks.physicalize(ctx, fix, fixed=True, enable_collision=False)
        free = dict(linear_speed_dampening=0.0, rot_speed_dampening=0.0)
        self.planks = []
        self.hinges = {}
        above = fix
        for i in range(N):
            p = ctx.create_entity(f"plank{i}", mesh=meshes.box(0.2, 1.8, 3.0, name="plank"),
                                  position=(0.0, -2.0 * i - 1.0, 0.0))
            blocks.physicalize(ctx, p, mass=0.5, **free)
            ref = ctx.create_entity(f"hinge{i}", position=(0.0, -2.0 * i, 0.0))
            self.hinges[f"{above.name}-{p.name}"] = blocks.hinge(ctx, p, object2=above, joint_referential=ref)
            self.planks.append(p)
            above = p
        y = -2.0 * N
        self.weight = ctx.create_entity("weight", mesh=meshes.box(0.6, 0.6, 0.6), position=(0.0, y - 2.0, 0.0))
        blocks.physicalize(ctx, self.weight, mass=1.0, enable_collision=False, **free)
        self.spring = blocks.spring(ctx, above, object2=self.weight, position_1=(0.0, y, 0.0),
                                    position_2=(0.0, y - 2.0, 0.0), length=2.0, constant=200.0)
        self.joint_blocks = list(self.hinges.values()) + [self.spring]
        for e in self.entities():
            blocks.wake_up(ctx, e)

    def entities(self):
        return self.planks + [self.weight]

    def blocks_on(self, entity):
        return [b for b in self.joint_blocks if entity in b.handle_entities()]

    def run(self, frames):
        for _ in range(frames):
            self.ctx.process_frame(FRAME_MS)


def view(ctx, entities):
    """name -> (body, its controllers) through the physics manager's registry."""
    return {e.name: (ctx.physics.body_of(e), list(ctx.physics.body_of(e).core.controllers_of_core))
            for e in entities}


def com_speed_y(ctx, entities):
    bodies = [ctx.physics.body_of(e) for e in entities]
    return sum(b.core.speed[1] / b.core.inv_mass for b in bodies) / sum(1.0 / b.core.inv_mass for b in bodies)


def free_fall_bounds(v0, n, dt):
    """The vertical speed after n PSIs of free fall from v0, undamped and with
    the calm cores' extra damping 0.1 (spec 7.3: v = v (1 - 0.1 dt) + g dt a
    PSI). A core's movement state is only updated by the sleep test, which a
    fast unit skips (6.3), so a part cut loose while slow may keep the extra
    damping for its whole fall."""
    k = 1.0 - 0.1 * dt
    return v0 - G * dt * n, k ** n * v0 - G * dt * (1.0 - k ** n) / (1.0 - k)


class Destroyer:
    """Destroys ``victim`` at frame ``at`` (a behaviour) or at the first PSI of
    that frame (a PSI listener), recording the others before and after the delete."""

    def __init__(self, chain, victim, at=30, in_psi=False):
        self.chain = chain
        self.victim = victim
        self.at = at
        self.frame = 0
        self.others = [e for e in chain.entities() if e is not victim]
        self.handles = {id(b): b.handle for b in chain.joint_blocks}
        self.before = self.after = self.time = None
        ctx = chain.ctx
        if in_psi:
            ctx.add_behavior(self.count)
            ctx.physics.env.add_listener_psi(self.in_psi)
        else:
            ctx.add_behavior(self.behaviour)

    def count(self, ctx):
        self.frame += 1

    def behaviour(self, ctx):
        self.frame += 1
        if self.frame == self.at:
            self.destroy(ctx)

    def in_psi(self, env):
        if self.frame == self.at and self.before is None:
            self.destroy(self.chain.ctx)

    def destroy(self, ctx):
        self.before = view(ctx, self.others)
        self.handles = {id(b): b.handle for b in self.chain.joint_blocks}
        ctx.destroy_entity(self.victim)
        self.time = ctx.physics.env.current_time


def check(chain, d):
    ctx = chain.ctx
    gone = chain.blocks_on(d.victim)
    dead = [d.handles[id(b)] for b in gone]
    assert not ctx.physics.is_physicalized(d.victim) and d.victim.name not in ctx
    after = view(ctx, d.others)
    for e in d.others:
        body, ctrls = d.before[e.name]
        assert after[e.name] == (body, [c for c in ctrls if c not in dead]), e.name
    assert all(j.deleted for j in dead)
    assert all(b.handle is None for b in gone)                     # the owners are told
    for b in chain.joint_blocks:
        if b not in gone:
            assert b.handle is d.handles[id(b)] and not b.handle.deleted, b.describe()


@pytest.mark.parametrize("in_psi", [False, True], ids=["behaviour", "psi-listener"])
def test_destroying_a_middle_plank(in_psi):
    chain = Chain()
    d = Destroyer(chain, chain.planks[1], in_psi=in_psi)
    chain.run(31)
    assert d.before is not None
    check(chain, d)
    loose = chain.planks[2:] + [chain.weight]
    n0, v0 = chain.ctx.physics.env.psi_count, com_speed_y(chain.ctx, loose)
    chain.run(120)
    env = chain.ctx.physics.env
    assert finite_state(env)
    hinges = chain.hinges
    assert hinge_gap(hinges["FixCube-plank0"].handle) < HOLD          # plank 0 still hangs at rest
    assert hinge_gap(hinges["plank2-plank3"].handle) < HOLD           # the loose part falls in one piece
    fast, damped = free_fall_bounds(v0, env.psi_count - n0, env.delta_PSI_time)
    assert fast - 1e-3 <= com_speed_y(chain.ctx, loose) <= damped + 1e-3
    p0 = chain.ctx.physics.body_of(chain.planks[0]).core
    assert p0.speed[1] == pytest.approx(0.0, abs=0.05)


@pytest.mark.parametrize("in_psi", [False, True], ids=["behaviour", "psi-listener"])
def test_destroying_the_springs_weight(in_psi):
    chain = Chain()
    d = Destroyer(chain, chain.weight, in_psi=in_psi)
    chain.run(31)
    check(chain, d)
    chain.run(120)
    assert finite_state(chain.ctx.physics.env)
    assert all(hinge_gap(b.handle) < HOLD for b in chain.hinges.values())


def test_a_joint_block_told_of_its_deletion_is_made_again_by_create():
    # Unphysicalize, move, Physicalize (docs/ck-api.md): the hinge's Create
    # makes the hinge again on the new body
    chain = Chain()
    ctx = chain.ctx
    p3 = chain.planks[3]
    blk = chain.hinges["plank2-plank3"]
    blocks.unphysicalize(ctx, p3)
    assert blk.handle is None and chain.spring.handle is None
    blocks.physicalize(ctx, p3, mass=0.5)
    blk.create()
    body = ctx.physics.body_of(p3)
    assert blk.handle is not None and not blk.handle.deleted and body in blk.handle.objects
    assert blk.handle in body.core.controllers_of_core
