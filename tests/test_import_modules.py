"""Every PH module with physics, built from a prefab the test writes with the
original prefabs' part names (virtools-nmo.md 5.2, 5.5; glue-and-content 3,
"PH modules"), placed by a level's placeholder; and what `ivp check` says
it matched."""

import math

import numpy as np
import pytest

import scenes
from bbglue import meshes
from behaviors import manager_of
from behaviors.ballance.modules import PlankBridge
from behaviors.recording import Frame, Recording, replay
from scenes.virtools import import_level, reader as r
from viewer.cli import main
from virtools_levels import LevelBuilder, played_at_once, translation, two_sector_level

FRAME_MS = 1000.0 / 60.0
ROOT = (5.0, 0.0, 0.0)          # the prefab's root frame, away from the origin
PLACE = (200.0, 0.0, 0.0)       # the placeholders: prefab offsets land at PLACE + (offset - ROOT)

# The parts as the original prefabs name them (after the kind): bodies (3D
# objects with a mesh), frames (3D entities) and collision hulls (meshes no
# object uses).
PARTS = {
    "P_Modul_01": (("_Pusher", "_Rinne", "_Filler"), (),
                   ("_Col01_Mesh", "_Col02_Mesh", "_Col03_Mesh", "_Rinne_01_Mesh", "_Rinne_02_Mesh",
                    "_Rinne_03_Mesh", "_Filler_Mesh")),
    "P_Modul_03": (("_Floor",) + tuple(f"_Wall0{k}" for k in range(1, 8)) + ("_Gate",),
                   ("_frame_low", "_frame_high"), ("_Floor_Mesh", "_Wall_Coll_Mesh", "_Gate_Coll01_Mesh")),
    "P_Modul_08": (("_Schaukel", "_Fix"), ("_HingeFrame",), tuple(f"_Col{k}_Mesh" for k in range(1, 7))),
    "P_Modul_17": (("_Dreharme",), ("_HingeFrame",), ("_Col01_Mesh", "_Col02_Mesh", "_Col03_Mesh")),
    "P_Modul_19": (("_Flaps",), ("_HingeFrame",), ("_Col1_Mesh", "_Col2_Mesh", "_Col3_Mesh", "_Col4_Mesh")),
    "P_Modul_25": (("_Bridge",), ("_HingeFrame",), ("_Col01_Mesh", "_Col02_Mesh")),
    "P_Modul_26": (("_Rope", "_Sack", "_Halter"), ("_Balljoint_oben", "_Balljoint_unten"),
                   ("_Rope_Mesh", "_Sack_Mesh")),
    "P_Modul_29": (tuple(f"_Platte0{k}" for k in range(1, 10)), tuple(f"_HingeFrame{k:02d}" for k in range(1, 11)),
                   ()),
    "P_Modul_30": (("_Wippe",), ("_HingeFrame",), ("_Col1_Mesh", "_Col2_Mesh")),
    "P_Modul_34": (("_Schiebestein", "_Kiste"), ("_Slider_Frame01", "_Slider_Frame02"), ()),
    "P_Modul_37": (("_Bridge",), ("_HingeFrame",), ("_Col1_Mesh", "_Col2_Mesh", "_Col3_Mesh")),
    "P_Modul_41": (("",), ("_HingeFrame",), ("_Col1_Mesh", "_Col2_Mesh")),
}

# glue-and-content 3: the pins each body must have (the rest: Physicalize's defaults or the table's).
SHIFTED = {"automatic_calculate_mass_center": False}
BODIES = {
    "P_Modul_01": {"_Pusher": {"mass": 3, "friction": 0.6, "elasticity": 0.4, "linear_speed_dampening": 0.1,
                               "rot_speed_dampening": 1, "collision_group": "Floor", "start_frozen": True},
                   "_Rinne": {"fixed": True, "collision_group": "Ball"},
                   "_Filler": {"fixed": True}},                   # the filler: not in the spec
    "P_Modul_03": {"_Floor": {"mass": 3, "friction": 0.7, "elasticity": 0, "linear_speed_dampening": 1,
                              "rot_speed_dampening": 3},
                   **{f"_Wall0{k}": {"mass": 2} for k in range(1, 8)}, "_Gate": {"mass": 2}},
    "P_Modul_08": {"_Schaukel": {"mass": 10}},
    "P_Modul_17": {"_Dreharme": {"mass": 3, "linear_speed_dampening": 3, "rot_speed_dampening": 0.005}},
    "P_Modul_19": {"_Flaps": {"mass": 3, "shift_mass_center": [1, 1, 0], **SHIFTED}},
    "P_Modul_25": {"_Bridge": {"mass": 3, "elasticity": 1, "shift_mass_center": [-2.5, 0.2, 0], **SHIFTED}},
    "P_Modul_26": {"_Rope": {"mass": 1, "enable_collision": False}, "_Sack": {"mass": 10}},
    "P_Modul_29": {f"_Platte0{k}": {"mass": 1 if k == 9 else 0.5, "collision_group": "Modul29"}
                   for k in range(1, 10)},
    "P_Modul_30": {"_Wippe": {"mass": 3, "shift_mass_center": [0, 4, 0], "linear_speed_dampening": 1,
                              "rot_speed_dampening": 1, **SHIFTED}},
    "P_Modul_34": {"_Schiebestein": {"mass": 1.6}, "_Kiste": {"mass": 1.4, "friction": 0.8, "elasticity": 0.4}},
    "P_Modul_37": {"_Bridge": {"mass": 3, "elasticity": 1, "shift_mass_center": [-7.5, 0, 0], **SHIFTED}},
    "P_Modul_41": {"": {"mass": 1, "shift_mass_center": [0, 0, 0], **SHIFTED}},   # the prefab file's pins
}
# The joints: (type, body, frame or axis points / referentials, object2 or None for the world).
JOINTS = {
    "P_Modul_01": [],
    "P_Modul_03": [("slider", "_Floor", ("_frame_low", "_frame_high"), None),
                   ("spring", "_Floor", ("_frame_low", "_frame_high"), None)],
    "P_Modul_17": [("hinge", "_Dreharme", ("_HingeFrame",), None),
                   ("spring", "_Dreharme", ("_HingeFrame", "_Dreharme"), None)],
    "P_Modul_26": [("ball_joint", "_Rope", ("_Balljoint_oben",), None),
                   ("ball_joint", "_Rope", ("_Balljoint_unten",), "_Sack")],
    "P_Modul_29": [],                                      # the plank bridge script makes its 10 hinges
    "P_Modul_34": [("slider", "_Schiebestein", ("_Slider_Frame01", "_Slider_Frame02"), None)],
    **{k: [("hinge", next(iter(BODIES[k])), ("_HingeFrame",), None)]
       for k in ("P_Modul_08", "P_Modul_19", "P_Modul_25", "P_Modul_30", "P_Modul_37", "P_Modul_41")},
}


def prefab(kind: str, at=None, bodies=None, frames=None, hulls=None, names=None) -> bytes:
    """A prefab as 5.5 has it: the root frame <kind>_MF at ROOT, each body a
    2 x 1 x 2 box (at ``at[suffix]`` or 3 apart along Y; named <kind><suffix>
    or ``names[suffix]``), each frame a 3D entity, each hull a box mesh no
    object uses."""
    b0, f0, h0 = PARTS[kind]
    bodies, frames, hulls = (b0 if bodies is None else bodies, f0 if frames is None else frames,
                             h0 if hulls is None else hulls)
    at = at or {}
    b = LevelBuilder()
    b.entity(f"{kind}_MF", None, translation(*ROOT), class_id=r.CK_3DENTITY)
    mat = b.material("Wood", 0xFF996633)
    for k, s in enumerate(bodies):
        b.box((names or {}).get(s, kind + s), (2, 1, 2), at.get(s, (ROOT[0], 3.0 * k + 1.0, 0.0)), mat)
    for k, s in enumerate(frames):
        b.entity(kind + s, None, translation(*at.get(s, (ROOT[0] + 1.0, 3.0 * k, 0.0))), class_id=r.CK_3DENTITY)
    for s in hulls:
        b.mesh(kind + s, meshes.box(1.5, 0.5, 1.5), mat)
    return b.data(compressed=True)


def game_with(tmp_path, kinds, **prefab_args):
    """A game folder with the two-sector level plus one placeholder of each kind
    (sector 1) at PLACE, 40 apart along Z, and the kinds' prefabs."""
    b = two_sector_level()
    sector = next(o for o in b.objects if o.name == "Sector_01")
    for k, kind in enumerate(kinds):
        p = b.box(f"{kind}_50", (2, 0.4, 2), (PLACE[0], PLACE[1], PLACE[2] + 40 * k), None)
        groups = [o for o in b.objects if isinstance(o, r.Group) and o.name == kind]
        if groups:
            groups[0].members.append(p)
        else:
            b.group(kind, [p])
        sector.members.append(p)
    level = tmp_path / "3D Entities" / "Level"
    level.mkdir(parents=True)
    (level / "Level_01.NMO").write_bytes(b.data())
    ph = tmp_path / "3D Entities" / "PH"
    ph.mkdir()
    for kind in kinds:
        (ph / f"{kind}.nmo").write_bytes(prefab(kind, **prefab_args.get(kind, {})))
    return str(level / "Level_01.NMO")


def _name(kind, suffix):
    return f"{kind}_50.{kind}{suffix}"


@pytest.mark.parametrize("kind", sorted(PARTS))
def test_each_module_gets_its_bodies_joints_and_wake_gate(kind, tmp_path):
    imp = import_level(game_with(tmp_path, [kind]))
    ents = {d["name"]: d for d in imp.document["entities"]}
    for suffix, pins in BODIES[kind].items():
        physics = ents[_name(kind, suffix)]["physics"]
        assert {k: physics.get(k, None) for k in pins} == pins, suffix
        assert "Sector_01" in ents[_name(kind, suffix)]["groups"]
    assert [d for d in ents.values() if d["name"].startswith(f"{kind}_50.") and "physics" in d
            and d["name"][len(kind) + 4:] not in (kind + s for s in BODIES[kind])] == []
    joints = [(j["type"], j["object"], j.get("object2")) for j in imp.document.get("joints", [])
              if j["name"].startswith(f"{kind}_50.")]          # the level has a P_Modul_41 of its own
    assert joints == [(t, _name(kind, body), None if other is None else _name(kind, other))
                      for t, body, _, other in JOINTS[kind]]
    frozen = [n for n, d in ents.items() if d.get("physics", {}).get("start_frozen")]
    gates = [b for b in imp.document["behaviours"] if b["type"] == "ballance.wake_gate"
             and b["entity"].startswith(f"{kind}_50")]
    if kind in ("P_Modul_17", "P_Modul_26", "P_Modul_41"):           # they start awake
        assert frozen == [] and gates == []
    else:
        radius = {"P_Modul_03": 35, "P_Modul_29": 80}.get(kind, 50)   # behaviors.ballance.modules.WakeGate
        # Three.js' notes: module 01's gate measures to its Pusher, 34's to its stone, the others' to the root
        gate = {"P_Modul_01": _name(kind, "_Pusher"), "P_Modul_34": _name(kind, "_Schiebestein")}
        assert [(g["entity"], g["params"]["radius"]) for g in gates] == [(gate.get(kind, f"{kind}_50"), radius)]
        assert all(g["params"]["bodies"] in ents[n]["groups"] for n in frozen for g in gates)
    lines = [line for n, line in imp.report.module_parts if n == f"{kind}_50"]
    assert all("(the original's name)" in line for line in lines if " = " in line), lines


def test_hulls_are_the_convex_pieces_or_the_own_mesh(tmp_path):
    """5.5: the meshes no object uses are the bodies' collision hulls."""
    level = game_with(tmp_path, ["P_Modul_08", "P_Modul_30"], P_Modul_30={"hulls": ("_Col1_Mesh",)})
    imp = import_level(level)
    ents = {d["name"]: d for d in imp.document["entities"]}
    assert len(ents[_name("P_Modul_08", "_Schaukel")]["physics"]["convex"]) == 6
    assert len(ents[_name("P_Modul_30", "_Wippe")]["physics"]["convex"]) == 1
    assert ("P_Modul_30_50", "body collides as 1 of its 2 hulls (no 'P_Modul_30_Col2_Mesh')") \
        in imp.report.module_parts
    scene = scenes.load(level)
    assert scene.ctx.physics.is_physicalized(scene.entity(_name("P_Modul_08", "_Schaukel")))


def test_a_level_with_every_module_builds_and_plays(tmp_path):
    scene = scenes.load(game_with(tmp_path, sorted(PARTS)))
    for kind, bodies in BODIES.items():
        for suffix in bodies:
            assert scene.ctx.physics.is_physicalized(scene.entity(_name(kind, suffix))), (kind, suffix)
    replay(scene.ctx, Recording([Frame(FRAME_MS, frozenset())] * 30))
    assert manager_of(scene.ctx).errors == []
    bridge = next(b for b in manager_of(scene.ctx).behaviors if isinstance(b, PlankBridge))
    assert len(bridge.hinges) == 10 and all(h.handle is not None for h in bridge.hinges)


def level_with_module(tmp_path, group: str, position, at):
    """The two-sector level with one placeholder of ``group`` in sector 1 at
    ``position``, the module's prefab beside it (parts at ``at``), loaded."""
    b = two_sector_level()
    p = b.box(group + "_01", (2, 0.4, 2), position, None)
    b.group(group, [p])
    next(o for o in b.objects if o.name == "Sector_01").members.append(p)
    level = tmp_path / "3D Entities" / "Level"
    level.mkdir(parents=True)
    (level / "Level_01.NMO").write_bytes(b.data())
    (tmp_path / "3D Entities" / "PH").mkdir()
    (tmp_path / "3D Entities" / "PH" / f"{group}.nmo").write_bytes(prefab(group, at=at))
    return played_at_once(scenes.load(str(level / "Level_01.NMO")))


def test_the_spring_lift_hangs_m_g_over_k_below_its_high_frame(tmp_path):
    """Module 03 unloaded: the platform (mass 3) on its vertical slider, the
    spring (length 0, k 15) from its low frame to the high frame: at rest the
    spring stretches m g / k = 3 x 20 / 15 = 4. The weights are put far from
    it (they fall away) and a ball within 35 wakes the lift."""
    far = {f"_Wall0{k}": (ROOT[0] + 10 * k, -100.0, 50.0) for k in range(1, 8)}
    at = {"_Floor": (ROOT[0], 0.0, 0.0), "_frame_low": (ROOT[0], 0.0, 0.0), "_frame_high": (ROOT[0], 30.0, 0.0),
          "_Gate": (ROOT[0], -100.0, 90.0), **far}
    scene = level_with_module(tmp_path, "P_Modul_03", (0, 10, 20), at)   # over the course: the ball is near
    platform = scene.entity("P_Modul_03_01.P_Modul_03_Floor")
    seen = []
    replay(scene.ctx, Recording([Frame(FRAME_MS, frozenset())] * 600), lambda ctx, i: seen.append(
        platform.get_position()))
    x, y, z = seen[-1]
    assert (x, z) == pytest.approx((0.0, 20.0), abs=1e-3)          # on the slider's vertical axis
    # It freezes once slow (ivp spec 10), within 0.1 of rest: when depends on the environment's
    # shared sleep countdown (10.1), so on how many units the world has.
    assert y == pytest.approx(10.0 + 30.0 - 4.0, abs=0.1)
    assert max(abs(a[1] - b[1]) for a, b in zip(seen[-60:], seen[-61:])) < 0.01   # at rest


def test_the_sliding_gate_wakes_when_the_ball_nears_its_pusher_not_its_root(tmp_path):
    """Module 01's proximity gate measures the horizontal distance to the
    Pusher (50 units, Three.js' notes): the root 100 from the ball's start
    (the two-sector level's reset point at the origin), the pusher 60 back
    toward it (40 away) and free in the air: it wakes and falls."""
    at = {"_Pusher": (ROOT[0] - 60.0, 0.0, 0.0), "_Rinne": (ROOT[0], -200.0, 0.0),
          "_Filler": (ROOT[0], -300.0, 0.0)}
    scene = level_with_module(tmp_path, "P_Modul_01", (100.0, 50.0, 0.0), at)
    pusher = scene.entity("P_Modul_01_01.P_Modul_01_Pusher")
    assert pusher.get_position() == pytest.approx((40.0, 50.0, 0.0))
    replay(scene.ctx, Recording([Frame(FRAME_MS, frozenset())] * 30))
    assert pusher.get_position()[1] < 49.0                              # awake: it fell


def test_the_falling_stone_slides_along_its_slider(tmp_path):
    """Module 34 without its crate under it: the stone (mass 1.6) falls along
    the axis from the first slider frame to the second (5 degrees off the
    vertical here), so its path stays on that line."""
    tilt = math.radians(5.0)
    top = (ROOT[0], 10.0 * math.cos(tilt), 10.0 * math.sin(tilt))
    at = {"_Schiebestein": (ROOT[0], 0.0, 0.0), "_Kiste": (ROOT[0], -100.0, 50.0),
          "_Slider_Frame01": (ROOT[0], 0.0, 0.0), "_Slider_Frame02": top}
    scene = level_with_module(tmp_path, "P_Modul_34", (0, 20, 20), at)
    stone = scene.entity("P_Modul_34_01.P_Modul_34_Schiebestein")
    seen = []
    replay(scene.ctx, Recording([Frame(FRAME_MS, frozenset())] * 40), lambda ctx, i: seen.append(
        stone.get_position()))
    axis = np.array([0.0, math.cos(tilt), math.sin(tilt)])
    start = np.array([0.0, 20.0, 20.0])
    offsets = [np.array(p) - start for p in seen]
    assert offsets[-1] @ axis < -1.0                                  # it fell
    assert max(np.linalg.norm(o - (o @ axis) * axis) for o in offsets) < 1e-3


def test_check_says_what_was_matched_and_what_fell_back(tmp_path, capsys):
    """The original's names first, then this project's (P_Modul_NN_Body /
    _Hinge), then a keyword; a missing part names what was looked for."""
    level = game_with(tmp_path, ["P_Modul_19", "P_Modul_30", "P_Modul_37", "P_Modul_26"],
                      P_Modul_19={"bodies": ("_Body",), "frames": ("_Hinge",)},
                      P_Modul_30={"frames": ("_Achse_Hinge_Frame",)},
                      P_Modul_37={"bodies": ("_Brett",)},
                      P_Modul_26={"bodies": ("_Rope", "_Sack")})
    assert main(["check", level]) == 0
    out = capsys.readouterr().out
    assert "body = 'P_Modul_19_Body' (this project's name; the original's 'P_Modul_19_Flaps' is not there)" in out
    assert ("hinge frame = 'P_Modul_19_Hinge' (this project's name; the original's 'P_Modul_19_HingeFrame' "
            "is not there)") in out
    assert ("hinge frame = 'P_Modul_30_Achse_Hinge_Frame' (the one part with 'hinge' in its name; "
            "'P_Modul_30_HingeFrame' is not there)") in out
    assert ("module P_Modul_37_50: built from P_Modul_37.nmo, 2 parts drawn; body: no 3D object with a mesh "
            "named 'P_Modul_37_Bridge' or 'P_Modul_37_Body': drawn without physics") in out
    assert "force frame: no part named 'P_Modul_26_Halter': the module's root instead" in out
    imp = import_level(level)
    sack = next(b for b in imp.document["behaviours"] if b["type"] == "ballance.sack")
    assert sack["params"]["direction_ref"] == "P_Modul_26_50"
    assert "module P_Modul_19_50: built from P_Modul_19.nmo, 2 parts, 1 body, 1 joint" in out


def test_the_rotating_arm_is_found_by_its_name_in_the_games_prefab(tmp_path):
    """The game's P_Modul_17.nmo names its arm 'Modul17_Dreharme' (no 'P_',
    no '_' before the number): found by its keyword, it is a body on its
    hinge and spring; before, the arm was drawn without physics and a ball
    rolled through it (level 03's P_Modul_17_01 and _02)."""
    level = game_with(tmp_path, ["P_Modul_17"], P_Modul_17={"names": {"_Dreharme": "Modul17_Dreharme"}})
    imp = import_level(level)
    arm = next(d for d in imp.document["entities"] if d["name"] == "P_Modul_17_50.Modul17_Dreharme")
    assert arm["physics"]["mass"] == 3
    joints = [(j["type"], j["object"]) for j in imp.document.get("joints", []) if j["name"].startswith("P_Modul_17_50.")]
    assert joints == [("hinge", arm["name"]), ("spring", arm["name"])]
    assert any("arm = 'Modul17_Dreharme' (the one part with 'dreharme' in its name" in line
               for n, line in imp.report.module_parts if n == "P_Modul_17_50")


def test_the_finish_balloon_is_drawn_from_its_prefab(tmp_path):
    """5.2 / 5.5: the parts under PE_Balloon_MF (a child of a child too) at the
    PE_Levelende placeholder (0, 0, 45), without physics when the parts the
    balloon's table needs are not there; another root's parts (the UFO) are
    left out."""
    b = LevelBuilder()
    root = b.entity("PE_Balloon_MF", None, translation(*ROOT), class_id=r.CK_3DENTITY)
    mat = b.material("Balloon", 0xFFCC2222)
    envelope = b.box("PE_Balloon_Envelope", (4, 6, 4), (ROOT[0], 20, 0), mat)
    b.objects[envelope].parent = root
    basket = b.box("PE_Balloon_Basket", (2, 1, 2), (ROOT[0], 14, 0), mat)
    b.objects[basket].parent = envelope
    ufo = b.entity("PE_UFO_Body", None, translation(0, 50, 0), class_id=r.CK_3DENTITY)
    saucer = b.box("PE_UFO_Saucer", (8, 1, 8), (0, 50, 0), mat)
    b.objects[saucer].parent = ufo
    level = tmp_path / "3D Entities" / "Level"
    level.mkdir(parents=True)
    (level / "Level_01.NMO").write_bytes(two_sector_level().data())
    (tmp_path / "3D Entities" / "PH").mkdir()
    (tmp_path / "3D Entities" / "PH" / "PE_Balloon.nmo").write_bytes(b.data(compressed=True))
    imp = import_level(str(level / "Level_01.NMO"))
    ents = {d["name"]: d for d in imp.document["entities"]}
    assert ents["PE_Balloon_01.PE_Balloon_Envelope"]["position"] == pytest.approx([0.0, 20.0, 45.0])
    assert ents["PE_Balloon_01.PE_Balloon_Basket"]["position"] == pytest.approx([0.0, 14.0, 45.0])
    assert not any(n.startswith("PE_Balloon_01.PE_UFO") for n in ents)
    assert ents["PE_Balloon_01"].get("visible", True) is False      # the stand-in, in the prefab's place
    assert all("physics" not in d for n, d in ents.items() if n.startswith("PE_Balloon_01."))
    assert ("PE_Balloon_01", "PE_Balloon.nmo, 2 parts under PE_Balloon_MF drawn, 2 others left out; 21 of the 21 "
            "parts it needs are not there (platform: no 3D object with a mesh named 'PE_Balloon_Platform', ...): "
            "drawn without physics") in imp.report.modules
    level = next(b for b in imp.document["behaviours"] if b["type"] == "ballance.level")
    assert level["params"]["finish"] == "PE_Levelende.trigger"      # without the platform: the trigger
    assert imp.looks["PE_Balloon_01.PE_Balloon_Envelope"].parts[0].colour == pytest.approx((0.8, 0.4 / 3, 0.4 / 3, 1))
