"""The camera rig from the game's Camera.nmo (issue 40; docs/levels.md): its
entities imported at their authored matrices, read by ballance.camera, and
stamped onto the reset point at the level's start and at every respawn, on
level and camera files the tests write."""

import pytest

import scenes
from behaviors.ballance import camera_of, player_of
from behaviors.ballance.sectors import level_of
from scenes.virtools import reader as r
from virtools_levels import LevelBuilder, played_at_once, translation, two_sector_level

FRAME_MS = 1000.0 / 60.0
# The original's turning frame: rows X = (0, 0, 1), Y = (0, 1, 0), Z = (-1, 0, 0) (its Z along the root's -X).
ORIGINAL = (0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0)


def camera_file(orient_rows, eye_position) -> bytes:
    """Camera.nmo as the game has it: the root Cam_MF at the origin, the
    turning frame Cam_Orient (and Cam_Target, Cam_OrientRef) turned by
    ``orient_rows``, the eye's slot Cam_Pos at ``eye_position``, all hidden."""
    b = LevelBuilder()
    root = b.entity("Cam_MF", None, translation(0, 0, 0), hidden=True, class_id=r.CK_3DENTITY)
    target = b.entity("Cam_Target", None, orient_rows + (0.0, 0.0, 0.0), hidden=True, parent=root,
                      class_id=r.CK_3DENTITY)
    orient = b.entity("Cam_Orient", None, orient_rows + (0.0, 0.0, 0.0), hidden=True, parent=target,
                      class_id=r.CK_3DENTITY)
    b.entity("Cam_OrientRef", None, orient_rows + (0.0, 0.0, 0.0), hidden=True, parent=target,
             class_id=r.CK_3DENTITY)
    b.entity("Cam_Pos", None, orient_rows + tuple(float(x) for x in eye_position), hidden=True, parent=orient,
             class_id=r.CK_3DENTITY)
    return b.data(compressed=True)


def game(tmp_path, camera: bytes | None):
    """A game folder with the two-sector level (PR_Resetpoint_01 at (0, 3.65, 0),
    rows X = (0, 0, -1), Y = (0, 1, 0), Z = (1, 0, 0): its -X axis along +Z)
    and, when given, Camera.nmo."""
    level = tmp_path / "3D Entities" / "Level"
    level.mkdir(parents=True)
    (level / "Level_01.NMO").write_bytes(two_sector_level().data())
    if camera is not None:
        (tmp_path / "3D Entities" / "Camera.nmo").write_bytes(camera)
    return str(level / "Level_01.NMO")


def run(scene, frames, keys=frozenset()):
    for _ in range(frames):
        scene.ctx.input_manager.set_keys(keys)
        scene.ctx.process_frame(FRAME_MS)


def test_the_originals_rig_is_read_from_camera_nmo(tmp_path):
    """Cam_Pos at world (22, 35, 0) in a frame whose rows are X = (0, 0, 1),
    Z = (-1, 0, 0): in that frame x = 0, y = 35, z = (22, 35, 0) . (-1, 0, 0)
    = -22, the slot 35 up and 22 behind; the turning frame's Z is the root's
    -X. Stamped on PR_Resetpoint_01 the heading is its -X axis, +Z: yaw 0."""
    scene = played_at_once(scenes.load(game(tmp_path, camera_file(ORIGINAL, (22.0, 35.0, 0.0)))))
    cam = camera_of(scene.ctx)
    assert cam.heading_in_root == pytest.approx((-1.0, 0.0, 0.0), abs=1e-12)
    assert cam.eye_slot == pytest.approx((0.0, 35.0, -22.0), abs=1e-12)
    assert ("camera rig", "Cam_MF", (0.0, 0.0, 0.0)) in scene.level.places
    assert not scene.entity("Cam_Pos").is_visible()
    run(scene, 1)
    assert cam.yaw == pytest.approx(0.0, abs=1e-9)


def test_another_rig_in_camera_nmo_is_stamped_onto_the_reset_point_at_start_and_respawn(tmp_path):
    """A rig whose turning frame is the root's own (Z = +Z) and whose eye is
    at (0, 30, -20): stamped on PR_Resetpoint_01 (rows Z = (1, 0, 0)) the
    frame's Z is (0, 0, 1) . R = (1, 0, 0), yaw 90, and the slot turned by it
    is (0 cos 90 + -20 sin 90, 30, -0 sin 90 + -20 cos 90) = (-20, 30, 0): the
    eye starts at the reset point plus that. At rest the eye spring's goal is
    the ball plus the slot. A quarter turn is undone by the respawn."""
    identity = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    scene = played_at_once(scenes.load(game(tmp_path, camera_file(identity, (0.0, 30.0, -20.0)))))
    cam = camera_of(scene.ctx)
    run(scene, 1)
    assert cam.yaw == pytest.approx(90.0, abs=1e-9)
    # the eye at the reset point (0, 3.65, 0) plus the slot turned by the reset frame
    assert scene.entity("Cam_Pos").get_position() == pytest.approx((-20.0, 33.65, 0.0), abs=1e-5)
    assert scene.entity("Cam_OrientRef").get_orientation()[0] == pytest.approx((1.0, 0.0, 0.0), abs=1e-9)
    run(scene, 600)                                             # the ball settles on the floor, the eye behind it
    ball = player_of(scene.ctx).ball.get_position()
    assert scene.entity("Cam_Pos").get_position() == pytest.approx((ball[0] - 20.0, ball[1] + 30.0, ball[2]),
                                                                   abs=1e-3)
    run(scene, 1, frozenset({"LShift", "Left"}))
    run(scene, 20)
    assert cam.yaw == pytest.approx(0.0, abs=1e-9)              # a quarter turn left
    level_of(scene.ctx).die()
    run(scene, 200)                                             # hidden at 1 s, a new ball then
    assert cam.yaw == pytest.approx(90.0, abs=1e-9)
    assert cam.slot() == pytest.approx((-20.0, 30.0, 0.0), abs=1e-9)


def test_without_camera_nmo_the_rig_is_the_stated_one(tmp_path):
    scene = played_at_once(scenes.load(game(tmp_path, None)))
    cam = camera_of(scene.ctx)
    assert (cam.heading_in_root, cam.eye_slot) == ((-1.0, 0.0, 0.0), (0.0, 35.0, -22.0))
    assert "skipped the camera rig: no 3D Entities/Camera.nmo" in scene.level.text()
    run(scene, 1)
    assert cam.yaw == pytest.approx(0.0, abs=1e-9)              # PR_Resetpoint_01's -X axis: +Z
