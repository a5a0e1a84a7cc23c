"""The CK managers a frame uses: time, input and messages (glue-and-content 1, 4)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ivp.fp import f32

BALLANCE_MIN_DELTA_MS = 1.0
BALLANCE_MAX_DELTA_MS = 1000.0
MAX_DELTA_MS = 10_000.0           # the largest clamp: with the largest time factor, 1000 s of physics a frame


class TimeManager:
    """The frame clock. Each frame's delta is clamped to [min, max] ms (Ballance:
    1..1000), which is also the guard against a stalled frame (a window drag, a
    breakpoint): such a gap counts as at most ``max_delta_ms`` instead of being
    replayed as thousands of PSIs. Deltas are CK floats (f32)."""

    def __init__(self, min_delta_ms: float = BALLANCE_MIN_DELTA_MS,
                 max_delta_ms: float = BALLANCE_MAX_DELTA_MS):
        self.set_clamp(min_delta_ms, max_delta_ms)
        self.reset()

    def set_clamp(self, min_delta_ms: float, max_delta_ms: float) -> None:
        for what, v in (("min_delta_ms", min_delta_ms), ("max_delta_ms", max_delta_ms)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"time manager: {what} must be a finite number >= 0, got {v!r}")
        if min_delta_ms > max_delta_ms:
            raise ValueError(f"time manager: min_delta_ms {min_delta_ms} > max_delta_ms {max_delta_ms}")
        if max_delta_ms > MAX_DELTA_MS:
            raise ValueError(f"time manager: max_delta_ms {max_delta_ms:g} is above {MAX_DELTA_MS:g} "
                             f"(limit MAX_DELTA_MS, docs/ck-api.md)")
        self.min_delta_ms = float(min_delta_ms)
        self.max_delta_ms = float(max_delta_ms)

    def reset(self) -> None:
        self.last_delta_ms = 0.0
        self.raw_delta_ms = 0.0
        self.absolute_time_ms = 0.0
        self.frame_count = 0

    def begin_frame(self, frame_ms: float) -> float:
        """Record a frame of ``frame_ms`` real milliseconds; returns the clamped delta."""
        if isinstance(frame_ms, bool) or not isinstance(frame_ms, (int, float)) or not math.isfinite(frame_ms):
            raise ValueError(f"process_frame: the frame time {frame_ms!r} must be a finite number of ms")
        self.raw_delta_ms = float(frame_ms)
        self.last_delta_ms = f32(min(max(float(frame_ms), self.min_delta_ms), self.max_delta_ms))
        self.absolute_time_ms += self.last_delta_ms
        self.frame_count += 1
        return self.last_delta_ms


class InputManager:
    """Key and mouse-button state per frame, fed by the viewer or a recording.

    ``set_keys`` (or ``press`` / ``release``) changes the state that the next
    frame sees; at the start of each frame the state is latched and compared with
    the previous frame's to give the pressed / released edges.
    """

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self._pending_keys = set()
        self._pending_buttons = set()
        self._keys = frozenset()
        self._prev_keys = frozenset()
        self._buttons = frozenset()
        self._prev_buttons = frozenset()
        self.mouse_position = (0.0, 0.0)

    @staticmethod
    def _names(items, what: str) -> set:
        if isinstance(items, str):
            items = (items,)
        out = set()
        for k in items:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"input manager: {what} must be names (str) or codes (int), got {k!r}")
            out.add(k)
        return out

    def set_keys(self, keys) -> None:
        """The keys held from the next frame on (replaces the previous set)."""
        self._pending_keys = self._names(keys, "keys")

    def press(self, key) -> None:
        self._pending_keys |= self._names((key,), "keys")

    def release(self, key) -> None:
        self._pending_keys.discard(key)

    def set_buttons(self, buttons) -> None:
        self._pending_buttons = self._names(buttons, "buttons")

    def begin_frame(self) -> None:
        self._prev_keys, self._keys = self._keys, frozenset(self._pending_keys)
        self._prev_buttons, self._buttons = self._buttons, frozenset(self._pending_buttons)

    def is_key_down(self, key) -> bool:
        return key in self._keys

    def was_key_pressed(self, key) -> bool:
        """Down this frame, up the frame before."""
        return key in self._keys and key not in self._prev_keys

    def was_key_released(self, key) -> bool:
        return key not in self._keys and key in self._prev_keys

    def is_button_down(self, button) -> bool:
        return button in self._buttons

    def was_button_pressed(self, button) -> bool:
        return button in self._buttons and button not in self._prev_buttons

    @property
    def keys_down(self) -> frozenset:
        return self._keys


@dataclass
class Message:
    """A named message with its sender, its recipient (None: broadcast) and data."""

    name: str
    recipient: object = None
    sender: object = None
    data: dict = field(default_factory=dict)


class MessageManager:
    """Named messages, delivered once per frame: a message sent during frame N is
    seen by the scripts of frame N + 1 (and only then)."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self._outbox = []
        self._delivered = []
        self._subscribers = []

    def send(self, name: str, to=None, sender=None, **data) -> None:
        """Send to an entity, to every entity of a group (a CKGroup), or, with
        ``to=None``, broadcast."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"message manager: a message name must be a non-empty string, got {name!r}")
        if hasattr(to, "entities"):
            for e in to.entities:
                self._outbox.append(Message(name, e, sender, data))
        else:
            self._outbox.append(Message(name, to, sender, data))

    def subscribe(self, name: str, callback, entity=None) -> None:
        """``callback(message)`` at delivery of ``name`` to ``entity`` (or to anyone)."""
        if not callable(callback):
            raise TypeError(f"message manager: the callback for {name!r} is not callable")
        self._subscribers.append((name, entity, callback))

    def unsubscribe(self, name: str, callback, entity=None) -> None:
        self._subscribers.remove((name, entity, callback))

    def begin_frame(self):
        """Deliver the messages sent during the previous frame; returns the
        (subscriber, message) calls to make."""
        self._delivered, self._outbox = self._outbox, []
        calls = []
        for msg in self._delivered:
            for name, entity, cb in self._subscribers:
                if name == msg.name and _reaches(msg, entity):
                    calls.append((cb, msg))
        return calls

    def received(self, name: str, entity=None) -> list:
        """The messages ``name`` delivered this frame to ``entity`` (broadcasts
        included; with entity None: all of them)."""
        return [m for m in self._delivered if m.name == name and _reaches(m, entity)]

    def was_received(self, name: str, entity=None) -> bool:
        return bool(self.received(name, entity))


def _reaches(msg: Message, entity) -> bool:
    return entity is None or msg.recipient is None or msg.recipient is entity
