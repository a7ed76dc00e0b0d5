"""Tests of the Court Piece rules checker itself, on small logs built by hand.

Every log here is written out trick by trick: the cards in play order and the winner (and, in the
Double Sir games, how many tricks the win collects) are stated, not computed, so that a checker
that misreads a rule disagrees with the test rather than with itself.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from court_piece_checker import CARDS, check_file, check_log
from hypothesis import given, settings
from hypothesis import strategies as st

Event = dict[str, Any]
Trick = tuple[str, int] | tuple[str, int, int]

DOUBLE_SIR = ("double-sir", "be-ranga", "hidden-rung")


class Log:
    """A session written event by event: plays from stated tricks, claims stated by the test.

    In a trick's cards, ``?3D`` means the seat asks for (or makes) the reveal before playing the
    three of diamonds, ``_10C`` that the ten of clubs is played face down, and ``!2H`` that the
    two of hearts sets be-ranga's trumps.
    """

    def __init__(self, variant: str = "court-piece", *, game: int = 0, scoring: dict[str, Any] | None = None,
                 **options: Any) -> None:
        settings = {"trump": "hidden" if variant == "hidden-rung" else "named", "redeal": False,
                    "no-early-late": False, "aces-no-collect": False, "goon": 3}
        settings.update({key.replace("_", "-"): value for key, value in options.items()})
        self.variant = variant
        self.game = game
        self.events: list[Event] = []
        self.add("session", variant=variant, options=settings, seats=["host", "guest 1", "guest 2", "guest 3"],
                 players=["person", "easy", "normal", "strong"],
                 scoring=scoring or {"mode": "points", "target": 1})

    def add(self, kind: str, /, **fields: Any) -> Event:
        event = {"event": kind, "game": self.game, **fields}
        self.events.append(event)
        return event

    def deal_event(self, number: int, dealer: int, hands: Sequence[Sequence[str]]) -> None:
        self.add("deal", deal=number, dealer=dealer, caller=(dealer + 1) % 4,
                 hands=[list(hand) for hand in hands], first=[list(hand[:5]) for hand in hands])

    def redealt(self, number: int, dealer: int, hands: Sequence[str]) -> None:
        """A deal the caller throws in."""
        self.deal_event(number, dealer, [hand.split() for hand in hands])
        self.add("redeal", deal=number, seat=(dealer + 1) % 4)

    def deal(self, number: int, dealer: int, tricks: Sequence[Trick], end: dict[str, Any], *,
             hands: Sequence[str] | None = None, trump: dict[str, Any] | None = None,
             hidden: str | None = None) -> None:
        """One deal: hands (or, when all 13 tricks are played, the cards each seat plays), the
        trump event, the tricks, and the deal's end as the test states it."""
        caller = (dealer + 1) % 4
        leaders, leader = [], caller
        for spec in tricks:
            leaders.append(leader)
            leader = spec[1]
        if hands is None:
            played: list[list[str]] = [[], [], [], []]
            for spec, first in zip(tricks, leaders, strict=True):
                for place, token in enumerate(spec[0].split()):
                    played[(first + place) % 4].append(token.lstrip("?_!"))
            if hidden is not None:
                played[caller].remove(hidden)
                played[caller].insert(0, hidden)
            dealt = played
        else:
            dealt = [hand.split() for hand in hands]
        self.deal_event(number, dealer, dealt)
        if trump is not None:
            self.add("trump", deal=number, seat=caller, **trump)
        won, centre = [0, 0], 0
        for number_in_deal, (spec, first) in enumerate(zip(tricks, leaders, strict=True), start=1):
            cards = []
            for place, token in enumerate(spec[0].split()):
                seat, card = (first + place) % 4, token.lstrip("?_!")
                if token.startswith("?"):
                    assert hidden is not None
                    self.add("reveal", deal=number, trick=number_in_deal, seat=seat, suit=hidden[-1], card=hidden)
                if token.startswith("!"):
                    self.add("trump", deal=number, seat=seat, how="unable", suit=card[-1], card=card)
                self.add("play", deal=number, trick=number_in_deal, seat=seat, card=card,
                         face_down=token.startswith("_"))
                cards.append(card)
            winner = spec[1]
            if self.variant in DOUBLE_SIR:
                collected = spec[2] if len(spec) == 3 else 0
                centre += 1 - collected
                won[winner % 2] += collected
            else:
                collected = 1
                won[winner % 2] += 1
            self.add("trick", deal=number, trick=number_in_deal, winner=winner, cards=cards, won=list(won),
                     centre=centre, collected=collected)
        self.add("deal_end", deal=number, **end)

    def end(self, winner: int | None, score: list[int], reason: str) -> None:
        self.add("end", winner=winner, score=score, reason=reason)

    def lines(self) -> list[str]:
        return [json.dumps(event) for event in self.events]

    def find(self, kind: str, **match: Any) -> Event:
        """The first event of this kind whose fields include ``match``."""
        for event in self.events:
            if event["event"] == kind and all(event.get(key) == value for key, value in match.items()):
                return event
        raise LookupError(f"no {kind} event with {match}")


def _end(winner: int, tricks: list[int], kind: str, score: list[int], streak: list[int],
         next_dealer: int) -> dict[str, Any]:
    return {"winner": winner, "tricks": tricks, "kind": kind, "score": score, "streak": streak,
            "next_dealer": next_dealer}


def _errors(log: Log) -> list[str]:
    return check_log(log.lines())


def _rejected(log: Log, *needles: str) -> list[str]:
    errors = _errors(log)
    assert errors, "the broken log was accepted"
    for needle in needles:
        assert any(needle in error for error in errors), f"no error mentions {needle!r}: {errors}"
    return errors


NAMED_SPADES = {"how": "named", "suit": "S", "card": None}
HIDDEN = {"how": "hidden", "suit": None, "card": None}

# Seat 0 holds most of the top cards; seat 1 the ace of diamonds. Everyone can always follow suit.
HANDS_A = ("AC KC QC JC KD QD JD AH KH QH AS KS QS",
           "10C 9C 8C AD 10D 9D 8D JH 10H 9H JS 10S 9S",
           "7C 6C 5C 7D 6D 5D 8H 7H 6H 5H 8S 7S 6S",
           "4C 3C 2C 4D 3D 2D 4H 3H 2H 5S 4S 3S 2S")
PLAIN_WIN: list[Trick] = [
    ("AC 10C 7C 4C", 0), ("KC 9C 6C 3C", 0), ("QC 8C 5C 2C", 0), ("KD AD 7D 4D", 1), ("10D 6D 3D QD", 0),
    ("AH JH 8H 4H", 0), ("KH 10H 7H 3H", 0), ("QH 9H 6H 2H", 0)]
PLAIN_COURT: list[Trick] = [
    ("AC 10C 7C 4C", 0), ("KC 9C 6C 3C", 0), ("QC 8C 5C 2C", 0), ("AH JH 8H 4H", 0), ("KH 10H 7H 3H", 0),
    ("QH 9H 6H 2H", 0), ("AS JS 8S 5S", 0), ("KS 10S 7S 4S", 0), ("KD AD 7D 4D", 1)]

# All 13 tricks, every seat following suit until the last trick.
DOUBLE_SIR_TRICKS: list[Trick] = [
    ("AC KC QC JC", 0, 0), ("10C 9C 8C 7C", 0, 2), ("6C 5C 4C 3C", 0, 0), ("AD KD QD JD", 0, 2),
    ("9D 10D 8D 7D", 1, 0), ("6D 5D 4D 3D", 1, 2), ("KH AH QH JH", 2, 0), ("9H 8H 10H 7H", 0, 0),
    ("6H 5H 4H 3H", 0, 3), ("KS QS JS AS", 3, 0), ("9S 8S 10S 7S", 1, 0), ("4S 3S 6S 5S", 3, 0),
    ("2S 2C 2D 2H", 3, 4)]


def plain_session(**changes: Any) -> Log:
    """Two deals to a target of 4: a win for the callers, then a court that ends the session."""
    log = Log(scoring={"mode": "points", "target": 4}, **changes)
    log.deal(1, 3, PLAIN_WIN, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.deal(2, 3, PLAIN_COURT, _end(0, [8, 1], "court", [4, 0], [0, 0], 1), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [4, 0], "target")
    return log


def double_sir_session(tricks: Sequence[Trick] = DOUBLE_SIR_TRICKS, end: dict[str, Any] | None = None,
                       **options: Any) -> Log:
    log = Log("double-sir", **options)
    log.deal(1, 3, tricks, end or _end(0, [7, 6], "win", [1, 0], [1, 0], 3), trump=NAMED_SPADES)
    if end is None or end["winner"] == 0:
        log.end(0, [1, 0], "target")
    else:
        log.end(1, end["score"], "target")
    return log


# ----- valid logs -------------------------------------------------------------------------------------


def test_a_plain_deal_to_seven_tricks_and_a_court_are_accepted() -> None:
    assert _errors(plain_session()) == []


def test_the_52_court_chase_ends_at_the_first_trick_lost() -> None:
    log = plain_session()
    end = log.find("deal_end", deal=2)
    assert end["tricks"] == [8, 1]
    assert log.find("trick", deal=2, trick=9)["winner"] == 1
    assert _errors(log) == []


def test_a_goon_court_scores_the_dealers_team_four() -> None:
    # seat 0 deals, so seat 1 calls and leads; the dealer's team wins the first seven and the next
    log = Log(scoring={"mode": "points", "target": 4})
    tricks: list[Trick] = [("10C 7C 4C AC", 0), *PLAIN_COURT[1:]]
    log.deal(1, 0, tricks, _end(0, [8, 1], "goon court", [4, 0], [0, 0], 1), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [4, 0], "target")
    assert _errors(log) == []
    log.find("deal_end").update(kind="court")
    _rejected(log, "kind should be 'goon court'")


def test_a_52_court_wins_the_session_at_once() -> None:
    hands = ("AS KS QS JS AC KC QC AD KD QD AH KH QH",
             "10S 9S 8S JC 10C 9C 8C JD 10D 9D JH 10H 9H",
             "7S 6S 5S 7C 6C 5C 8D 7D 6D 5D 8H 7H 6H",
             "4S 3S 2S 4C 3C 2C 4D 3D 2D 5H 4H 3H 2H")
    tricks: list[Trick] = [
        ("AS 10S 7S 4S", 0), ("KS 9S 6S 3S", 0), ("QS 8S 5S 2S", 0), ("AC JC 7C 4C", 0), ("KC 10C 6C 3C", 0),
        ("QC 9C 5C 2C", 0), ("AD JD 8D 4D", 0), ("KD 10D 7D 3D", 0), ("QD 9D 6D 2D", 0), ("AH JH 8H 5H", 0),
        ("KH 10H 7H 4H", 0), ("QH 9H 6H 3H", 0), ("JS 8C 5D 2H", 0)]
    log = Log(scoring={"mode": "points", "target": 10})
    log.deal(1, 3, tricks, _end(0, [13, 0], "52-court", [3, 0], [0, 0], 1), hands=hands, trump=NAMED_SPADES)
    log.end(0, [3, 0], "52-court")
    assert _errors(log) == []
    log.events[-1]["reason"] = "target"
    _rejected(log, "the end reason should be '52-court'")


def test_courts_scoring_plays_the_agreed_number_of_deals() -> None:
    log = Log(scoring={"mode": "courts", "deals": 2})
    log.deal(1, 3, PLAIN_WIN, _end(0, [7, 1], "win", [0, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.deal(2, 3, PLAIN_COURT, _end(0, [8, 1], "court", [1, 0], [0, 0], 1), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [1, 0], "deals")
    assert _errors(log) == []


def test_a_double_sir_deal_with_collections_new_piles_and_the_last_sweep() -> None:
    log = double_sir_session()
    # a third win in a row starts a new pile; the 13th trick's winner sweeps the centre
    assert log.find("trick", trick=3)["collected"] == 0
    assert log.find("trick", trick=13)["collected"] == 4
    assert log.find("deal_end")["tricks"] == [7, 6]
    assert _errors(log) == []


def test_no_early_late_moves_the_collections() -> None:
    tricks = [(cards, winner, 0) for cards, winner, *_ in DOUBLE_SIR_TRICKS]
    for trick, taken in ((3, 3), (6, 3), (9, 3), (13, 4)):
        tricks[trick - 1] = (tricks[trick - 1][0], tricks[trick - 1][1], taken)
    log = double_sir_session(tricks, _end(1, [6, 7], "win", [0, 2], [0, 1], 0), no_early_late=True)
    assert _errors(log) == []


def test_aces_no_collect_keeps_two_aces_in_the_centre() -> None:
    order = [0, 3, 2, 1, *range(4, 13)]  # the two ace tricks first
    tricks = [(DOUBLE_SIR_TRICKS[index][0], 0, 0) for index in order[:4]]
    tricks[2] = (tricks[2][0], 0, 3)
    tricks += [(cards, winner, 0) for cards, winner, *_ in DOUBLE_SIR_TRICKS[4:]]
    for trick, taken in ((6, 3), (9, 3), (13, 4)):
        tricks[trick - 1] = (tricks[trick - 1][0], tricks[trick - 1][1], taken)
    log = double_sir_session(tricks, _end(1, [6, 7], "win", [0, 2], [0, 1], 0), aces_no_collect=True)
    assert _errors(log) == []
    tricks[1] = (tricks[1][0], 0, 2)
    tricks[2] = (tricks[2][0], 0, 0)
    log = double_sir_session(tricks, _end(1, [6, 7], "win", [0, 2], [0, 1], 0), aces_no_collect=True)
    _rejected(log, "aces-no-collect")


def test_seven_double_sir_deals_won_in_a_row_score_a_court() -> None:
    log = Log("double-sir", scoring={"mode": "courts", "deals": 7})
    for number in range(1, 8):
        kind, streak, score, next_dealer = ("win", [number, 0], [0, 0], 3) if number < 7 else (
            "court", [0, 0], [1, 0], 1)
        log.deal(number, 3, DOUBLE_SIR_TRICKS, _end(0, [7, 6], kind, score, streak, next_dealer),
                 trump=NAMED_SPADES)
    log.end(0, [1, 0], "deals")
    assert _errors(log) == []
    log.find("deal_end", deal=7).update(kind="win", streak=[7, 0], score=[0, 0], next_dealer=3)
    _rejected(log, "kind should be 'court'")


# Seat 1 wins every trick; seat 3 deals, so the dealer's team takes all 13: a goon court.
GOON: list[Trick] = [
    ("2C AC 3C 4C", 1, 0), ("KC 5C 6C 7C", 1, 2), ("QC 8C 9C 10C", 1, 0), ("AD 2D 3D 4D", 1, 2),
    ("KD 5D 6D 7D", 1, 0), ("QD 8D 9D 10D", 1, 2), ("AH 2H 3H 4H", 1, 0), ("KH 5H 6H 7H", 1, 2),
    ("QH 8H 9H 10H", 1, 0), ("AS 2S 3S 4S", 1, 2), ("KS 5S 6S 7S", 1, 0), ("QS 8S 9S 10S", 1, 2),
    ("JS JC JD JH", 1, 1)]


@pytest.mark.parametrize("goon", [3, 10])
def test_a_double_sir_goon_court_counts_three_or_ten_courts(goon: int) -> None:
    log = Log("double-sir", scoring={"mode": "courts", "deals": 1}, goon=goon)
    log.deal(1, 3, GOON, _end(1, [0, 13], "goon court", [0, goon], [0, 0], 0), trump=NAMED_SPADES)
    log.end(1, [0, goon], "deals")
    assert _errors(log) == []
    log.find("deal_end")["score"] = [0, 13 - goon]
    _rejected(log, f"score should be [0, {goon}]")


# The page's first Hidden Rung example, as trick 1: seat 0 leads the ace of hearts, seat 1 follows, seat 2
# has no hearts and throws the six of diamonds, seat 3 has no hearts, asks for the reveal (a diamond) and
# trumps with the three: the three beats the six, which was no trump when it was played.
EXAMPLE_ONE_HANDS = ("9D AH KH QH JH 10H 9H 8H AC KC AS KS QS",
                     "7H 6H 5H 4H 3H 2H QC JC JS 10S 9S 8D 7D",
                     "10C 9C 8C 7C 6C 6D AD KD QD 8S 7S 6S 5S",
                     "5C 4C 3C 2C JD 10D 5D 4D 3D 2D 4S 3S 2S")
EXAMPLE_ONE: list[Trick] = [
    ("AH 5H 6D ?3D", 3), ("2C AC JC 6C", 0), ("KC QC 7C 3C", 0), ("AS 9S 5S 2S", 0), ("KS 10S 6S 3S", 0),
    ("QS JS 7S 4S", 0), ("KH 2H 8S 4C", 0), ("QH 3H 8C 5C", 0)]

# The second example, as trick 2 (seat 0, the caller, set the seven of spades apart): seat 1 leads the ace
# of spades, seat 2 has none and asks for the reveal, throws the three of diamonds, seat 3 follows with the
# five and the caller plays the seven: spades were led, so the ace wins.
EXAMPLE_TWO_HANDS = ("7S 2C 4H 7H 10H 7C 10C KD KS QS 2S 7D 6D",
                     "AC AS AH KH QH KC 8C AD JS 10S 9S 5D 4D",
                     "3C 3D 2H 5H 8H 5C QC JD JC JH 10D 9D 8D",
                     "4C 5S 3H 6H 9H 6C 9C QD 8S 6S 4S 3S 2D")
EXAMPLE_TWO: list[Trick] = [
    ("2C AC 3C 4C", 1), ("AS ?3D 5S 7S", 1), ("AH 2H 3H 4H", 1), ("KH 5H 6H 7H", 1), ("QH 8H 9H 10H", 1),
    ("KC 5C 6C 7C", 1), ("8C QC 9C 10C", 2), ("JD QD KD AD", 1)]


def example_one(tricks: Sequence[Trick] = EXAMPLE_ONE) -> Log:
    log = Log(trump="hidden")
    log.deal(1, 3, tricks, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=EXAMPLE_ONE_HANDS, trump=HIDDEN,
             hidden="9D")
    log.end(0, [1, 0], "target")
    return log


def example_two() -> Log:
    log = Log(trump="hidden")
    log.deal(1, 3, EXAMPLE_TWO, _end(1, [1, 7], "win", [0, 2], [0, 1], 0), hands=EXAMPLE_TWO_HANDS, trump=HIDDEN,
             hidden="7S")
    log.end(1, [0, 2], "target")
    return log


def test_hidden_trump_example_one_a_low_trump_beats_an_earlier_card_of_its_suit() -> None:
    log = example_one()
    assert log.find("trick", trick=1)["cards"] == ["AH", "5H", "6D", "3D"]
    assert _errors(log) == []
    log.find("trick", trick=1)["winner"] = 2
    _rejected(log, "seat 3 wins the trick with 3D", "[trick winner]")


def test_hidden_trump_example_two_the_led_suit_revealed_as_trumps_keeps_its_order() -> None:
    log = example_two()
    assert log.find("reveal")["seat"] == 2
    assert _errors(log) == []
    log.find("trick", trick=2)["winner"] = 0
    _rejected(log, "seat 1 wins the trick with AS", "[trick winner]")


def test_only_a_seat_that_cannot_follow_may_ask_for_the_reveal() -> None:
    tricks = [("AH ?5H 6D 3D", 3), *EXAMPLE_ONE[1:]]
    _rejected(example_one(tricks), "only a seat that cannot follow suit may ask for the reveal")


def test_the_asker_must_play_a_trump_when_it_can() -> None:
    log = example_one()
    log.find("play", trick=1, seat=3)["card"] = "4C"
    _rejected(log, "it must play a trump", "[reveal]")


def test_the_set_apart_card_cannot_be_played_before_its_reveal() -> None:
    log = example_two()
    first = log.find("play", trick=1, seat=0)
    first["card"] = "7S"
    _rejected(log, "[hidden trump]")


HIDDEN_RUNG: list[Trick] = [
    ("KC AC QC JC", 1, 0), ("AD KD QD _10C", 1, 0), ("JD 10D 9D ?2S", 0, 0), ("AS KS QS JS", 0, 4),
    ("10S 9S 8S 7S", 0, 0), ("AH KH QH JH", 0, 2), ("2H 10H 9H 8H", 1, 0), ("7H 6H 5H 4H", 1, 2),
    ("9C 8C 7C 6C", 1, 0), ("5C 4C 3C 2C", 1, 2), ("8D 7D 6D 6S", 0, 0), ("5S 4S 3S 3D", 0, 0),
    ("3H 5D 4D 2D", 0, 3)]


def hidden_rung(tricks: Sequence[Trick] = HIDDEN_RUNG) -> Log:
    log = Log("hidden-rung")
    log.deal(1, 3, tricks, _end(0, [9, 4], "win", [1, 0], [1, 0], 3), trump=HIDDEN, hidden="2S")
    log.end(0, [1, 0], "target")
    return log


def test_a_hidden_rung_deal_with_a_face_down_card_and_claims_after_the_reveal() -> None:
    log = hidden_rung()
    assert log.find("play", trick=2, seat=0)["face_down"] is True
    assert _errors(log) == []


def test_hidden_rung_the_caller_unable_to_follow_must_reveal_or_play_face_down() -> None:
    log = hidden_rung()
    log.find("play", trick=2, seat=0)["face_down"] = False
    _rejected(log, "must reveal and play a trump, or play face down", "[face down]")


def test_hidden_rung_only_the_caller_plays_face_down() -> None:
    log = hidden_rung()
    log.find("play", trick=2, seat=3)["face_down"] = True
    _rejected(log, "only the trump caller plays face down")


def test_hidden_rung_no_claim_after_trick_12() -> None:
    log = hidden_rung()
    log.find("trick", trick=12).update(collected=2, centre=0, won=[8, 4])
    _rejected(log, "hidden rung: no claim after trick 12", "[collection]")


def test_hidden_rung_a_claim_needs_the_previous_win_after_the_reveal() -> None:
    tricks = list(HIDDEN_RUNG)
    tricks[2] = ("JD 10D 9D ?2S", 0, 3)  # trick 2's winner (seat 1) did not win trick 3
    log = hidden_rung(tricks)
    _rejected(log, "collected should be 0, got 3", "did not win trick 2")


def test_hidden_rung_a_trump_hidden_to_the_end_is_revealed_for_the_callers_last_card() -> None:
    # no claim is possible before the reveal, so the 13th trick's winner takes all 13
    tricks: list[Trick] = [(cards, winner, 0) for cards, winner, *_ in DOUBLE_SIR_TRICKS[:12]]
    tricks.append(("2S ?2C 2D 2H", 0, 13))
    log = Log("hidden-rung")
    log.deal(1, 3, tricks, _end(0, [13, 0], "court", [3, 0], [0, 0], 1), trump=HIDDEN, hidden="2C")
    log.end(0, [3, 0], "target")
    assert _errors(log) == []
    log.events.remove(log.find("reveal"))
    _rejected(log, "[hidden trump]")


BE_RANGA: list[Trick] = [
    ("AC KC QC JC", 0, 0), ("10C 9C 8C 7C", 0, 0), ("6C 5C !2H 4C", 2, 0), ("AH KH QH JH", 2, 4),
    ("AD KD QD JD", 2, 0), ("10D 9D 8D 7D", 2, 2), ("6D 5D 4D 3D", 2, 0), ("2D 3C 2C 10H", 1, 0),
    ("AS KS QS JS", 1, 3), ("10S 9S 8S 7S", 1, 0), ("6S 5S 4S 3S", 1, 2), ("2S 9H 8H 7H", 2, 0),
    ("6H 5H 4H 3H", 2, 2)]


def be_ranga(tricks: Sequence[Trick] = BE_RANGA) -> Log:
    log = Log("be-ranga")
    log.deal(1, 3, tricks, _end(0, [8, 5], "win", [1, 0], [1, 0], 3))
    log.end(0, [1, 0], "target")
    return log


def test_be_ranga_the_first_discard_sets_trumps_and_wins_its_own_trick() -> None:
    log = be_ranga()
    assert log.find("trump")["how"] == "unable"
    assert _errors(log) == []


def test_be_ranga_trumps_must_be_set_by_a_trump_event() -> None:
    log = be_ranga()
    log.events.remove(log.find("trump"))
    _rejected(log, "a trump event (how 'unable') must come right before it")


def test_be_ranga_nothing_is_collected_before_trumps_are_set() -> None:
    tricks = list(BE_RANGA)
    tricks[1] = ("10C 9C 8C 7C", 0, 2)
    tricks[3] = ("AH KH QH JH", 2, 2)
    _rejected(be_ranga(tricks), "be-ranga: nothing is collected before")


def test_a_redeal_when_the_callers_first_five_are_below_the_jack() -> None:
    log = Log(redeal=True, scoring={"mode": "points", "target": 4})
    log.redealt(1, 3, (HANDS_A[3], HANDS_A[0], HANDS_A[1], HANDS_A[2]))
    log.deal(1, 3, PLAIN_WIN, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.deal(2, 3, PLAIN_COURT, _end(0, [8, 1], "court", [4, 0], [0, 0], 1), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [4, 0], "target")
    assert _errors(log) == []


def test_a_redeal_with_a_jack_or_better_or_with_the_option_off_is_refused() -> None:
    log = Log(redeal=True)
    log.redealt(1, 3, HANDS_A)
    log.deal(1, 3, PLAIN_WIN, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [1, 0], "target")
    _rejected(log, "are not all below the jack", "[redeal]")
    log = Log()
    log.redealt(1, 3, (HANDS_A[3], HANDS_A[0], HANDS_A[1], HANDS_A[2]))
    log.deal(1, 3, PLAIN_WIN, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [1, 0], "target")
    _rejected(log, "the redeal option is off")


@pytest.mark.parametrize(("option", "trump", "ok"), [
    ("card", {"how": "card", "suit": "D", "card": "KD"}, True),
    ("card", {"how": "card", "suit": "S", "card": "AS"}, False),
    ("card", {"how": "random", "suit": "H", "card": "AH"}, True),
    ("card", {"how": "random", "suit": "C", "card": "AC"}, False),
    ("card", {"how": "card", "suit": "C", "card": "KD"}, False),
    ("named", {"how": "card", "suit": "D", "card": "KD"}, False),
    ("hidden", {"how": "hidden", "suit": "D", "card": None}, False),
])
def test_the_trump_event_matches_the_option(option: str, trump: dict[str, Any], ok: bool) -> None:
    # in these deals every seat follows suit, so the trump suit changes no winner
    log = Log(trump=option)
    log.deal(1, 3, PLAIN_WIN, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=trump)
    log.end(0, [1, 0], "target")
    errors = _errors(log)
    assert (errors == []) is ok, errors
    if not ok:
        assert any("[trump]" in error for error in errors)


def test_trump_by_a_later_card_is_the_callers_seventh_or_tenth() -> None:
    tricks = DOUBLE_SIR_TRICKS
    for card, ok in (("JH", True), ("KS", True), ("AD", False)):
        log = Log("double-sir", trump="later")
        log.deal(1, 3, tricks, _end(0, [7, 6], "win", [1, 0], [1, 0], 3),
                 trump={"how": "later", "suit": card[-1], "card": card})
        log.end(0, [1, 0], "target")
        hand = log.find("deal")["hands"][0]
        assert (card in (hand[6], hand[9])) is ok
        errors = _errors(log)
        if ok:
            # a later trump other than spades can change trick winners; only the trump event is at stake
            assert not any("[trump]" in error for error in errors), errors
        else:
            assert any("the caller's 7th or 10th card" in error for error in errors), errors


# ----- broken logs ------------------------------------------------------------------------------------


def test_a_revoke_is_rejected_and_the_error_names_game_deal_and_trick() -> None:
    tricks = [("AC AD 7C 4C", 0), *PLAIN_WIN[1:]]
    log = Log()
    log.deal(1, 3, tricks, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [1, 0], "target")
    errors = _rejected(log, "[follow suit]")
    revoke = next(error for error in errors if "[follow suit]" in error)
    assert revoke.startswith("line 5: game 0, deal 1, trick 1: seat 1 played AD")


def test_a_wrong_trick_winner_is_rejected() -> None:
    log = plain_session()
    log.find("trick", deal=1, trick=4)["winner"] = 0
    _rejected(log, "seat 1 wins the trick with AD")


def test_a_wrong_next_dealer_is_rejected() -> None:
    log = plain_session()
    log.find("deal_end", deal=1)["next_dealer"] = 0
    _rejected(log, "next_dealer should be 3", "[next dealer]")


def test_a_wrong_score_is_rejected() -> None:
    log = plain_session()
    log.find("deal_end", deal=2)["score"] = [3, 0]
    _rejected(log, "score should be [4, 0]", "[score]")


def test_a_wrong_kind_or_streak_is_rejected() -> None:
    log = plain_session()
    log.find("deal_end", deal=2).update(kind="win", streak=[2, 0])
    _rejected(log, "kind should be 'court'", "streak should be [0, 0]")


def test_a_card_played_twice_is_rejected() -> None:
    tricks = [PLAIN_WIN[0], ("KC 10C 6C 3C", 0), *PLAIN_WIN[2:]]
    log = Log()
    log.deal(1, 3, tricks, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [1, 0], "target")
    _rejected(log, "10C was already played", "[each card once]")


def test_a_play_out_of_turn_is_rejected() -> None:
    log = plain_session()
    log.find("play", deal=1, trick=2, seat=1)["seat"] = 3
    _rejected(log, "seat 3 played out of turn: it is seat 1's turn", "[turn order]")


def test_a_deal_that_should_have_ended_is_rejected() -> None:
    log = Log()
    log.deal(1, 3, [*PLAIN_WIN, ("AS JS 8S 5S", 0)], _end(0, [8, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A,
             trump=NAMED_SPADES)
    log.end(0, [1, 0], "target")
    _rejected(log, "the deal should have ended after trick 8 (team 0 has 7 tricks)", "[deal end]")


def test_a_deal_that_ends_too_soon_is_rejected() -> None:
    log = Log()
    log.deal(1, 3, PLAIN_WIN[:7], _end(0, [6, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [1, 0], "target")
    _rejected(log, "the deal is not over after 7 complete tricks")


def test_a_collection_the_sub_option_forbids_is_rejected() -> None:
    log = double_sir_session(no_early_late=True)
    _rejected(log, "collected should be 0, got 2 (no-early-late: no collection after trick 2)")


def test_the_new_pile_rule_and_the_last_sweep_are_enforced() -> None:
    tricks = list(DOUBLE_SIR_TRICKS)
    tricks[2] = ("6C 5C 4C 3C", 0, 1)
    _rejected(double_sir_session(tricks), "a new pile starts")
    tricks = list(DOUBLE_SIR_TRICKS)
    tricks[12] = ("2S 2C 2D 2H", 3, 0)
    _rejected(double_sir_session(tricks), "collected should be 4, got 0 (the winner of the 13th trick takes")


def test_the_session_must_end_exactly_when_it_should() -> None:
    log = plain_session()
    log.events.insert(log.events.index(log.find("deal", deal=2)), {"event": "end", "game": 0, "winner": 0,
                                                                      "score": [1, 0], "reason": "target"})
    _rejected(log, "the session ended early")
    log = Log()  # a target of 1: the first deal won ends it
    log.deal(1, 3, PLAIN_WIN, _end(0, [7, 1], "win", [1, 0], [1, 0], 3), hands=HANDS_A, trump=NAMED_SPADES)
    log.deal(2, 3, PLAIN_COURT, _end(0, [8, 1], "court", [4, 0], [0, 0], 1), hands=HANDS_A, trump=NAMED_SPADES)
    log.end(0, [4, 0], "target")
    _rejected(log, "the session should have ended before this deal")
    log = plain_session()
    log.add("play", deal=2, trick=10, seat=1, card="AD", face_down=False)
    _rejected(log, "after the session's end")
    log = plain_session()
    log.events.pop()
    _rejected(log, "the log stops before the session's end event")


def test_event_fields_are_exact_and_unknown_events_are_ignored() -> None:
    log = plain_session()
    log.events.insert(3, {"event": "turn", "game": 0, "seat": 0, "anything": [1, 2]})
    assert _errors(log) == []
    log.find("play", deal=1, trick=1, seat=0)["hint"] = "AC"
    _rejected(log, "fields it should not have: ['hint']")
    log = plain_session()
    del log.find("trick", deal=1, trick=1)["centre"]
    _rejected(log, "a trick event lacks ['centre']")
    log = plain_session()
    del log.events[0]["options"]["goon"]
    _rejected(log, "missing ['goon']")


def test_sessions_back_to_back_are_numbered_in_order() -> None:
    first, second = plain_session(), Log("hidden-rung", game=1)
    second.deal(1, 3, HIDDEN_RUNG, _end(0, [9, 4], "win", [1, 0], [1, 0], 3), trump=HIDDEN, hidden="2S")
    second.end(0, [1, 0], "target")
    assert check_log(first.lines() + second.lines()) == []
    for event in second.events:
        event["game"] = 2
    errors = check_log(first.lines() + second.lines())
    assert any("expected game 1, got 2" in error for error in errors)


def test_deals_are_numbered_and_dealt_by_the_previous_next_dealer() -> None:
    log = plain_session()
    for event in log.events:
        if event.get("deal") == 2:
            event["deal"] = 3
    _rejected(log, "this deal should be number 2, got 3")
    log = plain_session()
    log.find("deal", deal=2).update(dealer=0, caller=1)
    _rejected(log, "the dealer should be seat 3")


def test_the_command_line_exits_1_with_errors(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text("\n".join(plain_session().lines()) + "\n")
    log = plain_session()
    log.find("deal_end", deal=1)["score"] = [2, 0]
    bad.write_text("\n".join(log.lines()) + "\n")
    assert check_file(good) == []
    script = str(Path(__file__).with_name("court_piece_checker.py"))
    assert subprocess.run([sys.executable, script, str(good)], capture_output=True).returncode == 0
    result = subprocess.run([sys.executable, script, str(bad)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "score should be [1, 0]" in result.stdout


# ----- properties -------------------------------------------------------------------------------------


def _deal_only(hands: list[list[str]]) -> list[str]:
    log = Log()
    log.deal_event(1, 3, hands)
    return log.lines()


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False))
def test_any_shuffle_dealt_thirteen_each_partitions_the_deck(rng: random.Random) -> None:
    deck = sorted(CARDS)
    rng.shuffle(deck)
    errors = check_log(_deal_only([deck[13 * seat:13 * seat + 13] for seat in range(4)]))
    assert not any("[deal]" in error for error in errors), errors


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 51), st.integers(0, 51))
def test_a_card_dealt_twice_is_caught(rng: random.Random, copy: int, lost: int) -> None:
    deck = sorted(CARDS)
    rng.shuffle(deck)
    if copy == lost:
        return
    deck[lost] = deck[copy]
    errors = check_log(_deal_only([deck[13 * seat:13 * seat + 13] for seat in range(4)]))
    assert any("do not partition the deck" in error for error in errors), errors


VALID_LOGS: dict[str, Callable[[], Log]] = {
    "plain": plain_session, "double-sir": double_sir_session, "hidden-rung": hidden_rung, "be-ranga": be_ranga,
    "example one": example_one, "example two": example_two}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(VALID_LOGS)), st.data())
def test_any_wrong_trick_winner_is_caught(name: str, data: st.DataObject) -> None:
    log = VALID_LOGS[name]()
    tricks = [event for event in log.events if event["event"] == "trick"]
    trick = data.draw(st.sampled_from(tricks))
    trick["winner"] = data.draw(st.sampled_from([seat for seat in range(4) if seat != trick["winner"]]))
    assert any("[trick winner]" in error for error in _errors(log))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(VALID_LOGS)), st.data())
def test_any_play_changed_to_another_card_is_caught(name: str, data: st.DataObject) -> None:
    log = VALID_LOGS[name]()
    plays = [event for event in log.events if event["event"] == "play"]
    play = data.draw(st.sampled_from(plays))
    play["card"] = data.draw(st.sampled_from(sorted(CARDS - {play["card"]})))
    assert _errors(log)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 60) | st.sampled_from(["", "AS", "10H", "S", "win"]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(VALID_LOGS)), st.data(), JSON)
def test_a_field_set_to_anything_is_reported_not_a_crash(name: str, data: st.DataObject, value: Any) -> None:
    log = VALID_LOGS[name]()
    event = data.draw(st.sampled_from(log.events))
    key = data.draw(st.sampled_from(sorted(event)))
    before = event[key]
    event[key] = value
    errors = _errors(log)
    assert isinstance(errors, list)
    if value != before and key not in ("event", "seats") and type(value) is type(before):
        assert errors, (key, before, value)
