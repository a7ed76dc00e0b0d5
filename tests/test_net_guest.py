"""A guest's session when the host is taken up again from its save: the host saved a moment before
it stopped, so it makes again the last reveals this guest already had. Each is heard and logged
once. No sockets: host messages are handed to the session as the connection would."""

from __future__ import annotations

import queue
import re
from random import Random
from typing import cast

from test_table import RecordingOutputs

from voice_rang.games.rang_milanti import Event, Game
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator
from voice_rang.net.client import ConnectionLost
from voice_rang.net.guest import GuestSession
from voice_rang.net.protocol import PROTOCOL_VERSION, Published, Seats, Turn, Welcome
from voice_rang.net.view import GuestView
from voice_rang.table.loop import TableOutputs


def welcome(events: list[Event], game: Game) -> Welcome:
    return Welcome(version=PROTOCOL_VERSION, seat=1, token="t" * 24,
                   seats=Seats(kinds=["person", "remote"], names=["", ""]), cap=5000, started=True,
                   events=list(events), turn=Turn(game.current_seat, game.owes_extra_card), auto=[False, False])


def said_reveals(outputs: RecordingOutputs) -> list[int]:
    return [int(m.group(1)) for message in outputs.messages
            if (m := re.search(r"Reveal (\d+) of 5,000\.$", message.text))]


def five_reveals_heard() -> tuple[GuestSession, RecordingOutputs, list[Event], Game, list[list[Event]]]:
    """A guest at a two-seat table from the deal, having had 5 of the game's first 8 reveals."""
    game = Game(2, Random(4))
    reveals = [game.reveal() for _ in range(8)]
    logged: list[Event] = []
    outputs = RecordingOutputs()
    session = GuestSession(GuestView(RangMilantiNarrator.load("en", seats=2)), cast(TableOutputs, outputs),
                           lambda _: True, queue.Queue(), log=logged.extend)
    session.take(welcome([game.dealt], game))
    for events in reveals[:5]:
        session.take(Published(events=events))
    return session, outputs, logged, game, reveals


def test_reveals_a_resumed_host_makes_again_are_heard_and_logged_once() -> None:
    session, outputs, logged, game, reveals = five_reveals_heard()
    dealt = game.dealt
    session.take(ConnectionLost("the connection closed", final=False))
    # Taken up again at reveal 3: reveals 4 and 5 come again, then the game goes on.
    session.take(welcome([dealt] + [event for events in reveals[:3] for event in events], game))
    for events in reveals[3:]:
        session.take(Published(events=events))

    assert logged == [dealt] + [event for events in reveals for event in events]
    assert said_reveals(outputs) == list(range(1, 9))
    assert session.view.reveals == 8
    assert session.view.stacks == list(game.stack_counts())


def test_a_resumed_host_that_went_on_before_the_guest_came_back_says_only_what_was_missed() -> None:
    session, outputs, logged, game, reveals = five_reveals_heard()
    dealt = game.dealt
    session.take(welcome([dealt] + [event for events in reveals[:7] for event in events], game))
    session.take(Published(events=reveals[7]))

    assert logged == [dealt] + [event for events in reveals for event in events]
    assert said_reveals(outputs) == list(range(1, 9))


def test_a_page_coming_back_to_a_resumed_host_hears_the_reveals_made_again_once() -> None:
    """A web page is worded by the host: the host that stopped had worded reveals 1-5 for it, the
    host taken up again at reveal 3 makes 4 and 5 again and words them in a new view, told by the
    page's hello how far it was narrated."""
    game = Game(2, Random(4))
    reveals = [game.reveal() for _ in range(8)]
    before = GuestView(RangMilantiNarrator.load("en", seats=2, listener=1))
    said = before.messages(welcome([game.dealt], game))
    for events in reveals[:5]:
        said += before.messages(Published(events=events))
    heard = (before.game, before.events_seen)  # what its last narration told the page

    again = GuestView(RangMilantiNarrator.load("en", seats=2, listener=1), heard=heard)
    said += again.messages(welcome([game.dealt] + [event for events in reveals[:3] for event in events], game))
    for events in reveals[3:]:
        said += again.messages(Published(events=events))

    numbers = [int(m.group(1)) for line in said if (m := re.search(r"Reveal (\d+) of 5,000\.$", line.text))]
    assert numbers == list(range(1, 9))
    assert again.reveals == 8 and again.stacks == list(game.stack_counts())
    # a page that says nothing: told all it missed
    fresh = GuestView(RangMilantiNarrator.load("en", seats=2, listener=1))
    lines = fresh.messages(welcome([game.dealt] + [event for events in reveals[:3] for event in events], game))
    assert any("Reveal 3 of 5,000." in line.text for line in lines)


def a_guest(language: str = "en", can_sound: bool = False) -> tuple[GuestSession, RecordingOutputs]:
    game = Game(2, Random(4))
    outputs = RecordingOutputs()
    session = GuestSession(GuestView(RangMilantiNarrator.load(language, seats=2)), cast(TableOutputs, outputs),
                           lambda _: True, queue.Queue(), can_sound=can_sound)
    session.take(welcome([game.dealt], game))
    return session, outputs


def test_a_guest_turns_its_own_sounds_on_and_off_where_it_can_play_them() -> None:
    session, outputs = a_guest(can_sound=True)
    session.handle("sounds on")
    assert outputs.texts[-1].startswith("Sounds on") and session.narrator.sounds
    session.handle("sounds toggle")
    assert outputs.texts[-1].startswith("Sounds off") and not session.narrator.sounds


def test_a_guest_without_speech_is_told_sounds_need_an_output() -> None:
    session, outputs = a_guest()
    session.handle("sounds on")
    assert outputs.texts[-1] == RangMilantiNarrator.load("en", seats=2).say("answer", "sounds_no_output").text
    assert not session.narrator.sounds


def test_a_bengali_guests_help_says_the_voice_hears_english() -> None:
    session, outputs = a_guest("bn")
    session.handle("help")
    assert any("শুধু ইংরেজিতে" in text for text in outputs.texts)
