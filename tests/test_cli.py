"""The front door: ``voice-rang`` builds only the sub-command it is asked for."""

from __future__ import annotations

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
