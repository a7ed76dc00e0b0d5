"""Court Piece by voice: is the card played the card said? Card phrases in voices the rule was never
tuned on, with the legal cards of real positions, clean, at 10 dB and across a room; and talk,
narration and other seats' names, which must never be taken for a card.

Run: ``.venv/bin/python benchmarks/bench_cards.py [--positions 60] [--voices held-out] [--sweep]``

Positions: seeded sessions of Court Piece played by the normal bots, every variant; at each turn of
seat 0 (naming trumps or playing a card; 1 to 13 legal moves) one legal move is said in one of the
ways a player says it: the full name mostly ("queen of hearts", "the ten of clubs"), else the
rank alone where one card of that rank is legal ("the queen"), "lowest heart", "highest", "trump",
"hearts are trumps". Each phrase goes through the exact live path (:class:`ChoiceRecognizer`
behind the endpointer, ``decode_pcm``), with the legal moves of its position and the table's
commands valid then.

Voices (whole speakers): tuning = flite kal, awb, rms and espeak-ng en-us (the rule's numbers are
chosen on these alone, ``--sweep``); held-out = flite slt, espeak-ng en-gb with its f3 variant,
MBROLA's us1, us2, us3 and en1 (recordings of four people, through espeak-ng) and SVOX Pico's
American and British voices (``scripts/dev voices`` installs MBROLA and Pico). Conditions: clean;
white noise 10 dB under the speech; a room of 0.8 s reverberation.

Baseline, in the same run: the pocketsphinx grammar of the same legal phrases alone (the command
recogniser's rule with its garbage loop, one warp), which the live path runs for the endpointer.

Reports per condition: card played is the card said, a different card played, asked (a question:
"Did you say …?" or "this or that?"), nothing; and for talk: taken as a move or command. Targets
(issue): clean >= 98 % right / <= 0.3 % wrong; 10 dB and room >= 85 % / <= 0.5 %; talk <= 0.3 %.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from speech_samples import in_a_room, trim, with_white_noise  # noqa: E402

from voice_rang.games.court_piece.bots import make_bot  # noqa: E402
from voice_rang.games.court_piece.rules import Rules  # noqa: E402
from voice_rang.games.court_piece.session import Session  # noqa: E402
from voice_rang.games.court_piece.spoken import every_phrase, spoken_moves  # noqa: E402
from voice_rang.games.court_piece.view import Phase  # noqa: E402
from voice_rang.listen.choices import ChoiceRecognizer, ChoiceRule, decide_choice  # noqa: E402
from voice_rang.listen.moonshine_text import Verdict  # noqa: E402
from voice_rang.listen.recognizer import decode_pcm, summarize  # noqa: E402
from voice_rang.listen.wavfile import read_wav_16k  # noqa: E402

RATE = 16000
TUNING = ("flite:kal16", "flite:awb", "flite:rms", "espeak:en-us")
HELD_OUT = ("flite:slt", "espeak:en-gb+f3", "espeak:mb-us1", "espeak:mb-us2", "espeak:mb-us3", "espeak:mb-en1",
            "pico:en-US", "pico:en-GB")
CONDITIONS = ("clean", "10db", "room")
TABLE_COMMANDS = ("repeat", "status", "help", "quit", "stop", "hand", "trick", "last trick", "tricks",
                  "score", "trumps", "whose turn", "hint", "faster", "slower")
TALK = [
    "the cat sat on the mat", "what time is it", "I think it is my go now", "hold on a second",
    "that was a good game", "let me think about it", "okay", "hello there", "is it my go",
    "wait a moment", "who is winning", "I have got a question", "put the kettle on",
    "that is not fair", "do you want another drink", "no way", "yes please", "which one should I play",
    "my partner has the queen", "he played the king", "not that one", "hmm let me see",
    "are you sure about that", "pass me the biscuits", "I was going to play that", "good shot",
    "oh no", "come on", "wait wait wait", "that's mine", "lovely", "who dealt", "shuffle them well",
    "my turn after you", "ten minutes more", "what did she play", "nice one partner", "I give up",
]
NARRATION = [
    "North plays the queen of hearts.", "West leads the ten of clubs.",
    "East trumps with the four of spades, no hearts.",
    "Your partner wins trick 3 with the ace of diamonds.", "South names hearts trumps.",
    "West wins.", "North.", "Your turn.", "Deal 2: East deals, and you call trumps.",
]
NAMES = ["North", "East", "West", "your partner", "partner", "the dealer", "South", "guest one", "guest two",
         "the host", "Ravi", "Meena", "Dad", "Grandma"]
SILENCE = b"\0\0" * (RATE // 4)


@dataclass(frozen=True)
class Item:
    kind: str  # "card" or "talk"
    text: str
    voice: str
    condition: str
    target: str | None
    moves: dict[str, list[str]]
    cautions: list[str]
    legal_count: int
    form: str
    path: str = ""
    """A recording of a person saying ``text`` (``--human``), instead of a synthetic voice."""


def human_items(count: int, seed: int) -> list[Item]:
    """Real people's card phrases: pocketsphinx's test recordings of a card said alone (its PyPI
    source package, fetched and cached by ``human_corpus.py``), each heard in ``count`` real
    positions whose legal cards are kept but for one, swapped for the card said."""
    from human_corpus import pocketsphinx_tests

    from voice_rang.cards import Card
    from voice_rang.games.court_piece.actions import PlayCard
    from voice_rang.games.court_piece.spoken import said_as

    said = [(recording, code) for recording in pocketsphinx_tests() if recording.name.startswith("pocketsphinx/cards_")
            and (code := _code(recording.text)) is not None]
    rng = random.Random(seed)
    items = []
    turns = [turn for turn, _ in positions(4 * count, seed) if any(key.startswith("play ") for key in turn["moves"])]
    for recording, code in said:
        for turn in rng.sample(turns, min(count, len(turns))):
            cards = [key.split()[1] for key in turn["moves"] if key.startswith("play ")]
            if code not in cards:
                cards[rng.randrange(len(cards))] = code
            moves = said_as([PlayCard(Card(card)) for card in cards])
            items.append(Item("card", recording.text, "human:pocketsphinx", "clean", f"play {code}",
                              {key: list(spoken.phrases) for key, spoken in moves.items()}, [], len(cards), "full",
                              str(recording.source)))
    return items


def _code(text: str) -> str | None:
    """The card a transcript names when it is one card's name alone ("ten of clubs")."""
    words = text.split()
    ranks = {"ace": "A", "jack": "J", "queen": "Q", "king": "K", "two": "2", "three": "3", "four": "4",
             "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
    suits = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
    if len(words) == 3 and words[1] == "of" and words[0] in ranks and words[2] in suits:
        return ranks[words[0]] + suits[words[2]]
    return None


def synthesize(text: str, voice: str) -> bytes:
    """``text`` by ``engine:voice`` as 16 kHz mono PCM16, trimmed."""
    engine, name = voice.split(":", 1)
    with tempfile.TemporaryDirectory() as work:
        path = f"{work}/say.wav"
        if engine == "flite":
            subprocess.run(["flite", "-voice", name, "-t", text, "-o", path], check=True, capture_output=True)
        elif engine == "pico":
            subprocess.run(["pico2wave", "-l", name, "-w", path, text], check=True, capture_output=True)
        else:
            subprocess.run(["espeak-ng", "-v", name, "-w", path, text], check=True, capture_output=True)
        raw = subprocess.run(["sox", "-R", path, "-t", "raw", "-r", str(RATE), "-e", "signed", "-b", "16",
                              "-c", "1", "-"], check=True, capture_output=True).stdout
    return trim(raw)


def positions(count: int, seed: int) -> list[tuple[dict[str, Any], int]]:
    """``count`` turns of seat 0 from seeded sessions over every variant: the legal moves as said
    (id -> phrases, and the ids asked about first) and how many there are."""
    rng = random.Random(seed)
    variants = [Rules.make(), Rules.make(variant="double-sir"), Rules.make(trump="card"),
                Rules.make(variant="hidden-rung"), Rules.make(variant="be-ranga")]
    found: list[tuple[dict[str, Any], int]] = []
    for number in itertools.count():
        rules = variants[number % len(variants)]
        session = Session(rules, random.Random(seed * 1000 + number))
        session.start()
        bots = [make_bot("normal", random.Random(seed + seat + number)) for seat in range(4)]
        turns = []
        while not session.is_over and session.deal_number <= 2:
            seat = session.to_act
            assert seat is not None
            view = session.view(seat)
            if seat == 0 and view.phase in (Phase.TRUMP, Phase.PLAY):
                spoken = spoken_moves(view)
                moves = {key: list(choice.phrases) for key, choice in spoken.items()}
                cautions = [key for key, choice in spoken.items() if choice.caution is not None]
                words = {key: [list(way) for way in choice.words] for key, choice in spoken.items()}
                turns.append(({"moves": moves, "cautions": cautions, "words": words}, len(spoken)))
            session.apply(seat, bots[seat].decide(view))
        rng.shuffle(turns)
        found.extend(turns[:3])
        if len(found) >= count:
            return found[:count]
    raise AssertionError("unreachable")


def said(moves: dict[str, list[str]], rng: random.Random) -> tuple[str, str, str]:
    """One legal move and how it is said: (id, phrase, form)."""
    key = rng.choice(sorted(moves))
    phrases = [p for p in moves[key] if not any(ch.isdigit() for ch in p)]  # spoken, not written
    full = phrases[:2]
    short = phrases[2:] if not key.startswith("name ") else phrases[1:]
    if short and rng.random() < 0.3:
        phrase = rng.choice(short)
        return key, phrase, "short"
    return key, rng.choice(full), "full"


def plan(count: int, voices: tuple[str, ...], seed: int, talk: int) -> list[Item]:
    rng = random.Random(seed)
    items = []
    turns = positions(count, seed)
    for (turn, legal_count), voice in zip(turns, itertools.cycle(voices)):
        key, phrase, form = said(turn["moves"], rng)
        for condition in CONDITIONS:
            items.append(Item("card", phrase, voice, condition, key, turn["moves"], turn["cautions"],
                              legal_count, form))
    lines = TALK + NARRATION + NAMES
    for number in range(talk):
        turn, legal_count = turns[number % len(turns)]
        text = lines[number % len(lines)]
        voice = voices[number % len(voices)]
        items.append(Item("talk", text, voice, CONDITIONS[number % 2], None, turn["moves"], turn["cautions"],
                          legal_count, "talk"))
    return items


class Move:
    """A legal move as the listener is given it (``spoken.Spoken``'s shape), from a position's record."""

    def __init__(self, phrases: list[str], caution: bool, words: list[list[str]] | None = None) -> None:
        self.phrases = tuple(phrases)
        self.caution = "caution" if caution else None
        self.words = tuple(tuple(way) for way in words or ())


def listener(moves: Callable[[], Mapping[str, Move]], lang: str = "en", card_words: Any = None) -> ChoiceRecognizer:
    """The live listener of ``play court-piece --lang LANG``, for a player with ``card_words`` (or none)."""
    from voice_rang.commands import CommandSet
    from voice_rang.games.court_piece.spoken import deck_words
    from voice_rang.prompts import load_game_prompts

    prompts, _ = load_game_prompts(lang, "court-piece")
    commands = CommandSet(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)
    return ChoiceRecognizer(commands, moves, every_phrase(), language=lang, card_words=card_words,
                            deck=deck_words())


_recognizer: ChoiceRecognizer | None = None
_current: dict[str, Move] = {}


def _init() -> None:
    global _recognizer
    _recognizer = listener(lambda: _current)


def _decode(item: Item) -> dict[str, Any]:
    global _current
    assert _recognizer is not None
    pcm = read_wav_16k(item.path) if item.path else synthesize(item.text, item.voice)
    if item.condition == "10db":
        pcm = with_white_noise(SILENCE + pcm + SILENCE, 10.0, seconds_before=1.0,
                               seed=hash(item.text) % 1000)
    elif item.condition == "room":
        pcm = in_a_room(SILENCE + pcm + SILENCE)
    else:
        pcm = SILENCE + pcm + SILENCE
    _current = {key: Move(phrases, key in item.cautions) for key, phrases in item.moves.items()}
    _recognizer.last = []
    results = list(decode_pcm(_recognizer, pcm, allowed=TABLE_COMMANDS))
    answer = summarize(results)
    grammar_ids = []
    verdicts = []
    for grammar, verdict in _recognizer.last:
        grammar_ids.append(_recognizer.owner(grammar.command))
        verdicts.append({"text": verdict.text, "free": verdict.free, "scores": dict(verdict.scores),
                         "phrases": dict(verdict.phrases), "ms": verdict.ms,
                         "grammar_guess": _recognizer.owner(grammar.guess),
                         "grammar_leans": _recognizer.owner(grammar.command or grammar.guess),
                         "grammar_reason": grammar.reason, "snr_db": grammar.snr_db})
    return {**asdict(item), "moves": None, "move_ids": list(item.moves), "command": answer.command,
            "reason": answer.reason,
            "between": list(answer.between), "guess": answer.guess, "heard": answer.heard,
            "baseline": next((g for g in grammar_ids if g), None), "verdicts": verdicts,
            "utterances": len(results), "ms": answer.ms}


def score(rows: list[dict[str, Any]], rule: ChoiceRule | None = None) -> dict[str, dict[str, float]]:
    """Per condition (and ``human``, real people's recordings): right, a different move played
    (``wrong``), another command acted on (``other``: a question answered), asked, nothing (cards);
    taken (talk); for the live rule, or ``rule`` re-applied to the stored verdicts, and for the
    baseline."""
    out: dict[str, dict[str, float]] = {}
    for condition in (*CONDITIONS, "human"):
        cards = [r for r in rows if r["kind"] == "card" and (
            r["voice"].startswith("human:") if condition == "human"
            else r["condition"] == condition and not r["voice"].startswith("human:"))]
        if not cards:
            continue
        counts = {"right": 0, "wrong": 0, "other": 0, "asked": 0, "nothing": 0, "confirmed": 0,
                  "baseline_right": 0, "baseline_wrong": 0, "baseline_other": 0}
        for row in cards:
            command, asked, confirmed = _answer(row, rule)
            if command is None:
                counts["asked" if asked else "nothing"] += 1
            else:
                counts["right" if command == row["target"] else "wrong" if command in row["move_ids"]
                       else "other"] += 1
                counts["confirmed"] += confirmed
            if row["baseline"] is not None:
                counts["baseline_right" if row["baseline"] == row["target"] else "baseline_wrong"
                       if row["baseline"] in row["move_ids"] else "baseline_other"] += 1
        out[condition] = {key: round(100.0 * value / len(cards), 2) for key, value in counts.items()}
        out[condition]["n"] = len(cards)
    talk = [r for r in rows if r["kind"] == "talk"]
    if talk:
        answers = [(_answer(row, rule), row) for row in talk]
        acted = [(command, row) for (command, _, _), row in answers if command is not None]
        as_move = sum(1 for command, row in acted if command in row["move_ids"])
        as_command = len(acted) - as_move
        asked = sum(1 for (_, asked, _), _ in answers if asked)
        base = sum(1 for row in talk if row["baseline"] is not None and row["baseline"] in row["move_ids"])
        out["talk"] = {"taken": round(100.0 * as_move / len(talk), 2),
                       "command": round(100.0 * as_command / len(talk), 2),
                       "asked": round(100.0 * asked / len(talk), 2),
                       "baseline_taken": round(100.0 * base / len(talk), 2), "n": len(talk)}
    return out


def _answer(row: dict[str, Any], rule: ChoiceRule | None) -> tuple[str | None, bool, bool]:
    """(id acted on, asked, confirmed) for a row, live or under ``rule`` (the first utterance
    that acts, else asks). A move heard clearly that the game asks about to protect the player
    (trumping a partner's trick, the last trump) counts as acted on, ``confirmed``: the question
    names the move heard, and a yes plays it."""
    if rule is None:
        if row["reason"] == "confirm":
            return row["guess"], False, True
        return row["command"], row["reason"] in ("unsure", "which", "doubt"), False
    cautions = set(row["cautions"])
    asked = False
    for verdict in row["verdicts"]:
        moves = {key: Move([], key in cautions) for key in row["move_ids"]}
        result = decide_choice(Verdict(verdict["text"], verdict["free"], verdict["scores"], 0.0,
                                       verdict.get("phrases", {})), moves, rule,
                               grammar_leans=verdict.get("grammar_leans"), snr_db=verdict.get("snr_db", math.inf))
        if result.reason == "confirm":
            return result.guess, False, True
        if result.command is not None:
            return result.command, False, False
        asked = asked or result.unsure
    return None, asked, False


def sweep(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every rule on the grid, scored on ``rows`` (the tuning voices')."""
    found = []
    for within, lead, ask_within in itertools.product((3.0, 5.0, 7.0, 9.0, 12.0), (3.0, 4.0, 5.0, 6.0, 7.0),
                                                      (12.0, 16.0)):
        rule = ChoiceRule(within=within, lead=lead, ask_within=max(ask_within, within), which_lead=2.0)
        found.append({"rule": asdict(rule), "score": score(rows, rule)})
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--talk", type=int, default=60)
    parser.add_argument("--voices", choices=("held-out", "tuning"), default="held-out")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--human", type=int, default=0, metavar="N",
                        help="also real people's card phrases (pocketsphinx's recordings), each in N positions")
    parser.add_argument("--sweep", action="store_true", help="score a grid of rules on these rows (tuning voices only)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "cards.jsonl")
    args = parser.parse_args(argv)
    for tool in ("flite", "espeak-ng", "sox", *(("pico2wave",) if args.voices == "held-out" else ())):
        if shutil.which(tool) is None:
            print(f"bench_cards: {tool} is needed (scripts/dev setup installs it)", file=sys.stderr)
            return 2
    if args.sweep and args.voices != "tuning":
        print("bench_cards: --sweep only on the tuning voices (add --voices tuning)", file=sys.stderr)
        return 2
    voices = HELD_OUT if args.voices == "held-out" else TUNING
    items = plan(args.positions, voices, args.seed + (0 if args.voices == "held-out" else 1), args.talk)
    if args.human:
        items += human_items(args.human, args.seed)
    with ProcessPoolExecutor(args.jobs, initializer=_init) as pool:
        rows = list(pool.map(_decode, items, chunksize=4))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    summary = score(rows)
    for condition, figures in summary.items():
        print(f"{condition}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    ms = sorted(r["ms"] for r in rows if r["ms"])
    if ms:
        print(f"decode after the endpoint: median {ms[len(ms) // 2]:.0f} ms, p90 {ms[int(len(ms) * 0.9)]:.0f} ms")
    if args.sweep:
        for found in sweep(rows):
            s = found["score"]
            cells = {c: (s[c]["right"], s[c]["wrong"]) for c in CONDITIONS if c in s}
            print(json.dumps({"rule": found["rule"], **cells, "talk": s.get("talk", {}).get("taken")}))
    print(json.dumps({"voices": args.voices, "positions": args.positions, "summary": summary,
                      "rule": asdict(ChoiceRule())}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
