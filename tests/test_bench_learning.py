"""The trial of learning the player's voice from their yes (``benchmarks/bench_learning.py``): a
game teaches a take only where the game asked about what the player said and a yes answered it."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_learning as trial  # noqa: E402

from voice_rang.listen.command_head import CommandHead  # noqa: E402
from voice_rang.listen.decision import Rule  # noqa: E402
from voice_rang.listen.results import Recognition  # noqa: E402


class Said:
    """One take's decoding as the game would answer it (the rule's part is tested elsewhere)."""

    def __init__(self, answer: Recognition, vector: np.ndarray) -> None:
        self.pooled = [vector]
        self._answer = answer

    def answer(self, rule: Rule, voice: trial.LearningVoice | None) -> tuple[Recognition, int]:
        del rule
        if voice and (match := voice.match_pooled(self.pooled[0])).command is not None:
            return Recognition(match.command, "", False, 0.0, "command", personal=True), 0
        return self._answer, 0


def asked(guess: str) -> Recognition:
    return Recognition(None, guess, True, 0.0, "unsure", guess=guess)


def test_a_question_answered_yes_teaches_the_take_so_the_next_one_is_acted_on() -> None:
    voice = trial.LearningVoice(CommandHead.released())
    said = np.eye(8)[0]
    takes = {"enrol0": {"turn": Said(asked("turn"), said)}, "enrol1": {"turn": Said(asked("turn"), said)}}
    game = trial.play(takes, ["enrol0", "enrol1"], Rule(), voice, random.Random(0))
    assert [answer.command for _, answer in game] == [None, "turn"]
    assert voice.learnt == 1


def test_a_question_about_another_command_or_about_yes_no_or_quit_teaches_nothing() -> None:
    voice = trial.LearningVoice(CommandHead.released())
    takes = {"enrol0": {"turn": Said(asked("status"), np.eye(8)[0]), "yes": Said(asked("yes"), np.eye(8)[1]),
                        "quit": Said(asked("quit"), np.eye(8)[2]),
                        "help": Said(Recognition(None, "", False, 0.0, "not a command"), np.eye(8)[3])}}
    trial.play(takes, ["enrol0"], Rule(), voice, random.Random(0))
    assert voice.learnt == 0
    assert trial.play(takes, ["enrol0"], Rule(), None, random.Random(0)), "without learning the game still plays"


def test_a_learning_voice_keeps_only_the_latest_takes_of_a_command() -> None:
    voice = trial.LearningVoice(CommandHead.released())
    for n in range(trial.LEARNT_PER_COMMAND + 2):
        voice.learn(np.eye(8)[n], "turn")
    voice.learn(np.eye(8)[7], "help")
    assert voice.learnt == trial.LEARNT_PER_COMMAND + 1
    assert voice.match_pooled(np.eye(8)[0]).command is None, "the oldest take is forgotten"
    assert voice.match_pooled(np.eye(8)[4]).command == "turn"
    assert voice.match_pooled(np.eye(8)[7]).command == "help"


def test_a_takes_round_is_read_from_its_file_name() -> None:
    assert trial.round_of("enrol/flite_slt/turn__test3_turn_10dB.wav") == "test3"
    assert trial.round_of("enrol/flite_slt/auto-reveal_on__enrol0_auto_reveal_on.wav") == "enrol0"
