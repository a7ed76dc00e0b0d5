"""How well people's words fit the acoustic model when they say what the transcript says.

The recogniser asks a command to *sound like itself* (``Tuning.min_fit``): the acoustic score of
its words, averaged over their frames, must not fall under a threshold chosen on the synthetic
tuning speakers. Whether that threshold is safe for people cannot be read off the synthetic
corpus, and the recordings of people hold only five commands. But they hold hundreds of words
said on purpose, with their transcripts: each recording is aligned here to its own transcript
(a grammar of exactly those words, decoded through the same three vocal tract warps as play,
keeping the best-scoring), and every word's fit is measured the way the recogniser measures a
command's. A threshold that many correctly said words fall under would turn real commands into
questions.

Sources with reliable transcripts only: Asterisk's prompts, pocketsphinx's test recordings, ALSA's
speaker test, KLettres, KTuberling and Tux Paint (``human_corpus.py`` fetches them; the game voice
packs' file names are only the gist of what is said, so they are left out). Run::

    .venv/bin/python benchmarks/bench_fit.py --workers 2    # about half a minute

The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from voice_rang.commands import CommandSet  # noqa: E402
from voice_rang.listen.recognizer import (  # noqa: E402
    STATES_PER_PHONE,
    Grammar,
    Tuning,
    _Decoder,
    _pronunciations,
    _spoken,
    _write_dictionary,
)
from voice_rang.listen.wavfile import read_wav_16k  # noqa: E402

HUMAN = ROOT / "out" / "human"
SOURCES = ("asterisk", "pocketsphinx", "alsa", "klettres", "ktuberling", "tuxpaint")
"""Sources whose text is a transcript, not a game line's gist."""
SHORTEST_COMMAND_FRAMES = STATES_PER_PHONE * 3
"""The fewest frames a command word can take (three phones, as "yes", "no", "stop"): shorter
words, squeezed function words ("a", "to"), are not what the threshold is asked about."""

_WORD = re.compile(r"[a-z']+")
_decoders: list[_Decoder] = []
_known: set[str] = set()


def _init(vocabulary: set[str]) -> None:
    pronunciations = _pronunciations(vocabulary)
    _known.update(pronunciations)
    dictionary = _write_dictionary(pronunciations, pronunciations)
    grammar = Grammar(CommandSet.load("en"))  # unused: each recording gets its own grammar
    try:
        _decoders.extend(_Decoder(grammar, [], 0.0, 0.0, dictionary=dictionary, warp=warp)
                         for warp in Tuning().warps)
    finally:
        os.unlink(dictionary)


def _align(item: dict[str, Any]) -> dict[str, Any] | None:
    """The recording's words as aligned to its transcript by the best-fitting warp: (word,
    natural-log acoustic score, frames) each; ``None`` when a word has no pronunciation."""
    import pocketsphinx

    words = _WORD.findall(item["text"].lower())
    if not words or any(word not in _known for word in words):
        return None
    pcm = read_wav_16k(HUMAN / item["path"])
    best: tuple[float, float, list[tuple[str, float, int]]] | None = None
    for decoder in _decoders:
        decoder.reset_stream()  # each recording from the model's mean, as decode_pcm
        ps, warp = decoder.ps, decoder.warp
        fsg = pocketsphinx.FsgModel("transcript", ps.logmath, decoder.lw,
                                    len(words) + 1)
        fsg.set_start_state(0)
        fsg.set_final_state(len(words))
        for index, word in enumerate(words):
            fsg.trans_add(index, index + 1, 0, fsg.word_add(word))
        ps.add_fsg("transcript", fsg)
        ps.activate_search("transcript")
        ps.start_utt()
        for offset in range(0, len(pcm), 3200):  # streaming, as in play
            ps.process_raw(pcm[offset:offset + 3200], False, False)
        ps.end_utt()
        hyp = ps.hyp()
        if hyp is None:
            continue
        segments = [(word, math.log(max(s.ascore, 1e-300)), s.end_frame - s.start_frame + 1)
                    for s in ps.seg() if (word := _spoken(s.word)) is not None]
        if best is None or hyp.score > best[0]:
            best = (hyp.score, warp, segments)
    if best is None:
        return None
    return {"path": item["path"], "source": item["source"], "warp": best[1], "words": best[2]}


def _quantiles(values: list[float]) -> dict[str, float]:
    values = sorted(values)

    def pick(q: float) -> float:
        return round(values[min(len(values) - 1, int(q * len(values)))], 5)

    return {"p1": pick(0.01), "p5": pick(0.05), "median": round(statistics.median(values), 5),
            "poorest": round(values[0], 5), "n": len(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    index = HUMAN / "index.jsonl"
    if not index.exists():
        print("no recordings of people: run benchmarks/human_corpus.py first", file=sys.stderr)
        return 2
    items = [json.loads(line) for line in index.read_text().splitlines() if line.strip()]
    items = [it for it in items if it["source"].startswith(SOURCES)]
    vocabulary = {word for it in items for word in _WORD.findall(it["text"].lower())}
    with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(vocabulary,)) as pool:
        rows = [row for row in pool.map(_align, items, chunksize=8) if row is not None]
    threshold = Tuning().min_fit
    words = [(score / frames, word) for row in rows for word, score, frames in row["words"]
             if frames >= SHORTEST_COMMAND_FRAMES]
    recordings = [sum(s for _, s, _ in row["words"]) / sum(f for _, _, f in row["words"])
                  for row in rows]
    under = sorted((fit, word) for fit, word in words if fit < threshold)
    share = round(len(under) / len(words), 4) if words else 0.0
    report: dict[str, Any] = {
        "min_fit": threshold, "recordings_aligned": len(rows), "recordings_offered": len(items),
        "recording_fit": _quantiles(recordings),
        "word_fit": _quantiles([fit for fit, _ in words]),
        "words_under_min_fit": len(under),
        "share_under_min_fit": share,
        "poorest_words": [f"{word} {fit:.5f}" for fit, word in under[:12]],
        "recordings_under_min_fit": sum(1 for fit in recordings if fit < threshold),
    }
    print(f"{len(rows)} recordings aligned of {len(items)}; a recording's fit {report['recording_fit']}")
    print(f"words of {SHORTEST_COMMAND_FRAMES}+ frames: {report['word_fit']}; under min_fit "
          f"{threshold}: {len(under)} ({100 * share:.1f} %) "
          f"{report['poorest_words']}")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
