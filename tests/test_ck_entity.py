"""CK3dEntity, groups, attributes and the context's object lookup (glue-and-content 4)."""

import math

import numpy as np
import pytest

from bbglue import CKContext, VxMatrix, meshes
from ivp.limits import MAX_POSITION

S2 = math.sqrt(0.5)


@pytest.fixture
def ctx():
    return CKContext()


def close(a, b, tol=1e-6):
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), atol=tol)


def test_vxmatrix_is_row_vector_with_translation_in_row_3(ctx):
    e = ctx.create_entity("e", position=(1.0, 2.0, 3.0))
    m = e.get_world_matrix()
    assert isinstance(m, VxMatrix)
    a = m.as_array()
    assert a.dtype == np.float32 and a.shape == (4, 4)
    assert a[3].tolist() == [1.0, 2.0, 3.0, 1.0]
    # a local point (1, 0, 0) goes to (2, 2, 3): row vector times the matrix
    assert close(np.array([1, 0, 0, 1]) @ a, [2, 2, 3, 1])


def test_rotate_quarter_turn_about_y(ctx):
    e = ctx.create_entity("e")
    e.rotate((0, 1, 0), math.pi / 2)
    d, up, right = e.get_orientation()
    # right-hand rule about +Y: x -> -z, z -> +x
    assert close(right, (0, 0, -1)) and close(d, (1, 0, 0)) and close(up, (0, 1, 0))
    assert close(e.get_quaternion(), (0, S2, 0, S2))


def test_quaternion_round_trip_keeps_scale_and_position(ctx):
    e = ctx.create_entity("e", position=(4, 5, 6), scale=(2, 2, 2))
    e.set_quaternion((0, 0, S2, S2))
    assert close(e.get_scale(), (2, 2, 2)) and close(e.get_position(), (4, 5, 6))
    assert close(e.get_quaternion(), (0, 0, S2, S2))
    assert close(e.transform_vector((1, 0, 0)), (0, 2, 0))   # z quarter turn, scale 2


def test_child_world_is_parent_world_composed_with_local(ctx):
    p = ctx.create_entity("p", position=(10, 0, 0))
    p.rotate((0, 1, 0), math.pi / 2)
    c = ctx.create_entity("c", parent=p, position=(10, 0, 1))   # world position given
    assert c.parent is p and p.children == [c]
    assert close(c.get_position(ref=p), (-1, 0, 0))              # world +1 z is parent's -x
    p.translate((0, 5, 0))
    assert close(c.get_position(), (10, 5, 1))
    expected = c.get_local_matrix().as_array().astype(float) @ p.get_world_matrix().as_array().astype(float)
    assert close(c.get_world_matrix().as_array(), expected)


def test_transform_and_inverse_with_a_referential(ctx):
    a = ctx.create_entity("a", position=(1, 0, 0))
    b = ctx.create_entity("b", position=(0, 0, 5))
    b.rotate((0, 1, 0), math.pi)
    assert close(a.transform((0, 1, 0)), (1, 1, 0))
    # a's (0,1,0) is world (1,1,0); in b (turned half about y, at z 5): (-1, 1, 5)
    assert close(a.transform((0, 1, 0), ref=b), (-1, 1, 5))
    assert close(a.inverse_transform((-1, 1, 5), ref=b), (0, 1, 0))
    assert close(b.transform_vector((0, 0, 1)), (0, 0, -1))
    assert close(b.inverse_transform_vector((0, 0, -1)), (0, 0, 1))


def test_set_position_and_translate_in_a_referential(ctx):
    r = ctx.create_entity("r", position=(0, 10, 0))
    r.rotate((0, 1, 0), math.pi / 2)
    e = ctx.create_entity("e")
    e.set_position((0, 0, 1), ref=r)                 # r's +z is world +x
    assert close(e.get_position(), (1, 10, 0))
    e.translate((0, 0, 2), ref=r)
    assert close(e.get_position(), (3, 10, 0))


def test_look_at_points_z_at_the_target(ctx):
    e = ctx.create_entity("e", position=(0, 0, 0))
    e.look_at((3, 0, 4))
    d, up, right = e.get_orientation()
    assert close(d, (0.6, 0, 0.8)) and close(up, (0, 1, 0))
    assert close(right, np.cross(up, d))


def test_world_bounding_box_of_a_turned_box(ctx):
    e = ctx.create_entity("e", mesh=meshes.box(2, 2, 4), position=(0, 1, 0))
    e.rotate((0, 1, 0), math.pi / 2)
    lo, hi = e.get_bounding_box()
    assert close(lo, (-2, 0, -1)) and close(hi, (2, 2, 1))
    assert e.get_bounding_box(local=True) == ((-1, -1, -2), (1, 1, 2))


def test_show_hide_and_colour_default(ctx):
    e = ctx.create_entity("e")
    assert e.visible and e.color == (0.8, 0.8, 0.8, 1.0)
    e.hide()
    assert not e.is_visible()
    e.show()
    assert e.visible


def test_get_unknown_name_suggests_the_close_one(ctx):
    ctx.create_entity("Ball_Wood")
    with pytest.raises(KeyError, match="did you mean 'Ball_Wood'"):
        ctx.get("Ball_Wod")


def test_entities_in_creation_order_and_unique_names(ctx):
    names = ["z", "a", "m"]
    for n in names:
        ctx.create_entity(n)
    assert [e.name for e in ctx.entities] == names
    with pytest.raises(ValueError, match="already exists"):
        ctx.create_entity("a")


def test_groups_and_attributes(ctx):
    a, b = ctx.create_entity("a"), ctx.create_entity("b")
    g = ctx.create_group("Phys_Floors")
    g.add(a)
    g.add(a)
    assert ctx.get_group("Phys_Floors").entities == [a] and b not in g
    b.set_attribute("Coll Detection ID", 3)
    assert b.has_attribute("Coll Detection ID") and b.get_attribute("Coll Detection ID") == 3
    assert not a.has_attribute("Coll Detection ID")
    with pytest.raises(KeyError, match="no attribute"):
        a.get_attribute("Coll Detection ID")
    assert ctx.entities_with_attribute("Coll Detection ID") == [b]
    ctx.destroy_entity(a)
    assert a not in g and ctx.entities == [b]


@pytest.mark.parametrize("call, exc", [
    (lambda e: e.set_position((0, float("nan"), 0)), ValueError),
    (lambda e: e.set_position((0.0, float("nan"), 0.0)), ValueError),        # a tuple of floats: the quick check
    (lambda e: e.set_position((0.0, 0.0, float("-inf"))), ValueError),
    (lambda e: e.set_position((2.0 * MAX_POSITION, 0.0, 0.0)), ValueError),
    (lambda e: e.translate((0.0, 0.0)), TypeError),
    (lambda e: e.transform((0.0, 0.0, True)), TypeError),
    (lambda e: e.set_position((0, 0)), TypeError),
    (lambda e: e.get_position(ref="world"), TypeError),
    (lambda e: e.rotate((0, 0, 0), 1.0), ValueError),
    (lambda e: e.set_parent(e), ValueError),
])
def test_bad_input_names_the_entity_and_changes_nothing(ctx, call, exc):
    e = ctx.create_entity("victim", position=(1, 2, 3))
    before = e.get_world_matrix()
    with pytest.raises(exc, match="victim"):
        call(e)
    assert e.get_world_matrix() == before


def test_the_rotation_of_a_zero_scale_matrix_is_an_error_naming_the_entity(ctx):
    e = ctx.create_entity("flat")
    m = np.identity(4)
    m[0, 0] = 0.0                       # set_scale refuses this; a raw matrix does not
    e.set_world_matrix(m)
    with pytest.raises(ValueError, match="entity 'flat': get_quaternion: the matrix has a zero scale"):
        e.get_quaternion()


# --- deep hierarchies (issue 41 item 3) ---------------------------------------------------

def test_a_chain_of_3000_keeps_each_world_matrix_until_something_above_moves(ctx):
    """Each entity keeps its world matrix: a chain of n is made in n steps.
    The kept matrices follow every change above them."""
    n = 3000
    chain = [ctx.create_entity("c0", position=(0.0, 1.0, 0.0))]
    for i in range(1, n):
        chain.append(ctx.create_entity(f"c{i}", parent=chain[-1]))
        chain[-1].set_position((0.0, 1.0, 0.0), ref=chain[-2])        # 1 m above its parent
    assert close(chain[-1].get_position(), (0.0, float(n), 0.0))
    assert all(e._world_kept is not None for e in chain)            # a later query walks nothing
    chain[0].set_position((5.0, 1.0, 0.0))                            # the root moves: everything below follows
    assert chain[-1]._world_kept is None
    assert close(chain[-1].get_position(), (5.0, float(n), 0.0))
    chain[1000].set_parent(None)                                      # cut: the lower part keeps its world pose
    chain[0].set_position((0.0, 1.0, 0.0))
    assert close(chain[-1].get_position(), (5.0, float(n), 0.0))
    assert close(chain[999].get_position(), (0.0, 1000.0, 0.0))


def test_a_kept_world_matrix_is_the_product_of_the_local_ones(ctx):
    a = ctx.create_entity("a", position=(1.0, 2.0, 3.0), scale=(2.0, 1.0, 1.0))
    a.rotate((0.0, 1.0, 0.0), 0.3)
    b = ctx.create_entity("b", parent=a, position=(0.0, 0.0, 4.0))
    b.rotate((1.0, 0.0, 0.0), -0.7)
    c = ctx.create_entity("c", parent=b, position=(1.0, 1.0, 1.0))
    expected = c.get_local_matrix().as_array() @ b.get_local_matrix().as_array() @ a.get_local_matrix().as_array()
    assert np.allclose(c.get_world_matrix().as_array(), expected, rtol=0.0, atol=1e-6)
    with pytest.raises(ValueError, match="its own descendant"):
        a.set_parent(c)
    with pytest.raises(ValueError, match="its own descendant"):
        c.set_parent(c)


# --- the frame's positional calls (issue 44) ---------------------------------------------------

def test_positions_come_back_as_the_f32_the_matrix_stores(ctx):
    e = ctx.create_entity("e", position=(0.1, -2.7, 1e5 + 0.3))
    assert e.get_position() == tuple(float(np.float32(x)) for x in (0.1, -2.7, 1e5 + 0.3))
    assert all(type(x) is float for x in e.get_position())
    assert e.transform((1.0, 0.0, 0.0)) == (float(np.float32(0.1)) + 1.0, float(np.float32(-2.7)),
                                            float(np.float32(1e5 + 0.3)))
    assert e.transform_vector((0.0, 2.0, 0.0)) == (0.0, 2.0, 0.0)


def test_the_world_scale_is_each_axis_length(ctx):
    parent = ctx.create_entity("p", scale=(2.0, 3.0, 4.0))
    child = ctx.create_entity("c", parent=parent)
    child.set_scale((0.5, 0.5, 0.5))                       # local axes of 0.5 under the parent's 2, 3, 4
    assert child.get_scale(local=False) == pytest.approx((1.0, 1.5, 2.0))
    child.rotate((0.0, 1.0, 0.0), math.pi / 3)             # a turn in world axes keeps their lengths
    assert child.get_scale(local=False) == pytest.approx((1.0, 1.5, 2.0))


def test_the_world_token_changes_when_the_matrix_above_does(ctx):
    parent = ctx.create_entity("p")
    child = ctx.create_entity("c", parent=parent, position=(1.0, 0.0, 0.0))
    token = child.world_token()
    child.get_position()
    assert child.world_token() is token                     # reading keeps it
    parent.set_position((0.0, 5.0, 0.0))
    assert child.world_token() is not token
    assert child.get_position() == (1.0, 5.0, 0.0)


def test_a_parentless_entitys_move_and_turn_store_f32_in_a_new_matrix(ctx):
    """The parentless short cut of set_position / set_orientation: the values
    rounded to f32, the axes times the kept scale, the rest of the matrix as
    it was, and a new matrix (a kept box keyed by the token sees the move)."""
    e = ctx.create_entity("e", position=(1.0, 2.0, 3.0), scale=(2.0, 0.5, 4.0))
    token = e.world_token()
    e.set_position((0.1, -2.7, 1e5 + 0.3))
    m = e.get_world_matrix().as_array()
    assert m[3].tolist() == [float(np.float32(x)) for x in (0.1, -2.7, 1e5 + 0.3)] + [1.0]
    assert e.world_token() is not token and token[3, :3].tolist() == [1.0, 2.0, 3.0]
    token = e.world_token()
    e.set_orientation((1.0, 0.0, 1.0), (0.0, 1.0, 0.0))     # Z along (1, 0, 1) / sqrt 2, X = up x Z
    m = e.get_world_matrix().as_array()
    assert m[0, :3].tolist() == [float(np.float32(2.0 * S2)), 0.0, float(np.float32(-2.0 * S2))]
    assert m[1, :3].tolist() == [0.0, 0.5, 0.0]
    assert m[2, :3].tolist() == [float(np.float32(4.0 * S2)), 0.0, float(np.float32(4.0 * S2))]
    assert m[3].tolist() == [float(np.float32(x)) for x in (0.1, -2.7, 1e5 + 0.3)] + [1.0]
    assert e.world_token() is not token


def test_the_world_axes_are_the_unit_axes_transformed(ctx):
    parent = ctx.create_entity("p", scale=(2.0, 3.0, 4.0))
    e = ctx.create_entity("e", parent=parent, position=(5.0, 6.0, 7.0))
    e.set_scale((1.0, 1.0, 1.0))                           # local: the parent's 2, 3, 4 in world axes
    e.rotate((0.0, 1.0, 0.0), math.pi / 2)                 # X to world -Z, Z to world X (CK's left-handed turn)
    axes = e.world_axes()
    assert axes == tuple(e.transform_vector(u) for u in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)))
    assert close(axes, [(0.0, 0.0, -2.0), (0.0, 3.0, 0.0), (4.0, 0.0, 0.0)])
