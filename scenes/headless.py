"""Headless runs: the frame loop without a window, with a trajectory, a trace and
a summary.

Each frame is ``ctx.process_frame(frame_ms)``: input, behaviours, then the
physics manager's step (glue-and-content 1): smoothed_ms = (frame + 3 *
smoothed) / 4 from 0, dt = smoothed * 0.001 * time factor, env.simulate(dt),
write-back. Without smoothing each frame's clamped time goes to simulate as it
is. Scripted input comes from a recording (behaviors.recording: per-frame keys
and frame times).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import time
import traceback
from dataclasses import asdict, dataclass

from bbglue.values import did_you_mean
from ivp import MT_MOVING, ObjectListener, rng, umath
from ivp.limits import interrupt_deferred

DEFAULT_FRAME_MS = 1000.0 / 60.0


# --- measures ------------------------------------------------------------------------

def movable_bodies(ctx):
    """(entity, body) of every physicalized entity that is not fixed, in registry order."""
    return [(r.entity, r.body) for r in ctx.physics.registry.values() if not r.body.core.physical_unmoveable]


def body_energies(env):
    """Kinetic (linear and rotational, core axes) plus gravitational energy of
    each movable body, in object order (env.movable_motion), the potential
    measured from the origin: E = m v^2 / 2 + I w^2 / 2 - m g . p. After a PSI
    a core holds its position p_k and the speed v that takes it to p_k + v dt
    at the next one (spec 8); taking p halfway, at p_k + v dt / 2, makes E
    exactly constant in free fall."""
    m, inertia, v, w, p = env.movable_motion()
    g = env.gravity
    half_dt = 0.5 * env.delta_PSI_time
    kinetic = 0.5 * m * (v * v).sum(axis=1) + 0.5 * (inertia * w * w).sum(axis=1)
    potential = m * ((p + v * half_dt) * g).sum(axis=1)
    return kinetic - potential


def energy(env) -> float:
    """The energy of all movable bodies (body_energies)."""
    return float(body_energies(env).sum())


def body_energy(env, obj) -> float:
    """The energy of one movable object of ``env`` (body_energies)."""
    movable = [o for o in env.objects if not o.core.physical_unmoveable]
    return float(body_energies(env)[movable.index(obj)])


def body_pose(body, t: float):
    """The object's position and quaternion (x, y, z, w) at time t (its entity's frame)."""
    R, vv = body.get_m_world_f_object_AT(t)
    return tuple(vv), umath.matrix_to_quat(R)


def awake_count(env) -> int:
    return sum(1 for o in env.objects if o.object_state == MT_MOVING)


@dataclass
class Summary:
    scene: str
    frames: int
    frame_seconds: float          # the sum of the frame times given to the context
    simulated_seconds: float      # env.current_time
    psis: int
    bodies: int
    awake: int
    energy_start: float
    energy_end: float
    energy_max: float
    finite: bool                  # no NaN or infinity in any body state
    errors: int                   # behaviour and block errors reported by the context (repeats too)
    wall_seconds: float
    interrupted: int | None       # Ctrl-C stopped the run after this many frames (None: it ran to its end)

    def text(self) -> str:
        rate = self.psis / self.wall_seconds if self.wall_seconds > 0 else float("inf")
        return (f"{self.scene}: {self.frames} frames, {self.frame_seconds:.3f} s of frame time, "
                f"{self.simulated_seconds:.3f} s simulated, {self.psis} PSIs\n"
                f"bodies {self.bodies} (awake at the end {self.awake}), energy {self.energy_start:.6g} -> "
                f"{self.energy_end:.6g} (max {self.energy_max:.6g}), "
                f"{'finite' if self.finite else 'NaN or infinity!'}, {self.errors} errors\n"
                f"wall time {self.wall_seconds:.2f} s ({rate:.0f} PSIs/s)"
                + (f"\ninterrupted at frame {self.interrupted}" if self.interrupted is not None else ""))


def finite_state(env) -> bool:
    for o in env.objects:
        c = o.core
        for vec in (c.speed, c.rot_speed, c.pos_world_f_core_last_psi, c.q_world_f_core_last_psi):
            if not all(math.isfinite(x) for x in vec):
                return False
    return True


# --- errors --------------------------------------------------------------------------

def error_line(error) -> str:
    """One line for an error of ``ctx.errors``: the frame, who raised (the
    behaviour, its entity and hook, or the block) and the exception's first line."""
    first = str(error.error).splitlines()
    what = type(error.error).__name__ + (f": {first[0]}" if first else "")
    return f"frame {error.frame}: {error.where.splitlines()[0]}: {what}"


def error_text(error) -> str:
    """The line of `error_line` and the full traceback."""
    return error_line(error) + "\n" + "".join(traceback.format_exception(error.error)).rstrip()


# --- recordings ------------------------------------------------------------------------

def declared_keys(ctx) -> frozenset:
    """Every key named by a behaviour's ``*_key`` parameter (navigation, camera
    turn and raise): the keys the scene's gameplay reads."""
    from behaviors.api import manager_of
    from behaviors.params import declared_params
    keys = set()
    manager = manager_of(ctx, create=False)
    for b in (manager.behaviors if manager is not None else ()):
        for name in declared_params(type(b)):
            value = getattr(b, name, None)
            if name.endswith("_key") and isinstance(value, str):
                keys.add(value)
    return frozenset(keys)


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def recording_warnings(recording, path, scene) -> list[str]:
    """What in a recording does not fit the scene, located by line: a header
    naming another scene (its file's stem, file name or scene name names this
    one), and (when the scene's behaviours declare keys) each key none of them
    reads, once, with a did-you-mean."""
    out = []
    recorded_on = recording.meta.get("scene")
    stem = _stem(scene.path)
    if recorded_on is not None and not {recorded_on, _stem(str(recorded_on))} & {stem, scene.name}:
        out.append(f"{path}:1: the recording was made on scene {recorded_on!r}, this is {stem!r}")
    seed = recording.meta.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"{path}:1: the header's seed must be an integer, got {seed!r}")
    known = declared_keys(scene.ctx)
    if not known:
        return out
    with open(path, encoding="utf-8") as fh:
        lines = [n for n, text in enumerate(fh, 1) if text.strip()][1:]     # frame i is on lines[i]
    seen = set()
    for i, frame in enumerate(recording):
        for k in sorted(frame.keys - known - seen, key=str):
            seen.add(k)
            out.append(f"{path}:{lines[i]}: key {k!r} is read by no behaviour of the scene"
                       f"{did_you_mean(k, known)}")
    return out


# --- outputs -------------------------------------------------------------------------

class Trajectory:
    """CSV (by default) or JSON lines (.jsonl / .ndjson): one row per frame and
    movable body: frame, time, entity, position, quaternion (x, y, z, w), awake.
    A frame's rows go to the file in one write, so a Ctrl-C leaves whole frames."""

    FIELDS = ("frame", "time", "entity", "x", "y", "z", "qx", "qy", "qz", "qw", "awake")

    def __init__(self, path: str):
        self.fh = open(path, "w", encoding="utf-8", newline="")
        self.jsonl = path.endswith((".jsonl", ".ndjson"))
        self.rows = io.StringIO()           # a frame's rows before they are written
        if not self.jsonl:
            self.csv = csv.writer(self.rows)
            self.csv.writerow(self.FIELDS)
            self._write_rows()

    def frame(self, n: int, ctx) -> None:
        env = ctx.physics.env
        for ent, body in movable_bodies(ctx):
            p, q = body_pose(body, env.current_time)
            row = (n, env.current_time, ent.name, *p, *q, int(body.object_state == MT_MOVING))
            if self.jsonl:
                self.rows.write(json.dumps(dict(zip(self.FIELDS, row))) + "\n")
            else:
                self.csv.writerow(row)
        self._write_rows()

    def _write_rows(self) -> None:
        self.fh.write(self.rows.getvalue())
        self.rows.seek(0)
        self.rows.truncate()

    def close(self) -> None:
        self.fh.close()


class SoundLog:
    """CSV of the sounds the behaviours decided (``behaviors.hooks.sound_events``):
    time (the behaviour clock, s), name, volume, pitch, action (play, loop,
    set, stop), one row per event, a frame's rows in one write."""

    FIELDS = ("time", "name", "volume", "pitch", "action")

    def __init__(self, path: str):
        self.fh = open(path, "w", encoding="utf-8", newline="")
        self.fh.write(",".join(self.FIELDS) + "\n")

    def frame(self, n: int, ctx) -> None:
        from behaviors import hooks
        rows = io.StringIO()
        writer = csv.writer(rows)
        for e in hooks.sound_events(ctx):
            writer.writerow((repr(e.time), e.name, repr(e.volume), repr(e.pitch), e.action))
        self.fh.write(rows.getvalue())

    def close(self) -> None:
        self.fh.close()


class Trace(ObjectListener):
    """JSON lines for debugging and comparing engines: one record per frame (or,
    per PSI, one at each PSI's start) with the time, the PSI count, the RNG seed,
    the sleep countdown, every movable body (position, quaternion x y z w,
    linear speed, rot_speed in core axes, movement state, awake) and the events
    since the last record (revived, frozen, impact, contact created / deleted)."""

    def __init__(self, path: str, per_psi: bool):
        self.fh = open(path, "w", encoding="utf-8")
        self.per_psi = per_psi
        self.events = []
        self.env = None
        self.frame_no = 0

    def attach(self, env) -> None:
        """Listen to the world (again after Clean Physics World made a new one)."""
        if env is self.env:
            return
        self.env = env
        env.add_listener_object(self)
        if env.collision is not None:
            env.collision.add_listener_collision(self)
            env.collision.add_listener_contact(self)
        if self.per_psi:
            env.add_listener_psi(self.record)

    def _event(self, kind: str, *objs, **extra) -> None:
        self.events.append({"event": kind, "time": self.env.current_time,
                            "bodies": [o.name for o in objs], **extra})

    def event_object_revived(self, obj) -> None:
        self._event("revived", obj)

    def event_object_frozen(self, obj) -> None:
        self._event("frozen", obj)

    def event_post_collision(self, ev) -> None:
        self._event("impact", ev.obj0, ev.obj1, speed=ev.speed_abs, velocity=list(ev.speed), point=list(ev.point_ws),
                    normal=list(ev.normal_ws))

    def event_friction_created(self, ev) -> None:
        self._event("contact created", ev.obj0, ev.obj1, point=list(ev.point_ws))

    def event_friction_deleted(self, ev) -> None:
        self._event("contact deleted", ev.obj0, ev.obj1)

    def record(self, env) -> None:
        t = env.current_time
        bodies = []
        for obj in env.objects:
            c = obj.core
            if c.physical_unmoveable:
                continue
            p, q = body_pose(obj, t)
            bodies.append({"name": obj.name, "position": list(p), "quaternion": list(q),
                           "speed": list(c.speed), "rot_speed": list(c.rot_speed),
                           "movement_state": c.movement_state, "awake": obj.object_state == MT_MOVING})
        self.fh.write(json.dumps({"frame": self.frame_no, "time": t, "psi": env.psi_count, "seed": rng.get_seed(),
                                  "sleep_countdown": env.sleep_countdown_value, "bodies": bodies,
                                  "events": self.events}) + "\n")
        self.events = []

    def close(self) -> None:
        self.fh.close()


class Progress:
    """A one-line progress bar on a terminal (nothing when not a terminal)."""

    def __init__(self, total: int, stream):
        self.total = max(total, 1)
        self.stream = stream if stream is not None and stream.isatty() else None
        self.last = 0.0

    def update(self, n: int, ctx, force: bool = False) -> None:
        now = time.perf_counter()
        if self.stream is None or (now - self.last < 0.1 and not force):
            return
        self.last = now
        env = ctx.physics.env
        k = int(30 * n / self.total)
        self.stream.write(f"\r[{'#' * k}{'-' * (30 - k)}] {100 * n // self.total:3d}%  frame {n}/{self.total}  "
                          f"t={env.current_time:7.3f} s  PSIs {env.psi_count}  awake {awake_count(env)} ")
        self.stream.flush()

    def done(self) -> None:
        if self.stream is not None:
            self.stream.write("\n")


# --- the run -------------------------------------------------------------------------

MAX_RUN_FRAMES = 10_000_000     # frames one run may have (a list of them is never built)


def check_run_length(seconds: float | None, frame_ms: float) -> None:
    """ValueError naming --seconds or --frame-ms unless the run is a finite
    number of seconds >= 0 in frames of a positive time, MAX_RUN_FRAMES at most."""
    if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"the length of a run (--seconds) must be a number of seconds >= 0, got {seconds!r}")
    if not (math.isfinite(frame_ms) and frame_ms > 0):
        raise ValueError(f"the frame time (--frame-ms) must be a positive number of ms, got {frame_ms!r}")
    if seconds is not None and seconds * 1000.0 / frame_ms > MAX_RUN_FRAMES:
        raise ValueError(f"--seconds {seconds:g} in frames of --frame-ms {frame_ms:g} is "
                         f"{seconds * 1000.0 / frame_ms:.3g} frames, more than {MAX_RUN_FRAMES} "
                         "(limit MAX_RUN_FRAMES, docs/scenes.md)")


class FrameTimes:
    """(ms, keys or None) per frame, made as they are taken: a recording's
    frames first, then frames of ``frame_ms`` without keys until ``seconds`` of
    frame time (a recording longer than that stops there). Without ``seconds``
    the run lasts the recording. ``len`` is the number of frames, ``recorded``
    how many come from the recording."""

    def __init__(self, seconds: float | None, frame_ms: float, recording=None):
        check_run_length(seconds, frame_ms)
        self.frame_ms = frame_ms
        self.recorded = 0
        self.recorded_ms = 0.0
        for f in recording if recording is not None else ():
            if seconds is not None and self.recorded_ms >= seconds * 1000.0 - 1e-9:
                break
            self.recorded += 1
            self.recorded_ms += f.ms
        self._recording = recording
        rest = 0.0 if seconds is None else seconds * 1000.0 - self.recorded_ms
        self.added = max(0, int(math.ceil(rest / frame_ms - 1e-9)))

    def __len__(self) -> int:
        return self.recorded + self.added

    def __iter__(self):
        for f in itertools.islice(self._recording or (), self.recorded):
            yield f.ms, f.keys
        keys = None if self._recording is None else frozenset()      # the recording's keys are let go
        for _ in range(self.added):
            yield self.frame_ms, keys


def run(scene, seconds: float | None = None, frame_ms: float = DEFAULT_FRAME_MS, time_factor: float | None = None,
        smoothing: bool = True, recording=None, trajectory: str | None = None, trace: str | None = None,
        per_psi: bool = False, progress=None, on_frame=None, sound_log: str | None = None) -> Summary:
    """Run a loaded scene headless for the frames of `FrameTimes` (``seconds``
    default: the recording's length, else the scene's); ``on_frame(n, ctx)`` is
    called after every frame. Ctrl-C stops the run after the frame it came in
    (a second one at once, inside it): the summary counts the frames done,
    with their number in ``interrupted``, and the files hold them whole.
    ``sound_log``: a CSV of the frames' sound events (SoundLog)."""
    ctx = scene.ctx
    frames = FrameTimes(scene.length if seconds is None and recording is None else seconds, frame_ms, recording)
    if time_factor is not None:
        ctx.physics.set_globals(ctx.physics.gravity, time_factor)
    ctx.physics.smoothing = smoothing
    outputs = [o for o in (Trajectory(trajectory) if trajectory else None,
                           Trace(trace, per_psi) if trace else None,
                           SoundLog(sound_log) if sound_log else None) if o is not None]
    bar = Progress(len(frames), progress)
    start = time.perf_counter()
    e0 = e_max = energy(ctx.physics.env)
    psis = done = 0
    frame_ms_sum = 0.0
    interrupted = None
    try:
        with interrupt_deferred() as ctrl_c:
            for n, (ms, keys) in enumerate(frames):
                env = ctx.physics.env
                for o in outputs:
                    if isinstance(o, Trace):
                        o.frame_no = n
                        o.attach(env)
                if keys is not None:
                    ctx.input_manager.set_keys(keys)
                before = env.psi_count
                ctx.process_frame(ms)
                new_world = ctx.physics.env is not env          # Clean Physics World ran
                env = ctx.physics.env
                psis += env.psi_count if new_world else env.psi_count - before
                e_max = max(e_max, energy(env))
                for o in outputs:
                    if isinstance(o, Trace):
                        if not per_psi:
                            o.record(env)
                    else:
                        o.frame(n, ctx)
                if on_frame is not None:
                    on_frame(n, ctx)
                done, frame_ms_sum = n + 1, frame_ms_sum + ms
                bar.update(done, ctx, force=done == len(frames))
                if ctrl_c():
                    interrupted = done
                    break
    except KeyboardInterrupt:           # a second Ctrl-C, or one ending a long simulate: frame `done` is cut
        interrupted = done
    finally:
        for o in outputs:
            o.close()
        bar.done()
    env = ctx.physics.env
    return Summary(scene.name, done, frame_ms_sum / 1000.0, env.current_time, psis,
                   len(movable_bodies(ctx)), awake_count(env), e0, energy(env), e_max, finite_state(env),
                   ctx.error_count, time.perf_counter() - start, interrupted)


def write_summary(summary: Summary, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(asdict(summary), fh, indent=1)

