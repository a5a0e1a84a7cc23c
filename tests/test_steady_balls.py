"""Balls whose pairs with the fixed bodies stay one kept SoupPairs are taken
by after_integration's steady path (awake.SteadyBalls, issue 11) exactly as
its per-piece loop takes them, and a SoupPairs' members linked to the group
read the group's last pass (mindist.SoupPairs): a world run with and without
the steady path is the same at every PSI, while balls settle on a grid floor
(kept awake),
one is pushed across its triangles, one is deleted, a fixed box appears among
them and a ball's pair is read on its own."""

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface, rng
from ivp.collision import awake
from ivp.collision.material import Material
from ivp.collision.mindist import SoupPairs
from test_collision_scenes import FLOOR_MAT, box, grid_mesh
from test_golden_hashes import world_hash


def _world(n: int):
    """n balls (radius 1, 3 apart) just above a 40 x 40 floor of 8 x 8 cells."""
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    env.create_polygon(build_surface("floor", concave_meshes=[grid_mesh(8, 40.0)]),
                       ObjectTemplate(name="floor", physical_unmoveable=True, material=FLOOR_MAT), (0.0, 0.0, 0.0))
    balls = [env.create_ball(BallTemplate(name=f"b{i}", radius=1.0, mass=1.0, material=Material(0.6, 0.2)),
                             (-7.5 + 3.0 * (i % 6), 1.5, -4.5 + 3.0 * (i // 6))) for i in range(n)]
    for b in balls:
        b.wake()
    return env, balls


def _run(monkeypatch, steady: bool):
    """World hashes of every PSI, and how many balls the steady path took."""
    taken = [0]
    holds = awake.SteadyBalls.holds

    def counting(self, *args):
        h = holds(self, *args) if steady else None
        taken[0] += 0 if h is None else sum(h)
        return h

    monkeypatch.setattr(awake.SteadyBalls, "holds", counting)
    env, balls = _world(24)
    hashes = []
    for psi in range(240):
        if psi == 60:
            balls[3].async_add_speed_object_ws((6.0, 0.0, 1.5))     # rolls over the triangles' edges
        if psi == 100:
            env.delete_object(balls[10])
        if psi == 140:
            box(env, (0.0, 0.3, 0.0), size=(0.6, 0.6, 0.6), fixed=True, name="block")
        if psi == 180:
            for md in env.collision.mindists():
                if type(md._batch) is SoupPairs:
                    md.side1                # read on its own: it leaves the group's link
                    break
        for b in balls:
            if b is not balls[10] or psi < 100:
                b.wake()                    # kept awake: resting, not asleep
        env.simulate(env.delta_PSI_time)
        hashes.append(world_hash(env))
    monkeypatch.undo()
    return hashes, taken[0]


def test_the_steady_path_takes_what_the_loop_takes(monkeypatch):
    with_path, taken = _run(monkeypatch, True)
    without, none = _run(monkeypatch, False)
    assert none == 0
    assert taken > 24 * 100             # the resting balls went that way most PSIs
    for psi, (a, b) in enumerate(zip(with_path, without)):
        assert a == b, f"PSI {psi}"


def test_a_linked_member_reads_its_groups_pass():
    """A member's gap, previous features and normal are its rows of the
    group's last pass; read on its own, its geometry is that row's."""
    env, balls = _world(1)
    linked = []
    for _ in range(30):
        env.simulate(env.delta_PSI_time)
        linked = [md for md in env.collision.mindists() if type(md._batch) is SoupPairs]
    assert linked
    for md in linked:
        sp = md._batch
        G, F, _ = sp.batch
        row = sp.offset + md._row
        assert md.len_numerator == G[row, 0] - md.sum_extra_radius
        assert md.prev_code == tuple(F[row].tolist())
        assert md.normal == tuple(G[row, 1:4].tolist())
        n = md.normal
        assert md.geom.n == n           # read on its own: the same row
        assert md._batch is None and sp.relink
        assert md.len_numerator == G[row, 0] - md.sum_extra_radius
