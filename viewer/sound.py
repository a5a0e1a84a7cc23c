"""The behaviours' sounds played with pyglet's media (issue 42; docs/viewer.md
"Sound"): each frame's ``behaviors.hooks.sound_events``, named after the
game's ``Sounds/*.wav`` (found beside a level of the game folder, or given).

"play" starts a one-shot, "loop" a looping player per name, "set" changes
its volume and pitch, "stop" ends it; "set" and "stop" of a name that is
not looping act on its latest one-shot still playing (the music's fade). Without a Sounds folder or an audio
device (pyglet's silent driver) the viewer runs silent with one notice; a
sound whose file is missing is skipped with one notice naming it. Loops
and one-shots (the music's waves are long) pause while no frame runs (the
viewer paused) and stop when the scene's context changes (a reload).
"""

from __future__ import annotations

import sys

from behaviors import hooks
from scenes.virtools.game import SOUNDS_DIR, find_ci, game_folder


def sounds_folder(scene_path: str | None, game: str | None = None) -> str | None:
    """The ``Sounds`` folder (any case) of ``game``, else of the game folder
    the scene's level file lies in (5.7); None without one."""
    game = game or (game_folder(scene_path) if scene_path else None)
    return find_ci(game, SOUNDS_DIR) if game else None


def _audio_device(media) -> bool:
    """Has pyglet an audio driver that makes sound (not its silent one)?"""
    try:
        driver = media.get_audio_driver()
    except Exception:          # a broken audio library is no audio device
        return False
    return driver is not None and type(driver).__name__ != "SilentDriver"


class SoundOutput:
    """Plays SoundEvents from ``folder`` (module docstring); ``notices`` are
    the lines said once (on stderr and, by the window, on the HUD)."""

    def __init__(self, folder: str | None, media=None):
        if media is None:
            import pyglet.media as media
        self.media = media
        self.folder = folder
        self.sources = {}           # name -> the loaded source, None when its file is missing
        self.loops = {}             # name -> its looping player
        self.shots = []             # the one-shots playing (kept until they end)
        self.named = {}             # name -> its latest one-shot playing
        self.ctx = None
        self.paused = False
        self.notices = []
        if folder is None:
            self._notice("no Sounds folder of the game: the viewer runs silent")
        elif not _audio_device(media):
            self._notice("no audio device: the viewer runs silent")
        self.enabled = not self.notices

    def _notice(self, text: str) -> None:
        self.notices.append(text)
        print(f"ivp: {text}", file=sys.stderr)

    def source(self, name: str):
        """The sound ``name``.wav (any case) loaded once; None when missing."""
        if name not in self.sources:
            path = find_ci(self.folder, name + ".wav")
            try:
                self.sources[name] = self.media.load(path, streaming=False) if path else None
            except Exception as exc:        # a broken file: said once, then silent
                self.sources[name] = None
                self._notice(f"sound {name}: {path}: {exc}")
                return None
            if path is None:
                self._notice(f"sound {name}: no {name}.wav in {self.folder}")
        return self.sources[name]

    def frame(self, ctx, ran: bool) -> None:
        """After a frame of ``ctx`` (``ran``: it ran, not paused): its events played."""
        if not self.enabled:
            return
        if ctx is not self.ctx:
            self.stop_all()
            self.ctx = ctx
        if not ran:
            self._pause(True)
            return
        self._pause(False)
        self.shots = [p for p in self.shots if p.playing]
        self.named = {n: p for n, p in self.named.items() if p.playing}
        for e in hooks.sound_events(ctx):
            self.play(e)

    def play(self, e) -> None:
        """One SoundEvent."""
        if e.action in ("set", "stop"):
            player = self.loops.get(e.name) or self.named.get(e.name)
            if player is not None and e.action == "set":
                player.volume, player.pitch = e.volume, e.pitch
            elif player is not None:
                player.pause()
                self.loops.pop(e.name, None)
                self.named.pop(e.name, None)
            return
        src = self.source(e.name)
        if src is None:
            return
        if e.action == "loop" and e.name in self.loops:
            self.loops.pop(e.name).pause()
        player = self.media.Player()
        player.volume, player.pitch = e.volume, e.pitch
        player.loop = e.action == "loop"
        player.queue(src)
        player.play()
        if player.loop:
            self.loops[e.name] = player
        else:
            self.shots.append(player)
            self.named[e.name] = player

    def _pause(self, paused: bool) -> None:
        if paused != self.paused:
            self.paused = paused
            for p in list(self.loops.values()) + self.shots:
                p.pause() if paused else p.play()

    def stop_all(self) -> None:
        for p in list(self.loops.values()) + self.shots:
            p.pause()
        self.loops, self.shots, self.named = {}, [], {}
