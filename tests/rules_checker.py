"""An independent replay checker for Rang Milanti event logs (JSON Lines).

It reads a log as ``voice-rang simulate --jsonl`` or a game writes it and replays every game
from the events alone, with its own bookkeeping: it imports nothing from the engine. It knows
the face-up cards (the spares and every card turned), so it follows each card from the middle
into a collected pile and, after a reshuffle, into a stack; only the dealt stacks are unknown.

What it checks, game by game:

* lines: a JSON object with ``event`` and an integer ``game``; games numbered 0, 1, 2 … in
  order, each one a ``deal`` first and an ``end`` last, nothing after the end;
* the deal: 2 to 6 seats named host, guest 1 …; ``52 // seats`` cards each; ``52 % seats``
  distinct spares;
* every reveal: ``n`` goes up by one and never passes the cap; the seat is the one whose turn it
  is (the host first; the same seat after a capture; otherwise the next seat still in); the card
  is one that seat could hold and has not been seen elsewhere; ``under`` is the previous pile top,
  ``null`` on an empty pile and after a capture; ``match`` exactly when ``under`` is a card of the
  same suit; ``moved`` is the pile before plus one on a match, else 0; the counts (stacks,
  collected, pile) are what the replay says and add up to 52;
* a reshuffle only for the seat about to turn, only when its stack count is 0, of exactly its
  collected cards, and followed by that seat's reveal;
* ``out`` exactly when a miss leaves the seat with no stack and nothing collected, right after
  that reveal;
* the end: reveals as counted; ``last seat`` when one seat is left (and the game stops there),
  ``cap`` when the cap is reached (and the game stops there) with the seats holding most cards
  as winners; ``cards`` is stack + collected per seat;
* no event carries hidden information: no list of cards anywhere except ``deal.spares``.

Run it on a file: ``python tests/rules_checker.py LOG.jsonl [--cap N]`` (exit 0 when clean,
1 with one line per violation).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_CAP", "Report", "check_file", "check_lines", "main"]

DEFAULT_CAP = 5000
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
CARDS = frozenset(rank + suit for suit in SUITS for rank in RANKS)

FIELDS = {
    "deal": ("seats", "stacks", "spares"),
    "reveal": ("n", "seat", "card", "under", "match", "moved", "stacks", "collected", "pile"),
    "reshuffle": ("seat", "cards"),
    "out": ("seat",),
    "end": ("reveals", "reason", "winners", "cards"),
}


@dataclass
class Report:
    """What a check found: violations (one line each) and how much was replayed."""

    violations: list[str] = field(default_factory=list)
    games: int = 0
    reveals: int = 0

    @property
    def ok(self) -> bool:
        return not self.violations


class _Bad(Exception):
    """A violation serious enough that the rest of this line cannot be checked."""


class _Replay:
    """One game's state, rebuilt from its events."""

    def __init__(self, number: int, cap: int, deal: dict[str, Any], say: Any) -> None:
        self.number, self.cap, self.say = number, cap, say
        names = deal.get("seats")
        if not isinstance(names, list) or not 2 <= len(names) <= 6:
            raise _Bad(f"a deal needs 2 to 6 seats, got {names!r}")
        self.seats = len(names)
        expected_names = ["host"] + [f"guest {k}" for k in range(1, self.seats)]
        if names != expected_names:
            say(f"seats should be named {expected_names}, got {names}")
        each, spare = divmod(52, self.seats)
        if deal.get("stacks") != [each] * self.seats:
            say(f"each of {self.seats} seats is dealt {each} cards, got stacks {deal.get('stacks')}")
        spares = deal.get("spares")
        if not isinstance(spares, list) or len(spares) != spare:
            raise _Bad(f"{self.seats} seats leave {spare} spare cards, got {spares!r}")
        for code in spares:
            if code not in CARDS:
                raise _Bad(f"spare {code!r} is not a card")
        if len(set(spares)) != len(spares):
            say(f"a spare card appears twice: {spares}")
        self.pile: list[str] = list(spares)
        self.stacks = [each] * self.seats
        self.collected = [0] * self.seats
        self.unseen = set(CARDS) - set(spares)  # somewhere in the dealt stacks
        self.dealt_stack = [True] * self.seats  # still the stack it was dealt?
        self.stack_cards: list[set[str]] = [set() for _ in range(self.seats)]
        self.collected_cards: list[set[str]] = [set() for _ in range(self.seats)]
        self.seats_in = list(range(self.seats))
        self.expected = 0  # whose card comes next
        self.n = 0
        self.after_capture = False
        self.must_go_out: int | None = None
        self.must_reveal: int | None = None  # after a reshuffle
        self.ended = False
        self.stop_now = False  # the cap is reached or one seat is left: only the end may follow

    # ----- helpers -------------------------------------------------------------------------------

    def _next_in(self, after: int) -> int:
        later = [seat for seat in self.seats_in if seat > after]
        return later[0] if later else self.seats_in[0]

    def _seat(self, value: Any) -> int:
        if type(value) is not int or not 0 <= value < self.seats:
            raise _Bad(f"seat {value!r} is not a seat of this {self.seats}-seat game")
        return value

    def _counts(self, event: dict[str, Any], name: str, expected: list[int]) -> None:
        value = event.get(name)
        if value != expected:
            self.say(f"{name} should be {expected}, got {value}")

    # ----- events ----------------------------------------------------------------------------------

    def before(self, kind: str) -> None:
        """What the previous event obliges the next one to be."""
        if self.ended:
            raise _Bad(f"{kind} after the end of the game")
        if self.must_go_out is not None and kind != "out":
            self.say(f"seat {self.must_go_out} missed with its last card and nothing collected: "
                     f"it should go out, got {kind}")
            self._remove(self.must_go_out)
        if self.must_reveal is not None and kind != "reveal":
            self.say(f"a reshuffle must be followed by that seat's reveal, got {kind}")
            self.must_reveal = None

    def _remove(self, seat: int) -> None:
        self.must_go_out = None
        if seat in self.seats_in:
            self.seats_in.remove(seat)
        if self.seats_in:
            self.expected = self._next_in(seat)

    def reshuffle(self, event: dict[str, Any]) -> None:
        seat = self._seat(event.get("seat"))
        if seat != self.expected:
            self.say(f"seat {seat} reshuffled but it is seat {self.expected}'s card")
        if self.stacks[seat] != 0:
            self.say(f"seat {seat} reshuffled with {self.stacks[seat]} cards still in its stack")
        cards = event.get("cards")
        if cards != self.collected[seat] or not cards:
            self.say(f"seat {seat} has {self.collected[seat]} collected cards to reshuffle, "
                     f"the log says {cards}")
        self.stack_cards[seat] = self.collected_cards[seat]
        self.collected_cards[seat] = set()
        self.dealt_stack[seat] = False
        self.stacks[seat] = self.collected[seat]
        self.collected[seat] = 0
        self.must_reveal = seat

    def reveal(self, event: dict[str, Any]) -> None:
        n = event.get("n")
        if n != self.n + 1:
            self.say(f"reveal n should be {self.n + 1}, got {n}")
        self.n += 1
        if self.n > self.cap:
            self.say(f"reveal {self.n} is past the cap of {self.cap}")
        if len(self.seats_in) < 2:
            self.say("a reveal after only one seat is left")
        seat = self._seat(event.get("seat"))
        if self.must_reveal is not None and seat != self.must_reveal:
            self.say(f"seat {self.must_reveal} reshuffled but seat {seat} revealed")
        self.must_reveal = None
        if seat != self.expected:
            self.say(f"it is seat {self.expected}'s card, not seat {seat}'s")
        if seat not in self.seats_in:
            self.say(f"seat {seat} is out and cannot reveal")
        if self.stacks[seat] <= 0:
            self.say(f"seat {seat} revealed from an empty stack (no reshuffle)")
        card = event.get("card")
        if card not in CARDS:
            raise _Bad(f"card {card!r} is not a card")
        self._take_from_stack(seat, card)
        under = event.get("under")
        expected_under = None if self.after_capture or not self.pile else self.pile[-1]
        if under != expected_under:
            self.say(f"{card} landed on {expected_under or 'an empty pile'}, "
                     f"the log says under {under}")
        top = expected_under
        match = top is not None and top[-1] == card[-1]
        if event.get("match") is not match:
            self.say(f"{card} on {top or 'an empty pile'} is {'a match' if match else 'a miss'}, "
                     f"the log says match {event.get('match')}")
        self.stacks[seat] -= 1
        if match:
            moved = len(self.pile) + 1
            self.collected_cards[seat].update(self.pile)
            self.collected_cards[seat].add(card)
            self.collected[seat] += moved
            self.pile = []
        else:
            moved = 0
            self.pile.append(card)
        if event.get("moved") != moved:
            self.say(f"moved should be {moved}, got {event.get('moved')}")
        self._counts(event, "stacks", self.stacks)
        self._counts(event, "collected", self.collected)
        if event.get("pile") != len(self.pile):
            self.say(f"pile should be {len(self.pile)}, got {event.get('pile')}")
        counted = [event.get("stacks"), event.get("collected"), event.get("pile")]
        try:
            total = sum(counted[0]) + sum(counted[1]) + counted[2]  # type: ignore[arg-type]
        except TypeError:
            total = None
        if total != 52:
            self.say(f"stacks + collected + pile should be 52, the log's counts make {total}")
        self.after_capture = match
        if match:
            self.expected = seat
        elif self.stacks[seat] == 0 and self.collected[seat] == 0:
            self.must_go_out = seat
        else:
            self.expected = self._next_in(seat)

    def _take_from_stack(self, seat: int, card: str) -> None:
        if self.dealt_stack[seat]:
            if card not in self.unseen:
                self.say(f"{card} cannot come from seat {seat}'s dealt stack: it was seen before")
            self.unseen.discard(card)
        else:
            if card not in self.stack_cards[seat]:
                self.say(f"{card} is not among the cards seat {seat} reshuffled into its stack")
            self.stack_cards[seat].discard(card)

    def out(self, event: dict[str, Any]) -> None:
        seat = self._seat(event.get("seat"))
        if self.must_go_out != seat:
            self.say(f"seat {seat} went out but it still has cards "
                     f"(stack {self.stacks[seat]}, collected {self.collected[seat]}) "
                     "or did not just miss")
        self._remove(seat)

    def end(self, event: dict[str, Any]) -> None:
        self.ended = True
        if event.get("reveals") != self.n:
            self.say(f"the game had {self.n} reveals, the end says {event.get('reveals')}")
        held = [s + c for s, c in zip(self.stacks, self.collected, strict=True)]
        if event.get("cards") != held:
            self.say(f"cards held should be {held}, got {event.get('cards')}")
        reason, winners = event.get("reason"), event.get("winners")
        if len(self.seats_in) == 1:
            expected_reason, expected_winners = "last seat", list(self.seats_in)
        elif self.n >= self.cap:
            most = max(held)
            expected_reason = "cap"
            expected_winners = [seat for seat, count in enumerate(held) if count == most]
        else:
            self.say(f"the game ended after {self.n} reveals with seats {self.seats_in} still "
                     f"in and the cap ({self.cap}) not reached")
            return
        if reason != expected_reason:
            self.say(f"the end reason should be {expected_reason!r}, got {reason!r}")
        if winners != expected_winners:
            self.say(f"the winners should be {expected_winners}, got {winners}")

    def after(self) -> None:
        """Nothing may follow the reveal that reaches the cap or leaves one seat, but the end."""
        if self.must_go_out is None and not self.ended and self.must_reveal is None and (
            self.n >= self.cap or len(self.seats_in) == 1
        ):
            self.stop_now = True


def _hidden_card_lists(value: Any, path: str) -> list[str]:
    """Paths of lists holding card codes, at any depth."""
    found = []
    if isinstance(value, list):
        if any(isinstance(item, str) and item in CARDS for item in value):
            found.append(path)
        for index, item in enumerate(value):
            found += _hidden_card_lists(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += _hidden_card_lists(item, f"{path}.{key}")
    return found


def check_lines(lines: Iterable[str | bytes], cap: int = DEFAULT_CAP) -> Report:
    """Replay every game of a log and report each rule it breaks."""
    report = Report()
    game: _Replay | None = None
    expected_number = 0
    line_no = 0
    current = {"number": None}

    def say(message: str) -> None:
        report.violations.append(f"line {line_no} (game {current['number']}): {message}")

    for line_no, raw in enumerate(lines, start=1):  # noqa: B007 (read by say)
        text = raw.decode() if isinstance(raw, bytes) else raw
        if not text.strip():
            say("empty line")
            continue
        try:
            event = json.loads(text)
        except ValueError as error:
            say(f"not JSON: {error}")
            continue
        if not isinstance(event, dict) or "event" not in event or "game" not in event:
            say("every line is an object with 'event' and 'game'")
            continue
        kind, number = event["event"], event["game"]
        current["number"] = number
        if type(number) is not int:
            say(f"game must be an integer, got {number!r}")
            continue
        for path in _hidden_card_lists(event, kind):
            if path != "deal.spares":
                say(f"{path} lists cards: hidden information must never be in the log")
        for name in FIELDS.get(kind, ()):
            if name not in event:
                say(f"a {kind} event needs {name!r}")
        try:
            if kind == "deal":
                if game is not None and not game.ended:
                    say(f"a new deal before game {game.number} ended")
                if number != expected_number:
                    say(f"games are numbered in order: expected game {expected_number}, "
                        f"got {number}")
                expected_number = number + 1
                game = _Replay(number, cap, event, say)
                report.games += 1
                continue
            if game is None:
                say(f"{kind} before any deal")
                continue
            if number != game.number:
                say(f"{kind} says game {number} inside game {game.number}")
            if game.stop_now and kind != "end":
                say(f"{kind} after the game should have ended (cap reached or one seat left)")
            game.before(kind)
            if kind == "reveal":
                game.reveal(event)
                report.reveals += 1
            elif kind == "reshuffle":
                game.reshuffle(event)
            elif kind == "out":
                game.out(event)
            elif kind == "end":
                game.end(event)
            game.after()
        except _Bad as problem:
            say(str(problem))
            if game is not None and kind == "deal":
                game = None
    if game is not None and not game.ended:
        line_no += 1
        say(f"the log stops before game {game.number} ended")
    elif game is None and report.games == 0:
        say("no game in the log")
    return report


def check_file(path: str | Path, cap: int = DEFAULT_CAP) -> Report:
    with open(path, encoding="utf-8") as lines:
        return check_lines(lines, cap)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a Rang Milanti JSON Lines log.")
    parser.add_argument("log", help="the log to check")
    parser.add_argument("--cap", type=int, default=DEFAULT_CAP, help="the reveal cap it was played to")
    args = parser.parse_args(argv)
    report = check_file(args.log, args.cap)
    for violation in report.violations:
        print(violation)
    print(f"{report.games} games, {report.reveals} reveals, {len(report.violations)} violations",
          file=sys.stderr)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
