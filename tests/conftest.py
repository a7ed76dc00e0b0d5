"""Shared fixtures: the private PulseAudio server that stands in for a sound card."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from audio_server import AudioServer, audio_server_available, start_audio_server


@pytest.fixture(scope="session")
def audio_server() -> Iterator[AudioServer]:
    """A PulseAudio server with a null-sink speaker and a FIFO microphone, for the whole session.

    The environment of this process points at it too (``PULSE_SERVER``), so PyAudio in the tests
    and every ``voice-rang`` started by them see its devices.
    """
    missing = audio_server_available()
    if missing:
        pytest.fail(f"the audio tests need PulseAudio: {missing}")
    server = start_audio_server()
    saved = {key: os.environ.get(key) for key in server.env}
    os.environ.update(server.env)
    try:
        yield server
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        server.stop()


@pytest.fixture(autouse=True, scope="session")
def _private_voice_takes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Takes of a voice enrolled on this machine never reach a test: a data directory of its own
    (``voice-rang enroll`` keeps them under ``$XDG_DATA_HOME``), inherited by every process."""
    saved = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    yield
    if saved is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = saved
