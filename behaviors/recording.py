"""Input sources: live keys, or a recording of per-frame key states and frame times.

A recording file is JSON lines: a header, then one line per frame::

    {"format": "ivp-recording", "version": 1, "scene": "sample_level", "seed": 1}
    {"ms": 16.666666666666668, "keys": ["Up"]}
    {"ms": 16.666666666666668, "keys": ["Left", "Up"]}

The header may name the scene (its file's stem or its name) and the RNG seed at
its load (docs/behaviors.md, "Input sources and recordings").

``ms`` is the frame time handed to ``ctx.process_frame`` (before the time
manager's clamp) and ``keys`` the keys held during that frame. JSON writes a
float as its shortest round-trip decimal, so a replay feeds the same bits: with
the same scene and RNG seed it gives the same trajectory to the last bit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

FORMAT = "ivp-recording"
VERSION = 1


@dataclass(frozen=True)
class Frame:
    """One recorded frame: its frame time (ms) and the keys held."""

    ms: float
    keys: frozenset


def _sorted_keys(keys) -> list:
    return sorted(keys, key=lambda k: (isinstance(k, int), str(k)))


def _check_frame(ms, keys, where: str) -> Frame:
    if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not math.isfinite(ms) or ms < 0:
        raise ValueError(f"{where}: the frame time must be a finite number of ms >= 0, got {ms!r}")
    if isinstance(keys, (str, int)) or not hasattr(keys, "__iter__"):
        raise ValueError(f"{where}: keys must be a list of key names, got {keys!r}")
    keys = list(keys)
    for k in keys:
        if not isinstance(k, (str, int)) or isinstance(k, bool):
            raise ValueError(f"{where}: a key must be a name (str) or a code (int), got {k!r}")
    return Frame(float(ms), frozenset(keys))


class Recording:
    """A sequence of frames, loaded from or saved to a recording file."""

    def __init__(self, frames=(), meta=None):
        self.frames = [f if isinstance(f, Frame) else _check_frame(f[0], f[1], f"recording frame {i}")
                       for i, f in enumerate(frames)]
        self.meta = dict(meta or {})

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self):
        return iter(self.frames)

    @classmethod
    def load(cls, path) -> "Recording":
        """Read a file; ValueError naming the file and line for anything malformed."""
        frames = []
        meta = None
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                where = f"{path}:{n}"
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ValueError(f"{where}: not JSON: {e.msg}") from None
                if not isinstance(rec, dict):
                    raise ValueError(f"{where}: expected a JSON object, got {line.strip()[:40]!r}")
                if meta is None:
                    if rec.get("format") != FORMAT or rec.get("version") != VERSION:
                        raise ValueError(f"{where}: not an {FORMAT} version {VERSION} header: {line.strip()[:80]}")
                    meta = {k: v for k, v in rec.items() if k not in ("format", "version")}
                    continue
                unknown = set(rec) - {"ms", "keys"}
                if unknown or "ms" not in rec:
                    raise ValueError(f"{where}: a frame is {{\"ms\": ..., \"keys\": [...]}}, got {sorted(rec)}")
                frames.append(_check_frame(rec["ms"], rec.get("keys", []), where))
        if meta is None:
            raise ValueError(f"{path}: empty file, expected an {FORMAT} header")
        return cls(frames, meta)

    def save(self, path) -> None:
        with Recorder(path, **self.meta) as rec:
            for f in self.frames:
                rec.add(f.ms, f.keys)


class Recorder:
    """Writes a recording file frame by frame (a context manager)."""

    def __init__(self, path, **meta):
        self.path = path
        self._fh = open(path, "w", encoding="utf-8")
        self._fh.write(json.dumps({"format": FORMAT, "version": VERSION, **meta}) + "\n")
        self.count = 0

    def add(self, ms: float, keys) -> None:
        f = _check_frame(ms, keys, f"{self.path}: frame {self.count}")
        self._fh.write(json.dumps({"ms": f.ms, "keys": _sorted_keys(f.keys)}) + "\n")
        self.count += 1

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LiveInput:
    """Keys held now, as the viewer reports them; each frame takes a snapshot."""

    def __init__(self):
        self.keys = set()

    def press(self, key) -> None:
        self.keys.add(key)

    def release(self, key) -> None:
        self.keys.discard(key)

    def frame(self, ms: float) -> Frame:
        return _check_frame(ms, self.keys, "live input")


def run_frame(ctx, frame: Frame, recorder: Recorder | None = None) -> None:
    """One frame: the keys into the input manager, ``ctx.process_frame(ms)``,
    then the frame into the recorder."""
    ctx.input_manager.set_keys(frame.keys)
    ctx.process_frame(frame.ms)
    if recorder is not None:
        recorder.add(frame.ms, frame.keys)


def replay(ctx, recording: Recording, after_frame=None, recorder: Recorder | None = None) -> None:
    """Run every frame of a recording; ``after_frame(ctx, index)`` after each."""
    for i, f in enumerate(recording):
        run_frame(ctx, f, recorder)
        if after_frame is not None:
            after_frame(ctx, i)
