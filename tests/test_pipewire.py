"""The speaker on PipeWire's PulseAudio server, which most Linux desktops now run in place of
PulseAudio: the game's own stream plays there, a stream that ran dry plays again, and a whole
game speaks and goes on (``docs/speech.md``, *Failure*)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from pipewire_server import SINK, PipeWireServer, pipewire_available, start_pipewire
from speaker_tap import RATE as TAP_RATE
from speaker_tap import SpeakerTap

from voice_rang.speech.player import _DIRECT_CUSHION_S, _MIN_WRITE_FRAMES
from voice_rang.speech.portaudio import PULSE_LATENCY_MS, latency_override_off
from voice_rang.speech.pulse import PulseOutputStream

RATE = 22050
"""The game's speech stream's rate (the tap hears the monitor at its own, ``TAP_RATE``)."""


@pytest.fixture(scope="module")
def pipewire() -> Iterator[PipeWireServer]:
    missing = pipewire_available()
    if missing:
        pytest.fail(f"the PipeWire tests need PipeWire: {missing}")
    server = start_pipewire()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def listening(server: PipeWireServer) -> Iterator[SpeakerTap]:
    """The project's speaker tap on PipeWire's sink, once it hears the monitor."""
    tap = SpeakerTap(server.env, monitor=f"{SINK}.monitor")
    try:
        deadline = time.monotonic() + 10
        while not tap.has_audio() and time.monotonic() < deadline:
            time.sleep(0.02)
        yield tap
    finally:
        tap.close()


def heard(tap: SpeakerTap) -> np.ndarray:
    return np.array(tap.samples(), dtype=np.float64)


BURSTS = (600, 900, 1200, 1500, 1800)
"""Each burst's pitch (Hz): which of them reached the speaker is told by pitch, whether they played
apart or, on a server held up, one after another."""


def tone(pitch: float, frames: int) -> bytes:
    return (np.sin(2 * np.pi * pitch * np.arange(frames) / RATE) * 12000).astype("<i2").tobytes()


def bursts_played(audio: np.ndarray) -> list[int]:
    """The pitches of :data:`BURSTS` the recording holds, each at least a quarter as strong as the
    strongest (a burst held back is absent; the null sink is otherwise silent)."""
    spectrum = np.abs(np.fft.rfft(audio))
    hz = np.fft.rfftfreq(len(audio), 1 / TAP_RATE)
    strength = {pitch: float(spectrum[(hz > pitch - 30) & (hz < pitch + 30)].max()) for pitch in BURSTS}
    strongest = max(strength.values())
    return [pitch for pitch in BURSTS if strongest > 0 and strength[pitch] >= strongest / 4]


def seconds_of_sound(audio: np.ndarray) -> float:
    """How long the recording holds sound louder than a quiet voice, in 20 ms stretches."""
    frame = TAP_RATE // 50
    frames = audio[:len(audio) // frame * frame].reshape(-1, frame)
    return float((np.sqrt((frames ** 2).mean(axis=1)) > 300).sum() * 0.02)


def test_on_pipewire_a_stream_that_ran_dry_plays_each_short_burst_written_after_it(
        pipewire: PipeWireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each burst is the least the idle cushion is ever left at, written after the stream ran dry:
    on PulseAudio a prebuffer as large as the cushion held such bursts for ever."""
    for name in ("PULSE_SERVER", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"):
        monkeypatch.setenv(name, pipewire.env[name])
    monkeypatch.setenv("PULSE_LATENCY_MSEC", PULSE_LATENCY_MS)
    least = int(RATE * _DIRECT_CUSHION_S) - _MIN_WRITE_FRAMES + 1
    with listening(pipewire) as tap:
        stream = PulseOutputStream(RATE, connecting=latency_override_off)
        try:
            stream.write(b"\0\0" * (RATE // 10))
            time.sleep(1.0)
            for pitch in BURSTS:
                time.sleep(0.4)  # dry
                stream.write(tone(pitch, least))
            deadline = time.monotonic() + 10
            while stream.queued_seconds() > 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)
        finally:
            stream.close()
        assert bursts_played(heard(tap)) == list(BURSTS)


def test_a_whole_game_speaks_on_pipewire_and_goes_on_after_each_line(
        pipewire: PipeWireServer) -> None:
    """The computer seat waits for the narration to end: a game whose speech never ended there
    would stall, and one whose speaker failed would say so and go on as text."""
    with listening(pipewire) as tap:
        lines = play_two_computer_turns(pipewire)
        sound = seconds_of_sound(heard(tap))
    said = "\n".join(lines)
    assert not [line for line in lines if "speaker was lost" in line.lower() or "speech is off" in line.lower()], said
    assert sum(line.startswith("Guest 1 turned") for line in lines) >= 2, said
    assert sound > 5.0, f"{sound:.1f} s of speech heard\n{said}"


def play_two_computer_turns(pipewire: PipeWireServer) -> list[str]:
    """``voice-rang play`` by keyboard until the computer has turned two cards, then quit: every
    line it wrote."""
    env = {**pipewire.env, "NO_COLOR": "1"}
    game = subprocess.Popen([sys.executable, "-m", "voice_rang", "play", "--seed", "3", "--no-listen"],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    assert game.stdin is not None and game.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 180  # speech on a busy machine plays slower than real time
    stuck = threading.Timer(240, game.kill)  # a game that hangs without a line ends the read
    stuck.start()
    try:
        while sum(line.startswith("Guest 1 turned") for line in lines) < 2 and time.monotonic() < deadline:
            line = game.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if line.startswith("Your turn"):
                game.stdin.write("turn\n")
                game.stdin.flush()
        game.stdin.write("quit\nyes\n")
        game.stdin.flush()
        out, _ = game.communicate(timeout=60)
        lines += out.splitlines()
    finally:
        stuck.cancel()
        if game.poll() is None:
            game.kill()
            game.wait(5)
    return lines
