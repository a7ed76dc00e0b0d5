"""The ceiling: how much of each condition's commands any rule could act on rightly, given what the
models heard. On decodings ``bench_neural.py score`` already made, it counts how often each model
*named* the command said, sure or not: the head's likeliest command, the grammar decoders' command
or guess, the player's takes where one matched. A rule can only act on a command some model names,
so even one that knew when to act (an oracle) gets no more right than the models together named.
A target above a row's ceiling is out of reach of any rule or threshold: only models that hear
better can meet it.

    .venv/bin/python benchmarks/bench_ceiling.py benchmarks/out/neural/scores-heldout.jsonl
    .venv/bin/python benchmarks/bench_ceiling.py ROWS.jsonl OTHER.jsonl --ear
    .venv/bin/python benchmarks/bench_ceiling.py ROWS.jsonl --head DIR/command_head.npz
    .venv/bin/python benchmarks/bench_ceiling.py ROWS.jsonl --whole

The first file's rows give the live rule's own figure (with the player's takes, for the voices
that enrolled) and the head that decoded them. Each further file is another head's decoding of the
same recordings (``bench_neural.py score --head NPZ``), matched by path, so the heads' namings can
be pooled. ``--head NPZ`` (again for more) weighs another head that reads the same front on the
first decoding's stored features (``bench_neural.features_path``), in seconds. The takes count
only for the enrolled voices' own new takes (``score`` hears everyone else against one enrolled
voice's takes, as a room is heard in a game). ``--ear`` also asks Moonshine's own decoder
(``second_ear.py``) which command's phrase, said alone, is likeliest for each
command file (whole, not cut by the endpointer; about a second a file on this machine), and keeps
its answers beside the rows (``ear-<rows>.jsonl``), so a second run reads them instead.
``--whole`` gives the released head each command file whole instead of the endpointer's cut (the
file holds the take with the room around it, as the head's training takes do): what a perfect
endpointer would let the head name. Kept the same way (``whole-<rows>.jsonl``).

Receives: score rows (``said``: each utterance's grammar answer and head probabilities, in the
released head's label order). Emits: one markdown table, a row for each kind of command take, a
column for each model, then any of them, then (``--whole``) the head on the whole file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from voice_rang.listen.command_head import HeadScores  # noqa: E402

GROUPS = {"clean commands": ("command", "clean"), "10 dB commands": ("command", "10dB"),
          "room commands": ("command", "room"), "enrolled voice, clean": ("test", "clean"),
          "enrolled voice, 10 dB": ("test", "10dB")}
"""The table's rows: which takes (``kind``, and how ``condition`` starts)."""


def named(said: dict[str, Any], labels: tuple[str, ...]) -> dict[str, str | None]:
    """What each model named for one utterance, sure or not: the head's likeliest command (never
    "not a command"), the grammar decoders' command or else their guess, and the takes' command
    where a take matched closely enough (the rows keep no nearer take that did not).

    >>> named({"head": [0.8, 0.15, 0.05], "grammar": {"command": None, "guess": "quit"},
    ...        "personal": None}, ("", "turn", "quit"))
    {'head': 'turn', 'grammar': 'quit', 'takes': None}
    """
    if len(said["head"]) != len(labels):
        raise ValueError(f"a head gave {len(said['head'])} probabilities where the released head has "
                         f"{len(labels)} labels; decode with a head of the same commands")
    head = HeadScores(labels, tuple(said["head"])).best(None)[0]
    grammar = said["grammar"]["command"] or said["grammar"]["guess"]
    return {"head": head, "grammar": grammar, "takes": (said.get("personal") or {}).get("command")}


def _percent(count: int, n: int) -> str:
    return f"{100 * count / n:.1f} %"


def ceiling(rows: list[dict[str, Any]], labels: tuple[str, ...],
            others: dict[str, dict[str, dict[str, Any]]] | None = None,
            ear: dict[str, str | None] | None = None,
            heads: dict[str, list[set[str]]] | None = None,
            whole: dict[str, str | None] | None = None) -> list[str]:
    """The table for ``rows``; ``others``: another decoding's rows by path, by name; ``ear``: the
    decoder's likeliest command by path (a row without one counts as not named by it); ``heads``:
    what another head named in each row (in the rows' order), by name; ``whole``: the head's
    likeliest command on each file whole, by path (not counted in "any of them": it is another cut).

    >>> row = {"kind": "command", "condition": "10dB white", "expected": "turn", "path": "a.wav",
    ...        "live rule (+ trust)": {"command": None}, "said": [{"head": [0.3, 0.7, 0.0],
    ...        "personal": None, "grammar": {"command": None, "guess": "quit"}}]}
    >>> ceiling([row], ("", "turn", "quit"), ear={"a.wav": "quit"})[2]
    '| 10 dB commands | 1 | 0.0 % | 100.0 % | 0.0 % | 0.0 % | 100.0 % |'
    """
    others, heads = others or {}, heads or {}
    columns = ["the head's likeliest command", "the grammar decoders' command or guess",
               *(f"head of {name}" for name in others), *heads]
    columns += ["Moonshine's decoder"] if ear is not None else []
    extra = ["the head on the whole file"] if whole is not None else []
    columns += ["the takes"] if any((s.get("personal") or {}).get("command") for r in rows for s in r["said"]) else []
    lines = ["| right, with an oracle for when to act | n | live rule (with the takes where enrolled) | "
             + " | ".join(columns) + " | any of them |" + "".join(f" {column} |" for column in extra),
             "| --- | --- | --- | " + " | ".join("---" for _ in columns) + " | --- |" + " --- |" * len(extra)]
    for name, (kind, condition) in GROUPS.items():
        chosen = [(number, r) for number, r in enumerate(rows)
                  if r["kind"] == kind and r["condition"].startswith(condition)]
        if not chosen:
            continue
        counts = [0] * (len(columns) + 2 + len(extra))
        for number, row in chosen:
            rule = row["personal"] if kind == "test" and "personal" in row else row["live rule (+ trust)"]
            counts[0] += rule["command"] == row["expected"]
            heard: dict[str, set[str | None]] = {column: set() for column in columns}
            for said in row["said"]:
                mine = named(said, labels)
                heard[columns[0]].add(mine["head"])
                heard[columns[1]].add(mine["grammar"])
                if "the takes" in heard and kind == "test":  # anyone else is heard against another voice's
                    heard["the takes"].add(mine["takes"])
            for other, by_path in others.items():
                theirs = by_path.get(row["path"], {}).get("said", [])
                heard[f"head of {other}"].update(named(said, labels)["head"] for said in theirs)
            for column, named_by in heads.items():
                heard[column].update(named_by[number])
            if ear is not None:
                heard["Moonshine's decoder"].add(ear.get(row["path"]))
            for at, column in enumerate(columns, start=1):
                counts[at] += row["expected"] in heard[column]
            counts[len(columns) + 1] += any(row["expected"] in names for names in heard.values())
            if whole is not None:
                counts[-1] += whole.get(row["path"]) == row["expected"]
        cells = [_percent(count, len(chosen)) for count in counts]
        if "the takes" in columns and kind != "test":
            cells[columns.index("the takes") + 1] = "-"
        lines.append(f"| {name} | {len(chosen)} | " + " | ".join(cells) + " |")
    return lines


def kept_answers(rows: list[dict[str, Any]], root: Path, kept: Path,
                 answer: Callable[[bytes], str | None]) -> dict[str, str | None]:
    """``answer`` for every command file of ``rows`` (under ``root``), from ``kept`` where it was
    given before; new answers are added to ``kept`` as they come."""
    from voice_rang.listen.wavfile import read_wav_16k

    answers: dict[str, str | None] = {}
    if kept.exists():
        try:
            for line in kept.read_text(encoding="utf-8").splitlines():
                given = json.loads(line)
                answers[given["path"]] = given["best"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise SystemExit(f"bench_ceiling: {kept} is not answers kept by this script; "
                             "delete it to ask again") from None
    wanted = [r["path"] for r in rows if r["kind"] in ("command", "test") and r["path"] not in answers
              and any(r["condition"].startswith(condition) for _, condition in GROUPS.values())]
    with kept.open("a", encoding="utf-8") as out:
        for path in wanted:
            answers[path] = answer(read_wav_16k(str(root / path)))
            out.write(json.dumps({"path": path, "best": answers[path]}) + "\n")
            out.flush()
    return answers


def decoder_answer() -> Callable[[bytes], str | None]:
    """Moonshine's decoder: the command whose phrase, said alone, it finds likeliest."""
    from second_ear import MoonshineModel, Transcriber

    from voice_rang.commands import CommandSet

    commands = CommandSet.load("en")
    transcriber = Transcriber(commands, MoonshineModel.shared())
    return lambda pcm: transcriber.hear(pcm, list(commands.spoken())).best()[0]


def whole_answer() -> Callable[[bytes], str | None]:
    """The released head's likeliest command on the whole file."""
    from voice_rang.listen.command_head import CommandHead
    from voice_rang.listen.front import head_features

    head = CommandHead.released()
    return lambda pcm: head.scores(head_features(pcm, head)).best(None)[0]


def head_namings(rows_path: Path, count: int, head_path: Path) -> list[set[str]]:
    """What the head in ``head_path`` names in each of the ``count`` rows, read from the features
    the decoding kept beside its rows (a row whose file held no utterance names nothing)."""
    import numpy as np
    from bench_heads import stored_width
    from bench_neural import features_path

    from voice_rang.listen.command_head import CommandHead

    head = CommandHead(head_path)  # a file that is not a head: ModelCorrupt, said in one line by main
    try:
        kept = np.load(features_path(rows_path))
    except FileNotFoundError:
        raise SystemExit(f"bench_ceiling: {rows_path} has no features beside it; score again to keep them") from None
    if stored_width(kept, head) is not None:
        raise SystemExit(f"bench_ceiling: {head_path} reads another front than the head that decoded {rows_path}")
    return [{head.scores(utterance.astype(np.float32)).best(None)[0] for utterance in kept.get(str(number), ())}
            for number in range(count)]


def _read(path: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    except FileNotFoundError:
        raise SystemExit(f"bench_ceiling: there is no {path}; make it with benchmarks/bench_neural.py score") from None
    except json.JSONDecodeError:
        raise SystemExit(f"bench_ceiling: {path} is not score rows (one JSON object a line)") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, help="a score's rows: the live rule's figures and its head's namings")
    parser.add_argument("others", type=Path, nargs="*", help="other heads' decodings of the same recordings")
    parser.add_argument("--ear", action="store_true", help="also Moonshine's own decoder (slow the first time)")
    parser.add_argument("--whole", action="store_true", help="also the head on each command file whole")
    parser.add_argument("--head", type=Path, action="append", default=[], metavar="NPZ",
                        help="another head on the same front, on the first decoding's features")
    args = parser.parse_args(argv)
    from voice_rang.listen.command_head import CommandHead, ModelCorrupt
    from voice_rang.listen.moonshine import MoonshineUnavailable

    try:
        return _table(args, CommandHead.released().labels)
    except (ModelCorrupt, MoonshineUnavailable, ValueError) as error:
        raise SystemExit(f"bench_ceiling: {error}") from None


def _table(args: argparse.Namespace, labels: tuple[str, ...]) -> int:
    rows = _read(args.rows)
    others = {path.stem.removeprefix("scores-"): {r["path"]: r for r in _read(path)} for path in args.others}
    ear = kept_answers(rows, args.rows.parent, args.rows.with_name(f"ear-{args.rows.stem}.jsonl"),
                       decoder_answer()) if args.ear else None
    whole = kept_answers(rows, args.rows.parent, args.rows.with_name(f"whole-{args.rows.stem}.jsonl"),
                         whole_answer()) if args.whole else None
    heads = {f"head {path.parent.name}": head_namings(args.rows, len(rows), path) for path in args.head}
    print("\n".join(ceiling(rows, labels, others, ear, heads, whole)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
