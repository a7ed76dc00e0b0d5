"""``voice-rang simulate`` and ``voice_rang.games.rang_milanti.simulate``: reproducible, summarised, the rules' figures.

No timed assertions: speed is measured by ``benchmarks/bench_simulate.py``, not here.
"""

from __future__ import annotations

import functools
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from voice_rang.cli import main
from voice_rang.cli import simulate as simulate_command
from voice_rang.games.rang_milanti.simulate import Summary, percentile, simulate

VOICE_RANG = Path(sys.executable).with_name("voice-rang")
TIMINGS = {"seconds", "reveals_per_second"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VOICE_RANG), "simulate", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )


def without_timings(stdout: str) -> list[str]:
    lines = [line for line in stdout.splitlines() if not line.startswith("Speed:")]
    if lines and lines[-1].startswith("{"):
        summary = json.loads(lines[-1])
        lines[-1] = json.dumps({k: v for k, v in summary.items() if k not in TIMINGS})
    return lines


# ----- reproducible ----------------------------------------------------------------------------


def test_same_seed_gives_the_same_output_timings_aside() -> None:
    first = run("--seats", "3", "--games", "200", "--seed", "5", "--json")
    second = run("--seats", "3", "--games", "200", "--seed", "5", "--json")
    assert first.returncode == second.returncode == 0
    assert without_timings(first.stdout) == without_timings(second.stdout)
    other = run("--seats", "3", "--games", "200", "--seed", "6", "--json")
    assert without_timings(other.stdout) != without_timings(first.stdout)


def test_same_seed_gives_the_same_log_byte_for_byte(tmp_path: Path) -> None:
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for path in paths:
        assert run("--seats", "4", "--games", "30", "--seed", "9", "--jsonl", str(path)).returncode == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_summary_in_process_is_reproducible_and_a_log_does_not_change_the_games() -> None:
    plain = simulate(seats=5, games=150, seed=2)
    logged = simulate(seats=5, games=150, seed=2, log=io.BytesIO())
    strip = lambda s: {k: v for k, v in s.as_dict().items() if k not in TIMINGS}  # noqa: E731
    assert strip(plain) == strip(logged)


def test_log_numbers_games_from_zero_in_order(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    simulate(seats=2, games=25, seed=1, log=buffer)
    events = [json.loads(line) for line in buffer.getvalue().splitlines()]
    deals = [e["game"] for e in events if e["event"] == "deal"]
    ends = [e["game"] for e in events if e["event"] == "end"]
    assert deals == ends == list(range(25))


# ----- the summary ------------------------------------------------------------------------------


def test_json_last_line_holds_the_summary() -> None:
    done = run("--seats", "4", "--games", "100", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    for key in ("games", "median", "p90", "p99", "max", "capped", "wins", "reveals_per_second"):
        assert key in summary
    assert summary["games"] == 100 and summary["seats"] == 4
    assert summary["median"] <= summary["p90"] <= summary["p99"] <= summary["max"]
    assert len(summary["wins"]) == 4 and sum(summary["wins"]) >= 100
    assert summary["reveals_per_second"] > 0


def test_plain_output_is_readable_lines_without_json() -> None:
    done = run("--seats", "2", "--games", "50")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "Games: 50 at 2 seats."
    assert lines[1].startswith("Reveals per game: median ")
    assert not any(line.startswith("{") for line in lines)


def test_cap_of_one_caps_every_game() -> None:
    done = run("--seats", "6", "--games", "40", "--cap", "1", "--json")
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["capped"] == 40
    assert summary["median"] == summary["max"] == 1


def test_small_cap_caps_long_games_only() -> None:
    summary = simulate(seats=3, games=300, seed=4, cap=150)
    assert 0 < summary.capped < 300
    assert summary.max == 150


def test_wins_count_each_winner_of_a_shared_win() -> None:
    summary = simulate(seats=2, games=300, seed=0, cap=2)
    # Two cards turned, one each, no match possible on the first: every game a 25-25 tie,
    # unless the guest's card matched and it holds 27.
    assert summary.capped == 300
    assert sum(summary.wins) == 300 + summary.shared
    assert summary.shared > 0


def test_percentile_is_nearest_rank() -> None:
    ordered = list(range(1, 101))
    assert percentile(ordered, 0.5) == 50
    assert percentile(ordered, 0.9) == 90
    assert percentile(ordered, 0.99) == 99
    assert percentile([7], 0.5) == 7


def test_summary_totals_add_up() -> None:
    summary = simulate(seats=4, games=64, seed=3)
    assert isinstance(summary, Summary)
    assert summary.games == 64 and summary.reveals >= 64 * summary.median // 2
    assert summary.capped == 0


# ----- the rules' reference figures -------------------------------------------------------------


@pytest.fixture(scope="module")
def reference() -> dict[int, Summary]:
    return {seats: simulate(seats=seats, games=2000, seed=100 + seats) for seats in range(2, 7)}


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_game_length_matches_the_rules_reference(reference: dict[int, Summary], seats: int) -> None:
    summary = reference[seats]
    # RULES.md: median roughly 270-430 (more seats, longer), p99 around 1,400-1,600, the cap
    # practically never reached. The bounds allow for 2,000 games of sampling noise.
    assert 240 <= summary.median <= 460
    assert 1150 <= summary.p99 <= 1750
    assert summary.capped == 0


def test_more_seats_make_longer_games(reference: dict[int, Summary]) -> None:
    assert reference[2].median < reference[4].median < reference[6].median + 20
    assert reference[2].median < reference[6].median


def test_every_seat_wins_a_fair_share(reference: dict[int, Summary]) -> None:
    for seats, summary in reference.items():
        fair = summary.games / seats
        assert all(0.75 * fair < wins < 1.25 * fair for wins in summary.wins)


# ----- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--seats", "1"], id="one seat"),
        pytest.param(["--seats", "7"], id="seven seats"),
        pytest.param(["--games", "0"], id="no games"),
        pytest.param(["--games", "-3"], id="negative games"),
        pytest.param(["--cap", "0"], id="cap 0"),
        pytest.param(["--seats", "two"], id="seats not a number"),
        pytest.param(["--jsonl", "/nonexistent/folder/log.jsonl"], id="no such folder"),
        pytest.param(["--jsonl", "/"], id="a folder, not a file"),
        pytest.param(["--jsonl", "/dev/full"], id="log device full"),
        pytest.param(["--frobnicate"], id="unknown flag"),
        pytest.param(["--games"], id="flag without value"),
    ],
)
def test_bad_input_gives_one_line_on_stderr_and_exit_code_2(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("voice-rang")


def test_unwritable_log_names_the_path_and_what_to_do() -> None:
    done = run("--jsonl", "/nonexistent/folder/log.jsonl")
    assert "/nonexistent/folder/log.jsonl" in done.stderr
    assert "writable" in done.stderr


# ----- progress ------------------------------------------------------------------------------------


def test_progress_is_reported_as_plain_lines_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    eager = functools.partial(simulate, progress_every=0.0)
    monkeypatch.setattr(simulate_command, "simulate", eager)
    assert main(["simulate", "--seats", "6", "--games", "600"]) == 0
    out, err = capsys.readouterr()
    assert "\r" not in err and "\r" not in out
    assert err.splitlines() == ["Simulated 256 of 600 games.", "Simulated 512 of 600 games."]
    assert out.startswith("Games: 600 at 6 seats.")


def test_progress_callback_gets_done_and_total() -> None:
    calls: list[tuple[int, int]] = []
    simulate(seats=2, games=520, seed=0, progress=lambda d, t: calls.append((d, t)),
             progress_every=0.0)
    assert calls == [(256, 520), (512, 520)]


def test_a_quiet_run_writes_nothing_on_stderr() -> None:
    done = run("--games", "20")
    assert done.returncode == 0 and done.stderr == ""
