"""Court Piece in words, for one listener: its events as they may hear them, and answers from their view.

It reads only what a seat may know: the seat's events (:mod:`.seat_events`, never the host's
record) and the seat's :class:`~.view.SeatView`. The words come from ``[messages.court_piece]``
of the prompts (``voice_rang/prompts/court-piece/<lang>.toml``); the seat names, card words and
the filling in of templates are the table's :class:`~voice_rang.narration.Narrator`'s. With no
single listener (several people at one keyboard) every seat is named and nobody's hand is said.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...cards import Card, Suit
from ...messages import Message, Priority
from ...narration import Narrator
from .actions import Reason, Refusal
from .bots.base import Explanation
from .deck import CARD_OF, POWER_OF, SUIT_INDEX, SUITS, index_of
from .events import DealEnded, Redealt, SessionEnded, SessionStarted, TrumpChosen, TrumpRevealed
from .rules import Rules, ScoringMode
from .seat_events import CardShown, DealStarted, HandDealt, SeatEvent, TrickTaken
from .view import Phase, Play, SeatView, trick_leader_so_far

__all__ = ["CourtPieceNarration", "hand_order"]

SECTION = "court_piece"
_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_FIELD = re.compile(r"\{(\w+)\}")


def hand_order(cards: Sequence[Card], trump: Suit | None) -> list[Card]:
    """A hand as it is said and browsed: trumps first, then the other suits in the log's order
    (clubs, diamonds, hearts, spades), each from its highest card down.

    >>> [card.code for card in hand_order([Card("2H"), Card("AS"), Card("KH"), Card("3C")], Suit.SPADES)]
    ['AS', '3C', 'KH', '2H']
    """
    def key(card: Card) -> tuple[int, int, int]:
        suit = SUIT_INDEX[card.suit]
        return (0 if card.suit is trump else 1, suit, -POWER_OF[index_of(card)])

    return sorted(cards, key=key)


class CourtPieceNarration:
    """Messages about one session for ``narrator.listener`` (a seat, or None for several people)."""

    def __init__(self, narrator: Narrator, rules: Rules) -> None:
        self.narrator = narrator
        self.rules = rules
        self.trump: Suit | None = None
        self.caller = 0
        self.dealer = 0
        self.deal = 0
        self._plays: list[Play] = []
        """The trick going on, as this listener saw it (face-down cards as -1)."""
        self._said_next_play = False
        """Be-ranga: the card that set trumps was said with them; its play is not said again."""
        self._score_before = (0, 0)

    def catch_up(self, view: SeatView, score_before: tuple[int, int]) -> None:
        """Take up a session in the middle (a resumed save): what the narration remembers of the
        deal, from the listener's view."""
        self.deal, self.dealer, self.caller = view.deal, view.dealer, view.caller
        self.trump = view.trump_suit
        self._plays = list(view.current)
        self._score_before = score_before

    @contextmanager
    def speaking_to(self, seat: int | None) -> Iterator[None]:
        """Words for ``seat`` alone for a while ("your hand"), when several people share the device."""
        saved = self.narrator.listener
        self.narrator.listener = seat
        try:
            yield
        finally:
            self.narrator.listener = saved

    # ----- words ---------------------------------------------------------------------------

    @property
    def listener(self) -> int | None:
        return self.narrator.listener

    def say(self, key: str, seat: int | None = None, priority: Priority = Priority.NORMAL,
            kind: str = "court piece", **fields: Any) -> Message:
        return self.narrator.say(SECTION, key, seat, priority, kind, **fields)

    def card(self, card: Card) -> str:
        return self.narrator.card(card)

    def suit(self, suit: Suit) -> str:
        return str(self.narrator.prompts.messages["words"]["suits"][suit.value])

    def _words(self) -> dict[str, Any]:
        words: dict[str, Any] = self.narrator.prompts.messages[SECTION]["words"]
        return words

    def _template(self, key: str) -> str:
        value: Any = self.narrator.prompts.messages[SECTION]
        for part in key.split("."):
            value = value[part]
        return str(value)

    def rank_word(self, card: Card) -> str:
        return str(self.narrator.prompts.messages["words"]["ranks"][card.rank - 1])

    def hand_words(self, cards: Sequence[Card]) -> str:
        """A hand said suit by suit, counts first: "spades, 3: ace, nine, two; hearts, 1: king"."""
        if not cards:
            return self._template("words.no_cards")
        ordered = hand_order(cards, self.trump)
        groups: list[tuple[Suit, list[Card]]] = []
        for card in ordered:
            if groups and groups[-1][0] is card.suit:
                groups[-1][1].append(card)
            else:
                groups.append((card.suit, [card]))
        parts = [
            self._template("words.card_count").format(
                suit=self.suit(suit), count=len(group), cards=self._commas([self.rank_word(c) for c in group])
            )
            for suit, group in groups
        ]
        return "; ".join(parts)

    def _commas(self, items: Sequence[str]) -> str:
        """Ranks in a row, as a listener counts them off: "ace, ten, six, two"."""
        return str(self.narrator.prompts.messages["words"]["list_separator"]).join(items)

    def team_name(self, team: int, capital: bool = False) -> str:
        """"your team" / "their team" for a listener; the two seats' names without one."""
        if self.listener is not None:
            word = self._template("words.your_team" if team == self.listener % 2 else "words.their_team")
        else:
            word = self._template("words.team_of").format(
                first=self.narrator.seat_name(team), second=self.narrator.seat_name(team + 2))
        return word[:1].upper() + word[1:] if capital else word

    def _pair(self, values: tuple[int, int], key: str) -> str:
        """Two teams' numbers, the listener's team first."""
        ours = self.listener % 2 if self.listener is not None else 0
        return self._template(key).format(team=self.team_name(ours), ours=values[ours],
                                          other=self.team_name(1 - ours), theirs=values[1 - ours])

    def tricks_words(self, won: tuple[int, int]) -> str:
        return self._pair(won, "events.tricks_score")

    def score_words(self, score: tuple[int, int]) -> str:
        return self._pair(score, "events.score_points")

    def goal_words(self) -> str:
        scoring = self.rules.scoring
        if scoring.mode is ScoringMode.POINTS:
            return self._template("words.goal_points").format(target=scoring.target)
        key = "words.goal_courts_one" if scoring.deals == 1 else "words.goal_courts"
        return self._template(key).format(deals=scoring.deals)

    # ----- events --------------------------------------------------------------------------

    def events(self, events: Sequence[SeatEvent]) -> list[Message]:
        """What the listener hears about a batch of their seat's events."""
        messages: list[Message] = []
        for event in events:
            messages.extend(self.event(event))
        return messages

    def event(self, event: SeatEvent) -> list[Message]:
        if isinstance(event, SessionStarted):
            self._score_before = (0, 0)
            return [self._session()]
        if isinstance(event, DealStarted):
            return self._deal(event)
        if isinstance(event, Redealt):
            return [self.say("events.redeal", event.seat)]
        if isinstance(event, TrumpChosen):
            return self._trump(event)
        if isinstance(event, HandDealt):
            if self.listener is None:
                return []
            return [self.say("events.hand", kind="hand", hand=self.hand_words(event.cards))]
        if isinstance(event, CardShown):
            return self._played(event)
        if isinstance(event, TrumpRevealed):
            self.trump = event.suit
            key = "events.reveal_shown" if event.seat == self.caller else "events.reveal_asked"
            return [self.say(key, event.seat, card=self.card(event.card), suit=self.suit(event.suit))]
        if isinstance(event, TrickTaken):
            return [self._trick(event)]
        if isinstance(event, DealEnded):
            return [self._deal_end(event)]
        if isinstance(event, SessionEnded):
            return [self._end(event)]
        return []  # pragma: no cover - every kind is above

    def _session(self) -> Message:
        variant = self._template(f"words.variant.{self.rules.variant.value}")
        goal = self.goal_words()
        listener = self.listener
        if listener is None:
            return self.say("events.session_shared", None, Priority.NORMAL, "deal", variant=variant, goal=goal,
                            first=self.team_name(0), second=self.team_name(1))
        name = self.narrator.seat_name
        return self.say("events.session", None, Priority.NORMAL, "deal", variant=variant, goal=goal,
                        partner=name((listener + 2) % 4), right=name((listener + 1) % 4), left=name((listener + 3) % 4))

    def _deal(self, event: DealStarted) -> list[Message]:
        self.deal, self.dealer, self.caller = event.deal, event.dealer, event.caller
        self.trump = None
        self._plays = []
        caller = self.narrator.seat_name(event.caller)
        if event.caller == self.listener:
            first = self.say("events.deal_caller_you", event.dealer, Priority.NORMAL, "deal", deal=event.deal)
        else:
            first = self.say("events.deal", event.dealer, Priority.NORMAL, "deal", deal=event.deal, caller=caller)
        messages = [first]
        if len(event.cards) == 13 and self.listener is not None:
            messages.append(self.say("events.all_dealt", kind="hand", hand=self.hand_words(event.cards)))
        return messages

    def _trump(self, event: TrumpChosen) -> list[Message]:
        # A hidden trump is no trump until it is shown, even to the caller who knows it.
        self.trump = event.suit if event.how not in ("hidden", "blind") else None
        fields: dict[str, Any] = {}
        if event.card is not None:
            fields["card"] = self.card(event.card)
        if event.suit is not None:
            fields["suit"] = self.suit(event.suit)
        key = f"events.trump_{event.how}"
        if event.how == "hidden" and event.seat == self.listener and event.card is None:
            key = "events.trump_blind"
        if event.how == "unable":
            self._said_next_play = True
        return [self.say(key, event.seat, Priority.NORMAL, "trump", **fields)]

    def _played(self, event: CardShown) -> list[Message]:
        seat = event.seat
        card = event.card
        plays = self._plays
        if event.face_down or card is None:
            plays.append(Play(seat, -1 if card is None else index_of(card), True, self.trump is not None))
            fields: dict[str, Any] = {"card": self.card(card)} if card is not None else {}
            return [self.say("events.face_down", seat, **fields)]
        leading = not plays
        plays.append(Play(seat, index_of(card), False, self.trump is not None))
        words: dict[str, Any] = {"card": self.card(card)}
        if self._said_next_play:
            self._said_next_play = False
            return []
        led = CARD_OF[plays[0].card].suit
        trumped = not leading and card.suit is not led and self.trump is not None and card.suit is self.trump
        cue = "trump" if trumped and self.narrator.sounds else ""
        if self.narrator.verbosity == "brief":
            short = self._template("words.card_brief").format(rank=self.rank_word(card), suit=self.suit(card.suit))
            return [self._cued(self.say("events.brief_play", seat, card=short), cue)]
        if leading:
            return [self.say("events.lead", seat, **words)]
        if card.suit is led:
            return [self.say("events.follow", seat, **words)]
        if trumped:
            return [self._cued(self.say("events.trumps_in", seat, suit=self.suit(led), **words), cue)]
        return [self.say("events.discard", seat, suit=self.suit(led), **words)]

    def _cued(self, message: Message, cue: str) -> Message:
        return Message(message.text, message.priority, message.kind, cue) if cue else message

    def _trick(self, event: TrickTaken) -> Message:
        plays = zip(self._plays, event.cards, strict=False)
        winning = next((card for play, card in plays if play.seat == event.winner), None)
        if winning is None:
            winning = next((card for card in event.cards if card is not None), None)
        self._plays = []
        fields: dict[str, Any] = {"trick": event.trick, "card": self.card(winning) if winning else ""}
        cue = ""
        if self.narrator.sounds and self.listener is not None and (event.collected or not self.rules.is_double_sir):
            ours = event.winner % 2 == self.listener % 2
            cue = f"capture {'you' if ours else 'other'} {4 * max(event.collected, 1)}"
        if self.narrator.verbosity == "brief":
            key = "events.brief_trick_sound" if cue else "events.brief_trick"
            message = self.say(key, event.winner)
        elif not self.rules.is_double_sir:
            message = self.say("events.trick", event.winner, tricks=self.tricks_words(event.won), **fields)
        elif event.collected:
            message = self.say("events.trick_collect", event.winner, collected=event.collected,
                               tricks=self.tricks_words(event.won), **fields)
        else:
            message = self.say("events.trick_centre", event.winner, centre=event.centre, **fields)
        return self._cued(message, cue)

    def worth(self, event: DealEnded, before: tuple[int, int]) -> str:
        """What the deal added to the winners' score: "2 points", "1 court", "no court"."""
        gained = event.score[event.winner] - before[event.winner]
        courts = self.rules.scoring.mode is ScoringMode.COURTS
        if courts:
            if gained == 0:
                return self._template("events.no_courts")
            return self._template("events.court") if gained == 1 else self._template("events.courts").format(
                count=gained)
        return self._template("events.point") if gained == 1 else self._template("events.points").format(count=gained)

    def _deal_end(self, event: DealEnded) -> Message:
        before = self._score_before
        self._score_before = event.score
        team = event.winner
        won, lost = event.tricks[team], event.tricks[1 - team]
        fields: dict[str, Any] = {"deal": event.deal, "won": won, "lost": lost, "points": self.worth(event, before),
                  "score": self.score_words(event.score), "team": self.team_name(team),
                  "Team": self.team_name(team, capital=True)}
        kind = event.kind
        if kind == "win":
            key = "events.deal_win"
        elif kind == "52-court":
            key = "events.deal_52"
        elif kind == "goon court":
            key = "events.deal_goon_13" if won == 13 else "events.deal_goon"
        elif won == 13:
            key = "events.deal_court_13"
        elif self.rules.is_double_sir:
            key = "events.deal_court_streak"
        else:
            key = "events.deal_court"
        cue = "court" if self.narrator.sounds and kind != "win" else ""
        return self._cued(self.say(key, None, Priority.URGENT, "deal end", **fields), cue)

    def _end(self, event: SessionEnded) -> Message:
        if event.winner is None:
            ours = self.listener % 2 if self.listener is not None else 0
            return self.say("events.end_none", None, Priority.URGENT, "end", ours=event.score[ours],
                            theirs=event.score[1 - ours])
        key = "events.end_52" if event.reason == "52-court" else "events.end_won"
        message = self.say(key, None, Priority.URGENT, "end", team=self.team_name(event.winner),
                           ours=event.score[event.winner], theirs=event.score[1 - event.winner])
        won = self.listener is None or event.winner == self.listener % 2
        cue = ("won" if won else "lost") if self.narrator.sounds else ""
        return Message(message.text, message.priority, message.kind, cue)

    # ----- prompts -------------------------------------------------------------------------

    def turn_prompt(self, view: SeatView) -> list[Message]:
        """It is the listener's turn: what to do, in one line (the trump choice says the first five)."""
        cue = "your turn" if self.narrator.sounds else ""
        if view.phase is Phase.TRUMP:
            mode = self.rules.options.trump.value
            key = {"card": "prompt.trumps_card", "hidden": "prompt.trumps_hidden"}.get(mode, "prompt.trumps")
            text = self.say(key, None, Priority.URGENT, "your turn", hand=self.hand_words(view.hand)).text
            if mode == "later":
                text += self._template("prompt.trumps_later")
            if any(type(choice).__name__ == "AskRedeal" for choice in view.choices):
                text += self._template("prompt.trumps_redeal")
            return [Message(text, Priority.URGENT, "your turn", cue)]
        led = view.led_suit
        if led < 0:
            message = self.say("prompt.lead", None, Priority.URGENT, "your turn", trick=view.trick_number)
        else:
            count = bin(view.hand_mask & (0x1FFF << (13 * led))).count("1")
            suit = self.suit(SUITS[led])
            if count:
                message = self.say("prompt.follow", None, Priority.URGENT, "your turn", suit=suit, count=count)
            elif view.face_down_only:
                message = self.say("prompt.void_face_down", None, Priority.URGENT, "your turn", suit=suit)
            elif view.may_reveal:
                message = self.say("prompt.void_hidden", None, Priority.URGENT, "your turn", suit=suit)
            elif view.trump >= 0 and view.hand_mask & (0x1FFF << (13 * view.trump)):
                message = self.say("prompt.void_trump", None, Priority.URGENT, "your turn", suit=suit)
            else:
                message = self.say("prompt.void", None, Priority.URGENT, "your turn", suit=suit)
        return [Message(message.text, message.priority, message.kind, cue)]

    # ----- a computer's reasons ----------------------------------------------------------------

    def reason(self, explanation: Explanation, view: SeatView) -> str:
        """A bot's reason as one phrase in the listener's language (``[messages.court_piece.reasons]``)."""
        reasons: dict[str, str] = self.narrator.prompts.messages[SECTION].get("reasons", {})
        template = reasons.get(explanation.reason, "{card}")
        parts: dict[str, str] = {}
        if explanation.card is not None:
            parts["card"] = self.card(explanation.card)
            parts["one"] = str(self._words()["suit_one"][explanation.card.suit.value])
        if explanation.cards:
            parts["other"] = self.card(explanation.cards[0])
        if explanation.suit is not None:
            parts["suit"] = self.suit(explanation.suit)
        if view.current and view.current[0].card >= 0:
            parts["led"] = self.suit(SUITS[view.current[0].card // 13])
        elif explanation.suit is not None:
            parts["led"] = self.suit(explanation.suit)
        if explanation.seat is not None:
            parts["seat"] = self.narrator.seat_name(explanation.seat)

        def optional(match: re.Match[str]) -> str:
            inner = match.group(1)
            return inner if all(name in parts for name in _FIELD.findall(inner)) else ""

        text = _OPTIONAL.sub(optional, template)
        return _FIELD.sub(lambda match: parts.get(match.group(1), ""), text)

    # ----- answers -------------------------------------------------------------------------

    def answer(self, key: str, seat: int | None = None, **fields: Any) -> Message:
        return self.say(f"answer.{key}", seat, Priority.URGENT, "answer", **fields)

    def refusal(self, refusal: Refusal, seat: int | None = None) -> Message:
        fields: dict[str, Any] = {}
        if refusal.suit is not None:
            fields["suit"] = self.suit(refusal.suit)
        if refusal.card is not None:
            fields["card"] = self.card(refusal.card)
            fields["Card"] = fields["card"][:1].upper() + fields["card"][1:]
        key = refusal.reason.name.lower()
        return self.say(f"refuse.{key}", seat, Priority.URGENT, "answer", **fields)

    def reason_words(self, refusal: Refusal) -> str:
        """A refusal as a phrase inside another sentence ("you must follow hearts")."""
        text = self.refusal(refusal).text.rstrip(".।")
        return text[:1].lower() + text[1:]

    def cursor(self, card: Card, refusal: Refusal | None, face_down: bool = False) -> Message:
        if refusal is not None and refusal.reason is not Reason.NOT_YOUR_TURN:
            return self.answer("cursor_no", card=self.card(card), reason=self.reason_words(refusal))
        return self.answer("cursor_face_down" if face_down else "cursor", card=self.card(card))

    def hand(self, view: SeatView) -> Message:
        text = self.answer("hand", count=len(view.hand), hand=self.hand_words(view.hand)).text
        if view.own_trump_card >= 0:
            text += self._template("answer.hand_aside").format(card=self.card(CARD_OF[view.own_trump_card]))
        return Message(text, Priority.URGENT, "answer")

    def _play_items(self, plays: Sequence[Play]) -> str:
        items = []
        for play in plays:
            who = self.narrator.seat_name(play.seat)
            if play.card < 0:
                items.append(self._template("answer.play_item_down").format(who=who))
            else:
                items.append(self._template("answer.play_item").format(who=who, card=self.card(CARD_OF[play.card])))
        return "; ".join(items)

    def trick(self, view: SeatView) -> Message:
        if not view.current:
            return self.answer("trick_none", view.leader, trick=view.trick_number)
        winning = trick_leader_so_far(view.current, view.trump)
        plays = self._play_items(view.current)
        if winning < 0:
            return self.answer("trick_so_far_none", trick=view.trick_number, plays=plays)
        return self.answer("trick_so_far", view.current[winning].seat, trick=view.trick_number, plays=plays)

    def last_trick(self, view: SeatView) -> Message:
        if not view.tricks:
            return self.answer("no_last_trick")
        last = view.tricks[-1]
        return self.answer("last_trick", last.winner, trick=last.number, plays=self._play_items(last.plays))

    def tricks(self, view: SeatView) -> Message:
        if self.rules.is_double_sir:
            return self.answer("tricks_centre", tricks=self.tricks_words(view.won), centre=view.centre)
        return self.answer("tricks", tricks=self.tricks_words(view.won))

    def score(self, view: SeatView) -> Message:
        scoring = self.rules.scoring
        if scoring.mode is ScoringMode.COURTS:
            text = self.answer("score_deals", score=self.score_words(view.score), deal=view.deal,
                               deals=scoring.deals).text
        else:
            text = self.answer("score", score=self.score_words(view.score), goal=self.goal_words()).text
        if self.rules.is_double_sir:
            for team in (0, 1):
                if view.streak[team]:
                    text += self._template("answer.streak").format(team=self.team_name(team), count=view.streak[team])
        return Message(text, Priority.URGENT, "answer")

    def trumps(self, view: SeatView) -> Message:
        if view.phase is Phase.TRUMP:
            return self.answer("trumps_choosing", view.caller)
        if view.trump >= 0:
            suit = self.suit(SUITS[view.trump])
            text = self.answer("trumps", Suit=suit[:1].upper() + suit[1:]).text
        elif view.own_trump_card >= 0:
            card = CARD_OF[view.own_trump_card]
            text = self.answer("trumps_hidden_own", card=self.card(card), suit=self.suit(card.suit)).text
        elif view.trump_hidden:
            text = self.answer("trumps_hidden", view.caller).text
        else:
            text = self.answer("trumps_none").text
        if view.face_up_trump_card >= 0:
            caller = self.narrator.seat_name(view.caller)
            text += self._template("answer.trumps_face_up").format(
                Who=caller[:1].upper() + caller[1:], card=self.card(CARD_OF[view.face_up_trump_card]))
        return Message(text, Priority.URGENT, "answer")

    def whose_turn(self, view: SeatView) -> Message:
        seat = view.to_act
        if seat is None:
            return self.narrator.say("status", "over")
        key = "whose_turn_trumps" if view.phase is Phase.TRUMP else "whose_turn"
        return self.answer(key, seat)

    def gone(self, view: SeatView, suit: Suit) -> Message:
        number = SUIT_INDEX[suit]
        mask = 0x1FFF << (13 * number)
        played = view.seen_mask & mask
        cards = [CARD_OF[i] for i in range(13 * number + 12, 13 * number - 1, -1) if played >> i & 1]
        out = 13 - len(cards) - bin(view.hand_mask & mask).count("1")
        if view.own_trump_card >= 0 and CARD_OF[view.own_trump_card].suit is suit:
            out -= 1
        left = self._template("answer.gone_all") if out == 0 else self._template("answer.gone_left").format(count=out)
        word = self.suit(suit)
        if not cards:
            return self.answer("gone_none", suit=word, left=left[:1].upper() + left[1:])
        return self.answer("gone", Suit=word[:1].upper() + word[1:],
                           cards=self.narrator.join([self.rank_word(card) for card in cards]),
                           left=left[:1].upper() + left[1:])
