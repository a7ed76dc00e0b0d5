"""Typed (and, later, heard) Court Piece phrases into command ids: "queen of hearts" is ``play QH``.

A card can be said as people say it ("the queen of hearts", "queen hearts", "QH", in the game's
language or in English); a choice among the cards that can be played as "lowest heart",
"highest", "trump" or a rank alone ("the queen", which the game settles if only one queen can be
played). The words come from the prompts files (``[patterns]`` and ``[words]`` of the game's
file, the card words of the table's), so a new language is a new file.

>>> from voice_rang.prompts import load_game_prompts
>>> prompts, words = load_game_prompts("en", "court-piece")
>>> phrases = Phrases.build(prompts, words)
>>> [phrases.parse(text) for text in ("Queen of hearts", "10c", "lowest heart", "hearts are trumps", "hand")]
['play QH', 'play 10C', 'lowest H', 'name H', None]
>>> phrases.parse("the king of spades face down"), phrases.parse("king"), phrases.parse("dance") is None
('down KS', 'rank K', True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...cards import Card, Rank, Suit
from ...commands import normalize
from ...prompts import GameWords, Prompts

__all__ = ["Phrases"]

_ENGLISH_RANKS = ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
                  "queen", "king")
_ENGLISH_SUITS = {Suit.CLUBS: "clubs", Suit.DIAMONDS: "diamonds", Suit.HEARTS: "hearts", Suit.SPADES: "spades"}
_KINDS = {"play": "play", "face down": "down", "name": "name", "set": "set", "lowest": "lowest",
          "highest": "highest", "rank": "rank", "trump": "trump", "gone": "gone", "suit": "suit"}
"""A pattern's name and the command it makes: ``lowest {suit}`` gives ``lowest H``."""


@dataclass(frozen=True)
class Phrases:
    """The phrases of one language; :meth:`parse` reads one line."""

    ranks: dict[str, Rank]
    suits: dict[str, Suit]
    fillers: frozenset[str]
    cards: dict[str, Card]
    """Each card as the language says it in full ("হরতনের বিবি", "the queen of hearts")."""
    patterns: tuple[tuple[str, re.Pattern[str]], ...]

    @classmethod
    def build(cls, prompts: Prompts, words: GameWords) -> Phrases:
        card_words: dict[str, Any] = prompts.messages["words"]
        ranks: dict[str, Rank] = {}
        for number, (own, english) in enumerate(zip(card_words["ranks"], _ENGLISH_RANKS, strict=True), start=1):
            rank = Rank(number)
            for word in (own, english, *words.words.get("ranks_extra", [[]] * 13)[number - 1]):
                ranks.setdefault(normalize(str(word)), rank)
        suits: dict[str, Suit] = {}
        extra_suits = words.words.get("suits_extra", {})
        for suit in Suit:
            for word in (card_words["suits"][suit.value], _ENGLISH_SUITS[suit], *extra_suits.get(suit.value, [])):
                suits.setdefault(normalize(str(word)), suit)
        fillers = frozenset(normalize(str(word)) for word in words.words.get("fillers", []))
        cards: dict[str, Card] = {}
        for template in (str(card_words["card"]), "the {rank} of {suit}"):
            for card in Card:
                for rank_word, suit_word in ((card_words["ranks"][card.rank - 1], card_words["suits"][card.suit.value]),
                                             (_ENGLISH_RANKS[card.rank - 1], _ENGLISH_SUITS[card.suit])):
                    phrase = normalize(template.format(rank=rank_word, suit=suit_word))
                    cards.setdefault(phrase, card)
                    cards.setdefault(" ".join(w for w in phrase.split() if w not in fillers), card)
        patterns: list[tuple[str, re.Pattern[str]]] = []
        for name, phrases in words.patterns.items():
            kind = _KINDS.get(name)
            if kind is None:
                continue
            for phrase in phrases:
                patterns.append((kind, _compile(phrase)))
        return cls(ranks, suits, fillers, cards, tuple(patterns))

    def card(self, text: str) -> Card | None:
        """A card named in words or by its code, or None.

        Filler words ("the", "of") may stand anywhere; the rank comes before the suit.
        """
        said = normalize(text)
        whole = self.cards.get(said)
        if whole is not None:
            return whole
        words = [word for word in said.split() if word not in self.fillers]
        whole = self.cards.get(" ".join(words))
        if whole is not None:
            return whole
        if len(words) == 1:
            try:
                return Card(words[0].upper())
            except ValueError:
                return None
        for split in range(1, len(words)):
            first, second = " ".join(words[:split]), " ".join(words[split:])
            for rank, suit in ((self.ranks.get(first), self.suits.get(second)),
                               (self.ranks.get(second), self.suits.get(first))):
                if rank is not None and suit is not None:
                    return Card(rank.code + suit.value)
        return None

    def suit(self, text: str) -> Suit | None:
        words = [word for word in normalize(text).split() if word not in self.fillers]
        return self.suits.get(" ".join(words))

    def rank(self, text: str) -> Rank | None:
        words = [word for word in normalize(text).split() if word not in self.fillers]
        return self.ranks.get(" ".join(words))

    def parse(self, text: str) -> str | None:
        """The command a line means (``play QH``, ``lowest H``, ``name S``, ``rank Q`` …), or None."""
        line = normalize(text)
        for kind, pattern in self.patterns:
            match = pattern.fullmatch(line)
            if match is None:
                continue
            found = self._fill(kind, match.groupdict())
            if found is not None:
                return found
        return None

    def _fill(self, kind: str, groups: dict[str, str]) -> str | None:
        if "card" in groups:
            card = self.card(groups["card"])
            return None if card is None else f"{kind} {card.code}"
        if "suit" in groups:
            suit = self.suit(groups["suit"])
            return None if suit is None else f"{kind} {suit.value}"
        if "rank" in groups:
            rank = self.rank(groups["rank"])
            return None if rank is None else f"{kind} {rank.code}"
        return kind


def _compile(phrase: str) -> re.Pattern[str]:
    """A pattern phrase as a regular expression over a normalised line (words one space apart)."""
    pieces = []
    for part in re.split(r"(\{card\}|\{suit\}|\{rank\})", phrase):
        if part in ("{card}", "{suit}", "{rank}"):
            pieces.append(f"(?P<{part[1:-1]}>.+?)")
        elif normalize(part):
            pieces.append(re.escape(normalize(part)))
    return re.compile(" ".join(pieces))
