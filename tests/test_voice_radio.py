"""A whole game played hands-free with a radio on: ``voice-rang play`` through the front door on
the test sound card, by a player who has not enrolled and by one whose own takes were enrolled
with ``voice-rang enroll --import``.

The radio is real recorded music, Debian's ``fb-music-high`` (the music the radio benchmark holds
out from training), decoded by ffmpeg and looped into the microphone the whole game, under the
player's words, beside the table and across a room. The player is flite's ``awb`` voice, which
no figure was tuned on; the takes said in the game are new ones (another tempo and pitch than
the enrolled three). Like a person, the player says "turn" again, never quite the same way, when
the game did not catch it, and answers "yes" when it asks "Did you say turn?".
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
import wave
from pathlib import Path

import numpy as np
import pytest
from audio_server import AudioServer
from live_game import LineWatch, end
from speech_samples import RATE, loud_power, varied_take
from test_play import VOICE_RANG

pytestmark = [pytest.mark.audio, pytest.mark.slow]

MUSIC = Path("/usr/share/games/frozen-bubble/snd")
PLAYER = "awb"
TRIES = 4
"""How often the player says "turn" for one card before the test gives up on the game."""
SAID_AGAIN = ((1.05, 30), (0.96, -25), (1.08, 45), (1.0, -15))
"""Tempo and pitch (cents) of each try at "turn": none of them an enrolled take's."""
ROOM_RT60_S = 0.5
"""Across a room: the radio benchmark's reverberation."""


def take(text: str, tempo: float, cents: int, *, room: bool = False) -> bytes:
    """``text`` in the player's voice, a new take; ``room``: across the benchmark's 0.5 s room."""
    return varied_take(text, PLAYER, tempo, cents, room_rt60_s=ROOM_RT60_S if room else None)


def radio(level_of: bytes, snr_db: float, seconds: int = 90) -> bytes:
    """The first ``seconds`` of fb-music-high's first module, scaled to ``snr_db`` below the
    loud part of ``level_of``."""
    modules = sorted(MUSIC.glob("*.xm"))
    if not modules:
        pytest.fail("the radio test needs Debian's fb-music-high: run scripts/dev test")
    music = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-i", str(modules[0]), "-t",
                            str(seconds), "-ac", "1", "-ar", str(RATE), "-f", "s16le", "-"],
                           check=True, capture_output=True).stdout
    samples = np.frombuffer(music, dtype="<i2").astype(np.float64)
    gain = math.sqrt(loud_power(level_of) / 10 ** (snr_db / 10) / float(np.mean(samples ** 2)))
    return bytes(np.clip(np.round(samples * gain), -32768, 32767).astype("<i2").tobytes())


def write_takes(folder: Path) -> None:
    """Three takes each of "turn" and "yes", recorded beside the table as a player enrols."""
    folder.mkdir()
    for command in ("turn", "yes"):
        for n, (tempo, cents) in enumerate(((0.9, -60), (1.0, 0), (1.12, 60))):
            with wave.open(str(folder / f"{command}__{n}.wav"), "wb") as wav:
                wav.setnchannels(1)
                wav.setsampwidth(2)
                wav.setframerate(RATE)
                wav.writeframes(take(command, tempo, cents))


def enrol(data_home: Path, folder: Path) -> None:
    """:func:`write_takes`, through ``voice-rang enroll --import``."""
    write_takes(folder)
    result = subprocess.run([VOICE_RANG, "enroll", "--text", "--import", str(folder)],
                            env=dict(os.environ, XDG_DATA_HOME=str(data_home)),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Took 6 takes of 2 commands" in result.stdout, result.stdout


def say_until_turned(server: AudioServer, lines: LineWatch, turns: list[bytes], yes: bytes) -> int:
    """Say "turn" until the card turns (answering "yes" to a question); how often it was said.
    Each try is another of ``turns``: a person saying it again never says it the same way."""
    for tries in range(1, TRIES + 1):
        said = time.monotonic()
        server.say_into_microphone(turns[(tries - 1) % len(turns)])
        deadline = said + 8
        while time.monotonic() < deadline:
            heard = lines.since(said)
            if any(line.startswith("You turned ") for line in heard):
                return tries
            if any(line.startswith("Did you say turn?") for line in heard):
                asked = time.monotonic()
                server.say_into_microphone(yes)
                lines.wait_for("You turned ", timeout=8, after=asked)
                if any(line.startswith("You turned ") for line in lines.since(said)):
                    return tries
                break
            time.sleep(0.05)
    last = [line for _, line in lines.lines[-8:]]
    raise AssertionError(f'"turn" said {TRIES} times and the card never turned; the game\'s last lines: {last}')


def play_radio_game(server: AudioServer, folder: Path, room: bool, snr_db: float, enrolled: bool) -> list[int]:
    """A whole game through ``voice-rang play --listen`` with the radio on, the player saying
    "turn" (and "yes") into the microphone; how often "turn" was said for each of the three
    cards. Raises ``AssertionError`` where the game was not played as a person would expect."""
    data_home = folder / "data"
    if enrolled:
        enrol(data_home, folder / "takes")
    turns = [take("turn", tempo, cents, room=room) for tempo, cents in SAID_AGAIN]
    yes = take("yes", 0.95, -30, room=room)
    log = folder / "game.jsonl"
    server.play_radio(radio(turns[0], snr_db))
    process = subprocess.Popen([VOICE_RANG, "play", "--seats", "2", "--beat", "0", "--seed", "21",
                                "--cap", "6", "--text", "--listen", "--log", str(log)],
                               env=dict(server.env, XDG_DATA_HOME=str(data_home)),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None
    lines = LineWatch(process.stdout)
    tries: list[int] = []
    try:
        assert lines.wait_for("Listening: say turn", timeout=60), lines.lines
        for _ in range(3):
            offered = time.monotonic()
            time.sleep(2.0)  # the radio alone, between turns, turns nothing
            assert not any(line.startswith("You turned ") for line in lines.since(offered)), lines.since(offered)
            tries.append(say_until_turned(server, lines, turns, yes))
        assert lines.wait_for("Game over at the cap of 6 reveals", timeout=30), lines.lines
    finally:
        server.play_radio(b"")
        end(process)
    printed = [line for _, line in lines.lines]
    wrong = [line for line in printed if line.startswith(("Auto-reveal", "Quit", "Help", "Status", "Stopped"))]
    assert not wrong, wrong  # nothing but "turn" (and "yes") was ever acted on
    events = [json.loads(line) for line in log.read_text().splitlines()]
    reveals = [event for event in events if event["event"] == "reveal"]
    assert [event["seat"] for event in reveals] == [0, 1, 0, 1, 0, 1]
    assert events[-1]["event"] == "end"
    return tries


@pytest.mark.parametrize(("room", "snr_db", "enrolled"),
                         [(False, 15.0, True), (True, 20.0, True), (True, 20.0, False), (False, 15.0, False)],
                         ids=["beside-enrolled", "across-a-room-enrolled", "across-a-room-not-enrolled",
                              "beside-not-enrolled"])
def test_a_whole_game_is_played_by_saying_turn_with_a_radio_on(
        audio_server: AudioServer, tmp_path: Path, room: bool, snr_db: float, enrolled: bool) -> None:
    tries = play_radio_game(audio_server, tmp_path, room, snr_db, enrolled)
    print(f"radio {snr_db} dB {'across a room' if room else 'beside the table'}"
          f"{', enrolled' if enrolled else ''}: "
          f'"turn" said {tries} times for 3 cards')


@pytest.mark.parametrize("snr_db", [20.0, 15.0])
def test_the_radio_alone_acts_on_nothing_when_the_player_has_enrolled(tmp_path: Path, snr_db: float) -> None:
    """A minute and a half of the radio with nobody speaking, heard as the game hears it (the
    endpointer, both models and the player's takes), acts on nothing: music stands in a room
    unlike the quiet the takes were made in, and a short take can lie nearer it than the same
    word said over it does."""
    from voice_rang.commands import CommandSet
    from voice_rang.listen.neural import NeuralRecognizer
    from voice_rang.listen.personal import PersonalVoice
    from voice_rang.listen.recognizer import decode_pcm

    commands = CommandSet.load("en")
    write_takes(tmp_path / "takes")
    takes = PersonalVoice.load(tmp_path / "takes", known=set(commands.phrases))
    assert takes is not None
    recognizer = NeuralRecognizer(commands, personal=takes)
    heard = list(decode_pcm(recognizer, radio(take("turn", *SAID_AGAIN[0]), snr_db),
                            allowed={"turn", "repeat", "status", "help", "quit", "stop"}))
    assert len(recognizer.last) >= 5  # the music was heard as something said, and judged
    assert [result.command for result in heard if result.command] == []
