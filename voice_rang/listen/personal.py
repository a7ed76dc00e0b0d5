"""The player's own voice: enrolled takes of each command, kept on disk and matched as templates.

Receives: enrolled takes (16 kHz PCM16 WAV files, three or more of a command) from
``voice-rang enroll``, and at each utterance its speech embeddings. Emits: a
:class:`PersonalMatch`, the command whose takes the utterance is closest to when it is close
enough and clearly closer than to any other command's.

Takes are compared in the command head's pooled space (:meth:`.command_head.CommandHead.pooled`),
trained to keep commands apart whatever the room; cosine similarity to the nearest take. Stored
under ``$XDG_DATA_HOME/voice-rang/voice/`` (``~/.local/share`` when unset), one WAV per take named
``<command id, _ for spaces>__<anything>.wav``: the format ``enroll --import`` reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..xdg import base_dir
from .command_head import CommandHead
from .front import head_features

__all__ = ["PersonalMatch", "PersonalVoice", "check_takes", "command_of_file", "read_takes", "voice_dir"]

MIN_SIMILARITY = 0.8
"""How close (cosine) an utterance must be to one of a command's takes."""
MIN_MARGIN = 0.04
"""How much closer to that command's takes than to any other command's."""
LIKE_OTHERS = 0.7
"""A take less similar than this to both other takes of its command is "unlike the other two"."""
QUIET_PEAK = 1000
"""A take whose loudest sample is under this (about -30 dBFS) is too quiet."""
CLIPPED_SHARE = 0.001
"""A take with more than this share of samples at full scale is clipped."""


def voice_dir() -> Path:
    """Where enrolled takes live (XDG base directory specification: ``$XDG_DATA_HOME``)."""
    return base_dir("XDG_DATA_HOME", ".local", "share") / "voice"


def command_of_file(name: str, known: set[str]) -> str | None:
    """The command id a take's file name stands for, or ``None``.

    >>> command_of_file("auto-reveal_on__take1.wav", {"auto-reveal on"})
    'auto-reveal on'
    >>> command_of_file("turn.wav", {"turn"}) is None
    True
    """
    stem = Path(name).stem
    if "__" not in stem:
        return None
    command = stem.split("__", 1)[0].replace("_", " ")
    return command if command in known else None


def read_takes(directory: Path, known: set[str] | None) -> dict[str, list[np.ndarray]]:
    """The takes kept under ``directory`` by the id their file names stand for (any id when
    ``known`` is ``None``); a file that cannot be read is left out (``enroll`` said so when it
    kept them)."""
    from .wavfile import WavError, read_wav_16k

    takes: dict[str, list[np.ndarray]] = {}
    for path in sorted(directory.glob("*.wav")) if directory.is_dir() else []:
        command = command_of_file(path.name, known) if known is not None else \
            (path.stem.split("__", 1)[0].replace("_", " ") if "__" in path.stem else None)
        if command is None:
            continue
        try:
            takes.setdefault(command, []).append(np.frombuffer(read_wav_16k(str(path)), dtype="<i2"))
        except WavError:
            continue
    return takes


def check_takes(takes: list[np.ndarray], head: CommandHead | None = None) -> list[str | None]:
    """What is wrong with each take of one command: ``"quiet"``, ``"clipped"``, ``"unlike"``
    (not like the other two), or ``None``."""
    head = head or CommandHead.released()
    problems: list[str | None] = []
    for take in takes:
        peak = int(np.max(np.abs(take.astype(np.int32)))) if len(take) else 0
        if peak < QUIET_PEAK:
            problems.append("quiet")
        elif np.mean(np.abs(take.astype(np.int32)) >= 32700) > CLIPPED_SHARE:
            problems.append("clipped")
        else:
            problems.append(None)
    good = [n for n, p in enumerate(problems) if p is None]
    if len(good) >= 3:
        vectors = {n: _pooled(takes[n], head) for n in good}
        for n in good:
            others = [float(vectors[n] @ vectors[m]) for m in good if m != n]
            if max(others) < LIKE_OTHERS:
                problems[n] = "unlike"
    return problems


def _pooled(take: np.ndarray, head: CommandHead) -> np.ndarray:
    """A take as the unit vector of the head's pooled features, heard through the front the head
    learnt on."""
    return _unit(head.pooled(head_features(take, head)))


def _unit(vector: np.ndarray) -> np.ndarray:
    return np.asarray(vector / (np.linalg.norm(vector) + 1e-9))


@dataclass(frozen=True)
class PersonalMatch:
    """The enrolled command an utterance matches (``None``: none closely enough), how closely,
    and by how much more than the next command."""

    command: str | None
    similarity: float
    margin: float


class PersonalVoice:
    """The player's takes, as templates; loaded once per game."""

    def __init__(self, takes: dict[str, list[np.ndarray]], head: CommandHead | None = None) -> None:
        self.head = head or CommandHead.released()
        self.commands: list[str] = []
        rows: list[np.ndarray] = []
        for command, samples in sorted(takes.items()):
            for take in samples:  # the embedding models load with the first take, not for none
                self.commands.append(command)
                rows.append(_pooled(take, self.head))
        self.templates = np.stack(rows) if rows else np.zeros((0, 1), dtype=np.float32)

    @classmethod
    def from_templates(cls, templates: np.ndarray, commands: list[str], head: CommandHead) -> PersonalVoice:
        """Templates already pooled by ``head`` (one unit row per take), as a worker process returns them."""
        if len(templates) != len(commands):
            raise ValueError(f"{len(templates)} templates for {len(commands)} commands")
        voice = cls({}, head=head)
        voice.templates, voice.commands = templates, list(commands)
        return voice

    @classmethod
    def load(cls, directory: Path | None = None, known: set[str] | None = None) -> PersonalVoice | None:
        """The takes stored under ``directory`` (:func:`voice_dir`), or ``None`` if there are none."""
        takes = read_takes(directory or voice_dir(), known)
        return cls(takes) if takes else None

    def __bool__(self) -> bool:
        return len(self.commands) > 0

    def match_pooled(self, pooled: np.ndarray, allowed: frozenset[str] | None = None) -> PersonalMatch:
        if not self.commands:
            return PersonalMatch(None, 0.0, 0.0)
        similarity = self.templates @ _unit(pooled)
        best: dict[str, float] = {}
        for command, value in zip(self.commands, similarity, strict=True):
            best[command] = max(best.get(command, -1.0), float(value))
        ranked = sorted(best.items(), key=lambda item: -item[1])
        choices = [(c, v) for c, v in ranked if allowed is None or c in allowed]
        if not choices:
            return PersonalMatch(None, 0.0, 0.0)
        command, value = choices[0]
        runner = max((v for c, v in ranked if c != command), default=-1.0)
        margin = value - runner
        if value >= MIN_SIMILARITY and margin >= MIN_MARGIN:
            return PersonalMatch(command, value, margin)
        return PersonalMatch(None, value, margin)

    def match(self, utterance: np.ndarray, allowed: frozenset[str] | None = None) -> PersonalMatch:
        """``utterance``: the head's front features of one take (``(24, 416)`` for the released head)."""
        return self.match_pooled(self.head.pooled(utterance), allowed)
