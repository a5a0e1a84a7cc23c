"""The viewer's history (issue 43): scrub back and forward through the last
seconds, step back, resume from any point (the future after it is discarded).

Every action the session runs is logged: a frame (its time, the keys, the
mouse's pushes, the time factor) or a single PSI step (with its pushes).
Once at least SNAPSHOT_EVERY actions have run since the last snapshot, and
they took 1 / SNAPSHOT_SHARE times as long as that snapshot took (so
snapshots cost at most that share of the simulation's time, and replaying
from one to the next costs about 1 / SNAPSHOT_SHARE snapshots' time), the
whole context and the RNG seed are copied as a flat table (ivp.snapshot,
exact to the bit; meshes, which nothing changes after loading, are shared). Going to an earlier or later position
builds the nearest snapshot at or before it (or goes on from the current state)
and replays the logged actions: the engine is deterministic, so the state is
the one the run had there, to the bit.

Memory is bounded: a ring of snapshots reaching back at least HISTORY_S
seconds of frame time, less than two snapshot intervals more (the oldest goes
when the next reaches back far enough), holding at most MAX_BYTES
(estimated from the tables: 200 bytes a record, 8 an item of a list or dict
of atoms held in one record, plus the arrays' bytes; the sample level's table
is about 1.0 MB, Level 01 of the game 10 MB, so 256 MB holds about 250 and 25
of them). Positions before the oldest snapshot are gone.

Between the PSIs of a frame: the state after a frame's behaviours and its
first j PSIs (of k) is shown by replaying up to the frame, then running it
with its physics step cut after the j-th PSI (Action.run_psis): the PSIs are
the time manager's own, one at a time (ivp/limits.py: a run in pieces has
the same PSIs as one in one go), so the cores are those of the PSI inside
the uncut frame. Such a state is for looking only: going anywhere from it
replays from a snapshot, and the session finishes the frame before
resuming from it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bbglue.blocks import PhysicsImpulse
from bbglue.meshes import Mesh
from ivp import rng
from ivp.snapshot import build, flatten

HISTORY_S = 30.0            # seconds of frame time the history reaches back, at least
SNAPSHOT_EVERY = 10         # actions between two snapshots, at least
SNAPSHOT_SHARE = 0.25       # snapshots take at most this share of the actions' run time
MAX_BYTES = 256e6           # the snapshots' estimated size, at most
RECORD_BYTES = 200          # the estimate per table record (measured: 123 to 176)
ITEM_BYTES = 8              # per item a list or dict of atoms holds in its one record (a reference)


def next_psi(env) -> None:
    """Run the environment to just past its next PSI: exactly one PSI, whatever the time factor."""
    tm = env.time_manager
    env.simulate_until(tm.base_time + tm.min_value() + env.delta_PSI_time * 1e-3)


def step_one_psi(physics) -> None:
    """The single-step control: one PSI, then the write-back."""
    next_psi(physics.env)
    physics.write_back()


class _Cut(Exception):
    """Ends a frame's physics step after the PSIs Action.run_psis asked for."""


@dataclass(frozen=True)
class Push:
    """A push of the mouse (pull or twist) through the Physics Impulse block
    (ivp spec 13.1) on the entity with CK id `entity_id`: a constant force
    over a frame (the block multiplies by its simulated time), or with
    `constant` False an impulse (a single PSI step's)."""
    entity_id: int
    point: tuple
    direction: tuple
    impulse: float
    constant: bool = True

    def apply(self, ctx) -> None:
        PhysicsImpulse(ctx.get_by_id(self.entity_id), ctx, position=self.point, direction=self.direction,
                       impulse=self.impulse, constant_force=self.constant).trigger()


@dataclass(frozen=True)
class Action:
    """One step of the session: a frame of `ms` real milliseconds (keys held,
    the mouse's pushes, the physics time factor it ran at) or, with `ms` None,
    a single PSI step (after the pushes); `speed` is the viewer's speed
    (session.SPEEDS) it ran at."""
    ms: float | None
    keys: frozenset = frozenset()
    pushes: tuple = ()
    time_factor: float = 1.0
    speed: float = 1.0

    def run(self, ctx) -> None:
        """The live run and the replay both go through here, so they are the same."""
        if self.ms is not None:
            ctx.input_manager.set_keys(self.keys)
            ctx.physics.time_factor = self.time_factor
        for push in self.pushes:
            push.apply(ctx)
        if self.ms is None:
            step_one_psi(ctx.physics)
        else:
            ctx.process_frame(self.ms)

    def run_psis(self, ctx, psis: int) -> None:
        """This frame through its behaviours and its first `psis` PSIs only:
        the physics step's simulate (glue-and-content 1) is cut after them,
        before the step's timers, deferred deletes and write-back; then the
        entities take the cores' poses (the write-back) to be drawn."""
        env = ctx.physics.env

        def simulate(dt: float) -> None:
            for _ in range(psis):
                next_psi(env)
            raise _Cut

        env.simulate = simulate
        try:
            self.run(ctx)
        except _Cut:
            pass
        finally:
            del env.simulate
        ctx.physics.write_back()


@dataclass(frozen=True)
class Mark:
    """What the session counts at a position: frame time (ms) and frames run
    since the load, the viewer's speed the state was made at, and the
    environment's PSI count."""
    t_ms: float
    frames: int
    speed: float
    psis: int


@dataclass(frozen=True)
class Snapshot:
    position: int
    table: list
    seed: int
    mark: Mark
    size: float             # estimated bytes


def estimated_bytes(table) -> float:
    """RECORD_BYTES a record, the arrays' bytes, ITEM_BYTES an item of a list
    of atoms (its ``L`` record) and a key or value of a dict with atom keys
    (its ``D`` record): their atoms are the world's own, shared."""
    held = 0
    for r in table:
        if r[0] == "a":
            held += len(r[3])
        elif r[0] == "L":
            held += ITEM_BYTES * len(r[1])
        elif r[0] == "D":
            held += ITEM_BYTES * (len(r[1]) + len(r[2]))
    return RECORD_BYTES * len(table) + held


class History:
    """The log of a session's actions since the oldest snapshot kept, and the
    cursor: the position (actions since the load) of the state shown."""

    def __init__(self, ctx, speed: float = 1.0, seconds: float = HISTORY_S, max_bytes: float = MAX_BYTES):
        self.seconds = seconds
        self.max_bytes = max_bytes
        self.actions: list[Action] = []
        self.marks: list[Mark] = []     # marks[i]: after actions[i]
        self.snapshots: list[Snapshot] = []
        self.base = 0                   # the position of actions[0] (the oldest snapshot's)
        self.cursor = 0
        self.inner = 0                  # > 0: the state shown is action `cursor`'s frame cut after this many PSIs
        self._taking_s = 0.0            # wall time the last snapshot took
        self._since_s = 0.0             # wall time the actions since it took
        self._take(ctx, Mark(0.0, 0, speed, ctx.physics.env.psi_count))

    @property
    def end(self) -> int:
        """The position after the last action (the live state when the cursor is there)."""
        return self.base + len(self.actions)

    @property
    def start(self) -> int:
        return self.snapshots[0].position

    def mark(self, position: int) -> Mark:
        return self.marks[position - self.base - 1] if position > self.base else self.snapshots[0].mark

    def seconds_back(self) -> float:
        """Frame time from the cursor to the end, in seconds."""
        return (self.mark(self.end).t_ms - self.mark(self.cursor).t_ms) / 1000.0

    def _take(self, ctx, mark: Mark) -> None:
        t0 = time.perf_counter()
        table = flatten(ctx, share=(Mesh,))
        self.snapshots.append(Snapshot(self.cursor, table, rng.get_seed(), mark, estimated_bytes(table)))
        self._taking_s = time.perf_counter() - t0
        self._since_s = 0.0

    def record(self, ctx, action: Action, seconds: float) -> None:
        """`action` has just run on `ctx` at the cursor, in `seconds` of wall
        time: a branch when the cursor was in the past (the future after it
        is discarded)."""
        if self.cursor < self.end:
            del self.actions[self.cursor - self.base:]
            del self.marks[self.cursor - self.base:]
            self.snapshots = [s for s in self.snapshots if s.position <= self.cursor]
        before = self.mark(self.cursor)
        frame = action.ms is not None
        self.actions.append(action)
        self.marks.append(Mark(before.t_ms + (action.ms if frame else 0.0), before.frames + frame, action.speed,
                               ctx.physics.env.psi_count))
        self.cursor += 1
        self._since_s += seconds
        if (self.cursor - self.snapshots[-1].position >= SNAPSHOT_EVERY
                and self._since_s >= self._taking_s / SNAPSHOT_SHARE):
            self._take(ctx, self.marks[-1])
            self._trim()

    def _trim(self) -> None:
        """Drop the oldest snapshot (and its actions) while the next one still
        reaches back `seconds`, or while the ring is over `max_bytes`."""
        while len(self.snapshots) > 1:
            second = self.snapshots[1]
            reach = self.mark(self.end).t_ms - second.mark.t_ms
            if reach < self.seconds * 1000.0 and sum(s.size for s in self.snapshots) <= self.max_bytes:
                return
            drop = second.position - self.base
            del self.actions[:drop]
            del self.marks[:drop]
            self.base = second.position
            self.snapshots.pop(0)

    def psis_of(self, position: int) -> int:
        """The PSIs the action at `position` ran (the one that leads to position + 1)."""
        return self.mark(position + 1).psis - self.mark(position).psis

    def seek(self, ctx, position: int, inner: int = 0):
        """The context at `position` (clamped to start .. end), from `ctx` at the
        cursor: the nearest snapshot at or before it, built afresh, or `ctx`
        itself when no snapshot lies between (and it is no cut frame), then the
        logged actions replayed; with `inner` > 0 the next action, a frame,
        then runs through its first `inner` PSIs (less than all of them)."""
        position = min(max(position, self.start), self.end)
        if position == self.end or not 0 < inner < self.psis_of(position):
            inner = 0
        snap = [s for s in self.snapshots if s.position <= position][-1]
        if self.inner or not self.cursor <= position or snap.position > self.cursor:
            ctx = build(snap.table)
            rng.set_seed(snap.seed)
            self.cursor = snap.position
        for action in self.actions[self.cursor - self.base:position - self.base]:
            action.run(ctx)
        self.cursor, self.inner = position, inner
        if inner:
            self.actions[position - self.base].run_psis(ctx, inner)
        return ctx

    def psi_back(self) -> tuple[int, int]:
        """(position, inner) one PSI before the state shown: inside the frame
        shown or the one before it; a whole action back when it ran one PSI or none."""
        if self.inner:
            return self.cursor, self.inner - 1
        p = self.cursor - 1
        return p, max(self.psis_of(p) - 1, 0) if p >= self.start else 0

    def psi_forward(self) -> tuple[int, int]:
        """(position, inner) one PSI after the state shown: the next PSI of the
        frame, or the end of the action."""
        if self.cursor < self.end and self.inner + 1 < self.psis_of(self.cursor):
            return self.cursor, self.inner + 1
        return self.cursor + 1, 0
