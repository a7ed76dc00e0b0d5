"""The ceiling (``benchmarks/bench_ceiling.py``): how often each model named the command said, sure
or not, which bounds what any rule on those models can act on rightly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_ceiling  # noqa: E402

LABELS = ("", "turn", "quit", "help")


def said(head: tuple[float, ...], grammar: str | None = None, guess: str | None = None,
         takes: str | None = None) -> dict[str, Any]:
    return {"head": list(head), "grammar": {"command": grammar, "guess": guess},
            "personal": None if takes is None else {"command": takes}}


def row(expected: str, *utterances: dict[str, Any], kind: str = "command", condition: str = "clean",
        acted: str | None = None, path: str = "a.wav") -> dict[str, Any]:
    answer = {"command": acted}
    return {"kind": kind, "condition": condition, "expected": expected, "said": list(utterances), "path": path,
            "live rule (+ trust)": answer, "personal": answer}


def table(rows: list[dict[str, Any]], **kwargs: Any) -> dict[str, list[str]]:
    lines = bench_ceiling.ceiling(rows, LABELS, **kwargs)
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return {cells[0]: dict(zip(header[1:], cells[1:], strict=True))  # type: ignore[misc]
            for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}


def test_the_head_naming_the_command_counts_however_unsure_it_was() -> None:
    rows = [row("turn", said((0.7, 0.2, 0.05, 0.05)), path="a"), row("quit", said((0.1, 0.8, 0.05, 0.05)), path="b")]
    clean = table(rows)["clean commands"]
    assert clean["n"] == "2"
    assert clean["live rule (with the takes where enrolled)"] == "0.0 %"
    assert clean["the head's likeliest command"] == "50.0 %"  # turn both times
    assert clean["any of them"] == "50.0 %"


def test_a_command_only_the_grammar_decoders_guessed_counts_for_them_and_for_any() -> None:
    clean = table([row("quit", said((0.1, 0.8, 0.05, 0.05), guess="quit"), acted="quit")])["clean commands"]
    assert clean["live rule (with the takes where enrolled)"] == "100.0 %"
    assert clean["the head's likeliest command"] == "0.0 %"
    assert clean["the grammar decoders' command or guess"] == "100.0 %"
    assert clean["any of them"] == "100.0 %"


def test_any_utterance_of_a_file_may_name_the_command() -> None:
    rows = [row("help", said((0.9, 0.1, 0.0, 0.0)), said((0.2, 0.0, 0.1, 0.7)), condition="10dB white")]
    assert table(rows)["10 dB commands"]["the head's likeliest command"] == "100.0 %"


def test_another_heads_decoding_and_the_decoder_are_matched_by_path() -> None:
    rows = [row("help", said((0.1, 0.9, 0.0, 0.0)), path="x.wav"),
            row("turn", said((0.1, 0.0, 0.9, 0.0)), path="y.wav")]
    other = {"x.wav": row("help", said((0.1, 0.0, 0.0, 0.9)), path="x.wav")}
    clean = table(rows, others={"emb": other}, ear={"y.wav": "turn"})["clean commands"]
    assert clean["head of emb"] == "50.0 %"
    assert clean["Moonshine's decoder"] == "50.0 %"
    assert clean["any of them"] == "100.0 %"


def test_enrolled_voices_are_judged_with_their_takes_and_the_takes_count_only_in_their_column() -> None:
    rows = [row("turn", said((0.1, 0.1, 0.7, 0.1), takes="turn"), kind="test", condition="10dB pink", acted="turn"),
            row("turn", said((0.1, 0.1, 0.7, 0.1)), path="b")]
    rows[0]["live rule (+ trust)"] = {"command": None}
    lines = table(rows)
    assert lines["enrolled voice, 10 dB"]["live rule (with the takes where enrolled)"] == "100.0 %"
    assert lines["enrolled voice, 10 dB"]["the takes"] == "100.0 %"
    assert lines["clean commands"]["the takes"] == "-"
    assert lines["clean commands"]["any of them"] == "0.0 %"


def test_talk_and_near_words_are_not_in_the_table() -> None:
    rows = [{"kind": "negative", "condition": "clean", "expected": None, "path": "t.wav",
             "said": [said((0.1, 0.9, 0.0, 0.0))], "live rule (+ trust)": {"command": None}}]
    assert table(rows) == {}


def test_rows_of_a_head_with_other_commands_are_refused_in_one_line(tmp_path: Path, capsys: Any) -> None:
    rows = tmp_path / "scores-heldout.jsonl"
    rows.write_text(json.dumps(row("turn", said((0.5, 0.5)))) + "\n")
    with pytest.raises(SystemExit) as stop:
        bench_ceiling.main([str(rows)])
    assert "decode with a head of the same commands" in str(stop.value)
    assert "\n" not in str(stop.value)


def test_a_missing_decoding_names_the_script_that_makes_it(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        bench_ceiling.main([str(tmp_path / "scores-none.jsonl")])
    assert "bench_neural.py score" in str(stop.value)


def test_another_head_is_weighed_on_the_features_the_decoding_kept(tmp_path: Path, capsys: Any) -> None:
    import numpy as np

    from voice_rang.listen.command_head import CommandHead

    head = CommandHead.released()
    utterance = np.random.default_rng(3).normal(size=(1, 24, 416)).astype(np.float16)
    probabilities = head.probabilities(utterance[0].astype(np.float32))
    named = max((p, label) for p, label in zip(probabilities, head.labels, strict=True) if label)[1]
    rows = tmp_path / "scores-heldout.jsonl"
    rows.write_text(json.dumps(row(named, said(tuple(1.0 if label == "" else 0.0 for label in head.labels)))) + "\n")
    np.savez_compressed(tmp_path / "features-heldout.npz", **{"0": utterance})
    weights = ROOT / "voice_rang" / "listen" / "models" / "command_head.npz"
    bench_ceiling.main([str(rows), "--head", str(weights)])
    lines = capsys.readouterr().out.splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    clean = [cell.strip() for cell in lines[2].strip("|").split("|")]
    assert dict(zip(header, clean, strict=True))["head models"] == "100.0 %"


def test_a_head_on_another_front_is_refused_in_one_line(tmp_path: Path) -> None:
    import numpy as np

    from voice_rang.listen.command_head import CommandHead

    labels = CommandHead.released().labels
    rows = tmp_path / "scores-heldout.jsonl"
    rows.write_text(json.dumps(row("turn", said(tuple(1.0 if label == "" else 0.0 for label in labels)))) + "\n")
    np.savez_compressed(tmp_path / "features-heldout.npz", **{"0": np.zeros((1, 20, 96), np.float16)})
    weights = ROOT / "voice_rang" / "listen" / "models" / "command_head.npz"
    with pytest.raises(SystemExit) as stop:
        bench_ceiling.main([str(rows), "--head", str(weights)])
    assert "reads another front" in str(stop.value)


def test_answers_kept_beside_the_rows_are_read_back_instead_of_asked_again(tmp_path: Path) -> None:
    import wave

    with wave.open(str(tmp_path / "a.wav"), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(b"\0\1" * 8000)
    rows = [row("turn", said((1.0, 0.0, 0.0, 0.0))), {**row("turn"), "kind": "negative"}]
    kept = tmp_path / "whole-scores.jsonl"
    asked: list[int] = []
    first = bench_ceiling.kept_answers(rows, tmp_path, kept, lambda pcm: asked.append(len(pcm)) or "turn")
    assert first == {"a.wav": "turn"} and asked == [16000]

    def never(pcm: bytes) -> str:
        raise AssertionError("asked again")

    assert bench_ceiling.kept_answers(rows, tmp_path, kept, never) == {"a.wav": "turn"}
    assert table(rows[:1], whole=first)["clean commands"]["the head on the whole file"] == "100.0 %"


def test_a_head_file_that_is_not_a_head_is_refused_in_one_line(tmp_path: Path) -> None:
    rows = tmp_path / "scores-heldout.jsonl"
    rows.write_text(json.dumps(row("turn", said((1.0,)))) + "\n")
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(SystemExit) as stop:
        bench_ceiling.main([str(rows), "--head", str(tmp_path / "bad.npz")])
    assert str(stop.value).startswith("bench_ceiling: the command model") and "\n" not in str(stop.value)
