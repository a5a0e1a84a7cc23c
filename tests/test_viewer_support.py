"""Shared pieces of the viewer tests: an OpenGL context (headless EGL) and small scenes.

The GL context is pyglet's headless EGL one, so these tests need no X server;
tests/test_viewer_window.py runs a real window under its own Xvfb.
"""

from __future__ import annotations

import math

import numpy as np
import pytest


def uv_sphere(radius: float, n: int = 12):
    """Vertices and outward-wound faces of a sphere (test geometry, made here)."""
    verts = [(0.0, radius, 0.0)]
    for i in range(1, n):
        th = math.pi * i / n
        for j in range(2 * n):
            ph = math.pi * j / n
            verts.append((radius * math.sin(th) * math.cos(ph), radius * math.cos(th),
                          radius * math.sin(th) * math.sin(ph)))
    verts.append((0.0, -radius, 0.0))
    ring = lambda i, j: 1 + (i - 1) * 2 * n + j % (2 * n)     # noqa: E731
    faces = []
    for j in range(2 * n):
        faces.append((0, ring(1, j + 1), ring(1, j)))
        faces.append((len(verts) - 1, ring(n - 1, j), ring(n - 1, j + 1)))
    for i in range(1, n - 1):
        for j in range(2 * n):
            faces.append((ring(i, j), ring(i, j + 1), ring(i + 1, j)))
            faces.append((ring(i, j + 1), ring(i + 1, j + 1), ring(i + 1, j)))
    return np.array(verts, np.float32), np.array(faces, np.int32)


def box(hx: float, hy: float, hz: float):
    v = np.array([(x, y, z) for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)], np.float32)
    f = np.array([(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
                  (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)], np.int32)
    return v, f


class StandInMesh:
    def __init__(self, name, vertices_faces):
        self.name = name
        self.vertices, self.faces = vertices_faces


class StandInMatrix:
    def __init__(self, a):
        self.a = a

    def as_array(self):
        return self.a


class StandInEntity:
    """The attributes of bbglue's CK3dEntity that the renderer reads."""

    def __init__(self, name, mesh, position, color, visible=True):
        self.name, self.mesh, self.color, self.visible = name, mesh, color, visible
        self.matrix = np.identity(4, dtype=np.float32)
        self.matrix[3, :3] = position

    def get_world_matrix(self):
        return StandInMatrix(self.matrix)

    def world_token(self):
        return self.matrix


RED = (1.0, 0.0, 0.0, 1.0)
GREY = (0.5, 0.5, 0.5, 1.0)


def floor_and_ball(ball_at, ball_radius=2.0):
    floor = StandInEntity("floor", StandInMesh("floor", box(40.0, 0.5, 40.0)), (0.0, -0.5, 0.0), GREY)
    ball = StandInEntity("ball", StandInMesh("ball", uv_sphere(ball_radius)), ball_at, RED)
    return [floor, ball]


@pytest.fixture(scope="session")
def gl_window():
    """A hidden headless-EGL window: the GL context the render tests draw
    with, each GL call checked for an error."""
    from viewer import display
    display.configure(headless=True, gl_checks=True)
    import pyglet.window
    window = pyglet.window.Window(64, 48, visible=False)
    yield window
    window.close()


def red_mask(img) -> np.ndarray:
    """Pixels of a red object in any shade: lit, in shadow or under the highlight."""
    r, g, b = (img[..., i].astype(int) for i in range(3))
    return (r > 30) & (r > 2 * g) & (r > 2 * b)


def ball_scene():
    """A CKContext with a floor (no body) and a wood ball 10 above it,
    physicalized by the Physicalize block (glue-and-content 3: radius 2, mass 1.9,
    friction 0.8, elasticity 0.2, damping 0.9 / 0.1), awake."""
    from bbglue import CKContext, meshes
    from bbglue.blocks import Physicalize
    ctx = CKContext()
    ctx.create_entity("floor", meshes.tessellated_plane(60.0, 60.0), color=(0.5, 0.6, 0.5, 1.0))
    ball = ctx.create_entity("ball", meshes.sphere(2.0), position=(0.0, 10.0, 0.0), color=RED)
    Physicalize(ball, ball_count=1, convex_count=0, mass=1.9, friction=0.8, elasticity=0.2,
                linear_speed_dampening=0.9, rot_speed_dampening=0.1, ball_radius_1=2.0).trigger()
    return ctx


def ballance_scene():
    """The three player balls, sector 1's reset point 10 above the origin and Ballance's
    player, navigation, camera rig and level behaviours (no floor body; no
    birth: the ball is played at the first frame)."""
    from bbglue import CKContext, meshes
    from behaviors.api import manager_of
    from behaviors.ballance import BallNavigation, CameraRig, Level, PlayerBall
    ctx = CKContext()
    for name in ("Ball_Paper", "Ball_Wood", "Ball_Stone"):
        ctx.create_entity(name, meshes.sphere(2.0), color=RED)
    rp = ctx.create_entity("PR_Resetpoint_01", position=(0.0, 10.0, 0.0))
    rp.set_orientation((1.0, 0.0, 0.0))        # its -X axis, the camera heading, along +Z
    manager = manager_of(ctx)
    for make in (PlayerBall, CameraRig, BallNavigation):     # the camera makes Cam_OrientRef first
        manager.attach(make(ctx))
    manager.attach(Level(ctx, start_delay=0.0, birth_delay=0.0))     # the ball played at the first frame
    return ctx
