"""`ivp render` and `ivp play` from the command line (headless EGL in this process)."""

import math
import textwrap

import numpy as np
import pytest
from test_viewer_capture import fake_encoder
from test_viewer_support import gl_window, red_mask  # noqa: F401

from viewer.cli import main

SCENE = """\
    version: 1
    scene:
      name: drop
      camera: {position: [0, 15, -40], target: [0, 5, 0]}
      background: [0.2, 0.3, 0.4, 1]
    entities:
      - name: floor
        mesh: {plane: {size: [60, 60]}}
        color: [0.5, 0.6, 0.5, 1]
        physics: {fixed: true, concave: [self]}
      - name: ball
        mesh: {sphere: {radius: 2}}
        position: [0, 10, 0]
        color: [1, 0, 0, 1]
        physics: {mass: 1.9, balls: [{radius: 2}]}
    """


@pytest.fixture
def scene_file(tmp_path):
    path = tmp_path / "drop.yaml"
    path.write_text(textwrap.dedent(SCENE))
    return path


def read_png(path):
    from pyglet.image.codecs.png import PNGImageDecoder
    with open(path, "rb") as fh:
        image = PNGImageDecoder().decode(str(path), fh)
    raw = np.frombuffer(image.get_image_data().get_data("RGB", image.width * 3), np.uint8)
    return raw.reshape(image.height, image.width, 3)[::-1]


def test_render_writes_the_scene_seen_from_its_camera(gl_window, scene_file, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "shot.png"
    assert main(["render", str(scene_file), "--at", "0", "-o", str(out), "--size", "400x300", "--headless"]) == 0
    assert str(out) in capsys.readouterr().out
    img = read_png(out)
    assert img.shape == (300, 400, 3)
    assert np.allclose(img[2, 2], (51, 76, 102), atol=1)          # the file's background
    # the ball at (0, 10, 0) seen from (0, 15, -40) aimed at (0, 5, 0): straight above the
    # image centre, by the angle between the two sight lines (pinhole, 29 deg half-width at 4:3)
    above = math.atan(10 / 40) - math.atan(5 / 40)
    y = 150 - math.tan(above) / (math.tan(math.radians(29)) * 0.75) * 150
    ys, xs = np.nonzero(red_mask(img))
    assert abs(xs.mean() + 0.5 - 200) < 1.5 and abs(ys.mean() + 0.5 - y) < 1.5


def test_render_a_video_of_the_run(gl_window, scene_file, tmp_path, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setenv("PATH", str(tmp_path))
    fake_encoder(tmp_path)
    out = tmp_path / "run.mp4"
    assert main(["render", str(scene_file), "--video", str(out), "--seconds", "0.5", "--fps", "10",
                 "--size", "64x48", "--headless", "--overlay", "spheres", "--hud"]) == 0
    assert "5 frames" in capsys.readouterr().out
    assert int(out.read_text().split()[0]) == 5 * 64 * 48 * 3


def test_a_broken_scene_file_is_reported_with_its_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nentities:\n  - {name: b, mesh: {box: [1, 1, 1]}, physics: {mass: 0}}\n")
    assert main(["render", str(bad), "--headless"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ivp render: ") and f"{bad}:3:" in err and "(kg), got 0" in err


def test_seconds_without_video_is_refused(scene_file, capsys):
    assert main(["render", str(scene_file), "--seconds", "2"]) == 1
    assert "--seconds goes with --video" in capsys.readouterr().err


def test_a_bad_size_is_an_argument_error(scene_file, capsys):
    with pytest.raises(SystemExit):
        main(["render", str(scene_file), "--size", "big"])
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_play_without_a_display_points_to_render(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["play"]) == 2
    err = capsys.readouterr().err
    assert "no display" in err and "ivp render" in err




def test_render_plays_the_scenes_demo_input_unless_told_otherwise(gl_window, tmp_path):  # noqa: F811
    # issue 13, defect 7: the sample level's demo input holds Up, so the ball rolls
    # forward (+Z, the level's way) in a render; --input takes another recording
    import argparse

    from behaviors.recording import Recorder
    from viewer.cli import _session

    def ball_z(input=None, no_input=False):
        args = argparse.Namespace(behaviors=[], input=input, no_input=no_input, snapshot=None)
        s = _session(args, "sample_level", default_input=True)
        for _ in range(120):
            s.tick(1 / 60)
        return s.ctx.get("Ball_Wood").get_world_matrix().as_array()[3, 2]

    still = ball_z(no_input=True)
    assert ball_z() > still + 1.0
    rec = tmp_path / "down.jsonl"
    with Recorder(rec, scene="sample_level") as r:
        for _ in range(120):
            r.add(1000 / 60, ["Down"])
    assert ball_z(input=str(rec)) < still - 0.5
    out = tmp_path / "shot.png"
    assert main(["render", "sample_level", "--at", "0.5", "--input", str(rec), "-o", str(out),
                 "--size", "64x48", "--headless"]) == 0
    assert out.exists()


# --- issue 43, defect 17 ------------------------------------------------------------------

def test_play_names_a_misspelt_scene_before_saying_there_is_no_display(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["play", "smaple_level"]) == 1
    err = capsys.readouterr().err
    assert "no scene file smaple_level" in err and "did you mean 'sample_level'?" in err and "display" not in err


def test_render_defaults_to_the_sample_level_as_run_and_play_do(gl_window, tmp_path):  # noqa: F811
    default, named = tmp_path / "default.png", tmp_path / "named.png"
    assert main(["render", "--no-input", "-o", str(default), "--size", "64x48", "--headless"]) == 0
    assert main(["render", "sample_level", "--no-input", "-o", str(named), "--size", "64x48", "--headless"]) == 0
    assert np.array_equal(read_png(default), read_png(named))


def test_an_image_larger_than_gl_draws_is_refused_with_its_limit(gl_window, scene_file, capsys):  # noqa: F811
    # issue 43, defect 14: GLException "Invalid value" before
    from viewer.renderer import max_image_size
    gl_window.switch_to()
    w, h = max_image_size()
    assert main(["render", str(scene_file), "--size", f"{w + 1}x{h}", "--headless"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ivp render: an image of {w + 1}x{h} is more than this GL draws, {w}x{h} at most")
    assert "--size" in err and "Traceback" not in err
