"""The press-play demo of Court Piece: one stacked deal, played for you, told one move at a time with a
lesson the first time each kind of moment shows up (calling trumps, following suit, a void, trumping,
a court). Pure: it only builds messages; ``voice-rang demo court-piece`` paces them.

The deck below was picked by search among shuffled decks for a deal where you call trumps and your
team takes a court, with a void and a trump on the way; every seat plays by :func:`demo_choice`, a
plain habit written here so that the demo never changes when the computer players get better.

>>> from voice_rang.prompts import load_game_prompts
>>> from voice_rang.narration import Narrator
>>> prompts, _ = load_game_prompts("en", "court-piece")
>>> steps = demo_steps(Narrator(prompts=prompts, seats=4, partners=True))
>>> lessons = [m.text for step in steps for m in step if m.kind == "lesson"]
>>> len(lessons) >= 6 and lessons[-1].startswith("That is a deal")
True
"""

from __future__ import annotations

from random import Random

from ...cards import Card
from ...messages import Message, Priority
from ...narration import Narrator
from .actions import Action, NameTrump, PlayCard
from .deck import CARD_OF, POWER_OF, SUIT_MASKS, SUITS, bits
from .events import CardPlayed, DealEnded, TrickWon, TrumpChosen
from .narration import CourtPieceNarration
from .rules import Rules
from .seat_events import SeatFeed
from .session import Session
from .view import Phase, SeatView, trick_leader_so_far

__all__ = ["DEMO_DECK", "demo_choice", "demo_session", "demo_steps"]

DEMO_DECK = (
    "4H", "7D", "4S", "KS", "6H", "2D", "5H", "JD", "9H", "4D", "10S", "3C", "3D",
    "9S", "10H", "QS", "2H", "QH", "7S", "2S", "JC", "7H", "QD", "AD", "5S", "6D",
    "QC", "8H", "JH", "KD", "AC", "AH", "2C", "6C", "9D", "7C", "6S", "JS", "KC",
    "AS", "8C", "5D", "10C", "8D", "3S", "5C", "3H", "KH", "9C", "10D", "4C", "8S",
)
DEALER = 3
"""The seat to your left deals, so you (seat 0) call trumps."""


def demo_session() -> Session:
    return Session(Rules.make(), Random(1), players=("normal",) * 4, dealer=DEALER,
                   decks=[[Card(code) for code in DEMO_DECK]])


def demo_choice(view: SeatView) -> Action:
    """The demo's habit: trumps are the longest suit of the first five; lead the highest card; follow
    with the cheapest card that wins, else the lowest; with none of the suit led, trump low, else
    throw the lowest card."""
    if view.phase is Phase.TRUMP:
        longest = max(range(4), key=lambda suit: (bin(view.hand_mask & SUIT_MASKS[suit]).count("1"), suit))
        return NameTrump(SUITS[longest])
    legal = bits(view.legal_mask)
    by_power = sorted(legal, key=lambda index: (POWER_OF[index], index))
    if not view.current:
        return PlayCard(CARD_OF[by_power[-1]])
    led = view.led_suit
    if any(index // 13 == led for index in legal):
        best = trick_leader_so_far(view.current, view.trump)
        beaten = view.current[best].card if best >= 0 else -1
        winners = [i for i in by_power if beaten >= 0 and beaten // 13 == led and POWER_OF[i] > POWER_OF[beaten]]
        return PlayCard(CARD_OF[(winners or by_power)[0]])
    trumps = [i for i in by_power if view.trump >= 0 and i // 13 == view.trump]
    return PlayCard(CARD_OF[(trumps or by_power)[0]])


def _lesson(narration: CourtPieceNarration, key: str) -> Message:
    return narration.say(f"demo.{key}", None, Priority.NORMAL, "lesson")


def demo_steps(narrator: Narrator) -> list[list[Message]]:
    """The demo as steps: the introduction and the deal, then one step per move; the end's lesson last."""
    narrator.partners = True
    narrator.listener = 0
    session = demo_session()
    narration = CourtPieceNarration(narrator, session.rules)
    feed = SeatFeed(0)
    taught: set[str] = set()
    opening = [_lesson(narration, "intro"), *narration.events(feed.take(session.start(), session.view(0)))]
    steps = [opening]
    led = None
    while session.to_act is not None and session.deal_number == 1:
        seat = session.to_act
        events = session.apply(seat, demo_choice(session.view(seat)))
        ended = next((n for n, event in enumerate(events) if isinstance(event, DealEnded)), None)
        if ended is not None:
            events = events[: ended + 1]  # the demo is one deal: the next one is not told
        step = narration.events(feed.take(events, session.view(0)))
        for event in events:
            if isinstance(event, CardPlayed):
                if led is None:
                    lesson = "teach_lead"
                    led = event.card.suit
                elif event.card.suit is led:
                    lesson = "teach_follow"
                elif narration.trump is not None and event.card.suit is narration.trump:
                    lesson = "teach_trump_in"
                else:
                    lesson = "teach_void"
            elif isinstance(event, TrumpChosen):
                lesson = "teach_trumps"
            elif isinstance(event, DealEnded):
                lesson = "teach_court" if event.kind != "win" else "teach_win"
            else:
                lesson = ""
            if isinstance(event, TrickWon):
                led = None
            if lesson and lesson not in taught:
                taught.add(lesson)
                step.append(_lesson(narration, lesson))
        steps.append(step)
    steps[-1].append(_lesson(narration, "teach_end"))
    return steps
