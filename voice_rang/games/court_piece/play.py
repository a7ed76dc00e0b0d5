"""Court Piece at the table: a session, its computer seats, the hand browsed without looking, and
every question a listener needs, behind :class:`~voice_rang.game.GamePlay`.

Commands come as ids from keys (``hand next``, ``suit H``, ``cursor``, ``trick`` …) or as typed
words (``queen of hearts``, ``lowest heart``, ``hearts are trumps``), which :mod:`.phrases`
reads. A person's choice becomes an engine action; a refused one is said with its reason and
changes nothing. Each person hears only their own view; with several people at one keyboard the
table says whose turn it is and waits ("pass the keyboard to …") before it says anyone's hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random
from typing import Any

from ...cards import Card, Rank, Suit
from ...game import Happened, SeatKind
from ...messages import Message
from ...narration import Narrator
from .actions import (
    Action,
    AskRedeal,
    DeclineTrumpCard,
    NameTrump,
    PlayCard,
    Reason,
    Refusal,
    RevealTrump,
    SetTrumpCard,
    TrumpLater,
)
from .bots import Bot, make_bot
from .deck import CARD_OF, POWER_OF, SUIT_INDEX, bits, index_of
from .narration import CourtPieceNarration, hand_order
from .phrases import Phrases
from .rules import Rules, TrumpMode
from .seat_events import SeatFeed
from .session import Session
from .spoken import Spoken, spoken_moves
from .view import Phase, SeatView

__all__ = ["QUESTIONS", "CourtPiecePlay"]

QUESTIONS = ("hand", "trick", "last trick", "tricks", "score", "trumps", "whose turn", "hint")
"""What a listener can ask at any time, by one word or one key each."""
_PUBLIC_QUESTIONS = frozenset({"tricks", "score", "whose turn"})
"""Questions whose answers hold nothing of anyone's hand: asked before anyone has the keyboard."""
_NAVIGATION = ("hand previous", "hand next", "suit previous", "suit next", "hand lowest", "hand highest")
_MOVE_KINDS = frozenset({"cursor", "reveal", "redeal", "decline", "later", "play", "down", "name", "set",
                         "lowest", "highest", "rank", "trump"})
_SIMPLE_MOVES: dict[str, Action] = {"reveal": RevealTrump(), "redeal": AskRedeal(), "decline": DeclineTrumpCard()}
_WHOLE_IDS = frozenset(QUESTIONS) | frozenset(_NAVIGATION) | {"cursor", "reveal", "redeal", "decline",
                                                             "later 7", "later 10", "ready"}


class CourtPiecePlay:
    """One table's sessions of Court Piece.

    ``new_session(number)`` makes each session (and remembers how, for the save); ``people`` are
    the seats of the people at this device; ``levels`` the computer level of every seat (for a
    person's seat, the level that plays for them when they switch auto-play on).
    """

    name = "court-piece"
    seats = 4
    auto_section = "court_piece.answer"
    auto_commands = ("auto-play on", "auto-play off", "auto-play toggle")

    def __init__(
        self,
        narrator: Narrator,
        phrases: Phrases,
        rules: Rules,
        new_session: Callable[[int], Session],
        *,
        people: Sequence[int],
        levels: Sequence[str],
        bot_rng: Random,
        hint_budget: float = 0.5,
    ) -> None:
        self.narrator = narrator
        narrator.partners = True
        narrator.listener = people[0] if len(people) == 1 else None
        self.phrases = phrases
        self.rules = rules
        self._new_session = new_session
        self.people = tuple(people)
        self.levels = tuple(levels)
        self._bot_rng = bot_rng
        self._hint_budget = hint_budget
        self.number = -1
        self.session: Session | None = None
        self.narration = CourtPieceNarration(narrator, rules)
        self._feed = SeatFeed(narrator.listener)
        self._bots: dict[int, Bot] = {}
        self._hinter: Bot | None = None
        self._cursor: dict[int, Card] = {}
        self._holder: int | None = people[0] if len(people) == 1 else None
        """The person who has the keyboard: whose hand and view the answers are about."""
        self._passing: int | None = None
        """The person the keyboard is being passed to; nothing private is said until they take it."""
        self._spoken: dict[str, Spoken] = {}
        """The legal moves of the person whose turn it is, as they may be said (:meth:`spoken_moves`)."""

    # ----- the game ------------------------------------------------------------------------

    @property
    def game(self) -> Session | None:
        return self.session

    @property
    def to_act(self) -> int | None:
        return None if self.session is None else self.session.to_act

    @property
    def is_over(self) -> bool:
        return self.session is None or self.session.is_over

    def deal(self, number: int) -> Happened:
        self.number = number
        self.session = self._new_session(number)
        self._bots.clear()
        self._cursor.clear()
        self._feed = SeatFeed(self.narrator.listener)
        self.narration = CourtPieceNarration(self.narrator, self.rules)
        return self._happened(self.session.start())

    def resume(self, game: Any) -> list[Message]:
        """Go on with a session rebuilt from its save."""
        assert isinstance(game, Session)
        self.session = game
        self.number = game.number
        seat = game.to_act if game.to_act is not None else 0
        listener = self.narrator.listener
        view = game.view(listener if listener is not None else seat)
        self.narration.catch_up(view, view.score)
        self._feed = SeatFeed(listener)
        self._feed.catch_up(view)
        return [self.narration.answer("resumed", seat, game=game.number + 1, deal=game.deal_number,
                                      trick=game.trick_number)]

    def _happened(self, events: list[Any]) -> Happened:
        assert self.session is not None
        self._spoken = {}
        listener = self.narrator.listener
        view = self.session.view(listener) if listener is not None else None
        messages = self.narration.events(self._feed.take(events, view))
        return Happened(events, messages, moved=True)

    def _view(self, seat: int) -> SeatView:
        assert self.session is not None
        return self.session.view(seat)

    # ----- whose turn ----------------------------------------------------------------------

    def prompt(self, seat: int) -> list[Message]:
        if len(self.people) > 1 and self._holder != seat:
            self._passing = seat
            name = self.narrator.seat_name(seat)
            return [self.narration.say("prompt.pass_keyboard", None, kind="your turn", name=name,
                                       Name=name[:1].upper() + name[1:])]
        view = self._view(seat)
        self._cursor.pop(seat, None)
        self._cursor_to_first_legal(seat, view)
        self._spoken = spoken_moves(view) if seat in self.people else {}
        with self.narration.speaking_to(seat):
            return self.narration.turn_prompt(view)

    # ----- the voice -------------------------------------------------------------------------

    def spoken_moves(self) -> dict[str, Spoken]:
        """The moves the person whose turn it is may say now, with their phrases (empty while it
        is nobody's here). Made on the table's thread when the turn is prompted and dropped when
        anything happens, so the listener's thread reads a whole one, never one half made."""
        return self._spoken

    def move_name(self, command: str) -> str:
        """How a question names a move: "the queen of hearts", "hearts as trumps"."""
        found = self.canonical(command) or command
        kind, _, argument = found.partition(" ")
        words: dict[str, str] = self.narrator.prompts.messages["court_piece"]["answer"]["move_name"]
        if kind == "play":
            return self.narration.card(Card(argument))
        if kind in ("down", "set"):
            return words[kind].format(card=self.narration.card(Card(argument)))
        if kind == "name":
            return words["name"].format(suit=self.narration.suit(Suit(argument)))
        if kind == "later":
            return words["later"].format(position=self.narration._template(f"answer.position.{argument}"))
        return words.get(kind, found)

    def caution_question(self, command: str) -> Message | None:
        """The question asked before a move that deserves one (:class:`.spoken.Caution`), or None."""
        spoken = self._spoken.get(command)
        if spoken is None or spoken.caution is None:
            return None
        card = self.narration.card(spoken.card) if spoken.card is not None else ""
        return self.narration.answer(f"confirm_{spoken.caution.value}", card=card, Card=card[:1].upper() + card[1:])

    def automatic(self, seat: int, computer: bool) -> Happened:
        assert self.session is not None
        bot = self._bots.get(seat)
        if bot is None:
            bot = self._bots[seat] = make_bot(self.levels[seat], Random(self._bot_rng.random()))
        return self._happened(self.session.apply(seat, bot.decide(self._view(seat))))

    # ----- commands ------------------------------------------------------------------------

    def canonical(self, command: str) -> str | None:
        """A command id as this game knows it, from an id or from typed words."""
        if command in _WHOLE_IDS or command.startswith(("suit ", "gone ", "later ")):
            return command
        return self.phrases.parse(command)

    def is_move(self, command: str) -> bool:
        found = self.canonical(command)
        if found is None or self.session is None:
            return False
        kind = found.partition(" ")[0]
        if kind == "suit" and command != found:  # a suit said alone: while trumps are chosen, it names them
            return self.session.phase is Phase.TRUMP and self.rules.options.trump in (TrumpMode.NAMED, TrumpMode.LATER)
        return kind in _MOVE_KINDS

    def command(self, seat: int, command: str, kinds: Sequence[SeatKind]) -> Happened | None:
        del kinds
        found = self.canonical(command)
        if found is None or self.session is None:
            return None
        if self._passing is not None:
            if found in ("cursor", "ready"):
                return self._take_keyboard()
            name = self.narrator.seat_name(self._passing)
            return Happened(messages=[self.narration.answer("pass_first", name=name)])
        if found == "ready":
            return Happened()
        if self.is_move(command):
            return self._move(seat, found, said_suit=command != found)
        holder = self._holder
        if holder is None:
            # Several people, and nobody has been handed the keyboard yet: nothing of any hand.
            if found not in _PUBLIC_QUESTIONS:
                return Happened(messages=[self.narration.answer("no_holder")])
            holder = seat
        with self.narration.speaking_to(holder if len(self.people) > 1 else self.narrator.listener):
            return self._question(holder, found)

    # ----- a guest's seat (its own device asks, the host answers from that seat's view) --------

    def move_for(self, seat: int, command: str) -> Happened:
        """A move by the guest at ``seat`` (the caller has checked that it is that seat's turn):
        what it did, or one message saying why not."""
        found = self.canonical(command)
        assert found is not None and self.session is not None
        view = self._view(seat)
        with self.narration.speaking_to(seat):  # a refusal is said to the guest, what it did to the host
            action = self._action(seat, view, found, said_suit=command != found)
            if isinstance(action, Message):
                return Happened(messages=[action])
            refusal = self.session.check(seat, action)
            if refusal is not None:
                return Happened(messages=[self.narration.refusal(refusal)])
        self._cursor.pop(seat, None)
        return self._happened(self.session.apply(seat, action))

    def answer_for(self, seat: int, command: str) -> list[Message] | None:
        """A guest's question about its own seat ("hand", "trick", the arrows through its hand):
        the answer from that seat's view alone; None when it is not one. No hint: a guest's
        device plays its own game."""
        found = self.canonical(command)
        if found is None or self.session is None or found == "hint" or self.is_move(command):
            return None
        with self.narration.speaking_to(seat):
            happened = self._question(seat, found)
        return None if happened is None else happened.messages

    def action_words(self, action: Action) -> str:
        """A move in words, as a hint says it ("name hearts as trumps"): a page's button for it."""
        return self._action_words(action)

    def _take_keyboard(self) -> Happened:
        assert self._passing is not None
        self._holder, self._passing = self._passing, None
        view = self._view(self._holder)
        messages = []
        if view.phase is not Phase.TRUMP:
            with self.narration.speaking_to(self._holder):
                messages.append(self.narration.hand(view))
        messages.extend(self.prompt(self._holder))
        return Happened(messages=messages)

    def commands_now(self, seat: int | None) -> set[str]:
        return set() if self.is_over else set(QUESTIONS)

    def _move(self, seat: int, found: str, *, said_suit: bool) -> Happened:
        view = self._view(seat)
        action = self._action(seat, view, found, said_suit=said_suit)
        if isinstance(action, Message):
            return Happened(messages=[action])
        assert self.session is not None
        refusal = self.session.check(seat, action)
        if refusal is not None:
            return Happened(messages=[self.narration.refusal(refusal)])
        self._cursor.pop(seat, None)
        return self._happened(self.session.apply(seat, action))

    def _action(self, seat: int, view: SeatView, found: str, *, said_suit: bool) -> Action | Message:
        """The engine action a move command means in this view, or what to say instead."""
        kind, _, argument = found.partition(" ")
        if kind in _SIMPLE_MOVES:
            return _SIMPLE_MOVES[kind]
        if kind == "later":
            return TrumpLater(7 if argument == "7" else 10)
        if kind == "play":
            return PlayCard(Card(argument))
        if kind == "down":
            return PlayCard(Card(argument), face_down=True)
        if kind == "set":
            return SetTrumpCard(Card(argument))
        if kind in ("name", "suit"):
            return NameTrump(Suit(argument))
        if kind == "cursor":
            card = self._cursor.get(seat) or self._cursor_to_first_legal(seat, view)
            if card is None:
                return self.narration.answer("cursor_empty")
            if view.phase is Phase.TRUMP:
                if self.rules.options.trump in (TrumpMode.CARD, TrumpMode.HIDDEN):
                    return SetTrumpCard(card)
                return NameTrump(card.suit)
            return PlayCard(card, face_down=view.face_down_only)
        return self._chosen_card(view, kind, argument)

    def _chosen_card(self, view: SeatView, kind: str, argument: str) -> Action | Message:
        """"lowest heart", "highest", "trump", "queen": the one legal card it means, or a question."""
        if view.phase is not Phase.PLAY:
            return self.narration.refusal(Refusal(Reason.CHOOSE_TRUMPS_FIRST))
        legal = view.legal_mask
        if kind in ("lowest", "highest") and argument:
            legal &= 0x1FFF << (13 * SUIT_INDEX[Suit(argument)])
        elif kind == "trump":
            legal = legal & (0x1FFF << (13 * view.trump)) if view.trump >= 0 else 0
        elif kind == "rank":
            legal = sum(1 << index for index in bits(legal) if CARD_OF[index].rank is _rank(argument))
        cards = bits(legal)
        if not cards:
            what = self._what_word(kind, argument)
            return self.narration.answer("no_such", what=what)
        if kind == "rank" and len(cards) > 1:
            return self.narration.answer("which", cards=self._or_list([CARD_OF[i] for i in cards]))
        by_power = sorted(cards, key=lambda index: (POWER_OF[index], index))
        choice = by_power[-1] if kind == "highest" else by_power[0]
        return PlayCard(CARD_OF[choice], face_down=view.face_down_only)

    def _what_word(self, kind: str, argument: str) -> str:
        if kind == "rank":
            return str(self.narrator.prompts.messages["words"]["ranks"][_rank(argument) - 1])
        if kind == "trump":
            return self.narration._template("words.trump_word")
        if argument:
            return self.narration.suit(Suit(argument))
        return self.narration._template("words.card_word")

    def _or_list(self, cards: list[Card]) -> str:
        names = [self.narration.card(card) for card in cards]
        if len(names) <= 1:
            return "".join(names)
        word = self.narration._template("words.or")
        return f"{', '.join(names[:-1])} {word} {names[-1]}"

    # ----- questions and the hand ------------------------------------------------------------

    def _question(self, seat: int, found: str) -> Happened | None:
        view = self._view(seat)
        kind, _, argument = found.partition(" ")
        answers: dict[str, Callable[[], Message]] = {
            "hand": lambda: self.narration.hand(view),
            "trick": lambda: self.narration.trick(view),
            "last trick": lambda: self.narration.last_trick(view),
            "tricks": lambda: self.narration.tricks(view),
            "score": lambda: self.narration.score(view),
            "trumps": lambda: self.narration.trumps(view),
            "whose turn": lambda: self.narration.whose_turn(view),
            "hint": lambda: self._hint(view),
        }
        if found in answers:
            return Happened(messages=[answers[found]()])
        if kind == "gone":
            return Happened(messages=[self.narration.gone(view, Suit(argument))])
        if found in _NAVIGATION or kind == "suit":
            return Happened(messages=[self._browse(seat, view, found)])
        return None

    def _hand_list(self, view: SeatView) -> list[Card]:
        return hand_order(view.hand, view.trump_suit)

    def _cursor_to_first_legal(self, seat: int, view: SeatView) -> Card | None:
        """Put the cursor on the first card this seat may play now (its first card otherwise)."""
        cards = self._hand_list(view)
        if not cards:
            return None
        legal = [card for card in cards if view.legal_mask >> index_of(card) & 1]
        self._cursor[seat] = (legal or cards)[0]
        return self._cursor[seat]

    def _browse(self, seat: int, view: SeatView, found: str) -> Message:
        cards = self._hand_list(view)
        if not cards:
            return self.narration.answer("cursor_empty")
        current = self._cursor.get(seat)
        position = cards.index(current) if current in cards else 0
        suit = cards[position].suit
        in_suit = [card for card in cards if card.suit is suit]
        if found == "hand next":
            position = min(position + 1, len(cards) - 1)
        elif found == "hand previous":
            position = max(position - 1, 0)
        elif found in ("suit next", "suit previous"):
            starts = [i for i, card in enumerate(cards) if i == 0 or cards[i - 1].suit is not card.suit]
            group = max(i for i, start in enumerate(starts) if start <= position)
            group = min(group + 1, len(starts) - 1) if found == "suit next" else max(group - 1, 0)
            position = starts[group]
        elif found == "hand lowest":
            position = cards.index(in_suit[-1])
        elif found == "hand highest":
            position = cards.index(in_suit[0])
        elif found.startswith("suit "):
            wanted = Suit(found[5:])
            matching = [i for i, card in enumerate(cards) if card.suit is wanted]
            if not matching:
                return self.narration.answer("no_suit", suit=self.narration.suit(wanted))
            position = matching[0]
        card = cards[position]
        self._cursor[seat] = card
        return self._cursor_words(seat, view, card)

    def _cursor_words(self, seat: int, view: SeatView, card: Card) -> Message:
        refusal = None
        if view.phase is Phase.PLAY and view.to_act == seat and self.session is not None:
            refusal = self.session.check(seat, PlayCard(card, face_down=view.face_down_only))
        return self.narration.cursor(card, refusal, face_down=view.face_down_only and view.to_act == seat)

    def _hint(self, view: SeatView) -> Message:
        if view.to_act != view.seat:
            return self.narration.answer("hint_none")
        if self._hinter is None:
            self._hinter = make_bot("strong", Random(self._bot_rng.random()), budget=self._hint_budget)
        action = self._hinter.decide(view)
        reason = self.narration.reason(self._hinter.explain(view, action), view)
        return self.narration.answer("hint", action=self._action_words(action), reason=reason)

    def _action_words(self, action: Action) -> str:
        template = self.narration._template
        if isinstance(action, PlayCard):
            key = "answer.hint_action_face_down" if action.face_down else "answer.hint_action_play"
            return template(key).format(card=self.narration.card(action.card))
        if isinstance(action, RevealTrump):
            return template("answer.hint_action_reveal")
        if isinstance(action, NameTrump):
            return template("answer.hint_action_name").format(suit=self.narration.suit(action.suit))
        if isinstance(action, SetTrumpCard):
            return template("answer.hint_action_set").format(card=self.narration.card(action.card))
        if isinstance(action, TrumpLater):
            return template("answer.hint_action_later").format(position=template(f"answer.position.{action.position}"))
        if isinstance(action, AskRedeal):
            return template("answer.hint_action_redeal")
        return template("answer.hint_action_decline")

    # ----- the table's questions -------------------------------------------------------------

    def status(self, auto: Sequence[bool]) -> list[Message]:
        del auto
        seat = self._holder if self._holder is not None else (self.to_act or 0)
        view = self._view(seat)
        return [self.narration.whose_turn(view), self.narration.trumps(view), self.narration.tricks(view),
                self.narration.score(view)]

    def help(self, state: str) -> list[Message]:
        if state == "turn" and self.session is not None and self.session.phase is Phase.TRUMP:
            state = "trumps"
        return [self.narration.say(f"help.now_{state}", kind="help")]

    def keys_help(self) -> Message:
        return self.narration.say("help.keys", kind="help")

    def stopped(self, key: str, **fields: Any) -> Message:
        assert self.session is not None
        return self.narration.answer(key, deal=self.session.deal_number, trick=self.session.trick_number, **fields)



def _rank(code: str) -> Rank:
    """The rank of a rank code (``Q``, ``10``)."""
    return Card(code + "C").rank
