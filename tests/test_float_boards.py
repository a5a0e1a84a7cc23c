"""The float board (module 41; glue-and-content 3, "PH modules"): its mass
centre as the original prefab P_Modul_41.nmo sets it ("Automatic Calculate
Mass Center" off, "Shift Mass Center" (0, 0, 0)): the board's own frame,
which the prefab puts 0.593 under the hinge frame (the board's frame at y
-1.351 under the root, the hinge frame at -0.758). Its hulls' centre lies
higher, 0.09 under the hinge: a board balanced so tips under a ball where
the original's keel rights it. The test's prefab has the original's
layout: a board 5 x 1.71 x 10 reaching from 0.36 under its frame to 1.35
over it, a keel 0.9 wide from 0.18 to 1.01 over it."""

import numpy as np
import pytest

import scenes
from bbglue import meshes
from scenes.virtools import game_level, reader as r
from virtools_levels import LevelBuilder, game_folder, played_at_once, translation, two_sector_level

BOARD_Y, HINGE_Y = -1.351, -0.758          # under the prefab's root (P_Modul_41.nmo)
PLACE = (100.0, 10.0, 0.0)


def _slab(name: str, x: float, y0: float, y1: float, z: float) -> meshes.Mesh:
    """A box 2x wide, 2z deep, from y0 to y1 in its own frame."""
    box = meshes.box(2.0 * x, y1 - y0, 2.0 * z, name)
    v = np.asarray(box.vertices, float) + (0.0, (y0 + y1) / 2.0, 0.0)
    return meshes.Mesh(name, [tuple(p) for p in v], box.faces)


def float_board_prefab() -> bytes:
    """P_Modul_41 with the original's part names and layout."""
    b = LevelBuilder()
    b.entity("P_Modul_41_MF", None, translation(0, 0, 0), class_id=r.CK_3DENTITY)
    mat = b.material("Wood", 0xFF996633)
    board = b.mesh("P_Modul_41_Mesh", _slab("P_Modul_41_Mesh", 2.5, -0.36, 1.35, 5.0), mat)
    b.entity("P_Modul_41", board, translation(0, BOARD_Y, 0))
    b.entity("P_Modul_41_HingeFrame", None, translation(0, HINGE_Y, 0), class_id=r.CK_3DENTITY)
    b.mesh("P_Modul_41_Col1_Mesh", _slab("P_Modul_41_Col1_Mesh", 2.5, -0.36, 1.35, 5.0), mat)
    b.mesh("P_Modul_41_Col2_Mesh", _slab("P_Modul_41_Col2_Mesh", 0.45, 0.18, 1.01, 5.0), mat)
    return b.data(compressed=True)


@pytest.fixture
def board(tmp_path):
    """The written two-sector level with one float board placed at PLACE:
    (the board's entity, the level's context)."""
    b = two_sector_level()
    p = b.entity("P_Modul_41_02", None, translation(*PLACE))
    next(o for o in b.objects if isinstance(o, r.Group) and o.name == "P_Modul_41").members.append(p)
    next(o for o in b.objects if o.name == "Sector_01").members.append(p)
    game_folder(tmp_path, b.data(), {"P_Modul_41": float_board_prefab()})
    scene = played_at_once(scenes.load(game_level(str(tmp_path), 1)))
    return scene.ctx.get("P_Modul_41_02.P_Modul_41"), scene.ctx


def test_the_float_board_weighs_at_its_frame_under_its_hinge(board):
    """The body's mass centre is the board's frame: PLACE + (0, BOARD_Y, 0),
    0.593 under the hinge (its hulls' centre would be 0.59 higher)."""
    entity, ctx = board
    centre = np.asarray(ctx.physics.body_of(entity).core.m_world_f_core_last_psi[1], float)
    assert centre == pytest.approx(np.add(PLACE, (0.0, BOARD_Y, 0.0)), abs=1e-4)
    assert PLACE[1] + HINGE_Y - centre[1] == pytest.approx(0.593, abs=1e-3)
