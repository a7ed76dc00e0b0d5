"""Text in, 16-bit mono PCM chunks out, through pyttsx3's synthesizer and never its playback.

Why not ``engine.say()``/``runAndWait()``: on Linux pyttsx3's espeak driver collects the whole
utterance, writes a temporary WAV and runs ``aplay`` on it, which cannot be interrupted, spawns
a process per message and is known to hang. We only want the samples.

On Linux (espeak-ng) pyttsx3's espeak driver initialises libespeak-ng for *retrieval*: samples
come back through a synth callback. We keep that engine (voices, properties, the library
handle) but switch libespeak-ng's output to synchronous mode with short buffers
(``espeak_ng_InitializeOutput``), install our own callback and call ``espeak_Synth`` ourselves.
Each buffer (about 50 ms of audio) is handed on while the rest is still being synthesized, so
the first audio reaches the player after a fraction of a millisecond, and a cancelled utterance
stops synthesis at the next buffer.

Elsewhere (SAPI5 on Windows, NSSpeechSynthesizer on macOS) we fall back to pyttsx3's
``save_to_file`` into a temporary WAV and read it back: slower to start, same PCM contract.

libespeak-ng is one synthesizer per process, so all espeak work here holds one lock.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import tempfile
import threading
import wave
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "ChunkSink",
    "EspeakSynth",
    "FileSynth",
    "SynthUnavailable",
    "Synthesizer",
    "VoiceInfo",
    "checked_voice",
    "open_synthesizer",
    "voice_infos",
]

ChunkSink = Callable[[bytes], bool]
"""Receives one chunk of PCM16 mono audio; returns False to abort the utterance."""

_BUFFER_MS = 20
_ENOUTPUT_MODE_SYNCHRONOUS = 0x0001
_CHARS_UTF8 = 1
_espeak_lock = threading.RLock()


class SynthUnavailable(Exception):
    """No speech synthesizer could be started; the message is one sentence for a person."""


@dataclass(frozen=True)
class VoiceInfo:
    """A voice the synthesizer offers: ``id`` is what ``voice=`` accepts."""

    id: str
    name: str
    languages: tuple[str, ...] = ()


class Synthesizer(Protocol):
    """What :class:`~voice_rang.speech.spoken.SpeechOutput` needs from a synthesizer."""

    name: str

    @property
    def sample_rate(self) -> int:
        """Samples per second of every chunk this synthesizer produces (mono, 16-bit)."""
        ...

    def render(
        self, text: str, sink: ChunkSink, *, rate: int, volume: float, voice: str | None
    ) -> bool:
        """Synthesize ``text``, handing chunks to ``sink`` as they are made; False if aborted."""
        ...

    def voices(self) -> list[VoiceInfo]:
        """The voices on offer."""
        ...

    def check_voice(self, voice: str) -> str:
        """The voice id to use for ``voice`` (an id or a name); raises ``SynthUnavailable``."""
        ...


def voice_infos(raw_voices: Any) -> list[VoiceInfo]:
    """pyttsx3's voices as :class:`VoiceInfo` (its drivers give languages as bytes or text)."""
    infos = []
    for voice in raw_voices or []:
        languages: tuple[str, ...] = ()
        for language in getattr(voice, "languages", None) or []:
            if isinstance(language, bytes):
                language = language.decode("utf-8", "replace")
            languages += (str(language),)
        infos.append(VoiceInfo(id=str(voice.id), name=str(voice.name), languages=languages))
    return infos


def checked_voice(voices: list[VoiceInfo], voice: str) -> str:
    """The id of the voice asked for, or one sentence saying there is none."""
    found = _match_voice(voices, voice)
    if found is None:
        raise SynthUnavailable(f"No voice named {voice!r}: run voice-rang doctor to list the voices.")
    return found.id


def _match_voice(voices: list[VoiceInfo], wanted: str) -> VoiceInfo | None:
    key = wanted.strip().casefold()
    for voice in voices:
        if key in (voice.id.casefold(), voice.name.casefold()):
            return voice
    for voice in voices:
        if voice.id.casefold().rsplit("/", 1)[-1] == key:
            return voice
    # Among partial matches the shortest id is the plainest variant ("gmw/en" for "english").
    by_id = sorted(voices, key=lambda voice: (len(voice.id), voice.id))
    for voice in by_id:
        if key and voice.name.casefold().startswith(key):
            return voice
    for voice in by_id:
        if key and key in voice.name.casefold():
            return voice
    return None


class EspeakSynth:
    """libespeak-ng through pyttsx3's espeak driver, streaming PCM buffers as they are made."""

    name = "espeak-ng"

    def __init__(self) -> None:
        try:
            import pyttsx3
            from pyttsx3.drivers import _espeak
            from pyttsx3.drivers.espeak import EspeakDriver
        except Exception as error:  # ImportError, or RuntimeError when libespeak-ng is missing
            raise SynthUnavailable(
                "No speech synthesizer found: install espeak-ng (sudo apt-get install "
                "espeak-ng libespeak-ng1), or play with your screen reader."
            ) from error
        with _espeak_lock:
            try:
                # Loads the library and voice data once; kept for the life of the process.
                self._engine = pyttsx3.init("espeak")
            except Exception as error:
                raise SynthUnavailable(
                    f"The espeak-ng speech synthesizer would not start ({error}): reinstall "
                    "espeak-ng-data, or play with your screen reader."
                ) from error
            self._espeak = _espeak
            self._driver_class = EspeakDriver
            dll = _espeak.dll
            # Let the driver's queued start-up settings (voice, rate) land before switching
            # libespeak-ng from asynchronous retrieval to synchronous, short-buffer output.
            with contextlib.suppress(AttributeError):
                dll.espeak_Synchronize()
            initialize_output = dll.espeak_ng_InitializeOutput
            initialize_output.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p]
            initialize_output.restype = ctypes.c_int
            status = initialize_output(_ENOUTPUT_MODE_SYNCHRONOUS, _BUFFER_MS, None)
            if status != 0:
                raise SynthUnavailable(
                    f"The espeak-ng speech synthesizer refused synchronous output "
                    f"(status {status}): play with your screen reader."
                )
            self._callback = _espeak.t_espeak_callback(self._on_synth)
            self._sink: ChunkSink | None = None
            self._applied: tuple[int, float, str | None] | None = None
            self._sample_rate = 22050
            with contextlib.suppress(AttributeError):
                get_rate = dll.espeak_ng_GetSampleRate
                get_rate.restype = ctypes.c_int
                self._sample_rate = int(get_rate()) or 22050
            self._voices: list[VoiceInfo] | None = None

    @property
    def sample_rate(self) -> int:
        return self._sample_rate

    def voices(self) -> list[VoiceInfo]:
        with _espeak_lock:
            if self._voices is None:
                self._voices = voice_infos(self._driver_class.getProperty("voices"))
            return list(self._voices)

    def check_voice(self, voice: str) -> str:
        return checked_voice(self.voices(), voice)

    def default_voice(self) -> str | None:
        """The voice used when none is asked for (pyttsx3's choice at start-up)."""
        return self._driver_class._defaultVoice or None

    def _on_synth(self, wav: Any, numsamples: int, events: Any) -> int:
        """libespeak-ng's synth callback: 0 to go on, 1 to abort. Must never raise."""
        del events
        try:
            sink = self._sink
            if sink is None:
                return 1
            if numsamples > 0 and wav and not sink(ctypes.string_at(wav, numsamples * 2)):
                return 1
            return 0
        except BaseException:
            return 1

    def _apply(self, rate: int, volume: float, voice: str | None) -> None:
        wanted = (rate, volume, voice)
        if self._applied == wanted:
            return
        driver = self._driver_class
        if voice is not None:
            driver.setProperty("voice", voice)
        driver.setProperty("rate", int(rate))
        driver.setProperty("volume", float(volume))
        self._applied = wanted

    def render(
        self, text: str, sink: ChunkSink, *, rate: int, volume: float, voice: str | None
    ) -> bool:
        """Synthesize in this thread; ``sink`` sees each buffer before the next is made."""
        completed = True

        def guarded(chunk: bytes) -> bool:
            nonlocal completed
            keep_going = sink(chunk)
            completed = completed and keep_going
            return keep_going

        with _espeak_lock:
            self._apply(rate, volume, voice)
            self._sink = guarded
            try:
                # Re-install our callback every time: a pyttsx3 driver built later by anyone
                # else in this process would have replaced it with its own.
                self._espeak.cSetSynthCallback(self._callback)
                status = self._espeak.Synth(text.encode("utf-8"), flags=_CHARS_UTF8)
            finally:
                self._sink = None
        if status not in (0, None):
            raise RuntimeError(f"espeak_Synth failed with status {status}")
        return completed


class FileSynth:
    """Any other pyttsx3 driver (SAPI5, NSSpeechSynthesizer): render to a WAV file, read it back.

    Portable but not streaming: the first chunk comes only once the whole message is made.
    """

    name = "pyttsx3"

    def __init__(self, driver_name: str | None = None) -> None:
        try:
            import pyttsx3

            self._engine = pyttsx3.init(driver_name)
        except Exception as error:
            raise SynthUnavailable(
                f"No speech synthesizer could start ({error}): play with your screen reader."
            ) from error
        self._lock = threading.Lock()
        self._sample_rate = 0
        self.render("ready", lambda chunk: True, rate=200, volume=1.0, voice=None)
        if not self._sample_rate:
            raise SynthUnavailable(
                "The speech synthesizer made no audio: play with your screen reader."
            )

    @property
    def sample_rate(self) -> int:
        return self._sample_rate

    def voices(self) -> list[VoiceInfo]:
        with self._lock:
            return voice_infos(self._engine.getProperty("voices"))

    def check_voice(self, voice: str) -> str:
        return checked_voice(self.voices(), voice)

    def render(
        self, text: str, sink: ChunkSink, *, rate: int, volume: float, voice: str | None
    ) -> bool:
        handle, path = tempfile.mkstemp(suffix=".wav", prefix="voice-rang-")
        os.close(handle)
        try:
            with self._lock:
                if voice is not None:
                    self._engine.setProperty("voice", voice)
                self._engine.setProperty("rate", int(rate))
                self._engine.setProperty("volume", float(volume))
                self._engine.save_to_file(text, path)
                self._engine.runAndWait()
            with wave.open(path, "rb") as wav:
                if wav.getsampwidth() != 2:
                    raise RuntimeError("the synthesizer wrote audio that is not 16-bit")
                rate_hz = wav.getframerate()
                channels = wav.getnchannels()
                frames = wav.readframes(wav.getnframes())
            if channels == 2:
                frames = _stereo_to_mono(frames)
            if self._sample_rate and rate_hz != self._sample_rate:
                raise RuntimeError("the synthesizer changed its sample rate")
            self._sample_rate = rate_hz
        finally:
            with contextlib.suppress(OSError):
                os.remove(path)
        step = rate_hz // 20 * 2
        return all(sink(frames[start:start + step]) for start in range(0, len(frames), step))


def _stereo_to_mono(frames: bytes) -> bytes:
    import array

    samples = array.array("h", frames)
    if sys.byteorder == "big":
        samples.byteswap()
    mono = array.array("h", ((samples[i] + samples[i + 1]) // 2
                             for i in range(0, len(samples) - 1, 2)))
    if sys.byteorder == "big":
        mono.byteswap()
    return mono.tobytes()


_shared: Synthesizer | None = None
_shared_lock = threading.Lock()


def open_synthesizer() -> Synthesizer:
    """The process's synthesizer, started once and kept warm for every later message.

    espeak-ng streams on Linux (and wherever libespeak-ng is installed); other platforms use
    pyttsx3's default driver through a WAV file. Raises :class:`SynthUnavailable`.
    """
    global _shared
    with _shared_lock:
        if _shared is not None:
            return _shared
        synth: Synthesizer
        if sys.platform in ("win32", "darwin"):
            try:
                synth = FileSynth(None)
            except SynthUnavailable:
                synth = EspeakSynth()
        else:
            synth = EspeakSynth()
        _shared = synth
        return synth
