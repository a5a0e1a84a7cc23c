"""The viewer's camera maths and draw-list grouping (no display needed)."""

import math

import numpy as np
import pytest
from test_viewer_support import StandInEntity, StandInMesh, box, uv_sphere

from viewer import camera
from viewer.drawlist import MeshKeys, bounding_sphere, gather, shade_normals


def clip_to_ndc(p4):
    return p4[:3] / p4[3]


def project(camera_world, point, aspect=4 / 3):
    p = np.append(np.asarray(point, float), 1.0)
    return clip_to_ndc(camera.BALLANCE_LENS.perspective(aspect) @ camera.gl_view(camera_world) @ p)


def test_horizontal_field_of_view_is_58_degrees_at_4_3():
    # A camera at the origin looking along +Z: a point 29 degrees to the side lands on the image edge.
    cam = camera.look_at((0, 0, 0), (0, 0, 1))
    x = math.tan(math.radians(29.0)) * 100.0
    assert project(cam, (x, 0.0, 100.0))[0] == pytest.approx(1.0)
    assert project(cam, (-x, 0.0, 100.0))[0] == pytest.approx(-1.0)
    # vertically the 4:3 image spans tan(29 deg) * 3/4
    assert project(cam, (0.0, x * 0.75, 100.0))[1] == pytest.approx(1.0)


def test_a_wider_lens_widens_the_view():
    cam = camera.look_at((0, 0, 0), (0, 0, 1))
    p = np.array([math.tan(math.radians(45.0)) * 100.0, 0.0, 100.0, 1.0])
    clip = camera.Lens(fov_h_deg=90.0).perspective(4 / 3) @ camera.gl_view(cam) @ p
    assert clip[0] / clip[3] == pytest.approx(1.0)


def test_near_and_far_planes_map_to_depth_minus_one_and_one():
    cam = camera.look_at((0, 0, 0), (0, 0, 1))
    assert project(cam, (0, 0, 3.0))[2] == pytest.approx(-1.0)
    assert project(cam, (0, 0, 1200.0))[2] == pytest.approx(1.0)


def test_left_handed_world_shows_plus_x_on_the_right_and_plus_y_up():
    # Virtools: looking along +Z with Y up, +X is to the right (glue-and-content 4).
    cam = camera.look_at((0, 0, -50), (0, 0, 0))
    ndc = project(cam, (10.0, 5.0, 0.0))
    assert ndc[0] > 0.0 and ndc[1] > 0.0


def test_look_at_axes_are_orthonormal_and_left_handed():
    m = camera.look_at((3.0, 40.0, -25.0), (1.0, 2.0, 7.0))
    r, u, d = m[0, :3], m[1, :3], m[2, :3]
    assert np.allclose([r @ r, u @ u, d @ d], 1.0) and np.allclose([r @ u, u @ d, d @ r], 0.0)
    assert np.allclose(np.cross(r, u), d)        # X x Y = Z in the Virtools frame
    assert np.allclose(d, (np.array([1.0, 2.0, 7.0]) - (3.0, 40.0, -25.0)) / math.dist((1, 2, 7), (3, 40, -25)))
    assert r[1] == pytest.approx(0.0)            # no roll


def test_look_at_straight_down_still_has_a_frame():
    m = camera.look_at((0, 50, 0), (0, 0, 0))
    assert np.allclose(m[2, :3], (0, -1, 0)) and abs(np.linalg.det(m[:3, :3])) == pytest.approx(1.0)


def test_pixel_ray_passes_through_the_point_it_was_cast_at():
    cam = camera.look_at((12.0, 30.0, -40.0), (0.0, 0.0, 5.0))
    origin, d = camera.BALLANCE_LENS.pixel_ray(cam, 4 / 3, 0.3, -0.6)
    assert project(cam, origin + 77.0 * d)[:2] == pytest.approx((0.3, -0.6))


def test_orbit_camera_looks_at_its_target_from_its_distance():
    orbit = camera.OrbitCamera(target=(5.0, 1.0, -2.0), distance=30.0, yaw=0.7, pitch=0.4)
    m = orbit.world_matrix()
    assert np.linalg.norm(m[3, :3] - (5.0, 1.0, -2.0)) == pytest.approx(30.0)
    assert project(m, (5.0, 1.0, -2.0))[:2] == pytest.approx((0.0, 0.0), abs=1e-12)
    assert m[3, 1] == pytest.approx(1.0 + 30.0 * math.sin(0.4))     # pitch down: eye above
    orbit.rotate(0.0, 10.0)
    assert orbit.pitch == pytest.approx(math.radians(89.0))
    orbit.zoom(0.0)
    assert orbit.distance == camera.OrbitCamera.MIN_DISTANCE


def test_orbit_frame_fits_the_sphere_in_view():
    orbit = camera.OrbitCamera()
    orbit.frame((0.0, 0.0, 0.0), 10.0)
    m = orbit.world_matrix()
    # the sphere's edge seen from the eye is within the narrower (vertical) half-field
    half_v = math.atan(math.tan(math.radians(29.0)) * 0.75)
    assert math.asin(10.0 / orbit.distance) == pytest.approx(half_v)
    assert np.linalg.norm(m[3, :3]) == pytest.approx(orbit.distance)


def test_bad_camera_input_is_a_value_error():
    with pytest.raises(ValueError, match="camera"):
        camera.look_at((1, 2, 3), (1, 2, 3))
    with pytest.raises(ValueError, match="aspect"):
        camera.BALLANCE_LENS.perspective(0.0)
    with pytest.raises(ValueError, match="lens"):
        camera.Lens(fov_h_deg=0.0)
    with pytest.raises(ValueError, match="lens"):
        camera.Lens(near=5.0, far=4.0)


def test_box_corners_keep_flat_face_normals():
    corners = shade_normals(*box(1.0, 2.0, 3.0))
    normals = corners[:, 3:]
    # every box normal is an axis (the faces meet at 90 degrees, beyond the crease)
    assert np.allclose(np.sort(np.abs(normals), axis=1), [0.0, 0.0, 1.0])
    # and points out of the solid: along the corner's own coordinate on that axis
    axis = np.argmax(np.abs(normals), axis=1)
    rows = np.arange(len(normals))
    assert np.all(np.sign(normals[rows, axis]) == np.sign(corners[rows, axis]))


def test_sphere_corners_get_smooth_radial_normals():
    corners = shade_normals(*uv_sphere(2.0, n=16))
    radial = corners[:, :3] / np.linalg.norm(corners[:, :3], axis=1)[:, None]
    assert np.min(np.sum(radial * corners[:, 3:], axis=1)) > 0.99


def test_shade_normals_rejects_bad_meshes():
    v, f = box(1, 1, 1)
    with pytest.raises(ValueError, match="crate"):
        shade_normals(v, f + 100, where="crate")
    with pytest.raises(ValueError, match="NaN"):
        shade_normals(np.full((8, 3), np.nan), f)
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        shade_normals(v[:, :2], f)


def test_equal_meshes_form_one_group_however_they_were_made():
    balls = [StandInEntity(f"b{i}", StandInMesh(f"ball{i}", uv_sphere(2.0)), (i, 0, 0), (1, 0, 0, 1))
             for i in range(1000)]
    crate = StandInEntity("crate", StandInMesh("crate", box(2.5, 2.5, 2.5)), (0, 5, 0), (0, 1, 0, 1))
    hidden = StandInEntity("hidden", StandInMesh("crate", box(2.5, 2.5, 2.5)), (0, 9, 0), (0, 1, 0, 1),
                           visible=False)
    empty = StandInEntity("frame", None, (0, 0, 0), (0, 0, 0, 1))
    groups = gather(balls + [crate, hidden, empty], MeshKeys())
    assert sorted(len(g.entities) for g in groups.values()) == [1, 1000]
    big = max(groups.values(), key=lambda g: len(g.entities))
    data = big.instance_data()
    assert data.shape == (1000, 20)
    assert data[7, 12:15].tolist() == [7.0, 0.0, 0.0]           # row 3 = translation
    assert data[7, 16:].tolist() == [1.0, 0.0, 0.0, 1.0]


def test_colour_override_replaces_the_entity_colour():
    e = StandInEntity("b", StandInMesh("b", box(1, 1, 1)), (0, 0, 0), (1, 0, 0, 1))
    (g,) = gather([e], MeshKeys(), colour_of=lambda ent: (0.0, 0.0, 1.0, 0.5)).values()
    assert g.instance_data()[0, 16:].tolist() == [0.0, 0.0, 1.0, 0.5]


def test_bounding_sphere_holds_every_vertex():
    centre, radius = bounding_sphere(StandInMesh("b", box(1.0, 2.0, 2.0)))
    assert np.allclose(centre, 0.0) and radius == pytest.approx(3.0)
