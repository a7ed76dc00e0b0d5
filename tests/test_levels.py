"""Frame levels and the echo rule: pure arithmetic, checked on made-up level tracks."""

from __future__ import annotations

import array
import math
import random

from hypothesis import given
from hypothesis import strategies as st

from voice_rang.listen.levels import (
    ECHO_DECAY_DB_PER_S,
    ECHO_RISE_DB,
    PRESUMED_SNR_DB,
    energy_db,
    is_echo,
    presumed_floor_db,
)

WORD = [55.0, 68.0, 70.0, 70.0]
"""A word's level track ending at frame 3."""


def tone(amplitude: int, samples: int = 160) -> bytes:
    return array.array("h", (round(amplitude * math.sin(n / 3)) for n in range(samples))).tobytes()


def test_a_louder_frame_has_a_higher_level_and_silence_is_zero() -> None:
    assert energy_db(bytes(320)) == 0.0
    assert energy_db(tone(1000)) + 19 < energy_db(tone(10000)) < energy_db(tone(1000)) + 21


def test_a_recording_with_silence_in_it_holds_its_room() -> None:
    clip = tone(8000, 480) + bytes(3200) + tone(9000, 320)
    assert presumed_floor_db(clip, 320, 10) is None
    assert presumed_floor_db(b"\0" * 10, 320, 10) is None


def test_steady_noise_around_the_words_is_the_room_even_when_loud() -> None:
    rng = random.Random(3)
    noise = array.array("h", (round(rng.gauss(0, 800)) for _ in range(16000))).tobytes()
    clip = noise[:8000] + tone(9000, 3200) + noise[8000:]
    assert presumed_floor_db(clip, 640, 20) is None


def test_a_recording_with_no_stretch_of_room_is_presumed_made_in_a_quiet_room() -> None:
    clip = tone(8000, 480) + tone(5000, 320)
    loudest = max(energy_db(clip[offset:offset + 320]) for offset in range(0, len(clip), 320))
    assert presumed_floor_db(clip, 320, 10) == loudest - PRESUMED_SNR_DB


@given(rate=st.floats(min_value=ECHO_DECAY_DB_PER_S * 1.2, max_value=400.0),
       frames=st.integers(min_value=1, max_value=60),
       wobble=st.lists(st.floats(min_value=-1.5, max_value=1.5), min_size=60, max_size=60))
def test_a_tail_dying_away_faster_than_a_room_echo_is_an_echo(
        rate: float, frames: int, wobble: list[float]) -> None:
    tail = [WORD[-1] - rate * 0.01 * (n + 1) + wobble[n] for n in range(frames)]
    assert is_echo(WORD + tail, len(WORD) - 1, len(WORD) - 1 + frames)


@given(dip=st.floats(min_value=8.0, max_value=30.0),
       climb=st.floats(min_value=ECHO_RISE_DB + 4.0, max_value=30.0))
def test_a_tail_that_climbs_back_after_a_dip_is_a_new_syllable(dip: float, climb: float) -> None:
    low = WORD[-1] - dip
    tail = [low, low, low, low + climb, low + climb, low + climb]
    assert not is_echo(WORD + tail, len(WORD) - 1, len(WORD) - 1 + len(tail))


@given(frames=st.integers(min_value=12, max_value=40))
def test_a_tail_held_at_the_words_level_is_speech_going_on(frames: int) -> None:
    tail = [WORD[-1] - 1.0] * frames
    assert not is_echo(WORD + tail, len(WORD) - 1, len(WORD) - 1 + frames)


def test_a_tail_louder_than_the_word_is_not_its_echo() -> None:
    assert not is_echo([*WORD, 76.0, 74.0, 72.0], len(WORD) - 1, len(WORD) + 2)


def test_no_tail_or_a_tail_past_the_audio_is_not_an_echo() -> None:
    assert not is_echo(WORD, 3, 3)
    assert not is_echo([*WORD, 60.0], 3, 9)
