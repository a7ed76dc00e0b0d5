"""How loud the room is: the noise floor that speech is judged and measured against.

Receives one level a frame (dB, :func:`.levels.energy_db`), with what the endpointer made of the
frame; keeps the floor (``floor_db``), whether the room holds steady (``steady``) and whether a
second of it has been heard (``learnt``). The endpointer keeps two: one of the sound as the
microphone gave it, which measures how far speech stands over the room (the noise guard and the
decision rule were set on that measure) and mostly decides what is speech, and one of the sound as
its noise suppressor leaves it, which decides in a steady, noisy room not yet learnt.
"""

from __future__ import annotations

from collections import deque
from itertools import islice

__all__ = ["BETWEEN_MIN_MS", "FLOOR_PERCENTILE", "STEADY_MIN_FRAMES", "STEADY_SPREAD_DB", "Room"]

FLOOR_PERCENTILE = 30.0
"""The noise floor rises to this percentile of the last 3 s of frame levels heard between
utterances when it is under it: music, a fan or babble fill those frames, a player's talk mostly
does not (its frames are inside utterances). 0 is the quietest frame."""

STEADY_SPREAD_DB = 2.5
"""A room holds steady when the frames heard between utterances lately spread by at most this
from their 30th to their 90th percentile: white noise about 0.6 dB, pink 1.5-2, brown and a babble
of voices 4-6, music mostly 2-7."""

STEADY_MIN_FRAMES = 10
"""Frames between utterances needed before the room may be judged steady (200 ms)."""

BETWEEN_MIN_MS = 1000
"""How much sound between utterances the percentile needs before it may lift the floor."""


class Room:
    """The noise floor of one stream of frame levels.

    >>> room = Room(frame_ms=20)
    >>> room.learn(40.0, frame=1)
    >>> for _ in range(60):
    ...     room.hear(40.0, loud=False, voiced=False, between=True)
    >>> room.floor_db, room.steady
    (40.0, True)
    """

    def __init__(self, *, frame_ms: int, floor_db: float | None = None, window_ms: int = 3000,
                 percentile: float | None = None) -> None:
        self.floor_db = floor_db if floor_db is not None else 30.0
        self.known = floor_db is not None
        self.learned_at = 0
        """The frame whose level became the floor, when the floor was not given (0: given)."""
        self.steady = False
        """The frames between utterances lately hold steady (``STEADY_SPREAD_DB``)."""
        window = max(1, window_ms // frame_ms)
        self._recent: deque[float] = deque(maxlen=window)
        self._between: deque[float] = deque(maxlen=window)
        """Frame levels while no utterance was open (waiting, or deaf after a long one)."""
        self._between_needed = max(1, BETWEEN_MIN_MS // frame_ms)
        self._percentile = FLOOR_PERCENTILE if percentile is None else percentile
        self._word_run = 0
        """In a steady room, the last frames between utterances that were voiced in a row: perhaps
        a word's first frames, before its onset is confirmed, so not yet counted as the room."""

    @property
    def learnt(self) -> bool:
        """A second of the room has been heard between utterances (``BETWEEN_MIN_MS``): its floor
        is then a percentile of what was heard, not the first frames' guess."""
        return len(self._between) >= self._between_needed

    def set_floor(self, db: float) -> None:
        self.floor_db = db
        self.known = True

    def learn(self, level: float, *, frame: int) -> None:
        """With no floor yet, the first frame's level is the floor."""
        if not self.known:
            self.floor_db = level
            self.known = True
            self.learned_at = frame

    def forget_the_word(self) -> None:
        """The endpointer forgot what it was hearing (the game spoke over it)."""
        self._word_run = 0

    def hear(self, level: float, *, loud: bool, voiced: bool, between: bool) -> None:
        """Take a frame's level, after the endpointer judged it against :attr:`floor_db`."""
        if not loud:
            # Track the floor: quickly down, slowly up (so speech never drags it up much).
            rate = 0.3 if level < self.floor_db else 0.02
            self.floor_db += rate * (level - self.floor_db)
        self._recent.append(level)
        if between:
            self._between.append(level)
            self._word_run = self._word_run + 1 if voiced and self.steady else 0
        if len(self._recent) == self._recent.maxlen:
            # The room got louder (a fan, a radio): every frame for seconds was over the floor,
            # which talk never does, as it pauses. Without this the floor would stay below the
            # new noise and the noise would be "speech" for ever.
            self.floor_db = max(self.floor_db, min(self._recent))
        heard = max(0, len(self._between) - self._word_run)
        if heard >= min(STEADY_MIN_FRAMES, self._between_needed):
            levels = sorted(islice(self._between, heard))
            self.steady = (heard >= STEADY_MIN_FRAMES and levels[round(0.9 * (heard - 1))]
                           - levels[round(0.3 * (heard - 1))] <= STEADY_SPREAD_DB)
            if heard >= self._between_needed:
                # Music is quiet for moments, and a floor held at its quietest moment leaves the
                # rest of it "speech". Between utterances the room is what is heard, so a low
                # percentile of those frames is the room; talk's own frames are left out, or it
                # would lift the floor.
                rank = round(self._percentile / 100 * (heard - 1))
                self.floor_db = max(self.floor_db, levels[rank])

    def leave_the_word_out(self) -> None:
        """At an onset in a steady room: the word's first frames, voiced in a row before the onset
        was confirmed, are taken out of the frames heard between utterances for good.

        Counted as the room, they made a steady hiss look unsteady, most of all early on, with
        little room heard: the onset margin rose from 8 to 12 dB before the onset (the word went
        unheard) or in the middle of the word (it was cut short). Only in a steady room: under
        music, whose loud moments open utterances, leaving their frames out would pull the floor
        down until the music alone gave a command (docs/voice-experiments.md)."""
        for _ in range(min(self._word_run, len(self._between))):
            self._between.pop()
        self._word_run = 0
