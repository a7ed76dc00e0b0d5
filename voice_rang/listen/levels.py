"""Loudness of short audio frames, and what it tells about the room.

The endpointer needs it to find speech over the noise; the recogniser needs it to tell the echo
of a word, dying away in a reverberant room, from more words.
"""

from __future__ import annotations

import array
import math
from collections.abc import Iterator, Sequence

__all__ = [
    "ECHO_DECAY_DB_PER_S",
    "ECHO_OVER_DB",
    "ECHO_RISE_DB",
    "ECHO_SMOOTH_FRAMES",
    "PRESUMED_SNR_DB",
    "ROOM_SAMPLE_MS",
    "energy_db",
    "frames",
    "is_echo",
    "presumed_floor_db",
]

ROOM_SAMPLE_MS = 100.0
"""How much of a recording must lie near its quietest level for it to hold a stretch of its room."""

PRESUMED_SNR_DB = 35.0
"""Where a recording gives no sign of its room, the room is presumed this far below the speech:
quiet, as a room is when someone speaks close to the microphone."""

ECHO_DECAY_DB_PER_S = 50.0
"""The slowest a room's echo may die away and still count as echo. Reverberation decays at a
steady rate, 60 dB in the room's reverberation time: 50 dB a second is a room of about 1.2 s,
livelier than a living room (0.4-0.6 s); speech that goes on holds its level for a vowel."""

ECHO_OVER_DB = 3.0
"""How far the echo may start above the end of the word it follows (frames are short and the
level wobbles)."""

ECHO_RISE_DB = 6.0
"""How far the echo may climb back over its own lowest point: a new syllable after a closure
("note" after "no", "please" after "yes") climbs more."""

ECHO_SMOOTH_FRAMES = 3
"""Frames averaged before judging: a reverberant tail wobbles by several dB from one 10 ms frame
to the next."""


def energy_db(frame: bytes) -> float:
    """Level of a frame of 16-bit PCM, dB over one unit of amplitude (DC removed).

    >>> energy_db(b"")
    0.0
    >>> round(energy_db(b"\\x00\\x10\\x00\\xf0" * 80))
    72
    """
    samples = array.array("h")
    samples.frombytes(frame)
    if not samples:
        return 0.0
    mean = sum(samples) / len(samples)
    power = sum((s - mean) ** 2 for s in samples) / len(samples)
    return 10.0 * math.log10(power + 1.0)


def frames(pcm: bytes, frame_bytes: int) -> Iterator[bytes]:
    """The whole frames of ``pcm``, in order (a short last piece is left out)."""
    for offset in range(0, len(pcm) - frame_bytes + 1, frame_bytes):
        yield pcm[offset:offset + frame_bytes]


def presumed_floor_db(pcm: bytes, frame_bytes: int, frame_ms: float) -> float | None:
    """The noise floor to presume for a recording that holds no stretch of its room, or ``None``
    when it holds one (:data:`ROOM_SAMPLE_MS` of frames within 3 dB of its quietest: silence, or
    steady noise). With ``None`` the endpointer learns the room from the recording's start, as
    live play learns it from the microphone.

    A clip cut tight around a word has no room in it: its first frame, and even its quietest,
    is the word, and taking that for the noise would leave the word unheard. The room is then
    presumed quiet, :data:`PRESUMED_SNR_DB` below the loudest frame (or at the quietest frame,
    if that is lower). The quietest frame is not used when the room *is* there: in babble it
    lies far below the room's usual level, and speech in babble would seem clean. Babble and
    low rumble may leave no steady stretch either, so the caller presumes a quiet room only when
    the recording, heard the usual way, gave it nothing (``decode_pcm``).

    >>> tone = b"\\x00\\x10\\x00\\xf0" * 160                    # a 72 dB square wave, 20 ms
    >>> presumed_floor_db(b"\\0" * 640 * 5 + tone, 640, 20) is None   # 100 ms of silence: a room
    True
    >>> round(presumed_floor_db(tone * 2, 640, 20), 1)         # nothing but the tone
    37.2
    """
    levels = [energy_db(frame) for frame in frames(pcm, frame_bytes)]
    if not levels:
        return None
    quietest = min(levels)
    room_frames = sum(1 for level in levels if level <= quietest + 3.0)
    if room_frames * frame_ms >= ROOM_SAMPLE_MS:
        return None
    return min(quietest, max(levels) - PRESUMED_SNR_DB)


def is_echo(levels: Sequence[float], word_end: int, tail_end: int, frame_s: float = 0.01) -> bool:
    """Whether frames ``word_end + 1`` to ``tail_end`` of ``levels`` are the echo of the word that
    ended at ``word_end``: never louder than the word's last frames, dying away steadily, never
    climbing back.

    In a reverberant room a command does not stop when the speaker does: its echo goes on for a
    few hundred milliseconds, and the recogniser, which must account for every frame, spells it
    with an ordinary word ("stop [all]"), so the command would be rejected as talk.

    >>> word = [60.0, 70.0, 70.0]
    >>> dying = [69.0 - n for n in range(15)]            # 100 dB a second: an echo
    >>> is_echo(word + dying, 2, 17)
    True
    >>> is_echo(word + [50, 45, 44, 62, 66, 64], 2, 8)   # a closure, then a new syllable
    False
    >>> is_echo(word + [69.0] * 15, 2, 17)               # held for 150 ms: speech going on
    False
    """
    if word_end < 0 or tail_end <= word_end or tail_end >= len(levels):
        return False
    word_level = max(levels[max(0, word_end - 2):word_end + 1])
    lowest = math.inf
    for index, frame in enumerate(range(word_end + 1, tail_end + 1)):
        window = levels[max(0, frame - ECHO_SMOOTH_FRAMES + 1):frame + 1]
        level = sum(window) / len(window)
        lowest = min(lowest, level)
        ceiling = word_level + ECHO_OVER_DB - ECHO_DECAY_DB_PER_S * frame_s * index
        if level > ceiling or level - lowest > ECHO_RISE_DB:
            return False
    return True
