"""Pronunciations for the grammar decoders: CMUdict (shipped with pocketsphinx) read once, the
few command words it lacks, the garbage branch's vocabulary, and the words one phone from a
command word (also the near-miss negatives the command head is trained on).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .grammar_decoder import Grammar

__all__ = ["garbage_vocabulary", "narration_words", "neighbour_words", "pronunciations",
           "write_dictionary"]

_EXTRA_PRONUNCIATIONS = {
    # Words of the command phrases that CMUdict lacks.
    "verbosity": "V ER B AA S AH T IY",
}

_WORD = re.compile(r"[a-z']+")


def pronunciations(words: set[str]) -> dict[str, list[str]]:
    """CMUdict's pronunciations (first the main one) of the words given that it knows.

    Reading the 135,000-word dictionary once here and giving each decoder only the words it can
    hear makes a decoder load in a tenth of the time (17 ms, not 170), which matters with six."""
    import pocketsphinx

    found: dict[str, list[str]] = {}
    with open(pocketsphinx.get_model_path("en-us/cmudict-en-us.dict"), encoding="utf-8") as dic:
        for line in dic:
            entry, _, phones = line.strip().partition(" ")
            word = entry.split("(", 1)[0]
            if word in words:
                found.setdefault(word, []).append(" ".join(phones.split()))
    return found


def write_dictionary(pronunciations: dict[str, list[str]], words: Iterable[str]) -> str:
    """A pocketsphinx dictionary file of just ``words``; the caller deletes it."""
    import tempfile

    lines = [f"{word if n == 0 else f'{word}({n + 1})'} {phones}"
             for word in sorted(set(words)) for n, phones in enumerate(pronunciations[word])]
    with tempfile.NamedTemporaryFile("w", suffix=".dict", delete=False, encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return out.name


def garbage_vocabulary(pronunciations: dict[str, list[str]], grammar: Grammar,
                        candidates: Iterable[str]) -> list[str]:
    """Ordinary words minus command words and anything that sounds like a command word."""
    command_words = grammar.words()
    command_sounds = {pronunciations[w][0] for w in command_words}
    chosen: list[str] = []
    for word in sorted(set(candidates)):
        if word in command_words or word not in pronunciations:
            continue
        if pronunciations[word][0] in command_sounds:
            continue
        chosen.append(word)
    return chosen


_NEIGHBOURS: dict[tuple[str, ...], list[str]] = {}


def neighbour_words(command_prons: Iterable[str]) -> list[str]:
    """One spelling per CMUdict pronunciation that differs from a command word's by one phone:
    substituted anywhere, or added at either end. Homophones (distance 0) are not neighbours."""
    import pocketsphinx

    targets = {tuple(p.split()) for p in command_prons if len(p.split()) >= 2}
    key = tuple(sorted(" ".join(t) for t in targets))
    cached = _NEIGHBOURS.get(key)
    if cached is not None:
        return cached
    substituted = {(i, t[:i] + t[i + 1:]) for t in targets for i in range(len(t))}
    lengths = {len(t) for t in targets}
    chosen: dict[tuple[str, ...], str] = {}
    with open(pocketsphinx.get_model_path("en-us/cmudict-en-us.dict"), encoding="utf-8") as dic:
        for line in dic:
            word, *phones = line.split()
            if not word.isalpha() or len(word) < 2:
                continue
            pron = tuple(phones)
            if pron in targets or pron in chosen:
                continue
            if (pron[1:] in targets or pron[:-1] in targets
                    or (len(pron) in lengths
                        and any((i, pron[:i] + pron[i + 1:]) in substituted
                                for i in range(len(pron))))):
                chosen[pron] = word
    _NEIGHBOURS[key] = sorted(chosen.values())
    return _NEIGHBOURS[key]


def narration_words(language: str) -> set[str]:
    """Words of the game's own messages: what the microphone will hear from the loudspeaker."""
    try:
        from ..prompts import load_prompts

        messages = load_prompts(language).messages
    except Exception:
        return set()
    words: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            words.update(_WORD.findall(re.sub(r"\{[^}]*\}", " ", value.lower())))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(messages)
    return words
