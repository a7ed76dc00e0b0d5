"""Court Piece by voice, short of the microphone: what a turn listens for (the legal moves and the
ways to say each), the rule that decides among them, the questions the table asks ("this or
that?", the protective confirmations), and ``voice-rang recognize --game court-piece``.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from speech_samples import synthesize
from test_court_piece_play import HEARTS_DEAL, CourtPieceTable
from test_play import VOICE_RANG
from test_recognizer import write_wav

from voice_rang.cards import Card
from voice_rang.games.court_piece.deck import CARD_INDEX, SUIT_INDEX
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.session import Session
from voice_rang.games.court_piece.spoken import Caution, every_phrase, spoken_moves
from voice_rang.games.court_piece.view import Phase, Play
from voice_rang.listen.choices import ChoiceRule, decide_choice
from voice_rang.listen.moonshine_text import Verdict

needs_flite = pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")


def mask(*codes: str) -> int:
    return sum(1 << CARD_INDEX[Card(code)] for code in codes)


# ----- what a turn listens for -----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_a_turn_listens_for_its_legal_moves_only_each_by_its_full_name(seed: int) -> None:
    session = Session(Rules.make(), Random(seed))
    session.start()
    rng = Random(seed)
    for _ in range(rng.randrange(1, 30)):
        seat = session.to_act
        if seat is None:
            break
        session.apply(seat, rng.choice(session.view(seat).legal))
    seat = session.to_act
    if seat is None:
        return
    view = session.view(seat)
    moves = spoken_moves(view)
    assert len(moves) == len(view.legal)
    phrases = set(every_phrase())
    for key, spoken in moves.items():
        assert set(spoken.phrases) <= phrases, key
        if spoken.card is not None:
            rank = spoken.phrases[0]
            assert rank.endswith(spoken.card.suit.name.lower()), (key, rank)
    if view.phase is Phase.PLAY:
        held = {key.split()[1] for key in moves}
        assert held == {card.code for card in view.hand if view.legal_mask >> CARD_INDEX[card] & 1}


def test_a_rank_held_twice_is_said_of_both_so_the_game_asks_which() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps")
    moves = table.play.spoken_moves()
    assert "Queen" in moves["play QH"].phrases and "Queen" in moves["play QS"].phrases
    assert "King" in moves["play KS"].phrases and "King" in moves["play KH"].phrases
    assert "Lowest heart" in moves["play 4H"].phrases and "Trump" in moves["play 2C"].phrases
    assert not any(phrase in ("Highest", "Lowest") for spoken in moves.values() for phrase in spoken.phrases)


def test_each_move_is_heard_as_the_command_the_table_takes_for_it_face_down_too() -> None:
    from voice_rang.games.court_piece.actions import PlayCard
    from voice_rang.games.court_piece.spoken import said_as

    moves = said_as([PlayCard(Card("QH"), face_down=True), PlayCard(Card("2C"), face_down=True)])
    assert set(moves) == {"QH face down", "2C face down"}
    assert "Queen" in moves["QH face down"].phrases and "Lowest club" in moves["2C face down"].phrases
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    assert table.play.canonical("QH face down") == "down QH" and table.play.is_move("QH face down")


def test_nothing_is_listened_for_as_a_move_when_it_is_not_the_persons_turn() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=0)  # seat 1 calls
    assert table.play.to_act == 1
    assert table.play.spoken_moves() == {}


def _view_trumping(partner_winning: bool, trumps_held: str):
    """Seat 0's turn: hearts led, seat 0 void in hearts, spades trumps."""
    session = Session(Rules.make(), Random(3))
    session.start()
    view = session.view(session.to_act or 0)
    hand = mask("2C", "3C", *trumps_held.split())
    plays = (Play(1, CARD_INDEX[Card("5H")], False, True), Play(2, CARD_INDEX[Card("AH")], False, True),
             Play(3, CARD_INDEX[Card("9H")], False, True))
    if not partner_winning:
        plays = (Play(2, CARD_INDEX[Card("5H")], False, True), Play(3, CARD_INDEX[Card("AH")], False, True))
    return view._replace(seat=0, phase=Phase.PLAY, to_act=0, hand_mask=hand, legal_mask=hand, choices=(),
                         trump=SUIT_INDEX[Card("2S").suit], current=plays, leader=plays[0].seat,
                         face_down_only=False, may_reveal=False)


def test_trumping_a_trick_the_partner_is_winning_and_the_last_trump_are_asked_about_first() -> None:
    moves = spoken_moves(_view_trumping(partner_winning=True, trumps_held="4S 9S"))
    assert moves["play 4S"].caution is Caution.PARTNER and moves["play 2C"].caution is None
    moves = spoken_moves(_view_trumping(partner_winning=False, trumps_held="4S"))
    assert moves["play 4S"].caution is Caution.LAST_TRUMP
    moves = spoken_moves(_view_trumping(partner_winning=False, trumps_held="4S 9S"))
    assert moves["play 4S"].caution is None and moves["play 9S"].caution is None


# ----- the rule --------------------------------------------------------------------------------


class Move:
    words: tuple[tuple[str, ...], ...] = ()

    def __init__(self, caution: object | None = None) -> None:
        self.phrases = ("x",)
        self.caution = caution


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["play QH", "play QS", "play 4C", "hand", "hint"]),
                       st.floats(-40, 0, allow_nan=False), min_size=1),
       st.floats(-20, 0, allow_nan=False))
def test_the_rule_acts_only_on_a_clear_leader_near_what_moonshine_heard(scores: dict[str, float], free: float) -> None:
    rule = ChoiceRule()
    moves = {key: Move() for key in scores if key.startswith("play")}
    phrases = {key: {"Queen of hearts": score} for key, score in scores.items()}
    result = decide_choice(Verdict("Queen of hearts", free, scores, 0.0, phrases), moves, rule)
    ranked = sorted(scores.values(), reverse=True)
    lead = ranked[0] - ranked[1] if len(ranked) > 1 else math.inf
    if result.command is not None:
        assert scores[result.command] == ranked[0]
        assert lead >= rule.lead and ranked[0] - free >= -rule.within
    if result.between:
        assert set(result.between) <= set(moves) and result.command is None


def test_a_short_phrase_is_never_taken_for_a_long_transcription() -> None:
    verdict = Verdict("Hake and Haeem what we see", -9.0, {"play 8D": -7.0, "play AD": -13.0}, 0.0,
                      {"play 8D": {"Eight": -7.0}, "play AD": {"Ace": -13.0}})
    result = decide_choice(verdict, {"play 8D": Move(), "play AD": Move()}, ChoiceRule())
    assert result.command is None and not result.unsure


def test_a_move_that_deserves_a_question_is_asked_about_even_when_heard_clearly() -> None:
    moves = {"play 4S": Move(Caution.PARTNER), "play 2C": Move()}
    verdict = Verdict("Four of spades.", -1.0, {"play 4S": -1.0, "play 2C": -20.0}, 0.0,
                      {"play 4S": {"Four of spades": -1.0}, "play 2C": {"Two of clubs": -20.0}})
    result = decide_choice(verdict, moves, ChoiceRule())
    assert (result.command, result.reason, result.guess) == (None, "confirm", "play 4S")


def test_a_card_said_in_one_word_needs_both_models_and_is_otherwise_asked_about() -> None:
    moves = {"play 6H": Move(), "play 9S": Move()}
    verdict = Verdict("Sith.", -5.3, {"play 6H": -3.6, "play 9S": -12.0}, 0.0,
                      {"play 6H": {"Six": -3.6}, "play 9S": {"Nine": -12.0}})
    alone = decide_choice(verdict, moves, ChoiceRule())
    assert alone.command is None and alone.unsure and alone.guess == "play 6H"
    both = decide_choice(verdict, moves, ChoiceRule(), grammar_leans="play 6H", snr_db=40.0)
    assert both.command == "play 6H"


def test_the_grammars_second_opinion_counts_only_where_its_noise_guard_trusts_it() -> None:
    moves = {"play 4D": Move(), "play 8H": Move()}
    verdict = Verdict("No claim for free on pass.", -6.6, {"play 4D": -8.0, "play 8H": -12.5}, 0.0,
                      {"play 4D": {"Four of diamonds": -8.0}, "play 8H": {"Eight of hearts": -12.5}})
    noisy = decide_choice(verdict, moves, ChoiceRule(), grammar_leans="play 4D", snr_db=10.0)
    assert noisy.command is None
    quiet = decide_choice(verdict, moves, ChoiceRule(), grammar_leans="play 4D", snr_db=35.0)
    assert quiet.command == "play 4D"


def test_nothing_moonshine_writes_no_word_of_is_acted_on_by_it_alone() -> None:
    verdict = Verdict("", -0.9, {"stop": -7.5, "play 4D": -11.6}, 0.0,
                      {"stop": {"Stop": -7.5}, "play 4D": {"Four": -11.6}})
    assert decide_choice(verdict, {"play 4D": Move()}, ChoiceRule()).command is None


# ----- the table's questions -------------------------------------------------------------------


def test_two_cards_heard_alike_are_asked_between_and_the_second_plays_the_second() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps")
    start = len(table.outputs.texts)
    table.table.offer_guess("play QH", "the queen of hearts", between=("play QH", "play QS"),
                            names=("the queen of hearts", "the queen of spades"))
    assert table.outputs.since(start) == ["The queen of hearts or the queen of spades? Say the first or the second."]
    assert {"first", "second", "no"} <= table.table.valid_commands()
    assert table.send("yes") == ["Which one? Say the first or the second."]
    assert table.send("the second")[0] == "You lead the queen of spades."


def test_the_cards_name_or_no_settles_the_question_between_two() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps")
    table.table.offer_guess("play QH", "the queen of hearts", between=("play QH", "play QS"),
                            names=("the queen of hearts", "the queen of spades"))
    assert table.send("no") == ["Then say it again, or say help to hear what you can say."]
    assert table.play.to_act == 0
    table.table.offer_guess("play QH", "the queen of hearts", between=("play QH", "play QS"),
                            names=("the queen of hearts", "the queen of spades"))
    start = len(table.outputs.texts)
    table.table.handle("play QH")
    assert table.outputs.since(start)[0] == "You lead the queen of hearts."


def test_a_protective_question_is_answered_by_yes_or_by_the_same_card_again() -> None:
    for answer in ("yes", "again"):
        table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
        table.send("clubs are trumps")
        question = table.narrator.say("court_piece", "answer.confirm_last_trump", card="the two of clubs",
                                      Card="The two of clubs")
        table.table.offer_guess("play 2C", "the two of clubs", question=question)
        assert table.outputs.texts[-1] == "The two of clubs is your last trump. Play it? Say yes, or the card again."
        assert table.play.to_act == 0
        start = len(table.outputs.texts)
        if answer == "yes":
            table.table.handle("yes")
        else:
            table.table.offer_guess("play 2C", "the two of clubs", question=question)
        assert table.outputs.since(start)[0] == "You lead the two of clubs."


def test_a_half_heard_card_said_twice_is_asked_about_twice_not_played() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps")
    table.table.offer_guess("play QH", "the queen of hearts")
    table.table.offer_guess("play QH", "the queen of hearts")
    assert table.outputs.texts[-1] == "Did you say the queen of hearts? Say yes or no."
    assert table.play.to_act == 0


# ----- recognize -------------------------------------------------------------------------------


def padded(pcm: bytes) -> bytes:
    """A card said with a little room around it, as a recording has."""
    return b"\0\0" * 4000 + pcm + b"\0\0" * 8000


@needs_flite
def test_recognize_plays_the_card_said_among_the_legal_ones_and_lets_talk_go(tmp_path: Path) -> None:
    said = {"card.wav": "the ten of clubs", "rank.wav": "jack", "trick.wav": "what's the trick",
            "talk.wav": "I think I will have a cup of tea", "other.wav": "king of diamonds"}
    for name, text in said.items():
        write_wav(tmp_path / name, padded(synthesize(text, "slt")))
    result = subprocess.run([VOICE_RANG, "recognize", "--game", "court-piece", "--legal", "QH,QS,10C,JD,4C",
                             "--trump", "C", "--json", *(str(tmp_path / name) for name in said)],
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    answers = {Path(row["file"]).name: row for row in map(json.loads, result.stdout.splitlines())}
    assert answers["card.wav"]["command"] == "play 10C"
    assert answers["rank.wav"]["command"] == "play JD"
    assert answers["trick.wav"]["command"] == "trick"
    assert answers["talk.wav"]["command"] is None
    assert answers["other.wav"]["command"] is None, answers["other.wav"]  # not legal: never another card


@pytest.mark.parametrize(("arguments", "words"), [
    (["--game", "court-piece"], "needs --legal"),
    (["--legal", "QH"], "add --game court-piece"),
    (["--game", "court-piece", "--legal", "QX"], "is not a card code"),
    (["--game", "court-piece", "--legal", "QH", "--trump", "X"], "--trump must be"),
    (["--game", "court-piece", "--legal", "QH,H"], "not both"),
])
def test_recognize_with_wrong_court_piece_options_says_what_is_wrong_in_one_line(
        arguments: list[str], words: str, tmp_path: Path) -> None:
    write_wav(tmp_path / "a.wav", padded(b""))
    result = subprocess.run([VOICE_RANG, "recognize", *arguments, str(tmp_path / "a.wav")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr
