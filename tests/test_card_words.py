"""The player's own card words (``voice_rang.listen.card_words``): a Bengali speaker's takes of the
17 card words, matched against the legal moves; the alignment against a plain dynamic program;
the rule and how it sits beside the stock model."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from speech_samples import espeak, sox, trim, with_white_noise

from voice_rang.cards import Card
from voice_rang.games.court_piece.actions import NameTrump, PlayCard
from voice_rang.games.court_piece.spoken import deck_words, said_as
from voice_rang.listen.card_words import RANK_CODES, SUIT_CODES, CardMatch, CardWords, _after, _align, speech_span
from voice_rang.listen.choices import CardRule, decide_card_words, with_card_words
from voice_rang.listen.results import Recognition

BN_RANKS = dict(zip(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
                    ("টেক্কা", "দুরি", "তিরি", "চৌকা", "পাঞ্জা", "ছক্কা", "সাত্তা", "আট্টা", "নওলা", "দহলা", "গোলাম", "বিবি",
                     "সাহেব"), strict=True))
BN_SUITS = {"C": "চিড়িতন", "D": "রুইতন", "H": "হরতন", "S": "ইস্কাবন"}
VOICE = "bn+f2"
"""A speaker the rule was not tuned on (benchmarks/bench_card_words.py holds it out)."""

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                                  reason="needs espeak-ng and sox")


def said(text: str, tempo: float = 1.0, cents: int = 0) -> np.ndarray:
    pcm = espeak(text, VOICE)
    if tempo != 1.0 or cents:
        pcm = trim(sox(pcm, "tempo", "-s", str(tempo), "pitch", str(cents)))
    return np.frombuffer(pcm, dtype="<i2")


@pytest.fixture(scope="module")
def bengali() -> CardWords:
    """A Bengali speaker's enrolment: three takes of each word, slower, as usual, faster."""
    words = {**BN_RANKS, **BN_SUITS}
    return CardWords({word: [said(words[word], tempo) for tempo in (0.9, 1.0, 1.12)]
                      for word in RANK_CODES + SUIT_CODES})


def moves_of(*codes: str) -> dict[str, tuple[tuple[str, ...], ...]]:
    return {key: spoken.words for key, spoken in said_as([PlayCard(Card(code)) for code in codes]).items()}


def heard(text: str, **how: float) -> bytes:
    return b"\0\0" * 4000 + said(text, **how).tobytes() + b"\0\0" * 4000  # type: ignore[arg-type]


@needs_espeak
@pytest.mark.parametrize("text, card", [("হরতনের বিবি", "QH"), ("বিবি হরতন", "QH"), ("ইস্কাবনের সাহেব", "KS"),
                                        ("চিড়িতনের দহলা", "10C")])
def test_a_card_said_in_bengali_in_either_order_is_the_card_heard_and_played_or_asked_about(
        bengali: CardWords, text: str, card: str) -> None:
    moves = moves_of("QH", "QS", "KH", "KS", "10C", "9C", "4D")
    match = bengali.match(heard(text, tempo=1.07, cents=80), moves, deck_words())
    assert match.move == f"play {card}", match
    answer = decide_card_words(match, CardRule())
    assert answer.command == f"play {card}" or (answer.command is None and answer.guess == f"play {card}"), answer


@needs_espeak
def test_trumps_are_called_by_the_suits_word_alone_or_with_rang(bengali: CardWords) -> None:
    suits = [NameTrump(Card(code).suit) for code in ("2C", "2D", "2H", "2S")]
    moves = {key: spoken.words for key, spoken in said_as(suits).items()}
    for text in ("হরতন", "হরতন রং"):
        match = bengali.match(heard(text, tempo=0.95), moves, deck_words())
        assert match.move == "name H", (text, match)


@needs_espeak
@pytest.mark.parametrize("text", ["আমার পালা কখন", "দাঁড়াও একটু ভাবি", "কে জিতছে", "উত্তর খেলল হরতনের বিবি"])
def test_talk_is_never_taken_for_a_card(bengali: CardWords, text: str) -> None:
    match = bengali.match(heard(text), moves_of("QH", "QS", "KH", "9H", "4D"), deck_words())
    assert decide_card_words(match, CardRule()).command is None, match


@needs_espeak
def test_a_card_said_in_noise_is_never_another_card_and_mostly_ranked_first(bengali: CardWords) -> None:
    matches = []
    for seed in range(6):
        noisy = with_white_noise(heard("হরতনের বিবি", tempo=1.07), 10.0, seconds_before=1.0, seed=seed)
        matches.append(bengali.match(noisy, moves_of("QH", "KH", "9S"), deck_words()))
    answers = [decide_card_words(match, CardRule()) for match in matches]
    assert all(answer.command in ("play QH", None) for answer in answers), answers
    assert sum(match.move == "play QH" for match in matches) >= 4, matches


@needs_espeak
def test_nothing_is_compared_while_a_legal_cards_words_were_not_taught() -> None:
    partial = CardWords({word: [said(text)] for word, text in {"Q": "বিবি", "H": "হরতন"}.items()})
    assert partial.match(heard("হরতনের বিবি"), moves_of("QH", "QS"), deck_words()).move is None
    assert partial.match(heard("হরতনের বিবি"), moves_of("QH"), deck_words()).move == "play QH"


def test_no_takes_kept_is_no_card_words(tmp_path: object) -> None:
    from pathlib import Path

    assert CardWords.load(Path(str(tmp_path)) / "nowhere") is None


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-32768, 32767), max_size=4000), st.sampled_from([0, 1, 1000]))
def test_cutting_to_the_speech_keeps_a_part_of_any_recording_and_never_fails(values: list[int], steady: int) -> None:
    samples = np.array(values + [steady] * 2000, dtype=np.int16)
    kept = speech_span(samples)
    assert 0 < len(kept) <= len(samples)
    assert len(speech_span(np.zeros(3200, np.int16))) == 3200


def _reference(cost: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The same path costs by a plain recursion over (word frame, utterance frame)."""
    frames, length = cost.shape
    best = np.full((frames, length), math.inf)
    best[0] = start + cost[0]
    for n in range(1, frames):
        for t in range(length):
            ways = [best[n - 1, t - 1] if t >= 1 else math.inf, best[n - 1, t - 2] if t >= 2 else math.inf]
            if n >= 2 and t >= 1:
                ways.append(best[n - 2, t - 1] + cost[n - 1, t])
            best[n, t] = min(ways) + cost[n, t]
    return best[-1]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.data())
def test_the_alignment_is_the_cheapest_path_a_plain_recursion_finds(frames: int, length: int,
                                                                    data: st.DataObject) -> None:
    values = st.floats(0.0, 2.0, allow_nan=False)
    cost = np.array(data.draw(st.lists(st.lists(values, min_size=length, max_size=length), min_size=frames,
                                       max_size=frames)))
    start = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, math.inf]), min_size=length, max_size=length)))
    assert np.allclose(_align(cost, start[None])[0], _reference(cost, start), equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 5.0, allow_nan=False), min_size=1, max_size=12), st.integers(0, 4))
def test_the_next_word_begins_after_the_cheapest_end_within_the_gap(ends: list[float], gap: int) -> None:
    entry = _after(np.array([ends]), gap)[0]
    for t in range(len(ends)):
        window = [ends[u] for u in range(max(0, t - 1 - gap), t)]
        assert entry[t] == (min(window) if window else math.inf)


def _recognition(command: str | None, reason: str, guess: str | None = None,
                 between: tuple[str, ...] = ()) -> Recognition:
    return Recognition(command, "", command is None and reason != "not a command", 0.0, reason, 0.0,
                       guess or command, math.inf, between=between)


class _Move:
    phrases: tuple[str, ...] = ()
    caution = None
    words: tuple[tuple[str, ...], ...] = ()


MOVES = {"play QH": _Move(), "play KH": _Move(), "play 9S": _Move()}


def test_the_stock_models_clear_answer_stands_unless_bengali_words_name_another_move() -> None:
    stock = _recognition("play QH", "command")
    assert with_card_words(_recognition("play QH", "command"), stock, MOVES, alone=True) is stock
    assert with_card_words(_recognition(None, "not a command"), stock, MOVES, alone=False) is stock
    assert with_card_words(_recognition("play KH", "command"), stock, MOVES, alone=False) is stock
    clash = with_card_words(_recognition("play KH", "command"), stock, MOVES, alone=True)
    assert clash.command is None and clash.reason == "which" and set(clash.between) == {"play QH", "play KH"}


def test_english_card_words_settle_a_question_but_never_act_alone() -> None:
    mine = _recognition("play QH", "command")
    nothing = _recognition(None, "not a command")
    assert with_card_words(mine, nothing, MOVES, alone=False).command is None
    assert with_card_words(mine, _recognition(None, "unsure", "play QH"), MOVES, alone=False).command == "play QH"
    asked = _recognition(None, "which", "play KH", ("play KH", "play QH"))
    assert with_card_words(mine, asked, MOVES, alone=False).command == "play QH"
    assert with_card_words(mine, _recognition(None, "unsure", "play 9S"), MOVES, alone=False).command is None


def test_bengali_card_words_act_alone_where_the_stock_model_heard_nothing() -> None:
    mine = _recognition("play QH", "command")
    assert with_card_words(mine, _recognition(None, "not a command"), MOVES, alone=True).command == "play QH"
    half = _recognition(None, "unsure", "play KH")
    assert with_card_words(half, _recognition(None, "not a command"), MOVES, alone=True) is half
    asked = with_card_words(_recognition(None, "not a command"), _recognition("play 9S", "command"), MOVES, alone=True)
    assert asked.command is None and asked.reason == "unsure" and asked.guess == "play 9S"
    assert with_card_words(_recognition(None, "not a command"), _recognition("hint", "command"), MOVES,
                           alone=True).command == "hint"


def test_the_rule_asks_which_when_two_moves_are_close_and_lets_talk_go() -> None:
    rule = CardRule()
    close = CardMatch("play QH", 0.2, rule.margin / 2, "play KH", {}, rule.standout + 0.05)
    assert decide_card_words(close, rule).between == ("play QH", "play KH")
    talk = CardMatch("play QH", 0.3, 0.2, "play KH", {}, rule.standout / 2)
    assert decide_card_words(talk, rule).reason == "not a command"
    assert decide_card_words(CardMatch(None), rule).reason == "not a command"
