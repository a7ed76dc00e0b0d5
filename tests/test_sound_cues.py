"""Sound cues through the test sound card: heard at the speaker when their event happens, in
order with the words, and silenced by ``stop`` like them.

The speaker's monitor is recorded on the ``time.monotonic()`` clock (``speaker_tap``); each cue
is found in the recording by normalised cross-correlation with its own waveform
(``cue_finder``), so what is checked is the sound that played, not what the program says it did.
A correlation of 0.5 counts as heard: no two cues, nor a cue and speech, come near it
(``test_cues.py``), and a busy machine's playback gaps lower the match of the right one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from random import Random

import numpy as np
import pytest
from cue_finder import RATE, best_match, cue_template, find_cue, ncc
from speaker_tap import SpeakerTap
from test_play import VOICE_RANG

from voice_rang.games.rang_milanti import Game, Revealed
from voice_rang.messages import Message, Priority
from voice_rang.speech import SpeechOutput

pytestmark = pytest.mark.audio

LOUD = 300.0
QUIET = 30.0
TAP_LEAD_S = 0.05


def recorded(tap: SpeakerTap, start: float, end: float) -> np.ndarray:
    samples, _ = tap._window(start, end)
    return np.frombuffer(samples.tobytes(), dtype=np.int16).astype(np.float64)


def test_each_cue_is_heard_at_the_speaker_just_before_its_words(
        speech: SpeechOutput, tap: SpeakerTap) -> None:
    for name in ("miss", "capture you 9", "capture other 3", "your turn", "reshuffle", "won"):
        before = len(speech.cues_played)
        said = time.monotonic()
        speech.say(Message("Spades on hearts.", cue=name))
        assert speech.wait_until_done(timeout=10)
        done = time.monotonic()
        # From a little before ``said``: a cue written over the idle cushion starts at once, and
        # the tap (good to tens of ms) has placed its first samples up to 8 ms before ``said``,
        # which cut the start off a window opened at ``said``. The quiet check below covers
        # that lead-in too.
        audio = recorded(tap, said - TAP_LEAD_S, done + 0.3)
        found = find_cue(audio, name, threshold=0.5)
        assert found is not None, f"{name} never reached the speaker"
        at, _score = found
        heard_at = said - TAP_LEAD_S + at / RATE
        played_name, handed_at = speech.cues_played[before]
        assert played_name == name
        # heard once played (the tap places samples to within a few tens of ms) and before the
        # words it opens were done
        assert handed_at - 0.05 < heard_at < done, (name, heard_at - handed_at)
        cue_end = at + len(cue_template(name))
        quiet_before = audio[:max(at - 800, 0)]  # 50 ms: a strum or riffle may align a little late
        assert not len(quiet_before) or np.sqrt(np.mean(quiet_before ** 2)) < QUIET, name
        words = audio[cue_end:]
        assert np.sqrt(np.mean(words ** 2)) > LOUD, "the words did not follow the cue"
        assert speech.spoken_texts[-1] == "Spades on hearts."
        time.sleep(0.2)


@contextmanager
def interpreter_held_again_and_again(hold_s: float) -> Iterator[list[float]]:
    """A thread that holds the interpreter lock for ``hold_s`` at a time, a few times a second:
    the play thread cannot run meanwhile. Yields the holds' measured lengths.

    The thread spins on the clock with the switch interval set longer than a hold, so no other
    thread is let in until the hold is over: the holds last ``hold_s`` of wall time however busy
    the machine is (a sort of a list sized beforehand ran to more than twice its length beside a
    busy neighbour, past the buffer whose worth the test is about)."""
    rng = Random(7)
    holds: list[float] = []
    done = threading.Event()

    def hold() -> None:
        while not done.is_set():
            began = time.monotonic()
            while time.monotonic() - began < hold_s:
                pass
            holds.append(time.monotonic() - began)
            done.wait(rng.uniform(0.02, 0.06))

    previous = sys.getswitchinterval()
    sys.setswitchinterval(max(4 * hold_s, 1.0))
    worker = threading.Thread(target=hold, daemon=True)
    worker.start()
    try:
        yield holds
    finally:
        done.set()
        worker.join()
        sys.setswitchinterval(previous)


def test_cues_reach_the_speaker_whole_while_the_play_thread_is_held_up(
        speech: SpeechOutput, tap: SpeakerTap) -> None:
    """A loaded machine holds the play thread up for a tenth of a second and more (measured:
    docs/robustness.md): longer than PortAudio's buffer, so through it such a stall is a hole
    that breaks the cue; the sound server's own buffer outlasts it."""
    names = ["miss", "capture you 9", "capture other 3", "your turn", "reshuffle", "won"] * 2
    said = time.monotonic()
    with interpreter_held_again_and_again(0.15) as holds:
        for name in names:
            speech.say(Message("", cue=name))
        assert speech.wait_until_done(timeout=30)
    audio = recorded(tap, said, time.monotonic() + 0.3)
    position = 0
    for index, name in enumerate(names):
        found = find_cue(audio[position:], name, threshold=0.5)
        scores = ncc(audio[position:], cue_template(name))
        assert found is not None, (  # a cue broken by a hole, or one cut off by the window
            index, name, f"best {scores.max() if len(scores) else None}",
            f"{(len(audio) - position) / RATE:.2f} s left", [round(hold, 3) for hold in holds])
        position += found[0] + len(cue_template(name)) // 2
    assert len(holds) > len(names), "the interpreter was not held often enough to matter"


def test_cues_play_in_order_with_the_speech(speech: SpeechOutput, tap: SpeakerTap) -> None:
    starts: list[float] = []

    def activity(active: bool, when: float) -> None:
        if active:
            starts.append(when)

    speech.add_activity_listener(activity)
    try:
        said = time.monotonic()
        speech.say(Message("Guest 1 turned the king of spades."))
        speech.say(Message("You: the two of spades on the king of spades, match.", cue="capture you 4"))
        speech.say(Message("Hearts on spades.", cue="miss"))
        assert speech.wait_until_done(timeout=20)
        done = time.monotonic()
    finally:
        speech.remove_activity_listener(activity)
    audio = recorded(tap, said, done + 0.3)
    capture = find_cue(audio, "capture you 4", threshold=0.5)
    assert capture is not None
    later = capture[0] + len(cue_template("capture you 4"))
    miss = find_cue(audio[later:], "miss", threshold=0.5)
    assert miss is not None
    capture_at, miss_at = said + capture[0] / RATE, said + (later + miss[0]) / RATE
    assert len(starts) == 3
    # each cue opens its own message: heard once its message starts, before the next one does
    assert starts[0] < starts[1] - 0.05 < capture_at < starts[2] < miss_at + 0.05, (starts, capture_at, miss_at)
    first_words = audio[: capture[0]]
    assert np.sqrt(np.mean(first_words ** 2)) > LOUD, "the first message was not heard first"


def test_stop_silences_a_cue_as_it_silences_speech(speech: SpeechOutput, tap: SpeakerTap) -> None:
    started = len(speech.cues_played)
    speech.say(Message("", Priority.NORMAL, cue="won"))  # 0.64 s, no words
    speech.say(Message("This must never be heard.", cue="lost"))
    deadline = time.monotonic() + 5
    while len(speech.cues_played) == started and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.2)
    stopped = time.monotonic()
    speech.stop()
    assert speech.wait_until_done(timeout=1)
    time.sleep(1.0)
    assert tap.rms(stopped - 0.15, stopped) > LOUD, "the cue was not playing before stop()"
    assert tap.rms(stopped + 0.1, stopped + 1.0) < QUIET, "sound went on after stop()"
    assert [name for name, _ in speech.cues_played[started:]] == ["won"]


def test_cues_alone_play_without_words(audio_server: object, tap: SpeakerTap) -> None:
    sounds_only = SpeechOutput(words=False)
    try:
        said = time.monotonic()
        sounds_only.say(Message("Spades on hearts.", cue="miss you"))
        sounds_only.say(Message("Reveal 50 of 5,000."))  # no cue: nothing at all
        assert sounds_only.wait_until_done(timeout=10)
        audio = recorded(tap, said, time.monotonic() + 0.3)
        found = find_cue(audio, "miss you", threshold=0.5)
        assert found is not None
        after = audio[found[0] + len(cue_template("miss you")) + 160:]
        assert np.sqrt(np.mean(after ** 2)) < QUIET, "words were spoken with words=False"
        assert sounds_only.spoken_texts == []
    finally:
        sounds_only.close()


def test_your_turn_comes_after_the_card_before_it_not_over_it(
        speech: SpeechOutput, tap: SpeakerTap) -> None:
    """The other seat's reveal and "your turn" arrive together: both are heard, in order."""
    assert speech.failure is None
    before = len(speech.spoken_texts)
    speech.say(Message("Hearts on spades.", Priority.NORMAL, cue="miss"))
    speech.say(Message("Your turn.", Priority.URGENT, cue="your turn"))
    assert speech.wait_until_done(timeout=10)
    assert speech.spoken_texts[before:] == ["Hearts on spades.", "Your turn."]
    assert [name for name, _ in speech.cues_played[-2:]] == ["miss", "your turn"]


def short_game_seed(cap: int) -> int:
    """A seed whose two-seat game has a capture and misses by both seats within ``cap`` reveals."""
    for seed in range(2000):
        game, seen = Game(2, Random(seed), cap=cap), set()
        while not game.is_over:
            for event in game.reveal():
                if isinstance(event, Revealed) and event.n < cap:
                    seen.add("capture" if event.match else f"miss {event.seat}")
        if seen == {"capture", "miss 0", "miss 1"}:
            return seed
    raise AssertionError("no short game with a capture")


@pytest.mark.slow
def test_a_spoken_game_plays_each_cue_when_its_event_happens(
        audio_server: object, tap: SpeakerTap, tmp_path: Path) -> None:
    """``voice-rang play`` through the front door, brief with sounds: at the speaker, the cue of
    every reveal, reshuffle and the end, in the order of the game's own log."""
    cap = 5
    seed = short_game_seed(cap)
    log = tmp_path / "game.jsonl"
    started = time.monotonic()
    result = subprocess.run(
        [VOICE_RANG, "play", "--no-listen", "--verbosity", "brief", "--beat", "0", "--seed", str(seed),
         "--cap", str(cap), "--log", str(log)],
        input="auto-reveal on\n", capture_output=True, text=True, timeout=300, env=dict(os.environ))
    ended = time.monotonic()
    assert result.returncode == 0, result.stderr
    expected = []
    for event in map(json.loads, log.read_text().splitlines()):
        if event["event"] == "reveal":  # the last one too: the end waits for it
            if event["match"]:
                expected.append(f"capture {'you' if event['seat'] == 0 else 'other'} {event['moved']}")
            elif event["under"] is not None:
                expected.append("miss you" if event["seat"] == 0 else "miss")
        elif event["event"] in ("reshuffle", "out"):
            expected.append(event["event"])
        elif event["event"] == "end":
            expected.append("won" if 0 in event["winners"] else "lost")
    audio = recorded(tap, started, ended)
    kinds = sorted(set(expected) | {"miss", "miss you", "your turn"})
    position = 0
    for name in expected:
        found = find_cue(audio[position:], name, threshold=0.5)
        assert found is not None, f"{name} not heard after {position / RATE:.2f} s of {expected}"
        at = position + found[0]
        assert best_match(audio, at, kinds) == name, f"at {at / RATE:.2f} s another cue won"
        position = at + len(cue_template(name))
    printed = result.stdout.splitlines()
    assert any(line.startswith("Game over at the cap of 5 reveals") for line in printed)


def test_a_bengali_game_is_spoken_in_bengali_with_its_sounds(
        audio_server: object, tap: SpeakerTap) -> None:
    """``--lang bn`` speaks with espeak-ng's Bengali voice (from the prompts file), sounds on."""
    started = time.monotonic()
    result = subprocess.run(
        [VOICE_RANG, "play", "--lang", "bn", "--no-listen", "--verbosity", "brief", "--beat", "0",
         "--seed", "2", "--cap", "3"],
        input="অটো চালু\n", capture_output=True, text=True, timeout=300, env=dict(os.environ))
    ended = time.monotonic()
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert not any(line.startswith("কথা বন্ধ") for line in lines), lines  # speech stayed on
    assert lines[-1].startswith("৩ চালের সীমায় খেলা শেষ")
    audio = recorded(tap, started, ended)
    assert np.sqrt(np.mean(audio ** 2)) > LOUD / 3
    assert find_cue(audio, "miss you", threshold=0.5) or find_cue(audio, "miss", threshold=0.5)



def test_a_spoken_court_piece_deal_plays_a_cue_for_each_trick_and_the_end(
        audio_server: object, tap: SpeakerTap, tmp_path: Path) -> None:
    """``voice-rang play court-piece`` through the front door, spoken, brief with sounds: at the
    speaker, each trick's cue (taken by your team or theirs) in the order of the log, then won or lost."""
    log = tmp_path / "session.jsonl"
    started = time.monotonic()
    result = subprocess.run(
        [VOICE_RANG, "play", "court-piece", "--no-listen", "--verbosity", "brief", "--beat", "0", "--seed", "3",
         "--target", "1", "--rate", "400", "--log", str(log)],
        input="auto-play on\n", capture_output=True, text=True, timeout=300,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    ended = time.monotonic()
    assert result.returncode == 0, result.stderr
    expected = []
    for event in map(json.loads, log.read_text().splitlines()):
        if event["event"] == "trick":
            ours = event["winner"] % 2 == 0
            expected.append(f"capture {'you' if ours else 'other'} {4 * max(event['collected'], 1)}")
        elif event["event"] == "end":
            expected.append("won" if event["winner"] == 0 else "lost")
    assert len(expected) >= 8
    audio = recorded(tap, started, ended)
    position = 0
    for name in expected:
        found = find_cue(audio[position:], name, threshold=0.5)
        assert found is not None, f"{name} not heard after {position / RATE:.2f} s of {expected}"
        position += found[0] + len(cue_template(name))
    assert result.stdout.splitlines()[-1].startswith("Game over:")
