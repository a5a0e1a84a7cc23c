"""Scene builders shared by the collision tests, and checks of the builders' geometry."""

import math

import numpy as np

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface
from ivp.collision import Material

NO_DAMP = dict(speed_damp_factor=0.0, rot_speed_damp_factor=(0.0, 0.0, 0.0))
FLOOR_MAT = Material(0.7, 0.3)                   # Phys_Floors (glue-and-content 3)
WOOD = dict(mass=1.9, material=Material(0.8, 0.2), speed_damp_factor=0.9,
            rot_speed_damp_factor=(0.1, 0.1, 0.1))


def grid_mesh(n: int, size: float, nz: int = 0, size_z: float = 0.0):
    """A square of side ``size`` in the xz plane split into n x n quads, 2 triangles
    each (or a size x size_z rectangle of n x nz quads), facing up."""
    nz = nz or n
    xs = np.linspace(-size / 2, size / 2, n + 1)
    zs = np.linspace(-(size_z or size) / 2, (size_z or size) / 2, nz + 1)
    V = np.array([(x, 0.0, z) for z in zs for x in xs])
    F = []
    for j in range(nz):
        for i in range(n):
            a = j * (n + 1) + i
            b = a + 1
            c = a + n + 1
            d = c + 1
            F += [(a, c, b), (b, c, d)]
    return V, np.array(F)


def rotation_x(angle: float):
    """Quaternion (x, y, z, w) of a rotation about x."""
    return (math.sin(angle / 2), 0.0, 0.0, math.cos(angle / 2))


def rotate_x(V, angle):
    c, s = math.cos(angle), math.sin(angle)
    R = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return V @ R.T


def floor(env, n=4, size=40.0, material=FLOOR_MAT, name="floor", group="", tilt=0.0, position=(0, 0, 0)):
    """A fixed concave floor (n x n quads), tilted about x by ``tilt`` radians."""
    V, F = grid_mesh(n, size)
    V = rotate_x(V, tilt)
    surf = build_surface(name, concave_meshes=[(V, F)])
    return env.create_polygon(surf, ObjectTemplate(name=name, physical_unmoveable=True, material=material,
                                                   nocoll_group=group), position)


def slope(env, deg: float, material):
    """A floor tilted by ``deg`` about x: (the tilt, its unit normal, the downhill direction)."""
    a = math.radians(deg)
    floor(env, tilt=a, material=material)
    return a, (0.0, math.cos(a), math.sin(a)), (0.0, -math.sin(a), math.cos(a))


def along(v, d) -> float:
    return v[0] * d[0] + v[1] * d[1] + v[2] * d[2]


def box_points(sx, sy, sz):
    return [(x, y, z) for x in (-sx / 2, sx / 2) for y in (-sy / 2, sy / 2) for z in (-sz / 2, sz / 2)]


def box(env, position, size=(1.0, 1.0, 1.0), mass=1.0, material=Material(0.5, 0.0), name="box",
        fixed=False, group="", quaternion=None, damp=NO_DAMP):
    surf = build_surface(name, convex_point_sets=[box_points(*size)])
    tmpl = ObjectTemplate(name=name, mass=mass, material=material, physical_unmoveable=fixed,
                          nocoll_group=group, **damp)
    return env.create_polygon(surf, tmpl, position, quaternion)


def ball(env, position, radius=2.0, name="ball", group="", **kw):
    args = dict(NO_DAMP)
    args.update(kw)
    return env.create_ball(BallTemplate(name=name, radius=radius, nocoll_group=group, **args), position)


def run(env, seconds: float, every=None):
    """Simulate PSI by PSI for ``seconds``; call every(env) after each PSI."""
    n = int(round(seconds / env.delta_PSI_time))
    for _ in range(n):
        env.simulate(env.delta_PSI_time)
        if every is not None:
            every(env)


def height(obj) -> float:
    return obj.core.pos_world_f_core_last_psi[1]


def test_grid_mesh_has_2n2_triangles_of_the_right_area():
    V, F = grid_mesh(20, 10.0)
    assert len(F) == 800
    t = V[F]
    area = 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1)
    assert np.allclose(area, 0.5 * (10.0 / 20) ** 2)
    # wound so that the normals point up (+y)
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    assert np.all(n[:, 1] > 0)


def test_environment_collides_by_default_and_can_opt_out():
    assert Environment().collision is not None
    assert Environment(collision=False).collision is None
