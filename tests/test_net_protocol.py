"""The protocol schema refuses anything else, and a guest's view narrates for its own seat."""

from __future__ import annotations

import json
from random import Random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_rang.games.rang_milanti import Game
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.net.client import AddressError, parse_address
from voice_rang.net.protocol import (
    Command,
    Published,
    Seats,
    Turn,
    Welcome,
    decode_client,
    decode_host,
    encode,
)
from voice_rang.net.view import MISSED_LINES, GuestView

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=200), json_values.map(lambda value: json.dumps(value).encode()),
                 st.dictionaries(st.sampled_from(["type", "command", "version", "code", "token", "seat", "x"]),
                                 json_values, max_size=4).map(lambda value: json.dumps(value).encode())))
def test_any_bytes_decode_to_a_valid_guest_message_or_raise_a_decode_error(data: bytes) -> None:
    try:
        message = decode_client(data)
    except msgspec.DecodeError:
        return
    assert decode_client(encode(message)) == message


def test_a_command_for_another_seat_and_unknown_commands_are_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field `seat`"):
        decode_client(b'{"type":"command","command":"turn","seat":1}')
    with pytest.raises(msgspec.ValidationError):
        decode_client(b'{"type":"command","command":"new game"}')
    assert decode_client(b'{"type":"command","command":"auto-reveal on"}') == Command("auto-reveal on")


@given(st.integers(), st.integers())
def test_how_far_a_page_was_narrated_is_taken_only_within_bounds(game: int, events: int) -> None:
    data = json.dumps({"type": "hello", "version": 1, "token": "t" * 24, "narrate": True,
                       "heard_game": game, "heard_events": events}).encode()
    if -1 <= game <= 1_000_000 and 0 <= events <= 1_000_000:
        hello = decode_client(data)
        assert (hello.heard_game, hello.heard_events) == (game, events)  # type: ignore[union-attr]
    else:
        with pytest.raises(msgspec.ValidationError):
            decode_client(data)


def test_addresses_as_the_host_says_them_and_bad_ones() -> None:
    assert parse_address("http://10.0.0.7:9000/") == ("10.0.0.7", 9000)
    for bad in ("ftp://host:1", "http://host:1/etc/passwd", "http://:80", "host:99999"):
        with pytest.raises(AddressError):
            parse_address(bad)


def game_so_far(reveals: int) -> tuple[Game, list]:
    game = Game(3, Random(4))
    events: list = [game.dealt]
    for _ in range(reveals):
        events.extend(game.reveal())
    return game, events


def welcome(seat: int, events: list, game: Game) -> Welcome:
    return Welcome(version=1, seat=seat, token="t", seats=Seats(kinds=["person", "remote", "remote"],
                   names=["", "", ""]), cap=5000, started=True, events=events,
                   turn=Turn(game.current_seat, game.owes_extra_card), auto=[False] * 3)


def test_a_guest_hears_its_own_cards_as_yours_and_its_turn_prompt() -> None:
    game = Game(3, Random(4))
    view = GuestView(RangMilantiNarrator.load("en", seats=2))
    view.messages(msgspec.structs.replace(welcome(1, [], game), started=False, turn=None))
    lines = view.messages(Published(events=[game.dealt], turn=Turn(0, False)))
    assert lines[0].text.endswith("The host turns first.")
    first = game.reveal()
    lines = view.messages(Published(events=first, turn=Turn(game.current_seat, game.owes_extra_card)))
    assert lines[0].text.startswith("The host turned")
    assert lines[-1].text == "Your turn: say turn, or press space."
    second = game.reveal()
    assert view.messages(Published(events=second, turn=None))[0].text.startswith("You turned")
    status = [m.text for m in view.status()]
    assert status[0] == "Reveal 2 of 5,000."


def test_coming_back_says_only_the_last_few_messages_missed_and_keeps_the_board() -> None:
    game, events = game_so_far(20)
    view = GuestView(RangMilantiNarrator.load("en", seats=2))
    lines = [m.text for m in view.messages(welcome(2, events, game))]
    assert lines[0] == "Joined: you are guest 2, at a table of 3 seats."
    assert lines[1].startswith("While you were away: ")
    assert len([line for line in lines if "Reveal " in line]) <= MISSED_LINES
    assert not any(line.startswith("New game") for line in lines)
    assert view.reveals == 20 and view.stacks == list(game.stack_counts())


def test_host_messages_round_trip_through_the_schema() -> None:
    game, events = game_so_far(3)
    message = welcome(1, events, game)
    assert decode_host(encode(message)) == message
