"""Spec 11: the time manager, its f32 event queue and the PSI event."""

from __future__ import annotations

import heapq

from .fp import EMPTY_QUEUE_F, f32


class PsiEvent:
    """Spec 11.3 (0x1002f2c0): runs one PSI and re-queues itself."""

    def simulate_time_event(self, tm: "TimeManager", env) -> None:
        T = env.current_time
        env.time_of_last_psi = T
        env.time_of_next_psi = env.delta_PSI_time + T
        # rebase: the original subtracts the absolute T (harmless: the queue is
        # empty apart from this event at this moment)
        tm.queue = [(f32(v - T), s, e) for v, s, e in tm.queue]
        heapq.heapify(tm.queue)
        tm.base_time = T
        env.simulate_psi()
        tm.insert_rel(self, f32(env.time_of_next_psi - T))


class TimeManager:
    """Spec 11.1: event times are f32 offsets from base_time; ties run newest first."""

    def __init__(self):
        self.base_time = 0.0
        self.queue = []                 # heap of (f32 offset, -sequence, event)
        self.seq = 0
        self.psi_event = PsiEvent()
        self.insert_rel(self.psi_event, 0.0)

    def insert_rel(self, event, value: float) -> None:
        """0x10030180 with the value already relative to base_time."""
        self.seq += 1
        heapq.heappush(self.queue, (f32(value), -self.seq, event))

    def insert(self, event, t: float) -> None:
        """0x1002f1d0: queue at (f32)(t - base)."""
        self.insert_rel(event, t - self.base_time)

    def min_value(self) -> float:
        return self.queue[0][0] if self.queue else EMPTY_QUEUE_F

    def simulate_until(self, env, target: float) -> None:
        """Spec 11.2 (0x1002ef70): every event strictly before target, then
        current_time = target."""
        while True:
            m = self.min_value()
            if not (target - self.base_time > m):
                break
            _, _, ev = heapq.heappop(self.queue)
            env.set_current_time(m + self.base_time)
            ev.simulate_time_event(self, env)
        env.set_current_time(target)
