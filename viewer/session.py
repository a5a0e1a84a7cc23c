"""A scene being watched: the frame loop and the viewer's controls, with no window.

The window (viewer/window.py) turns events into calls here, and the headless
render drives the same loop with a fixed frame time, so everything the user can
do is testable without a display.
"""

from __future__ import annotations

import math
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np

from bbglue import snapshot as game_snapshot
from behaviors.recording import Recorder
from ivp import MT_NOT_SIM, rng, umath

from .history import Action, History, Push
from .perturb import Twist

STALL_MS = 250.0            # a longer gap between two frames is a stall, not play time
SPEEDS = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0, 8.0)
DRAG_OMEGA = 8.0            # 1/s: the mouse spring's angular frequency (critically damped)
DRAG_MAX_OMEGA_DT = 0.5     # omega x frame time at most: stable at long frames (fast forward)
DRAG_MAX_ACCEL = 200.0      # m/s^2: the most the spring asks of the grabbed point


class FrameClock:
    """The viewer's frame clock with its stall guard (DESIGN "One frame").

    A gap longer than STALL_MS (a window drag, a breakpoint, a slow reload) is
    discarded: the frame counts as long as the previous normal one, so the
    simulation neither jumps nor replays the stall as a burst of PSIs.
    """

    def __init__(self, nominal_ms: float = 1000.0 / 60.0):
        self.last_ms = nominal_ms
        self.stalls = 0

    def frame_ms(self, dt_s: float) -> float:
        ms = dt_s * 1000.0
        if not math.isfinite(ms) or ms < 0.0:
            raise ValueError(f"frame clock: frame time {dt_s!r} s is not a time")
        if ms > STALL_MS:
            self.stalls += 1
            return self.last_ms
        self.last_ms = ms
        return ms


class FrameRate:
    """Drawn frames per second: the frames whose times fall in the last
    ``window_s`` seconds of wall time, over the span they cover."""

    def __init__(self, window_s: float = 1.0):
        self.window_s = window_s
        self.times = deque()

    def frame(self, t_s: float) -> None:
        """A frame was drawn at wall time ``t_s`` (seconds, any origin)."""
        self.times.append(t_s)
        while t_s - self.times[0] > self.window_s:
            self.times.popleft()

    @property
    def fps(self) -> float:
        span = self.times[-1] - self.times[0] if self.times else 0.0
        return (len(self.times) - 1) / span if span > 0.0 else 0.0


class Session:
    """The loaded scene, the clock, pause and speed, selection and reloads.

    `load()` returns a CKContext or a loaded scene (an object with `.ctx`, and
    optionally `.files`, the files whose change on disk reloads it, and `.name`).
    """

    def __init__(self, load, watch=(), title: str = "scene"):
        self._load = load
        self._watch = [Path(p) for p in watch]
        self.title = title
        self.clock = FrameClock()
        self.error = None             # why the last reload failed ("SceneError: file:line: ..."), for the HUD
        self.keys = frozenset()
        self.sim_ms = 0.0             # wall time of the last frame's behaviours + physics
        self.frames = 0               # frames run (none while paused)
        self.recorder = None          # a behaviors.recording.Recorder while recording
        self.script = None            # an iterator of recorded frames while one plays
        self.message = ""             # the last control's outcome, shown by the HUD
        self.load_seed = rng.get_seed()
        self.history_s = 0.0          # seconds of history kept (viewer/history.py); 0: none
        self.autopilot = None         # an autopilot.Driver while the autopilot has the ball
        self.autopilot_said = ""      # how its last drive ended (the HUD shows it until the next)
        self._autopilot_due = 0.0     # frame time owed to the autopilot's frames (ms)
        self._start(self._load())

    # --- loading --------------------------------------------------------------

    @property
    def watch(self) -> list:
        files = getattr(self.scene, "files", None)
        return self._watch if files is None else [Path(p) for p in files]

    def _start(self, loaded) -> None:
        self.stop_autopilot("the scene restarted")
        self.autopilot_said = ""
        self.scene = loaded
        self.title = getattr(loaded, "name", self.title)
        self.ctx = getattr(loaded, "ctx", loaded)
        self.paused = False
        self.frame_psis = 0           # PSIs since the last tick: its frame's, or the single steps' while paused
        self._stepped = 0             # PSIs of single steps since the last tick
        self.speed = 1.0
        self.selected = None
        self.drag = None              # a Drag while the mouse pulls a body
        self.history = History(self.ctx, self.speed, self.history_s) if self.history_s > 0.0 else None
        self._mtimes = self._stat()

    def keep_history(self, seconds: float) -> None:
        """Log the actions and snapshot the state from now on (and after each
        restart), reaching back at least `seconds` of frame time."""
        self.history_s = seconds
        self.history = History(self.ctx, self.speed, seconds)

    def _stat(self) -> dict:
        return {p: p.stat().st_mtime_ns for p in self.watch if p.exists()}

    def restart(self) -> bool:
        """Load the scene afresh. On failure the running scene is kept, and the
        error is kept in `error` (the HUD and F2 show it) and printed whole on
        stderr; returns whether the new scene runs."""
        seed = rng.get_seed()
        try:
            loaded = self._load()
        except Exception as exc:     # a broken scene file must not end the session
            self.error = f"{type(exc).__name__}: {exc}"
            print(f"reload failed, the scene before it runs on: {self.error}", file=sys.stderr)
            self._mtimes = self._stat()
            return False
        self.stop_recording("the scene restarted")
        self.script = None
        self.error = None
        self.load_seed = seed
        self.frames = 0
        self._start(loaded)
        return True

    def reload_if_changed(self) -> bool:
        if self._stat() != self._mtimes:
            return self.restart()
        return False

    # --- the frame --------------------------------------------------------------

    @property
    def physics(self):
        return self.ctx.physics

    @property
    def env(self):
        return self.ctx.physics.env

    def tick(self, dt_s: float) -> float:
        """One frame: key state, the mouse drag -> behaviours and blocks -> physics
        -> write-back, and into the recording; returns the frame's ms. A scripted
        input (`play`) gives the frame time and the keys while it lasts. While
        paused no frame runs (0 ms): the time manager, the behaviours' clock and
        timers and the physics stand still."""
        frame_ms = self.clock.frame_ms(dt_s)
        if self.paused:
            self.sim_ms = 0.0
            self.frame_psis, self._stepped = self._stepped, 0
            return 0.0
        if self.autopilot is not None:
            return self._autopilot_frames(frame_ms)
        if self.script is not None:
            frame = next(self.script, None)
            if frame is None:
                self.script = None
                self.message = "the scripted input has ended: the keys are yours"
            else:
                frame_ms, self.keys = frame.ms, frame.keys
        t0 = time.perf_counter()
        self._frame(frame_ms, self._pushes(self.physics.sim_dt, True))
        self.sim_ms = (time.perf_counter() - t0) * 1000.0
        return frame_ms

    def _frame(self, frame_ms: float, pushes=()) -> None:
        """One frame of `frame_ms` with the keys held, into the history and the recording."""
        self._run(Action(frame_ms, self.keys, pushes, self.physics.time_factor, self.speed))
        self.frame_psis = self.physics.frame_psis
        self.frames += 1
        if self.recorder is not None:
            self.recorder.add(frame_ms, self.keys)

    # --- the autopilot (viewer/autopilot.py) -------------------------------------------------

    def toggle_autopilot(self) -> None:
        """Hand the ball to the level plug-in's autopilot, from the state
        shown (the end of its frame), or take it back."""
        if self.autopilot is not None:
            self.stop_autopilot("taken back")
            return
        from behaviors.levels import autopilot_of, level_meaning

        from .autopilot import Driver
        try:
            drive = autopilot_of(level_meaning())
        except ValueError as exc:
            self.autopilot_said = f"no autopilot: {exc}"
            return
        if self.paused:
            self.toggle_pause()
        self._finish_frame()
        self.script = None
        self.drag = None
        self.autopilot = Driver(drive, self.scene, self.ctx)
        self._autopilot_due = 0.0
        self.autopilot_said = ""

    def stop_autopilot(self, why: str) -> None:
        """The ball back to the player (`why` says what took it), if the autopilot has it."""
        if self.autopilot is None:
            return
        driver, self.autopilot = self.autopilot, None
        ended = driver.done
        driver.stop()
        self.autopilot_said = driver.status() if ended else f"AUTOPILOT off ({why}): the ball is yours"

    def _autopilot_frames(self, frame_ms: float) -> float:
        """The frames the autopilot has kept, at the wall clock's pace (at
        most MAX_FRAMES_A_TICK a drawn frame, none while it searches), after
        its turn; when it has ended and its frames are shown, the ball is the
        player's again."""
        from .autopilot import FRAME_MS, MAX_FRAMES_A_TICK
        driver = self.autopilot
        driver.turn()
        self._autopilot_due = min(self._autopilot_due + frame_ms, MAX_FRAMES_A_TICK * FRAME_MS)
        t0 = time.perf_counter()
        ran = 0.0
        while self._autopilot_due >= FRAME_MS:
            keys = driver.next_keys()
            if keys is None:
                self._autopilot_due = 0.0                # no burst after a search
                break
            self._autopilot_due -= FRAME_MS
            self.keys = keys
            self._frame(FRAME_MS)
            ran += FRAME_MS
        self.sim_ms = (time.perf_counter() - t0) * 1000.0
        if driver.done and not driver.pending:
            self.autopilot = None
            self.autopilot_said = driver.status()
        return ran

    # --- recording -----------------------------------------------------------------

    def start_recording(self, path) -> None:
        """Record every frame's time and keys from the scene's first frame (the
        scene restarts when frames have run), for ``ivp run --input``. The header
        names the scene and the RNG seed at its load, so the replay is exact."""
        if self.frames and not self.restart():
            return
        scene = getattr(self.scene, "path", None)
        self.recorder = Recorder(path, scene=Path(scene).stem if scene else self.title, seed=self.load_seed)
        self.message = f"recording to {path}"

    def stop_recording(self, why: str = "") -> str | None:
        """Close the recording, if one runs, and return what the HUD then says;
        ``why`` says which control ended it."""
        if self.recorder is None:
            return None
        rec, self.recorder = self.recorder, None
        rec.close()
        self.message = f"recorded {rec.count} frames to {rec.path}" + (f" (stopped: {why})" if why else "")
        return self.message

    def play(self, recording) -> None:
        """Take the frames of a recording (behaviors.recording) as scripted input,
        one per tick, from the next frame on."""
        self.script = iter(recording)

    def toggle_recording(self, path) -> None:
        if self.recorder is None:
            self.start_recording(path)
        else:
            self.stop_recording()

    # --- time controls ------------------------------------------------------------

    def toggle_pause(self) -> None:
        """Pause stops the frame clock (see `tick`); resume goes on from there
        (from the end of the frame shown, when the history shows the inside of one)."""
        if self.paused:
            self._finish_frame()
        self.paused = not self.paused

    def _finish_frame(self) -> None:
        """From the inside of a frame the history shows, to its end: what runs
        next (a resume, a step, a pull) goes on from a whole frame."""
        h = self.history
        if h is not None and h.inner:
            self.go_to(h.cursor + 1)

    def step(self) -> None:
        """Pause if needed, then advance the physics by one PSI (no frame of the
        behaviours, so a recording cannot hold it and ends), with the mouse's
        pull or twist as an impulse over the PSI; in the history's past,
        without one, forward one PSI of the history instead (History.psi_forward)."""
        h = self.history
        if h is not None and h.cursor < h.end and self.drag is None:
            self.go_to(*h.psi_forward())
            return
        self._finish_frame()
        self.stop_recording("a single step is not a frame")
        self.stop_autopilot("a single step")
        if not self.paused:
            self.toggle_pause()
        before = self.env.psi_count
        self._run(Action(None, pushes=self._pushes(self.env.delta_PSI_time, False), speed=self.speed))
        self._stepped += self.env.psi_count - before

    def _run(self, action: Action) -> None:
        t0 = time.perf_counter()
        action.run(self.ctx)
        if self.history is not None:
            self.history.record(self.ctx, action, time.perf_counter() - t0)

    def save_state(self, path) -> bool:
        """Write the whole state shown (context and RNG seed, bbglue.snapshot)
        to `path`, for ``ivp play --snapshot``; the HUD says where, or what
        the snapshot cannot hold. The inside of a frame (the history's) is no
        state a run can go on from: it is not saved."""
        h = self.history
        if h is not None and h.inner:
            self.message = "no snapshot inside a frame: Right (or .) steps to its end"
            return False
        try:
            game_snapshot.save(self.ctx, path)
        except game_snapshot.SnapshotError as exc:
            self.message = f"no snapshot written: {exc}"
            return False
        self.message = f"state saved to {path} (ivp play --snapshot {path} resumes it)"
        return True

    # --- history (viewer/history.py) --------------------------------------------------

    def go_to(self, position: int, inner: int = 0) -> None:
        """Pause and show the state at a position of the history (actions since
        the load), or with `inner` > 0 inside the frame that follows it, after
        that many of its PSIs: resuming, a step or a pull there discards what
        came after."""
        h = self.history
        if h is None or (min(max(position, h.start), h.end), inner) == (h.cursor, h.inner):
            return
        self.stop_recording("the history moved")
        self.stop_autopilot("the history moved")
        self.script = None
        self.drag = None
        self.paused = True
        selected = self.selected.id if self.selected is not None else None
        self.ctx = h.seek(self.ctx, position, inner)
        if selected is not None:            # the same entity in the state shown, if it was made by then
            try:
                self.selected = self.ctx.get_by_id(selected)
            except KeyError:
                self.selected = None
        mark = h.mark(h.cursor)
        self.frames = mark.frames
        if mark.speed != self.speed:         # the state's time factor, at the viewer's speed now
            self.physics.time_factor *= self.speed / mark.speed
        self.frame_psis = self._stepped = 0

    def scrub(self, seconds: float) -> None:
        """Back (< 0) or forward through the history by about `seconds` of frame
        time: to the nearest position, at least one action."""
        h = self.history
        if h is None:
            return
        target = h.mark(h.cursor).t_ms + seconds * 1000.0
        step = 1 if seconds > 0 else -1
        p = h.cursor + step
        while h.start < p < h.end and (h.mark(p + step).t_ms - target) * step <= 0.0:
            p += step
        self.go_to(p)

    def step_back(self) -> None:
        """Back one PSI in the history: a single PSI step undone exactly, or
        a frame's last PSI (the frame is shown cut after the PSI before it;
        a frame of one PSI, or none, goes back whole)."""
        if self.history is not None:
            self.go_to(*self.history.psi_back())

    def change_speed(self, direction: int) -> None:
        """Slow motion (-1) or fast forward (+1): the time factor halves or doubles."""
        i = min(max(SPEEDS.index(self.speed) + direction, 0), len(SPEEDS) - 1)
        if SPEEDS[i] != self.speed:
            self.stop_recording("a recording holds no time factor")
            self.stop_autopilot("the time factor changed")
        self.physics.time_factor *= SPEEDS[i] / self.speed
        self.speed = SPEEDS[i]

    # --- bodies -------------------------------------------------------------------------

    def body_of(self, entity):
        return self.physics.body_of(entity)

    def is_sleeping(self, entity) -> bool:
        body = self.body_of(entity)
        return (body is not None and not body.core.physical_unmoveable
                and body.core.movement_state == MT_NOT_SIM)

    def bodies(self) -> list:
        return [b for b in (self.body_of(e) for e in self.ctx.entities) if b is not None]

    def awake_count(self) -> tuple[int, int]:
        movable = [b for b in self.bodies() if not b.core.physical_unmoveable]
        return sum(b.core.movement_state != MT_NOT_SIM for b in movable), len(movable)

    def start_drag(self, entity, point_ws) -> bool:
        """Grab a movable body at a world point; until `end_drag` a spring pulls
        that point towards `drag.target` every frame (and single step)."""
        return self._grab(entity, lambda e, core: Drag(e, point_ws))

    def start_twist(self, entity) -> bool:
        """Grab a movable body to turn it; until `end_drag` an angular spring
        turns it towards `drag.target` (viewer/perturb.py)."""
        return self._grab(entity, Twist)

    def _grab(self, entity, make) -> bool:
        """`make(entity, core)` the drag; inside a frame the history shows,
        the frame is finished first and the grab takes its entity there."""
        self._finish_frame()
        try:
            entity = self.ctx.get_by_id(entity.id)
        except KeyError:                # deleted at the end of that frame
            return False
        body = self.body_of(entity)
        if body is None or body.core.physical_unmoveable:
            return False
        self.stop_recording("a recording holds no mouse pull")
        self.stop_autopilot("a mouse pull")
        self.drag = make(entity, body.core)
        return True

    def end_drag(self) -> None:
        self.drag = None

    def _pushes(self, dt: float, constant: bool) -> tuple:
        """The mouse's pushes for `dt` simulated seconds, for the Physics
        Impulse block (ivp spec 13.1): with "Constant Force ?" over a frame
        (the block multiplies by the frame's simulated time, none while
        paused), else as impulses (a single step's): the body wakes as a
        script's push would."""
        if self.drag is None:
            return ()
        body = self.body_of(self.drag.entity)
        if body is None:                # unphysicalized or removed meanwhile
            self.drag = None
            return ()
        if dt <= 0.0:
            return ()
        out = []
        for force, point in self.drag.pushes(body.core, dt):
            size = float(np.linalg.norm(force))
            if size > 0.0:
                out.append(Push(self.drag.entity.id, tuple(point), tuple(force / size),
                                size if constant else size * dt, constant))
        return tuple(out)


class Drag:
    """A critically damped spring between a point fixed on a body and a target
    point (the mouse): a = omega^2 (target - p) - 2 omega v_p, clamped to
    DRAG_MAX_ACCEL, times the body's effective mass at p along a, so a grab far
    from the mass centre is as stiff as one at it. Gravity still acts: a held
    body hangs g / omega^2 below the target."""

    def __init__(self, entity, point_ws):
        self.entity = entity
        m = np.asarray(entity.get_world_matrix().as_array(), dtype=np.float64)
        self.local = np.append(np.asarray(point_ws, dtype=np.float64), 1.0) @ np.linalg.inv(m)
        self.target = np.asarray(point_ws, dtype=np.float64).copy()

    def pushes(self, core, dt: float) -> list:
        """[(world force, world point)] for a frame of `dt` simulated seconds."""
        return [self.force(core, dt)]

    def marks(self, lines, colour) -> None:
        """The spring as a line from the grabbed point to a cross at the target."""
        lines.add(self.point(), self.target, colour)
        lines.cross(self.target, colour)

    def point(self) -> np.ndarray:
        """The grabbed point in world coordinates now."""
        return (self.local @ np.asarray(self.entity.get_world_matrix().as_array(), dtype=np.float64))[:3]

    def force(self, core, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """(world force, world point) for a frame of `dt` simulated seconds; the
        stiffness drops at long frames so the explicit spring stays stable."""
        omega = min(DRAG_OMEGA, DRAG_MAX_OMEGA_DT / dt)
        p = self.point()
        R, centre = core.m_world_f_core_last_psi
        p_cs = umath.rot_t_mul_v(R, p - np.asarray(centre))
        v = np.asarray(core.get_surface_speed_on_test(p_cs), dtype=np.float64)
        a = omega * omega * (self.target - p) - 2.0 * omega * v
        size = float(np.linalg.norm(a))
        if size == 0.0 or not np.isfinite(size):
            return np.zeros(3), p
        a *= min(1.0, DRAG_MAX_ACCEL / size)
        n_cs = umath.rot_t_mul_v(R, a / size)
        lever = np.cross(p_cs, n_cs)
        inv_mass = core.inv_mass + float(np.dot(np.asarray(core.inv_rot_inertia), lever * lever))
        return a / inv_mass, p
