"""Devices found quietly, chosen by name or number, and ``voice-rang doctor``'s answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from voice_rang.speech.devices import AudioDevice, DeviceNotFound, find_output_device

DEVICES = [
    AudioDevice(0, "pulse", "ALSA", 32, 32, 44100.0),
    AudioDevice(1, "default", "ALSA", 32, 32, 44100.0, is_default_output=True,
                is_default_input=True),
    AudioDevice(2, "USB Headset: Audio (hw:2,0)", "ALSA", 2, 1, 48000.0),
    AudioDevice(3, "Webcam Mic (hw:3,0)", "ALSA", 0, 1, 16000.0),
]


def no_server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PULSE_SERVER"] = "unix:/nonexistent/voice-rang-test"
    return env


def test_default_output_is_chosen_when_none_is_asked_for() -> None:
    assert find_output_device(DEVICES, None).name == "default"


def test_output_is_found_by_number_or_part_of_its_name() -> None:
    assert find_output_device(DEVICES, 2).index == 2
    assert find_output_device(DEVICES, "2").index == 2
    assert find_output_device(DEVICES, "usb").index == 2
    assert find_output_device(DEVICES, "PULSE").index == 0


def test_input_only_devices_are_not_outputs() -> None:
    with pytest.raises(DeviceNotFound, match="No audio output named 'Webcam'"):
        find_output_device(DEVICES, "Webcam")
    with pytest.raises(DeviceNotFound, match="No audio output number 3"):
        find_output_device(DEVICES, 3)


def test_no_outputs_at_all_says_what_to_do() -> None:
    with pytest.raises(DeviceNotFound, match=r"^No speaker or headphones found: plug one in"):
        find_output_device(DEVICES[3:], None)


def test_starting_portaudio_prints_nothing_to_stderr() -> None:
    code = (
        "from voice_rang.speech.devices import list_devices\n"
        "from voice_rang.speech.portaudio import end_portaudio, portaudio\n"
        "pa = portaudio(); print(len(list_devices(pa))); end_portaudio()\n"
        "import sys; print('still heard', file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=no_server_env(), timeout=60)
    assert result.returncode == 0
    assert result.stderr == "still heard\n", result.stderr[:500]


def run_doctor(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "voice_rang", "doctor", *args],
                          capture_output=True, text=True, env=env, timeout=60)


def test_doctor_without_sound_says_what_is_missing_and_exits_1() -> None:
    result = run_doctor(no_server_env())
    assert result.returncode == 1
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Words load: Bengali (bn), English (en)")
    assert lines[1] == ("Voice models load: pocketsphinx and the command head on Moonshine's encoder; "
                        "Court Piece's cards on its decoder.")
    assert lines[2].startswith("Speech synthesizer works: espeak-ng")
    assert any(line.startswith("No speaker or headphones found:") for line in lines)
    assert any(line.startswith("No microphone found: play by keyboard") for line in lines)
    assert lines[-1].startswith("Speech output missing:")


def test_doctor_says_not_ready_with_the_fix_when_the_words_cannot_be_read(tmp_path: Path) -> None:
    missing = run_doctor({**no_server_env(), "VOICE_RANG_PROMPTS": str(tmp_path)})
    assert missing.returncode == 1 and missing.stderr == ""
    lines = missing.stdout.splitlines()
    fix = f"fix the prompts files in {tmp_path}, or unset VOICE_RANG_PROMPTS"
    assert lines[0] == f"The game's words are missing (no en.toml in {tmp_path}): {fix}."
    assert lines[-1] == f"Not ready: {fix}."
    (tmp_path / "en.toml").write_text("[commands\n", encoding="utf-8")
    broken = run_doctor({**no_server_env(), "VOICE_RANG_PROMPTS": str(tmp_path)})
    assert broken.returncode == 1 and broken.stdout.splitlines()[0].startswith(
        "The game's words cannot be read (en.toml is not valid TOML: ")
    assert broken.stdout.splitlines()[-1].startswith("Not ready: ")


@pytest.mark.audio
def test_doctor_with_a_speaker_lists_devices_and_exits_0(audio_server: object) -> None:
    result = run_doctor(dict(os.environ))
    assert result.returncode == 0, result.stdout
    assert result.stderr == ""
    text = result.stdout
    assert "Output devices: " in text and "Input devices: " in text
    assert "Speech output works: through default" in text
    assert "Traceback" not in text


@pytest.mark.audio
def test_doctor_with_a_missing_device_names_it_and_exits_1(audio_server: object) -> None:
    result = run_doctor(dict(os.environ), "--device", "nonexistent speaker")
    assert result.returncode == 1
    assert "No audio output named 'nonexistent speaker'" in result.stdout
    assert result.stderr == ""


@pytest.mark.audio
def test_doctor_on_a_frozen_sound_server_says_it_is_not_answering_and_exits_1() -> None:
    from audio_server import start_audio_server

    server = start_audio_server()  # its own, to freeze
    server.freeze()  # espeak-ng's start and PortAudio's now hang instead of failing
    try:
        result = run_doctor(server.env)  # it used to hang for ever
    finally:
        server.thaw()
        server.stop()
    assert result.returncode == 1
    assert result.stderr == ""
    lines = [line for line in result.stdout.splitlines() if not line.startswith(("Words load", "Voice models"))]
    assert lines[0].startswith("The sound system is not answering"), lines
    assert sum("not answering" in line for line in lines) == 1, lines
    assert not any(line.startswith(("No speaker", "No microphone")) for line in lines), lines
    assert lines[-1].startswith("Speech output missing:")


@pytest.mark.audio
def test_speaker_and_microphone_share_one_portaudio_started_once(audio_server: object) -> None:
    """PortAudio's start and end are process-wide and unlocked: a second start or an end while
    another thread is inside a stream is what aborted the process under load."""
    code = (
        "import time\n"
        "from voice_rang.commands import CommandSet\n"
        "from voice_rang.listen import VoiceListener\n"
        "from voice_rang.speech import SpeechOutput\n"
        "from voice_rang.speech.portaudio import end_portaudio, portaudio_counts\n"
        "import voice_rang.speech.player as player\n"
        "player.pulse_server_configured = lambda: False  # the speaker through PortAudio too\n"
        "mic = VoiceListener(CommandSet.load('en'), on_command=print)\n"
        "mic.start()\n"
        "for _ in range(2):\n"
        "    speech = SpeechOutput()\n"
        "    speech.close()\n"
        "mic.stop(); time.sleep(1.5)\n"
        "counts = portaudio_counts()\n"
        "print(counts['starts'], counts['opens'], counts['closes'], counts['open'], end_portaudio())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-800:]
    starts, opens, closes, still_open, ended = result.stdout.split()[-5:]
    assert starts == "1"  # one start for the process, whoever opens what
    assert int(opens) >= 3 and opens == closes and still_open == "0", result.stdout
    assert ended == "True"  # ended once, when nothing was left open


def _speaker_options() -> dict[str, object]:
    import pyaudio

    from voice_rang.speech.devices import list_devices

    device = find_output_device(list_devices(), None)
    return {"format": pyaudio.paInt16, "channels": 1, "rate": 22050, "output": True,
            "output_device_index": device.index, "frames_per_buffer": 256}


@pytest.mark.audio
def test_trial_open_in_a_child_says_ok_for_a_live_server_and_not_yet_for_one_gone(
    audio_server: object,
) -> None:
    """A reopen is risked in a child first: PortAudio 19.6 aborts the process (issue #278) when
    an ALSA open meets a sound server that is going away."""
    from audio_server import start_audio_server

    from voice_rang.speech.portaudio import probe_open

    options = _speaker_options()
    assert probe_open(options)
    gone = start_audio_server()
    gone.stop()
    assert not probe_open(options, env={**os.environ, **gone.env})
    assert not probe_open(options, env=no_server_env())


@pytest.mark.audio
def test_trial_open_in_a_child_on_a_frozen_server_says_not_yet_within_its_time(
    audio_server: object,
) -> None:
    from audio_server import start_audio_server

    from voice_rang.speech.portaudio import probe_open

    options = _speaker_options()
    frozen = start_audio_server()
    frozen.freeze()  # PortAudio's start there hangs instead of failing
    try:
        assert not probe_open(options, timeout=2.0, env={**os.environ, **frozen.env})
    finally:
        frozen.thaw()
        frozen.stop()
