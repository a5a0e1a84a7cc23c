"""Writing a run as a video: frames piped to ffmpeg, or a PNG sequence without it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

from . import png


class FfmpegVideo:
    """Raw RGB frames piped into an ffmpeg process that encodes by the file's extension."""

    def __init__(self, encoder: str, path: Path, width: int, height: int, fps: float):
        self.path = path
        self.size = (width, height)
        self.frames = 0
        cmd = [encoder, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
               "-s", f"{width}x{height}", "-r", f"{fps:g}", "-i", "-", "-pix_fmt", "yuv420p", str(path)]
        self._process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)

    def write(self, rgb: np.ndarray) -> None:
        if rgb.shape[1::-1] != self.size:
            raise ValueError(f"video: frame of {rgb.shape[1]}x{rgb.shape[0]}, expected {self.size[0]}x{self.size[1]}")
        self._process.stdin.write(np.ascontiguousarray(rgb, dtype=np.uint8).tobytes())
        self.frames += 1

    def close(self) -> str:
        self._process.stdin.close()
        err = self._process.stderr.read().decode(errors="replace").strip()
        if self._process.wait() != 0:
            raise RuntimeError(f"video: the encoder failed on {self.path}: {err}")
        return f"{self.frames} frames encoded into {self.path}"


class PngSequence:
    """Numbered PNG files in a directory, for when no encoder is installed."""

    def __init__(self, directory: Path):
        self.path = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.frames = 0

    def write(self, rgb: np.ndarray) -> None:
        png.write(self.path / f"frame_{self.frames:05d}.png", rgb)
        self.frames += 1

    def close(self) -> str:
        return f"{self.frames} frames written as {self.path / 'frame_NNNNN.png'}"


def open_video(path, width: int, height: int, fps: float):
    """A frame sink for `path`: ffmpeg when it is on the PATH, else PNGs in
    "<stem>_frames/" beside it. Width and height must be even (yuv420p)."""
    path = Path(path)
    if width % 2 or height % 2:
        raise ValueError(f"video: width and height must be even, got {width}x{height}")
    if not fps > 0:
        raise ValueError(f"video: frames per second must be positive, got {fps}")
    encoder = shutil.which("ffmpeg")
    if encoder is None:
        return PngSequence(path.with_name(path.stem + "_frames"))
    return FfmpegVideo(encoder, path, width, height, fps)


class WallClockVideo:
    """A video of a window at `fps` frames per second of wall time: each drawn
    frame goes in as many times as video frames have fallen due since the start
    (repeated when drawing is slower than `fps`, left out when faster), so the
    video plays at the pace it was watched. Frames are cropped or padded (black)
    to the size at the start."""

    def __init__(self, path, width: int, height: int, fps: float, t0_s: float):
        self.size = (width - width % 2, height - height % 2)
        self.fps = fps
        self.t0 = t0_s
        self.sink = open_video(path, *self.size, fps)

    def frame(self, t_s: float, grab) -> None:
        """The window was drawn at wall time `t_s`; `grab()` reads it as (h, w, 3) uint8."""
        due = int((t_s - self.t0) * self.fps) + 1 - self.sink.frames
        if due <= 0:
            return
        w, h = self.size
        img = grab()[:h, :w]
        if img.shape[:2] != (h, w):
            img = np.pad(img, ((0, h - img.shape[0]), (0, w - img.shape[1]), (0, 0)))
        for _ in range(due):
            self.sink.write(img)

    def close(self) -> str:
        return self.sink.close()
