"""The pair benchmark (``benchmarks/bench_again.py``): its replay of the said-again rule gives what
the live recogniser gives, and each pair is scored by what a player would meet."""

from __future__ import annotations

import sys
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_again as pairs  # noqa: E402
from test_neural import DEAF_HEAD, answers, said_twice  # noqa: E402

from voice_rang.listen.results import Recognition  # noqa: E402


def test_the_replayed_rule_answers_each_take_as_the_live_recogniser_does() -> None:
    for pcm in (said_twice(1.5), said_twice(1.5, snr_db=15.0)):
        said = pairs.decode(pairs.recording(DEAF_HEAD), pcm)
        replayed = [(a.command, a.unsure) for a in pairs.replay(said, DEAF_HEAD) if a.reason != "silence"]
        assert replayed == answers(pcm, DEAF_HEAD)
        assert replayed != [(a.command, a.unsure) for a in pairs.replay(said, replace(DEAF_HEAD, again_min=2.0))
                            if a.reason != "silence"]


NOTHING = Recognition(None, "[the]", False, 1.0, "not a command", 600.0, snr_db=40.0)


def utterance(answer: Recognition, lean: tuple[str | None, float] = (None, 0.0), gap_ms: float = 1500.0) -> dict:
    return {"result": asdict(answer), "lean": list(lean), "gap_ms": gap_ms}


def test_a_pair_is_scored_by_when_the_player_was_answered_and_whether_rightly() -> None:
    turn = replace(NOTHING, command="turn", reason="command")
    stop = replace(NOTHING, command="stop", reason="command")
    rule = DEAF_HEAD
    command = {"expected": "turn"}
    assert pairs.outcome({**command, "said": [utterance(turn), utterance(NOTHING)]}, rule) == "at once"
    assert pairs.outcome({**command, "said": [utterance(NOTHING), utterance(turn)]}, rule) == "second"
    assert pairs.outcome({**command, "said": [utterance(NOTHING, ("turn", 0.5)),
                                              utterance(NOTHING, ("turn", 0.5))]}, rule) == "second"
    assert pairs.outcome({**command, "said": [utterance(NOTHING), utterance(stop)]}, rule) == "wrong"
    assert pairs.outcome({"expected": None, "said": [utterance(NOTHING, ("turn", 0.5)),
                                                     utterance(NOTHING, ("turn", 0.5))]}, rule) == "taken"


def test_talk_too_long_to_decode_between_two_takes_makes_the_second_a_first_hearing() -> None:
    said = [utterance(NOTHING, ("turn", 0.5)), {"abort": True}, utterance(NOTHING, ("turn", 0.5))]
    assert pairs.outcome({"expected": "turn", "said": said}, DEAF_HEAD) == "missed"
