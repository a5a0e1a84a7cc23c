"""bbglue/meshes.py: primitive builders and the OBJ loader."""

import math

import numpy as np
import pytest

from bbglue import Mesh, meshes


def _outward(mesh):
    v = mesh.vertices.astype(np.float64)
    t = v[mesh.faces]
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    c = t.mean(axis=1) - v.mean(axis=0)
    return bool(np.all(np.einsum("ij,ij->i", n, c) > 0.0))


def _volume(mesh):
    """Divergence theorem: sum of signed tetrahedra from the origin."""
    t = mesh.vertices.astype(np.float64)[mesh.faces]
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)


@pytest.mark.parametrize("mesh, volume", [
    (meshes.box(1.0, 2.0, 3.0), 6.0),
    (meshes.wedge(2.0, 1.0, 4.0), 0.5 * 2.0 * 1.0 * 4.0),
    # octagon of circumradius r: area 2 sqrt(2) r^2
    (meshes.octagonal_rail(0.35, 4.0), 2.0 * math.sqrt(2.0) * 0.35 ** 2 * 4.0),
    # regular n-gon prism: n/2 r^2 sin(2 pi/n) h
    (meshes.cylinder(1.0, 2.0, 8), 4.0 * math.sin(math.pi / 4.0) * 2.0),
])
def test_closed_solids_are_outward_with_their_volume(mesh, volume):
    assert _outward(mesh)
    assert _volume(mesh) == pytest.approx(volume, rel=1e-6)


def test_box_is_centred_with_8_vertices_and_12_triangles():
    m = meshes.box(5, 5, 5)
    assert m.vertices.shape == (8, 3) and m.faces.shape == (12, 3)
    assert m.vertices.dtype == np.float32 and m.faces.dtype == np.int32
    assert m.bounding_box() == ((-2.5, -2.5, -2.5), (2.5, 2.5, 2.5))


def test_sphere_vertices_lie_on_the_radius_and_faces_point_out():
    m = meshes.sphere(2.0, 12)
    r = np.linalg.norm(m.vertices.astype(np.float64), axis=1)
    assert np.allclose(r, 2.0, atol=1e-6)
    assert _outward(m)
    # 12 segments, 6 rings: 2 poles + 5 rings of 12 vertices; 12*2 cap + 4*12*2 band triangles
    assert len(m.vertices) == 2 + 5 * 12 and len(m.faces) == 24 + 96


def test_rail_cross_section_is_an_octagon_along_z():
    m = meshes.octagonal_rail(0.35, 10.0)
    v = m.vertices.astype(np.float64)
    assert np.allclose(np.hypot(v[:, 0], v[:, 1]), 0.35, atol=1e-6)
    assert sorted(set(np.round(v[:, 2], 6))) == [-5.0, 5.0]
    # a flat top face: the two highest vertices share y = r cos(22.5 deg)
    top = np.sort(v[:, 1])[-4:]
    assert np.allclose(top, 0.35 * math.cos(math.pi / 8.0), atol=1e-6)


def test_wedge_rises_toward_plus_z():
    m = meshes.wedge(2.0, 1.0, 4.0)
    v = m.vertices.astype(np.float64)
    assert v[:, 1].max() == 0.5 and set(v[v[:, 1] == 0.5][:, 2]) == {2.0}


def test_tessellated_plane_counts_and_faces_up():
    m = meshes.tessellated_plane(10.0, 6.0, 5, 3)
    assert len(m.vertices) == 6 * 4 and len(m.faces) == 2 * 5 * 3
    t = m.vertices.astype(np.float64)[m.faces]
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    assert np.all(n[:, 1] > 0) and np.allclose(n[:, [0, 2]], 0.0)
    # total area 60: each |n| is twice a triangle's area
    assert np.linalg.norm(n, axis=1).sum() / 2.0 == pytest.approx(60.0)


def test_names_encode_parameters_so_the_surface_cache_cannot_mix_them():
    assert meshes.box(1, 2, 3).name != meshes.box(1, 2, 4).name
    assert meshes.box(1, 2, 3, name="crate").name == "crate"


@pytest.mark.parametrize("call", [
    lambda: meshes.box(0, 1, 1), lambda: meshes.sphere(-1), lambda: meshes.cylinder(1, float("nan")),
    lambda: meshes.sphere(1, 2), lambda: meshes.tessellated_plane(1, 1, 0, 1),
])
def test_builders_reject_bad_sizes(call):
    with pytest.raises(ValueError, match="meshes\\."):
        call()


def test_mesh_rejects_out_of_range_faces_and_nan():
    with pytest.raises(ValueError, match="'m'.*does not exist"):
        Mesh("m", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 3)])
    with pytest.raises(ValueError, match="NaN"):
        Mesh("m", [(0, 0, float("nan"))], np.zeros((0, 3), dtype=int))


def test_load_obj_fan_triangulates_polygons_and_accepts_slashes(tmp_path):
    p = tmp_path / "quad.obj"
    p.write_text("# a quad and a triangle\no thing\nv 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\n"
                 "vn 0 1 0\nf 1//1 4//1 3//1 2//1\nf -4/1/1 -2/1/1 -3/1/1\n")
    m = meshes.load_obj(p)
    assert m.name == "quad"
    assert m.faces.tolist() == [[0, 3, 2], [0, 2, 1], [0, 2, 1]]


@pytest.mark.parametrize("text, line, msg", [
    ("v 0 0 0\nv 1 0\n", 2, "3 coordinates"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 5\n", 4, "refers to no vertex"),
    ("v 0 0 0\nv 1 0 0\nf 1 2\n", 3, "at least 3"),
    ("v 0 0 x\n", 1, "not numbers"),
])
def test_load_obj_errors_name_file_and_line(tmp_path, text, line, msg):
    p = tmp_path / "bad.obj"
    p.write_text(text)
    with pytest.raises(ValueError, match=f"bad.obj:{line}: .*{msg}"):
        meshes.load_obj(p)


def test_load_obj_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        meshes.load_obj(tmp_path / "nope.obj")


def test_the_bounding_box_is_kept_but_not_part_of_a_snapshot():
    import pickle

    from ivp.snapshot import deep_copy, state_hash
    m = meshes.box(2.0, 4.0, 6.0)
    before = state_hash(m)
    assert m.bounding_box() == ((-1.0, -2.0, -3.0), (1.0, 2.0, 3.0))
    assert m.bounding_box() is m.bounding_box()                 # made once
    assert state_hash(m) == before                              # the hash does not see who asked
    for copy in (deep_copy(m), pickle.loads(pickle.dumps(m))):
        assert copy.bounding_box() == ((-1.0, -2.0, -3.0), (1.0, 2.0, 3.0))
        assert np.array_equal(copy.vertices, m.vertices)
