"""Shared fixtures: the private PulseAudio server that stands in for a sound card."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from audio_server import AudioServer, audio_server_available, start_audio_server
from speaker_tap import SpeakerTap, warmed_up_tap

from voice_rang.speech import SpeechOutput


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
def _private_user_directories(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test reads or writes the user's own files, and no two test processes share theirs:
    a data directory (``voice-rang enroll`` keeps voice takes under ``$XDG_DATA_HOME``) and a
    state directory (saved games and seat tokens, under ``$XDG_STATE_HOME``) of the session's
    own, inherited by every process it starts. Under ``pytest -n`` each worker has its own."""
    names = ("XDG_DATA_HOME", "XDG_STATE_HOME")
    saved = {name: os.environ.get(name) for name in names}
    for name in names:
        os.environ[name] = str(tmp_path_factory.mktemp(name.lower().replace("_", "-")))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="module")
def speech(audio_server: AudioServer) -> Iterator[SpeechOutput]:
    """One speech output on the test sound server, for a module's tests."""
    output = SpeechOutput()
    yield output
    output.close()


@pytest.fixture(scope="module")
def tap(audio_server: AudioServer, speech: SpeechOutput) -> Iterator[SpeakerTap]:
    """The test speaker's monitor, warmed up through ``speech``."""
    with warmed_up_tap(speech) as speaker:
        yield speaker


SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
"""The training scripts' folder: their modules import each other by name."""


@pytest.fixture
def script_fronts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The training and benchmark scripts' fronts (``scripts/fronts.py``: the speech embedding,
    Whisper's encoder) added to the game's for one test, which leaves the game's as it was."""
    from voice_rang.listen import front

    monkeypatch.syspath_prepend(str(SCRIPTS))
    monkeypatch.setattr(front, "_FRONTS", dict(front._FRONTS))
    import fronts

    fronts.register()
    yield
