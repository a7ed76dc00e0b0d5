"""What the game gains by learning the player's voice from their yes, and what it risks.

A trial, not part of the game: when the game asks "Did you say turn?" and the player says yes, it
could keep that utterance as a take of "turn" for the rest of the game (:class:`LearningVoice`),
matched as enrolled takes are (``voice_rang.listen.personal``). This weighs it on a decoding
``bench_neural.py score`` already made, through the live rule, for the voices that enrol there
(their three enrolment takes and two new takes of every command, clean, then the two new takes at
10 dB), played as a game by a player who never enrolled:

* **a clean game**: five rounds, each round every command once in a fixed random order (the three
  enrolment takes, then the two new ones), then **a game at 10 dB** (two rounds of the new takes
  in noise), keeping what the clean game learnt. A simulated player answers yes to a question about
  what they said and no to any other. Questions about "yes", "no" and "quit" teach nothing: the
  game never asks the first two, and a half-heard "quit" goes to the quit question.
* **what it risks**: every other utterance of the set (talk, numbers, cards, narration, near words,
  other speakers' commands) heard against the takes a voice learnt by the end of its games (its
  own voice's where it enrolled, else one picked by the file's name, as ``bench_neural`` does).

    .venv/bin/python benchmarks/bench_learning.py --voices training-diphone   # where it is judged
    .venv/bin/python benchmarks/bench_learning.py                              # held-out voices
    .venv/bin/python benchmarks/bench_learning.py --decoded OTHER.jsonl        # another decoding of them

The enrolment takes are decoded here the first time (``scores-enrol.jsonl`` beside the set's
rows), the rest is read. Receives the set's rows (the grammar decoders' answers) and the encoder
states kept beside them, so any decoding by a head on Moonshine's encoder serves; emits two tables,
learning against none: the games, right / wrong (asked), and the rest heard against what was learnt.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

import bench_heads  # noqa: E402
import bench_neural  # noqa: E402

from voice_rang.listen.command_head import CommandHead  # noqa: E402
from voice_rang.listen.decision import Rule, decide  # noqa: E402
from voice_rang.listen.personal import PersonalVoice, _unit  # noqa: E402
from voice_rang.listen.recognizer import summarize  # noqa: E402
from voice_rang.listen.results import Recognition  # noqa: E402

CLEAN_ROUNDS = ("enrol0", "enrol1", "enrol2", "test3", "test4")
NOISY_ROUNDS = ("test3", "test4")
NEVER_LEARNT = frozenset({"yes", "no", "quit"})
"""Commands a question never teaches (:meth:`voice_rang.table.Table.offer_guess`)."""
ASKING = ("unsure", "poor match", "doubt")
"""The unsure reasons the game asks about (the rest are "I didn't catch that")."""
SEED = 2027
LEARNT_PER_COMMAND = 3
"""Takes learnt kept for each command, the latest: enough to hear the player again, few enough
that one mistaken yes is soon forgotten."""


class LearningVoice(PersonalVoice):
    """Templates learnt in play only: utterances the game asked about and the player confirmed.

    >>> from voice_rang.listen.command_head import CommandHead
    >>> voice = LearningVoice(CommandHead.released())
    >>> bool(voice), voice.match_pooled(np.ones(8)).command is None
    (False, True)
    >>> for n in range(5):
    ...     voice.learn(np.eye(8)[n % 2], "turn")
    >>> voice.learnt, voice.match_pooled(np.eye(8)[0]).command
    (3, 'turn')
    """

    def __init__(self, head: CommandHead) -> None:
        super().__init__({}, head=head)
        self.kept: dict[str, list[np.ndarray]] = {}

    def learn(self, pooled: np.ndarray, command: str) -> None:
        """Keep ``pooled`` (the utterance in the head's pooled space) as a take of ``command``."""
        self.kept[command] = [*self.kept.get(command, []), _unit(pooled)][-LEARNT_PER_COMMAND:]
        self.commands = [c for c, takes in sorted(self.kept.items()) for _ in takes]
        self.templates = np.stack([t for _, takes in sorted(self.kept.items()) for t in takes])

    @property
    def learnt(self) -> int:
        return len(self.commands)


class Utterances:
    """One file's decoding: the grammar decoders' answers, the head's scores and its embeddings."""

    def __init__(self, row: dict[str, Any], features: np.ndarray | None, head: CommandHead) -> None:
        self.row = row
        self.grammar = bench_heads.grammar_answers(row.get("said") or [])
        self.features = [] if features is None else list(features.astype(np.float32))
        self.scores = [head.scores(u) for u in self.features]
        self.pooled = [head.pooled(u) for u in self.features]

    def answer(self, rule: Rule, voice: PersonalVoice | None) -> tuple[Recognition, int | None]:
        """The live rule's answer for the file, and which utterance it came of."""
        if not self.features:
            return Recognition(None, "", False, 0.0, "silence"), None
        answers = [decide(g, s, None, rule, voice.match_pooled(p) if voice else None)
                   for g, s, p in zip(self.grammar, self.scores, self.pooled, strict=True)]
        chosen = summarize(answers)
        return chosen, next((n for n, a in enumerate(answers) if a is chosen), None)


def round_of(path: str) -> str:
    """``enrol/v/turn__test3_turn_10dB.wav`` -> ``test3``."""
    return Path(path).stem.split("__", 1)[1].split("_", 1)[0]


def play(takes: dict[str, dict[str, Utterances]], rounds: Iterable[str], rule: Rule, voice: LearningVoice | None,
         rng: random.Random) -> list[tuple[str, Recognition]]:
    """One game: each round every command once, in an order ``rng`` draws; learns into ``voice``
    (when there is one) from every question answered yes. Each take's expected command and answer."""
    said: list[tuple[str, Recognition]] = []
    for name in rounds:
        commands = sorted(takes[name])
        rng.shuffle(commands)
        for command in commands:
            utterances = takes[name][command]
            answer, at = utterances.answer(rule, voice)
            said.append((command, answer))
            if (voice is not None and at is not None and answer.command is None and answer.unsure
                    and answer.reason in ASKING and answer.guess == command and command not in NEVER_LEARNT):
                voice.learn(utterances.pooled[at], command)
    return said


def bad(answer: Recognition, expected: str | None) -> bool:
    """Acted on, and not as the command said (talk taken, or a command heard as another)."""
    return answer.command is not None and answer.command != expected


def tally(said: list[tuple[str, Recognition]]) -> str:
    n = max(len(said), 1)
    right = sum(a.command == c for c, a in said)
    wrong = sum(a.command not in (None, c) for c, a in said)
    asked = sum(a.command is None and a.unsure for c, a in said)
    return f"{100 * right / n:.1f} % / {100 * wrong / n:.1f} % ({100 * asked / n:.1f} %)"


def decode_enrolment(root: Path, workers: int) -> Path:
    """Decode the enrolment takes once (``bench_neural``'s live decoding), beside the set's rows."""
    out = root / "scores-enrol.jsonl"
    if out.exists():
        return out
    rows = [json.loads(line) for line in (root / "index.jsonl").read_text().splitlines()]
    items = [{**r, "_root": str(root)} for r in rows if r["kind"] == "enrol"]
    if not items:
        raise SystemExit(f"bench_learning: no enrolment takes in {root}: make them with bench_neural.py make")
    bench_neural._state["second_ear"] = False
    print(f"decoding {len(items)} enrolment takes once", file=sys.stderr, flush=True)
    bench_neural.decode_all(items, workers, out)
    return out


def load(scores: Path, head: CommandHead) -> list[Utterances]:
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    with np.load(bench_neural.features_path(scores)) as features:
        stored = bench_heads.stored_width(features, head)
        if stored is not None:
            raise SystemExit(f"bench_learning: {scores} kept {stored} values a frame and the released head reads "
                             f"{head.mean.shape[-1]} ({head.front}): give --decoded a decoding by such a head")
        return [Utterances(row, features[str(n)] if str(n) in features.files else None, head)
                for n, row in enumerate(rows)]


def group(row: dict[str, Any], own: bool) -> str | None:
    """The second table's row a file falls in (``own``: said by the voice whose takes it is heard
    against), or ``None`` (the enrolled voices' takes, which the games play)."""
    if row["kind"] == "command":
        where = "clean" if row["condition"] == "clean" else row["condition"].split()[0]
        return f"{'the player' if own else 'other speakers'}: commands, {where}"
    if row["kind"] != "negative":
        return None
    kind = "near words" if row.get("neg_type") in ("near", "word") else "talk, numbers, cards, narration"
    return f"{kind}, {'clean' if row['condition'] == 'clean' else 'noisy or room'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", choices=tuple(bench_neural.VOICE_SETS), default="heldout")
    parser.add_argument("--decoded", type=Path, default=None, metavar="JSONL",
                        help="the set's decoding (default: its scores-heldout.jsonl)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    root = bench_neural._out(argparse.Namespace(voices=args.voices))
    scores = args.decoded or root / "scores-heldout.jsonl"
    if not scores.exists() or not bench_neural.features_path(scores).exists():
        print(f"bench_learning: no decoding with embeddings at {scores}: run bench_neural.py score first",
              file=sys.stderr)
        return 1
    head = CommandHead.released()
    rule = bench_neural.rules(head.accept, head.ask)["live rule (+ trust)"]
    decoded = load(scores, head) + load(decode_enrolment(root, args.workers), head)
    folders = {str(f.relative_to(root)) for f in bench_neural._enrolled_folders(root)}
    takes: dict[str, dict[str, dict[str, dict[str, Utterances]]]] = {}
    for item in decoded:
        row = item.row
        if row["kind"] in ("enrol", "test"):
            condition = "clean" if row["condition"] == "clean" else "noisy"
            folder = str(Path(row["path"]).parent)
            takes.setdefault(folder, {}).setdefault(condition, {}).setdefault(round_of(row["path"]), {})[
                row["expected"]] = item
    games: dict[str, dict[str, list[tuple[str, Recognition]]]] = {"none": {}, "learning": {}}
    learnt: dict[str, LearningVoice] = {}
    for folder in sorted(folders):
        for way in games:
            voice = LearningVoice(head) if way == "learning" else None
            rng = random.Random(f"{SEED}:{folder}")
            for phase, rounds in (("clean", CLEAN_ROUNDS), ("10 dB", NOISY_ROUNDS)):
                here = takes[folder]["clean" if phase == "clean" else "noisy"]
                games[way].setdefault(phase, []).extend(play(here, rounds, rule, voice, rng))
            if voice is not None:
                learnt[folder] = voice
                print(f"{folder}: {voice.learnt} takes learnt and kept", file=sys.stderr)
    print("| the enrolled voices' games, never enrolled | n | no learning: right / wrong (asked) "
          "| learning from yes |")
    print("| --- | --- | --- | --- |")
    for phase in ("clean", "10 dB"):
        print(f"| {phase} game | {len(games['none'][phase])} | {tally(games['none'][phase])} "
              f"| {tally(games['learning'][phase])} |")
    both = {way: games[way]["clean"] + games[way]["10 dB"] for way in games}
    print(f"| both | {len(both['none'])} | {tally(both['none'])} | {tally(both['learning'])} |")
    risks: dict[str, list[tuple[str | None, Recognition, Recognition]]] = {}
    for item in decoded:
        whose = bench_neural._enrolled_folder({**item.row, "_root": str(root)})
        folder = str(whose.relative_to(root)) if whose is not None else None
        name = group(item.row, folder == bench_neural._enrol_dir(Path("."), item.row.get("voice", "")).as_posix())
        if name is None:
            continue
        voice = learnt.get(folder) if folder is not None else None
        risks.setdefault(name, []).append((item.row.get("expected"), item.answer(rule, None)[0],
                                           item.answer(rule, voice)[0]))
    print()
    print("| heard against the takes a voice learnt | n | no learning: right, taken or wrong (asked) "
          "| learning from yes |")
    print("| --- | --- | --- | --- |")
    for name, rows in sorted(risks.items()):
        n = len(rows)
        cells = [("" if rows[0][0] is None else f"right {100 * sum(r[k].command == r[0] for r in rows) / n:.1f} %, ")
                 + f"{'wrong' if rows[0][0] else 'taken'} {100 * sum(bad(r[k], r[0]) for r in rows) / n:.1f} % "
                 f"({100 * sum(r[k].command is None and r[k].unsure for r in rows) / n:.1f} %)" for k in (1, 2)]
        print(f"| {name} | {n} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
