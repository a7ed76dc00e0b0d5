"""Commands from the keyboard: a line of words, or a line of one key's letter, as the help names them."""

from __future__ import annotations

import io
import threading

from voice_rang.commands import UNKNOWN_INPUT, CommandSet
from voice_rang.keyboard import LineReader


def _read_lines(text: str) -> list[str]:
    delivered: list[str] = []
    ended = threading.Event()
    reader = LineReader(CommandSet.load("en"), delivered.append, ended.set, stream=io.StringIO(text))
    reader.start()
    assert ended.wait(5)
    return delivered


def test_a_line_of_one_keys_letter_is_that_keys_command() -> None:
    assert _read_lines("r\nS\n?\n+\n") == ["repeat", "status", "help", "faster"]


def test_words_are_read_as_before_and_a_letter_no_key_has_stays_as_typed() -> None:
    assert _read_lines("auto-reveal on\nturn\nz\nhelp me\n\n") == ["auto-reveal on", "turn", "z", "help me"]


def test_a_line_spelling_an_id_only_keys_give_or_a_queue_marker_is_not_a_command() -> None:
    lines = "sounds toggle\nverbosity cycle\nauto-reveal toggle\n\x00input ended\n"
    assert _read_lines(lines) == [UNKNOWN_INPUT] * 4
