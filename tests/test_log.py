"""The JSON Lines event log, and the independent replay checker run over real and corrupted logs."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_rang.cards import DECK, Card
from voice_rang.games.rang_milanti.events import Event
from voice_rang.games.rang_milanti.game import Game
from voice_rang.games.rang_milanti.log import LogError, decode_line, encode_events

sys.path.insert(0, str(Path(__file__).parent))
from rules_checker import check_file, check_lines

VOICE_RANG = Path(sys.executable).with_name("voice-rang")

RULES_FIELDS = {
    "deal": {"seats", "stacks", "spares"},
    "reveal": {"n", "seat", "card", "under", "match", "moved", "stacks", "collected", "pile"},
    "reshuffle": {"seat", "cards"},
    "out": {"seat"},
    "end": {"reveals", "reason", "winners", "cards"},
}


def game_lines(seats: int, seed: int, cap: int = 5000, number: int = 0) -> list[str]:
    game = Game(seats, Random(seed), cap=cap, number=number)
    events: list[Event] = [game.dealt]
    game.play_out(events.append)
    return encode_events(events).decode().splitlines()


# ----- the format ----------------------------------------------------------------------------------


def test_every_line_is_one_object_with_event_first_and_the_game_number() -> None:
    for line in game_lines(3, 1):
        value = json.loads(line)
        assert isinstance(value, dict)
        assert next(iter(value)) == "event"
        assert value["game"] == 0


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_each_event_kind_has_exactly_the_fields_of_the_rules(seats: int) -> None:
    seen = set()
    for line in game_lines(seats, 11):
        value = json.loads(line)
        kind = value.pop("event")
        value.pop("game")
        assert set(value) == RULES_FIELDS[kind]
        seen.add(kind)
    assert {"deal", "reveal", "end"} <= seen


def test_cards_are_written_rank_then_suit_letter_and_under_null_on_an_empty_pile() -> None:
    first = [Card("10H"), Card("QD"), Card("7C"), Card("7S")]
    deck = first + [card for card in DECK if card not in first]
    game = Game(2, Random(0), deck=deck)
    events: list[Event] = [game.dealt, *game.turn(), *game.turn()]
    lines = [json.loads(line) for line in encode_events(events).decode().splitlines()]
    assert lines[1]["card"] == "10H" and lines[1]["under"] is None
    assert lines[2]["card"] == "QD" and lines[2]["under"] == "10H"
    assert lines[2]["stacks"] == [25, 25] and lines[2]["collected"] == [0, 0]
    assert lines[2]["pile"] == 2 and lines[2]["match"] is False


def test_deal_line_names_seats_and_lists_spares_bottom_to_top() -> None:
    deck = list(DECK)
    game = Game(5, Random(0), deck=deck)
    deal = json.loads(encode_events([game.dealt]).decode())
    assert deal == {
        "game": 0, "event": "deal",
        "seats": ["host", "guest 1", "guest 2", "guest 3", "guest 4"],
        "stacks": [10, 10, 10, 10, 10],
        "spares": ["QS", "KS"],
    }


def test_game_number_is_written_into_every_line() -> None:
    lines = game_lines(2, 3, number=41)
    assert all(json.loads(line)["game"] == 41 for line in lines)
    assert all(line.endswith(',"game":41}') for line in lines)


def test_end_line_names_reason_winners_and_cards() -> None:
    end = json.loads(game_lines(2, 1, cap=2)[-1])
    assert end["event"] == "end"
    assert end["reason"] == "cap" and end["reveals"] == 2
    assert isinstance(end["winners"], list) and sum(end["cards"]) <= 52


def test_encoded_lines_end_in_newlines() -> None:
    game = Game(2, Random(0))
    body = encode_events([game.dealt])
    assert body.endswith(b"\n") and body.count(b"\n") == 1


def test_decode_line_reads_an_event_back_into_a_dict() -> None:
    line = game_lines(2, 4)[1]
    value = decode_line(line)
    assert value["event"] == "reveal" and value["n"] == 1
    assert decode_line(line.encode()) == value


@pytest.mark.parametrize("line", ["not json", "[1, 2]", '{"event": "deal"}', '{"game": 0}', "3"])
def test_decode_line_rejects_what_is_not_an_event_object(line: str) -> None:
    with pytest.raises(LogError):
        decode_line(line)


# ----- the checker on good logs ---------------------------------------------------------------


@pytest.fixture(scope="module")
def simulated_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """Logs written by the real console script, 2 to 6 seats."""
    folder = tmp_path_factory.mktemp("logs")
    logs = {}
    for seats in range(2, 7):
        path = folder / f"seats{seats}.jsonl"
        done = subprocess.run(
            [str(VOICE_RANG), "simulate", "--seats", str(seats), "--games", "60",
             "--seed", str(seats), "--jsonl", str(path)],
            capture_output=True, text=True, timeout=60, check=False,
        )
        assert done.returncode == 0, done.stderr
        logs[seats] = path
    return logs


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_checker_passes_logs_of_voice_rang_simulate(simulated_logs: dict[int, Path], seats: int) -> None:
    report = check_file(simulated_logs[seats])
    assert report.violations == []
    assert report.games == 60 and report.reveals > 60 * 50


def test_checker_passes_a_capped_simulate_log_when_told_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "capped.jsonl"
    subprocess.run(
        [str(VOICE_RANG), "simulate", "--seats", "4", "--games", "40", "--cap", "30",
         "--jsonl", str(path)],
        capture_output=True, check=True, timeout=60,
    )
    assert check_file(path, cap=30).ok
    # Told the default cap, the same log ends games early: every game is flagged.
    assert len(check_file(path).violations) == 40


def test_checker_command_line_exits_0_on_a_clean_log(simulated_logs: dict[int, Path]) -> None:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("rules_checker.py")), str(simulated_logs[3])],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0 and done.stdout == ""
    assert "0 violations" in done.stderr


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    seats=st.integers(min_value=2, max_value=6),
    cap=st.one_of(st.integers(min_value=1, max_value=80), st.just(5000)),
)
def test_checker_passes_every_engine_game(seed: int, seats: int, cap: int) -> None:
    report = check_lines(game_lines(seats, seed, cap), cap=cap)
    assert report.violations == []


def test_checker_allows_other_event_kinds_without_hidden_information() -> None:
    lines = game_lines(2, 1)
    lines.insert(1, json.dumps({"game": 0, "event": "turn", "seat": 0}))
    lines.insert(1, json.dumps({"game": 0, "event": "auto-reveal", "seat": 1, "on": True}))
    assert check_lines(lines).ok


def test_checker_does_not_import_the_engine() -> None:
    source = Path(__file__).with_name("rules_checker.py").read_text()
    assert "voice_rang" not in source.replace('"voice-rang', "")


# ----- the checker on corrupted logs ---------------------------------------------------------

Log = list[dict[str, Any]]


def _index(log: Log, test: Callable[[dict[str, Any]], bool], start: int = 0) -> int:
    return next(i for i in range(start, len(log)) if test(log[i]))


def _miss(e: dict[str, Any]) -> bool:
    return e["event"] == "reveal" and not e["match"] and e["under"] is not None


def _match(e: dict[str, Any]) -> bool:
    return e["event"] == "reveal" and e["match"]


def _kind(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["event"] == kind


def _set(kind_test: Callable[[dict[str, Any]], bool], **changes: Any) -> Callable[[Log], None]:
    def corrupt(log: Log) -> None:
        log[_index(log, kind_test)].update(changes)
    return corrupt


def _other_suit_card(code: str) -> str:
    return "2S" if code[-1] != "S" else "2H"


def _flip(test: Callable[[dict[str, Any]], bool]) -> Callable[[Log], None]:
    def corrupt(log: Log) -> None:
        event = log[_index(log, test)]
        event["match"] = not event["match"]
    return corrupt


def _wrong_under(log: Log) -> None:
    event = log[_index(log, _miss)]
    event["under"] = _other_suit_card(event["card"]) if event["under"] != "2S" else "3S"


def _null_under(log: Log) -> None:
    log[_index(log, _miss)]["under"] = None


def _moved_plus_one(log: Log) -> None:
    log[_index(log, _match)]["moved"] += 1


def _drop_reveal(log: Log) -> None:
    del log[_index(log, _kind("reveal"), 5)]


def _repeat_n(log: Log) -> None:
    at = _index(log, _kind("reveal"), 5)
    log[at]["n"] -= 1


def _reshuffle_with_cards_left(log: Log) -> None:
    at = _index(log, _miss, 3)
    seat = log[at]["seat"]
    log.insert(at, {"game": 0, "event": "reshuffle", "seat": seat, "cards": 0})


def _drop_out(log: Log) -> None:
    del log[_index(log, _kind("out"))]


def _spurious_out(log: Log) -> None:
    at = _index(log, _miss, 3)
    log.insert(at + 1, {"game": 0, "event": "out", "seat": log[at]["seat"]})


def _wrong_winners(log: Log) -> None:
    end = log[_index(log, _kind("end"))]
    end["winners"] = [seat + 1 for seat in end["winners"]]


def _wrong_reason(log: Log) -> None:
    end = log[_index(log, _kind("end"))]
    end["reason"] = "cap" if end["reason"] == "last seat" else "last seat"


def _stack_count_off(log: Log) -> None:
    event = log[_index(log, _kind("reveal"), 4)]
    event["stacks"][event["seat"]] += 1


def _pile_count_off(log: Log) -> None:
    log[_index(log, _miss)]["pile"] += 1


def _collected_count_off(log: Log) -> None:
    event = log[_index(log, _match)]
    event["collected"][event["seat"]] -= 1


def _wrong_game_number_inside(log: Log) -> None:
    log[_index(log, _kind("reveal"), 3)]["game"] = 7


def _games_out_of_order(log: Log) -> None:
    second = _index(log, _kind("deal"), 1)
    for event in log[second:]:
        if event["game"] == 1:
            event["game"] = 2


def _card_list_in_an_event(log: Log) -> None:
    log.insert(2, {"game": 0, "event": "peek", "seat": 0, "stack": ["4C", "QD"]})


def _card_list_in_a_reveal(log: Log) -> None:
    log[_index(log, _kind("reveal"))]["next"] = ["AC"]


def _wrong_seat(log: Log) -> None:
    event = log[_index(log, _miss, 3)]
    event["seat"] = (event["seat"] + 1) % len(log[0]["seats"])


def _seen_card_again(log: Log) -> None:
    # The card revealed is one that already sits face up in the middle.
    first = _index(log, _miss)
    second = _index(log, _miss, first + 1)
    while log[second]["under"] == log[first]["card"] or log[second - 1] is log[first]:
        second = _index(log, _miss, second + 1)
    log[second]["card"] = log[first]["card"]


def _truncate(log: Log) -> None:
    del log[_index(log, _kind("end")):]


def _end_reveals_off(log: Log) -> None:
    log[_index(log, _kind("end"))]["reveals"] += 1


def _end_cards_off(log: Log) -> None:
    end = log[_index(log, _kind("end"))]
    end["cards"][0] += 1


def _deal_stacks_off(log: Log) -> None:
    log[0]["stacks"][0] -= 1


def _event_after_end(log: Log) -> None:
    end = _index(log, _kind("end"))
    log.insert(end + 1, copy.deepcopy(log[end]))


def _reveal_after_last_seat(log: Log) -> None:
    end = _index(log, _kind("end"))
    assert log[end]["reason"] == "last seat"
    extra = copy.deepcopy(log[end - 2])
    extra["n"] += 1
    log.insert(end, extra)


def _reveal_before_its_reshuffle(log: Log) -> None:
    at = _index(log, _kind("reshuffle"))
    log[at], log[at + 1] = log[at + 1], log[at]


def _reshuffle_wrong_count(log: Log) -> None:
    log[_index(log, _kind("reshuffle"))]["cards"] += 1


def _capture_without_extra_card(log: Log) -> None:
    at = _index(log, _match, 5)
    nxt = _index(log, _kind("reveal"), at + 1)
    del log[nxt]


CORRUPTIONS = {
    "a miss marked as a match": (_flip(_miss), "is a miss"),
    "a match marked as a miss": (_flip(_match), "is a match"),
    "under is not the previous top": (_wrong_under, "landed on"),
    "under null on a full pile": (_null_under, "landed on"),
    "moved is not pile plus one": (_moved_plus_one, "moved should be"),
    "a reveal left out": (_drop_reveal, "reveal n should be"),
    "n repeated": (_repeat_n, "reveal n should be"),
    "reshuffle with cards left": (_reshuffle_with_cards_left, "still in its stack"),
    "no out after a last miss": (_drop_out, "should go out"),
    "out with cards left": (_spurious_out, "went out but"),
    "wrong winners": (_wrong_winners, "winners should be"),
    "wrong end reason": (_wrong_reason, "reason should be"),
    "stack count off": (_stack_count_off, "stacks should be"),
    "collected count off": (_collected_count_off, "collected should be"),
    "pile count off": (_pile_count_off, "pile should be"),
    "game number changes inside a game": (_wrong_game_number_inside, "inside game"),
    "games numbered out of order": (_games_out_of_order, "numbered in order"),
    "an event listing stack cards": (_card_list_in_an_event, "hidden information"),
    "a reveal listing cards": (_card_list_in_a_reveal, "hidden information"),
    "the wrong seat's turn": (_wrong_seat, "it is seat"),
    "a card seen twice": (_seen_card_again, "seen before"),
    "log stops mid-game": (_truncate, "stops before"),
    "end reveals off": (_end_reveals_off, "the end says"),
    "end cards off": (_end_cards_off, "cards held should be"),
    "deal stacks off": (_deal_stacks_off, "is dealt"),
    "an event after the end": (_event_after_end, "after the end"),
    "a reveal after one seat is left": (_reveal_after_last_seat, "should have ended"),
    "a reveal before its reshuffle": (_reveal_before_its_reshuffle, "empty stack"),
    "reshuffle of the wrong count": (_reshuffle_wrong_count, "collected cards to reshuffle"),
    "a capture without its extra card": (_capture_without_extra_card, "landed on"),
}


@pytest.fixture(scope="module")
def good_log() -> Log:
    """Three games at three seats with captures, reshuffles, outs and a last-seat end."""
    for seed in range(100):
        lines = [line for game in range(3) for line in game_lines(3, seed * 3 + game, number=game)]
        log = [json.loads(line) for line in lines]
        first_game = [e for e in log if e["game"] == 0]
        kinds = [e["event"] for e in first_game]
        if "reshuffle" in kinds and "out" in kinds and first_game[-1]["reason"] == "last seat":
            assert check_lines(lines).ok
            return log
    raise AssertionError("no suitable seed")


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_checker_catches_a_corrupted_log(good_log: Log, name: str) -> None:
    corrupt, expected = CORRUPTIONS[name]
    log = copy.deepcopy(good_log)
    corrupt(log)
    report = check_lines(json.dumps(event) for event in log)
    assert not report.ok
    assert any(expected in violation for violation in report.violations), report.violations[:5]


def test_checker_flags_a_reveal_past_the_cap() -> None:
    lines = game_lines(2, 8)
    reveals = sum('"event":"reveal"' in line for line in lines)
    report = check_lines(lines, cap=reveals - 1)
    assert any("past the cap" in v for v in report.violations)


def test_checker_flags_a_cap_game_that_ran_past_its_end() -> None:
    lines = game_lines(2, 8, cap=10)
    assert check_lines(lines, cap=10).ok
    assert any("should have ended" in v for v in check_lines(lines, cap=9).violations)


@pytest.mark.parametrize(
    ("line", "expected"),
    [("not json", "not JSON"), ('{"event": "deal"}', "'event' and 'game'"), ("", "empty line")],
)
def test_checker_flags_lines_that_are_not_events(line: str, expected: str) -> None:
    report = check_lines([*game_lines(2, 1), line])
    assert any(expected in v for v in report.violations)


def test_checker_command_line_exits_1_and_prints_violations(tmp_path: Path) -> None:
    lines = game_lines(2, 1)
    event = json.loads(lines[1])
    event["match"] = not event["match"]
    lines[1] = json.dumps(event)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("rules_checker.py")), str(path)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 1
    assert "line 2 (game 0)" in done.stdout
