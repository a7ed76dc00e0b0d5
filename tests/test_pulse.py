"""The speaker's own stream to the sound server (``voice_rang.speech.pulse``), on the test server.

What matters to a player: the stream holds enough sound to outlast a held-up play thread (the
server buffer, not the 30 ms PortAudio's streams ask for), a stop drops what is queued, and a
stream that is gone or a server that is not there fails with an ``OSError``, never a crash.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import nullcontext

import pytest
from audio_server import AudioServer

from voice_rang.speech.player import _DIRECT_CUSHION_S, _MIN_WRITE_FRAMES
from voice_rang.speech.portaudio import PULSE_LATENCY_MS, latency_override_off
from voice_rang.speech.pulse import SERVER_BUFFER_MS, PulseOutputStream, PulseUnavailable

RATE = 22050


@pytest.fixture
def game_environment(audio_server: AudioServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The environment as the game sets it for PortAudio's streams."""
    monkeypatch.setenv("PULSE_LATENCY_MSEC", PULSE_LATENCY_MS)
    yield


def buffer_ms(stream: PulseOutputStream) -> float:
    return 1000 * stream.buffer_frames / RATE


def test_the_speaker_gets_the_server_buffer_though_portaudio_asks_for_30_ms(
        game_environment: None) -> None:
    stream = PulseOutputStream(RATE, connecting=latency_override_off)
    try:
        assert buffer_ms(stream) >= 0.9 * SERVER_BUFFER_MS
    finally:
        stream.close()
    assert os.environ["PULSE_LATENCY_MSEC"] == PULSE_LATENCY_MS


def test_without_the_override_off_the_environment_shrinks_the_buffer(game_environment: None) -> None:
    """Why the override is switched off for the connect: libpulse would obey it."""
    stream = PulseOutputStream(RATE, connecting=nullcontext)
    try:
        assert buffer_ms(stream) < SERVER_BUFFER_MS / 2
    finally:
        stream.close()


def test_a_flush_leaves_nothing_queued_and_the_next_write_queues_again(game_environment: None) -> None:
    stream = PulseOutputStream(RATE, connecting=latency_override_off)
    try:
        free = stream.get_write_available()
        assert free > 0
        stream.write(b"\x10\x00" * free, free)
        assert stream.queued_seconds() > 0.05
        stream.flush()
        assert stream.queued_seconds() == 0.0
        deadline = time.monotonic() + 5
        while stream.get_write_available() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        stream.write(b"\x10\x00" * 2205, 2205)
        assert stream.queued_seconds() > 0.0
    finally:
        stream.close()


@pytest.mark.parametrize("at_play", [False, True])
def test_sound_written_at_the_play_position_replaces_the_queued_silence_instead_of_following_it(
        game_environment: None, at_play: bool) -> None:
    """And what is queued is known at once after it: the end of a message is timed by it."""
    stream = PulseOutputStream(RATE, connecting=latency_override_off)
    try:
        stream.write(bytes(2 * 3 * RATE))  # three seconds of silence queued
        stream.write(b"\x00\x10" * (RATE // 10), at_play=at_play)  # a tenth of a second of sound
        queued = stream.queued_seconds()
        if at_play:
            assert 0.0 < queued < 1.0
        else:
            assert queued > 2.0
    finally:
        stream.close()


def queued_frames(stream: PulseOutputStream) -> int:
    return stream.buffer_frames - stream.get_write_available()


def drains(stream: PulseOutputStream, timeout: float) -> bool:
    """Whether what the stream holds is played within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while queued_frames(stream) > 0:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_stream_that_ran_dry_plays_again_from_the_least_the_idle_cushion_is_left_at(
        game_environment: None) -> None:
    """The player tops its idle cushion up only once a few frames are missing; a stream that
    ran dry (its play thread held up on a busy machine) must play again from there, or the
    speaker is silent for good and given up as lost."""
    least = int(RATE * _DIRECT_CUSHION_S) - _MIN_WRITE_FRAMES + 1
    stream = PulseOutputStream(RATE, connecting=latency_override_off)
    try:
        stream.write(b"\0\0" * (RATE // 10))
        assert drains(stream, timeout=10)  # a new stream on a null sink takes a moment to start
        for _ in range(3):
            time.sleep(0.1)  # dry
            stream.write(b"\0\0" * least)
            assert drains(stream, timeout=2), f"{queued_frames(stream)} frames held, never played"
    finally:
        stream.close()


def test_a_closed_stream_refuses_writes_with_an_oserror_and_closes_again_quietly(
        game_environment: None) -> None:
    stream = PulseOutputStream(RATE, connecting=latency_override_off)
    stream.close()
    with pytest.raises(OSError):
        stream.get_write_available()
    with pytest.raises(OSError):
        stream.write(b"\0\0", 1)
    assert stream.queued_seconds() == 0.0
    stream.flush()
    stream.close()


def test_no_server_at_the_address_is_a_clear_error(
        tmp_path: os.PathLike[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/no-such-socket")
    with pytest.raises(PulseUnavailable):
        PulseOutputStream(RATE, timeout=2.0)
