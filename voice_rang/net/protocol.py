"""The network protocol: every message between a host and its guests, as msgspec structs.

This module is the protocol's single source: ``docs/network.md`` describes it, the host and
the guests decode with the decoders here, and anything else is refused. Messages are JSON
objects over a WebSocket, one per frame, told apart by their ``type``. Guests send only
:class:`Hello`, :class:`Command`, :class:`Settings` and :class:`Leave`; the host sends only
public information: engine events (which never hold a stack's order), whose turn it is, who
sits where, and answers meant for one seat.

>>> decode_client(b'{"type":"command","command":"turn"}')
Command(command='turn')
>>> decode_client(b'{"type":"command","command":"turn","seat":2}')
Traceback (most recent call last):
...
msgspec.ValidationError: Object contains unknown field `seat`
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from ..games.court_piece.seat_events import SeatEvent
from ..games.rang_milanti import Event

__all__ = [
    "MAX_CLIENT_MESSAGE", "PROTOCOL_VERSION", "Answer", "Auto", "Board", "Bye", "ClientMessage", "Command",
    "ErrorCode", "GameName", "HandCard", "Hello", "HostMessage", "Leave", "Line", "Narration", "News",
    "Private", "Problem", "Published", "Say", "SeatKindName", "Seats", "Settings", "SuitGroup", "Turn",
    "Welcome", "decode_client", "decode_host", "encode",
]

PROTOCOL_VERSION = 1
"""Raised whenever a message changes meaning; host and guest must agree on it."""
MAX_CLIENT_MESSAGE = 1024
"""The largest message a guest may send, in bytes (a hello with a long name fits easily)."""

RemoteCommand = Literal["turn", "auto-reveal on", "auto-reveal off", "auto-reveal toggle"]
"""The only commands that go to the host: the rest (repeat, status, speed …) a guest's own
device answers."""
SeatKindName = Literal["person", "remote", "away", "computer", "open"]
"""What sits in a seat: the host's person, a connected guest, a guest gone within the grace,
a computer (standing in for a guest, or an untaken seat), or, before the start, an open seat."""
Verbosity = Literal["brief", "normal", "full"]
GameName = Literal["rang-milanti", "court-piece"]
"""The game a host plays: Rang Milanti publishes its events to all; Court Piece sends each seat its own."""
SayText = Annotated[str, msgspec.Meta(min_length=1, max_length=80)]
ErrorCode = Literal[
    "bad_message", "too_large", "too_fast", "flooding", "version", "wrong_code", "wait",
    "unknown_token", "full", "started", "hello_first", "hello_twice", "language",
]


HeardGame = Annotated[int, msgspec.Meta(ge=-1, le=1_000_000)]
HeardEvents = Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]


class _Message(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    """Every message: a JSON object whose ``type`` names it; unknown fields are refused."""


# ----- guest to host -----------------------------------------------------------------------------

class Hello(_Message, frozen=True, tag="hello"):
    """The first message: take a seat with the join code, or take one's seat back with its token.

    ``narrate``: the host words every message for this seat (a web page has no narrator of its
    own) in ``lang`` and ``verbosity``, and sends the lines in :class:`Narration`."""

    version: int
    code: str | None = None
    token: str | None = None
    name: str = ""
    narrate: bool = False
    lang: str = "en"
    verbosity: Verbosity = "normal"
    heard_game: HeardGame = -1
    heard_events: HeardEvents = 0
    """A narrated guest taking its seat back: how far it was narrated before (the first
    ``heard_events`` events of game ``heard_game``, from its last :class:`Narration`). A host taken
    up again makes again the last reveal or two it made before it stopped; those are not said
    again."""


class Command(_Message, frozen=True, tag="command"):
    """A command for the guest's own seat (and only that seat)."""

    command: RemoteCommand


class Say(_Message, frozen=True, tag="say"):
    """Court Piece: one command for the guest's own seat, as typed or as a command id ("queen of
    hearts", "play QH", "hand", "cursor"). It names no seat: the connection's seat is the only one
    it can act for, and the host reads the words as it reads its own keyboard's."""

    text: SayText


class Settings(_Message, frozen=True, tag="settings"):
    """A narrated guest's verbosity."""

    verbosity: Verbosity


class Leave(_Message, frozen=True, tag="leave"):
    """The guest leaves for good: a computer takes the seat at once."""


ClientMessage = Hello | Command | Say | Settings | Leave


# ----- host to guest -----------------------------------------------------------------------------

class Turn(_Message, frozen=True, tag="turn"):
    """Whose turn it is now; ``extra`` after a capture."""

    seat: int
    extra: bool


class Published(_Message, frozen=True, tag="events"):
    """What one reveal (or the deal) brought: engine events exactly as the event log writes them,
    then whose turn it is (``None`` once the game is over). One message a reveal keeps up with a
    table at beat 0."""

    events: list[Event]
    turn: Turn | None = None
    sent: float = 0.0
    """The host's ``time.perf_counter()`` when it sent them (for measuring delay on one machine)."""


class Auto(_Message, frozen=True, tag="auto"):
    """Auto-reveal for every seat, as it is now."""

    on: list[bool]


class Seats(_Message, frozen=True, tag="seats"):
    """What sits in each seat, and the names guests gave."""

    kinds: list[SeatKindName]
    names: list[str]


class News(_Message, frozen=True, tag="news"):
    """Someone joined, left, dropped, was stood in for by a computer, or came back."""

    key: Literal["joined", "freed", "left", "dropped", "computer", "back"]
    seat: int
    name: str = ""


class Answer(_Message, frozen=True, tag="answer"):
    """The host's answer to this guest's command, as a prompts key for the guest to word."""

    section: str
    key: str
    seat: int | None = None
    fields: dict[str, int | str] = {}


class Problem(_Message, frozen=True, tag="error"):
    """What was wrong with this guest's last message; the game is untouched."""

    code: ErrorCode
    detail: str = ""
    seconds: int = 0
    host_version: int = PROTOCOL_VERSION


class Bye(_Message, frozen=True, tag="bye"):
    """The connection ends: the host ended the table, or the seat was taken on another device."""

    reason: Literal["host_ended", "seat_taken"]


class Welcome(_Message, frozen=True, tag="welcome"):
    """A seat taken (or taken back): everything public so far in the current game."""

    version: int
    seat: int
    token: str
    seats: Seats
    cap: int
    started: bool
    events: list[Event] = []
    turn: Turn | None = None
    auto: list[bool] = []
    game: GameName = "rang-milanti"
    """Court Piece: ``events`` stays empty, and the seat's own catch-up follows as :class:`Private`."""


class Line(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One narrated line for a web page: its words, urgency (0 chatty, 1 normal, 2 urgent), kind."""

    text: str
    priority: int
    kind: str


class Narration(_Message, frozen=True, tag="narration"):
    """For a narrated guest: the lines to announce and the board as text lines."""

    lines: list[Line]
    board: list[str] = []
    game: int = -1
    events: int = 0
    """How far this seat has been narrated: the first ``events`` events of game ``game`` (sent
    back in a later :class:`Hello`)."""


class HandCard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One card of the seat's own hand: its code, its accessible name (with why it cannot be played
    now, when it cannot), and whether it can be played."""

    code: str
    name: str
    playable: bool


class SuitGroup(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The seat's cards of one suit, as the hand is said (trumps first, high to low)."""

    suit: str
    heading: str
    cards: list[HandCard]


class Board(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Court Piece: what one seat sees of the table now, worded for it (a page shows it as is)."""

    hand: list[SuitGroup]
    trick: list[str]
    last: list[str]
    score: str
    trumps: str
    turn: bool
    """It is this seat's turn."""
    choices: list[HandCard] = []
    """While it calls trumps (or may ask for a hidden one): each choice, ``code`` the command it sends."""
    face_down: bool = False
    """Hidden Rung: its card goes face down (``code face down``) unless it shows the trump."""


class Private(_Message, frozen=True, tag="private"):
    """Court Piece: one seat's own news, sent on that seat's connection and no other.

    ``events``: the seat's projection of what happened (its own cards only, a hidden trump
    hidden, another seat's face-down card faceless), never the host's record; ``lines``: them
    worded for this seat; ``board``: its hand and the table as it sees them. The host checks
    ``seat`` against the connection's seat before it writes the message."""

    seat: int
    events: list[SeatEvent] = []
    lines: list[Line] = []
    board: Board | None = None
    sent: float = 0.0
    """The host's ``time.perf_counter()`` when it sent them (for measuring delay on one machine)."""


HostMessage = Private | Published | Turn | Auto | Seats | News | Answer | Problem | Bye | Welcome | Narration

_client_decoder = msgspec.json.Decoder(ClientMessage)
_host_decoder = msgspec.json.Decoder(HostMessage)
_encoder = msgspec.json.Encoder()


def decode_client(data: bytes | str) -> ClientMessage:
    """A guest's message, checked against the schema (raises ``msgspec.DecodeError``)."""
    return _client_decoder.decode(data)


def decode_host(data: bytes | str) -> HostMessage:
    """A host's message, checked against the schema (raises ``msgspec.DecodeError``)."""
    return _host_decoder.decode(data)


def encode(message: ClientMessage | HostMessage) -> bytes:
    return _encoder.encode(message)
