"""The level's music as the game schedules it (the original's Sound.nmo
Music_Manager and Levelinit's AllLevel music column, as Three.js' notes
report them, "source-exact music"; docs/behaviors.md "Sounds"), emitted as
SoundEvents named after the game's ``Sounds/*.wav``.

Two schedules run side by side from the first sector's activation, on the
level's clock (they stand still while the game is paused):

- atmosphere: wait a uniform 0-15 s, play one of ``Music_Atmo_1`` .. ``_3``
  (equal chances, the same one may come twice), wait for its end, again;
- theme: from 7 s on, wait a uniform 0-50 s, play one of
  ``Music_Theme_<N>_1`` .. ``_3`` (N the level's music number), wait for
  its end, again. Reaching the last sector switches the theme off (a wave
  playing ends as it is); the atmosphere goes on.

In the last sector ``Music_EndCheckpoint`` loops while the ball is less
than 200 from the finish (stops when it leaves; not while no ball is in
play). "Level_Finish" ends the music: every wave playing and the loop fade
linearly to silence over 1 s ("set" events each frame, then "stop") and no
new wave starts; the finish's own music is the level's (ballance.level).

A wave's length is that of its ``.wav`` in ``sounds`` (the game's Sounds
folder, read with the standard library's ``wave``), else WAVE_S. The
draws come from a generator of this behaviour (an integer state, so a
snapshot holds it) seeded by ``seed``: a run repeats.
"""

from __future__ import annotations

import os
import wave

from ..api import Behavior
from ..params import Param
from ..registry import register
from .balls import distance, player_of
from .level import level_behavior

ATMO_WAIT_S = (0.0, 15.0)
THEME_WAIT_S = (0.0, 50.0)
THEME_START_S = 7.0
END_FADE_S = 1.0
END_LOOP_RANGE = 200.0
WAVE_S = 60.0                       # a wave's length when its .wav cannot be read (stated)
ATMO = tuple(f"Music_Atmo_{k}" for k in (1, 2, 3))
THEME = "Music_Theme_{}_{}"
END_LOOP = "Music_EndCheckpoint"


def wave_length(folder: str | None, name: str) -> float | None:
    """Seconds of ``folder/name.wav`` (any case), or None when it cannot be read."""
    if not folder or not os.path.isdir(folder):
        return None
    want = (name + ".wav").lower()
    path = next((os.path.join(folder, f) for f in os.listdir(folder) if f.lower() == want), None)
    if path is None:
        return None
    try:
        with wave.open(path, "rb") as w:
            return w.getnframes() / float(w.getframerate())
    except (OSError, EOFError, wave.Error, ZeroDivisionError):
        return None


@register("ballance.music")
class Music(Behavior):
    """The level's atmosphere and theme waves, the last sector's loop and the end's fade (module docstring)."""

    messages = ("Sector Activate", "Level_Finish")
    theme = Param(int, 1, "the level's music number N: the theme waves Music_Theme_N_1 .. 3", bounds=(1, 99))
    sounds = Param(str, "", "the game's Sounds folder, for the waves' lengths (empty: WAVE_S each)")
    seed = Param(int, 1, "the draws' seed", bounds=(0, 2 ** 31 - 1))

    def on_start(self) -> None:
        self.draws = self.seed
        self.clock = 0.0
        self.started = False
        self.theme_on = True
        self.ending = None              # the clock at Level_Finish
        self.next = {}                  # schedule ("atmo", "theme") -> the clock of its next wave
        self.playing = {}               # wave name -> the clock it ends
        self.looping = False
        self.lengths = {}

    def _uniform(self, low: float, high: float) -> float:
        """A draw in [low, high) from a 31-bit linear congruential generator (glibc's constants)."""
        self.draws = (1103515245 * self.draws + 12345) % 2 ** 31
        return low + (high - low) * self.draws / 2 ** 31

    def length(self, name: str) -> float:
        if name not in self.lengths:
            found = wave_length(self.sounds, name)
            self.lengths[name] = WAVE_S if found is None else found
        return self.lengths[name]

    def on_message(self, message) -> None:
        level = level_behavior(self.ctx)
        if message.name == "Level_Finish":
            self.ending = self.clock
            return
        if not self.started:
            self.started = True
            self.next = {"atmo": self.clock + self._uniform(*ATMO_WAIT_S),
                         "theme": self.clock + THEME_START_S + self._uniform(*THEME_WAIT_S)}
        if level is not None and message.data.get("sector") == level.sector_count:
            self.theme_on = False       # "last Checkpoint reached"

    def on_frame(self, dt: float) -> None:
        level = level_behavior(self.ctx)
        if level is not None and level.stopped:
            return
        self.clock += dt
        if self.ending is not None:
            self._fade()
            return
        self.playing = {n: end for n, end in self.playing.items() if end > self.clock}
        for schedule, wait in (("atmo", ATMO_WAIT_S), ("theme", THEME_WAIT_S)):
            due = self.next.get(schedule)
            if due is None or self.clock < due or (schedule == "theme" and not self.theme_on):
                continue
            k = min(int(self._uniform(0.0, 3.0)), 2) + 1
            name = ATMO[k - 1] if schedule == "atmo" else THEME.format(self.theme, k)
            self.sound(name)
            end = self.clock + self.length(name)
            self.playing[name] = end
            self.next[schedule] = end + self._uniform(*wait)
        self._end_loop(level)

    def _end_loop(self, level) -> None:
        """Music_EndCheckpoint while the ball is within 200 of the finish in the last sector."""
        player = player_of(self.ctx)
        near = (level is not None and level.finish is not None and level.sector == level.sector_count
                and player is not None and player.ball is not None
                and distance(player.ball.get_position(), level.finish.get_position()) < END_LOOP_RANGE)
        if near != self.looping:
            self.looping = near
            self.sound(END_LOOP, action="loop" if near else "stop")

    def _fade(self) -> None:
        """Every wave playing and the loop linearly to silence over END_FADE_S, then stopped."""
        names = [n for n, end in self.playing.items() if end > self.clock] + ([END_LOOP] if self.looping else [])
        t = self.clock - self.ending
        for name in names:
            self.sound(name, volume=max(0.0, 1.0 - t / END_FADE_S), action="set" if t < END_FADE_S else "stop")
        if t >= END_FADE_S:
            self.playing, self.looping = {}, False
