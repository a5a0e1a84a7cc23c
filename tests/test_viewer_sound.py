"""The viewer's sound (viewer/sound.py, issue 42): the behaviours' SoundEvents
played from a Sounds folder through pyglet's media API, here a stand-in that
records what the players are told; silent with one notice without a folder
or an audio device."""

import pytest

import scenes
from behaviors.api import Behavior, manager_of
from viewer.sound import SoundOutput, sounds_folder


class SilentDriver:
    """Named as pyglet's driver of last resort (no audio device)."""


class Driver:
    pass


class Player:
    def __init__(self):
        self.volume = self.pitch = None
        self.loop = False
        self.queued = []
        self.playing = False

    def queue(self, source):
        self.queued.append(source)

    def play(self):
        self.playing = True

    def pause(self):
        self.playing = False


class Media:
    """The part of pyglet.media the viewer uses."""

    def __init__(self, driver):
        self.driver = driver
        self.players = []
        self.loaded = []

    def get_audio_driver(self):
        return self.driver

    def load(self, path, streaming=True):
        assert streaming is False
        self.loaded.append(path)
        return ("source", path)

    def Player(self):  # noqa: N802 (pyglet's name)
        p = Player()
        self.players.append(p)
        return p


class Script(Behavior):
    """Emits ``steps[n]`` (a list of sound() argument tuples) in its n-th frame."""

    def __init__(self, ctx, steps):
        super().__init__(ctx)
        self.steps = list(steps)

    def on_frame(self, dt):
        for args in (self.steps.pop(0) if self.steps else ()):
            self.sound(*args)


@pytest.fixture
def folder(tmp_path):
    sounds = tmp_path / "game" / "SOUNDS"
    sounds.mkdir(parents=True)
    for name in ("roll_wood_stone.WAV", "Hit_Wood_Wood.wav"):
        (sounds / name).write_bytes(b"RIFF")
    return str(sounds)


def scripted(steps):
    ctx = scenes.load("slope").ctx
    manager_of(ctx).attach(Script(ctx, steps))
    return ctx


def test_the_events_drive_the_players(folder):
    media = Media(Driver())
    out = SoundOutput(folder, media=media)
    assert out.notices == []
    ctx = scripted([[("Roll_Wood_Stone", 0.2, 0.6, "loop")],
                    [("Roll_Wood_Stone", 0.4, 0.7, "set")],
                    [("Hit_Wood_Wood", 0.5), ("Misc_Fall",), ("Misc_Fall",), ("Roll_Wood_Stone", 0.0, 1.0, "stop")]])
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    (roll,) = media.players
    assert (roll.volume, roll.pitch, roll.loop, roll.playing) == (0.2, 0.6, True, True)
    assert roll.queued == [("source", folder + "/roll_wood_stone.WAV")]        # any case
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    assert (roll.volume, roll.pitch) == (0.4, 0.7)
    out.frame(ctx, False)                                  # paused: no frame ran, the loop pauses
    assert not roll.playing and len(media.players) == 1    # and the last frame's events are not played again
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    hit = media.players[1]
    assert (hit.volume, hit.pitch, hit.loop, hit.playing) == (0.5, 1.0, False, True)
    assert not roll.playing and out.loops == {}
    assert len(media.players) == 2                         # Misc_Fall has no file: skipped,
    assert out.notices == [f"sound Misc_Fall: no Misc_Fall.wav in {folder}"]   # said once
    assert media.loaded.count(folder + "/Hit_Wood_Wood.wav") == 1


def test_silent_with_one_notice_without_an_audio_device_or_a_folder(folder):
    media = Media(SilentDriver())
    out = SoundOutput(folder, media=media)
    assert out.notices == ["no audio device: the viewer runs silent"]
    ctx = scripted([[("Hit_Wood_Wood", 0.5)]])
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    assert media.players == [] and len(out.notices) == 1
    assert SoundOutput(None, media=Media(Driver())).notices == ["no Sounds folder of the game: the viewer runs silent"]


def test_the_sounds_folder_is_found_beside_the_level(tmp_path, folder):
    level = tmp_path / "game" / "3D Entities" / "Level"
    level.mkdir(parents=True)
    assert sounds_folder(str(level / "Level_01.NMO")) == folder
    assert sounds_folder(None, str(tmp_path / "game")) == folder
    assert sounds_folder(str(tmp_path / "elsewhere.yaml")) is None


def test_set_and_stop_reach_a_one_shot_by_name(folder):
    """The music's fade: "set" of a name not looping changes its latest
    one-shot still playing, "stop" ends it; a pause pauses one-shots too."""
    media = Media(Driver())
    out = SoundOutput(folder, media=media)
    ctx = scripted([[("Hit_Wood_Wood", 1.0, 1.0)], [("Hit_Wood_Wood", 0.5, 1.0, "set")], [],
                    [("Hit_Wood_Wood", 0.0, 1.0, "stop")]])
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    (wave,) = media.players
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    assert (wave.volume, wave.playing) == (0.5, True)
    out.frame(ctx, False)
    assert not wave.playing
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    assert wave.playing
    ctx.process_frame(16.0)
    out.frame(ctx, True)
    assert not wave.playing and out.named == {}
