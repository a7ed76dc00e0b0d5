"""How a clean take is made to sound like a player in a real room: speed and pitch, a simulated
room, noise of several colours, babble and music-like sound at 0-30 dB, real recorded music (a radio:
``radio``, given the tracks), level and clipping, and the framing the endpointer gives an utterance
(some room before it, the closing silence after).

Deterministic: every function takes a ``numpy.random.Generator``.
"""

from __future__ import annotations

import numpy as np
from variants import resample, shift_formants  # beside this module: whoever imports it has scripts/ on the path

RATE = 16000
NOISES = ("white", "pink", "brown", "babble", "music")
"""The noises of the main training takes. ``radio`` (recorded music) is kept apart, so that adding
it does not change the random draws, and so the takes, of a recipe made without it."""
RADIO = "radio"


def trim(samples: np.ndarray) -> np.ndarray:
    """Cut the synthesiser's silence: from 40 dB under the peak, in 10 ms frames."""
    if len(samples) < 160:
        return samples
    frames = samples[: len(samples) // 160 * 160].reshape(-1, 160)
    level = 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-3)
    loud = np.nonzero(level > level.max() - 40)[0]
    if len(loud) == 0:
        return samples
    return samples[loud[0] * 160:(loud[-1] + 1) * 160]


def room_response(rng: np.random.Generator, rt60: float) -> np.ndarray:
    """A synthetic impulse response: the direct sound, a few early reflections, and a diffuse
    tail of noise dying away at ``rt60`` (60 dB in that many seconds), low-passed a little as
    walls and furniture do."""
    length = int(RATE * min(1.5, rt60 * 1.1))
    t = np.arange(length) / RATE
    tail = rng.standard_normal(length) * np.exp(-6.9 * t / rt60)
    tail[: int(0.004 * RATE)] = 0.0
    smooth = np.ones(rng.integers(1, 4)) / 1.0
    tail = np.convolve(tail, smooth / smooth.sum(), mode="same")
    response = tail * 10 ** (rng.uniform(-18, -6) / 20) / (np.sqrt(np.sum(tail ** 2)) + 1e-9)
    response[0] = 1.0
    for _ in range(rng.integers(2, 6)):
        delay = int(rng.uniform(0.003, 0.03) * RATE)
        response[delay] += rng.uniform(0.2, 0.7) * rng.choice([-1, 1])
    return response.astype(np.float32)


def convolve(samples: np.ndarray, response: np.ndarray) -> np.ndarray:
    size = len(samples) + len(response) - 1
    n = 1 << (size - 1).bit_length()
    out = np.fft.irfft(np.fft.rfft(samples, n) * np.fft.rfft(response, n), n)[: len(samples) + len(response) // 2]
    return out.astype(np.float32)


def coloured(rng: np.random.Generator, count: int, colour: str) -> np.ndarray:
    """White, pink (1/f power) or brown (1/f^2) noise, unit power."""
    spectrum = np.fft.rfft(rng.standard_normal(count))
    f = np.maximum(np.fft.rfftfreq(count, 1 / RATE), 20.0)
    if colour == "pink":
        spectrum /= np.sqrt(f)
    elif colour == "brown":
        spectrum /= f
    noise = np.fft.irfft(spectrum, count)
    return (noise / (np.std(noise) + 1e-9)).astype(np.float32)


def music(rng: np.random.Generator, count: int) -> np.ndarray:
    """Something like a radio playing music: notes of a few harmonics with a bass line and
    drum hits, changing every 0.15-0.6 s."""
    out = np.zeros(count, dtype=np.float32)
    position = 0
    while position < count:
        length = min(count - position, int(rng.uniform(0.15, 0.6) * RATE))
        t = np.arange(length) / RATE
        note = np.zeros(length)
        for _ in range(rng.integers(1, 4)):
            f0 = 110 * 2 ** (rng.integers(0, 36) / 12)
            for h in range(1, rng.integers(3, 9)):
                note += np.sin(2 * np.pi * f0 * h * t + rng.uniform(0, 6.3)) / h ** rng.uniform(1, 2)
        note += 0.8 * np.sin(2 * np.pi * 55 * 2 ** (rng.integers(0, 12) / 12) * t)
        note *= np.minimum(1, t / 0.01) * np.exp(-t * rng.uniform(1, 6))
        if rng.random() < 0.5:
            hit = rng.standard_normal(min(length, 1600)) * np.exp(-np.arange(min(length, 1600)) / 300)
            note[: len(hit)] += 2 * hit
        out[position:position + length] = note
        position += length
    return out / (np.std(out) + 1e-9)


def recorded(rng: np.random.Generator, count: int, tracks: list[np.ndarray]) -> np.ndarray:
    """A radio: a random stretch of one of ``tracks`` (recorded music, 16 kHz), unit power."""
    track = tracks[int(rng.integers(len(tracks)))]
    start = int(rng.integers(0, max(1, len(track) - count)))
    piece = np.pad(track[start:start + count], (0, max(0, count - (len(track) - start))))
    return (piece / (np.std(piece) + 1e-9)).astype(np.float32)


def babble(rng: np.random.Generator, count: int, talk: list[np.ndarray]) -> np.ndarray:
    """Three to six people talking at once: sentences of ``talk`` overlapped."""
    out = np.zeros(count, dtype=np.float32)
    for _ in range(rng.integers(3, 7)):
        speech = np.concatenate([talk[rng.integers(len(talk))] for _ in range(4)])
        start = rng.integers(0, max(1, len(speech) - count))
        piece = speech[start:start + count]
        out[: len(piece)] += piece / (np.std(piece) + 1e-9)
    return out / (np.std(out) + 1e-9)


def noise(rng: np.random.Generator, kind: str, count: int, talk: list[np.ndarray],
          tracks: list[np.ndarray] | None = None) -> np.ndarray:
    if kind == RADIO and tracks:
        return recorded(rng, count, tracks)
    if kind == "babble" and talk:
        return babble(rng, count, talk)
    if kind == "music":
        return music(rng, count)
    return coloured(rng, count, kind if kind in ("pink", "brown") else "white")


def speech_power(samples: np.ndarray) -> float:
    """Power of the speech itself (samples above 2 % of the peak), as the corpus measures SNR."""
    peak = np.max(np.abs(samples)) + 1e-9
    voiced = samples[np.abs(samples) > 0.02 * peak]
    return float(np.mean(voiced ** 2)) if len(voiced) else float(np.mean(samples ** 2) + 1e-9)


def frame(rng: np.random.Generator, speech: np.ndarray) -> np.ndarray:
    """Put room around the speech as the endpointer cuts an utterance: 150-450 ms before (its
    300 ms pre-roll, give or take the onset), 100-600 ms after (its closing silence)."""
    before = np.zeros(int(rng.uniform(0.15, 0.45) * RATE), dtype=np.float32)
    after = np.zeros(int(rng.uniform(0.1, 0.6) * RATE), dtype=np.float32)
    return np.concatenate([before, speech, after])


def new_speaker(rng: np.random.Generator, speech: np.ndarray) -> tuple[np.ndarray, str]:
    """A take made to sound like someone else: formants shifted (0.8-1.25x, a child's or a large
    man's vocal tract) and pitch and pace moved apart from them (a tape change of 0.85-1.18x),
    so that formants and pitch vary independently, as they do between people."""
    alpha = float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
    tape = float(np.exp(rng.uniform(np.log(0.85), np.log(1.18))))
    speech = shift_formants(resample(speech, tape), alpha / tape)
    return speech, f"formants x{alpha:.2f}, pitch x{tape:.2f}"


def repitch(samples: np.ndarray, ratio: float) -> np.ndarray:
    """The pitch moved ``ratio`` times, the pace kept (sox's ``pitch``: a tape change, then the
    tempo put back by overlapping and adding); the formants move with the pitch."""
    import subprocess

    cents = 1200 * np.log2(ratio)
    raw = np.clip(samples, -32768, 32767).astype("<i2").tobytes()
    spec = ["-t", "raw", "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed-integer"]
    out = subprocess.run(["sox", *spec, "-", *spec, "-", "pitch", f"{cents:.0f}"], input=raw,
                         capture_output=True, check=True).stdout
    return np.frombuffer(out, dtype="<i2").astype(np.float32)


def other_speaker(rng: np.random.Generator, speech: np.ndarray) -> tuple[np.ndarray, str]:
    """A take made to sound like someone much higher or lower: a woman or a child from a man's
    voice, a man from a woman's. The pitch moves 0.6-2x with the pace kept, and the formants with
    it as between people (a higher voice has the shorter vocal tract, formants about the pitch
    ratio to the 0.3, give or take 8 %)."""
    ratio = float(np.exp(rng.uniform(np.log(0.6), np.log(2.0))))
    alpha = float(ratio ** 0.3 * rng.uniform(0.92, 1.08))
    speech = shift_formants(repitch(speech, ratio), alpha / ratio)
    return speech, f"pitch x{ratio:.2f}, formants x{alpha:.2f}"


def condition(rng: np.random.Generator, speech: np.ndarray, talk: list[np.ndarray], *,
              clean_share: float = 0.2, new_speaker_share: float = 0.0, other_speaker_share: float = 0.0,
              noises: tuple[str, ...] = NOISES,
              tracks: list[np.ndarray] | None = None) -> tuple[np.ndarray, str]:
    """One take heard in a random room and noise (one of ``noises``; ``radio`` plays a stretch of
    ``tracks``); its samples and a short description. ``new_speaker_share`` of the takes are first
    made to sound like another speaker; of those, ``other_speaker_share`` like someone much
    higher or lower (:func:`other_speaker`)."""
    described = []
    speech = resample(trim(speech), float(rng.uniform(0.9, 1.1)))
    if new_speaker_share > 0 and rng.random() < new_speaker_share:
        far = other_speaker_share > 0 and rng.random() < other_speaker_share
        speech, voice = other_speaker(rng, speech) if far else new_speaker(rng, speech)
        described.append(voice)
    speech = frame(rng, speech)
    if rng.random() < 0.5:
        rt60 = float(rng.uniform(0.15, 1.0))
        speech = convolve(speech, room_response(rng, rt60))
        described.append(f"room {rt60:.1f}s")
    level = 10 ** (rng.uniform(-32, -4) / 20) * 32767
    speech = speech / (np.max(np.abs(speech)) + 1e-9) * level
    if rng.random() >= clean_share:
        kind = noises[rng.integers(len(noises))]
        snr = float(rng.uniform(0, 30))
        mixed = noise(rng, kind, len(speech), talk, tracks)
        speech = speech + mixed * np.sqrt(speech_power(speech) / 10 ** (snr / 10))
        described.append(f"{kind} {snr:.0f}dB")
    else:
        speech = speech + rng.standard_normal(len(speech)).astype(np.float32) * rng.uniform(0.5, 20)
    if rng.random() < 0.03:
        speech = speech * 3
        described.append("clipped")
    return np.clip(speech, -32768, 32767).astype(np.float32), ", ".join(described) or "clean"


def noise_alone(rng: np.random.Generator, talk: list[np.ndarray], noises: tuple[str, ...] = NOISES,
                tracks: list[np.ndarray] | None = None) -> tuple[np.ndarray, str]:
    """Room sound with nobody speaking a command: what the endpointer may still cut out."""
    count = int(rng.uniform(0.4, 2.4) * RATE)
    kind = noises[rng.integers(len(noises))]
    level = 10 ** (rng.uniform(-40, -8) / 20) * 32767
    sound = noise(rng, kind, count, talk, tracks) * level / 3
    return np.clip(sound, -32768, 32767).astype(np.float32), f"{kind} alone"
