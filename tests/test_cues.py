"""Sound cues: short, distinct from each other and from speech, and told by the narration."""

from __future__ import annotations

import io
import subprocess
import wave
from random import Random

import numpy as np
import pytest
from cue_finder import RATE, cue_template, ncc

from voice_rang.games.rang_milanti import DECK, Card, Game, GameOver, Reshuffled, Revealed
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.speech.cues import CUE_NAMES, cue_pcm, duration, is_cue

DISTINCT = ["miss", "miss you", "capture you 6", "capture other 6", "capture you 20",
            "capture other 20", "your turn", "reshuffle", "out", "won", "lost", "not caught",
            "listening on", "listening off", "trump", "court"]


def heard_in(signal: np.ndarray, name: str) -> float:
    """How well the cue ``name`` matches anywhere in ``signal`` (1 = exactly its shape)."""
    template = cue_template(name)
    padded = np.concatenate([np.zeros(len(template)), signal, np.zeros(len(template))])
    return float(ncc(padded, template).max())


def test_every_cue_is_short_and_a_miss_well_under_a_fifth_of_a_second() -> None:
    assert duration("miss") < 0.1 and duration("miss you") < 0.1
    for name in DISTINCT:
        assert 0.05 < duration(name) <= 0.7, name
    assert all(is_cue(name) for name in DISTINCT)
    assert set(CUE_NAMES) == {" ".join(n.split()[:2]) if n.startswith("capture") else n
                              for n in DISTINCT}


def test_no_cue_sounds_like_another_or_like_speech() -> None:
    for first in DISTINCT:
        for second in DISTINCT:
            if first.split()[:2] == second.split()[:2]:
                continue  # the same capture, two sizes: meant to sound alike
            assert heard_in(cue_template(first), second) < 0.5, (first, second)
    spoken = subprocess.run(
        ["espeak-ng", "-s", "175", "--stdout",
         "Guest 1 turned the six of diamonds onto the queen of clubs: a miss. Your turn."],
        capture_output=True, check=True).stdout
    with wave.open(io.BytesIO(spoken)) as wav:
        rate, frames = wav.getframerate(), wav.readframes(wav.getnframes())
    source = np.frombuffer(frames, dtype=np.int16).astype(np.float64)
    speech = np.interp(np.arange(0, len(source) / rate, 1 / RATE), np.arange(len(source)) / rate,
                       source)
    for name in DISTINCT:
        assert heard_in(speech, name) < 0.5, name


def test_a_capture_sounds_fuller_the_more_cards_it_moves() -> None:
    def notes(name: str) -> int:
        spectrum = np.abs(np.fft.rfft(np.frombuffer(cue_pcm(name, RATE), dtype=np.int16)))
        loud = spectrum > spectrum.max() * 0.2
        return int(np.count_nonzero(loud[1:] & ~loud[:-1]))  # separate spectral peaks

    for side in ("you", "other"):
        sizes = [notes(f"capture {side} {moved}") for moved in (2, 8, 20)]
        lengths = [duration(f"capture {side} {moved}") for moved in (2, 8, 20)]
        assert sizes == sorted(sizes) and sizes[0] < sizes[-1], sizes
        assert lengths == sorted(lengths) and lengths[0] < lengths[-1]


def test_your_capture_and_another_seats_rise_and_fall() -> None:
    def pitch_at(pcm: bytes, start: float, end: float) -> float:
        samples = np.frombuffer(pcm, dtype=np.int16)[int(start * RATE):int(end * RATE)]
        spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
        return float(np.argmax(spectrum)) * RATE / len(samples)

    mine, theirs = cue_pcm("capture you 12", RATE), cue_pcm("capture other 12", RATE)
    assert pitch_at(mine, 0.0, 0.03) < pitch_at(mine, 0.12, 0.18)
    assert pitch_at(theirs, 0.0, 0.03) > pitch_at(theirs, 0.12, 0.18)


def test_an_unknown_cue_is_refused() -> None:
    with pytest.raises(ValueError, match="no sound cue named 'hum'"):
        cue_pcm("hum", RATE)


def stacked(*first: str) -> Game:
    top = [Card(code) for code in first]
    return Game(2, Random(0), deck=top + [card for card in DECK if card not in top])


def test_with_sounds_a_brief_miss_onto_the_card_just_announced_is_its_cue_and_the_new_suit() -> None:
    game = stacked("KH", "KS", "2S")
    narrator = RangMilantiNarrator.load("en", seats=2, verbosity="brief", sounds=True)
    first = narrator.event(game.reveal()[0])[0]
    assert first.text == "You: the king of hearts, new pile. Reveal 1 of 5,000." and first.cue == ""
    miss = narrator.event(game.reveal()[0])[0]
    assert (miss.text, miss.cue) == ("Spades.", "miss")
    events = game.reveal()
    match = narrator.event(events[0])[0]
    assert match.cue == "capture you 3"
    assert match.text == "You: the two of spades on the king of spades, match, you take 3."


def test_with_sounds_a_brief_miss_names_both_suits_when_something_else_was_said_in_between() -> None:
    game = stacked("KH", "KS", "2D")
    narrator = RangMilantiNarrator.load("en", seats=2, verbosity="brief", sounds=True)
    narrator.event(game.reveal()[0])
    narrator.say("answer", "stopped")
    miss = narrator.event(game.reveal()[0])[0]
    assert (miss.text, miss.cue) == ("Spades on hearts.", "miss")
    assert narrator.event(game.reveal()[0])[0].text == "Diamonds."


def test_with_sounds_a_brief_miss_names_both_suits_after_a_reshuffle() -> None:
    game = stacked("KH", "KS")
    narrator = RangMilantiNarrator.load("en", seats=2, verbosity="brief", sounds=True)
    narrator.event(game.reveal()[0])
    narrator.event(Reshuffled(seat=1, cards=4))
    assert narrator.event(game.reveal()[0])[0].text == "Spades on hearts."


def test_without_sounds_the_narration_is_as_before() -> None:
    game = stacked("KH", "KS")
    narrator = RangMilantiNarrator.load("en", seats=2, verbosity="brief")
    game.reveal()
    miss = narrator.event(game.reveal()[0])[0]
    assert miss.text == "Guest 1: the king of spades on the king of hearts, miss. Reveal 2 of 5,000."
    assert miss.cue == ""


def test_with_sounds_the_reveal_number_comes_every_50_near_the_cap_and_at_full() -> None:
    narrator = RangMilantiNarrator.load("en", seats=2, sounds=True, cap=400)
    said = [n for n in range(1, 401) if narrator.number_due(n)]
    assert said == [1, 50, 100, 150, 200, 250, 300, 350, *range(351, 401)]
    narrator.verbosity = "full"
    assert all(narrator.number_due(n) for n in range(1, 401))
    narrator.sounds = False
    narrator.verbosity = "brief"
    assert all(narrator.number_due(n) for n in range(1, 401))


def test_a_whole_game_with_sounds_tells_every_event_by_its_cue() -> None:
    game = Game(3, Random(5))
    narrator = RangMilantiNarrator.load("en", seats=3, sounds=True, verbosity="brief")
    seen: set[str] = set()
    while not game.is_over:
        for event in game.reveal():
            for message in narrator.event(event):
                if isinstance(event, Revealed) and message.kind.startswith("reveal"):
                    if event.match:
                        side = "you" if event.seat == 0 else "other"
                        assert message.cue == f"capture {side} {event.moved}"
                    elif event.under is not None:
                        assert message.cue == ("miss you" if event.seat == 0 else "miss")
                        assert "Reveal" not in message.text or narrator.number_due(event.n)
                if isinstance(event, GameOver):
                    assert message.cue == ("won" if 0 in event.winners else "lost")
                seen.add(" ".join(message.cue.split()[:2]))
    assert {"miss", "miss you", "capture you", "capture other", "reshuffle"} <= seen
    assert narrator.turn_prompt(0, False).cue == "your turn"
    assert narrator.turn_prompt(1, False).cue == ""
    assert narrator.say("answer", "not_caught").cue == "not caught"
    assert narrator.say("prompt", "listening").cue == "listening on"


def test_the_demo_explains_each_sound_right_after_it_is_first_heard() -> None:
    from voice_rang.games.rang_milanti.demo import demo_steps

    messages = [m for step in demo_steps(RangMilantiNarrator.load("en", seats=2, sounds=True)) for m in step]
    explained: list[str] = []
    for index, message in enumerate(messages):
        if message.kind == "sound lesson":
            cue = messages[index - 1].cue
            assert cue, "a sound explained that was not just heard"
            explained.append(" ".join(part for part in cue.split() if not part.isdigit()))
    assert len(explained) == len(set(explained))
    heard = {" ".join(p for p in m.cue.split() if not p.isdigit()) for m in messages if m.cue}
    assert set(explained) == heard
    quiet = [m for step in demo_steps(RangMilantiNarrator.load("en", seats=2)) for m in step]
    assert not any(m.cue or m.kind == "sound lesson" for m in quiet)


def test_the_sounds_command_switches_cues_and_is_refused_without_a_speaker() -> None:
    from test_table import RecordingOutputs

    from voice_rang.games.rang_milanti.play import RangMilantiPlay
    from voice_rang.table import Table

    def table(can_sound: bool) -> tuple[Table, RecordingOutputs]:
        outputs = RecordingOutputs()
        narrator = RangMilantiNarrator.load("en", seats=2, verbosity="brief")
        made = Table(narrator, RangMilantiPlay(narrator, lambda number: Game(2, Random(3), number=number), 2),
                     outputs, kinds=["person", "computer"], beat=0.0, can_sound=can_sound)
        made.start()
        return made, outputs

    silent, outputs = table(can_sound=False)
    silent.handle("sounds on")
    assert outputs.texts[-1].startswith("There is no speaker to play sounds on")
    assert not silent.narrator.sounds
    speaking, outputs = table(can_sound=True)
    speaking.handle("sounds toggle")
    assert speaking.narrator.sounds and outputs.texts[-1].startswith("Sounds on:")
    speaking.handle("sounds on")
    assert outputs.texts[-1] == "Sounds are already on."
    speaking.handle("turn")
    speaking.handle("sounds off")
    assert not speaking.narrator.sounds and outputs.texts[-1].startswith("Sounds off:")
