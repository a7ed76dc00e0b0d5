"""What a player may say on their turn, by the command each phrase makes: the voice decides among
these only.

Receives: the seat's :class:`.view.SeatView`. Emits: ``{command: Spoken}``, one entry per legal
action, by the command that makes it at the table (:func:`.actions.command_of`: ``play QH``,
``QH face down``, ``name H``, ``set QH``, ``reveal``, ``redeal``, ``decline``, ``later 7``), each
with the English phrases that mean it now (the speech model listens in English): the card's full
name always, the rank alone ("queen": with two queens legal, both have it, and the game asks
which), "lowest heart", "highest spade", "trump". Each also says whether playing it deserves a
question first (:class:`Caution`), so that a misheard word never trumps a partner's winning
trick, plays the last trump or reveals a hidden trump unasked.

The game's own questions (``hand``, ``trick``, ``hint``...) and the table's commands are the
command words' business (``prompts``); this module is only about moves.

>>> from random import Random
>>> from .rules import Rules
>>> from .session import Session
>>> session = Session(Rules(), Random(3))
>>> _ = session.start()
>>> view = session.view(session.to_act)
>>> sorted(spoken_moves(view))[:2], spoken_moves(view)["name H"].phrases[0]
(['name C', 'name D'], 'Hearts are trumps')
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...cards import Card, Rank, Suit
from .actions import (
    Action,
    AskRedeal,
    DeclineTrumpCard,
    NameTrump,
    PlayCard,
    RevealTrump,
    SetTrumpCard,
    TrumpLater,
    command_of,
)
from .deck import CARD_INDEX, CARD_OF, POWER_OF, SUIT_MASKS, SUITS
from .view import Phase, SeatView, trick_leader_so_far

__all__ = ["Caution", "Spoken", "card_phrases", "card_words", "deck_words", "every_phrase", "said_as", "spoken_moves"]

RANK_WORDS = {Rank(1): "ace", Rank(11): "jack", Rank(12): "queen", Rank(13): "king"}
NUMBER_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
SUIT_WORDS = {Suit.CLUBS: ("clubs", "club"), Suit.DIAMONDS: ("diamonds", "diamond"),
              Suit.HEARTS: ("hearts", "heart"), Suit.SPADES: ("spades", "spade")}


class Caution(enum.Enum):
    """Why a move is asked about before it is made, even when it was heard clearly."""

    PARTNER = "partner"
    """Trumping a trick the partner is already winning."""
    LAST_TRUMP = "last_trump"
    """Playing the last trump in the hand."""
    REVEAL = "reveal"
    """Revealing (or asking for) a hidden trump: nobody can take it back."""


@dataclass(frozen=True)
class Spoken:
    """One legal move as it may be said."""

    phrases: tuple[str, ...]
    """English, written as a sentence begins ("Queen of hearts"), most usual first."""
    card: Card | None = None
    caution: Caution | None = None
    words: tuple[tuple[str, ...], ...] = ()
    """The player's own card words that say it, by their codes (``(("Q", "H"),)``: the queen's word
    and the heart's, in either order; ``(("H",),)`` for hearts called as trumps), for a player who
    taught the game their words (``enroll --cards``, in any language); empty for a move said
    otherwise ("reveal")."""


def _rank_words(rank: Rank) -> tuple[str, ...]:
    """A rank as it is said and as a speech model may write it: "ten" and "10"."""
    if rank in RANK_WORDS:
        return (RANK_WORDS[rank],)
    number = int(rank)
    return (NUMBER_WORDS[number - 2], str(number))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def card_phrases(card: Card) -> tuple[str, ...]:
    """Ways to say ``card`` in full.

    >>> card_phrases(Card("10C"))
    ('Ten of clubs', 'The ten of clubs', '10 of clubs', 'The 10 of clubs')
    """
    suit = SUIT_WORDS[card.suit][0]
    return tuple(text for rank in _rank_words(card.rank)
                 for text in (f"{_capital(rank)} of {suit}", f"The {rank} of {suit}"))


_FIXED = {
    "reveal": ("Show the trump", "Reveal the trump", "Ask for the trump", "Show trump", "Reveal trump"),
    "redeal": ("Redeal", "New deal"),
    "decline": ("No card", "Decline", "Turn a card"),
    "later 7": ("Seventh card", "The seventh card", "Seventh"),
    "later 10": ("Tenth card", "The tenth card", "Tenth"),
}


def spoken_moves(view: SeatView) -> dict[str, Spoken]:
    """Every legal move of ``view``'s seat with the phrases that mean it (nothing when it is not
    that seat's turn)."""
    said = said_as(view.legal, view.trump)
    return {key: replace(spoken, caution=_caution(view, key, spoken.card)) for key, spoken in said.items()}


def said_as(legal: Sequence[Action], trump: int = -1) -> dict[str, Spoken]:
    """``legal`` moves (one seat's, all of one phase) with the phrases that mean them, given the
    trump suit known to all (``trump``: 0..3, -1 for none), without cautions (those need the
    whole view: :func:`spoken_moves`).

    >>> moves = said_as([PlayCard(Card("QH")), PlayCard(Card("QS")), PlayCard(Card("4S"))], trump=3)
    >>> [p for p in ("Lowest spade", "Highest spade", "Trump", "Four") if p in moves["play 4S"].phrases]
    ['Lowest spade', 'Trump', 'Four']
    >>> "Queen" in moves["play QH"].phrases and "Queen" in moves["play QS"].phrases   # asked between
    True
    """
    moves: dict[str, list[str]] = {}
    cards: dict[str, Card] = {}
    words: dict[str, tuple[tuple[str, ...], ...]] = {}
    playing: list[int] = []
    face_down = False
    for action in legal:
        key = command_of(action)
        if isinstance(action, (PlayCard, SetTrumpCard)):
            moves[key] = list(card_phrases(action.card))
            cards[key] = action.card
            words[key] = (card_words(action.card),)
            if isinstance(action, PlayCard):
                playing.append(CARD_INDEX[action.card])
                face_down = face_down or action.face_down
        elif isinstance(action, NameTrump):
            suit = _capital(SUIT_WORDS[action.suit][0])
            moves[key] = [f"{suit} are trumps", f"{suit} trumps", suit]
            words[key] = ((action.suit.value,),)
        else:
            moves[key] = list(_FIXED.get(key, ()))
    if playing:
        _add_choices(sorted(playing), trump, face_down, moves)
    return {key: Spoken(tuple(dict.fromkeys(phrases)), cards.get(key), words=words.get(key, ()))
            for key, phrases in moves.items()}


def card_words(card: Card) -> tuple[str, str]:
    """The codes of a card's two words, rank then suit.

    >>> card_words(Card("10C"))
    ('10', 'C')
    """
    return (card.code[:-1], card.code[-1])


def deck_words() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Every card of the deck by its words: what any card would cost, next to which the card
    heard must stand out (:meth:`voice_rang.listen.card_words.CardWords.match`'s cohort)."""
    return {f"play {card.code}": (card_words(card),) for card in CARD_OF}


def _add_choices(legal: list[int], trump: int, face_down: bool, moves: dict[str, list[str]]) -> None:
    """The short ways to say a card: its rank alone, the lowest and highest of its suit, a trump
    (the lowest). Never "the highest" without a suit: heard without its last word, "the highest
    club" would be the highest card of all, a different card said with confidence."""

    def add(index: int, *phrases: str) -> None:
        moves[command_of(PlayCard(CARD_OF[index], face_down=face_down))].extend(phrases)

    by_rank: dict[Rank, list[int]] = {}
    for index in legal:
        by_rank.setdefault(CARD_OF[index].rank, []).append(index)
    for rank, held in by_rank.items():
        # Said of every card of its rank: one such card, and "the queen" is it; two, and the
        # game asks "the queen of hearts or the queen of spades?" (the two score alike).
        for index in held:
            for word in _rank_words(rank):
                add(index, _capital(word), f"The {word}")

    def by_power(indexes: list[int]) -> list[int]:
        return sorted(indexes, key=lambda index: (POWER_OF[index], index))

    for suit_index, suit in enumerate(SUITS):
        of_suit = by_power([index for index in legal if SUIT_MASKS[suit_index] >> index & 1])
        if not of_suit:
            continue
        plural, single = SUIT_WORDS[suit]
        add(of_suit[0], f"Lowest {single}", f"Lowest {plural}", f"The lowest {single}")
        add(of_suit[-1], f"Highest {single}", f"Highest {plural}", f"The highest {single}")
        if suit_index == trump:
            add(of_suit[0], "Trump", "A trump")


def _caution(view: SeatView, key: str, card: Card | None) -> Caution | None:
    """Whether the move ``key`` protects the player by being asked about first."""
    if key == "reveal":
        return Caution.REVEAL
    if card is None or view.phase is not Phase.PLAY or view.trump < 0 or not key.startswith("play "):
        return None
    index = CARD_INDEX[card]
    if index // 13 != view.trump:
        return None
    trumps_held = view.hand_mask & SUIT_MASKS[view.trump]
    led = view.led_suit
    if led >= 0 and led != view.trump:
        winning = trick_leader_so_far(view.current, view.trump)
        if winning >= 0 and view.current[winning].seat == view.partner:
            return Caution.PARTNER
    if trumps_held == 1 << index:
        return Caution.LAST_TRUMP
    return None


def every_phrase() -> tuple[str, ...]:
    """Every phrase :func:`spoken_moves` can give, in any position (the listener builds its
    endpointer's grammar from these once): :func:`said_as` of every card with each suit trumps,
    of every suit named, and of the moves said in fixed words.

    >>> phrases = every_phrase()
    >>> "Queen of hearts" in phrases and "The lowest spade" in phrases and "Hearts are trumps" in phrases
    True
    """
    plays = [PlayCard(card) for card in CARD_OF]
    each = [said_as(plays, trump) for trump in range(len(SUITS))]
    each.append(said_as([NameTrump(suit) for suit in SUITS]))
    each.append(said_as([RevealTrump(), AskRedeal(), DeclineTrumpCard(), TrumpLater(7), TrumpLater(10)]))
    return tuple(dict.fromkeys(phrase for moves in each for spoken in moves.values() for phrase in spoken.phrases))
