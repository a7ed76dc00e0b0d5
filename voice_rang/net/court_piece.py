"""Court Piece hosted: each guest seat gets its own news on its own channel, and nothing more.

The table's events are the host's record (every hand). Here, on the table's thread, each guest
seat's :class:`~voice_rang.games.court_piece.seat_events.SeatFeed` turns every batch into that
seat's projection, a narration of its own words it (as the table words the host's), and the seat's
view gives its board: its hand, the trick, the last trick, the score and trumps. All of it goes out
as one :class:`~voice_rang.net.protocol.Private` on the seat's
:class:`~voice_rang.net.server.SeatChannel`. What every seat may hear (who sits where, whose
turn) stays public. A guest's command comes back as words ("queen of hearts", "hand") and is
read for its seat alone: a move only when it is that seat's turn, a question from that seat's view.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..cards import Card, Suit
from ..commands import CommandSet
from ..games.court_piece.actions import (
    PlayCard,
    command_of,
)
from ..games.court_piece.deck import CARD_OF, index_of
from ..games.court_piece.events import DealEnded, SessionStarted
from ..games.court_piece.narration import CourtPieceNarration, hand_order
from ..games.court_piece.play import CourtPiecePlay
from ..games.court_piece.seat_events import SeatEvent, SeatFeed, TrickTaken
from ..games.court_piece.view import Phase, SeatView
from ..messages import Message, Priority
from ..narration import Narrator
from .host import HostBridge
from .protocol import Answer, Board, HandCard, Line, Private, SuitGroup, Turn
from .seating import SeatHooks
from .server import HostServer, SeatChannel
from .view import MISSED_LINES

__all__ = ["CourtPieceBridge"]

_log = logging.getLogger("voice_rang.net")


@dataclass
class _SeatNews:
    """One guest seat's side of the session: its feed, its own words, what it has been told."""

    feed: SeatFeed
    narration: CourtPieceNarration
    said: list[Line] = field(default_factory=list)
    names: dict[Card, str] = field(default_factory=dict)
    """Each card's name on its button, worded once."""
    away_at: int | None = None
    """How much it had been told when its guest dropped (what it missed is said on its return)."""


class CourtPieceBridge(HostBridge):
    """Links a table of Court Piece to its server: per-seat news out, guests' words in."""

    def __init__(self, narrator: Narrator, log: Callable[[list[Any]], None] | None, play: CourtPiecePlay,
                 commands: CommandSet) -> None:
        super().__init__(narrator, log)
        self.play = play
        self.commands = commands
        """The game's commands in the host's words: a guest's typed line is read as the host's would be."""
        self._news_of: dict[int, _SeatNews] = {}
        self._channels: dict[int, SeatChannel] = {}
        self._turn_said: tuple[int, int | None] | None = None

    def attach(self, table: Any, server: HostServer) -> None:
        super().attach(table, server)
        self.table.reply = self._answer_guest
        self._channels = {seat: server.channel(seat) for seat in range(1, self.play.seats)}
        self._fresh()

    def hooks(self) -> SeatHooks:
        hooks = super().hooks()
        hooks.dropped = self._dropped
        hooks.swapped = self._swapped
        return hooks

    # ----- the lobby: who partners whom ------------------------------------------------------------

    def lobby_command(self, command: str) -> Message | None:
        """``partner 3`` (guest 3 sits across from the host) or ``swap 1 3`` (guests 1 and 3 change
        seats), in the host's words; None when ``command`` is neither."""
        words = command.lower().split()
        net = self.narrator.prompts.messages["court_piece"]["net"]
        seats = [int(word) for word in words[1:] if word.isdecimal()]
        if len(words) == 2 and words[0] in net["partner_words"] and len(seats) == 1:
            pair = (seats[0], 2)
        elif len(words) == 3 and words[0] in net["swap_words"] and len(seats) == 2:
            pair = (seats[0], seats[1])
        else:
            return None
        if not all(0 < seat < self.play.seats for seat in pair) or pair[0] == pair[1]:
            return self.narrator.say("court_piece", "net.swap_no", None, kind="answer", last=self.play.seats - 1)
        assert self.server is not None
        self.server.swap(*pair)
        return None  # said once the seats have changed

    def _swapped(self, first: int, second: int) -> None:
        for table in (self.names, self.tokens):
            _swap_keys(table, first, second)
        _swap_keys(self._wanted_auto, first, second)
        kinds = self.table.kinds
        kinds[first], kinds[second] = kinds[second], kinds[first]
        one, other = self._news_of[first].narration.narrator, self._news_of[second].narration.narrator
        one.verbosity, other.verbosity = other.verbosity, one.verbosity  # each guest's detail goes with it
        self.table.announce(self.narrator.say("court_piece", "net.swapped", None, kind="news",
                                              first=first, second=second))
        self.table.announce(self.partners(0, self.narrator))

    # ----- out ---------------------------------------------------------------------------------

    def _fresh(self) -> None:
        """A new session: each guest seat's feed and words start again."""
        prompts = self.narrator.prompts
        for seat in self._channels:
            old = self._news_of.get(seat)
            narrator = Narrator(prompts=prompts, seats=self.play.seats, listener=seat, partners=True,
                                verbosity=old.narration.narrator.verbosity if old else self.narrator.verbosity)
            self._news_of[seat] = _SeatNews(SeatFeed(seat), CourtPieceNarration(narrator, self.play.rules),
                                            said=old.said if old else [], away_at=old.away_at if old else None)

    def taken_up(self) -> None:
        """After the table resumed a saved session: each guest seat's feed and words take it up
        where it stands, from that seat's view (nothing is said again)."""
        session = self.play.session
        assert session is not None
        for seat, news in self._news_of.items():
            view = session.view(seat)
            news.feed.catch_up(view)
            news.narration.catch_up(view, view.score)
        self.sync()

    def record(self, events: list[Any]) -> None:
        """The table's events: ``--log`` (the host's record), then each guest seat's own."""
        if self._log is not None:
            self._log(events)
        session = self.play.session
        if session is None or self.server is None:
            return
        started = any(isinstance(event, SessionStarted) for event in events)
        if started:
            self._fresh()
            self.table.announce(self.partners(0, self.narrator))
        for seat, news in self._news_of.items():
            view = session.view(seat)
            shown = news.feed.take(events, view)
            lines = [line for event in shown for line in self._worded(seat, news.narration, event)]
            if started:
                lines.insert(1 if lines else 0, self.partners(seat, news.narration.narrator))
            if view.to_act == seat and not session.is_over:
                lines.extend(news.narration.turn_prompt(view))
            self._send(seat, view, lines, shown)
        self.sync()
        self.server.caught_up()  # each play reaches every guest before the next is made

    @staticmethod
    def _worded(seat: int, narration: CourtPieceNarration, event: SeatEvent) -> list[Message]:
        """One event in ``seat``'s words; a trick to its team and a court are marked so (a page
        says them at once, as it says its turn)."""
        said = narration.event(event)
        kind = ""
        if isinstance(event, TrickTaken) and event.winner % 2 == seat % 2:
            kind = "trick ours"
        elif isinstance(event, DealEnded) and event.kind != "win":
            kind = "court"
        if not kind:
            return said
        return [Message(line.text, line.priority, kind, line.cue) for line in said]

    def partners(self, seat: int, narrator: Narrator) -> Message:
        """Who plays with whom, as ``seat`` hears it: "You and Ann against Raj and Mita"."""
        words = narrator.prompts.messages["words"]

        def name(other: int) -> str:
            given = self.names.get(other, "") if other in self.tokens else ""
            if given:
                return given
            # Named by seat, not "your partner": the line says who the partner is.
            return str(words["seat_host"]) if other == 0 else str(words["seat_guest"]).format(number=other)

        seats = self.play.seats
        return narrator.say("court_piece", "net.partners", None, Priority.NORMAL, "news",
                            partner=name((seat + 2) % seats), left=name((seat + 1) % seats),
                            right=name((seat + 3) % seats))

    def _send(self, seat: int, view: SeatView, lines: list[Message], events: list[SeatEvent] | None = None,
              remember: bool = True) -> None:
        news = self._news_of[seat]
        said = [Line(line.text, int(line.priority), line.kind) for line in lines]
        if remember:
            news.said.extend(said)
        self._channels[seat].send(Private(seat=seat, events=list(events or []), lines=said,
                                          board=self.board(seat, view, news.narration),
                                          sent=time.perf_counter()))

    def board(self, seat: int, view: SeatView, narration: CourtPieceNarration) -> Board:
        """``seat``'s board as its page shows it, from its view alone."""
        session = self.play.session
        assert session is not None
        turn = view.to_act == seat and not session.is_over
        playing = turn and view.phase is Phase.PLAY
        groups: list[SuitGroup] = []
        for card in hand_order(view.hand, view.trump_suit):
            if not groups or groups[-1].suit != card.suit.value:
                groups.append(SuitGroup(card.suit.value, "", []))
            playable = not playing or bool(view.legal_mask >> index_of(card) & 1)
            if playable and not (playing and view.face_down_only):
                words = self._card_name(seat, narration, card)
            else:
                refusal = session.check(seat, PlayCard(card, face_down=view.face_down_only)) if playing else None
                words = narration.cursor(card, refusal, face_down=playing and view.face_down_only).text
            groups[-1].cards.append(HandCard(card.code, words.rstrip(".। "), playable))
        named = []
        for group in groups:
            suit = narration.suit(Suit(group.suit))
            heading = narration.say("net.suit_heading", kind="board", Suit=suit[:1].upper() + suit[1:],
                                    count=len(group.cards)).text
            named.append(SuitGroup(group.suit, heading, group.cards))
        trick = [self._play_words(narration, play.seat, play.card) for play in view.current]
        last = ([self._play_words(narration, play.seat, play.card) for play in view.tricks[-1].plays]
                if view.tricks else [])
        choices = []
        if turn and (view.phase is Phase.TRUMP or view.may_reveal):
            choices = [HandCard(command_of(action), self.play.action_words(action), True)
                       for action in view.legal if not isinstance(action, PlayCard)]
        return Board(hand=named, trick=trick, last=last, score=narration.score(view).text,
                     trumps=narration.trumps(view).text, turn=turn, choices=choices,
                     face_down=playing and view.face_down_only)

    def _card_name(self, seat: int, narration: CourtPieceNarration, card: Card) -> str:
        """A card as its button says it ("The queen of hearts"), worded once per seat."""
        names = self._news_of[seat].names
        if card not in names:
            names[card] = narration.cursor(card, None).text
        return names[card]

    @staticmethod
    def _play_words(narration: CourtPieceNarration, seat: int, card: int) -> str:
        who = narration.narrator.seat_name(seat)
        if card < 0:
            return narration._template("answer.play_item_down").format(who=who)
        return narration._template("answer.play_item").format(who=who, card=narration.card(CARD_OF[card]))

    def sync(self) -> None:
        """Whose turn it is, to everyone, when it changed (the seat itself hears it privately)."""
        server, play = self.server, self.play
        if server is None or play.session is None:
            return
        key = (play.number, play.to_act)
        if key != self._turn_said:
            self._turn_said = key
            if play.to_act is not None:
                server.publish(Turn(seat=play.to_act, extra=False))

    # ----- in (each on the table's thread) -------------------------------------------------------

    def _tell(self, seat: int, lines: list[Message]) -> None:
        """Answer ``seat`` alone, with its board as it stands."""
        session = self.play.session
        if session is None:
            if self.server is not None:
                self.server.tell(seat, _no_game())
            return
        self._send(seat, session.view(seat), lines, remember=False)

    def _answer_guest(self, asker: int, section: str, key: str, seat: int | None, fields: dict[str, Any]) -> None:
        """The table's answer to a guest's command (auto play), worded for its seat."""
        news = self._news_of.get(asker)
        if news is None:
            return
        first, _, rest = f"{section}.{key}".partition(".")
        self._tell(asker, [news.narration.narrator.say(first, rest, seat, **fields)])

    def _refuse(self, seat: int, lines: list[Message], why: str) -> None:
        """One line to the guest; the host's log says what it tried."""
        _log.warning("refused %s from seat %s (%s): %s", why, seat, self.names.get(seat, ""),
                     " ".join(line.text for line in lines))
        self._tell(seat, lines[:1])

    def _command(self, seat: int, command: str) -> None:
        table, play = self.table, self.play
        command = self.commands.parse(command) or command
        level = command.removeprefix("verbosity ")
        if level in ("brief", "normal", "full") and seat in self._news_of:
            narrator = self._news_of[seat].narration.narrator
            narrator.verbosity = level  # type: ignore[assignment]
            if table.game is not None:
                self._tell(seat, [narrator.say("answer", "verbosity", level=level)])
            return
        if table.game is None:
            self._reply(seat, "net", "not_started", None, {})
            return
        if table.kinds[seat] != "remote" or seat not in self._news_of:
            return  # a command that was on its way when the seat dropped
        narration = self._news_of[seat].narration
        if command in play.auto_commands:
            table.handle(command, seat=seat)
            self.sync()
            return
        if play.is_move(command):
            if play.is_over:
                self._refuse(seat, [narration.narrator.say("answer", "game_over")], "a move after the end")
                return
            if play.to_act != seat:
                self._refuse(seat, [narration.narrator.say("answer", "not_your_turn", play.to_act)],
                             "a move out of turn")
                return
            happened = play.move_for(seat, command)
            if happened.moved:
                table.take_move(happened)
                self.sync()
            else:
                self._refuse(seat, happened.messages, "a move that is not allowed")
            return
        answer = play.answer_for(seat, command)
        session = play.session
        if command == "status" and session is not None:
            view = session.view(seat)
            answer = [narration.whose_turn(view), narration.trumps(view), narration.tricks(view),
                      narration.score(view)]
        elif command == "help" and session is not None:
            answer = play.help("turn" if play.to_act == seat else "over" if play.is_over else "waiting")
        if answer is None:
            self._refuse(seat, [narration.narrator.say("answer", "unknown")], "an unknown command")
            return
        self._tell(seat, answer)

    def _dropped(self, seat: int) -> None:
        news = self._news_of.get(seat)
        if news is not None and news.away_at is None:
            news.away_at = len(news.said)
        self._news("dropped", seat, self.names.get(seat, ""))

    def _back(self, seat: int) -> None:
        super()._back(seat)
        news = self._news_of.get(seat)
        session = self.play.session
        if news is None or session is None:
            return
        view = session.view(seat)
        lines: list[Message] = []
        missed = news.said[news.away_at:] if news.away_at is not None else []
        news.away_at = None
        if missed:
            lines.append(news.narration.narrator.say("net", "missed", kind="news", count=len(missed),
                                                     last=min(len(missed), MISSED_LINES)))
            lines.extend(Message(line.text, Priority(line.priority), line.kind) for line in missed[-MISSED_LINES:])
        if view.to_act == seat and not session.is_over:
            lines.extend(news.narration.turn_prompt(view))
        self._send(seat, view, lines, remember=False)


def _swap_keys(table: dict[int, Any], first: int, second: int) -> None:
    """The entries of two seats change places (a seat with none leaves the other with none)."""
    had = {seat: table.pop(seat) for seat in (first, second) if seat in table}
    for seat, value in had.items():
        table[second if seat == first else first] = value


def _no_game() -> Answer:
    return Answer(section="net", key="not_started")
