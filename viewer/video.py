"""Writing a run as a video: frames piped to ffmpeg, or a PNG sequence without it."""

from __future__ import annotations

import shutil
import subprocess
import threading
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

    def write(self, rgb: np.ndarray, times: int = 1) -> None:
        """The image as the next `times` frames."""
        if rgb.shape[1::-1] != self.size:
            raise ValueError(f"video: frame of {rgb.shape[1]}x{rgb.shape[0]}, expected {self.size[0]}x{self.size[1]}")
        data = np.ascontiguousarray(rgb, dtype=np.uint8).tobytes()
        for _ in range(times):
            self._process.stdin.write(data)
        self.frames += times

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

    def write(self, rgb: np.ndarray, times: int = 1) -> None:
        """The image as the next `times` frames (encoded once)."""
        data = png.encode(rgb)
        for _ in range(times):
            (self.path / f"frame_{self.frames:05d}.png").write_bytes(data)
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


class BackgroundWriter:
    """A sink's writes on a worker thread, so that drawing never waits for
    encoding: `put` returns at once, and while the worker is busy a newer image
    takes the place of the waiting one and its frames too (that image left out,
    the newer one repeated), so every frame is written, in order. An error of
    the sink is raised by the next `put` or by `close`."""

    def __init__(self, sink):
        self.sink = sink
        self._waiting = None            # (image, frames) for the worker
        self._closing = False
        self._error = None
        self._ready = threading.Condition()
        self._worker = threading.Thread(target=self._work, name=f"video {sink.path}", daemon=True)
        self._worker.start()

    def put(self, rgb: np.ndarray, times: int) -> None:
        with self._ready:
            if self._error is not None:
                raise self._error
            self._waiting = (rgb, times + (self._waiting[1] if self._waiting is not None else 0))
            self._ready.notify()

    def _work(self) -> None:
        while True:
            with self._ready:
                while self._waiting is None and not self._closing:
                    self._ready.wait()
                if self._waiting is None:
                    return
                (rgb, times), self._waiting = self._waiting, None
            try:
                self.sink.write(rgb, times)
            except Exception as exc:        # said by the next put or close, in the window's thread
                with self._ready:
                    self._error, self._waiting = exc, None
                return

    def close(self) -> str:
        """Write what waits, then close the sink; returns its summary."""
        with self._ready:
            self._closing = True
            self._ready.notify()
        self._worker.join()
        if self._error is not None:
            raise self._error
        return self.sink.close()


class WallClockVideo:
    """A video of a window at `fps` frames per second of wall time: each drawn
    frame goes in as many times as video frames have fallen due since the start
    (repeated when drawing is slower than `fps`, left out when faster), so the
    video plays at the pace it was watched. Frames are cropped or padded (black)
    to the size at the start. They are written by a BackgroundWriter."""

    def __init__(self, path, width: int, height: int, fps: float, t0_s: float):
        self.size = (width - width % 2, height - height % 2)
        self.fps = fps
        self.t0 = t0_s
        self.frames = 0                 # frames handed to the writer
        self.sink = open_video(path, *self.size, fps)
        self.writer = BackgroundWriter(self.sink)

    def frame(self, t_s: float, grab) -> None:
        """The window was drawn at wall time `t_s`; `grab()` reads it as (h, w, 3) uint8."""
        due = int((t_s - self.t0) * self.fps) + 1 - self.frames
        if due <= 0:
            return
        w, h = self.size
        img = grab()[:h, :w]
        if img.shape[:2] != (h, w):
            img = np.pad(img, ((0, h - img.shape[0]), (0, w - img.shape[1]), (0, 0)))
        self.writer.put(img, due)
        self.frames += due

    def close(self) -> str:
        return self.writer.close()
