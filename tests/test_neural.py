"""The live recogniser between utterances: a command said again after no answer."""

from __future__ import annotations

import functools
from dataclasses import replace

from speech_samples import RATE, varied_take, with_white_noise

from voice_rang.commands import CommandSet
from voice_rang.listen.decision import Rule
from voice_rang.listen.neural import NeuralRecognizer
from voice_rang.listen.recognizer import decode_pcm

DEAF_HEAD = Rule(accept=1.01, ask=1.01, grammar_trust=False, grammar_rescue=False, again_min=0.15)
"""A rule that acts on no single utterance (the head never reaches ``accept`` and the grammar
decoders' sure command does not stand alone) and counts a command said again (off by default),
so only a command said again can be acted on."""


@functools.cache
def recognizer() -> NeuralRecognizer:
    return NeuralRecognizer(CommandSet.load("en"))


def said_twice(pause_s: float, snr_db: float = 45.0) -> bytes:
    """ "turn", a pause, and "turn" again in a new take (a little slower and lower), in a room
    with a steady hiss ``snr_db`` under the words."""
    room = bytes(2 * int(RATE * 0.4))
    pcm = (room + varied_take("turn", "rms", 1.0, 0) + bytes(2 * int(RATE * pause_s))
           + varied_take("turn", "rms", 0.95, -60) + room)
    return with_white_noise(pcm, snr_db, seconds_before=0.5)


def answers(pcm: bytes, rule: Rule) -> list[tuple[str | None, bool]]:
    live = recognizer()
    live.rule = rule
    return [(a.command, a.unsure) for a in decode_pcm(live, pcm) if a.reason != "silence"]


def test_a_command_said_again_in_a_quiet_room_after_no_answer_is_acted_on_the_second_time() -> None:
    assert answers(said_twice(1.5), replace(DEAF_HEAD, again_min=2.0)) == [(None, False), (None, False)]
    assert answers(said_twice(1.5), DEAF_HEAD) == [(None, False), ("turn", False)]


def test_a_command_said_again_in_noise_is_asked_about_never_acted_on() -> None:
    assert answers(said_twice(1.5, snr_db=15.0), DEAF_HEAD) == [(None, False), (None, True)]


def test_a_command_said_again_long_after_the_first_is_heard_on_its_own() -> None:
    assert answers(said_twice(1.5), replace(DEAF_HEAD, again_within_ms=1000.0)) == [(None, False), (None, False)]


def second_take_after(first: bytes, *, game_spoke: bool) -> str | None:
    """The live recogniser's answer to a new take of "turn" 1.5 s after ``first`` was decoded."""
    live = recognizer()
    live.rule = DEAF_HEAD
    assert [a.command for a in decode_pcm(live, first) if a.reason != "silence"] == [None]
    if game_spoke:
        live.abort()  # what the listener does when the game speaks over the room
    take = varied_take("turn", "rms", 0.95, -60)
    live.start(None, gap_ms=1500.0)
    for offset in range(0, len(take), 640):
        live.feed(take[offset:offset + 640])
    return live.finish(45.0).command


def test_the_game_speaking_between_two_takes_makes_the_second_a_first_hearing() -> None:
    first = with_white_noise(bytes(2 * int(RATE * 0.4)) + varied_take("turn", "rms", 1.0, 0) + bytes(16000), 45.0)
    assert second_take_after(first, game_spoke=False) == "turn"
    assert second_take_after(first, game_spoke=True) is None


def test_a_recording_decoded_on_its_own_never_counts_an_earlier_one() -> None:
    live = recognizer()
    live.rule = DEAF_HEAD
    take = with_white_noise(bytes(2 * int(RATE * 0.4)) + varied_take("turn", "rms", 1.0, 0) + bytes(16000), 45.0)
    assert live.recognize(take).command is None
    assert live.recognize(take).command is None  # each file alone, as ``voice-rang recognize`` hears it
