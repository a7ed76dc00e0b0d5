"""Read a WAV recording as 16 kHz mono PCM16, for ``voice-rang recognize`` and the benchmarks.

Why a pure implementation: ``audioop`` is deprecated and gone in Python 3.13, and numpy is not a
dependency of this project. Recordings are a few seconds long, so a short windowed-sinc low-pass
plus linear interpolation in plain Python is fast enough and keeps what the model needs (< 8 kHz).

Why the RIFF chunks are read here and not by :mod:`wave`: before Python 3.12 it refuses
``WAVE_FORMAT_EXTENSIBLE``, the header many recorders write for 24-bit and 32-bit audio (and some
for plain 16-bit), and it has no floating-point samples. A recording of someone saying "turn" in
any of those is still a recording the recogniser can hear: 24-bit, 32-bit and floating-point
samples are reduced to 16 bits, which is all the model's front end uses.
"""

from __future__ import annotations

import array
import math
import struct
import sys
from pathlib import Path

__all__ = ["WavError", "read_wav_16k", "resample", "to_mono"]


class WavError(ValueError):
    """A file that is not a readable WAV recording: the message is one sentence for a person."""


_PCM, _FLOAT, _EXTENSIBLE = 1, 3, 0xFFFE
"""``wFormatTag`` values: integer samples, floating-point samples, and the extensible header
whose sub-format (the first two bytes of its GUID) is one of the other two."""

_ADVICE = "save it as a 16-bit PCM WAV"


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


def _chunks(blob: bytes) -> dict[bytes, bytes]:
    """The body of each chunk of a RIFF/WAVE file by name (the first of a name counts), with a
    ``fmt `` and a ``data`` chunk at least. A chunk cut short by a truncated file keeps what is
    there: a recording whose end was lost still holds its start."""
    if len(blob) < 12 or blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise WavError(f"is not a readable WAV file; {_ADVICE}")
    found: dict[bytes, bytes] = {}
    position = 12
    while position + 8 <= len(blob):
        name, size = blob[position:position + 4], int.from_bytes(blob[position + 4:position + 8], "little")
        found.setdefault(name, blob[position + 8:position + 8 + size])
        position += 8 + size + (size & 1)
    if b"fmt " not in found or b"data" not in found:
        raise WavError(f"is not a readable WAV file (no {'format' if b'fmt ' not in found else 'audio'} "
                       f"chunk); {_ADVICE}")
    return found


def _to_pcm16(data: bytes, tag: int, bits: int) -> array.array[int]:
    """Samples of any supported encoding as native 16-bit integers."""
    samples = array.array("h")
    if tag == _PCM and bits in (16, 24, 32):
        width = bits // 8
        data = data[: len(data) - len(data) % width]
        if width > 2:
            high = bytearray(2 * (len(data) // width))  # the two most significant bytes of each
            high[0::2], high[1::2] = data[width - 2::width], data[width - 1::width]
            data = bytes(high)
        samples.frombytes(data)
        if sys.byteorder == "big":
            samples.byteswap()
    elif tag == _FLOAT and bits in (32, 64):
        values = array.array("f" if bits == 32 else "d")
        values.frombytes(data[: len(data) - len(data) % values.itemsize])
        if sys.byteorder == "big":
            values.byteswap()
        samples.extend(max(-32768, min(32767, round(v * 32768))) if math.isfinite(v) else 0
                       for v in values)
    elif tag in (_PCM, _FLOAT):
        raise WavError(f"is {bits}-bit; {_ADVICE}")
    else:
        raise WavError(f"is not a readable WAV file (compressed, format {tag}); {_ADVICE}")
    return samples


def read_wav_16k(path: str | Path) -> bytes:
    """The recording as 16 kHz mono little-endian PCM16, or :class:`WavError` saying why not."""
    try:
        blob = Path(path).read_bytes()
    except FileNotFoundError:
        raise WavError("no such file; check the path") from None
    except IsADirectoryError:
        raise WavError("is a directory, not a WAV file") from None
    except PermissionError:
        raise WavError("cannot be read (permission denied); check its permissions") from None
    except OSError as error:
        raise WavError(f"cannot be read ({error.strerror or error}); check the file") from None
    chunks = _chunks(blob)
    header = chunks[b"fmt "]
    if len(header) < 16:
        raise WavError(f"is not a readable WAV file (its format chunk is cut short); {_ADVICE}")
    tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", header[:16])
    if tag == _EXTENSIBLE and len(header) >= 26:
        tag = struct.unpack("<H", header[24:26])[0]
    if channels < 1 or rate < 4000:
        raise WavError(f"has an unusable format ({channels} channels at {rate} Hz); {_ADVICE} "
                       "at 16 kHz")
    samples = _to_pcm16(chunks[b"data"], tag, bits)
    del samples[len(samples) - len(samples) % channels:]
    mono = resample(to_mono(samples, channels), rate)
    if sys.byteorder == "big":
        mono.byteswap()
    return mono.tobytes()
