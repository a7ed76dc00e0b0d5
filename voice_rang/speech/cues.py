"""Sound cues (earcons): short sounds for what happens often, so words are kept for what matters.

Every cue is synthesised here, in plain Python, from a few sine partials, glides and a little
seeded noise: no sound files, nothing downloaded, the same samples on every machine. A cue is
named by a string that a :class:`~voice_rang.messages.Message` carries in its ``cue`` field:

======================  ===========================================================  ========
name                    sound                                                        length
======================  ===========================================================  ========
``miss``                a soft low wooden tick (another seat's card)                 70 ms
``miss you``            the same tick a fifth higher (your own card)                 70 ms
``capture you N``       a bright rising strum; more notes and longer the more         150-420 ms
                        cards (``N``) moved
``capture other N``     the same strum falling, lower and softer: another seat's      150-420 ms
``your turn``           a two-note bell, up a fourth                                 260 ms
``reshuffle``           a riffle: a dozen quickening clicks of noise                 300 ms
``out``                 a falling buzzy glide                                        350 ms
``won``                 a rising four-note fanfare                                   640 ms
``lost``                a slow falling minor third and root                          640 ms
``not caught``          two low buzzes, "uh-uh"                                      210 ms
``listening on``        a quick rising blip                                          120 ms
``listening off``       a quick falling blip                                         120 ms
``trump``               a reedy upward snap: a card that cuts the suit led (Court     140 ms
                        Piece)
``court``               a low wooden roll rising to a held fifth: a court            560 ms
======================  ===========================================================  ========

None of them has the formants, noise bursts or pitch contour of a voice, so none is taken
for a word, and each has its own shape in time and pitch (``tests/test_cues.py`` checks that
no two look alike to a cross-correlation, nor like speech).

>>> len(cue_pcm("miss", 22050)) / 2 / 22050 < 0.2
True
>>> duration("capture you 12") > duration("capture you 2")
True
>>> cue_pcm("dance", 22050)
Traceback (most recent call last):
...
ValueError: no sound cue named 'dance'
"""

from __future__ import annotations

import array
import math
import random
import sys
from collections.abc import Callable, Sequence
from functools import cache

__all__ = ["CUE_NAMES", "capture_cue", "cue_pcm", "duration", "is_cue"]

CUE_NAMES = (
    "miss", "miss you", "capture you", "capture other", "your turn", "reshuffle", "out", "won",
    "lost", "not caught", "listening on", "listening off", "trump", "court",
)
"""Every cue; the two capture cues take the number of cards moved after the name."""

_PEAK = 0.34
"""Loudest sample as a fraction of full scale: about as loud as espeak-ng's speech."""
_MAX_CAPTURE = 24

Samples = list[float]


def capture_cue(yours: bool, moved: int) -> str:
    """The cue name for a capture of ``moved`` cards.

    >>> capture_cue(True, 5)
    'capture you 5'
    """
    return f"capture {'you' if yours else 'other'} {max(int(moved), 1)}"


def _split(name: str) -> tuple[str, int]:
    base, _, size = name.strip().rpartition(" ")
    if base and size.isdigit():
        return base, int(size)
    return name.strip(), 0


def is_cue(name: str) -> bool:
    """Whether ``name`` names a cue.

    >>> is_cue("capture other 3"), is_cue("miss"), is_cue("hum")
    (True, True, False)
    """
    return _split(name)[0] in CUE_NAMES


def duration(name: str, sample_rate: int = 22050) -> float:
    """Seconds the cue lasts."""
    return len(cue_pcm(name, sample_rate)) / 2 / sample_rate


@cache
def cue_pcm(name: str, sample_rate: int, volume: float = 1.0) -> bytes:
    """The cue as 16-bit mono PCM at ``sample_rate`` (native byte order); ``ValueError`` if unknown."""
    base, size = _split(name)
    maker = _MAKERS.get(base)
    if maker is None:
        raise ValueError(f"no sound cue named {name!r}")
    samples = maker(sample_rate, size)
    loudest = max((abs(s) for s in samples), default=0.0) or 1.0
    scale = _PEAK * 32767 * min(max(volume, 0.0), 1.0) / loudest
    pcm = array.array("h", (round(s * scale) for s in samples))
    if sys.byteorder == "big":
        pcm.byteswap()
    return pcm.tobytes()


# ----- the building blocks ---------------------------------------------------------------------

def _silence(rate: int, seconds: float) -> Samples:
    return [0.0] * int(rate * seconds)


def _note(rate: int, seconds: float, frequency: float, partials: Sequence[tuple[float, float]] = ((1, 1),),
          *, attack: float = 0.004, decay: float | None = None) -> Samples:
    """A struck or held note: ``partials`` are (multiple of ``frequency``, amplitude); the
    envelope rises over ``attack`` and then dies away with time constant ``decay`` (held, with a
    short release, when None)."""
    count = int(rate * seconds)
    out = []
    release = min(0.012, seconds / 4)
    for i in range(count):
        t = i / rate
        value = sum(amp * math.sin(2 * math.pi * frequency * mult * t) for mult, amp in partials)
        envelope = min(t / attack, 1.0) if attack > 0 else 1.0
        if decay is not None:
            envelope *= math.exp(-t / decay)
        left = seconds - t
        if left < release:
            envelope *= left / release
        out.append(value * envelope)
    return out


def _glide(rate: int, seconds: float, start: float, end: float,
           partials: Sequence[tuple[float, float]] = ((1, 1),)) -> Samples:
    """A note whose pitch slides from ``start`` to ``end`` Hz (exponentially, as the ear hears)."""
    count = int(rate * seconds)
    out = []
    phase = 0.0
    for i in range(count):
        t = i / rate
        frequency = start * (end / start) ** (t / seconds)
        phase += 2 * math.pi * frequency / rate
        value = sum(amp * math.sin(phase * mult) for mult, amp in partials)
        envelope = min(t / 0.005, 1.0, (seconds - t) / 0.02)
        out.append(value * max(envelope, 0.0))
    return out


def _mix(parts: Sequence[tuple[float, Samples]], rate: int) -> Samples:
    """Lay each (start second, samples) over the others."""
    length = max(int(start * rate) + len(samples) for start, samples in parts)
    out = [0.0] * length
    for start, samples in parts:
        offset = int(start * rate)
        for i, value in enumerate(samples):
            out[offset + i] += value
    return out


def _then(*pieces: Samples) -> Samples:
    out: Samples = []
    for piece in pieces:
        out.extend(piece)
    return out


_BUZZ = ((1, 1.0), (3, 0.35), (5, 0.2), (7, 0.1))
"""Odd partials: a reedy, square-ish tone, far from any vowel."""
_BELL = ((1, 1.0), (2.76, 0.4), (5.4, 0.15))
_WOOD = ((1, 1.0), (2.3, 0.5), (4.1, 0.2))


# ----- the cues --------------------------------------------------------------------------------

def _miss(rate: int, size: int) -> Samples:
    del size
    return _note(rate, 0.07, 470, _WOOD, attack=0.001, decay=0.015)


def _miss_you(rate: int, size: int) -> Samples:
    del size
    return _note(rate, 0.07, 700, _WOOD, attack=0.001, decay=0.015)


_RISING = (523.3, 659.3, 784.0, 1046.5, 1318.5, 1568.0, 2093.0)
_FALLING = (392.0, 329.6, 261.6, 196.0, 164.8, 130.8, 98.0)


def _voices(size: int) -> int:
    """How many notes a capture of ``size`` cards strums: 2 for a pair, 7 for a big pile."""
    return min(2 + max(size - 2, 0) // 3, len(_RISING))


def _strum(rate: int, size: int, notes: Sequence[float], partials: Sequence[tuple[float, float]]) -> Samples:
    count = _voices(size)
    ring = 0.12 + 0.2 * min(max(size, 1), _MAX_CAPTURE) / _MAX_CAPTURE
    step = 0.03
    parts = [(i * step, _note(rate, ring, notes[i], partials, attack=0.003, decay=ring / 2.5))
             for i in range(count)]
    return _mix(parts, rate)


def _capture_you(rate: int, size: int) -> Samples:
    return _strum(rate, size, _RISING, ((1, 1.0), (2, 0.3), (3, 0.12)))


def _capture_other(rate: int, size: int) -> Samples:
    return _strum(rate, size, _FALLING, ((1, 1.0), (2, 0.15)))


def _your_turn(rate: int, size: int) -> Samples:
    del size
    return _mix([(0.0, _note(rate, 0.14, 1108.7, _BELL, decay=0.06)),
                 (0.11, _note(rate, 0.15, 1480.0, _BELL, decay=0.07))], rate)


def _reshuffle(rate: int, size: int) -> Samples:
    del size
    noise = random.Random(21)
    clicks: list[tuple[float, Samples]] = []
    at, gap = 0.0, 0.04
    while at < 0.28:
        length = int(rate * 0.012)
        click, low = [], 0.0
        for i in range(length):
            low += 0.35 * (noise.uniform(-1, 1) - low)  # a gentle low-pass: paper, not hiss
            click.append(low * math.exp(-i / (rate * 0.003)))
        clicks.append((at, click))
        at += gap
        gap = max(gap * 0.85, 0.012)
    return _then(_mix(clicks, rate), _silence(rate, 0.005))


def _out(rate: int, size: int) -> Samples:
    del size
    return _glide(rate, 0.35, 440.0, 150.0, _BUZZ)


def _won(rate: int, size: int) -> Samples:
    del size
    steps = (440.0, 554.4, 659.3)  # A major, away from the capture strums' C and their ticks
    parts = [(i * 0.1, _note(rate, 0.12, f, _BELL, decay=0.08)) for i, f in enumerate(steps)]
    parts.append((0.3, _note(rate, 0.34, 880.0, _BELL, decay=0.16)))
    parts.append((0.3, _note(rate, 0.34, 659.3, ((1, 0.5),), decay=0.16)))
    return _mix(parts, rate)


def _lost(rate: int, size: int) -> Samples:
    del size
    return _then(_note(rate, 0.2, 370.0, ((1, 1.0), (2, 0.2)), decay=0.15),
                 _note(rate, 0.2, 293.7, ((1, 1.0), (2, 0.2)), decay=0.15),
                 _note(rate, 0.24, 246.9, ((1, 1.0), (2, 0.2)), decay=0.18))


def _not_caught(rate: int, size: int) -> Samples:
    del size
    return _then(_note(rate, 0.08, 233.1, _BUZZ, attack=0.006),
                 _silence(rate, 0.05),
                 _note(rate, 0.08, 196.0, _BUZZ, attack=0.006))


def _listening_on(rate: int, size: int) -> Samples:
    del size
    return _glide(rate, 0.12, 900.0, 1800.0, ((1, 1.0), (2, 0.2)))


def _listening_off(rate: int, size: int) -> Samples:
    del size
    return _glide(rate, 0.12, 1800.0, 900.0, ((1, 1.0), (2, 0.2)))


def _trump(rate: int, size: int) -> Samples:
    del size
    return _then(_glide(rate, 0.1, 196.0, 392.0, _BUZZ), _note(rate, 0.04, 392.0, _BUZZ, attack=0.001, decay=0.012))


def _court(rate: int, size: int) -> Samples:
    del size
    roll = [(i * 0.045, _note(rate, 0.06, 130.8 + 8.0 * i, _WOOD, attack=0.001, decay=0.02)) for i in range(6)]
    held = [(0.27, _note(rate, 0.29, 196.0, _WOOD, decay=0.2)), (0.27, _note(rate, 0.29, 293.7, _WOOD, decay=0.2))]
    return _mix(roll + held, rate)


_MAKERS: dict[str, Callable[[int, int], Samples]] = {
    "miss": _miss,
    "miss you": _miss_you,
    "capture you": _capture_you,
    "capture other": _capture_other,
    "your turn": _your_turn,
    "reshuffle": _reshuffle,
    "out": _out,
    "won": _won,
    "lost": _lost,
    "not caught": _not_caught,
    "listening on": _listening_on,
    "listening off": _listening_off,
    "trump": _trump,
    "court": _court,
}
