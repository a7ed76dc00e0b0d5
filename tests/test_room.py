"""The room: the noise floor speech is judged against, and whether the room holds steady."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from voice_rang.listen.room import Room


def _hear(room: Room, levels: list[float], *, voiced: bool = False) -> None:
    for level in levels:
        room.learn(level, frame=1)
        room.hear(level, loud=voiced, voiced=voiced, between=True)


def test_a_room_is_learnt_after_a_second_between_utterances_and_not_before() -> None:
    room = Room(frame_ms=20)
    _hear(room, [40.0] * 49)
    assert not room.learnt
    _hear(room, [40.0])
    assert room.learnt


def test_a_hiss_holds_steady_and_a_room_that_swings_by_10_db_does_not() -> None:
    hiss, swinging = Room(frame_ms=20), Room(frame_ms=20)
    _hear(hiss, [40.0, 40.5] * 30)
    _hear(swinging, [35.0, 45.0] * 30)
    assert hiss.steady and not swinging.steady


def test_a_words_first_frames_are_left_out_of_a_steady_room() -> None:
    def after_a_word(left_out: bool) -> Room:
        room = Room(frame_ms=20)
        _hear(room, [40.0] * 10)
        _hear(room, [60.0] * 3, voiced=True)  # a word's first frames, before its onset is confirmed
        if left_out:
            room.leave_the_word_out()
        else:
            room.forget_the_word()
        _hear(room, [40.0])
        return room

    assert after_a_word(left_out=True).steady
    assert not after_a_word(left_out=False).steady


@given(st.lists(st.floats(min_value=0.0, max_value=100.0), min_size=1, max_size=300))
def test_the_floor_never_rises_above_the_loudest_level_heard(levels: list[float]) -> None:
    room = Room(frame_ms=20)
    _hear(room, levels)
    assert room.floor_db <= max(levels) + 1e-9
