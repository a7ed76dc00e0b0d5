"""Court Piece by the player's own card words (``voice-rang enroll --cards``): is the card played
the card said, in Bengali and in English, when the player has taught the game their words?

Run: ``.venv/bin/python benchmarks/bench_card_words.py [--voices held-out] [--positions 40] [--talk 26]
[--sweep]``

Each speaker enrols as a player does: three takes of each of the 17 card words (thirteen ranks,
four suits), said a little slower, as usual and a little faster (sox's tempo 0.9, 1.0, 1.12).
Then it says cards in real Court Piece positions (the legal moves of seat 0, calling trumps or
playing, every variant; ``bench_cards.positions``), at another speed and pitch than any take
(tempo 0.95 or 1.07, pitch -80 or +80 cents): in Bengali "হরতনের বিবি" or "বিবি হরতন" and "হরতন রং"
for trumps; in English "queen of hearts", "the queen of hearts", "hearts" and "hearts are
trumps". Clean, white noise 10 dB under the speech, and across a room of 0.8 s. Talk, narration
and seat names in the speaker's language must never be taken for a card.

Every phrase goes through the exact live path of ``play court-piece --lang bn|en`` for a player
with those words (:class:`ChoiceRecognizer` behind the endpointer, ``decode_pcm``): the stock
model (Moonshine and the pocketsphinx grammar) and the player's words beside it. Baseline, in the
same run and on the same utterances: the stock model alone (``stock_right``, ``stock_wrong``).

Speakers (whole voices): Bengali is espeak-ng's Bengali with its voice variants (the only Bengali
synthesiser in the registries); English is flite and MBROLA. Tuning (:class:`CardRule`'s numbers
were chosen on these alone): bn, bn+m3, bn+f3, flite kal16, flite awb. Held out: bn+m1, bn+f2,
bn+f4, bn+m5, flite slt, MBROLA us1 and us3 (``scripts/dev voices`` installs MBROLA).

Reports per language and condition: right, a different card (wrong), a command of the table
acted on (other), asked, nothing; for talk, taken as a move.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from bench_cards import TABLE_COMMANDS, Move, listener, positions  # noqa: E402
from speech_samples import espeak, in_a_room, sox, trim, with_white_noise  # noqa: E402
from speech_samples import synthesize as flite  # noqa: E402

from voice_rang.listen.card_words import RANK_CODES, SUIT_CODES, CardWords  # noqa: E402
from voice_rang.listen.choices import CardRule, decide_choice  # noqa: E402
from voice_rang.listen.recognizer import decode_pcm, summarize  # noqa: E402

RATE = 16000
TUNING = ("espeak:bn", "espeak:bn+m3", "espeak:bn+f3", "flite:kal16", "flite:awb")
HELD_OUT = ("espeak:bn+m1", "espeak:bn+f2", "espeak:bn+f4", "espeak:bn+m5", "flite:slt", "espeak:mb-us1",
            "espeak:mb-us3")
CONDITIONS = ("clean", "10db", "room")
TAKE_TEMPOS = (0.9, 1.0, 1.12)
SAID_TEMPOS = (0.95, 1.07)
SAID_PITCH = (-80, 80)
BN_RANKS = dict(zip(RANK_CODES, ("টেক্কা", "দুরি", "তিরি", "চৌকা", "পাঞ্জা", "ছক্কা", "সাত্তা", "আট্টা", "নওলা", "দহলা",
                                 "গোলাম", "বিবি", "সাহেব"), strict=True))
BN_SUITS = {"C": "চিড়িতন", "D": "রুইতন", "H": "হরতন", "S": "ইস্কাবন"}
EN_RANKS = dict(zip(RANK_CODES, ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                                 "jack", "queen", "king"), strict=True))
EN_SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
TALK = {
    "bn": ["আমার পালা কখন", "দাঁড়াও একটু ভাবি", "কে জিতছে", "চা খাবে", "খুব ভালো খেলা", "না না", "হ্যাঁ", "উত্তর",
           "পূর্ব", "পশ্চিম", "দক্ষিণ", "আমি জানি না", "তাড়াতাড়ি করো", "আমার সঙ্গী জিতবে", "ওটা আমার", "আবার খেলো",
           "বিবি কার কাছে", "হরতন শেষ", "উত্তর খেলল হরতনের বিবি", "তোমার পালা", "পূর্ব পিট জিতল",
           "দক্ষিণ রং ডাকল", "মা", "বাবা", "দিদি", "ঠাকুমা"],
    "en": ["the cat sat on the mat", "what time is it", "hold on a second", "who is winning", "okay", "no way",
           "my partner has the queen", "North plays the queen of hearts", "your turn", "East", "West", "North",
           "Dad", "Grandma", "which one should I play", "I give up", "put the kettle on", "that is not fair",
           "hearts are gone", "he played the king"],
}


def language(voice: str) -> str:
    return "bn" if voice.split(":", 1)[1].startswith("bn") else "en"


def synthesize(text: str, voice: str, tempo: float = 1.0, cents: int = 0) -> np.ndarray:
    """``text`` by ``engine:voice`` as 16 kHz int16 samples, trimmed, at ``tempo`` and ``cents``."""
    engine, name = voice.split(":", 1)
    pcm = flite(text, name) if engine == "flite" else espeak(text, name)
    effects = [*(["tempo", "-s", str(tempo)] if tempo != 1.0 else []), *(["pitch", str(cents)] if cents else [])]
    return np.frombuffer(trim(sox(pcm, *effects)) if effects else pcm, dtype="<i2")


def word_text(word: str, lang: str) -> str:
    ranks, suits = (BN_RANKS, BN_SUITS) if lang == "bn" else (EN_RANKS, EN_SUITS)
    return ranks.get(word) or suits[word]


def said(key: str, lang: str, rng: random.Random) -> str:
    """How the speaker says the move ``key``."""
    if key.startswith("name "):
        suit = key.split()[1]
        return f"{BN_SUITS[suit]} রং" if lang == "bn" else rng.choice((EN_SUITS[suit], f"{EN_SUITS[suit]} are trumps"))
    code = next(part for part in key.split() if part[:-1] in RANK_CODES and part[-1] in BN_SUITS)
    rank, suit = code[:-1], code[-1]
    if lang == "bn":
        return f"{BN_SUITS[suit]}ের {BN_RANKS[rank]}" if rng.random() < 0.6 else f"{BN_RANKS[rank]} {BN_SUITS[suit]}"
    return rng.choice((f"{EN_RANKS[rank]} of {EN_SUITS[suit]}", f"the {EN_RANKS[rank]} of {EN_SUITS[suit]}"))


def heard_in(pcm: np.ndarray, condition: str, seed: int) -> bytes:
    """The phrase as the microphone hears it, with a quarter second of the room either side."""
    silence = b"\0\0" * (RATE // 4)
    audio = silence + pcm.tobytes() + silence
    if condition == "10db":
        return with_white_noise(audio, 10.0, seconds_before=1.0, seed=seed)
    if condition == "room":
        return in_a_room(audio)
    return audio


def speaker(job: tuple[str, int, int, int]) -> list[dict[str, Any]]:
    """One speaker's enrolment and every phrase it says: the rows."""
    voice, count, talk, seed = job
    lang = language(voice)
    rng = random.Random(f"{voice}:{seed}")
    words = CardWords({word: [synthesize(word_text(word, lang), voice, tempo) for tempo in TAKE_TEMPOS]
                       for word in RANK_CODES + SUIT_CODES})
    moves: dict[str, Move] = {}
    live = listener(lambda: moves, lang, words)
    rows = []

    def hear(pcm: bytes, turn: dict[str, Any]) -> dict[str, Any]:
        moves.clear()
        moves.update({key: Move(phrases, key in turn["cautions"], turn["words"][key])
                      for key, phrases in turn["moves"].items()})
        results = list(decode_pcm(live, pcm, allowed=TABLE_COMMANDS))
        answer = summarize(results)
        stock = None  # the stock model alone, as it decided on the same utterance
        for grammar, verdict in live.last:
            alone = decide_choice(verdict, moves, live.rule, heard=grammar.heard, snr_db=grammar.snr_db,
                                  grammar_leans=live.owner(grammar.command or grammar.guess))
            if alone.command is not None or alone.reason == "confirm":
                stock = alone.command or alone.guess
                break
        matches = [{"move": m.move, "cost": m.cost, "margin": m.margin, "runner_up": m.runner_up,
                    "standout": m.standout} for m in live.heard_words]
        return {"command": answer.command, "reason": answer.reason, "guess": answer.guess,
                "stock": stock, "utterances": len(results), "matches": matches}

    turns = positions(count, seed + sum(map(ord, voice)))
    for number, (turn, legal_count) in enumerate(turns):
        said_moves = sorted(key for key, ways in turn["words"].items() if ways)
        if len(said_moves) < len(turn["moves"]):
            continue  # a move said in other words (reveal, redeal): the stock model's alone
        target = rng.choice(said_moves)
        text = said(target, lang, rng)
        pcm = synthesize(text, voice, rng.choice(SAID_TEMPOS), rng.choice(SAID_PITCH))
        for condition in CONDITIONS:
            rows.append({"kind": "card", "voice": voice, "lang": lang, "condition": condition, "text": text,
                         "target": target, "legal": legal_count, "moves": said_moves,
                         **hear(heard_in(pcm, condition, number), turn)})
    lines = TALK[lang]
    for number in range(talk):
        turn, legal_count = turns[number % len(turns)]
        text = lines[number % len(lines)]
        pcm = synthesize(text, voice, rng.choice(SAID_TEMPOS), rng.choice(SAID_PITCH))
        condition = CONDITIONS[number % 2]
        rows.append({"kind": "talk", "voice": voice, "lang": lang, "condition": condition, "text": text,
                     "target": None, "legal": legal_count, "moves": sorted(turn["moves"]),
                     **hear(heard_in(pcm, condition, number), turn)})
    return rows


def score(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per language and condition: the live answer (the stock model with the player's words) and
    the stock model alone on the same utterances (``stock_right``, ``stock_wrong``)."""
    out: dict[str, dict[str, float]] = {}
    for lang, condition in itertools.product(("bn", "en"), CONDITIONS):
        cards = [r for r in rows if r["kind"] == "card" and r["lang"] == lang and r["condition"] == condition]
        if not cards:
            continue
        counts = {"right": 0, "wrong": 0, "other": 0, "asked": 0, "nothing": 0, "stock_right": 0, "stock_wrong": 0}
        for row in cards:
            command = row["command"] or (row["guess"] if row["reason"] == "confirm" else None)
            asked = row["reason"] in ("unsure", "which") and command is None
            key = ("right" if command == row["target"] else "wrong" if command in row["moves"] else "other") \
                if command else "asked" if asked else "nothing"
            counts[key] += 1
            if row["stock"] in row["moves"]:
                counts["stock_right" if row["stock"] == row["target"] else "stock_wrong"] += 1
        out[f"{lang} {condition}"] = {**{k: round(100.0 * v / len(cards), 1) for k, v in counts.items()},
                                      "n": len(cards)}
    for lang in ("bn", "en"):
        talk = [r for r in rows if r["kind"] == "talk" and r["lang"] == lang]
        if talk:
            taken = sum(1 for r in talk if r["command"] in r["moves"] or r["reason"] == "confirm")
            out[f"{lang} talk"] = {"taken": round(100.0 * taken / len(talk), 2),
                                   "asked": round(100.0 * sum(r["reason"] in ("unsure", "which") for r in talk)
                                                  / len(talk), 2),
                                   "stock_taken": round(100.0 * sum(r["stock"] in r["moves"] for r in talk)
                                                        / len(talk), 2),
                                   "n": len(talk)}
    return out


def sweep(rows: list[dict[str, Any]]) -> None:
    """Each rule of a grid applied to the player's words alone, as for Bengali (the first
    utterance's match; the noise guard left out): how :class:`CardRule` was chosen."""
    from voice_rang.listen.card_words import CardMatch
    from voice_rang.listen.choices import decide_card_words

    def decided(row: dict[str, Any], rule: CardRule) -> str | None:
        if not row["matches"]:
            return None
        m = row["matches"][0]
        match = CardMatch(m["move"], m["cost"], m["margin"], m["runner_up"], {}, m["standout"])
        return decide_card_words(match, rule).command

    for standout, margin in itertools.product((0.04, 0.05, 0.06, 0.07, 0.08, 0.1), (0.03, 0.04, 0.05, 0.06, 0.08)):
        rule = CardRule(standout=standout, margin=margin, ask_standout=standout)
        found: dict[str, Any] = {"standout": standout, "margin": margin}
        for lang, condition in itertools.product(("bn", "en"), CONDITIONS):
            cards = [r for r in rows if r["kind"] == "card" and r["lang"] == lang and r["condition"] == condition]
            if cards:
                answers = [(decided(row, rule), row["target"]) for row in cards]
                right = sum(a == t for a, t in answers)
                wrong = sum(a not in (None, t) for a, t in answers)
                found[f"{lang} {condition}"] = (round(100.0 * right / len(cards), 1),
                                                round(100.0 * wrong / len(cards), 1))
        for lang in ("bn", "en"):
            talk = [r for r in rows if r["kind"] == "talk" and r["lang"] == lang]
            if talk:
                found[f"{lang} talk"] = round(100.0 * sum(decided(r, rule) is not None for r in talk) / len(talk), 2)
        print(json.dumps(found))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40, help="positions a speaker says a card in")
    parser.add_argument("--talk", type=int, default=26, help="lines of talk a speaker says")
    parser.add_argument("--voices", choices=("held-out", "tuning"), default="held-out")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--lang", choices=("bn", "en"), help="only this language's speakers")
    parser.add_argument("--sweep", action="store_true", help="score a grid of rules (tuning voices only)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "card_words.jsonl")
    args = parser.parse_args(argv)
    if args.sweep and args.voices != "tuning":
        print("bench_card_words: --sweep only on the tuning voices (add --voices tuning)", file=sys.stderr)
        return 2
    voices = tuple(voice for voice in (HELD_OUT if args.voices == "held-out" else TUNING)
                   if args.lang in (None, language(voice)))
    jobs = [(voice, args.positions, args.talk, args.seed) for voice in voices]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [row for found in pool.map(speaker, jobs) for row in found]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    summary = score(rows)
    for key, figures in summary.items():
        print(f"{key}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    if args.sweep:
        sweep(rows)
    print(json.dumps({"voices": args.voices, "positions": args.positions, "seed": args.seed,
                      "rule": asdict(CardRule()), "summary": summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
