"""The rules of Court Piece and its variants as one state machine (``../shared/COURT_PIECE.md``).

A :class:`Session` owns the cards of a whole session: deals, trumps, tricks, the score
and who deals next. It never chooses for anyone, reads a clock or touches I/O: each
decision comes in as an action from the seat whose turn it is (:meth:`Session.apply`)
and what happened comes out as events. Chance comes only from the ``random.Random`` it
is given (or from stacked decks), so a seed and the actions replay a session exactly.
Seats learn the game only through :meth:`Session.view`.

A deal from a stacked deck: the caller (seat 1) names hearts and leads.

>>> from random import Random
>>> from voice_rang.cards import Card, Suit
>>> from .actions import NameTrump, PlayCard
>>> session = Session(Rules.make(), Random(3), dealer=0)
>>> [event.__struct_config__.tag for event in session.start()]
['session', 'deal']
>>> session.to_act, session.phase.value, len(session.view(1).hand)
(1, 'trump', 5)
>>> [event.suit for event in session.apply(1, NameTrump(Suit.HEARTS))]
[<Suit.HEARTS: 'H'>]
>>> lead = session.view(1).hand[0]
>>> session.apply(1, PlayCard(lead))[0].card == lead
True
>>> session.apply(1, PlayCard(lead))
Traceback (most recent call last):
...
voice_rang.games.court_piece.actions.Refused: not your turn
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from random import Random

from ...cards import Card
from .actions import (
    Action,
    AskRedeal,
    DeclineTrumpCard,
    NameTrump,
    PlayCard,
    Reason,
    Refusal,
    Refused,
    RevealTrump,
    SetTrumpCard,
    TrumpLater,
)
from .deck import ACES, CARD_INDEX, CARD_OF, POWER_OF, SUIT_INDEX, SUIT_MASKS, SUITS, bits, index_of
from .events import (
    CardPlayed,
    DealDone,
    DealEnded,
    DealKind,
    Event,
    Redealt,
    SessionEnded,
    SessionStarted,
    TrickWon,
    TrumpChosen,
    TrumpHow,
    TrumpRevealed,
)
from .rules import Rules, ScoringMode, TrumpMode, Variant
from .scoring import settle
from .view import Phase, Play, SeatView, Trick, trick_leader_so_far

__all__ = ["SEAT_NAMES", "Session", "deck_for_hands"]

SEAT_NAMES = ("host", "guest 1", "guest 2", "guest 3")
_TEN_OR_LOWER = POWER_OF[CARD_INDEX[Card("10C")]]


def _mask(indexes: Sequence[int]) -> int:
    mask = 0
    for index in indexes:
        mask |= 1 << index
    return mask


def _face_down_hidden(play: Play) -> Play:
    """A play as a seat other than its player sees it: a face-down card is only a card."""
    return Play(play.seat, -1, True, play.trump_known) if play.face_down else play


def _batches(rules: Rules) -> tuple[int, ...]:
    return (13,) if rules.variant is Variant.BE_RANGA else (5, 4, 4)


def deck_for_hands(hands: Sequence[Sequence[Card]], caller: int, rules: Rules | None = None) -> list[Card]:
    """The deck order (top first) that deals ``hands`` (each in the order its seat receives it).

    Tests stack a deal with it: ``Session(..., decks=[deck_for_hands(hands, caller)])``.
    """
    order: list[Card] = []
    start = 0
    for size in _batches(rules or Rules()):
        for offset in range(4):
            order.extend(hands[(caller + offset) % 4][start : start + size])
        start += size
    return order


class Session:
    """A session of Court Piece for four seats (teams 0 and 2 against 1 and 3).

    ``decks`` (optional) gives the deck order, top first, of successive deals and
    redeals; when it runs out the deck is shuffled with ``rng``. ``dealer`` fixes the
    first dealer (drawn at random otherwise).
    """

    def __init__(
        self,
        rules: Rules,
        rng: Random,
        *,
        seats: Sequence[str] = SEAT_NAMES,
        players: Sequence[str] = ("person", "normal", "normal", "normal"),
        number: int = 0,
        dealer: int | None = None,
        decks: Sequence[Sequence[Card]] | None = None,
    ) -> None:
        if len(seats) != 4 or len(players) != 4:
            raise ValueError("Court Piece has exactly four seats")
        if dealer is not None and not 0 <= dealer < 4:
            raise ValueError(f"the dealer is a seat 0 to 3, not {dealer}")
        self.rules = rules
        self.number = number
        self.seats = tuple(seats)
        self.players = tuple(players)
        self._rng = rng
        self._decks: Iterator[Sequence[Card]] = iter(decks or ())
        self._double_sir = rules.is_double_sir
        self._hidden_rung = rules.variant is Variant.HIDDEN_RUNG
        self._be_ranga = rules.variant is Variant.BE_RANGA
        self.phase = Phase.TRUMP
        self.deal_number = 0
        self.dealer = rng.randrange(4) if dealer is None else dealer
        self.caller = (self.dealer + 1) % 4
        self.score = [0, 0]
        self.streak = [0, 0]
        self.result: SessionEnded | None = None
        self._started = False
        self.actions: list[tuple[int, Action]] = []
        """Every action taken so far, in order: with the generator's state before the session, it
        replays the session exactly (the save keeps just that)."""
        self._reset_deal()

    # -- what anyone may ask ---------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the game waits for (None once the session is over)."""
        phase = self.phase
        if phase is Phase.PLAY:
            return self._turn
        return self.caller if phase is Phase.TRUMP else None

    @property
    def trick_number(self) -> int:
        return self._trick

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """What ``seat`` may do now (empty when it is not its turn)."""
        return self.view(seat).legal

    def view(self, seat: int) -> SeatView:
        """Everything ``seat`` may know now, and nothing more."""
        caller = self.caller
        phase = self.phase
        to_act = self.to_act
        legal = 0
        face_down_only = may_reveal = False
        choices: tuple[Action, ...] = ()
        if to_act == seat:
            if phase is Phase.PLAY:
                legal, face_down_only, may_reveal = self._legal(seat)
            else:
                choices = self._trump_choices()
        if seat == caller:
            own_trump = self._aside if self._aside_seen else -1
            tricks = self._tricks
            current = tuple(self._plays)
            seen = self._seen | self._face_down_mask
        else:
            own_trump = -1
            tricks = self._public_tricks
            plays = self._plays
            current = tuple(_face_down_hidden(play) for play in plays) if self._hidden_rung else tuple(plays)
            seen = self._seen
        face_up = self._face_up
        if face_up >= 0 and not self._hands[caller] >> face_up & 1:
            face_up = -1
        voids = self._voids
        held = self._held
        won = self._won
        # Positional, in field order: a simulation builds a view for every decision.
        return SeatView(
            seat, self.rules, self.deal_number, self.dealer, caller, phase, to_act, self._hands[seat],
            self._trump, self._aside >= 0, own_trump, face_up, self._trick, self._leader, current,
            self._reveal_index, tricks, (won[0], won[1]), self._centre, seen,
            (voids[0], voids[1], voids[2], voids[3]), (held[0], held[1], held[2], held[3]),
            (self.score[0], self.score[1]), (self.streak[0], self.streak[1]), choices, legal,
            face_down_only, may_reveal, self._first_five[seat],
        )

    # -- driving the game ----------------------------------------------------------------

    def start(self) -> list[Event]:
        """The session's opening events: the session, then the first deal."""
        if self._started:
            raise RuntimeError("the session has already started")
        self._started = True
        events: list[Event] = [
            SessionStarted(
                variant=self.rules.variant.value,
                options=self.rules.options.as_log(),
                seats=self.seats,
                players=self.players,
                scoring=self.rules.scoring.as_log(),
                game=self.number,
            )
        ]
        self._deal(events, redeal=False)
        return events

    def check(self, seat: int, action: Action) -> Refusal | None:
        """Why ``seat`` may not take ``action`` now, or None if it may. Changes nothing."""
        try:
            self._refuse_if_illegal(seat, action)
        except Refused as refused:
            return refused.refusal
        return None

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Take ``seat``'s action and return what happened; :class:`Refused` (state unchanged) if it may not."""
        self._refuse_if_illegal(seat, action)
        self.actions.append((seat, action))
        events: list[Event] = []
        if isinstance(action, PlayCard):
            self._play(seat, index_of(action.card), action.face_down, events)
        elif isinstance(action, RevealTrump):
            self._reveal(seat, events)
        else:
            self._choose_trumps(action, events)
        return events

    # -- refusals ------------------------------------------------------------------------

    def _refuse_if_illegal(self, seat: int, action: Action) -> None:
        if not self._started:
            raise RuntimeError("start the session first")
        if self.phase is Phase.OVER:
            raise Refused(Refusal(Reason.GAME_OVER))
        if seat != self.to_act:
            raise Refused(Refusal(Reason.NOT_YOUR_TURN, seat=self.to_act))
        if self.phase is Phase.TRUMP:
            if isinstance(action, (PlayCard, RevealTrump)):
                raise Refused(Refusal(Reason.CHOOSE_TRUMPS_FIRST))
            self._refuse_trump_choice(action)
            return
        if isinstance(action, RevealTrump):
            self._refuse_reveal(seat)
            return
        if not isinstance(action, PlayCard):
            raise Refused(Refusal(Reason.NOT_CHOOSING_TRUMPS))
        self._refuse_play(seat, index_of(action.card), action.face_down)

    def _refuse_trump_choice(self, action: Action) -> None:
        mode = self.rules.options.trump
        if isinstance(action, AskRedeal):
            if not self._may_redeal():
                raise Refused(Refusal(Reason.REDEAL_NOT_ALLOWED))
        elif isinstance(action, NameTrump):
            if mode not in (TrumpMode.NAMED, TrumpMode.LATER):
                raise Refused(Refusal(Reason.NOT_THIS_VARIANT))
        elif isinstance(action, TrumpLater):
            if mode is not TrumpMode.LATER or action.position not in (7, 10):
                raise Refused(Refusal(Reason.NOT_THIS_VARIANT))
        elif isinstance(action, SetTrumpCard):
            if mode not in (TrumpMode.CARD, TrumpMode.HIDDEN):
                raise Refused(Refusal(Reason.NOT_THIS_VARIANT))
            if not self._hands[self.caller] >> CARD_INDEX[action.card] & 1:
                raise Refused(Refusal(Reason.NOT_IN_FIRST_FIVE, card=action.card))
        elif isinstance(action, DeclineTrumpCard) and mode is not TrumpMode.CARD:
            raise Refused(Refusal(Reason.NOT_THIS_VARIANT))

    def _refuse_reveal(self, seat: int) -> None:
        if self._aside < 0:
            raise Refused(Refusal(Reason.NO_HIDDEN_TRUMP))
        if not self._plays:
            if seat != self.caller:
                raise Refused(Refusal(Reason.ONLY_CALLER_ON_LEAD))
            return
        led = self._plays[0].card // 13
        if self._hands[seat] & SUIT_MASKS[led]:
            raise Refused(Refusal(Reason.CAN_FOLLOW, suit=SUITS[led]))

    def _refuse_play(self, seat: int, card: int, face_down: bool) -> None:
        bit = 1 << card
        if not self._hands[seat] & bit:
            if card == self._aside and seat == self.caller and self._aside_seen:
                raise Refused(Refusal(Reason.TRUMP_CARD_SET_APART, card=CARD_OF[card]))
            raise Refused(Refusal(Reason.NOT_HELD, card=CARD_OF[card]))
        legal, face_down_only, _ = self._legal(seat)
        if legal & bit and face_down == face_down_only:
            return
        if face_down and not face_down_only:
            raise Refused(Refusal(Reason.FACE_DOWN_NOT_ALLOWED))
        if face_down_only and not face_down:
            raise Refused(Refusal(Reason.MUST_REVEAL_OR_FACE_DOWN))
        if not self._plays:
            raise Refused(Refusal(Reason.MUST_LEAD_TRUMP, suit=SUITS[self._trump]))
        led = self._plays[0].card // 13
        if self._hands[seat] & SUIT_MASKS[led]:
            raise Refused(Refusal(Reason.MUST_FOLLOW, suit=SUITS[led]))
        raise Refused(Refusal(Reason.MUST_TRUMP, suit=SUITS[self._trump]))

    def _legal(self, seat: int) -> tuple[int, bool, bool]:
        """(cards ``seat`` may play, whether face down only, whether it may reveal the trump)."""
        hand = self._hands[seat]
        hidden = self._aside >= 0
        if not self._plays:
            if self._must_lead_trump:
                return hand & SUIT_MASKS[self._trump], False, False
            return hand, False, hidden and seat == self.caller
        led = self._plays[0].card // 13
        following = hand & SUIT_MASKS[led]
        if following:
            return following, False, False
        if self._must_trump_seat == seat:
            trumps = hand & SUIT_MASKS[self._trump]
            return trumps or hand, False, False
        if hidden:
            return hand, self._hidden_rung and seat == self.caller, True
        return hand, False, False

    # -- dealing and trumps ---------------------------------------------------------------

    def _reset_deal(self) -> None:
        self._hands = [0, 0, 0, 0]
        self._dealt: list[list[int]] = [[], [], [], []]
        self._first_five = [0, 0, 0, 0]
        self._trump = -1
        self._aside = -1
        self._aside_seen = False
        self._face_up = -1
        self._trick = 1
        self._leader = self.caller
        self._turn = self.caller
        self._plays: list[Play] = []
        self._reveal_index = -1
        self._must_trump_seat = -1
        self._must_lead_trump = False
        self._tricks: tuple[Trick, ...] = ()
        self._public_tricks: tuple[Trick, ...] = ()
        self._won = [0, 0]
        self._centre = 0
        self._last_winner = -1
        self._last_card = -1
        self._last_in_centre = False
        self._last_after_reveal = False
        self._court_team = -1
        self._trump_set_trick = 0
        self._seen = 0
        self._face_down_mask = 0
        self._voids = [0, 0, 0, 0]
        self._held = [5, 5, 5, 5]

    def _next_deck(self) -> list[int]:
        given = next(self._decks, None)
        if given is None:
            order = list(range(52))
            self._rng.shuffle(order)
            return order
        order = [CARD_INDEX[card] for card in given]
        if sorted(order) != list(range(52)):
            raise ValueError("a stacked deck needs all 52 cards once each")
        return order

    def _deal(self, events: list[Event], *, redeal: bool) -> None:
        if not redeal:
            self.deal_number += 1
        self.caller = (self.dealer + 1) % 4
        self._reset_deal()
        order = self._next_deck()
        position = 0
        for size in _batches(self.rules):
            for offset in range(4):
                self._dealt[(self.caller + offset) % 4].extend(order[position : position + size])
                position += size
        for seat in range(4):
            self._first_five[seat] = _mask(self._dealt[seat][:5])
        events.append(
            DealDone(
                dealer=self.dealer,
                caller=self.caller,
                hands=tuple(tuple(CARD_OF[card] for card in hand) for hand in self._dealt),
                first=tuple(tuple(CARD_OF[card] for card in hand[:5]) for hand in self._dealt),
                game=self.number,
                deal=self.deal_number,
            )
        )
        if self._be_ranga:
            self._deal_rest()
            return
        self._hands = list(self._first_five)
        self.phase = Phase.TRUMP
        if self.rules.options.trump is TrumpMode.BLIND:
            card = self._rng.choice(self._dealt[self.caller][:5])
            self._set_aside(card, seen=False)
            self._announce_trump("blind", None, events)
            self._deal_rest()

    def _may_redeal(self) -> bool:
        return self.rules.options.redeal and all(
            POWER_OF[card] <= _TEN_OR_LOWER for card in self._dealt[self.caller][:5]
        )

    def _trump_choices(self) -> tuple[Action, ...]:
        mode = self.rules.options.trump
        choices: list[Action] = []
        if mode in (TrumpMode.NAMED, TrumpMode.LATER):
            choices.extend(NameTrump(suit) for suit in SUITS)
        if mode is TrumpMode.LATER:
            choices.extend((TrumpLater(7), TrumpLater(10)))
        if mode in (TrumpMode.CARD, TrumpMode.HIDDEN):
            choices.extend(SetTrumpCard(CARD_OF[card]) for card in bits(self._hands[self.caller]))
        if mode is TrumpMode.CARD:
            choices.append(DeclineTrumpCard())
        if self._may_redeal():
            choices.append(AskRedeal())
        return tuple(choices)

    def _choose_trumps(self, action: Action, events: list[Event]) -> None:
        caller = self.caller
        if isinstance(action, AskRedeal):
            events.append(Redealt(seat=caller, game=self.number, deal=self.deal_number))
            self._deal(events, redeal=True)
            return
        if isinstance(action, NameTrump):
            self._trump = SUIT_INDEX[action.suit]
            self._announce_trump("named", None, events)
        elif isinstance(action, TrumpLater):
            card = self._dealt[caller][action.position - 1]
            self._trump = card // 13
            self._face_up = card
            self._announce_trump("later", CARD_OF[card], events)
        elif isinstance(action, DeclineTrumpCard):
            card = self._rng.choice(self._dealt[caller][5:9])
            self._trump = card // 13
            self._face_up = card
            self._announce_trump("random", CARD_OF[card], events)
        elif isinstance(action, SetTrumpCard):
            card = CARD_INDEX[action.card]
            if self.rules.options.trump is TrumpMode.HIDDEN:
                self._set_aside(card, seen=True)
                self._announce_trump("hidden", None, events)
            else:
                self._trump = card // 13
                self._face_up = card
                self._announce_trump("card", CARD_OF[card], events)
        self._deal_rest()

    def _set_aside(self, card: int, *, seen: bool) -> None:
        self._aside = card
        self._aside_seen = seen

    def _announce_trump(self, how: TrumpHow, card: Card | None, events: list[Event]) -> None:
        events.append(
            TrumpChosen(
                seat=self.caller,
                how=how,
                suit=SUITS[self._trump] if self._trump >= 0 else None,
                card=card,
                game=self.number,
                deal=self.deal_number,
            )
        )

    def _deal_rest(self) -> None:
        self._held = [13, 13, 13, 13]
        for seat in range(4):
            self._hands[seat] = _mask(self._dealt[seat])
        if self._aside >= 0:
            self._hands[self.caller] &= ~(1 << self._aside)
        self.phase = Phase.PLAY
        self._turn = self._leader = self.caller

    # -- play ---------------------------------------------------------------------------

    def _reveal(self, seat: int, events: list[Event]) -> None:
        card = self._aside
        self._trump = card // 13
        self._hands[self.caller] |= 1 << card
        self._aside = -1
        self._reveal_index = len(self._plays)
        if self._plays:
            self._must_trump_seat = seat
        else:
            self._must_lead_trump = True
        events.append(
            TrumpRevealed(
                trick=self._trick, seat=seat, suit=SUITS[self._trump], card=CARD_OF[card],
                game=self.number, deal=self.deal_number,
            )
        )

    def _play(self, seat: int, card: int, face_down: bool, events: list[Event]) -> None:
        suit = card // 13
        if self._be_ranga and self._trump < 0 and self._plays and suit != self._plays[0].card // 13:
            self._trump = suit
            self._trump_set_trick = self._trick
            events.append(
                TrumpChosen(
                    seat=seat, how="unable", suit=SUITS[suit], card=CARD_OF[card],
                    game=self.number, deal=self.deal_number,
                )
            )
        self._hands[seat] &= ~(1 << card)
        self._held[seat] -= 1
        if self._plays:
            led = self._plays[0].card // 13
            if suit != led:
                self._voids[seat] |= 1 << led
                if self._must_trump_seat == seat and suit != self._trump:
                    self._voids[seat] |= 1 << self._trump
        if face_down:
            self._face_down_mask |= 1 << card
        else:
            self._seen |= 1 << card
        self._plays.append(Play(seat, card, face_down, self._trump >= 0))
        self._must_lead_trump = False
        events.append(
            CardPlayed(trick=self._trick, seat=seat, card=CARD_OF[card], face_down=face_down,
                       game=self.number, deal=self.deal_number)
        )
        if len(self._plays) == 4:
            self._finish_trick(events)
        else:
            self._turn = (seat + 1) % 4
            self._reveal_if_only_trump_left(events)

    def _reveal_if_only_trump_left(self, events: list[Event]) -> None:
        """The caller must play the set-apart card when it holds nothing else: it is revealed first."""
        if self._aside >= 0 and self._turn == self.caller and not self._hands[self.caller]:
            self._reveal(self.caller, events)

    def _finish_trick(self, events: list[Event]) -> None:
        plays = self._plays
        position = trick_leader_so_far(plays, self._trump)
        winning = plays[position]
        winner = winning.seat
        team = winner % 2
        number = self._trick
        trick = Trick(number, self._leader, tuple(plays), winner)
        self._tricks = (*self._tricks, trick)
        if any(play.face_down for play in plays):
            public = tuple(_face_down_hidden(play) for play in plays)
            self._public_tricks = (*self._public_tricks, Trick(number, self._leader, public, winner))
        else:
            self._public_tricks = (*self._public_tricks, trick)
        if self._double_sir:
            collected = self._collect(number, winner, winning)
        else:
            self._won[team] += 1
            collected = 1
        events.append(
            TrickWon(
                trick=number, winner=winner, cards=tuple(CARD_OF[play.card] for play in plays),
                won=(self._won[0], self._won[1]), centre=self._centre, collected=collected,
                game=self.number, deal=self.deal_number,
            )
        )
        kind = self._deal_over(number, team)
        if kind is not None:
            self._end_deal(kind, events)
            return
        self._trick += 1
        self._plays = []
        self._reveal_index = -1
        self._must_trump_seat = -1
        self._turn = self._leader = winner
        self._reveal_if_only_trump_left(events)

    def _collect(self, number: int, winner: int, winning: Play) -> int:
        """Double Sir: leave the trick in the centre, or take the centre if this win completes a pair."""
        self._centre += 1
        card = winning.card
        after_reveal = winning.trump_known
        if number == 13:
            take = True
        elif winner != self._last_winner or not self._last_in_centre:
            take = False
        else:
            take = self._may_collect(number, card)
        self._last_winner = winner
        self._last_card = card
        self._last_after_reveal = after_reveal
        if not take:
            self._last_in_centre = True
            return 0
        taken = self._centre
        self._won[winner % 2] += taken
        self._centre = 0
        self._last_in_centre = False
        return taken

    def _may_collect(self, number: int, card: int) -> bool:
        options = self.rules.options
        if options.no_early_late and number in (2, 12):
            return False
        if options.aces_no_collect and ACES >> card & 1 and ACES >> self._last_card & 1:
            return False
        if self._be_ranga and (self._trump_set_trick == 0 or number - 1 < self._trump_set_trick):
            return False
        return not (self._hidden_rung and (number <= 2 or number == 12 or not self._last_after_reveal))

    def _deal_over(self, number: int, team: int) -> DealKind | None:
        won = self._won
        if self._double_sir:
            if number < 13:
                return None
            winner = 0 if won[0] >= 7 else 1
            if won[winner] == 13:
                return "goon court" if winner == self.dealer % 2 else "court"
            return "court" if self.streak[winner] + 1 >= 7 else "win"
        if self._court_team >= 0:
            if team != self._court_team:
                return "goon court" if self._court_team == self.dealer % 2 else "court"
            return "52-court" if number == 13 else None
        if won[team] == 7:
            if won[1 - team] == 0:
                self._court_team = team
                return None
            return "win"
        return None

    def _end_deal(self, kind: DealKind, events: list[Event]) -> None:
        winner = self._court_team if self._court_team >= 0 else (0 if self._won[0] > self._won[1] else 1)
        settled = settle(
            self.rules, kind, winner=winner, caller=self.caller, dealer=self.dealer,
            streak=(self.streak[0], self.streak[1]),
        )
        self.score[winner] += settled.score
        self.streak = list(settled.streak)
        next_dealer = settled.next_dealer
        events.append(
            DealEnded(
                winner=winner, tricks=(self._won[0], self._won[1]), kind=kind,
                score=(self.score[0], self.score[1]), streak=(self.streak[0], self.streak[1]),
                next_dealer=next_dealer, game=self.number, deal=self.deal_number,
            )
        )
        self.dealer = next_dealer
        ended = self._session_result(winner, kind)
        if ended is not None:
            self.result = ended
            self.phase = Phase.OVER
            events.append(ended)
            return
        self._deal(events, redeal=False)

    def _session_result(self, winner: int, kind: DealKind) -> SessionEnded | None:
        scoring = self.rules.scoring
        score = (self.score[0], self.score[1])
        if scoring.mode is ScoringMode.POINTS:
            if kind == "52-court":
                return SessionEnded(winner=winner, score=score, reason="52-court", game=self.number)
            if self.score[winner] >= scoring.target:
                return SessionEnded(winner=winner, score=score, reason="target", game=self.number)
            return None
        if self.deal_number < scoring.deals:
            return None
        leader = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
        return SessionEnded(winner=leader, score=score, reason="deals", game=self.number)
