"""The autopilot in the viewer (issue 40 item 3; docs/viewer.md "Autopilot").

The level plug-in's autopilot (``LevelMeaning.autopilot``, as ``ivp run
--autopilot`` calls it) plays a copy of the world taken when the key hands it
the ball, searching with its snapshots and rollbacks; the viewer's own world
plays only the frames it keeps, one frame of 1/60 s with its keys each, so
the run shown is the one a recording of it replays. The autopilot runs on a
thread of its own, but never at the same time as the viewer: the viewer hands
it the turn for at most ``TURN_MS`` a frame (or until it is ``LEAD`` frames
ahead) and takes it back, swapping the process-wide RNG seed (ivp.rng, spec
10.1) with it, so each world draws from its own sequence. The view shows a
frame only while the autopilot is ``MIN_LEAD`` frames past it (or has
ended), so its rollbacks (1 s before a failure, or before the last progress
when it is stuck) seldom reach the frames shown; one that would goes back no
further (``Pilot.shown``): those are played again, not undone.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

from ivp import rng
from ivp.snapshot import build, flatten

FRAME_MS = 1000.0 / 60.0     # the autopilot's frame: a player's frame rate
LEAD = 600                   # frames it plays ahead of the view at most (10 s)
MIN_LEAD = 300               # ... and at least, for the view to go on (5 s)
TURN_MS = 25.0               # wall ms of a drawn frame the autopilot may search at most
MAX_FRAMES_A_TICK = 4        # frames shown in one drawn frame at most (a slow window slows the run)
MAX_SECONDS = 900.0          # the autopilot's play at most, as ``ivp run --autopilot``'s


class _Handback(Exception):
    """Raised in the autopilot's thread when the viewer takes the ball back."""


class Driver:
    """The autopilot playing a copy of ``scene``'s world from now on, while the
    viewer shows the frames it keeps (``next_keys``). ``drive`` is the level
    plug-in's autopilot function, called as ``drive(scene, max_seconds,
    record, log, on_frame)``."""

    def __init__(self, drive, scene, ctx):
        self.pilot = None             # the autopilot's Pilot, from its first frame on
        self.outcome = None           # its Outcome when it has finished or given up
        self.error = None             # what stopped it otherwise ("ValueError: ...")
        self.stopped = False
        self.turn_end = 0.0
        self.seed = rng.get_seed()
        copy = SimpleNamespace(ctx=build(flatten(ctx)), path=getattr(scene, "path", "scene"),
                               name=getattr(scene, "name", "scene"))
        self._go = threading.Semaphore(0)
        self._back = threading.Semaphore(0)
        self._thread = threading.Thread(target=self._run, args=(drive, copy), daemon=True,
                                        name="ivp autopilot")
        self._thread.start()

    # --- the autopilot's thread ---------------------------------------------------------

    def _run(self, drive, copy) -> None:
        self._go.acquire()
        try:
            if not self.stopped:
                self.outcome = drive(copy, MAX_SECONDS, None, None, self._frame)
        except _Handback:
            pass
        except Exception as exc:      # its failure is said on the HUD; the viewer goes on
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self._back.release()

    def _frame(self, pilot) -> None:
        """After each frame the autopilot plays: the turn goes back to the
        viewer when it is over or the autopilot is far enough ahead."""
        self.pilot = pilot
        if time.perf_counter() < self.turn_end and len(pilot.keys) - pilot.shown < LEAD:
            return
        self._back.release()
        self._go.acquire()
        if self.stopped:
            raise _Handback

    # --- the viewer's side ----------------------------------------------------------------

    @property
    def done(self) -> bool:
        """It has finished, given up or failed (its thread has ended)."""
        return not self._thread.is_alive()

    def turn(self) -> None:
        """Let the autopilot play and search for about TURN_MS wall milliseconds
        (its first turn, which maps the level, takes as long as that does)."""
        if self.done:
            return
        viewer_seed = rng.get_seed()
        rng.set_seed(self.seed)
        self.turn_end = time.perf_counter() + TURN_MS / 1000.0
        self._go.release()
        self._back.acquire()
        self.seed = rng.get_seed()
        rng.set_seed(viewer_seed)

    @property
    def pending(self) -> bool:
        """Frames kept and not shown yet."""
        return self.pilot is not None and self.pilot.shown < len(self.pilot.keys)

    @property
    def ready(self) -> bool:
        """A frame to show: the autopilot is MIN_LEAD frames past it, or has ended."""
        return self.pending and (self.done or len(self.pilot.keys) - self.pilot.shown >= MIN_LEAD)

    def next_keys(self):
        """The keys of the next frame to show (now kept for good), or None
        when it is not ``ready``."""
        if not self.ready:
            return None
        p = self.pilot
        p.shown += 1
        return p.keys[p.shown - 1]

    def stop(self) -> None:
        """End the autopilot's thread (it raises _Handback at its next frame)."""
        if self.done:
            return
        self.stopped = True
        self._go.release()
        self._back.acquire()
        self._thread.join()

    def status(self) -> str:
        """The HUD's line: what it does, or how it ended."""
        p = self.pilot
        if self.error is not None:
            return f"AUTOPILOT failed: {self.error}"
        if self.outcome is not None:
            o = self.outcome
            said = (f"finished, score {o.score}" if o.finished else f"gave up: {o.why}")
            return f"AUTOPILOT {said}" + (" (showing its last frames)" if self.pending else "")
        if p is None:
            return "AUTOPILOT mapping the level"
        ahead = (f"{(len(p.keys) - p.shown) * FRAME_MS / 1000.0:.1f} s ahead" if self.ready
                 else "searching")
        return f"AUTOPILOT {ahead}: {p.status()}"            # short: the game's score is at the top right
