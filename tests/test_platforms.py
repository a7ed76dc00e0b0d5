"""Where the game installs and what it does where packages are missing: the runtime dependencies
resolve to binary wheels for Windows, macOS on ARM and Linux on ARM (PyPI is asked; nothing
here runs those systems), and a game and the listener run with the packages those systems lack
made absent (``absent_packages.py``)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from absent_packages import NEURAL, NO_MICROPHONE, without
from speech_samples import synthesize

from voice_rang.prompts import tomllib

ROOT = Path(__file__).resolve().parent.parent

TARGETS: dict[str, dict[str, str]] = {
    "win_amd64": {"sys_platform": "win32", "platform_system": "Windows", "platform_machine": "AMD64",
                  "os_name": "nt", "platform_release": "10"},
    "macosx_11_0_arm64": {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "arm64",
                          "os_name": "posix", "platform_release": "20.1.0"},
    "manylinux2014_aarch64": {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "aarch64",
                              "os_name": "posix", "platform_release": "6.1.0"},
}
"""Each platform's wheel tag, and the environment markers its Python reports (3.11)."""
PYTHON = {"python_version": "3.11", "python_full_version": "3.11.9", "implementation_name": "cpython",
          "implementation_version": "3.11.9", "platform_python_implementation": "CPython", "platform_version": ""}
RESOLVE_TIMEOUT_S = 240


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        return False
    return True


def _runtime_requirements(environment: dict[str, str]) -> list[Any]:
    """``pyproject.toml``'s dependencies that apply on ``environment``."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(line) for line in project["dependencies"]]
    return [r for r in wanted if r.marker is None or r.marker.evaluate({**environment, "extra": ""})]


def _resolve(tag: str, environment: dict[str, str], requirements: list[str], work: Path) -> dict[str, Any]:
    """pip's resolution of ``requirements`` as binary wheels for ``tag``: its report."""
    report = work / f"{tag}.json"
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--only-binary", ":all:", "--platform", tag, "--python-version", environment["python_version"],
         "--implementation", "cp", "--target", str(work / "target"), "--report", str(report), *requirements],
        capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S)
    errors = [line for line in run.stderr.splitlines() if not line.startswith("WARNING:")]
    assert run.returncode == 0, f"{tag}: " + "\n".join(errors[-15:])
    result: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return result


def _names(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    from packaging.utils import canonicalize_name

    return {canonicalize_name(item["metadata"]["name"]): item for item in report["install"]}


def _closure(tag: str, work: Path) -> dict[str, dict[str, Any]]:
    """Every wheel the game installs on ``tag``, by name. pip evaluates markers for the machine
    it runs on, not for ``--platform``; so the markers are evaluated here for the target, and every
    dependency a resolved wheel has there (pyttsx3's SAPI5 and AppKit bindings among them) is
    resolved in turn, until nothing is left out."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    work.mkdir()
    environment = {**PYTHON, **TARGETS[tag]}
    requirements = [str(r.name) + str(r.specifier) for r in _runtime_requirements(environment)]
    for _ in range(4):
        installed = _names(_resolve(tag, environment, requirements, work))
        missing = []
        for item in installed.values():
            for line in item["metadata"].get("requires_dist") or []:
                needed = Requirement(line)
                if needed.marker is not None and not needed.marker.evaluate({**environment, "extra": ""}):
                    continue
                if canonicalize_name(needed.name) not in installed:
                    missing.append(needed.name + str(needed.specifier))
        if not missing:
            return installed
        requirements += sorted(set(missing))
    raise AssertionError(f"{tag}: the dependencies never closed: {missing}")


@pytest.mark.slow
def test_the_runtime_dependencies_resolve_to_wheels_for_windows_macos_and_linux_on_arm(tmp_path: Path) -> None:
    pytest.importorskip("packaging", reason="needs the test extra's packaging")
    if not _pypi_reachable():
        pytest.skip("PyPI (pypi.org:443) cannot be reached from here, so no platform's wheels can be listed")
    with ThreadPoolExecutor(len(TARGETS)) as pool:  # each waits on the index: side by side
        resolved = dict(zip(TARGETS, pool.map(lambda tag: _closure(tag, tmp_path / tag), TARGETS), strict=True))
    for tag, installed in resolved.items():
        assert {"pyttsx3", "aiohttp", "msgspec", "pocketsphinx", "numpy"} <= set(installed), (tag, sorted(installed))
        assert "moonshine-cpp" not in installed and "webrtc-noise-gain" not in installed, tag
    assert {"pyaudio", "comtypes", "pywin32"} <= set(resolved["win_amd64"]), "the microphone and SAPI5"
    assert "pyobjc-core" in resolved["macosx_11_0_arm64"], "NSSpeechSynthesizer's bindings"


def _text_game(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command, "play", "--text", "--seats", "3", "--beat", "0", "--seed", "3"],
                          input="auto-reveal on\n", capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("absent", [NEURAL, NO_MICROPHONE], ids=["no neural front", "no microphone"])
def test_a_text_game_plays_to_the_end_where_the_platform_limited_packages_are_absent(
        absent: tuple[str, ...]) -> None:
    game = _text_game(without(absent))
    assert game.returncode == 0, game.stderr[-2000:]
    assert "Game over" in game.stdout and "Traceback" not in game.stderr


def test_without_a_microphone_package_voice_commands_are_off_in_one_line_and_the_game_goes_on() -> None:
    game = subprocess.run([*without(NO_MICROPHONE), "play", "--text", "--listen", "--seats", "2", "--beat", "0",
                           "--seed", "3"], input="auto-reveal on\n", capture_output=True, text=True, timeout=120)
    assert game.returncode == 0, game.stderr[-2000:]
    off = [line for line in game.stdout.splitlines() if line.startswith("Voice commands are off")]
    assert len(off) == 1 and "PyAudio" in off[0], game.stdout[:2000]
    assert "Game over" in game.stdout and "Traceback" not in game.stderr


def test_doctor_says_what_listens_and_what_is_missing_without_a_traceback() -> None:
    doctor = subprocess.run([*without(NO_MICROPHONE), "doctor"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PULSE_SERVER": "unix:/nonexistent"})
    assert doctor.returncode in (0, 1) and "Traceback" not in doctor.stdout + doctor.stderr, doctor.stderr
    assert "Words load: " in doctor.stdout
    assert "Voice commands listen with pocketsphinx alone: Moonshine's speech model has no package" in doctor.stdout
    assert "No PyAudio, so no microphone" in doctor.stdout
    assert "Not ready" not in doctor.stdout


@pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")
def test_the_recogniser_hears_commands_with_pocketsphinx_alone_where_the_neural_front_is_absent(
        tmp_path: Path) -> None:
    import wave

    for phrase in ("turn", "status"):
        with wave.open(str(tmp_path / f"{phrase}.wav"), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(16000)
            out.writeframes(b"\0\0" * 4800 + synthesize(phrase) + b"\0\0" * 4800)
    heard = subprocess.run([*without(NEURAL), "recognize", "--json", str(tmp_path / "turn.wav"),
                            str(tmp_path / "status.wav")], capture_output=True, text=True, timeout=120)
    assert heard.returncode == 0, heard.stderr[-2000:]
    assert [json.loads(line)["command"] for line in heard.stdout.splitlines()] == ["turn", "status"]
    said = [line for line in heard.stderr.splitlines() if "pocketsphinx alone" in line]
    assert len(said) == 1 and "Moonshine's speech model has no package for this computer" in said[0], heard.stderr


@pytest.mark.audio
@pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")
def test_a_spoken_turn_is_heard_live_by_pocketsphinx_alone_where_the_neural_front_is_absent(
        audio_server: Any) -> None:
    """The microphone listener on the test sound card, the game printing only (``--text
    --listen``: nothing of its own voice to wait out)."""
    from live_game import LineWatch

    process = subprocess.Popen([*without(NEURAL), "play", "--text", "--listen", "--seats", "2", "--beat", "0",
                                "--seed", "5"], env={**os.environ, **audio_server.env},
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdin is not None
    lines = LineWatch(process.stdout)
    try:
        assert lines.wait_for("heard less well here", timeout=60), lines.lines
        assert lines.wait_for("Listening: say turn", timeout=60), lines.lines
        assert lines.wait_for("Your turn: say turn", timeout=30), lines.lines
        said = time.monotonic()
        audio_server.say_into_microphone(synthesize("turn"))
        assert lines.wait_for("You turned the ", timeout=15, after=said), lines.since(said)
        process.stdin.write("quit\nyes\n")
        process.stdin.flush()
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert sum("heard less well here" in line for _, line in lines.lines) == 1
