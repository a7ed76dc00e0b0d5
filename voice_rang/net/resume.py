"""What a host keeps beside its game, so that ``voice-rang host --resume`` seats every guest again.

The game itself is saved as ``play`` saves it (:mod:`voice_rang.table.save`, ``host.json``);
beside it, in the same checksummed file, the host keeps where it listened, its join code and
each guest seat's secret token and name. A guest that reconnects with its token (``voice-rang
join`` keeps it on its machine, the web page in the browser) takes its own seat again. No
stack's order is in it beyond what the game's recipe already holds, and none of it is ever sent.

>>> import tempfile
>>> from random import Random
>>> from voice_rang.table.save import SavedGame, write_save
>>> rng = Random(3)
>>> saved = SavedGame.before_deal(rng, kinds=("person", "computer", "computer"))
>>> record = host_record("127.0.0.1", 8765, "4719", [("a" * 24, "ann"), ("", "")])
>>> path = Path(tempfile.mkdtemp()) / "host.json"
>>> write_save(path, replace(saved, table=record))
>>> _, table = read_host_save(path)
>>> table.port, [seat.name for seat in table.guests if seat.token]
(8765, ['ann'])
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec

from ..table.save import SavedGame, SaveError, read_save

__all__ = ["GuestSeat", "HostTable", "check_host_table", "host_record", "read_host_save"]


class GuestSeat(msgspec.Struct, forbid_unknown_fields=True):
    """One guest seat: its secret token ("" for a seat nobody holds) and the name it gave."""

    token: str
    name: str


class HostTable(msgspec.Struct, forbid_unknown_fields=True):
    """What the host keeps beside the game: seats 1 and up, in order."""

    bind: str
    port: int
    code: str
    guests: list[GuestSeat]


def host_record(bind: str, port: int, code: str, guests: list[tuple[str, str]]) -> dict[str, Any]:
    """The host's part of its save (plain JSON data), from each guest seat's (token, name)."""
    table = HostTable(bind=bind, port=port, code=code,
                      guests=[GuestSeat(token=token, name=name) for token, name in guests])
    return msgspec.to_builtins(table)  # type: ignore[no-any-return]


def read_host_save(path: Path) -> tuple[SavedGame, HostTable]:
    """The hosted game saved in ``path`` and its seats; :class:`SaveError` (what is wrong, in a
    short phrase) if there is none or any part of it cannot be used: nothing is half-loaded."""
    saved = read_save(path)

    def damaged(detail: str) -> SaveError:
        return SaveError("damaged", path, detail)

    if saved.table is None:
        raise damaged("it has no seats of guests: it is not a hosted game")
    if saved.kinds[0] != "person" or "person" in saved.kinds[1:]:
        raise damaged("its first seat is not the host's")
    return replace(saved, table=None), check_host_table(saved.table, saved.seats, path)


def check_host_table(data: Any, seats: int, path: Path) -> HostTable:
    """The host's part of a save (any game's), checked field by field; :class:`SaveError` if any
    of it cannot be used: a token this host would not give, two seats with one token, a name too long."""

    def damaged(detail: str) -> SaveError:
        return SaveError("damaged", path, detail)

    try:
        table = msgspec.convert(data, type=HostTable)
    except msgspec.ValidationError as error:
        raise damaged(f"its seats are wrong ({error})") from None
    if len(table.guests) != seats - 1:
        raise damaged(f"it has {seats} seats and {len(table.guests) + 1} places")
    if not 0 < table.port <= 65535 or not (table.code.isascii() and table.code.isdigit()
                                             and 4 <= len(table.code) <= 8):
        raise damaged(f"port {table.port} or join code {table.code!r} cannot be")
    for seat in table.guests:
        if seat.token and not (16 <= len(seat.token) <= 64 and seat.token.isascii()
                               and all(ch.isalnum() or ch in "-_" for ch in seat.token)):
            raise damaged("a seat's token is not one this host gives")
        if len(seat.name) > 40 or not seat.name.isprintable():
            raise damaged("a guest's name is not one this host takes")
    tokens = [seat.token for seat in table.guests if seat.token]
    if len(set(tokens)) != len(tokens):
        raise damaged("two seats have the same token")
    return table
