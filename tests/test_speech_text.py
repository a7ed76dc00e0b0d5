"""TextOutput: the plain backend every screen-reader player uses, and the test double."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from voice_rang.messages import Message, Priority
from voice_rang.speech import Output, TextOutput, one_line


def test_each_message_is_printed_as_exactly_one_line() -> None:
    stream = io.StringIO()
    text = TextOutput(stream)
    text.say(Message("Your turn."))
    text.say(Message("Guest one revealed\nthe queen of hearts.", Priority.CHATTY))
    assert stream.getvalue() == "Your turn.\nGuest one revealed the queen of hearts.\n"
    assert text.lines == ["Your turn.", "Guest one revealed the queen of hearts."]


def test_empty_messages_print_nothing() -> None:
    stream = io.StringIO()
    text = TextOutput(stream)
    text.say(Message("   \n "))
    assert stream.getvalue() == ""


def test_default_stream_is_stdout_at_the_time_of_printing(capsys: pytest.CaptureFixture[str]) -> None:
    text = TextOutput()
    text.say(Message("Game over."))
    assert capsys.readouterr().out == "Game over.\n"


def test_text_output_never_writes_escape_codes_whatever_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for env in ({"TERM": "xterm-256color"}, {"TERM": "dumb"}, {"NO_COLOR": "1"}):
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        stream = io.StringIO()
        TextOutput(stream).say(Message("Your turn.", Priority.URGENT))
        assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()


def test_text_output_satisfies_the_output_protocol_and_its_calls_are_harmless() -> None:
    text = TextOutput(io.StringIO())
    assert isinstance(text, Output)
    text.stop()
    assert text.wait_until_done(timeout=0)
    text.close()


def test_on_line_hook_sees_each_printed_line() -> None:
    seen: list[str] = []
    TextOutput(io.StringIO(), on_line=seen.append).say(Message("Say reveal."))
    assert seen == ["Say reveal."]


def test_a_closed_pipe_does_not_raise() -> None:
    stream = io.StringIO()
    stream.close()
    TextOutput(stream).say(Message("Nobody is listening."))


def test_one_line_collapses_whitespace() -> None:
    assert one_line(" a\tb\n\nc ") == "a b c"


def test_importing_text_output_does_not_load_speech_libraries() -> None:
    code = (
        "import sys; import voice_rang.speech as s; s.TextOutput; "
        "print(any(m in sys.modules for m in ('pyttsx3', 'pyaudio')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"
