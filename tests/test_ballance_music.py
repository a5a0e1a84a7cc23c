"""The level's music (behaviors/ballance/music.py; the schedules of the
original's Music_Manager as Three.js' notes report them): on a level file
written by the test with a Sounds folder of short waves, the atmosphere's
and the theme's waves come at the stated waits after their predecessors'
ends, the theme is the level's number, and the finish fades them out."""

import struct
import wave

import pytest

import scenes
from bbglue.managers import Message
from behaviors import hooks
from behaviors.ballance.music import ATMO_WAIT_S, END_FADE_S, THEME_START_S, THEME_WAIT_S, Music
from behaviors.api import manager_of
from virtools_levels import two_sector_level

WAVE = 2.0              # seconds of every written wave


def write_wave(path, seconds: float) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(struct.pack("<h", 0) * int(8000 * seconds))


@pytest.fixture
def level(tmp_path):
    d = tmp_path / "3D Entities" / "Level"
    d.mkdir(parents=True)
    (d / "Level_01.NMO").write_bytes(two_sector_level().data())
    sounds = tmp_path / "Sounds"
    sounds.mkdir()
    for k in (1, 2, 3):
        write_wave(sounds / f"music_atmo_{k}.WAV", WAVE)          # any case
        write_wave(sounds / f"Music_Theme_1_{k}.wav", WAVE)
    return str(d / "Level_01.NMO")


def run(scene, seconds: float, frame_s: float = 0.05) -> list:
    """(time, name, volume, action) of the sound events of ``seconds`` of frames."""
    seen, t = [], 0.0
    while t < seconds:
        scene.ctx.process_frame(frame_s * 1000.0)
        t += frame_s
        seen += [(t, e.name, e.volume, e.action) for e in hooks.sound_events(scene.ctx)]
    return seen


def test_the_waves_come_at_the_stated_waits_after_their_ends(level):
    scene = scenes.load(level)
    (music,) = manager_of(scene.ctx).find(Music)
    assert music.theme == 1 and music.sounds.endswith("Sounds")
    seen = run(scene, 90.0)
    atmo = [t for t, name, _, _ in seen if name.startswith("Music_Atmo_")]
    theme = [t for t, name, _, _ in seen if name.startswith("Music_Theme_")]
    assert {name for _, name, _, _ in seen if name.startswith("Music_Theme_")} <= {f"Music_Theme_1_{k}" for k in "123"}
    frame = 0.1                                              # a frame either way
    assert 0.0 <= atmo[0] <= ATMO_WAIT_S[1] + frame
    gaps = [b - a for a, b in zip(atmo, atmo[1:])]
    assert len(atmo) >= 90.0 / (WAVE + ATMO_WAIT_S[1]) - 1
    assert all(WAVE - frame <= g <= WAVE + ATMO_WAIT_S[1] + frame for g in gaps)
    assert theme and THEME_START_S - frame <= theme[0] <= THEME_START_S + THEME_WAIT_S[1] + frame
    assert all(WAVE - frame <= b - a <= WAVE + THEME_WAIT_S[1] + frame for a, b in zip(theme, theme[1:]))


def test_the_finish_fades_the_music_out_in_one_second(level):
    scene = scenes.load(level)
    (music,) = manager_of(scene.ctx).find(Music)
    seen = run(scene, 20.0)
    playing = next(name for _, name, _, action in seen if action == "play")
    music.playing = {playing: music.clock + 10.0}             # a wave still playing at the finish
    music.on_message(Message("Level_Finish"))
    fade = [(t, v, a) for t, name, v, a in run(scene, 2.0) if name == playing]
    sets = [(t, v) for t, v, a in fade if a == "set"]
    assert [v for _, v in sets] == sorted((v for _, v in sets), reverse=True) and sets[0][1] > 0.9
    assert fade[-1][2] == "stop" and fade[-1][0] == pytest.approx(END_FADE_S, abs=0.1)
    assert not [e for e in run(scene, 30.0) if e[3] == "play" and e[1].startswith("Music_")]   # no new wave
