"""Save a game as it goes, and take it up again exactly where it stopped.

A game is small deterministic data: how it was dealt (seats, who sits in them, the reveal cap,
the game number, and the state of the random generator just before the deal, or an explicit
deck) and how many cards have been turned since. Replaying that many reveals through the pure
engine rebuilds every stack, pile, count and whose turn, and leaves the generator where it was,
so the cards still to come are the very same. Nothing of the engine is pickled: a save is a few
kilobytes of JSON that any version reading the same ``version`` understands.

Receives a :class:`SavedGame` (at the deal and after every reveal); emits a file, written
atomically (a temporary file beside it, flushed, synced to disk, renamed over the old one), so a
crash or a ``kill -9`` at any moment leaves either the old save or the new one, never half of
either. Reading checks a version and a checksum and every field, and raises :class:`SaveError`
(what was wrong, one short phrase) rather than load anything half right.

>>> import tempfile
>>> from random import Random
>>> rng = Random(5)
>>> saved = SavedGame.before_deal(rng, kinds=("person", "computer"))
>>> game = saved.deal(rng)
>>> _ = [game.reveal() for _ in range(30)]
>>> path = Path(tempfile.mkdtemp()) / "play.json"
>>> write_save(path, saved.at(game))
>>> again, _ = read_save(path).restore()
>>> again.reveals, again.current_seat == game.current_seat, again.stack_counts() == game.stack_counts()
(30, True, True)
>>> again.reveal() == game.reveal()
True
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from random import Random
from typing import Any, BinaryIO, Literal

import msgspec

from ..cards import Card
from ..games.rang_milanti import MAX_SEATS, MIN_SEATS, DeckError, Event, Game, parse_deck
from ..games.rang_milanti.game import DEFAULT_CAP
from ..games.rang_milanti.log import encode_events
from ..xdg import base_dir

__all__ = ["SAVE_VERSION", "Keeper", "RecordKeeper", "SaveError", "SavedGame", "SavedRecord", "open_log",
           "open_record_log", "read_record", "read_save", "remove_save", "save_path", "state_dir",
           "write_atomically", "write_save"]

SAVE_VERSION = 1
_KINDS = ("person", "computer")

SaveProblem = Literal["missing", "damaged", "unreadable"]


class SaveError(Exception):
    """A save that cannot be used: ``problem`` is missing, damaged or unreadable (the disk),
    ``detail`` a short phrase saying what exactly, ``path`` the file."""

    def __init__(self, problem: SaveProblem, path: Path, detail: str) -> None:
        super().__init__(f"{path}: {problem}: {detail}")
        self.problem: SaveProblem = problem
        self.path = path
        self.detail = detail


def state_dir() -> Path:
    """Where voice-rang keeps its state: ``$XDG_STATE_HOME/voice-rang``, by default
    ``~/.local/state/voice-rang`` (the XDG base directory specification)."""
    return base_dir("XDG_STATE_HOME", ".local", "state")


def save_path(name: str = "play") -> Path:
    """The save of one kind of table (``play``; ``host`` for a network table)."""
    return state_dir() / f"{name}.json"


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    """What a save file holds, field by field (the checksum covers exactly this)."""

    seats: int
    kinds: list[str]
    cap: int
    number: int
    rng: tuple[int, list[int], float | None]
    deck: list[str] | None
    reveals: int
    log: str | None = None
    log_offset: int | None = None


class _File(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    version: int
    checksum: str
    game: _Body
    table: dict[str, Any] | None = None
    """What a kind of table keeps beside the game (a host: its guests' seats); checked by it."""


@dataclass(frozen=True)
class SavedGame:
    """One game, as little as replays it: the deal's recipe, and how many reveals were made.

    ``log``/``log_offset``: the event log being written (a path) and its length in bytes right
    after this reveal's events, so a resumed game cuts off anything written after the save and
    the log reads as one unbroken game.
    """

    seats: int
    kinds: tuple[str, ...]
    cap: int
    number: int
    rng_state: tuple[Any, ...]
    deck: tuple[Card, ...] | None = None
    reveals: int = 0
    log: str | None = None
    log_offset: int | None = None
    table: dict[str, Any] | None = None
    """What the table keeps beside the game (a host: its guests' seats), as plain JSON data;
    covered by the checksum, read and checked by that kind of table."""

    @classmethod
    def before_deal(cls, rng: Random, *, kinds: tuple[str, ...], cap: int = DEFAULT_CAP,
                    number: int = 0, deck: tuple[Card, ...] | None = None) -> SavedGame:
        """The recipe of the game about to be dealt from ``rng`` (call it, then :meth:`deal`)."""
        return cls(seats=len(kinds), kinds=tuple(kinds), cap=cap, number=number,
                   rng_state=rng.getstate(), deck=deck)

    def deal(self, rng: Random) -> Game:
        """The game this recipe deals, from ``rng`` in the state :meth:`before_deal` saw."""
        return Game(self.seats, rng, deck=self.deck, cap=self.cap, number=self.number)

    def at(self, game: Game, *, log: str | None = None, log_offset: int | None = None) -> SavedGame:
        """This recipe with ``game``'s reveal count (and where its log stands)."""
        return replace(self, reveals=game.reveals, log=log, log_offset=log_offset)

    def restore(self) -> tuple[Game, Random]:
        """The game as it stood at the save, and its generator (the next games of a series draw
        from it too); every event of the replay is in :meth:`replay`."""
        game, rng, _ = self.replay()
        return game, rng

    def replay(self) -> tuple[Game, Random, list[Event]]:
        """:meth:`restore`, with every event from the deal to the save (to write a log afresh).

        Raises :class:`ValueError` if the recipe does not reach its reveal count (a save that
        passed its checksum but was written by a different engine)."""
        rng = Random()
        rng.setstate(self.rng_state)
        game = self.deal(rng)
        events: list[Event] = [game.dealt]
        while game.reveals < self.reveals:
            if game.is_over:
                raise ValueError(f"the game ends at reveal {game.reveals}, before {self.reveals}")
            events += game.reveal()
        if game.is_over:
            raise ValueError("the saved game is already over")
        return game, rng, events


def _body(saved: SavedGame) -> _Body:
    version, internal, gauss = saved.rng_state
    return _Body(seats=saved.seats, kinds=list(saved.kinds), cap=saved.cap, number=saved.number,
                 rng=(int(version), [int(word) for word in internal], gauss),
                 deck=None if saved.deck is None else [card.code for card in saved.deck],
                 reveals=saved.reveals, log=saved.log, log_offset=saved.log_offset)


def _checksum(body: _Body, table: dict[str, Any] | None = None) -> str:
    digest = hashlib.sha256(msgspec.json.encode(body))
    if table is not None:
        digest.update(msgspec.json.encode(table))
    return digest.hexdigest()


def encode_save(saved: SavedGame) -> bytes:
    """The bytes of a save file (JSON with a version and a checksum of the game)."""
    body = _body(saved)
    return msgspec.json.encode(_File(SAVE_VERSION, _checksum(body, saved.table), body, saved.table)) + b"\n"


def decode_save(data: bytes, path: Path) -> SavedGame:
    """A save file's bytes back into a :class:`SavedGame`; :class:`SaveError` ("damaged") with
    what is wrong if anything is."""
    def damaged(detail: str) -> SaveError:
        return SaveError("damaged", path, detail)

    try:
        version = msgspec.json.decode(data, type=dict[str, Any]).get("version")
    except (msgspec.DecodeError, UnicodeDecodeError):
        raise damaged("it is not a save file (not JSON)") from None
    if version != SAVE_VERSION:
        raise damaged(f"it is save version {version!r}; this voice-rang reads version {SAVE_VERSION}")
    try:
        file = msgspec.json.decode(data, type=_File)
    except msgspec.ValidationError as error:
        raise damaged(f"a field is wrong ({error})") from None
    body = file.game
    if _checksum(body, file.table) != file.checksum:
        raise damaged("its checksum does not match (it was changed or cut short)")
    if not MIN_SEATS <= body.seats <= MAX_SEATS or len(body.kinds) != body.seats:
        raise damaged(f"it has {body.seats} seats and {len(body.kinds)} players")
    if any(kind not in _KINDS for kind in body.kinds) or "person" not in body.kinds:
        raise damaged("its seats are not people and computers")
    if body.cap < 1 or not 0 <= body.reveals < body.cap or body.number < 0:
        raise damaged(f"reveal {body.reveals} of {body.cap} cannot be")
    try:
        deck = None if body.deck is None else tuple(parse_deck(body.deck))
    except DeckError as error:
        raise damaged(f"its deck is wrong ({error})") from None
    saved = SavedGame(seats=body.seats, kinds=tuple(body.kinds), cap=body.cap, number=body.number,
                      rng_state=(body.rng[0], tuple(body.rng[1]), body.rng[2]), deck=deck,
                      reveals=body.reveals, log=body.log, log_offset=body.log_offset, table=file.table)
    try:
        saved.replay()
    except (ValueError, TypeError, OverflowError) as error:
        raise damaged(f"it does not replay ({error})") from None
    return saved


def read_save(path: Path) -> SavedGame:
    """The game saved in ``path``; :class:`SaveError` if there is none or it cannot be used.
    Reading changes nothing: a damaged save stays where it is, for a person to look at."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SaveError("missing", path, "there is no saved game") from None
    except OSError as error:
        raise SaveError("unreadable", path, error.strerror or str(error)) from None
    return decode_save(data, path)


def write_save(path: Path, saved: SavedGame) -> None:
    """Write ``saved`` to ``path`` atomically: old save or new, never half of one. Raises
    ``OSError`` if the disk refuses."""
    write_atomically(path, encode_save(saved))


def remove_save(path: Path) -> None:
    """Remove the save (the game is over); nothing happens if there is none."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    _sync_directory(path.parent)


def _sync_directory(folder: Path) -> None:
    """Make the rename (or removal) itself durable; some systems cannot, which is harmless."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


class Keeper:
    """Keeps one table's save up to date: it deals each new game (so it knows the recipe), and
    the table calls it with the game after the deal and after every reveal. A finished game
    leaves no save. A disk that refuses is reported once through ``on_error``; play goes on.

    ``log``/``log_size``: the log's path and how many bytes it holds now, saved beside the
    reveal so a resumed game's log is cut back to exactly this reveal. ``table``: what the
    table keeps beside the game, asked for at every save (:attr:`SavedGame.table`).
    ``command``: what the player types to go on with this save (``voice-rang play --resume``),
    told to a player who stops before the game ends.
    """

    def __init__(self, path: Path, *, log: str | None = None,
                 log_size: Callable[[], int] | None = None,
                 on_error: Callable[[OSError], None] | None = None,
                 table: Callable[[], dict[str, Any]] | None = None,
                 command: str | None = None) -> None:
        self.path = path
        self.recipe: SavedGame | None = None
        self._log = log
        self._log_size = log_size
        self._table = table
        self._on_error = on_error
        self._command = command
        self._failed = False
        self._holds_game = False

    def resume_command(self) -> str | None:
        """What goes on with the game where it stopped, while this keeper's save of it stands:
        ``None`` before its first save, once the game is over, or once the disk refused (the
        save on disk is then older than the game, and the player was told so)."""
        return self._command if self._holds_game and not self._failed else None

    def deal(self, rng: Random, *, kinds: tuple[str, ...], cap: int = DEFAULT_CAP,
             number: int = 0, deck: tuple[Card, ...] | None = None) -> Game:
        """Deal a new game from ``rng``, remembering how."""
        self.recipe = SavedGame.before_deal(rng, kinds=kinds, cap=cap, number=number, deck=deck)
        return self.recipe.deal(rng)

    def go_on(self, saved: SavedGame) -> tuple[Game, Random]:
        """Take up a saved game: the game and its generator, and this keeper saves it on."""
        self.recipe = replace(saved, reveals=0, log=None, log_offset=None)
        self._holds_game = True  # the save it was read from stands until the next one replaces it
        return saved.restore()

    def __call__(self, game: Game) -> None:
        if self.recipe is None or self._failed:
            return
        try:
            if game.is_over:
                self._holds_game = False
                remove_save(self.path)
                return
            size = self._log_size() if self._log_size is not None else None
            saved = self.recipe.at(game, log=self._log, log_offset=size)
            if self._table is not None:
                saved = replace(saved, table=self._table())
            write_save(self.path, saved)
            self._holds_game = True
        except OSError as error:
            self._failed = True
            if self._on_error is not None:
                self._on_error(error)


def open_log(path: str, saved: SavedGame | None) -> BinaryIO:
    """Open ``--log PATH`` for writing so that the file reads as one unbroken game.

    A new game: a fresh file. A resumed game whose log this is (same path, at least as long as
    when the game was saved): cut back to the saved reveal (anything written after the save
    goes, since it is played again) and appended to. A resumed game with any other log: a
    fresh file holding the whole game so far, from the replay. Raises ``OSError``.
    """
    if saved is None:
        return _open_unbroken_log(path, None, None, b"")
    return _open_unbroken_log(path, saved.log, saved.log_offset, lambda: encode_events(saved.replay()[2]))


def _open_unbroken_log(path: str, saved_log: str | None, saved_offset: int | None,
                       so_far: bytes | Callable[[], bytes]) -> BinaryIO:
    """The one way both games' saves reopen ``--log PATH``: the saved log itself, cut back to
    ``saved_offset`` and appended to, when it is that file and at least that long; otherwise a
    fresh file starting with ``so_far`` (the game up to the save, made only when needed)."""
    if saved_offset is not None and saved_log is not None and os.path.abspath(path) == saved_log:
        try:
            stream: BinaryIO = open(path, "r+b")  # noqa: SIM115 - the caller closes it
        except FileNotFoundError:
            pass
        else:
            if os.fstat(stream.fileno()).st_size >= saved_offset:
                stream.truncate(saved_offset)
                stream.seek(saved_offset)
                return stream
            stream.close()
    stream = open(path, "wb")  # noqa: SIM115 - the caller closes it
    lines = so_far() if callable(so_far) else so_far
    if lines:
        stream.write(lines)
        stream.flush()
    return stream


class _Record(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A save of a game that records itself as JSON data (:class:`RecordKeeper`)."""

    version: int
    game: str
    checksum: str
    record: dict[str, Any]
    log: str | None = None
    log_offset: int | None = None


@dataclass(frozen=True)
class SavedRecord:
    """What a :class:`RecordKeeper` saved: the game's own record, and where its log stood."""

    game: str
    record: dict[str, Any]
    log: str | None = None
    log_offset: int | None = None


def _record_checksum(game: str, record: dict[str, Any]) -> str:
    return hashlib.sha256(game.encode() + b"\n" + msgspec.json.encode(record)).hexdigest()


def read_record(path: Path, game: str) -> SavedRecord:
    """The record of ``game`` saved in ``path``; :class:`SaveError` if there is none or it is
    damaged (the game itself checks that the record replays)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SaveError("missing", path, "there is no saved game") from None
    except OSError as error:
        raise SaveError("unreadable", path, error.strerror or str(error)) from None
    try:
        file = msgspec.json.decode(data, type=_Record)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError) as error:
        raise SaveError("damaged", path, f"it is not a save file ({error})") from None
    if file.version != SAVE_VERSION:
        raise SaveError("damaged", path, f"it is save version {file.version}; this voice-rang reads version "
                                         f"{SAVE_VERSION}")
    if file.game != game:
        raise SaveError("damaged", path, f"it holds a game of {file.game}, not {game}")
    if _record_checksum(file.game, file.record) != file.checksum:
        raise SaveError("damaged", path, "its checksum does not match (it was changed or cut short)")
    return SavedRecord(file.game, file.record, file.log, file.log_offset)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file is the old one or the new one, never half of either."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(path.parent)


class RecordKeeper:
    """Keeps the save of a game that records itself (``record(game)``: JSON data) up to date, after
    every move, the way :class:`Keeper` keeps Rang Milanti's; a finished game leaves no save, and a
    disk that refuses is reported once through ``on_error`` while play goes on."""

    def __init__(self, path: Path, game: str, record: Callable[[Any], dict[str, Any]], *,
                 log: str | None = None, log_size: Callable[[], int] | None = None,
                 on_error: Callable[[OSError], None] | None = None, command: str | None = None) -> None:
        self.path = path
        self.game = game
        self._record = record
        self._log = log
        self._log_size = log_size
        self._on_error = on_error
        self._command = command
        self._failed = False
        self._holds_game = False

    def resume_command(self) -> str | None:
        """What goes on with the game while this keeper's save of it stands (see :meth:`Keeper.resume_command`)."""
        return self._command if self._holds_game and not self._failed else None

    def took_up(self) -> None:
        """The game was resumed from this keeper's save, which stands until the next one replaces it."""
        self._holds_game = True

    def __call__(self, game: Any) -> None:
        if self._failed:
            return
        try:
            if game.is_over:
                self._holds_game = False
                remove_save(self.path)
                return
            record = self._record(game)
            size = self._log_size() if self._log_size is not None else None
            file = _Record(SAVE_VERSION, self.game, _record_checksum(self.game, record), record,
                           self._log, size)
            write_atomically(self.path, msgspec.json.encode(file) + b"\n")
            self._holds_game = True
        except OSError as error:
            self._failed = True
            if self._on_error is not None:
                self._on_error(error)


def open_record_log(path: str, saved: SavedRecord | None, events: list[Any]) -> BinaryIO:
    """``--log PATH`` for a game saved by a :class:`RecordKeeper`, reading as one unbroken game:
    cut back to the save and appended to when it is the same log, else written afresh with
    ``events`` (the game replayed up to the save). Raises ``OSError``."""
    if saved is None:
        return _open_unbroken_log(path, None, None, b"")
    return _open_unbroken_log(path, saved.log, saved.log_offset, msgspec.json.Encoder().encode_lines(events))
