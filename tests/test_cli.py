"""The front door: ``voice-rang`` builds only the sub-command it is asked for."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def modules_loaded_by(*argv: str) -> set[str]:
    """The heavy libraries imported once the parser for ``argv`` is built, in a fresh process."""
    script = ("import sys\nfrom voice_rang.cli import build_parser\n"
              f"build_parser({list(argv)!r}).parse_args({list(argv)!r})\n"
              "print(' '.join(m for m in ('aiohttp', 'numpy', 'onnxruntime', 'pocketsphinx')"
              " if m in sys.modules))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, timeout=120)
    return set(result.stdout.split())


@pytest.mark.parametrize("argv", [("play", "--text"), ("demo", "--text"), ("simulate",)])
def test_a_game_that_needs_no_network_or_models_starts_without_loading_them(argv: tuple[str, ...]) -> None:
    # Importing the web stack and the neural models costs about a second on a busy machine,
    # before the first word of a game that uses neither.
    assert modules_loaded_by(*argv) == set()


def test_the_host_command_still_gets_its_network_stack() -> None:
    assert "aiohttp" in modules_loaded_by("host", "--text")


def voice_rang(*argv: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    """The front door in a fresh process, as a terminal ``columns`` wide would run it."""
    return subprocess.run([sys.executable, "-c", "import sys; from voice_rang.cli import main; sys.exit(main())",
                           *argv], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": str(columns)})


@pytest.mark.parametrize(("argv", "line"), [
    (("play", "--bogus"), "voice-rang play: unrecognized arguments: --bogus (see voice-rang play --help)"),
    (("recognize", "--bogus", "x.wav"),
     "voice-rang recognize: unrecognized arguments: --bogus (see voice-rang recognize --help)"),
    (("--text", "play"), "voice-rang play: --text goes after 'play': voice-rang play --text"),
])
def test_a_word_the_command_does_not_know_points_to_that_commands_help(argv: tuple[str, ...], line: str) -> None:
    result = voice_rang(*argv)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(line)


def test_no_command_at_all_is_one_line_naming_the_commands() -> None:
    result = voice_rang()
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "voice-rang play" in result.stderr and "recognize" in result.stderr


@pytest.mark.parametrize("command", ["play", "recognize", "enroll"])
def test_help_gives_each_option_its_meaning_on_one_line_in_a_narrow_terminal(command: str) -> None:
    result = voice_rang(command, "--help", columns=40)
    options = result.stdout.split("options:", 1)[1].splitlines()[1:]
    assert options and all(line.startswith("  -") for line in options if line.strip())
    assert all(len(line.split("  ")) > 1 for line in options if line.strip())  # a name and its meaning
    top = voice_rang("--help", columns=40).stdout
    assert "    recognize  Decode WAV recordings" in top
