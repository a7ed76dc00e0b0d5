"""Bad input, tried on purpose: random text, random bytes, broken files. Each gets one clear answer
(an error of its own kind, one line at the command line), never a traceback, and changes nothing."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from random import Random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from voice_rang.commands import CommandSet
from voice_rang.games.rang_milanti import Game
from voice_rang.games.rang_milanti.log import LogError, decode_line, encode_events
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.games.rang_milanti.play import RangMilantiPlay
from voice_rang.keyboard import LineReader, key_name
from voice_rang.listen.wavfile import WavError, read_wav_16k
from voice_rang.messages import Message
from voice_rang.prompts import PromptsError, load_prompts, prompts_dir
from voice_rang.table import Table

COMMANDS = CommandSet.load("en")
PROJECT_PROMPTS = prompts_dir() / "en.toml"


class Silent:
    def __init__(self) -> None:
        self.said: list[Message] = []

    def say(self, message: Message) -> None:
        self.said.append(message)

    def stop(self) -> None: ...

    def busy(self) -> bool:
        return False

    def faster(self) -> int | None:
        return None

    def slower(self) -> int | None:
        return None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_to_a_known_command_or_to_nothing(text: str) -> None:
    command = COMMANDS.parse(text)
    assert command is None or command in COMMANDS.phrases


def _table() -> tuple[Table, Silent]:
    outputs = Silent()
    narrator = RangMilantiNarrator.load("en", seats=2, listener=0)
    table = Table(narrator, RangMilantiPlay(narrator, lambda number: Game(2, Random(1), number=number), 2),
                  outputs, kinds=["person", "computer"])
    table.start()
    outputs.said.clear()
    return table, outputs


def _state(table: Table) -> tuple[object, ...]:
    assert table.game is not None
    return (table.game.reveals, table.game.stack_counts(), table.auto[:], len(table.history), table.finished,
            table.narrator.sounds, table.narrator.verbosity)


def _assert_answered_not_a_command_alone(table: Table, outputs: Silent, before: tuple[object, ...]) -> None:
    """One line, "Not a command; say help.", kept in the history; nothing else changed."""
    assert [message.text for message in outputs.said] == ["Not a command; say help."]
    after = _state(table)
    assert after[:3] == before[:3] and after[3] == before[3] + 1 and after[4:] == before[4:]


def _typed(line: str) -> list[str]:
    """What the line reader delivers for one typed line."""
    delivered: list[str] = []
    ended = threading.Event()
    LineReader(COMMANDS, delivered.append, ended.set, stream=io.StringIO(line + "\n")).start()
    assert ended.wait(5)
    return delivered


def _is_a_key_letter(text: str) -> bool:
    stripped = text.strip()
    return len(stripped) == 1 and key_name(stripped) in COMMANDS.keys


@settings(max_examples=200, deadline=None)
@example("first")  # Court Piece's answer to "this or that?", no command of Rang Milanti's
@example("second")
@given(st.one_of(st.text(max_size=40), st.sampled_from(sorted(COMMANDS.keys.values())))
       .filter(lambda text: not any(end in text for end in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
               and text.strip() and COMMANDS.parse(text) is None and not _is_a_key_letter(text)))
def test_a_typed_line_that_is_no_command_is_answered_in_one_line_and_changes_nothing(text: str) -> None:
    table, outputs = _table()
    before = _state(table)
    for item in _typed(text):
        table.handle(item)
    _assert_answered_not_a_command_alone(table, outputs, before)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40).filter(lambda text: COMMANDS.parse(text) is None
                                   and text not in COMMANDS.keys.values()))
def test_an_id_neither_words_nor_keys_give_is_answered_in_one_line_and_changes_nothing(text: str) -> None:
    table, outputs = _table()
    before = _state(table)
    table.handle(text)
    _assert_answered_not_a_command_alone(table, outputs, before)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=200),
                 st.binary(max_size=120).map(lambda tail: b"RIFF\x00\x00\x00\x00WAVE" + tail),
                 st.binary(max_size=120).map(lambda tail: b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00" + tail)))
def test_random_bytes_as_a_wav_file_are_refused_with_a_reason_or_read(data: bytes) -> None:
    with tempfile.NamedTemporaryFile(suffix=".wav") as file:
        file.write(data)
        file.flush()
        try:
            pcm = read_wav_16k(file.name)
        except WavError as error:
            assert "\n" not in str(error) and str(error)
        else:
            assert len(pcm) % 2 == 0


def test_recognize_on_a_file_of_garbage_is_one_line_and_exit_1(tmp_path: Path) -> None:
    garbage = tmp_path / "noise.wav"
    garbage.write_bytes(os.urandom(3000))
    result = subprocess.run([sys.executable, "-m", "voice_rang", "recognize", str(garbage)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"{garbage}: ")
    assert "Traceback" not in result.stderr


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_damaged_prompts_file_is_one_clear_error(data: st.DataObject) -> None:
    good = PROJECT_PROMPTS.read_text(encoding="utf-8")
    lines = good.splitlines()
    how = data.draw(st.sampled_from(["cut", "drop line", "garble line"]))
    at = data.draw(st.integers(0, len(lines) - 1))
    if how == "cut":
        broken = good[: data.draw(st.integers(0, len(good) - 1))]
    elif how == "drop line":
        broken = "\n".join(lines[:at] + lines[at + 1:])
    else:
        garble = data.draw(st.text(min_size=1, max_size=10))
        broken = "\n".join([*lines[:at], lines[at][: len(lines[at]) // 2] + garble, *lines[at + 1:]])
    folder = Path(tempfile.mkdtemp())
    (folder / "en.toml").write_text(broken, encoding="utf-8")
    try:
        prompts = load_prompts("en", folder)
    except PromptsError as error:
        assert str(error) and "\n" not in str(error)
    else:  # what loads is complete: every message the game can say is there
        narrator = RangMilantiNarrator(prompts=prompts, seats=2, listener=0)
        for section, key in (("answer", "unknown"), ("answer", "resumed"), ("prompt", "your_turn")):
            assert narrator.say(section, key, 0, game=1, n=2).text


def test_a_prompts_file_missing_a_message_is_refused_at_the_start(tmp_path: Path) -> None:
    text = PROJECT_PROMPTS.read_text(encoding="utf-8").replace(
        'unknown = "Not a command; say help."\n', "")
    (tmp_path / "en.toml").write_text(text, encoding="utf-8")
    with pytest.raises(PromptsError, match=r"en.toml: .*answer\.unknown"):
        load_prompts("en", tmp_path)
    result = subprocess.run([sys.executable, "-m", "voice_rang", "play", "--text"],
                            capture_output=True, text=True, timeout=60, input="",
                            env={**os.environ, "VOICE_RANG_PROMPTS": str(tmp_path)})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "answer.unknown" in result.stderr


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_damaged_log_line_is_a_log_error_never_a_crash(data: st.DataObject) -> None:
    game = Game(3, Random(data.draw(st.integers(0, 50))))
    line = bytearray(encode_events([game.dealt, *game.reveal()]).splitlines()[-1])
    how = data.draw(st.sampled_from(["cut", "flip", "random"]))
    if how == "cut":
        line = line[: data.draw(st.integers(0, len(line)))]
    elif how == "flip":
        line[data.draw(st.integers(0, len(line) - 1))] ^= data.draw(st.integers(1, 255))
    else:
        line = bytearray(data.draw(st.binary(max_size=80)))
    try:
        value = decode_line(bytes(line))
    except LogError as error:
        assert str(error) and "\n" not in str(error)
    else:
        assert "event" in value and "game" in value
