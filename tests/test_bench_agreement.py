"""The trial of two heads that agree (``benchmarks/bench_agreement.py``): a command both heads name
is acted on only where the live rule left the utterance, and only at both thresholds."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_agreement as trial  # noqa: E402

from voice_rang.listen.command_head import HeadScores  # noqa: E402
from voice_rang.listen.results import Recognition  # noqa: E402

LABELS = ("", "turn", "stop")
ASKED = Recognition(None, "[burn]", True, 1.0, "unsure", 500.0, guess="turn")


def scores(*probabilities: float) -> HeadScores:
    return HeadScores(LABELS, probabilities)


def test_a_left_utterance_both_heads_name_is_acted_on_at_both_thresholds() -> None:
    acted = trial.rescue(ASKED, scores(0.45, 0.5, 0.05), scores(0.4, 0.5, 0.1), 0.5, 0.5)
    assert (acted.command, acted.reason, acted.unsure) == ("turn", "command", False)


def test_either_head_under_its_threshold_leaves_the_answer_as_it_was() -> None:
    assert trial.rescue(ASKED, scores(0.55, 0.4, 0.05), scores(0.4, 0.5, 0.1), 0.5, 0.5) is ASKED
    assert trial.rescue(ASKED, scores(0.45, 0.5, 0.05), scores(0.6, 0.3, 0.1), 0.5, 0.4) is ASKED


def test_heads_that_name_different_commands_leave_it() -> None:
    assert trial.rescue(ASKED, scores(0.1, 0.8, 0.1), scores(0.1, 0.1, 0.8), 0.2, 0.2) is ASKED


def test_a_doubt_or_what_the_duration_ruled_out_is_never_rescued() -> None:
    for reason in ("doubt", "too short", "part of longer talk", "not valid now"):
        left = Recognition(None, "turn", True, 1.0, reason, 500.0, guess="turn")
        assert trial.rescue(left, scores(0.1, 0.8, 0.1), scores(0.1, 0.8, 0.1), 0.2, 0.2) is left


def test_the_tally_counts_talk_the_rescue_takes() -> None:
    talk = {"kind": "negative", "condition": "10dB white", "neg_type": "talk", "expected": None}
    left = Recognition(None, "[the] [cat]", False, 1.0, "not a command", 500.0)
    prepared = [(talk, [(left, scores(0.4, 0.5, 0.1), scores(0.3, 0.6, 0.1))])]
    assert trial.tally(prepared, None) == {"talk 10dB": [0, 0, 1]}
    assert trial.tally(prepared, (0.5, 0.5)) == {"talk 10dB": [0, 1, 1]}
