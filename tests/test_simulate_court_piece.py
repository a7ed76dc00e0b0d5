"""``voice-rang simulate court-piece``: whole sessions between computer levels, summarised, logged by the rules.

No timed assertions: speed is measured by ``benchmarks/bench_bots.py``, not here.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from court_piece_checker import check_file
from test_play import TEXT_ENV, VOICE_RANG

from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.simulate import seat_levels, simulate


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VOICE_RANG, "simulate", "court-piece", *args], capture_output=True, text=True,
                          timeout=300, env=TEXT_ENV)


@pytest.mark.parametrize("variant", ["court-piece", "double-sir", "be-ranga", "hidden-rung"])
@pytest.mark.parametrize("scoring", ["points", "courts"])
def test_two_hundred_sessions_of_every_variant_and_scoring_log_by_the_rules(
        variant: str, scoring: str, tmp_path: Path) -> None:
    log = tmp_path / "out.jsonl"
    result = run("--variant", variant, "--scoring", scoring, "--sessions", "200", "--seed", "1",
                 "--bots", "easy,random", "--jsonl", str(log), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["sessions"] == 200 and summary["rules"]["variant"] == variant
    assert sum(summary["sessions_won"].values()) + summary["no_winner"] == 200
    assert sum(summary["deal_kinds"].values()) == summary["deals"]
    assert check_file(log) == []


def test_the_same_seed_gives_the_same_sessions_and_log(tmp_path: Path) -> None:
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for log in logs:
        assert run("--sessions", "20", "--seed", "4", "--bots", "normal,easy", "--jsonl", str(log)).returncode == 0
    assert logs[0].read_bytes() == logs[1].read_bytes()


def test_the_levels_swap_teams_every_session_and_the_log_says_who_sat_where(tmp_path: Path) -> None:
    log = tmp_path / "out.jsonl"
    assert run("--sessions", "4", "--seed", "2", "--bots", "easy,random", "--jsonl", str(log)).returncode == 0
    starts = [json.loads(line) for line in log.read_text().splitlines() if '"event":"session"' in line]
    assert [start["players"] for start in starts] == [list(seat_levels(("easy", "random"), n)) for n in range(4)]


def test_the_summary_says_how_deals_ended_who_won_and_how_fast_each_level_thinks() -> None:
    result = run("--sessions", "10", "--seed", "3", "--bots", "normal,easy")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Sessions: 10 of court-piece, normal against easy, teams swapped every session."
    assert lines[1].startswith("Sessions won: normal ") and lines[2].startswith("Deals won: normal ")
    assert lines[4].startswith("Deals ended: wins ")
    assert any(line.startswith("Thinking time of normal: median ") for line in lines)


@pytest.mark.parametrize(("options", "words"), [
    (["--bots", "genius"], "--bots takes one or two levels of random, easy, normal, strong"),
    (["--variant", "hidden-rung", "--trump", "named"], "hidden-rung takes trump hidden or blind"),
    (["--sessions", "0"], "--sessions must be at least 1"),
    (["--seats", "4"], "--seats is an option of Rang Milanti"),
    (["--jsonl", "/nonexistent/dir/x.jsonl"], "cannot write the log to /nonexistent/dir/x.jsonl"),
])
def test_bad_options_get_one_line_and_exit_code_2(options: list[str], words: str) -> None:
    result = run(*options)
    assert result.returncode == 2
    assert words in result.stderr and result.stderr.count("\n") == 1


def test_a_simulation_in_process_counts_every_session_once() -> None:
    summary = simulate(Rules.make("double-sir"), sessions=6, seed=9, levels=("easy", "easy"))
    assert summary.sessions == 6 and sum(summary.sessions_won.values()) + summary.no_winner == 6
    assert summary.decisions > summary.deals * 28
