"""Materials as Virtools draws them (virtools-nmo.md 3.5 / 3.6; issue 42): the
alpha test leaves holes, blending is the material's, single-sided faces are
culled from behind, a colour-keyed texture's key colour is transparent. A
level written with scenes.virtools.writer and its own TGA, rendered with
`ivp render --game`, the PNG read back."""

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

from bbglue import meshes
from scenes.virtools import game_level, import_level
from scenes.virtools import reader as r
from viewer.cli import main
from virtools_levels import LevelBuilder, heading_z, translation

GREEN, RED, BLUE, WHITE = 0xFF20C020, 0xFFE02020, 0xFF2020E0, 0xFFFFFFFF
OPAQUE_MODES = 0x13212224           # modulate-alpha, linear filters, blend one / zero (7.x's safe default)
Z_LESS_EQUAL = 4 << 8
TWO_SIDED, Z_WRITE, PERSPECTIVE, ALPHA_BLEND, ALPHA_TEST = 0x1, 0x2, 0x4, 0x8, 0x10
GREATER = 5


def material(b, name, diffuse, texture=None, flags=Z_WRITE | PERSPECTIVE | Z_LESS_EQUAL, modes=OPAQUE_MODES):
    return b.add(r.Material, r.CK_MATERIAL, name, diffuse=diffuse, texture=texture, modes=modes, flags=flags)


def quad(b, name, material_index, x, y, size):
    """A flat square (faces up by their winding, as a level's floors) of
    ``size`` at (x, y, 0); its UVs are its local x, z (from -0.5 to 0.5)."""
    m = b.mesh(name + "_Mesh", meshes.tessellated_plane(1.0, 1.0), material_index)
    return b.entity(name, m, translation(x, y, 0, s=(size, 1, size)))


@pytest.fixture
def game(tmp_path):
    """A green floor 40 x 40 (y = 0); 2 above it a 16 x 16 square whose texture
    is red, alpha 100 in the image's left half (u 0 to 0.5: the square's
    local x 0 to 0.5, world x 0 to 8) and 255 in the right, with the alpha
    test "greater than 128" and no blending; a two-sided blue square at
    x = 14; every other material single-sided."""
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    (tmp_path / "Textures").mkdir()
    image = np.zeros((8, 8, 4), np.uint8)
    image[..., 0] = 255
    image[:, :4, 3] = 100
    image[:, 4:, 3] = 255
    Image.fromarray(image, "RGBA").save(tmp_path / "Textures" / "Holes.tga")
    b = LevelBuilder()
    tex = b.texture("Holes", "holes.TGA")                        # any case (5.7)
    tested = material(b, "Holes", WHITE, tex, flags=Z_WRITE | PERSPECTIVE | Z_LESS_EQUAL | ALPHA_TEST
                      | GREATER << 16 | 128 << 24)
    floor = quad(b, "A01_Floor", material(b, "Green", GREEN), 0, 0, 40)
    quad(b, "A01_Holes", tested, 0, 2, 16)
    quad(b, "A01_Both_Sides", material(b, "Blue", BLUE, flags=TWO_SIDED | Z_WRITE | PERSPECTIVE | Z_LESS_EQUAL),
         14, 1, 4)
    reset = b.box("PR_Resetpoint_01", (4, 1, 4), None, None, matrix=heading_z(0, 3.65, 300))
    b.group("Phys_Floors", [floor])
    b.group("PR_Resetpoints", [reset])
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    return tmp_path


def render(game, tmp_path, eye) -> np.ndarray:
    out = tmp_path / "shot.png"
    assert main(["render", "--game", str(game), "1", "--eye", *eye, "--look", "0", "0", "0",
                 "-o", str(out), "--size", "480x480", "--headless"]) == 0
    return np.asarray(Image.open(out).convert("RGB")).astype(int)


def test_the_material_is_read_with_its_surface(game):
    doc = import_level(game_level(str(game), 1))
    parts = {p.name: p for look in doc.looks.values() for p in look.parts}
    assert parts["Holes"].surface.alpha_test == (GREATER, 128)
    assert parts["Holes"].surface.blend is None and not parts["Holes"].surface.two_sided
    assert parts["Blue"].surface.two_sided


def test_an_alpha_tested_texture_leaves_holes(gl_window, game, tmp_path):  # noqa: F811
    """Seen from 40 above, the square's top 38 away: 1 unit is 240 / (38 x
    tan(29 deg) x 3/4) = 15.2 pixels, world +X to the image's left. Where
    its texture's alpha is 100 the test fails: the floor shows, pure green
    (blending it would mix in red); where it is 255, red."""
    img = render(game, tmp_path, ("0", "40", "0.01"))
    scale = 240 / (38 * np.tan(np.radians(29)) * 3 / 4)

    def mean_at(x):
        col = int(round(240 - x * scale))
        return img[236:245, col - 4:col + 5].reshape(-1, 3).mean(axis=0)

    hole, solid = mean_at(4.0), mean_at(-4.0)
    assert hole[1] > 100 and hole[0] < 0.3 * hole[1]          # the floor's green, no red in it
    assert solid[0] > 100 and solid[1] < 0.3 * solid[0]       # the square's red


def test_single_sided_faces_are_culled_from_behind(gl_window, game, tmp_path):  # noqa: F811
    """From 40 below, the floor and the tested square turn their backs: not
    drawn (the sky's clear colour shows); the two-sided blue square is, black
    (its lit side faces the light above; the game's ambient, 15/255, times
    its material's, 0.3, lights it by 5/255)."""
    img = render(game, tmp_path, ("0", "-40", "0.01"))
    red, green = ((img[..., k] > 40) & (img[..., k] > 2 * img[..., (k + 1) % 3])
                  & (img[..., k] > 2 * img[..., (k + 2) % 3]) for k in range(2))
    assert not green.any() and not red.any()
    assert (img.sum(axis=-1) < 30).sum() > 1000               # 4 x 4 units, about 60 x 60 pixels


def test_a_colour_keyed_texture_has_its_key_colour_transparent(gl_window):  # noqa: F811
    """3.6: a texture flagged colour-key (properties bits 8-15, 0x1) without a
    stored colour keys black: its black pixels get alpha 0, the others keep theirs."""
    from scenes.virtools.looks import material_surface
    from viewer.textures import keyed
    mat = r.Material(0, 0, r.CK_MATERIAL, "Extra", flags=Z_WRITE)
    assert material_surface(mat, r.Texture(1, 0, r.CK_TEXTURE, "ExtraBall", properties=0x00030100)).colour_key == 0
    assert material_surface(mat, r.Texture(1, 0, r.CK_TEXTURE, "Floor", properties=0x00030200)).colour_key is None
    pixels = np.array([[[0, 0, 0, 255], [0, 0, 1, 255], [9, 9, 9, 200]]], np.uint8)
    assert keyed(pixels, 0)[..., 3].tolist() == [[0, 255, 200]]
    assert keyed(pixels, 0x090909)[..., 3].tolist() == [[255, 255, 0]]
