"""Flames and blob shadows (issue 42; viewer/particles.py, behaviors.hooks
emitters / blob_shadows): the flames' emitters are the frames of the game's
flame prefabs, lit by the level's state; the viewer's particles rise from
them, the same every run; the ball's shadow darkens the Shadow floor under
it. Level and prefab files written by the tests."""

import struct

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

import scenes
from behaviors import hooks
from behaviors.api import Emitter
from behaviors.ballance.sectors import level_of
from scenes.virtools import reader as r
from viewer.cli import main
from scenes.virtools.particles import BLOCK, CK_BEHAVIOR, ParticleLook
from viewer.particles import FLAME, Flames
from virtools_levels import LevelBuilder, translation, two_sector_level


def flames_prefab(kind: str, frames: dict, systems: dict | None = None) -> bytes:
    """PH/<kind>.nmo: its root <kind>_MF at the origin and the frames at their
    offsets; ``systems``: script name -> {parameter name: float or 4 floats}, a
    Point Particle System's settings stored as the game's prefabs store them
    (the parameters, the block, then its script)."""
    b = LevelBuilder()
    root = b.entity(f"{kind}_MF", None, translation(0, 0, 0), hidden=True, class_id=r.CK_3DENTITY)
    for name, (x, y, z) in frames.items():
        b.entity(name, None, translation(x, y, z), parent=root, class_id=r.CK_3DENTITY)
    for script, params in (systems or {}).items():
        for name, v in params.items():
            raw = struct.pack("<4f", *v) if isinstance(v, tuple) else struct.pack("<f", v)
            b.add(r.Parameter, r.CK_PARAMETER_LOCAL, name, type_guid=(1, 2), kind=1, value=raw)
        b.add(r.CKObject, CK_BEHAVIOR, BLOCK)
        b.add(r.CKObject, CK_BEHAVIOR, script)
    return b.data(compressed=True)


RED = {"Lifespan": 800.0, "Lifespan Variance": 0.0, "Speed": 0.004, "Initial Color and Alpha": (1.0, 0.0, 0.0, 1.0),
       "Variance": (0.0, 0.0, 0.0, 0.0), "Ending Color and Alpha": (1.0, 0.0, 0.0, 0.0)}


@pytest.fixture
def level(tmp_path):
    """The two-sector level (start at the origin, checkpoint 1 at z = 30) with
    the flame prefabs: four small flames 7 off the start's centre, 2 up; the
    checkpoint's big flame 1.495 up and two small ones 7 to its sides."""
    d = tmp_path / "3D Entities" / "Level"
    d.mkdir(parents=True)
    (d / "Level_01.NMO").write_bytes(two_sector_level().data())
    ph = tmp_path / "3D Entities" / "PH"
    ph.mkdir()
    (ph / "PS_FourFlames.nmo").write_bytes(flames_prefab("PS_FourFlames", {
        f"PS_FourFlames_Flame_{x}": (sx * 7, 2, sz * 6) for x, sx, sz in (("A", 1, 1), ("B", -1, 1),
                                                                          ("C", -1, -1), ("D", 1, -1))}))
    (ph / "PC_TwoFlames.nmo").write_bytes(flames_prefab("PC_TwoFlames", {
        "PC_TwoFlames_Flame_Big": (0, 1.495, 0), "PC_TwoFlames_Flame_SmallA": (0, 2, -7),
        "PC_TwoFlames_Flame_SmallB": (0, 2, 7)}))
    return str(d / "Level_01.NMO")


def test_the_start_and_the_next_checkpoint_burn(level):
    scene = scenes.load(level)
    scene.ctx.process_frame(1000 / 60)
    lit = {e.name: (e.position, e.size) for e in hooks.emitters(scene.ctx) if e.kind == "flame"}
    assert lit["PS_FourFlames_01.PS_FourFlames_Flame_A"] == (pytest.approx((7.0, 2.1, 6.0)), 1.0)   # plate 0.1 up
    assert lit["PC_TwoFlames_01.PC_TwoFlames_Flame_Big"] == (pytest.approx((0.0, 1.595, 30.0)), 2.0)
    assert len(lit) == 5                                   # the armed checkpoint: its big flame only
    level_of(scene.ctx).sector = 2                         # checkpoint 1 crossed: it burns no more
    assert {e.name for e in hooks.emitters(scene.ctx) if e.kind == "flame"} == {f"PS_FourFlames_01.PS_FourFlames_Flame_{x}"
                                                           for x in "ABCD"}


def test_flames_rise_from_their_emitter_the_same_every_run():
    e = Emitter("torch", "flame", (1.0, 2.0, 3.0))
    a, b = Flames(), Flames()
    for f in (a, b):
        f.update(10.0, [e])
        f.update(10.5, [e])
    (blend, (pos, size, colour)), = a.sprites().items()
    assert blend == (5, 2)                                  # source alpha, one: added
    assert all(np.array_equal(x, y) for x, y in zip(a.sprites()[blend], b.sprites()[blend]))
    # 1 +- 1 particles per 20 ms (1 on average), living 1 +- 0.25 s, at most 50 alive.
    assert 35 <= len(pos) <= 50
    top = (FLAME.speed[0] + FLAME.speed[1]) * 1000.0 * (FLAME.lifespan[0] + FLAME.lifespan[1]) * 0.001
    assert (pos[:, 1] >= 2.0).all() and (pos[:, 1] <= 2.0 + top).all()
    assert (size <= 0.5 * (FLAME.initial_size[0] + FLAME.initial_size[1])).all() and (colour[:, 3] <= 1.0).all()
    a.update(10.5 + 1.3, [])                                # put out: its particles burn out, then it is gone
    assert a.systems == {}


def test_a_particle_lives_grows_and_fades_as_its_settings_say():
    """One emitter with no variance: a particle born at 0 is, at 0.4 s of its
    0.8 s, 0.004 x 1000 x 0.4 = 1.6 above it, halfway from size 3 to 1 (half
    size 1) and from colour (1, 0.5, 0, 1) to (0, 0.5, 1, 0)."""
    look = ParticleLook(emission=(1, 0), lifespan=(800.0, 0.0), speed=(0.004, 0.0), initial_size=(3.0, 0.0),
                        ending_size=(1.0, 0.0), initial_colour=(1.0, 0.5, 0.0, 1.0), ending_colour=(0.0, 0.5, 1.0, 0.0))
    f = Flames({"torch": look})
    e = Emitter("torch", "flame", (0.0, 0.0, 0.0), size=5.0)   # the settings' size, not the emitter's scale
    f.update(0.0, [e])
    f.systems = {}
    f.update(0.4, [e])
    pos, half, colour = f.sprites()[(5, 2)]
    oldest = np.argmax(pos[:, 1])
    assert pos[oldest] == pytest.approx((0.0, 1.6, 0.0))
    assert half[oldest] == pytest.approx(1.0)
    assert colour[oldest] == pytest.approx((0.5, 0.5, 0.5, 0.5))


def test_the_prefabs_particle_settings_are_read(tmp_path):
    """The start's flame C takes the settings of "<kind>_Flame_C script"; the
    checkpoint's big flame those of the one script no frame name matches."""
    game = tmp_path
    d = game / "3D Entities" / "Level"
    d.mkdir(parents=True)
    (d / "Level_01.NMO").write_bytes(two_sector_level().data())
    ph = game / "3D Entities" / "PH"
    ph.mkdir()
    frames = {f"PS_FourFlames_Flame_{x}": (0, 2, 0) for x in "ABCD"}
    (ph / "PS_FourFlames.nmo").write_bytes(flames_prefab("PS_FourFlames", frames, {
        "PS_FourFlames_Flame_C  script": RED, "PS_FourFlames_Flame_A script": {"Initial Size": 4.0}}))
    (ph / "PC_TwoFlames.nmo").write_bytes(flames_prefab("PC_TwoFlames", {
        "PC_TwoFlames_Flame_Big": (0, 1.495, 0), "PC_TwoFlames_Flame_SmallA": (0, 2, -7)}, {
        "PC_TwoFlames_SmallFlameA script": {}, "PC_TwoFlames_CenterFlame script": {"Initial Size": 5.0}}))
    scene = scenes.load(str(d / "Level_01.NMO"))
    looks = scene.particles
    c = looks["PS_FourFlames_01.PS_FourFlames_Flame_C"]
    assert (c.lifespan, c.speed, c.initial_colour) == ((800.0, 0.0), pytest.approx((0.004, 0.003)),
                                                       (1.0, 0.0, 0.0, 1.0))
    assert c.ending_colour == (1.0, 0.0, 0.0, 0.0)
    assert looks["PS_FourFlames_01.PS_FourFlames_Flame_A"].initial_size == (4.0, 0.3)
    assert looks["PC_TwoFlames_01.PC_TwoFlames_Flame_Big"].initial_size == (5.0, 0.3)
    assert "PS_FourFlames_01.PS_FourFlames_Flame_B" not in looks
    assert "the particles of PS_FourFlames's PS_FourFlames_Flame_B" in scene.level.text()


def render(level, tmp_path, name, eye, look=("0", "0", "0"), at="1.0"):
    out = tmp_path / name
    assert main(["render", level, "--at", at, "--eye", *eye, "--look", *look,
                 "-o", str(out), "--size", "480x480", "--headless"]) == 0
    return np.asarray(Image.open(out).convert("RGB")).astype(float)


def test_the_flames_are_drawn(gl_window, level, tmp_path):  # noqa: F811
    """From 40 above the start (the floor at y = 0): the start's flames
    brighten the pixels over their emitters against the floor beside them.
    1 unit at the floor is 240 / (40 x tan(29 deg) x 3/4) = 14.4 pixels,
    world +X to the image's left."""
    img = render(level, tmp_path, "top.png", ("0", "40", "0.01"))
    scale = 240 / (40 * np.tan(np.radians(29)) * 3 / 4)

    def at(x, z):
        row, col = int(round(240 - z * scale)), int(round(240 - x * scale))
        return img[row - 1:row + 2, col - 1:col + 2].reshape(-1, 3).mean(axis=0)

    assert at(7.0, 6.0).sum() > 1.3 * at(3.5, 6.0).sum()   # over flame A, against the floor beside it


def test_the_balls_shadow_darkens_the_shadow_floor(gl_window, level, tmp_path):  # noqa: F811
    """The ball resting on the floor seen from ahead and above: with the floor
    in the Shadow group the pixels around the ball's foot are darker than in
    the same level whose group has another name (no shadow). At 5 s: the
    ball is played 4 s in (hidden during its birth)."""
    eye = ("0", "8", "-14")
    shaded = render(level, tmp_path, "shaded.png", eye, at="5.0")
    path = tmp_path / "3D Entities" / "Level" / "Level_01.NMO"
    b = two_sector_level()
    next(o for o in b.objects if isinstance(o, r.Group) and o.name == "Shadow").name = "NoShadow"
    path.write_bytes(b.data())
    plain = render(str(path), tmp_path, "plain.png", eye, at="5.0")
    darker = (plain - shaded).sum(axis=-1)
    assert (darker > 30).sum() > 100                         # a patch of the floor darkened
    assert (darker < -30).sum() < 10                         # and nothing brightened


def test_a_cropped_sprite_lies_where_its_part_of_the_whole_would():
    """The visible part of a sprite (its columns 2-5 of 8, rows 4-7) is drawn
    alone, where it lies in the whole quad: a corner at image point (u, v)
    sits at centre + half x ((2u - 1) right + (1 - 2v) up)."""
    from viewer.particles import flat_quads, sprite_crop
    alpha = np.zeros((8, 8))
    alpha[4:8, 2:6] = 1.0
    crop = sprite_crop(alpha)
    assert crop == (0.25, 0.75, 0.5, 1.0)
    quad = flat_quads(np.array([[10.0, 0.0, 20.0]]), np.array([2.0]), np.ones((1, 4)), crop)[0]
    # right = +X, up = +Z here: u 0.25 -> x 10 - 1, u 0.75 -> 10 + 1; v 1 -> z 20 - 2, v 0.5 -> z 20
    assert quad[:, [0, 2]].tolist() == [[9.0, 18.0], [11.0, 18.0], [11.0, 20.0], [9.0, 20.0]]
    assert quad[:, 3:5].tolist() == [[0.25, 1.0], [0.75, 1.0], [0.75, 0.5], [0.25, 0.5]]


def test_the_flames_take_the_colour_of_their_settings(gl_window, level, tmp_path):  # noqa: F811
    """The start's flames with the game's settings made red, then blue
    (initial colour (1, 0, 0, 0.2) or (0, 0, 1, 0.2) fading to nothing): added
    to the floor (seen from 40 above, as above), the red ones leave more red
    over flame A than the blue ones, these more blue, and both the same green."""
    ph = tmp_path / "3D Entities" / "PH"
    frames = {f"PS_FourFlames_Flame_{x}": (sx * 7, 2, sz * 6) for x, sx, sz in (("A", 1, 1), ("B", -1, 1),
                                                                              ("C", -1, -1), ("D", 1, -1))}
    scale = 240 / (40 * np.tan(np.radians(29)) * 3 / 4)
    row, col = int(round(240 - 6.0 * scale)), int(round(240 - 7.0 * scale))
    seen = []
    for rgb in ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)):
        settings = dict(RED, **{"Initial Color and Alpha": rgb + (0.2,), "Ending Color and Alpha": rgb + (0.0,)})
        (ph / "PS_FourFlames.nmo").write_bytes(flames_prefab("PS_FourFlames", frames, {
            f"PS_FourFlames_Flame_{x} script": settings for x in "ABCD"}))
        img = render(level, tmp_path, "flames.png", ("0", "40", "0.01"))
        seen.append(img[row - 1:row + 2, col - 1:col + 2].reshape(-1, 3).mean(axis=0))
    red, blue = seen
    assert red[0] - blue[0] > 20 and blue[2] - red[2] > 5 and abs(red[1] - blue[1]) < 1


def test_a_new_ball_is_born_in_a_sphere_for_3_s(level):
    """The rules: the start's new ball is born 1 s in; it has the gameplay
    field "birth" (its age) and a "birth" emitter at the reset point for 3 s
    (Balls.nmo's lightning sphere lives 3 s, New Ball waits 3 s), then
    neither. Frame 1 starts the clock."""
    scene = scenes.load(level)
    for _ in range(61):                                          # 1.000 s
        scene.ctx.process_frame(1000 / 60)
    assert hooks.hud_fields(scene.ctx)["birth"] is None
    scene.ctx.process_frame(1000 / 60)
    scene.ctx.process_frame(1000 / 60)                           # 1.033 s
    assert 0.0 < hooks.hud_fields(scene.ctx)["birth"] <= 2 / 60 + 1e-9
    (birth,) = [e for e in hooks.emitters(scene.ctx) if e.kind == "birth"]
    assert birth.position == pytest.approx(level_of(scene.ctx).reset_point(1).get_position(), abs=1e-6)
    for _ in range(180):                                         # 4.033 s
        scene.ctx.process_frame(1000 / 60)
    assert hooks.hud_fields(scene.ctx)["birth"] is None
    assert not [e for e in hooks.emitters(scene.ctx) if e.kind == "birth"]


def test_the_birth_sphere_grows_then_fades():
    """Radius BIRTH_RADIUS x age / 1.5 s up to 1.5 s; opacity 1 until 1.5 s,
    then down to 0 at 3 s: at 0.75 s radius 1.5, opacity 1; at 2.25 s radius
    3, opacity 0.5 (the viewer's sizes, docs/viewer.md "Effects")."""
    from viewer.particles import BIRTH_RADIUS, birth_sphere
    centre = np.array([1.0, 2.0, 3.0])
    for age, radius, alpha in ((0.75, 0.5 * BIRTH_RADIUS, 1.0), (2.25, BIRTH_RADIUS, 0.5)):
        quads = birth_sphere(centre, age)
        assert np.linalg.norm(quads[:, :, :3] - centre, axis=-1) == pytest.approx(radius, abs=1e-5)
        assert quads[:, :, 8] == pytest.approx(alpha)


def test_the_finish_draws_out_to_2500(gl_window, tmp_path):  # noqa: F811
    """A red wall 1800 ahead of a fixed eye: beyond the far plane of play
    (1200) the view is sky; once the level ends (its finish where the ball
    is played) the game sets the clipping to 3 / 2500 and the wall is drawn."""
    from viewer.camera import look_at
    from viewer.capture import Capture
    from viewer.session import Session
    from virtools_levels import heading_z, played_at_once
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    b = LevelBuilder()
    grey, red = b.material("Grey", 0xFF808080), b.material("Red", 0xFFFF0000)
    b.group("Phys_Floors", [b.box("A01_Floor", (20, 1, 20), (0, -0.5, 0), grey)])
    b.box("A01_Wall", (4000, 4000, 1), (0, 0, 1800), red)
    b.group("PR_Resetpoints", [b.box("PR_Resetpoint_01", (1, 0.2, 1), None, grey, matrix=heading_z(0, 2.0, 0))])
    b.group("PE_Levelende", [b.entity("PE_Balloon_01", None, translation(0, 0, 0))])   # the finish 2 above
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    cap = Capture(Session(lambda: played_at_once(scenes.load(str(tmp_path / "3D Entities" / "Level" /
                                                                  "Level_01.NMO")))),
                  size=(80, 60), scene_camera=lambda _: look_at((0.0, 50.0, -10.0), (0.0, 50.0, 100.0)))
    try:
        cap.run_until(0.0)                          # frame 1: the ball played, the finish not yet seen
        assert level_of(cap.session.ctx).flow == "playing" and hooks.hud_fields(cap.session.ctx)["far"] is None
        play = cap.image()[30, 40].astype(int)
        cap.run_until(0.05)
        assert level_of(cap.session.ctx).flow == "finished" and hooks.hud_fields(cap.session.ctx)["far"] == 2500.0
        finish = cap.image()[30, 40].astype(int)
    finally:
        cap.close()
    assert play[2] > play[1] > play[0]                                 # the light blue sky, not the wall
    assert finish[0] > 80 and finish[0] > 5 * max(finish[1], finish[2])    # the red wall (lit at a slant)
