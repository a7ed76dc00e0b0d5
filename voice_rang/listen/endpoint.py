"""An endpointer made for short commands: find where speech starts and close it fast.

Why not SpeechRecognition's: it waits 0.8 s of silence before deciding a phrase ended and drops a
crisp one-syllable "turn" as too short. Here onset is energy over an adaptive noise floor,
confirmed by pocketsphinx's WebRTC-style :class:`pocketsphinx.Vad`, or a little energy confirmed
by a neural voice detector (:mod:`.voice_likelihood`) that hears words in noise; the end is a
short silence whose length depends on what the recogniser holds so far: ~100 ms after a whole
command that nothing longer extends, longer after a prefix ("auto reveal" may go on with
"on"/"off").

Receives fixed-size frames of 16 kHz mono PCM16; emits :class:`Utterance` events: ``start`` (with
pre-roll audio), ``audio`` (each further frame), ``end``, or ``abandon`` (speech went on too long
to be a command; the endpointer then waits for silence before listening again).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .levels import energy_db
from .results import Completion
from .room import BETWEEN_MIN_MS, FLOOR_PERCENTILE, STEADY_MIN_FRAMES, STEADY_SPREAD_DB, Room
from .suppress import NoiseSuppressor, noise_suppressor
from .voice_likelihood import VoiceLikelihood

__all__ = [
    "BETWEEN_MIN_MS",
    "FLOOR_PERCENTILE",
    "HANGOVER_MS",
    "LOUD_MARGIN_DB",
    "NEURAL_MARGIN_DB",
    "NEURAL_VOICE_MIN",
    "NOISY_COMPLETE_HANGOVER_MS",
    "ONSET_MARGIN_DB",
    "QUICK_CLOSE_MIN_SNR_DB",
    "STEADY_MARGIN_DB",
    "STEADY_MIN_FRAMES",
    "STEADY_SPREAD_DB",
    "SUPPRESSED_BY_DB",
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

SUPPRESSED_BY_DB = 10.0
"""The suppressed sound decides only where the suppressor takes the room down by this much: a
hiss, a fan (white noise at 10 dB SNR, 11-16 dB; pink 13-19 dB, on the training voices'
recordings). In a quiet room there is nothing to take away (digital silence: 4-6 dB), and the
suppressor's later cut only moved words by a frame, which changed the grammar decoders' answers."""

LOUD_MARGIN_DB = 24.0
"""How far over the noise floor a frame counts as speech whatever the voice detector says."""

NEURAL_VOICE_MIN = 0.9
"""How sure the neural voice detector (:mod:`.voice_likelihood`) must be that a frame is a voice
for the frame to count as speech when WebRTC's detector and the margin do not: before an
utterance, and inside one whose speech stands under ``QUICK_CLOSE_MIN_SNR_DB``. At 10 dB a word's
loudest frames may stand only 12-18 dB over noise that swings, so no onset came at all, or a weak
syllable passed for silence and cut the word in two. With it, on new takes of the training voices
at 10 dB, 82 of 132 commands were right against 77, and the enrolled voices' takes 106 against
93, with no more talk, near words or wrong commands; used only for onsets, 78 (and one more
wrong), since the word was then still cut in two (docs/voice-experiments.md). In a quiet room an
utterance still closes on energy alone, after the same silence."""

NEURAL_MARGIN_DB = 4.0
"""How far over the floor a frame the neural detector is sure of must stand to count as speech:
it hears any voice, a babble or the radio too, so the frame must still rise out of the room."""


def _voice_likelihood() -> VoiceLikelihood | None:
    """The neural voice detector, or none where its wheel is missing or its library will not load:
    the endpointer then works on energy and WebRTC's detector alone, as it did before it."""
    try:
        return VoiceLikelihood()
    except (ImportError, OSError):
        return None


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


class _Ear:
    """One sound the endpointer listens to (the frames as given, or through a suppressor): its
    room and its own voice detector (which adapts to what it is fed, so each sound has one)."""

    def __init__(self, room: Room, sample_rate: int, frame_ms: int,
                 suppressor: NoiseSuppressor | None = None) -> None:
        from pocketsphinx import Vad

        self.room = room
        self.vad = Vad(Vad.LOOSE, sample_rate, frame_ms / 1000)
        self.suppressor = suppressor

    def judge(self, frame: bytes, margin_db: float, number: int) -> tuple[float, bool, bool]:
        """The frame's level as this ear hears it, whether it is loud over the floor, and whether
        it is speech: loud, and speech-like or clearly loud."""
        sound = self.suppressor.process(frame) if self.suppressor is not None else frame
        room, level = self.room, energy_db(sound)
        room.learn(level, frame=number)
        loud = level > room.floor_db + margin_db
        voiced = loud and (self.vad.is_speech(sound) or level > room.floor_db + LOUD_MARGIN_DB)
        return level, loud, voiced


class Endpointer:
    """Frame-by-frame speech detector; one per audio stream (it learns that stream's noise).

    It listens to the sound as given and through its noise suppressor (:mod:`.suppress`), and
    decides on the suppressed sound only in a steady, noisy room not yet learnt (:meth:`_deciding`);
    it always emits the sound as given. Each sound has its room (:class:`.room.Room`); the given
    sound's measures how far speech stood over the room (``snr_db``) and says whether the room
    holds steady."""

    def __init__(self, *, sample_rate: int = 16000, frame_ms: int = 20, preroll_ms: int = 300,
                 max_ms: int = 4000, onset_frames: int = 3, noise_floor_db: float | None = None,
                 margin_db: float | None = None, floor_window_ms: int = 3000,
                 floor_percentile: float | None = None, suppress: bool = True,
                 neural_voice: bool = True) -> None:
        self.sample_rate = sample_rate
        self.frame_ms = frame_ms
        self.frame_bytes = sample_rate * frame_ms // 1000 * 2

        def ear(suppressor: NoiseSuppressor | None = None) -> _Ear:
            return _Ear(Room(frame_ms=frame_ms, floor_db=noise_floor_db, window_ms=floor_window_ms,
                             percentile=floor_percentile), sample_rate, frame_ms, suppressor)

        self._given = ear()
        if self._given.vad.frame_bytes != self.frame_bytes:
            raise ValueError(f"the voice detector cannot use {frame_ms} ms frames")
        # Where the suppressor's wheel is missing, the sound as given is the only one judged.
        suppressor = noise_suppressor() if suppress and sample_rate == 16000 else None
        self._suppressed = ear(suppressor) if suppressor is not None else None
        self.margin_db = ONSET_MARGIN_DB if margin_db is None else margin_db
        self._voice = _voice_likelihood() if neural_voice and sample_rate == 16000 else None
        self._history: deque[tuple[bytes, bool, float]] = deque(maxlen=max(1, preroll_ms // frame_ms))
        self._onset = onset_frames
        self._max_frames = max_ms // frame_ms
        self.in_speech = False
        self._deaf = False  # after an abandoned utterance: wait for silence
        self._silent_frames = 0
        self._speech_frames = 0
        self._frames = 0
        self._last_end_ms = -math.inf
        self._voiced_levels: list[float] = []
        self._floor_at_start = -math.inf

    def _deciding(self) -> _Ear:
        """The sound speech is judged on now: the suppressed one in a room that holds steady, has
        not yet been heard for a second, and that the suppressor takes down by
        ``SUPPRESSED_BY_DB``; else the sound as given.

        WebRTC's suppressor learns a noise that stays, a hiss, a fan or rain, and takes it down by
        11-19 dB within a fraction of a second, where the given sound's floor is a guess until
        a second of the room is heard (``room.BETWEEN_MIN_MS``): early on, at 10 dB, a word was
        then cut to half or missed. Once the room is learnt, the given sound cut the training
        voices' commands in a steady stream as well, and the suppressed one, cut a little later
        and longer, cost a command or two in twelve. Music and a babble of voices the suppressor
        hardly lessens, and its changes to the cut there made one babble command another; under
        music, where the music alone must never give a command, the endpointer stays as it was
        measured (docs/voice-experiments.md)."""
        given, suppressed = self._given.room, self._suppressed
        if (suppressed is not None and given.steady and not given.learnt
                and given.floor_db - suppressed.room.floor_db >= SUPPRESSED_BY_DB):
            return suppressed
        return self._given

    def set_noise_floor(self, db: float) -> None:
        """Start from a known ambient level (``decode_pcm``'s quiet room) instead of the first
        frame's."""
        for ear in self._ears():
            ear.room.set_floor(db)

    def reset(self) -> None:
        """Forget any utterance in progress (the game spoke over it)."""
        self.in_speech = False
        self._deaf = False
        self._last_end_ms = -math.inf
        self._history.clear()
        self._silent_frames = 0
        self._speech_frames = 0
        self._voiced_levels = []
        for ear in self._ears():
            ear.room.forget_the_word()
        if self._voice is not None:
            self._voice.reset()

    def snr_db(self) -> float:
        """The utterance so far: how loud its louder voiced frames are over the noise floor, as
        the microphone gave them.

        Not the median: a soft start or breath counts as voiced, and in a quiet room would drag
        the measure down to a few dB over silence."""
        if not self._voiced_levels:
            return math.inf
        levels = sorted(self._voiced_levels)
        # Against the louder of the floor before the speech and the floor now: the room may fall
        # quiet (or get loud) while someone speaks.
        floor = max(self._floor_at_start, self._given.room.floor_db)
        return levels[int(0.8 * (len(levels) - 1))] - floor

    def onset_margin_db(self) -> float:
        """How far over the floor a frame must stand to be speech: less in a room that holds
        steady, where nothing but a voice rises that far (``STEADY_MARGIN_DB``)."""
        return min(self.margin_db, STEADY_MARGIN_DB) if self._given.room.steady else self.margin_db

    def _ears(self) -> tuple[_Ear, ...]:
        return (self._given,) if self._suppressed is None else (self._given, self._suppressed)

    def _is_voiced(self, frame: bytes) -> tuple[bool, float]:
        """Whether the frame is speech, judged on the sound :meth:`_deciding` picks, and its level
        as given (what ``snr_db`` measures); every sound's room hears it."""
        deciding, margin = self._deciding(), self.onset_margin_db()
        judged = [(ear, *ear.judge(frame, margin, self._frames)) for ear in self._ears()]
        heard, voiced = next((level, v) for ear, level, _, v in judged if ear is deciding)
        voice_sure = self._voice is not None and self._voice.hear(frame) >= NEURAL_VOICE_MIN
        if voice_sure and not voiced and (not self.in_speech
                                          or self.snr_db() < QUICK_CLOSE_MIN_SNR_DB):
            voiced = heard > deciding.room.floor_db + NEURAL_MARGIN_DB
        for ear, level, loud, _ in judged:
            ear.room.hear(level, loud=loud, voiced=voiced, between=not self.in_speech)
        return voiced, judged[0][1]

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
        voiced, level = self._is_voiced(frame)
        if self._deaf:
            self._silent_frames = 0 if voiced else self._silent_frames + 1
            if self._silent_frames * self.frame_ms >= HANGOVER_MS[Completion.NONE]:
                self._deaf = False
                self._last_end_ms = now - self._silent_frames * self.frame_ms
                self._silent_frames = 0
            return
        if not self.in_speech:
            self._history.append((frame, voiced, level))
            recent = list(self._history)[-self._onset:]
            if len(recent) == self._onset and all(v for _, v, _ in recent):
                self.in_speech = True
                self._speech_frames = len(self._history)
                self._silent_frames = 0
                audio = b"".join(f for f, _, _ in self._history)
                self._voiced_levels = [heard for _, v, heard in self._history if v]
                # A floor learned from a frame of this very utterance (the player spoke as
                # listening began) is the word, not the room: judge it by the floor after it.
                first_frame = self._frames - len(self._history) + 1
                learned_inside = self._given.room.learned_at >= first_frame
                self._floor_at_start = -math.inf if learned_inside else self._given.room.floor_db
                self._history.clear()
                for ear in self._ears():
                    ear.room.leave_the_word_out()
                gap = now - self._onset * self.frame_ms - self._last_end_ms
                yield Utterance("start", audio, now, gap)
            return
        self._speech_frames += 1
        self._silent_frames = 0 if voiced else self._silent_frames + 1
        if voiced:
            self._voiced_levels.append(level)
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
