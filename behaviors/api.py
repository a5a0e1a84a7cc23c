"""The behaviour API: Behavior, its manager, timers, delayed messages, initial conditions.

A behaviour is a Python object attached to an entity (or to the scene, entity
None). The context runs one BehaviorManager per context in its "behaviours and
blocks" phase (after input and message delivery, before physics). Each frame the
manager, in this order:

1. advances its clock by the frame's clamped delta (``ctx.time_manager``);
2. posts the delayed messages now due (the message manager delivers them at the
   start of the next frame, like any message);
3. starts the behaviours attached since the last frame (``on_start``);
4. hands each behaviour the messages of this frame it listens to (``on_message``);
5. runs ``on_frame(dt)`` of every behaviour, in attachment order;
6. runs the timers and one-shot hooks, in creation order (those created during
   this frame wait for the next);
7. hands out the outputs that the collision-detection and continuous-contact
   blocks of each behaviour fired during the previous frame's physics step
   (``on_collision``, ``on_contact``).

The sounds that behaviours emit during these steps (``Behavior.sound``) are
the frame's; the next frame forgets them (``behaviors.hooks.sound_events``).

A hook that raises stops its behaviour (its timers go, the blocks it owns are
destroyed) and is reported in ``ctx.errors`` / the console with the behaviour,
its entity, the hook and the traceback; the frame and every other behaviour go on.
A hook that does not return is stopped the same way when a watchdog runs
(``hook_watchdog(seconds)``, which ``ivp play`` and ``ivp run`` use): after
``seconds`` of one hook it raises HookTimeout in the hook, naming it.

Repeats of one behaviour, entity, hook and exception type (a behaviour made
again every frame that fails every time) are counted, not stored, after the
first ``bbglue.context.REPEATS_KEPT`` (``ctx.error_count``).
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field

from bbglue import blocks
from bbglue.blocks import PhysicsCollDetection, PhysicsContinuousContact
from bbglue.values import checked

from .params import declared_params

PENDING, RUNNING, STOPPED, FAILED = "pending", "running", "stopped", "failed"

DEFAULT_HOOK_TIME_LIMIT = 10.0      # seconds one hook may run under ``ivp play`` / ``ivp run``
HOOK_TIMEOUT_REPEAT = 0.1           # seconds between further HookTimeouts while the hook still runs


class HookTimeout(BaseException):
    """A hook ran past the watchdog's limit. Not an Exception, so a hook's own
    ``except Exception`` does not swallow it (and it is raised again every
    HOOK_TIMEOUT_REPEAT seconds until the hook is left)."""


_watchdog_limit = None              # seconds while a hook_watchdog is on (the main thread only)
_starts = []                        # the running hooks' start times (time.monotonic), innermost last
_armed = [False]                    # the interval timer is set


@contextmanager
def hook_watchdog(seconds: float | None = DEFAULT_HOOK_TIME_LIMIT, busy=None):
    """While inside, each behaviour hook and timer runs under a deadline of
    ``seconds`` of real time (a SIGALRM interval timer, Linux and other POSIX
    systems, the main thread): past it the hook gets a HookTimeout, and its
    behaviour fails as if it had raised. None or 0: no watchdog.

    A hook costs no system call: it puts its start time on a stack
    (:data:`_deadline`). The timer is set when a hook starts and none is
    set, and put off at the end of a frame's hooks; when it goes off, the
    innermost running hook older than ``seconds`` gets the HookTimeout (the
    timer set again for HOOK_TIMEOUT_REPEAT), a younger one has it set again
    for what is left of its time, and with no hook running it stays off.

    ``busy(frame)``: whether the running hook, its stack at ``frame``, is
    at work that is not its own (``ivp.jit.compiling``: a kernel compiled at
    its first call, up to a minute on a fresh install); a hook found so when
    its time is up gets its time again from then, and is looked at again
    every quarter of the limit (so it has at least three quarters of its time
    after that work ends)."""
    global _watchdog_limit
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return
    if not 0.0 < seconds < float("inf"):
        raise ValueError(f"the hook time limit must be a number of seconds > 0, got {seconds!r}")
    limit = float(seconds)

    def expired(_signum, _frame):
        if not _starts:
            _armed[0] = False
            return
        if busy is not None and busy(_frame):
            _starts[-1] = time.monotonic()          # its time again from now, and looked at again soon
            signal.setitimer(signal.ITIMER_REAL, limit / 4.0)
            return
        left = _starts[-1] + limit - time.monotonic()
        if left > 0.0:
            signal.setitimer(signal.ITIMER_REAL, left)
            return
        _starts[-1] += HOOK_TIMEOUT_REPEAT      # raised again after HOOK_TIMEOUT_REPEAT if it goes on
        signal.setitimer(signal.ITIMER_REAL, HOOK_TIMEOUT_REPEAT)
        raise HookTimeout(f"the hook did not return within {seconds:g} s (the watchdog's limit)")

    old = signal.signal(signal.SIGALRM, expired)
    _watchdog_limit = limit
    try:
        yield
    finally:
        _watchdog_limit = None
        _starts.clear()
        _armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


class _Deadline:
    """``with _deadline:`` around one hook: its start on the watchdog's stack
    when a watchdog is on (the timer set if it is off)."""

    __slots__ = ()

    def __enter__(self):
        if _watchdog_limit is not None:
            _starts.append(time.monotonic())
            if not _armed[0]:
                _armed[0] = True
                signal.setitimer(signal.ITIMER_REAL, _watchdog_limit)

    def __exit__(self, *exc) -> bool:
        if _starts:
            _starts.pop()
        return False


_deadline = _Deadline()


def _timer_off() -> None:
    """The watchdog's timer off when no hook runs (at the end of a frame's
    hooks: no SIGALRM between the frames)."""
    if _armed[0] and not _starts:
        _armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0.0)


@dataclass
class BehaviorError:
    """A hook that raised: which behaviour, on which entity, in which hook."""

    behavior: str
    entity: str
    hook: str
    frame: int
    error: BaseException
    traceback: str

    def __str__(self) -> str:
        return (f"behaviour {self.behavior!r} on {self.entity} raised in {self.hook} "
                f"(frame {self.frame}): {type(self.error).__name__}: {self.error}\n{self.traceback}")


@dataclass
class Timer:
    """A timer or per-frame hook owned by a behaviour (see Behavior.after/every/each_frame)."""

    owner: "Behavior"
    fn: object
    period_ms: float | None         # None: a per-frame hook
    next_ms: float
    repeat: bool
    frame_created: int
    done: bool = False
    args: tuple = ()                # fn(*args): a bound method and its arguments snapshot, a lambda does not

    def cancel(self) -> None:
        self.done = True


@dataclass
class CollisionEvent:
    """A PhysicsCollDetection "Collision" output: the owner's body hit ``other``."""

    entity: object
    other: object
    speed: float                # Speed (0-1)
    normal: tuple               # Collision Normal World
    position: tuple             # Position World


@dataclass
class ContactEvent:
    """A PhysicsContinuousContact output: contact ``on`` (or off) with group ``group``."""

    entity: object
    group: int
    on: bool


SOUND_ACTIONS = ("play", "loop", "set", "stop")


@dataclass(frozen=True)
class SoundEvent:
    """A sound the rules decided, for the viewer or a sound log
    (``behaviors.hooks.sound_events``): ``action`` "play" (once), "loop"
    (start ``name`` looping), "set" (a loop's new volume and pitch) or
    "stop" (end the loop); ``time`` is the behaviour clock in seconds."""

    time: float
    name: str
    volume: float
    pitch: float
    action: str


@dataclass(frozen=True)
class Emitter:
    """A particle emitter a behaviour wants drawn (``behaviors.hooks.emitters``):
    ``name`` one per emitter (its particles live on across frames), ``kind``
    what the viewer draws ("flame"), ``position`` in the world, ``size`` the
    scale of its particles (1: the viewer's size of the kind)."""

    name: str
    kind: str
    position: tuple
    size: float = 1.0


@dataclass(frozen=True)
class BlobShadow:
    """A round shadow a behaviour wants cast straight down
    (``behaviors.hooks.blob_shadows``) from ``position`` onto the first of
    ``receivers`` (entities) within ``max_height`` below it, ``radius`` wide."""

    position: tuple
    radius: float
    receivers: tuple
    max_height: float


@dataclass(order=True)
class _Delayed:
    due_ms: float
    seq: int
    name: str = field(compare=False)
    to: object = field(compare=False)
    sender: object = field(compare=False)
    data: dict = field(compare=False)


class Behavior:
    """Base class of every behaviour. Override the hooks you need.

    Attributes: ``ctx`` (the CKContext), ``entity`` (the owner, or None for a
    scene behaviour), ``name`` (the registered name), ``state`` (pending,
    running, stopped, failed) and every declared Param. Class attributes:
    ``messages``, the message names ``on_message`` receives; ``needs_entity``,
    what the owner is when the behaviour needs one (a scene entry without
    ``entity:`` is refused at load); ``makes``, the names of its parameters
    that name entities it creates when the scene has none (later entries and
    the loader may name them).
    """

    messages: tuple = ()
    needs_entity: str = ""
    makes: tuple = ()
    registered_name: str | None = None

    def __init__(self, ctx, entity=None, **params):
        self.ctx = ctx
        self.entity = entity
        self.name = self.registered_name or type(self).__name__
        self.state = PENDING
        self.manager = None
        self._owned_blocks = []
        decl = declared_params(type(self))
        for k in params:
            if k not in decl:
                raise TypeError(f"{self.name}: unknown parameter {k!r}")
        if self.needs_entity and entity is None:
            raise TypeError(f"{self.name}: needs an entity ({self.needs_entity})")
        for k, p in decl.items():
            explicit = k in params
            if not explicit and p.required:
                raise TypeError(f"{self.name}: missing required parameter {k!r}")
            value = params[k] if explicit else p.default
            setattr(self, k, checked(lambda v: p.coerce(ctx, v, explicit), value, f"{self.name}: parameter {k!r}"))

    def __repr__(self) -> str:
        on = self.entity.name if self.entity is not None else "the scene"
        return f"<{type(self).__name__} {self.name!r} on {on} ({self.state})>"

    # --- hooks ---------------------------------------------------------------------

    def on_start(self) -> None:
        """The first frame after attachment (and after a reset)."""

    def on_frame(self, dt: float) -> None:
        """Every frame before physics; ``dt`` is the frame's clamped delta in seconds."""

    def on_message(self, message) -> None:
        """A message named in ``messages`` delivered to the entity (or broadcast)."""

    def on_collision(self, event) -> None:
        """A PhysicsCollDetection output of a block made with ``collision_detection``."""

    def on_contact(self, event) -> None:
        """A PhysicsContinuousContact on/off output of a block made with ``continuous_contact``."""

    def on_stop(self) -> None:
        """Detached by ``stop()`` or by the manager."""

    def on_reset(self) -> None:
        """The behaviour is reset (``BehaviorManager.reset``); on_start follows next frame."""

    # --- frame state ------------------------------------------------------------

    @property
    def time(self) -> float:
        """The behaviour clock in seconds: the sum of the clamped frame deltas."""
        return self.manager.time_ms * 0.001

    def key_down(self, key) -> bool:
        return self.ctx.input_manager.is_key_down(key)

    def key_pressed(self, key) -> bool:
        return self.ctx.input_manager.was_key_pressed(key)

    def key_released(self, key) -> bool:
        return self.ctx.input_manager.was_key_released(key)

    # --- timers --------------------------------------------------------------------

    def after(self, seconds: float, fn, *args) -> Timer:
        """``fn(*args)`` once, in the first frame at least ``seconds`` after now."""
        return self.manager.add_timer(self, fn, seconds, repeat=False, args=args)

    def every(self, seconds: float, fn, *args) -> Timer:
        """``fn(*args)`` each time another ``seconds`` has passed (several calls
        in a long frame); ``seconds`` is at least one PSI of the physics world."""
        psi = self.ctx.physics.psi_length
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0.0 <= seconds < psi:
            raise ValueError(f"{self!r}: every({seconds!r}): a period shorter than one PSI ({psi:g} s) "
                             f"would call it more often than the world steps")
        return self.manager.add_timer(self, fn, seconds, repeat=True, args=args)

    def each_frame(self, fn) -> Timer:
        """``fn(dt)`` every frame from the next one until it returns True."""
        return self.manager.add_timer(self, fn, None, repeat=True)

    def next_frame(self, fn, *args) -> Timer:
        """``fn(*args)`` once, next frame."""
        return self.manager.add_timer(self, fn, 0.0, repeat=False, args=args)

    # --- messages ---------------------------------------------------------------------

    def send(self, name: str, to=None, delay: float = 0.0, **data) -> None:
        """Send (``to`` an entity or group) or broadcast (``to=None``) a message,
        now or ``delay`` seconds from now; the sender is this behaviour's entity."""
        self.manager.post(name, to, self.entity, data, delay)

    def sound(self, name: str, volume: float = 1.0, pitch: float = 1.0, action: str = "play") -> None:
        """Emit a SoundEvent (volume 0 to 1, pitch > 0): the frame's sounds are
        read after it by ``behaviors.hooks.sound_events``."""
        self.manager.emit_sound(self, name, volume, pitch, action)

    # --- blocks and initial conditions ---------------------------------------------------

    def own(self, block):
        """Keep a building block of this behaviour: disposed of (its Destroy
        input, and a reset of its bodies no longer makes its object again)
        when the behaviour stops, fails or is reset."""
        self._owned_blocks.append(block)
        return block

    def dispose(self, block) -> None:
        """Dispose of an owned block now (see ``own``); a watched one's outputs
        no longer come."""
        self.manager.dispose(self, block)

    def collision_detection(self, entity=None, **pins):
        """A PhysicsCollDetection on ``entity`` (default: the owner), created now;
        its Collision outputs come to ``on_collision`` as CollisionEvents."""
        return self.manager.watch(self, PhysicsCollDetection(entity or self.entity, self.ctx, **pins))

    def continuous_contact(self, entity=None, **pins):
        """A PhysicsContinuousContact on ``entity`` (default: the owner), created
        now; its "contact on / off N" outputs come to ``on_contact`` as ContactEvents."""
        return self.manager.watch(self, PhysicsContinuousContact(entity or self.entity, self.ctx, **pins))

    def save_ic(self, *entities) -> None:
        """Save the initial conditions of entities (default: the owner)."""
        for e in entities or (self.entity,):
            self.manager.save_ic(e)

    def restore_ic(self, *entities) -> None:
        """Restore the saved initial conditions (default: the owner)."""
        for e in entities or (self.entity,):
            self.manager.restore_ic(e)

    def reset_bodies(self, *entities) -> list:
        """Restore the saved initial conditions of entities (default: the owner)
        and put their bodies back there, with their joints and springs
        (``bbglue.blocks.reset_bodies``); returns the entities that had a body."""
        return self.manager.reset_bodies(entities or (self.entity,))

    def stop(self) -> None:
        """Detach this behaviour (on_stop runs)."""
        self.manager.stop(self)


@dataclass
class InitialConditions:
    """What ``save_ic`` keeps of an entity: local matrix, parent, visibility, attributes."""

    local: object
    parent: object
    visible: bool
    attributes: dict


class BehaviorManager:
    """Runs the behaviours of one context (see the module docstring for the order)."""

    _found = None                       # find's answers until the next attach or detach

    def __init__(self, ctx):
        self.ctx = ctx
        self.behaviors = []
        self.timers = []
        self.errors = []
        self.time_ms = 0.0
        self.frame = 0
        self._delayed = []
        self._seq = 0
        self._watched = []
        self._ic = {}
        self.sounds = []                # the SoundEvents of the last frame

    def __getstate__(self) -> dict:
        """The fields without find's answers, a memo made again on demand: a
        snapshot (and its hash) is the same whoever looked behaviours up."""
        state = self.__dict__.copy()
        state.pop("_found", None)
        return state

    # --- attachment -------------------------------------------------------------------

    def attach(self, behavior: Behavior) -> Behavior:
        if not isinstance(behavior, Behavior):
            raise TypeError(f"behaviour manager: {behavior!r} is not a Behavior")
        if behavior.manager is not None:
            raise ValueError(f"{behavior!r} is already attached")
        behavior.manager = self
        behavior.state = PENDING
        self.behaviors.append(behavior)
        self._found = None
        return behavior

    def stop(self, behavior: Behavior) -> None:
        if behavior not in self.behaviors:
            return
        if behavior.state == RUNNING:
            self._call(behavior, "on_stop")
        self._detach(behavior, STOPPED)

    def _detach(self, behavior: Behavior, state: str) -> None:
        behavior.state = state
        self._drop_timers(behavior)
        self._destroy_blocks(behavior)
        if behavior in self.behaviors:
            self.behaviors.remove(behavior)
            self._found = None

    def _drop_timers(self, behavior: Behavior) -> None:
        for t in self.timers:
            if t.owner is behavior:
                t.done = True
        self.timers = [t for t in self.timers if not t.done]

    def _destroy_blocks(self, behavior: Behavior) -> None:
        blocks, behavior._owned_blocks = behavior._owned_blocks, []
        self._watched = [(b, blk) for b, blk in self._watched if b is not behavior]
        for blk in blocks:
            try:
                blk.dispose()
            except Exception as exc:
                self.ctx.report_error(f"{behavior!r}: destroying {blk!r}", exc)

    def find(self, cls_or_name) -> list:
        """Attached behaviours of a class or registered name, in attachment
        order. The answers are kept until a behaviour is attached or
        detached (the behaviours of a frame look up the player, the camera
        and the level many times a frame)."""
        if self._found is None:
            self._found = {}
        hit = self._found.get(cls_or_name)
        if hit is None:
            if isinstance(cls_or_name, str):
                hit = tuple(b for b in self.behaviors if b.name == cls_or_name)
            else:
                hit = tuple(b for b in self.behaviors if isinstance(b, cls_or_name))
            self._found[cls_or_name] = hit
        return list(hit)

    def reset(self) -> None:
        """Every behaviour: timers dropped, owned blocks disposed of, ``on_reset``,
        then ``on_start`` again next frame; delayed messages are dropped. Every
        entity with saved initial conditions gets them back, and the
        physicalized ones their bodies there, with the joints and springs not
        owned by a behaviour (``reset_bodies``)."""
        self._delayed = []
        for b in list(self.behaviors):
            self._drop_timers(b)
            self._destroy_blocks(b)
            if self._call(b, "on_reset"):
                b.state = PENDING
        self.reset_bodies(list(self._ic))

    # --- hooks with isolation ------------------------------------------------------------

    def _call(self, b: Behavior, hook: str, *args) -> bool:
        try:
            with _deadline:
                getattr(b, hook)(*args)
            return True
        except (Exception, HookTimeout) as exc:
            self._fail(b, hook, exc)
            return False

    def _fail(self, b: Behavior, hook: str, exc: BaseException) -> None:
        on = repr(b.entity.name) if b.entity is not None else "the scene"
        where = f"behaviour {b.name!r} on {on}, in {hook}"
        if self.ctx.count_error(exc, (b.name, on, hook, type(exc).__name__), where):
            err = BehaviorError(b.name, on, hook, self.ctx.time_manager.frame_count, exc,
                                "".join(traceback.format_exception(exc)))
            self.errors.append(err)
            self.ctx.store_error(where, exc)
        self._detach(b, FAILED)

    # --- timers and messages -------------------------------------------------------------

    def add_timer(self, owner: Behavior, fn, seconds, repeat: bool, args: tuple = ()) -> Timer:
        if not callable(fn):
            raise TypeError(f"{owner!r}: a timer needs a callable, got {fn!r}")
        period = None
        if seconds is not None:
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds >= 0.0 \
                    or seconds == float("inf") or (repeat and seconds == 0.0):
                raise ValueError(f"{owner!r}: a timer needs a finite time in seconds"
                                 f"{' > 0' if repeat else ' >= 0'}, got {seconds!r}")
            period = float(seconds) * 1000.0
        t = Timer(owner, fn, period, self.time_ms + (period or 0.0), repeat, self.frame, args=tuple(args))
        self.timers.append(t)
        return t

    def post(self, name: str, to, sender, data: dict, delay: float = 0.0) -> None:
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0.0 <= delay < float("inf"):
            raise ValueError(f"message {name!r}: the delay must be a finite number of seconds >= 0, got {delay!r}")
        if delay == 0.0:
            self.ctx.message_manager.send(name, to, sender, **data)
        else:
            self._seq += 1
            self._delayed.append(_Delayed(self.time_ms + delay * 1000.0, self._seq, name, to, sender, data))
            self._delayed.sort()

    def dispose(self, behavior: Behavior, block) -> None:
        """Behavior.dispose: the block no longer owned nor watched, then disposed of."""
        behavior._owned_blocks = [b for b in behavior._owned_blocks if b is not block]
        self._watched = [(b, blk) for b, blk in self._watched if blk is not block]
        block.dispose()

    def emit_sound(self, behavior: Behavior, name, volume, pitch, action) -> None:
        """Behavior.sound: checked, then kept with this frame's sounds."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"{behavior!r}: a sound needs a name, got {name!r}")
        if action not in SOUND_ACTIONS:
            raise ValueError(f"{behavior!r}: sound {name!r}: the action must be one of {SOUND_ACTIONS}, "
                             f"got {action!r}")
        for what, v, ok in (("volume", volume, lambda x: 0.0 <= x <= 1.0), ("pitch", pitch, lambda x: 0.0 < x < 1e3)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not ok(v):
                raise ValueError(f"{behavior!r}: sound {name!r}: the {what} must be a number "
                                 f"{'from 0 to 1' if what == 'volume' else 'above 0 (below 1000)'}, got {v!r}")
        self.sounds.append(SoundEvent(self.time_ms * 0.001, name, float(volume), float(pitch), action))

    def watch(self, behavior: Behavior, block):
        """Own a collision / contact block, create it, and hand its outputs to the behaviour."""
        behavior.own(block)
        block.create()
        self._watched.append((behavior, block))
        return block

    def _deliver_events(self) -> None:
        """Step 7: the outputs each watched block fired since the last frame."""
        self._watched = [(b, blk) for b, blk in self._watched if b.state in (PENDING, RUNNING)]
        for b, blk in self._watched:
            for out in blk.take_outputs():
                if b.state != RUNNING:
                    break
                if out == "Collision":
                    o = blk.outputs
                    ev = CollisionEvent(blk.target, o["Entity"], o["Speed (0-1)"], o["Collision Normal World"],
                                        o["Position World"])
                    self._call(b, "on_collision", ev)
                elif out.startswith("contact "):
                    _, state, group = out.split()
                    self._call(b, "on_contact", ContactEvent(blk.target, int(group), state == "on"))

    # --- initial conditions ----------------------------------------------------------------

    def save_ic(self, entity) -> None:
        self._ic[entity] = InitialConditions(entity.get_local_matrix(), entity.parent,
                                             entity.is_visible(), entity.attributes)

    def restore_ic(self, entity) -> None:
        """Back to the saved state. A physicalized entity is not moved by this
        (the physics owns its pose): ``reset_bodies`` puts its body back too."""
        ic = self._ic_of(entity)
        if entity.parent is not ic.parent:
            entity.set_parent(ic.parent, keep_world_pos=False)
        entity.set_local_matrix(ic.local)
        entity.visible = ic.visible
        for k in entity.attributes:
            if k not in ic.attributes:
                entity.remove_attribute(k)
        for k, v in ic.attributes.items():
            entity.set_attribute(k, v)

    def _ic_of(self, entity) -> InitialConditions:
        ic = self._ic.get(entity)
        if ic is None:
            raise KeyError(f"no initial conditions saved for {entity!r}")
        return ic

    def reset_bodies(self, entities) -> list:
        """``restore_ic`` of each entity, then the glue's reset_bodies with the
        restored world matrices (entities without a body keep the rest of
        their initial conditions restored). Every entity must have saved ones."""
        for e in entities:
            self._ic_of(e)
        for e in entities:
            self.restore_ic(e)
        return blocks.reset_bodies(self.ctx, {e: e.get_world_matrix() for e in entities})

    # --- the frame ---------------------------------------------------------------------------

    def process(self, ctx) -> None:
        """One frame of behaviours (module docstring)."""
        self.sounds = []
        self.frame += 1
        self.time_ms += float(ctx.time_manager.last_delta_ms)
        dt = float(ctx.time_manager.last_delta_ms) * 0.001
        while self._delayed and self._delayed[0].due_ms <= self.time_ms:
            d = self._delayed.pop(0)
            ctx.message_manager.send(d.name, d.to, d.sender, **d.data)
        for b in [b for b in self.behaviors if b.state == PENDING]:
            b.state = RUNNING
            self._call(b, "on_start")
        mm = ctx.message_manager
        for b in self._running():
            for name in b.messages:
                for msg in mm.received(name, b.entity):
                    if b.state == RUNNING:
                        self._call(b, "on_message", msg)
        for b in self._running():
            self._call(b, "on_frame", dt)
        self._run_timers(dt)
        self._deliver_events()
        _timer_off()

    def _running(self) -> list:
        return [b for b in self.behaviors if b.state == RUNNING]

    def _run_timers(self, dt: float) -> None:
        for t in list(self.timers):
            if t.done or t.frame_created == self.frame or t.owner.state != RUNNING:
                continue
            if t.period_ms is None:
                try:
                    with _deadline:
                        finished = t.fn(dt)
                except (Exception, HookTimeout) as exc:
                    self._fail(t.owner, f"timer {_fn_name(t.fn)}", exc)
                    continue
                t.done = t.done or finished is True
                continue
            while not t.done and t.next_ms <= self.time_ms and t.owner.state == RUNNING:
                t.done = not t.repeat
                t.next_ms += t.period_ms
                try:
                    with _deadline:
                        t.fn(*t.args)
                except (Exception, HookTimeout) as exc:
                    self._fail(t.owner, f"timer {_fn_name(t.fn)}", exc)
        self.timers = [t for t in self.timers if not t.done]


def _fn_name(fn) -> str:
    return getattr(fn, "__qualname__", repr(fn))


MANAGER_NAME = "behaviors"          # the BehaviorManager's name in the context's frame loop


def manager_of(ctx, create: bool = True) -> BehaviorManager | None:
    """The context's BehaviorManager, created and added to its frame loop on first
    use (with ``create=False``: None when the context has none). It lives in the
    context only, so it goes with it and comes back with a restored snapshot."""
    m = ctx.behavior_named(MANAGER_NAME)
    if m is None and create:
        m = BehaviorManager(ctx)
        ctx.add_behavior(m, name=MANAGER_NAME)
    return m
