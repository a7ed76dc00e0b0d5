"""The trial of the head heard again on changed copies of an utterance
(``benchmarks/bench_variants.py``): the averaged head decides only where the live rule acted on
nothing, and its answer is taken only when it acts."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_variants as trial  # noqa: E402
from variants import VARIANTS, variant  # noqa: E402

from voice_rang.listen.command_head import HeadScores  # noqa: E402
from voice_rang.listen.decision import Rule, decide  # noqa: E402
from voice_rang.listen.results import Recognition  # noqa: E402

LABELS = ("", "turn", "stop")
RULE = Rule(accept=0.8, ask=0.3)
NOTHING_SURE = Recognition(None, "[burn]", False, 1.0, "not a command", 500.0)


def scores(*probabilities: float) -> HeadScores:
    return HeadScores(LABELS, probabilities)


class FixedHead:
    """A head whose answer is given by the first value of what it reads."""

    def __init__(self, answers: dict[int, HeadScores]) -> None:
        self.answers = answers

    def scores(self, features: np.ndarray) -> HeadScores:
        return self.answers[int(features[0])]


def test_the_head_is_averaged_over_the_utterance_and_its_copies() -> None:
    head = FixedHead({0: scores(0.5, 0.5, 0.0), 1: scores(0.1, 0.9, 0.0)})
    mixed = trial.averaged(head, [np.zeros(1), np.ones(1)])  # type: ignore[arg-type]
    assert mixed.labels == LABELS and np.allclose(mixed.probabilities, (0.3, 0.7, 0.0))


def test_an_utterance_the_live_rule_acted_on_keeps_its_answer() -> None:
    first = decide(NOTHING_SURE, scores(0.05, 0.9, 0.05), None, RULE)
    assert first.command == "turn"
    assert trial.again(first, NOTHING_SURE, scores(0.0, 0.0, 1.0), RULE, None) is first


def test_an_utterance_left_is_acted_on_when_the_averaged_head_is_sure() -> None:
    first = decide(NOTHING_SURE, scores(0.5, 0.45, 0.05), None, RULE)
    assert first.command is None and first.unsure
    second = trial.again(first, NOTHING_SURE, scores(0.1, 0.85, 0.05), RULE, None)
    assert (second.command, second.reason) == ("turn", "command")


def test_an_averaged_answer_that_acts_on_nothing_leaves_the_question_the_live_rule_asked() -> None:
    first = decide(NOTHING_SURE, scores(0.5, 0.45, 0.05), None, RULE)
    assert trial.again(first, NOTHING_SURE, scores(0.9, 0.05, 0.05), RULE, None) is first


def test_every_copy_keeps_the_utterance_in_16_bit_samples_about_as_long() -> None:
    rng = np.random.default_rng(7)
    utterance = (rng.standard_normal(16000) * 3000).astype(np.int16)
    for name in VARIANTS:
        changed = variant(utterance, name)
        assert changed.dtype == np.int16 and 0.9 < len(changed) / len(utterance) < 1.1
        assert np.abs(changed.astype(np.float32)).mean() > 0.5 * np.abs(utterance.astype(np.float32)).mean()
