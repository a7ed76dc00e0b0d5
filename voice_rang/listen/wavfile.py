"""Read a 16-bit WAV recording as 16 kHz mono PCM, for ``voice-rang recognize`` and the benchmarks.

Why a pure implementation: ``audioop`` is deprecated and gone in Python 3.13, and numpy is not a
dependency of this project. Recordings are a few seconds long, so a short windowed-sinc low-pass
plus linear interpolation in plain Python is fast enough and keeps what the model needs (< 8 kHz).
"""

from __future__ import annotations

import array
import math
import sys
import wave
from pathlib import Path

__all__ = ["WavError", "read_wav_16k", "resample", "to_mono"]


class WavError(ValueError):
    """A file that is not a readable 16-bit PCM WAV: the message is one sentence for a person."""


def to_mono(samples: array.array[int], channels: int) -> array.array[int]:
    """Average interleaved channels into one."""
    if channels == 1:
        return samples
    out = array.array("h", bytes(2 * (len(samples) // channels)))
    for index in range(len(out)):
        frame = samples[index * channels:(index + 1) * channels]
        out[index] = int(sum(frame) / channels)
    return out


def _lowpass(samples: array.array[int], cutoff: float, taps: int = 31) -> list[float]:
    """Windowed-sinc FIR low-pass; ``cutoff`` is a fraction of the input rate (0..0.5)."""
    half = taps // 2
    kernel = []
    for n in range(-half, half + 1):
        x = 2 * cutoff * n
        sinc = 2 * cutoff * (math.sin(math.pi * x) / (math.pi * x) if n else 1.0)
        window = 0.54 + 0.46 * math.cos(math.pi * n / half)
        kernel.append(sinc * window)
    total = sum(kernel)
    kernel = [k / total for k in kernel]
    padded = [0.0] * half + [float(s) for s in samples] + [0.0] * half
    return [sum(k * padded[i + j] for j, k in enumerate(kernel)) for i in range(len(samples))]


def resample(samples: array.array[int], rate: int, target: int = 16000) -> array.array[int]:
    """Resample PCM16 from ``rate`` to ``target`` (low-pass first when going down)."""
    if rate == target or not samples:
        return samples
    source: list[float] | array.array[int]
    source = _lowpass(samples, 0.45 * target / rate) if target < rate else samples
    count = int(len(samples) * target / rate)
    step = rate / target
    out = array.array("h", bytes(2 * count))
    last = len(source) - 1
    for index in range(count):
        position = index * step
        left = int(position)
        frac = position - left
        right = min(left + 1, last)
        value = source[left] * (1 - frac) + source[right] * frac
        out[index] = max(-32768, min(32767, round(value)))
    return out


def read_wav_16k(path: str | Path) -> bytes:
    """The recording as 16 kHz mono little-endian PCM16, or :class:`WavError` saying why not."""
    name = str(path)
    try:
        with wave.open(name, "rb") as wav:
            width, channels, rate = wav.getsampwidth(), wav.getnchannels(), wav.getframerate()
            data = wav.readframes(wav.getnframes())
    except FileNotFoundError:
        raise WavError("no such file; check the path") from None
    except IsADirectoryError:
        raise WavError("is a directory, not a WAV file") from None
    except PermissionError:
        raise WavError("cannot be read (permission denied); check its permissions") from None
    except (wave.Error, EOFError, OSError) as error:
        detail = f" ({error})" if str(error) else ""
        raise WavError(f"is not a readable WAV file{detail}; save it as a 16-bit PCM WAV") from None
    if width != 2:
        raise WavError(f"is {8 * width}-bit; save it as a 16-bit PCM WAV")
    if channels < 1 or rate < 4000:
        raise WavError(f"has an unusable format ({channels} channels at {rate} Hz); save it as a "
                       "16-bit PCM WAV at 16 kHz")
    samples = array.array("h")
    samples.frombytes(data[: len(data) - len(data) % (2 * channels)])
    if sys.byteorder == "big":
        samples.byteswap()
    mono = resample(to_mono(samples, channels), rate)
    if sys.byteorder == "big":
        mono.byteswap()
    return mono.tobytes()
