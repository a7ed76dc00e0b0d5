"""An independent rules checker for Court Piece event logs (JSON Lines).

It replays every session of a log from its events alone, with bookkeeping of its own (it imports
nothing from the engine), and checks every claim the log makes:

* the session: variant, the five options, four seats, four players, the scoring; sessions
  numbered 0, 1, 2 … by ``game``, each a ``session`` first and an ``end`` last;
* each deal: numbered 1, 2 …, the hands a partition of the deck (13 each, ``first`` their first
  five), the caller to the dealer's right, the dealer the previous deal's ``next_dealer``; a
  redeal only when the option allows it and the caller's first five are all below the jack; the
  trump event as the variant and the options say;
* each play: the seat whose turn it is, a card it holds, suit followed when it can be, the
  hidden trump card kept out of play until its reveal, reveals and face-down plays only when
  allowed, the duty to play a trump after asking for the reveal, be-ranga's trump-setting card;
* each trick: its cards, its winner (a revealed suit trumps only from the reveal on, unless it
  was led; face-down cards never win; be-ranga's trump-setting card trumps its own trick), the
  tricks won, and in the Double Sir games the centre and each collection;
* each deal's end: exactly when the deal must stop, and its winner, tricks, kind, score, streak
  and next dealer; the session's end: exactly when it must come, with its winner, score, reason.

Event kinds it does not know are ignored; a known event with a field missing or one too many is
an error. Run it on a file: ``python tests/court_piece_checker.py LOG.jsonl`` (exit 0 when clean,
1 with one line per error).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["CARDS", "check_file", "check_log", "main"]

SUITS = ("C", "D", "H", "S")
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
POWER = {rank: value for value, rank in enumerate(RANKS)}
CARDS = frozenset(rank + suit for suit in SUITS for rank in RANKS)
BELOW_JACK = frozenset(RANKS[:9])
VARIANTS = ("court-piece", "double-sir", "be-ranga", "hidden-rung")
DOUBLE_SIR = frozenset(VARIANTS[1:])
TRUMP_OPTIONS = {
    "court-piece": ("named", "card", "hidden", "blind"),
    "double-sir": ("named", "card", "hidden", "blind", "later"),
    "be-ranga": ("named",),
    "hidden-rung": ("hidden", "blind"),
}
HOWS = {
    "named": ("named",),
    "card": ("card", "random"),
    "hidden": ("hidden",),
    "blind": ("blind",),
    "later": ("later", "named"),
}
PLAYERS = frozenset({"person", "remote", "random", "easy", "normal", "strong"})
OPTION_KEYS = ("trump", "redeal", "no-early-late", "aces-no-collect", "goon")
FIELDS: dict[str, frozenset[str]] = {
    "session": frozenset({"variant", "options", "seats", "players", "scoring"}),
    "deal": frozenset({"deal", "dealer", "caller", "hands", "first"}),
    "trump": frozenset({"deal", "seat", "how", "suit", "card"}),
    "redeal": frozenset({"deal", "seat"}),
    "play": frozenset({"deal", "trick", "seat", "card", "face_down"}),
    "reveal": frozenset({"deal", "trick", "seat", "suit", "card"}),
    "trick": frozenset({"deal", "trick", "winner", "cards", "won", "centre", "collected"}),
    "deal_end": frozenset({"deal", "winner", "tricks", "kind", "score", "streak", "next_dealer"}),
    "end": frozenset({"winner", "score", "reason"}),
}
KINDS = ("win", "court", "goon court", "52-court")


def _suit(card: str) -> str:
    return card[-1]


def _power(card: str) -> int:
    return POWER[card[:-1]]


class _Bad(Exception):
    """A field so malformed that its event cannot be replayed."""

    def __init__(self, message: str, rule: str = "event fields") -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


def _seat(value: Any, name: str) -> int:
    if type(value) is not int or not 0 <= value < 4:
        raise _Bad(f"{name} {value!r} is not a seat (0 to 3)")
    return value


def _card(value: Any, name: str) -> str:
    if not isinstance(value, str) or value not in CARDS:
        raise _Bad(f"{name} {value!r} is not a card")
    return value


def _pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(type(item) is int for item in value)


@dataclass
class _Options:
    trump: str = "named"
    redeal: bool = False
    no_early_late: bool = False
    aces_no_collect: bool = False
    goon: int = 3


class _Play(NamedTuple):
    seat: int
    card: str
    face_down: bool
    order: int  # its place among all the plays of the deal


class _Duty(NamedTuple):
    """What a reveal or a be-ranga trump event obliges the very next play to be."""

    seat: int
    card: str | None  # be-ranga: the trump-setting card itself
    trump: bool  # after a reveal: a trump, if the seat holds one


class _Deal:
    """One deal's state, rebuilt from its events."""

    def __init__(self, session: _Session, number: int, dealer: int, hands: list[list[str]]) -> None:
        self.session = session
        self.checker = session.checker
        self.variant = session.variant
        self.options = session.options
        self.double_sir = session.variant in DOUBLE_SIR
        self.number = number
        self.dealer = dealer
        self.caller = (dealer + 1) % 4
        self.hands = hands
        self.held = [set(hand) for hand in hands]
        self.seen: set[str] = set()
        self.phase = "play" if self.variant == "be-ranga" else "trump"  # trump, redealt, play, over
        self.trump: str | None = None
        self.hidden = False  # a trump card is set apart, not yet revealed
        self.candidates: set[str] | None = None  # what the set-apart card can still be
        self.trump_from = 4  # in the current trick, plays from this one on can be trumps
        self.reveal_at: int | None = None  # index of the first play after the reveal
        self.set_trick: int | None = None  # be-ranga: the trick in which trumps were set
        self.trick = 1
        self.plays: list[_Play] = []
        self.count = 0
        self.next_seat = self.caller
        self.duty: _Duty | None = None
        self.won = [0, 0]  # tricks won (plain) or tricks in each team's pile (Double Sir games)
        self.centre: list[int] = []
        self.winners: dict[int, _Play] = {}
        self.chase: int | None = None  # plain: the team playing on after winning the first seven
        self.result: tuple[int, str] | None = None
        self.why = ""
        self.overrun_reported = False

    def say(self, message: str, rule: str) -> None:
        self.checker.say(message, rule)

    # ----- bookkeeping --------------------------------------------------------------------------------

    def _void(self, seat: int, suit: str) -> bool:
        """Whether the seat may be out of ``suit``; the trump caller's set-apart card does not count."""
        same = [card for card in self.held[seat] if card[-1] == suit]
        if not same:
            return True
        if (seat == self.caller and self.hidden and self.candidates is not None and len(same) == 1
                and same[0] in self.candidates):
            self.candidates = {same[0]}  # then it must be the card set apart
            return True
        return False

    def _led(self) -> str | None:
        return _suit(self.plays[0].card) if self.plays else None

    def _in_play(self, kind: str) -> bool:
        """Whether a play-phase event can be replayed now; reports the ones out of place."""
        self.checker.trick_no = self.trick
        if self.phase == "trump":
            self.say(f"a {kind} before the trump event", "trump")
            self.phase = "play"
        if self.phase == "over":
            if not self.overrun_reported:
                self.checker.trick_no = None
                self.say(f"the deal should have ended after trick {self.trick - 1} ({self.why}), "
                         f"got a {kind}", "deal end")
                self.overrun_reported = True
            return False
        if len(self.plays) == 4:
            self.say(f"the fourth play of trick {self.trick} must be followed by its trick event, "
                     f"got a {kind}", "event order")
            self._close(None)
            return self._in_play(kind)
        return True

    def _trick_field(self, event: dict[str, Any]) -> None:
        if event["trick"] != self.trick:
            self.say(f"the event says trick {event['trick']!r}, it is trick {self.trick}", "trick numbering")

    # ----- events -----------------------------------------------------------------------------------

    def on_redeal(self, event: dict[str, Any]) -> None:
        seat = _seat(event["seat"], "seat")
        if self.variant == "be-ranga":
            self.say("be-ranga has no redeal", "redeal")
            return
        if self.phase != "trump":
            self.say("a redeal comes only right after the deal, before trumps and play", "redeal")
            return
        if seat != self.caller:
            self.say(f"only the trump caller (seat {self.caller}) may ask for a redeal, not seat {seat}", "redeal")
        first = self.hands[self.caller][:5]
        if not self.options.redeal:
            self.say("a redeal, but the redeal option is off", "redeal")
        elif self.options.trump == "blind":
            self.say("no redeal with a blind trump", "redeal")
        elif any(card[:-1] not in BELOW_JACK for card in first):
            self.say(f"a redeal, but the caller's first five {' '.join(first)} are not all below the jack",
                     "redeal")
        self.phase = "redealt"

    def on_trump(self, event: dict[str, Any]) -> None:
        if self.variant == "be-ranga":
            self._be_ranga_trump(event)
            return
        if self.phase != "trump":
            self.say("one trump event per deal, right after the deal and before any play", "trump")
            return
        self.phase = "play"
        seat = _seat(event["seat"], "seat")
        how, suit, card = event["how"], event["suit"], event["card"]
        if seat != self.caller:
            self.say(f"the trump caller is seat {self.caller}, the trump event says seat {seat}", "trump")
        allowed = HOWS.get(self.options.trump, ())
        if how not in allowed:
            self.say(f"with trump option {self.options.trump!r} the trump is set {' or '.join(allowed)}, "
                     f"not {how!r}", "trump")
        hand = self.hands[self.caller]
        if how in ("hidden", "blind"):
            if suit is not None or card is not None:
                self.say(f"a {how} trump shows neither suit nor card until the reveal, got {suit!r} {card!r}",
                         "trump")
            self.hidden = True
            self.candidates = set(hand[:5])
            return
        if how == "named":
            if suit not in SUITS:
                raise _Bad(f"a named trump needs a suit, got {suit!r}", "trump")
            if card is not None:
                self.say(f"a named trump has no card, got {card!r}", "trump")
            self.trump = suit
        elif how in ("card", "random", "later"):
            card = _card(card, "trump card")
            places = {"card": (hand[:5], "one of the caller's first five"),
                      "random": (hand[5:9], "one of the caller's second batch (cards 6 to 9)"),
                      "later": ([hand[6], hand[9]], "the caller's 7th or 10th card")}
            cards, words = places[how]
            if card not in cards:
                self.say(f"the {how} trump card {card} is not {words}", "trump")
            if suit != _suit(card):
                self.say(f"the trump card {card} makes {SUIT_WORDS[_suit(card)]} trumps, the event says {suit!r}",
                         "trump")
            self.trump = _suit(card)
        self.trump_from = 0 if self.trump is not None else 4

    def _be_ranga_trump(self, event: dict[str, Any]) -> None:
        if not self._in_play("trump event"):
            return
        seat = _seat(event["seat"], "seat")
        card = _card(event["card"], "card")
        if self.trump is not None or self.duty is not None:
            self.say("trumps are set once, by the first card played by a seat that cannot follow suit",
                     "be-ranga trumps")
            return
        if event["how"] != "unable":
            self.say(f"be-ranga trumps are set how 'unable', not {event['how']!r}", "be-ranga trumps")
        if seat != self.next_seat:
            self.say(f"the trump event names seat {seat}, but it is seat {self.next_seat}'s turn", "be-ranga trumps")
        led = self._led()
        if led is None:
            self.say("a seat leading cannot set trumps: only one that cannot follow suit", "be-ranga trumps")
        elif not self._void(seat, led):
            self.say(f"seat {seat} holds {SUIT_WORDS[led]}, so it follows suit and cannot set trumps",
                     "be-ranga trumps")
        if card not in self.held[seat]:
            self.say(f"seat {seat} does not hold the trump-setting card {card}", "be-ranga trumps")
        if event["suit"] != _suit(card):
            self.say(f"{card} makes {SUIT_WORDS[_suit(card)]} trumps, the event says {event['suit']!r}",
                     "be-ranga trumps")
        self.trump = _suit(card)
        self.trump_from = len(self.plays)
        self.set_trick = self.trick
        self.duty = _Duty(seat, card, False)

    def on_reveal(self, event: dict[str, Any]) -> None:
        if not self._in_play("reveal"):
            return
        self._trick_field(event)
        seat = _seat(event["seat"], "seat")
        card = _card(event["card"], "card")
        if self.duty is not None:
            self.say("a reveal must be followed by the play it allows", "reveal")
        if seat != self.next_seat:
            self.say(f"only the seat to play (seat {self.next_seat}) may ask for or make a reveal, not seat {seat}",
                     "reveal")
        if not self.hidden:
            if self.options.trump in ("hidden", "blind") and self.variant != "be-ranga":
                self.say("the trump was already revealed", "reveal")
            else:
                self.say("this game has no hidden trump to reveal", "reveal")
            return
        led = self._led()
        if seat == self.caller and (led is None or len(self.held[seat]) == 1):
            pass  # the caller on lead, or down to the set-apart card
        elif led is None:
            self.say(f"seat {seat} is leading: only the trump caller may reveal on lead", "reveal")
        elif not self._void(seat, led):
            self.say(f"seat {seat} holds {SUIT_WORDS[led]}: only a seat that cannot follow suit may ask for the "
                     "reveal", "reveal")
        if card not in self.hands[self.caller][:5]:
            self.say(f"{card} is not one of the trump caller's first five, so it cannot be the trump card",
                     "hidden trump")
        elif self.candidates is not None and card not in self.candidates:
            self.say(f"{card} cannot be the set-apart trump card: the caller's plays so far rule it out",
                     "hidden trump")
        if event["suit"] != _suit(card):
            self.say(f"{card} makes {SUIT_WORDS[_suit(card)]} trumps, the reveal says {event['suit']!r}", "reveal")
        self.hidden = False
        self.candidates = None
        self.trump = _suit(card)
        self.trump_from = len(self.plays)
        self.reveal_at = self.count
        self.duty = _Duty(seat, None, True)

    def on_play(self, event: dict[str, Any]) -> None:
        if not self._in_play("play"):
            return
        seat = _seat(event["seat"], "seat")
        card = _card(event["card"], "card")
        face_down = event["face_down"]
        if type(face_down) is not bool:
            raise _Bad(f"face_down must be true or false, got {face_down!r}")
        self._trick_field(event)
        duty, self.duty = self.duty, None
        expected = duty.seat if duty is not None else self.next_seat
        if seat != expected:
            self.say(f"seat {seat} played out of turn: it is seat {expected}'s turn", "turn order")
        led = self._led()
        if card in self.seen:
            self.say(f"{card} was already played", "each card once")
        elif card not in self.held[seat]:
            owner = next((other for other in range(4) if card in self.held[other]), None)
            self.say(f"seat {seat} does not hold {card} (seat {owner} does)", "own cards")
        hidden_caller = self.hidden and seat == self.caller
        if duty is not None and duty.seat == seat:
            if duty.card is not None and card != duty.card:
                self.say(f"the trump event named {duty.card}, then seat {seat} played {card}", "be-ranga trumps")
            if (duty.trump and self.trump is not None and _suit(card) != self.trump
                    and any(_suit(held) == self.trump for held in self.held[seat])):
                self.say(f"seat {seat} asked for or made the reveal and holds {SUIT_WORDS[self.trump]}: it must "
                         f"play a trump, not {card}", "reveal")
        if face_down:
            problem = None
            if self.variant != "hidden-rung":
                problem = "face-down plays exist only in hidden rung"
            elif seat != self.caller:
                problem = "only the trump caller plays face down"
            elif not self.hidden:
                problem = "a face-down play only while the trump is hidden"
            elif led is None:
                problem = "a face-down play never leads"
            elif _suit(card) == led:
                problem = f"a face-down play only by a caller that cannot follow {SUIT_WORDS[led]}"
            if problem:
                self.say(f"{card} face down: {problem}", "face down")
        elif self.variant == "hidden-rung" and hidden_caller and led is not None and _suit(card) != led:
            self.say(f"the trump caller cannot follow {SUIT_WORDS[led]} while the trump is hidden: it must reveal "
                     f"and play a trump, or play face down, not {card} face up", "face down")
        if led is not None and _suit(card) != led:
            if not self._void(seat, led):
                self.say(f"seat {seat} played {card} on {SUIT_WORDS[led]} led but holds {SUIT_WORDS[led]}: "
                         "it must follow suit", "follow suit")
            elif self.variant == "be-ranga" and self.trump is None:
                self.say(f"{card} is the first card played by a seat that cannot follow suit: a trump event "
                         "(how 'unable') must come right before it", "be-ranga trumps")
                self.trump = _suit(card)
                self.trump_from = len(self.plays)
                self.set_trick = self.trick
        if hidden_caller and self.candidates is not None:
            self.candidates.discard(card)
            if not self.candidates:
                self.say(f"the trump caller played {card}, but it must be the set-apart trump card, which cannot "
                         "be played before the reveal", "hidden trump")
                self.candidates = None
        self.plays.append(_Play(seat, card, face_down, self.count))
        self.count += 1
        self.held[seat].discard(card)
        self.seen.add(card)
        self.next_seat = (seat + 1) % 4

    def on_trick(self, event: dict[str, Any]) -> None:
        self.checker.trick_no = self.trick
        if self.phase == "over":
            if not self.overrun_reported:
                self.checker.trick_no = None
                self.say(f"the deal should have ended after trick {self.trick - 1} ({self.why})", "deal end")
                self.overrun_reported = True
            return
        if len(self.plays) < 4:
            self.say(f"a trick event after only {len(self.plays)} plays", "event order")
            return
        if self.duty is not None:
            self.say("a reveal or trump event must be followed by its play", "event order")
            self.duty = None
        self._close(event)

    # ----- the trick and the deal -------------------------------------------------------------------

    def _winner(self) -> _Play:
        led = _suit(self.plays[0].card)
        trump = self.trump
        if trump is not None and trump != led:
            trumps = [play for place, play in enumerate(self.plays)
                      if place >= self.trump_from and not play.face_down and _suit(play.card) == trump]
            if trumps:
                return max(trumps, key=lambda play: _power(play.card))
        followers = [play for play in self.plays if not play.face_down and _suit(play.card) == led]
        if not followers:  # only where a face-down lead was already reported
            return self.plays[0]
        return max(followers, key=lambda play: _power(play.card))

    def _collects(self, trick: int, winner: _Play) -> tuple[bool, str]:
        """Whether this win takes the centre (Double Sir games), and why."""
        if trick == 13:
            return True, "the winner of the 13th trick takes the centre"
        before = self.winners.get(trick - 1)
        if before is None or before.seat != winner.seat:
            return False, f"seat {winner.seat} did not win trick {trick - 1}"
        if len(self.centre) < 2:
            return False, f"trick {trick - 1} was collected already: a new pile starts"
        if self.options.no_early_late and trick in (2, 12):
            return False, f"no-early-late: no collection after trick {trick}"
        if self.options.aces_no_collect and before.card[:-1] == "A" and winner.card[:-1] == "A":
            return False, "aces-no-collect: both tricks were won with aces"
        if self.variant == "be-ranga" and (self.set_trick is None or trick - 1 < self.set_trick):
            return False, "be-ranga: nothing is collected before the trick after the one that set trumps"
        if self.variant == "hidden-rung":
            if trick <= 2 or trick == 12:
                return False, f"hidden rung: no claim after trick {trick}"
            if self.reveal_at is None or before.order < self.reveal_at:
                return False, f"hidden rung: the winning card of trick {trick - 1} was played before the reveal"
        return True, f"seat {winner.seat} won tricks {trick - 1} and {trick}"

    def _close(self, event: dict[str, Any] | None) -> None:
        trick = self.trick
        winner = self._winner()
        team = winner.seat % 2
        if self.double_sir:
            self.centre.append(trick)
            takes, why = self._collects(trick, winner)
            collected = len(self.centre) if takes else 0
            self.won[team] += collected
            if takes:
                self.centre = []
        else:
            why, collected = "", 1
            self.won[team] += 1
        self.winners[trick] = winner
        if event is not None:
            self._trick_field(event)
            cards = [play.card for play in self.plays]
            if event["cards"] != cards:
                self.say(f"the cards in play order are {cards}, the trick event says {event['cards']!r}", "trick")
            if event["winner"] != winner.seat:
                self.say(f"seat {winner.seat} wins the trick with {winner.card}, the log says "
                         f"{event['winner']!r}", "trick winner")
            if event["won"] != self.won:
                words = "tricks in the piles" if self.double_sir else "tricks won"
                self.say(f"{words} should be {self.won}, got {event['won']!r}", "tricks won")
            if event["centre"] != len(self.centre):
                self.say(f"centre should be {len(self.centre)}, got {event['centre']!r}", "collection")
            if event["collected"] != collected:
                self.say(f"collected should be {collected}, got {event['collected']!r}"
                         + (f" ({why})" if why else ""), "collection")
        self.trick += 1
        self.plays = []
        self.next_seat = winner.seat
        self.trump_from = 0 if self.trump is not None else 4
        self._maybe_over(team)

    def _maybe_over(self, team: int) -> None:
        done = self.trick - 1
        if self.double_sir:
            if done == 13:
                winner = 0 if self.won[0] >= 7 else 1
                kind = "win"
                if self.won[winner] == 13:
                    kind = "goon court" if winner == self.dealer % 2 else "court"
                self._over(winner, kind, "13 tricks played")
            return
        if self.chase is None:
            if self.won[team] == 7:
                if self.won[1 - team] == 0:
                    self.chase = team
                else:
                    self._over(team, "win", f"team {team} has 7 tricks")
        elif team != self.chase:
            kind = "goon court" if self.chase == self.dealer % 2 else "court"
            self._over(self.chase, kind, f"team {team} won a trick after team {self.chase}'s first seven")
        elif done == 13:
            self._over(self.chase, "52-court", "all 13 tricks played")

    def _over(self, winner: int, kind: str, why: str) -> None:
        self.phase = "over"
        self.result = (winner, kind)
        self.why = why


class _Session:
    """One session's state: its settings, the running score, the deal in progress."""

    def __init__(self, checker: _Checker, index: int, event: dict[str, Any]) -> None:
        self.checker = checker
        self.index = index
        self.broken = False
        self.score = [0, 0]
        self.streak = [0, 0]
        self.deals_done = 0
        self.next_dealer: int | None = None
        self.deal: _Deal | None = None
        self.skipping = False  # a deal too malformed to replay: wait for its deal_end
        self.due: tuple[int | None, str] | None = None  # the session must end now: winner, reason
        self.ended = False
        variant = event["variant"]
        if variant not in VARIANTS:
            self.say(f"unknown variant {variant!r}: the session cannot be checked", "session")
            self.broken = True
            variant = "court-piece"
        self.variant: str = variant
        self.double_sir = variant in DOUBLE_SIR
        self.options = self._options(event["options"])
        seats, players = event["seats"], event["players"]
        if not isinstance(seats, list) or len(seats) != 4 or not all(isinstance(name, str) for name in seats):
            self.say(f"seats should be 4 names, got {seats!r}", "session")
        if not isinstance(players, list) or len(players) != 4 or not all(
                isinstance(player, str) and player in PLAYERS for player in players):
            self.say(f"players should be 4 of {sorted(PLAYERS)}, got {players!r}", "session")
        scoring = event["scoring"]
        self.mode, self.limit = "points", 10
        if isinstance(scoring, dict) and scoring.get("mode") in ("points", "courts"):
            self.mode = scoring["mode"]
            key = "target" if self.mode == "points" else "deals"
            limit = scoring.get(key)
            if set(scoring) != {"mode", key} or type(limit) is not int or limit < 1:
                self.say(f"scoring in {self.mode} mode is {{'mode', '{key}'}} with a whole number of at least 1, "
                         f"got {scoring!r}", "session")
            if type(limit) is int and limit >= 1:
                self.limit = limit
            else:
                self.broken = True
        else:
            self.say(f"scoring should be points with a target or courts with a number of deals, got {scoring!r}",
                     "session")
            self.broken = True

    def say(self, message: str, rule: str) -> None:
        self.checker.say(message, rule)

    def _options(self, options: Any) -> _Options:
        parsed = _Options(trump=TRUMP_OPTIONS[self.variant][0])
        if not isinstance(options, dict):
            self.say(f"options should be an object with {list(OPTION_KEYS)}, got {options!r}", "session options")
            return parsed
        missing = [key for key in OPTION_KEYS if key not in options]
        extra = sorted(set(options) - set(OPTION_KEYS))
        if missing or extra:
            self.say(f"options need exactly {list(OPTION_KEYS)}: missing {missing}, extra {extra}", "session options")
        trump = options.get("trump", parsed.trump)
        if trump in TRUMP_OPTIONS[self.variant]:
            parsed.trump = trump
        else:
            self.say(f"trump option {trump!r} does not go with {self.variant} (allowed: "
                     f"{', '.join(TRUMP_OPTIONS[self.variant])})", "session options")
        for key, attribute in (("redeal", "redeal"), ("no-early-late", "no_early_late"),
                               ("aces-no-collect", "aces_no_collect")):
            value = options.get(key, False)
            if type(value) is not bool:
                self.say(f"option {key} should be true or false, got {value!r}", "session options")
            else:
                setattr(parsed, attribute, value)
        goon = options.get("goon", 3)
        if type(goon) is not int or goon not in (3, 10):
            self.say(f"option goon should be 3 or 10, got {goon!r}", "session options")
        else:
            parsed.goon = goon
        return parsed

    # ----- dispatch ---------------------------------------------------------------------------------

    def handle(self, kind: str, event: dict[str, Any]) -> None:
        if self.broken:
            return
        if self.ended:
            self.say(f"a {kind} event after the session's end", "session end")
            return
        if kind == "end":
            self.on_end(event)
            return
        if kind == "deal":
            self.on_deal(event)
            return
        if self.skipping:
            if kind == "deal_end":
                self._adopt(event)
            return
        deal = self.deal
        if deal is None:
            self.say(f"a {kind} event outside a deal", "event order")
            return
        self.checker.deal_no = deal.number
        if event["deal"] != deal.number:
            self.say(f"the event says deal {event['deal']!r} inside deal {deal.number}", "deal numbering")
        if deal.phase == "redealt":
            self.say(f"a redeal must be followed at once by the new deal, got a {kind}", "redeal")
            deal.phase = "trump"
        if kind == "deal_end":
            self.on_deal_end(event)
        elif kind == "redeal":
            deal.on_redeal(event)
        elif kind == "trump":
            deal.on_trump(event)
        elif kind == "play":
            deal.on_play(event)
        elif kind == "reveal":
            deal.on_reveal(event)
        elif kind == "trick":
            deal.on_trick(event)

    # ----- deals ------------------------------------------------------------------------------------

    def on_deal(self, event: dict[str, Any]) -> None:
        number = event["deal"]
        self.checker.deal_no = number if type(number) is int else None
        old = self.deal
        redeal = old is not None and old.phase == "redealt"
        expected_dealer: int | None
        if redeal and old is not None:
            expected_number, expected_dealer = old.number, old.dealer
        else:
            if old is not None:
                self.say(f"deal {old.number} never got its deal_end", "deal end")
            if self.due is not None:
                self.say(f"the session should have ended before this deal ({self.due[1]})", "session end")
                self.due = None
            expected_number, expected_dealer = self.deals_done + 1, self.next_dealer
            if self.skipping:
                expected_dealer = None
        self.skipping = False
        self.deal = None
        if number != expected_number:
            what = "a redeal keeps the deal number" if redeal else "deals are numbered 1, 2 … in order"
            self.say(f"this deal should be number {expected_number}, got {number!r} ({what})", "deal numbering")
        try:
            dealer = _seat(event["dealer"], "dealer")
            if expected_dealer is not None and dealer != expected_dealer:
                why = "a redeal keeps the dealer" if redeal else "the previous deal_end's next_dealer"
                self.say(f"the dealer should be seat {expected_dealer} ({why}), got seat {dealer}", "next dealer")
            if event["caller"] != (dealer + 1) % 4:
                self.say(f"the trump caller is the seat after the dealer, seat {(dealer + 1) % 4}, got "
                         f"{event['caller']!r}", "trump caller")
            hands = self._hands(event)
        except _Bad:
            self.skipping = True
            raise
        self.deal = _Deal(self, number if type(number) is int else expected_number, dealer, hands)

    def _hands(self, event: dict[str, Any]) -> list[list[str]]:
        hands = event["hands"]
        if not isinstance(hands, list) or len(hands) != 4 or not all(
                isinstance(hand, list) and len(hand) == 13 for hand in hands):
            raise _Bad("hands should be 4 lists of 13 cards", "deal")
        for hand in hands:
            for card in hand:
                _card(card, "dealt card")
        dealt = [card for hand in hands for card in hand]
        if len(set(dealt)) != 52:
            twice = sorted({card for card in dealt if dealt.count(card) > 1})
            missing = sorted(CARDS - set(dealt))
            self.say(f"the hands do not partition the deck: twice {twice}, missing {missing}", "deal")
        if event["first"] != [hand[:5] for hand in hands]:
            self.say(f"first should be the first five of each hand, got {event['first']!r}", "deal")
        return [list(hand) for hand in hands]

    def on_deal_end(self, event: dict[str, Any]) -> None:
        deal = self.deal
        assert deal is not None
        self.checker.trick_no = None
        if deal.phase != "over" or deal.result is None:
            played = deal.trick - 1
            self.say(f"the deal is not over after {played} complete tricks (tricks {deal.won})", "deal end")
            self._adopt(event)
            return
        winner, kind = deal.result
        if self.double_sir and kind == "win" and self.streak[winner] == 6:
            kind = "court"  # the seventh deal won in a row
        court = kind != "win"
        caller_team, dealer_team = deal.caller % 2, deal.dealer % 2
        if self.mode == "points":
            gain = (3 if court else 1) if winner == caller_team else (4 if court else 2)
        elif kind == "52-court":
            gain = 52
        elif kind == "goon court" and self.double_sir:
            gain = self.options.goon
        else:
            gain = 1 if court else 0
        score = list(self.score)
        score[winner] += gain
        streak = [0, 0]
        streak[winner] = 0 if court else self.streak[winner] + 1
        if winner == dealer_team:
            next_dealer = (deal.dealer + 1) % 4
        else:
            next_dealer = (deal.dealer + 2) % 4 if court else deal.dealer
        claims = (("winner", winner, "deal winner"), ("tricks", deal.won, "deal end"), ("kind", kind, "deal kind"),
                  ("score", score, "score"), ("streak", streak, "streak"), ("next_dealer", next_dealer, "next dealer"))
        for name, value, rule in claims:
            if event[name] != value:
                self.say(f"{name} should be {value!r}, got {event[name]!r}", rule)
        self.score, self.streak, self.next_dealer = score, streak, next_dealer
        self.deals_done += 1
        self.deal = None
        self.due = self._due(kind, winner)

    def _adopt(self, event: dict[str, Any]) -> None:
        """Carry on from the log's own account of a deal that could not be replayed."""
        if _pair(event["score"]):
            self.score = list(event["score"])
        if _pair(event["streak"]):
            self.streak = list(event["streak"])
        next_dealer = event["next_dealer"]
        self.next_dealer = next_dealer if type(next_dealer) is int and 0 <= next_dealer < 4 else None
        winner = event["winner"] if event["winner"] in (0, 1) else None
        self.deals_done += 1
        self.deal = None
        self.skipping = False
        self.due = self._due(event["kind"], winner)

    def _due(self, kind: Any, winner: int | None) -> tuple[int | None, str] | None:
        if self.mode == "points":
            if kind == "52-court":
                return winner, "52-court"
            for team in (0, 1):
                if self.score[team] >= self.limit:
                    return team, "target"
            return None
        if self.deals_done >= self.limit:
            if self.score[0] == self.score[1]:
                return None, "deals"
            return (0 if self.score[0] > self.score[1] else 1), "deals"
        return None

    def on_end(self, event: dict[str, Any]) -> None:
        self.ended = True
        if self.deal is not None or self.skipping:
            self.say("the session ends inside a deal, before its deal_end", "session end")
        if self.due is None:
            if self.mode == "points":
                state = f"score {self.score}, target {self.limit}"
            else:
                state = f"{self.deals_done} of {self.limit} deals played"
            self.say(f"the session ended early ({state})", "session end")
        else:
            winner, reason = self.due
            if event["winner"] != winner:
                self.say(f"the session winner should be {winner!r}, got {event['winner']!r}", "session end")
            if event["reason"] != reason:
                self.say(f"the end reason should be {reason!r}, got {event['reason']!r}", "session end")
        if event["score"] != self.score:
            self.say(f"the final score should be {self.score}, got {event['score']!r}", "score")


class _Checker:
    """Reads the lines, keeps the sessions in order, and words the errors."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.line = 0
        self.game: Any = None
        self.deal_no: int | None = None
        self.trick_no: int | None = None
        self.session: _Session | None = None
        self.next_game = 0

    def say(self, message: str, rule: str) -> None:
        where: list[str] = []
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.deal_no is not None:
            where.append(f"deal {self.deal_no}")
        if self.trick_no is not None:
            where.append(f"trick {self.trick_no}")
        place = f"line {self.line}: {', '.join(where)}" if where else f"line {self.line}"
        self.errors.append(f"{place}: {message} [{rule}]")

    def feed(self, number: int, raw: str | bytes) -> None:
        self.line = number
        self.deal_no = self.trick_no = None
        self.game = self.session.index if self.session is not None else None
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        if not text.strip():
            self.say("empty line", "JSON Lines")
            return
        try:
            event = json.loads(text)
        except ValueError as error:
            self.say(f"not JSON: {error}", "JSON Lines")
            return
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            self.say("every line is a JSON object with a string 'event'", "JSON Lines")
            return
        kind, game = event["event"], event.get("game")
        if type(game) is not int:
            self.say(f"a {kind} event needs an integer 'game', got {game!r}", "game index")
            return
        if kind not in FIELDS:
            if self.session is not None and game != self.session.index:
                self.say(f"a {kind} event says game {game} inside game {self.session.index}", "game index")
            return  # other event kinds are not the checker's business
        wanted = FIELDS[kind] | {"event", "game"}
        missing, extra = sorted(wanted - set(event)), sorted(set(event) - wanted)
        if kind == "session":
            self.game = game
        if extra:
            self.say(f"a {kind} event has fields it should not have: {extra}", "event fields")
        if missing:
            self.say(f"a {kind} event lacks {missing}", "event fields")
            if kind == "session":
                event.update(dict.fromkeys(missing))  # the session is started, unusable fields and all
            elif missing == ["face_down"]:
                event["face_down"] = False
            else:
                return
        try:
            if kind == "session":
                self.start(game, event)
                return
            session = self.session
            if session is None:
                self.say(f"a {kind} event before any session event", "event order")
                return
            if game != session.index:
                self.say(f"a {kind} event says game {game} inside game {session.index}", "game index")
            session.handle(kind, event)
        except _Bad as problem:
            self.say(problem.message, problem.rule)

    def start(self, game: int, event: dict[str, Any]) -> None:
        if self.session is not None and not self.session.ended and not self.session.broken:
            self.say(f"game {self.session.index} never got its end event", "session end")
        if game != self.next_game:
            self.say(f"sessions are numbered 0, 1, 2 … in order: expected game {self.next_game}, got {game}",
                     "game index")
        self.next_game = game + 1
        self.session = _Session(self, game, event)

    def finish(self) -> None:
        self.line += 1
        self.deal_no = self.trick_no = None
        session = self.session
        if session is None:
            self.game = None
            self.say("no session in the log", "event order")
        elif not session.ended and not session.broken:
            self.game = session.index
            self.say("the log stops before the session's end event", "session end")


def check_log(lines: Iterable[str | bytes]) -> list[str]:
    """Replay every session in a log and return one line per rule broken (empty when valid)."""
    checker = _Checker()
    for number, raw in enumerate(lines, start=1):
        checker.feed(number, raw)
    checker.finish()
    return checker.errors


def check_file(path: str | Path) -> list[str]:
    """Check a JSON Lines log on disk."""
    with open(path, encoding="utf-8") as lines:
        return check_log(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python tests/court_piece_checker.py LOG.jsonl", file=sys.stderr)
        return 2
    errors = check_file(args[0])
    for error in errors:
        print(error)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
