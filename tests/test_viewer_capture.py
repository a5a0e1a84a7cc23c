"""Headless capture: screenshots after a run, videos through an encoder or as PNGs."""

import os
import stat
import sys

import numpy as np
import pytest
from test_viewer_support import ball_scene, gl_window, red_mask  # noqa: F401

from viewer import video
from viewer.session import Session


def fake_encoder(directory, exit_code=0):
    """An 'ffmpeg' that counts the bytes piped to it and writes the count and its
    arguments into the output file (its last argument)."""
    path = directory / "ffmpeg"
    path.write_text(f"#!{sys.executable}\n"
                    "import sys\n"
                    "n = len(sys.stdin.buffer.read())\n"
                    "open(sys.argv[-1], 'w').write(f'{n} ' + ' '.join(sys.argv[1:]))\n"
                    f"sys.stderr.write('encoder said no') if {exit_code} else None\n"
                    f"sys.exit({exit_code})\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def frames(n, w=4, h=2):
    return [np.full((h, w, 3), i, np.uint8) for i in range(n)]


def test_frames_are_piped_to_the_encoder(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    fake_encoder(tmp_path)
    sink = video.open_video(tmp_path / "out.mp4", 4, 2, 30)
    for f in frames(3):
        sink.write(f)
    assert "3 frames" in sink.close()
    count, *args = (tmp_path / "out.mp4").read_text().split()
    assert int(count) == 3 * 4 * 2 * 3
    assert args[args.index("-s") + 1] == "4x2" and args[args.index("-r") + 1] == "30"


def test_an_encoder_failure_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    fake_encoder(tmp_path, exit_code=1)
    sink = video.open_video(tmp_path / "out.mp4", 4, 2, 30)
    sink.write(frames(1)[0])
    with pytest.raises(RuntimeError, match="encoder said no"):
        sink.close()


def test_without_an_encoder_the_video_is_a_png_sequence(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    sink = video.open_video(tmp_path / "run.mp4", 4, 2, 30)
    for f in frames(3):
        sink.write(f)
    assert "3 frames" in sink.close()
    names = sorted(os.listdir(tmp_path / "run_frames"))
    assert names == ["frame_00000.png", "frame_00001.png", "frame_00002.png"]


def test_bad_video_settings_are_value_errors(tmp_path):
    with pytest.raises(ValueError, match="even"):
        video.open_video(tmp_path / "v.mp4", 5, 4, 30)
    with pytest.raises(ValueError, match="frames per second"):
        video.open_video(tmp_path / "v.mp4", 4, 4, 0)
    sink = video.PngSequence(tmp_path / "seq")
    with pytest.raises(ValueError, match="png"):
        sink.write(np.zeros((2, 2), np.uint8))


def test_screenshot_after_a_run_shows_the_fallen_ball(gl_window, tmp_path):  # noqa: F811
    from viewer.capture import Capture
    from viewer.camera import look_at
    eye = np.array([0.0, 5.0, -40.0])
    cap = Capture(Session(ball_scene), size=(320, 240), scene_camera=lambda session: look_at(eye, (0.0, 5.0, 0.0)))
    image_at_0 = cap.image()
    cap.run_until(1.0)
    assert cap.frame_time == pytest.approx(1.0) and cap.session.frames == 60
    image_at_1 = cap.image()
    path = cap.screenshot(tmp_path / "shot.png")
    cap.close()
    assert os.path.getsize(path) > 1000
    # the ball fell (no floor body yet): its red pixels moved down the image
    rows_0 = np.nonzero(red_mask(image_at_0))[0]
    rows_1 = np.nonzero(red_mask(image_at_1))[0]
    assert rows_0.size > 50 and (rows_1.size == 0 or rows_1.mean() > rows_0.mean() + 5)


def test_video_of_a_run_has_one_frame_per_tick_of_its_rate(gl_window, tmp_path, monkeypatch):  # noqa: F811
    from viewer.capture import Capture
    monkeypatch.setenv("PATH", str(tmp_path))
    fake_encoder(tmp_path)
    cap = Capture(Session(ball_scene), size=(64, 48))
    summary = cap.video(tmp_path / "run.mp4", seconds=0.5, fps=20)
    cap.close()
    assert summary.startswith("10 frames")
    assert int((tmp_path / "run.mp4").read_text().split()[0]) == 10 * 64 * 48 * 3
    assert cap.frame_time == pytest.approx(0.5)


def test_capture_rejects_a_negative_time(gl_window):  # noqa: F811
    from viewer.capture import Capture
    cap = Capture(Session(ball_scene), size=(64, 48))
    with pytest.raises(ValueError, match="time"):
        cap.run_until(-1.0)
    with pytest.raises(ValueError, match="seconds"):
        cap.video("x.mp4", seconds=0.0)
    cap.close()
