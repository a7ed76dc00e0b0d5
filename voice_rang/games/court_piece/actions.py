"""What a seat may do, and why the engine refuses what it may not.

Actions are small frozen values: a person's key, a spoken card, a computer seat and a
guest on the network all hand the engine the same ``PlayCard``. A refusal is a
:class:`Refused` exception carrying a :class:`Refusal`: its ``reason`` is one of a closed
set, with the suit, card or seat the sentence needs, so the table can say exactly what
is wrong ("you must follow hearts") in any language.

>>> PlayCard(Card("QH")) == PlayCard(Card("QH"))
True
>>> Refusal(Reason.MUST_FOLLOW, suit=Suit.HEARTS).reason.value
'must follow'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from ...cards import Card, Suit

__all__ = [
    "Action",
    "AskRedeal",
    "DeclineTrumpCard",
    "NameTrump",
    "PlayCard",
    "Reason",
    "Refusal",
    "Refused",
    "RevealTrump",
    "SetTrumpCard",
    "TrumpLater",
    "action_from_data",
    "action_to_data",
    "command_of",
]


@dataclass(frozen=True, slots=True)
class NameTrump:
    """The trump caller names the trump suit aloud."""

    suit: Suit


@dataclass(frozen=True, slots=True)
class SetTrumpCard:
    """The trump caller sets one of its first five apart (face up, or face down when trumps are hidden)."""

    card: Card


@dataclass(frozen=True, slots=True)
class DeclineTrumpCard:
    """Trump by card: the caller does not choose; a card of its second batch, turned at random, decides."""


@dataclass(frozen=True, slots=True)
class TrumpLater:
    """Double Sir: the suit of the caller's 7th or 10th card will be trumps."""

    position: Literal[7, 10]


@dataclass(frozen=True, slots=True)
class AskRedeal:
    """The caller's first five are all below the jack: it asks the dealer to deal again."""


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card to the trick; ``face_down`` only for Hidden Rung's caller who cannot follow."""

    card: Card
    face_down: bool = False


@dataclass(frozen=True, slots=True)
class RevealTrump:
    """Hidden trump: a seat that cannot follow asks for it, or the caller shows it (on lead, or unable to follow)."""


Action = NameTrump | SetTrumpCard | DeclineTrumpCard | TrumpLater | AskRedeal | PlayCard | RevealTrump


class Reason(enum.Enum):
    """Why an action was refused; each has its own sentence at the table."""

    GAME_OVER = "game over"
    NOT_YOUR_TURN = "not your turn"
    CHOOSE_TRUMPS_FIRST = "choose trumps first"
    NOT_CHOOSING_TRUMPS = "not choosing trumps"
    NOT_HELD = "not held"
    NOT_IN_FIRST_FIVE = "not in first five"
    MUST_FOLLOW = "must follow"
    MUST_TRUMP = "must trump"
    MUST_LEAD_TRUMP = "must lead trump"
    TRUMP_CARD_SET_APART = "trump card set apart"
    NO_HIDDEN_TRUMP = "no hidden trump"
    CAN_FOLLOW = "can follow"
    ONLY_CALLER_ON_LEAD = "only caller on lead"
    FACE_DOWN_NOT_ALLOWED = "face down not allowed"
    MUST_REVEAL_OR_FACE_DOWN = "must reveal or face down"
    REDEAL_NOT_ALLOWED = "redeal not allowed"
    NOT_THIS_VARIANT = "not this variant"


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused action: the reason and what the sentence names (the suit to follow, the card, whose turn)."""

    reason: Reason
    suit: Suit | None = None
    card: Card | None = None
    seat: int | None = None


class Refused(Exception):
    """Raised by the engine for an action it will not take; the game is unchanged."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.reason.value)
        self.refusal = refusal


def action_to_data(action: Action) -> dict[str, object]:
    """An action as plain JSON data, for a save.

    >>> action_to_data(PlayCard(Card("QH"), face_down=True))
    {'play': 'QH', 'face_down': True}
    >>> action_from_data(action_to_data(TrumpLater(10))) == TrumpLater(10)
    True
    """
    if isinstance(action, PlayCard):
        return {"play": action.card.code, "face_down": action.face_down}
    if isinstance(action, NameTrump):
        return {"name": action.suit.value}
    if isinstance(action, SetTrumpCard):
        return {"set": action.card.code}
    if isinstance(action, TrumpLater):
        return {"later": action.position}
    if isinstance(action, DeclineTrumpCard):
        return {"decline": True}
    if isinstance(action, AskRedeal):
        return {"redeal": True}
    return {"reveal": True}


def action_from_data(data: dict[str, object]) -> Action:
    """:func:`action_to_data` read back; ``ValueError`` for anything else."""
    if "play" in data:
        return PlayCard(Card(str(data["play"])), face_down=data.get("face_down") is True)
    if "name" in data:
        return NameTrump(Suit(str(data["name"])))
    if "set" in data:
        return SetTrumpCard(Card(str(data["set"])))
    if "later" in data:
        position = data["later"]
        if position not in (7, 10):
            raise ValueError(f"a later trump card is the 7th or 10th, not {position!r}")
        return TrumpLater(7 if position == 7 else 10)
    for key, action in (("decline", DeclineTrumpCard()), ("redeal", AskRedeal()), ("reveal", RevealTrump())):
        if data.get(key) is True:
            return action
    raise ValueError(f"not an action: {data!r}")


def command_of(action: Action) -> str:
    """The command that makes ``action`` at the table (what a page's button sends, and what the
    voice hears a move as).

    >>> from voice_rang.cards import Card, Suit
    >>> command_of(NameTrump(Suit.HEARTS)), command_of(SetTrumpCard(Card("QS")))
    ('name H', 'set QS')
    >>> command_of(PlayCard(Card("10C"))), command_of(PlayCard(Card("QH"), face_down=True))
    ('play 10C', 'QH face down')
    """
    if isinstance(action, NameTrump):
        return f"name {action.suit.value}"
    if isinstance(action, SetTrumpCard):
        return f"set {action.card.code}"
    if isinstance(action, TrumpLater):
        return f"later {action.position}"
    if isinstance(action, PlayCard):
        return f"{action.card.code} face down" if action.face_down else f"play {action.card.code}"
    if isinstance(action, RevealTrump):
        return "reveal"
    if isinstance(action, AskRedeal):
        return "redeal"
    assert isinstance(action, DeclineTrumpCard)
    return "decline"
