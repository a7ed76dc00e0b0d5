"""An endpointer made for short commands: find where speech starts and close it fast.

Why not SpeechRecognition's: it waits 0.8 s of silence before deciding a phrase ended and drops a
crisp one-syllable "turn" as too short. Here onset is energy over an adaptive noise floor,
confirmed by pocketsphinx's WebRTC-style :class:`pocketsphinx.Vad`; the end is a short silence
whose length depends on what the recogniser holds so far: ~100 ms after a whole command that
nothing longer extends, longer after a prefix ("auto reveal" may go on with "on"/"off").

Receives fixed-size frames of 16 kHz mono PCM16; emits :class:`Utterance` events: ``start`` (with
pre-roll audio), ``audio`` (each further frame), ``end``, or ``abandon`` (speech went on too long
to be a command; the endpointer then waits for silence before listening again).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

from .levels import energy_db
from .results import Completion

__all__ = [
    "BETWEEN_MIN_MS",
    "FLOOR_PERCENTILE",
    "HANGOVER_MS",
    "LOUD_MARGIN_DB",
    "NOISY_COMPLETE_HANGOVER_MS",
    "ONSET_MARGIN_DB",
    "QUICK_CLOSE_MIN_SNR_DB",
    "STEADY_MARGIN_DB",
    "STEADY_MIN_FRAMES",
    "STEADY_SPREAD_DB",
    "Endpointer",
    "Utterance",
]

HANGOVER_MS = {
    Completion.COMPLETE: 100,
    Completion.NONE: 300,
    Completion.COMPLETE_PREFIX: 450,
    Completion.PREFIX: 550,
}
"""Silence that closes an utterance, by how complete the command heard so far is."""

QUICK_CLOSE_MIN_SNR_DB = 30.0
"""The quick close after a whole command needs speech this far above the noise. In a noisier room
a weak part of a word passes for silence and the partial hypothesis flickers through short
commands ("flip" inside a noisy "repeat"), so the utterance waits longer
(``NOISY_COMPLETE_HANGOVER_MS``)."""

NOISY_COMPLETE_HANGOVER_MS = 200
"""Silence that closes a whole command in a room under ``QUICK_CLOSE_MIN_SNR_DB``."""

FLOOR_PERCENTILE = 30.0
"""The noise floor rises to this percentile of the last 3 s of frame levels heard between
utterances when it is under it: music, a fan or babble fill those frames, a player's talk mostly
does not (its frames are inside utterances). 0 is the quietest frame."""

ONSET_MARGIN_DB = 12.0
"""How far over the noise floor a frame the voice detector calls speech must be to count as
speech."""

STEADY_MARGIN_DB = 8.0
"""The onset margin in a room whose sound holds steady (a fan, a hiss, rain): there a frame 8 dB
over the floor is no part of the room, and at 10 dB SNR a word's frames reach 8 dB over it far more
often than 12 (new takes of the training voices at 10 dB in white noise, 8 dB everywhere: 33 of 33
found, against 16 at 12 dB). Music and babble swing by more than ``STEADY_SPREAD_DB``, and there
8 dB let the music alone turn cards (docs/voice-experiments.md), so they keep
``ONSET_MARGIN_DB``."""

STEADY_SPREAD_DB = 2.5
"""A room holds steady when the frames heard between utterances lately spread by at most this
from their 30th to their 90th percentile: white noise about 0.6 dB, pink 1.5-2, brown and a babble
of voices 4-6, music mostly 2-7."""

STEADY_MIN_FRAMES = 10
"""Frames between utterances needed before the room may be judged steady (200 ms)."""

LOUD_MARGIN_DB = 24.0
"""How far over the noise floor a frame counts as speech whatever the voice detector says."""

BETWEEN_MIN_MS = 1000
"""How much sound between utterances the percentile needs before it may lift the floor."""


@dataclass(frozen=True)
class Utterance:
    """One endpointer event (``start``, ``audio``, ``end``, ``abandon``) with the audio it adds."""

    kind: str
    audio: bytes = b""
    at_ms: float = 0.0
    """Stream time of the event, from the first frame processed."""
    gap_ms: float = math.inf
    """For ``start``: silence since the previous utterance ended (infinite if none). A short gap
    means this is the next piece of ongoing talk, not a command said on its own."""
    snr_db: float = math.inf
    """For ``end``: how far the utterance's speech stands above the noise floor, dB (the level its
    louder voiced frames reach: the 80th percentile). Low means a noisy room, where the recogniser
    is often wrong."""


class Endpointer:
    """Frame-by-frame speech detector; one per audio stream (it learns that stream's noise)."""

    def __init__(self, *, sample_rate: int = 16000, frame_ms: int = 20, preroll_ms: int = 300,
                 max_ms: int = 4000, onset_frames: int = 3, noise_floor_db: float | None = None,
                 margin_db: float | None = None, floor_window_ms: int = 3000,
                 floor_percentile: float | None = None) -> None:
        from pocketsphinx import Vad

        self.sample_rate = sample_rate
        self.frame_ms = frame_ms
        self.frame_bytes = sample_rate * frame_ms // 1000 * 2
        self._vad = Vad(Vad.LOOSE, sample_rate, frame_ms / 1000)
        if self._vad.frame_bytes != self.frame_bytes:
            raise ValueError(f"the voice detector cannot use {frame_ms} ms frames")
        self.margin_db = ONSET_MARGIN_DB if margin_db is None else margin_db
        self.floor_db = noise_floor_db if noise_floor_db is not None else 30.0
        self._floor_known = noise_floor_db is not None
        self._floor_learned_at = 0
        """The frame whose level became the floor, when the floor was not given (0: given)."""
        self._history: deque[tuple[bytes, bool, float]] = deque(maxlen=max(1, preroll_ms // frame_ms))
        self._onset = onset_frames
        self._max_frames = max_ms // frame_ms
        self.in_speech = False
        self._deaf = False  # after an abandoned utterance: wait for silence
        self._silent_frames = 0
        self._speech_frames = 0
        self._frames = 0
        self._last_end_ms = -math.inf
        self._level_db = 0.0
        self._voiced_levels: list[float] = []
        self._floor_at_start = -math.inf
        window = max(1, floor_window_ms // frame_ms)
        self._recent_levels: deque[float] = deque(maxlen=window)
        self._between_levels: deque[float] = deque(maxlen=window)
        """Frame levels while no utterance was open (waiting, or deaf after a long one)."""
        self._between_needed = max(1, BETWEEN_MIN_MS // frame_ms)
        self._floor_percentile = FLOOR_PERCENTILE if floor_percentile is None else floor_percentile
        self._steady = False
        """The frames between utterances lately hold steady (``STEADY_SPREAD_DB``)."""
        self._word_run = 0
        """In a steady room, the last frames between utterances that were voiced in a row: perhaps
        a word's first frames, before its onset is confirmed, so not yet counted as the room."""

    def set_noise_floor(self, db: float) -> None:
        """Start from a known ambient level (``decode_pcm``'s quiet room) instead of the first
        frame's."""
        self.floor_db = db
        self._floor_known = True

    def reset(self) -> None:
        """Forget any utterance in progress (the game spoke over it)."""
        self.in_speech = False
        self._deaf = False
        self._last_end_ms = -math.inf
        self._history.clear()
        self._silent_frames = 0
        self._speech_frames = 0
        self._voiced_levels = []
        self._word_run = 0

    def snr_db(self) -> float:
        """The utterance so far: how loud its louder voiced frames are over the noise floor.

        Not the median: a soft start or breath counts as voiced, and in a quiet room would drag
        the measure down to a few dB over silence."""
        if not self._voiced_levels:
            return math.inf
        levels = sorted(self._voiced_levels)
        # Against the louder of the floor before the speech and the floor now: the room may fall
        # quiet (or get loud) while someone speaks.
        floor = max(self._floor_at_start, self.floor_db)
        return levels[int(0.8 * (len(levels) - 1))] - floor

    def onset_margin_db(self) -> float:
        """How far over the floor a frame must stand to be speech: less in a room that holds
        steady, where nothing but a voice rises that far (``STEADY_MARGIN_DB``)."""
        return min(self.margin_db, STEADY_MARGIN_DB) if self._steady else self.margin_db

    def is_voiced(self, frame: bytes) -> bool:
        """Loud enough over the noise floor, and speech-like or clearly loud."""
        level = self._level_db = energy_db(frame)
        if not self._floor_known:
            self.floor_db = level
            self._floor_known = True
            self._floor_learned_at = self._frames
        loud = level > self.floor_db + self.onset_margin_db()
        voiced = loud and (self._vad.is_speech(frame) or level > self.floor_db + LOUD_MARGIN_DB)
        if not loud:
            # Track the floor: quickly down, slowly up (so speech never drags it up much).
            rate = 0.3 if level < self.floor_db else 0.02
            self.floor_db += rate * (level - self.floor_db)
        self._recent_levels.append(level)
        if not self.in_speech:
            self._between_levels.append(level)
            self._word_run = self._word_run + 1 if voiced and self._steady else 0
        if len(self._recent_levels) == self._recent_levels.maxlen:
            # The room got louder (a fan, a radio): every frame for seconds was over the floor,
            # which talk never does, as it pauses. Without this the floor would stay below the
            # new noise and the noise would be "speech" for ever.
            self.floor_db = max(self.floor_db, min(self._recent_levels))
        heard = max(0, len(self._between_levels) - self._word_run)
        if heard >= min(STEADY_MIN_FRAMES, self._between_needed):
            levels = sorted(islice(self._between_levels, heard))
            self._steady = (heard >= STEADY_MIN_FRAMES and levels[round(0.9 * (heard - 1))]
                            - levels[round(0.3 * (heard - 1))] <= STEADY_SPREAD_DB)
            if heard >= self._between_needed:
                # Music is quiet for moments, and a floor held at its quietest moment leaves the
                # rest of it "speech". Between utterances the room is what is heard, so a low
                # percentile of those frames is the room; talk's own frames are left out, or it
                # would lift the floor.
                rank = round(self._floor_percentile / 100 * (heard - 1))
                self.floor_db = max(self.floor_db, levels[rank])
        return voiced

    def _leave_the_word_out_of_the_room(self) -> None:
        """At an onset in a steady room: the word's first frames, voiced in a row before the onset
        was confirmed, are taken out of the frames heard between utterances for good.

        Counted as the room, they made a steady hiss look unsteady, most of all early on, with
        little room heard: the onset margin rose from 8 to 12 dB before the onset (the word went
        unheard) or in the middle of the word (it was cut short). Only in a steady room: under
        music, whose loud moments open utterances, leaving their frames out would pull the floor
        down until the music alone gave a command (docs/voice-experiments.md)."""
        for _ in range(min(self._word_run, len(self._between_levels))):
            self._between_levels.pop()
        self._word_run = 0

    def _closes(self, silent_ms: int, completion: Callable[[], Completion] | None) -> bool:
        """Whether ``silent_ms`` of silence closes the utterance, by the recogniser's hint now
        (asked only once the shortest hangover has passed)."""
        if silent_ms < min(HANGOVER_MS.values()):
            return False
        hint = completion() if completion is not None else Completion.NONE
        if hint is Completion.COMPLETE and self.snr_db() < QUICK_CLOSE_MIN_SNR_DB:
            return silent_ms >= NOISY_COMPLETE_HANGOVER_MS
        return silent_ms >= HANGOVER_MS[hint]

    def may_close_next(self, completion: Callable[[], Completion] | None = None) -> bool:
        """Whether the next frame, if silent, ends the utterance (the hint as it stands now): the
        listener can do what the end will need while that frame is on its way.

        >>> Endpointer().may_close_next()
        False
        """
        if not self.in_speech or self._deaf:
            return False
        return self._closes((self._silent_frames + 1) * self.frame_ms, completion)

    def process(self, frame: bytes,
                completion: Callable[[], Completion] | None = None) -> Iterator[Utterance]:
        """Take one frame; yield the events it causes (usually none)."""
        if len(frame) != self.frame_bytes:
            raise ValueError(f"frames must be {self.frame_bytes} bytes")
        self._frames += 1
        now = self._frames * self.frame_ms
        voiced = self.is_voiced(frame)
        if self._deaf:
            self._silent_frames = 0 if voiced else self._silent_frames + 1
            if self._silent_frames * self.frame_ms >= HANGOVER_MS[Completion.NONE]:
                self._deaf = False
                self._last_end_ms = now - self._silent_frames * self.frame_ms
                self._silent_frames = 0
            return
        if not self.in_speech:
            self._history.append((frame, voiced, self._level_db))
            recent = list(self._history)[-self._onset:]
            if len(recent) == self._onset and all(v for _, v, _ in recent):
                self.in_speech = True
                self._speech_frames = len(self._history)
                self._silent_frames = 0
                audio = b"".join(f for f, _, _ in self._history)
                self._voiced_levels = [level for _, v, level in self._history if v]
                # A floor learned from a frame of this very utterance (the player spoke as
                # listening began) is the word, not the room: judge it by the floor after it.
                first_frame = self._frames - len(self._history) + 1
                learned_inside = self._floor_learned_at >= first_frame
                self._floor_at_start = -math.inf if learned_inside else self.floor_db
                self._history.clear()
                self._leave_the_word_out_of_the_room()
                gap = now - self._onset * self.frame_ms - self._last_end_ms
                yield Utterance("start", audio, now, gap)
            return
        self._speech_frames += 1
        self._silent_frames = 0 if voiced else self._silent_frames + 1
        if voiced:
            self._voiced_levels.append(self._level_db)
        if self._speech_frames >= self._max_frames:
            self.in_speech = False
            self._deaf = True
            self._silent_frames = 0
            self._last_end_ms = now
            yield Utterance("abandon", frame, now)
            return
        yield Utterance("audio", frame, now)
        if self._closes(self._silent_frames * self.frame_ms, completion):
            self.in_speech = False
            self._last_end_ms = now - self._silent_frames * self.frame_ms
            self._silent_frames = 0
            yield Utterance("end", b"", now, snr_db=self.snr_db())
