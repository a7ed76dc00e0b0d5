"""One deal with every hand known, played to its end fast: the strong bot's imagined worlds.

A :class:`Deal` is a guess at the whole table (from :mod:`.sampling`), carried on from the
moment of the decision under the same rules as the engine (plain Court Piece's end at seven
tricks and its courts, the Double Sir games' centre, hidden trumps and their reveal, Hidden
Rung's face-down plays, Be-ranga's trumps set by the first seat that cannot follow). It is
not the engine: it keeps only what decides the deal, as a few ints, because the search plays
thousands of these a decision.

Every seat in a play-out plays the same quick policy, with sight of every hand in the guessed
world: cash a card nobody can beat, win as cheaply as holds, leave a partner's sure winner
alone, trump when it wins, throw from a short suit. That sight is the price of speed; the
guesses, many and drawn from what the real seat knows, keep it honest.
"""

from __future__ import annotations

from typing import NamedTuple

from ..deck import ACES, POWER_OF, SUIT_MASKS
from .counting import ABOVE

__all__ = ["Deal", "Outcome"]

_NONE = -1
_TRUMP_KEY = 100


class Outcome(NamedTuple):
    """How a deal ended: the winning team, the kind (as the log says it) and tricks per team."""

    winner: int
    kind: str
    won0: int
    won1: int


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


class Deal:
    """The rest of one deal with all four hands known (``hands`` are masks; ``aside`` a hidden trump card).

    Play goes through :meth:`play` and :meth:`reveal`; :meth:`finish` lets the policy play every
    seat to the end and gives the :class:`Outcome`.
    """

    __slots__ = (
        "aces_no_collect",
        "aside",
        "be_ranga",
        "caller",
        "centre",
        "court_team",
        "dealer",
        "double_sir",
        "hands",
        "hidden_rung",
        "last_after_reveal",
        "last_card",
        "last_in_centre",
        "last_winner",
        "leader",
        "must_lead_trump",
        "must_trump",
        "no_early_late",
        "outcome",
        "plays",
        "streak",
        "trick",
        "trump",
        "trump_set_trick",
        "turn",
        "win_card",
        "win_key",
        "win_known",
        "win_seat",
        "won",
    )

    def __init__(self) -> None:
        self.hands: list[int] = [0, 0, 0, 0]
        self.aside = _NONE
        self.trump = _NONE
        self.caller = 0
        self.dealer = 3
        self.leader = 0
        self.turn = 0
        self.trick = 1
        self.plays: list[tuple[int, int, int, bool]] = []
        """(seat, card, key, trump known) of the current trick; key ranks the card (-1: it cannot win)."""
        self.win_seat = _NONE
        self.win_card = _NONE
        self.win_key = _NONE
        self.win_known = False
        self.won: list[int] = [0, 0]
        self.centre = 0
        self.last_winner = _NONE
        self.last_card = _NONE
        self.last_in_centre = False
        self.last_after_reveal = False
        self.court_team = _NONE
        self.trump_set_trick = 0
        self.must_trump = _NONE
        self.must_lead_trump = False
        self.double_sir = False
        self.hidden_rung = False
        self.be_ranga = False
        self.no_early_late = False
        self.aces_no_collect = False
        self.streak: tuple[int, int] = (0, 0)
        self.outcome: Outcome | None = None

    def copy(self) -> Deal:
        """An independent copy to play a different line from."""
        other = type(self).__new__(type(self))
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = self.hands[:]
        other.plays = self.plays[:]
        other.won = self.won[:]
        return other

    # -- the rules ------------------------------------------------------------------------

    def key(self, card: int, led: int) -> int:
        """How ``card`` ranks in a trick led in ``led`` if played face up now (-1: it cannot win)."""
        suit = card // 13
        if suit == self.trump:
            return _TRUMP_KEY + POWER_OF[card]
        if suit == led:
            return POWER_OF[card]
        return _NONE

    def reveal(self, seat: int) -> None:
        """The hidden trump is shown (asked for by ``seat`` or shown by the caller) and goes back to its hand.

        Cards of the new trump suit already in the trick count as trumps only if that suit was led.
        """
        card = self.aside
        trump = self.trump = card // 13
        self.hands[self.caller] |= 1 << card
        self.aside = _NONE
        plays = self.plays
        if not plays:
            self.must_lead_trump = True
            return
        self.must_trump = seat
        if plays[0][1] // 13 != trump:
            return
        for position, (player, played, key, known) in enumerate(plays):
            if played >= 0 and key >= 0 and played // 13 == trump:
                key = _TRUMP_KEY + POWER_OF[played]
                plays[position] = (player, played, key, known)
                if key > self.win_key:
                    self.win_seat, self.win_card, self.win_key, self.win_known = player, played, key, known

    def play(self, seat: int, card: int, face_down: bool = False) -> None:
        """``seat`` plays ``card`` (assumed legal) and the trick, the deal and its end follow."""
        hands = self.hands
        hands[seat] &= ~(1 << card)
        plays = self.plays
        suit = card // 13
        if not plays:
            key = POWER_OF[card] + (_TRUMP_KEY if suit == self.trump else 0)
            known = self.trump >= 0
            self.win_seat, self.win_card, self.win_key, self.win_known = seat, card, key, known
            plays.append((seat, card, key, known))
            self.must_lead_trump = False
        else:
            led = plays[0][1] // 13
            if face_down:
                key = _NONE
            else:
                if self.be_ranga and self.trump < 0 and suit != led:
                    self.trump = suit
                    self.trump_set_trick = self.trick
                key = self.key(card, led)
            known = self.trump >= 0
            plays.append((seat, card, key, known))
            if key > self.win_key:
                self.win_seat, self.win_card, self.win_key, self.win_known = seat, card, key, known
        if len(plays) == 4:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % 4
            if self.aside >= 0 and self.turn == self.caller and not hands[self.caller]:
                self.reveal(self.caller)

    def _finish_trick(self) -> None:
        winner = self.win_seat
        team = winner & 1
        number = self.trick
        if self.double_sir:
            self._collect(number, winner, self.win_card, self.win_known)
        else:
            self.won[team] += 1
        if self._over(number, team):
            return
        self.trick = number + 1
        self.plays = []
        self.must_trump = _NONE
        self.turn = self.leader = winner
        self.win_seat = self.win_card = self.win_key = _NONE
        self.win_known = False
        if self.aside >= 0 and winner == self.caller and not self.hands[winner]:
            self.reveal(winner)

    def _collect(self, number: int, winner: int, card: int, after_reveal: bool) -> None:
        self.centre += 1
        if number == 13:
            take = True
        elif winner != self.last_winner or not self.last_in_centre:
            take = False
        else:
            take = self._may_collect(number, card)
        self.last_winner = winner
        self.last_card = card
        self.last_after_reveal = after_reveal
        if not take:
            self.last_in_centre = True
            return
        self.won[winner & 1] += self.centre
        self.centre = 0
        self.last_in_centre = False

    def _may_collect(self, number: int, card: int) -> bool:
        if self.no_early_late and number in (2, 12):
            return False
        if self.aces_no_collect and ACES >> card & 1 and ACES >> self.last_card & 1:
            return False
        if self.be_ranga and (self.trump_set_trick == 0 or number - 1 < self.trump_set_trick):
            return False
        return not (self.hidden_rung and (number <= 2 or number == 12 or not self.last_after_reveal))

    def _over(self, number: int, team: int) -> bool:
        won = self.won
        if self.double_sir:
            if number < 13:
                return False
            winner = 0 if won[0] >= 7 else 1
            if won[winner] == 13:
                kind = "goon court" if winner == self.dealer & 1 else "court"
            else:
                kind = "court" if self.streak[winner] + 1 >= 7 else "win"
            self.outcome = Outcome(winner, kind, won[0], won[1])
            return True
        if self.court_team >= 0:
            if team != self.court_team:
                kind = "goon court" if self.court_team == self.dealer & 1 else "court"
                self.outcome = Outcome(self.court_team, kind, won[0], won[1])
                return True
            if number == 13:
                self.outcome = Outcome(team, "52-court", won[0], won[1])
                return True
            return False
        if won[team] == 7:
            if won[1 - team] == 0:
                self.court_team = team
                if number == 13:
                    self.outcome = Outcome(team, "52-court", won[0], won[1])
                    return True
                return False
            self.outcome = Outcome(team, "win", won[0], won[1])
            return True
        return False

    # -- what a seat may do ------------------------------------------------------------------

    def legal(self, seat: int) -> tuple[int, bool, bool]:
        """(cards ``seat`` may play, whether face down only, whether it may reveal), as the engine says."""
        hand = self.hands[seat]
        hidden = self.aside >= 0
        plays = self.plays
        if not plays:
            if self.must_lead_trump:
                return hand & SUIT_MASKS[self.trump], False, False
            return hand, False, hidden and seat == self.caller
        following = hand & SUIT_MASKS[plays[0][1] // 13]
        if following:
            return following, False, False
        if self.must_trump == seat:
            trumps = hand & SUIT_MASKS[self.trump]
            return trumps or hand, False, False
        if hidden:
            return hand, self.hidden_rung and seat == self.caller, True
        return hand, False, False

    # -- the play-out policy -------------------------------------------------------------------

    def finish(self) -> Outcome:
        """Every seat plays the quick policy until the deal ends."""
        while self.outcome is None:
            self.step()
        return self.outcome

    def step(self) -> None:
        """The seat to play makes the policy's move (a reveal, then its card, counts as one step)."""
        seat = self.turn
        if not self.plays:
            if self.must_lead_trump:
                trumps = self.hands[seat] & SUIT_MASKS[self.trump]
                self.play(seat, trumps.bit_length() - 1)
                return
            self.play(seat, self._lead(seat))
            return
        card, face_down = self._answer(seat)
        self.play(seat, card, face_down)

    def _beatable(self, seat: int, card: int, key: int) -> bool:
        """Whether an opponent of ``seat`` still to play to this trick can beat ``card`` (ranked ``key``)."""
        hands = self.hands
        plays = self.plays
        led = plays[0][1] // 13 if plays else card // 13
        trump = self.trump
        leader = self.leader
        team = seat & 1
        for position in range(len(plays), 4):
            other = (leader + position) % 4
            if other & 1 == team:
                continue
            hand = hands[other]
            following = hand & SUIT_MASKS[led]
            if following:
                if (key < _TRUMP_KEY or led == trump) and following & ABOVE[card]:
                    return True
                continue
            if trump >= 0:
                trumps = hand & SUIT_MASKS[trump]
                if trumps and (key < _TRUMP_KEY or trumps & ABOVE[card]):
                    return True
            elif self.aside >= 0:
                if other == self.caller or hand & SUIT_MASKS[self.aside // 13]:
                    return True
            elif self.be_ranga and hand:
                return True
        return False

    def _answer(self, seat: int) -> tuple[int, bool]:
        """The policy's card when not leading, and whether face down."""
        hand = self.hands[seat]
        led = self.plays[0][1] // 13
        following = hand & SUIT_MASKS[led]
        partner_wins = self.win_seat >= 0 and (self.win_seat ^ seat) == 2
        partner_safe = partner_wins and not self._beatable(self.win_seat, self.win_card, self.win_key)
        trump = self.trump
        if following:
            if partner_safe or (self.win_key >= _TRUMP_KEY and led != trump):
                return _low(following), False
            beaters = following & ABOVE[self.win_card] if self.win_card // 13 == led else following
            while beaters:
                card = _low(beaters)
                beaters &= beaters - 1
                if not self._beatable(seat, card, self.key(card, led)):
                    return card, False
            beaters = following & ABOVE[self.win_card] if self.win_card // 13 == led else following
            if beaters and len(self.plays) == 2:
                return beaters.bit_length() - 1, False
            return _low(following), False
        if self.must_trump == seat and trump >= 0:
            trumps = hand & SUIT_MASKS[trump]
            if trumps:
                return self._cheapest_ruff(seat, trumps, led), False
        if self.aside >= 0:
            return self._hidden_answer(seat, hand, led, partner_safe)
        if trump < 0:
            if self.be_ranga:
                return self._set_trumps(hand), False
            return self._discard(hand, -1, seat), False
        if not partner_safe:
            trumps = hand & SUIT_MASKS[trump]
            if self.win_key >= _TRUMP_KEY:
                trumps &= ABOVE[self.win_card]
            while trumps:
                card = _low(trumps)
                trumps &= trumps - 1
                if not self._beatable(seat, card, _TRUMP_KEY + POWER_OF[card]):
                    return card, False
        return self._discard(hand, trump, seat), False

    def _cheapest_ruff(self, seat: int, trumps: int, led: int) -> int:
        beaters = trumps & ABOVE[self.win_card] if self.win_key >= _TRUMP_KEY else trumps
        while beaters:
            card = _low(beaters)
            beaters &= beaters - 1
            if not self._beatable(seat, card, self.key(card, led)):
                return card
        return _low(trumps)

    def _hidden_answer(self, seat: int, hand: int, led: int, partner_safe: bool) -> tuple[int, bool]:
        """Unable to follow with the trump hidden: reveal and trump when that wins, else throw (face down for
        Hidden Rung's caller)."""
        side = self.aside // 13
        holds_trump = seat == self.caller or hand & SUIT_MASKS[side]
        if holds_trump and not partner_safe:
            self.reveal(seat)
            hand = self.hands[seat]
            trumps = hand & SUIT_MASKS[self.trump]
            if trumps:
                return self._cheapest_ruff(seat, trumps, led), False
            return self._discard(hand, self.trump, seat), False
        face_down = self.hidden_rung and seat == self.caller
        return self._discard(hand, side if seat == self.caller else -1, seat), face_down

    def _set_trumps(self, hand: int) -> int:
        """Be-ranga, unable to follow before trumps are set: the lowest card of the longest suit makes it trumps."""
        best = 0
        best_count = -1
        for suit in range(4):
            cards = hand & SUIT_MASKS[suit]
            count = cards.bit_count()
            if count > best_count:
                best, best_count = cards, count
        return _low(best)

    def _discard(self, hand: int, trump: int, seat: int) -> int:
        """The lowest card of the shortest suit that is not trumps and not all winners (those only when
        nothing else is left)."""
        hands = self.hands
        others = hands[0] | hands[1] | hands[2] | hands[3]
        others &= ~hands[seat]
        best = -1
        best_cost = 1 << 20
        for suit in range(4):
            cards = hand & SUIT_MASKS[suit]
            if not cards:
                continue
            low = _low(cards)
            cost = POWER_OF[low] * 4 + cards.bit_count() * 3 + (500 if suit == trump else 0)
            if not others & ABOVE[low]:
                cost += 200
            if cost < best_cost:
                best, best_cost = low, cost
        return best

    def _lead(self, seat: int) -> int:
        """Draw trumps with the top trump, cash a card nobody beats, lead to the partner's winner or void,
        else lead low from the longest plain suit."""
        hands = self.hands
        hand = hands[seat]
        opponents = hands[(seat + 1) % 4] | hands[(seat + 3) % 4]
        left, right = hands[(seat + 1) % 4], hands[(seat + 3) % 4]
        partner = hands[(seat + 2) % 4]
        trump = self.trump
        trump_cards = SUIT_MASKS[trump] if trump >= 0 else 0
        mine = hand & trump_cards
        theirs = opponents & trump_cards
        if mine and theirs and mine.bit_length() > theirs.bit_length():
            most = max((left & trump_cards).bit_count(), (right & trump_cards).bit_count())
            if mine.bit_count() >= most:
                return mine.bit_length() - 1
        ours = partner & trump_cards
        if mine and theirs and ours.bit_length() > theirs.bit_length():
            most = max((left & trump_cards).bit_count(), (right & trump_cards).bit_count())
            if ours.bit_count() >= most:
                return _low(mine)
        best = -1
        best_count = -1
        for suit in range(4):
            mask = SUIT_MASKS[suit]
            cards = hand & mask
            if not cards or mask == trump_cards:
                continue
            top = cards.bit_length() - 1
            if opponents & mask & ABOVE[top]:
                continue
            if theirs and ((not left & mask and left & trump_cards) or (not right & mask and right & trump_cards)):
                continue
            count = (opponents & mask).bit_count()
            if count > best_count:
                best, best_count = top, count
        if best >= 0:
            return best
        for suit in range(4):
            mask = SUIT_MASKS[suit]
            cards = hand & mask
            if not cards or mask == trump_cards:
                continue
            partner_tops = partner & mask and not opponents & mask & ABOVE[(partner & mask).bit_length() - 1]
            if partner_tops and (not theirs or (left & mask and right & mask)):
                return _low(cards)
            if trump_cards and not partner & mask and partner & trump_cards and left & mask and right & mask:
                return _low(cards)
        best_key = -1
        for suit in range(4):
            mask = SUIT_MASKS[suit]
            cards = hand & mask
            if not cards:
                continue
            key = (20 - cards.bit_count() if mine else cards.bit_count()) + (0 if mask == trump_cards else 40)
            if key > best_key:
                best, best_key = _low(cards), key
        return best
