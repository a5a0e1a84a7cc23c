"""Flames and blob shadows (issue 42; viewer/particles.py, behaviors.hooks
emitters / blob_shadows): the flames' emitters are the frames of the game's
flame prefabs, lit by the level's state; the viewer's particles rise from
them, the same every run; the ball's shadow darkens the Shadow floor under
it. Level and prefab files written by the tests."""

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
from viewer.particles import EMIT_PERIOD_S, FLAME, Flames
from virtools_levels import LevelBuilder, translation, two_sector_level


def flames_prefab(kind: str, frames: dict) -> bytes:
    """PH/<kind>.nmo: its root <kind>_MF at the origin and the frames at their offsets."""
    b = LevelBuilder()
    root = b.entity(f"{kind}_MF", None, translation(0, 0, 0), hidden=True, class_id=r.CK_3DENTITY)
    for name, (x, y, z) in frames.items():
        b.entity(name, None, translation(x, y, z), parent=root, class_id=r.CK_3DENTITY)
    return b.data(compressed=True)


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
    lit = {e.name: (e.position, e.size) for e in hooks.emitters(scene.ctx)}
    assert lit["PS_FourFlames_01.PS_FourFlames_Flame_A"] == (pytest.approx((7.0, 2.1, 6.0)), 1.0)   # plate 0.1 up
    assert lit["PC_TwoFlames_01.PC_TwoFlames_Flame_Big"] == (pytest.approx((0.0, 1.595, 30.0)), 2.0)
    assert len(lit) == 5                                   # the armed checkpoint: its big flame only
    level_of(scene.ctx).sector = 2                         # checkpoint 1 crossed: it burns no more
    assert {e.name for e in hooks.emitters(scene.ctx)} == {f"PS_FourFlames_01.PS_FourFlames_Flame_{x}"
                                                           for x in "ABCD"}


def test_flames_rise_from_their_emitter_the_same_every_run():
    e = Emitter("torch", "flame", (1.0, 2.0, 3.0))
    a, b = Flames(), Flames()
    for f in (a, b):
        f.update(10.0, [e])
        f.update(10.5, [e])
    pos, size, colour = a.sprites()
    assert all(np.array_equal(x, y) for x, y in zip(a.sprites(), b.sprites()))
    # One particle per 20 ms, each living at most FLAME.life[1]: that many are alive.
    assert len(pos) == pytest.approx(FLAME.life[1] / EMIT_PERIOD_S * np.mean(FLAME.life) / FLAME.life[1], rel=0.3)
    assert (pos[:, 1] >= 2.0).all() and (pos[:, 1] <= 2.0 + FLAME.rise[1] * FLAME.life[1]).all()
    assert (size <= FLAME.size[0]).all() and (colour[:, 3] <= 1.0).all()
    a.update(10.5 + FLAME.life[1] + 0.05, [])              # put out: its particles burn out, then it is gone
    assert a.systems == {}


def render(level, tmp_path, name, eye, look=("0", "0", "0")):
    out = tmp_path / name
    assert main(["render", level, "--at", "1.0", "--eye", *eye, "--look", *look,
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
    the same level whose group has another name (no shadow)."""
    eye = ("0", "8", "-14")
    shaded = render(level, tmp_path, "shaded.png", eye)
    path = tmp_path / "3D Entities" / "Level" / "Level_01.NMO"
    b = two_sector_level()
    next(o for o in b.objects if isinstance(o, r.Group) and o.name == "Shadow").name = "NoShadow"
    path.write_bytes(b.data())
    plain = render(str(path), tmp_path, "plain.png", eye)
    darker = (plain - shaded).sum(axis=-1)
    assert (darker > 30).sum() > 100                         # a patch of the floor darkened
    assert (darker < -30).sum() < 10                         # and nothing brightened
