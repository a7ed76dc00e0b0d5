"""Hands-free play through the front door: ``voice-rang play`` on the test sound card.

The microphone is the PulseAudio pipe source fed in real time; the speaker is the null sink. Speech
said into the microphone is made by flite (tests/speech_samples.py).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from audio_server import AudioServer
from live_game import THRESHOLD, LineWatch, SpeakerWatch, echo_speaker_into_microphone, end
from speech_samples import synthesize, with_white_noise
from test_play import VOICE_RANG


@contextmanager
def voice_game(server: AudioServer, *extra: str, env: dict[str, str] | None = None,
               ) -> Iterator[tuple[subprocess.Popen[str], LineWatch, SpeakerWatch]]:
    """A spoken, listening two-seat game whose host is waiting for its first turn, quiet (``env``:
    more of the environment)."""
    speaker = SpeakerWatch(server)
    speaker.start()
    process = subprocess.Popen([VOICE_RANG, "play", "--seats", "2", "--beat", "0", "--seed", "5",
                                "--verbosity", "brief", *extra],
                               env={**server.env, **(env or {})}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    lines = LineWatch(process.stdout)
    try:
        yield process, lines, speaker
    finally:
        end(process)
        speaker.stop()


@contextmanager
def voice_game_on_its_own_server(*extra: str) -> Iterator[tuple[AudioServer, subprocess.Popen[str], LineWatch]]:
    """A spoken, listening game on a sound server of its own (to kill, freeze or restart), a
    second after the host's first turn was offered and the microphone opened. The microphone
    opens on a thread of its own, after the recogniser has loaded: on a busy machine that comes
    after the first turn, and a server frozen before it is a game started on a frozen server."""
    from audio_server import start_audio_server

    server = start_audio_server()
    try:
        with voice_game(server, *extra) as (process, lines, _):
            assert lines.wait_for("Listening: say turn", timeout=60), lines.lines
            assert lines.wait_for("Your turn: say turn", timeout=20), lines.lines
            time.sleep(1.0)
            yield server, process, lines
    finally:
        server.stop()


def turn_and_quit_by_keyboard(process: subprocess.Popen[str], lines: LineWatch) -> None:
    """Type "turn", see the card turned, then quit: play went on by keyboard."""
    assert process.stdin is not None
    process.stdin.write("turn\n")
    process.stdin.flush()
    assert lines.wait_for("You: the ", timeout=10), lines.lines
    process.stdin.write("quit\nyes\n")
    process.stdin.flush()
    assert process.wait(20) == 0


def settle(lines: LineWatch, speaker: SpeakerWatch) -> None:
    assert lines.wait_for("Listening: say turn", timeout=20), lines.lines
    assert lines.wait_for("Your turn: say turn", timeout=20), lines.lines
    assert speaker.wait_quiet(0.8, timeout=30)


def say_and_expect(server: AudioServer, lines: LineWatch, phrase: str, answer: str,
                   timeout: float = 10) -> float:
    """Say ``phrase`` into the microphone and wait for a printed line with ``answer``; when it
    was said."""
    words = synthesize(phrase)
    said = time.monotonic()
    server.say_into_microphone(words)
    assert lines.wait_for(answer, timeout=timeout, after=said), lines.since(said)
    return said


def test_play_says_at_the_start_that_you_can_say_turn(audio_server: AudioServer) -> None:
    with voice_game(audio_server) as (_, lines, speaker):
        settle(lines, speaker)


def test_saying_turn_into_the_microphone_turns_and_narrates_the_hosts_card(audio_server: AudioServer) -> None:
    with voice_game(audio_server) as (_, lines, speaker):
        settle(lines, speaker)
        said = say_and_expect(audio_server, lines, "turn", "You: the ")
        assert speaker.first_sound_after(said, timeout=5) is not None


def test_talk_that_is_not_a_command_turns_nothing(audio_server: AudioServer) -> None:
    with voice_game(audio_server) as (_, lines, speaker):
        settle(lines, speaker)
        said = time.monotonic()
        for sentence in ("what time is it", "the cat sat on the mat", "that was a good game"):
            audio_server.say_into_microphone(synthesize(sentence, voice="slt"))
            time.sleep(2.5)
        time.sleep(1.5)
        assert not any(line.startswith("You: the ") for line in lines.since(said)), lines.since(said)


def test_a_spoken_question_is_answered_by_a_spoken_yes(audio_server: AudioServer) -> None:
    # "yes" is listened for only while a question is open ("Quit the game?", "Did you say turn?").
    with voice_game(audio_server) as (process, lines, speaker):
        settle(lines, speaker)
        said = say_and_expect(audio_server, lines, "quit", "Quit the game?")
        assert speaker.first_sound_after(said, timeout=5) is not None  # the question is spoken
        assert speaker.wait_quiet(0.8, timeout=20)
        say_and_expect(audio_server, lines, "yes", "Goodbye.")
        assert process.wait(15) == 0


def test_spoken_auto_reveal_pauses_for_the_player_so_auto_reveal_off_is_heard(
        audio_server: AudioServer) -> None:
    # The microphone is deaf while the game talks. With --beat 0, spoken auto-reveal used to go
    # from one card's narration straight into the next, never quiet, so nothing the player said
    # could be heard: the game played itself to the end.
    with voice_game(audio_server) as (_, lines, speaker):
        settle(lines, speaker)
        said = say_and_expect(audio_server, lines, "auto reveal on", "Auto-reveal on")
        assert lines.wait_for("You: the ", timeout=20, after=said), lines.since(said)
        card_said = speaker.first_sound_after(time.monotonic() - 0.2, timeout=5)
        assert card_said is not None, "the card turned by auto-reveal was not spoken"
        synthesize("auto reveal off")  # ready to say the moment the game falls quiet
        assert speaker.wait_quiet(0.6, timeout=20), "spoken auto-reveal left no pause to speak in"
        off = say_and_expect(audio_server, lines, "auto reveal off", "Auto-reveal off")
        assert lines.wait_for("Your turn", timeout=30, after=off), lines.since(off)


def test_a_whole_game_played_hands_free_by_voice_alone(audio_server: AudioServer,
                                                      tmp_path: Path) -> None:
    # Printed only (--text --listen), so the computer seat does not wait for speech: a turn, then
    # auto-reveal to the end, then quit and its yes. No terminal and not one key: the voice alone
    # keeps the game open after "Game over".
    log = tmp_path / "game.jsonl"
    process = subprocess.Popen([VOICE_RANG, "play", "--seats", "2", "--beat", "0", "--seed", "21",
                                "--text", "--listen", "--log", str(log)],
                               env=audio_server.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    lines = LineWatch(process.stdout)
    try:
        assert lines.wait_for("Listening: say turn", timeout=20), lines.lines
        say_and_expect(audio_server, lines, "turn", "You turned ")
        time.sleep(0.5)
        said = say_and_expect(audio_server, lines, "auto reveal on", "Auto-reveal on")
        assert lines.wait_for("Game over", timeout=60, after=said), lines.since(said)
        time.sleep(0.5)
        say_and_expect(audio_server, lines, "quit", "Quit the game?")
        time.sleep(0.5)
        say_and_expect(audio_server, lines, "yes", "Goodbye.")
        assert process.wait(15) == 0
    finally:
        if process.poll() is None:
            process.kill()
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[-1]["event"] == "end"


def test_the_games_own_narration_heard_by_the_microphone_triggers_nothing(audio_server: AudioServer) -> None:
    echo = echo_speaker_into_microphone(audio_server)
    microphone = SpeakerWatch(audio_server, device="vmic")
    microphone.start()
    try:
        with voice_game(audio_server, "--verbosity", "normal") as (process, lines, speaker):
            assert lines.wait_for("Your turn: say turn", timeout=20)
            assert process.stdin is not None
            started = time.monotonic()
            process.stdin.write("status\nhelp\nrepeat\n")  # more talk with "turn" in it, all echoed
            process.stdin.flush()
            assert speaker.wait_quiet(1.0, timeout=60)
            time.sleep(1.5)
            after = lines.since(started)
            assert not any(line.startswith("You turned") for line in after), after
            assert not any("didn't catch" in line or "Did you say" in line for line in after), after
            assert microphone.first_sound_after(started, timeout=1) is not None  # the echo was heard
    finally:
        echo.terminate()
        microphone.stop()


def test_saying_turn_in_a_noisy_room_turns_nothing_until_the_player_says_yes_to_the_question(
        audio_server: AudioServer) -> None:
    """At 12 dB of steady hiss the head leans to "turn" (about 0.5) but is not sure: the game asks,
    turns nothing on its own, and turns the card once the player says yes."""
    with voice_game(audio_server) as (_, lines, speaker):
        settle(lines, speaker)
        said = time.monotonic()
        noisy = with_white_noise(synthesize("turn", voice="kal16") * 2, 12.0, seconds_before=4.0)
        audio_server.say_into_microphone(noisy)
        assert lines.wait_for("Did you say turn?", timeout=15, after=said), lines.since(said)
        assert speaker.first_sound_after(said, timeout=5) is not None  # the question is spoken
        assert speaker.wait_quiet(0.8, timeout=20)
        assert not any(line.startswith("You: the ") for line in lines.since(said)), lines.since(said)
        say_and_expect(audio_server, lines, "yes", "You: the ")


def test_an_unknown_microphone_is_one_clear_line_and_play_goes_on_by_keyboard(audio_server: AudioServer) -> None:
    with voice_game(audio_server, "--mic", "no such microphone") as (process, lines, _):
        assert lines.wait_for("Voice commands are off:", timeout=20), lines.lines
        assert process.stdin is not None
        process.stdin.write("turn\n")
        process.stdin.flush()
        assert lines.wait_for("You: the ", timeout=10), lines.lines
        off = [line for _, line in lines.lines if line.startswith("Voice commands are off")]
        assert len(off) == 1 and off[0].endswith("Play by keyboard.")


def test_a_speech_model_that_cannot_be_prepared_is_one_clear_line_and_pocketsphinx_listens_alone(
        audio_server: AudioServer, tmp_path: Path) -> None:
    """Moonshine's encoder is converted into the user's cache; a cache that cannot hold it (here
    a file where the folder should be) costs the command head, said in one line, not a traceback,
    and the grammar decoders listen alone."""
    blocked = tmp_path / "cache"
    blocked.write_text("not a folder")
    with voice_game(audio_server, env={"XDG_CACHE_HOME": str(blocked)}) as (process, lines, _):
        assert lines.wait_for("Voice commands are heard less well here:", timeout=60), lines.lines
        assert lines.wait_for("Listening: say turn", timeout=60), lines.lines
        turn_and_quit_by_keyboard(process, lines)
        plain = [line for _, line in lines.lines if line.startswith("Voice commands are heard less well")]
        assert len(plain) == 1 and "Moonshine's model could not be prepared" in plain[0], plain
        assert plain[0].endswith("so the game listens with pocketsphinx alone.")
        assert not any(line.startswith("Voice commands are off") for _, line in lines.lines)
        assert process.stderr is not None and "Traceback" not in process.stderr.read()


@pytest.mark.parametrize("flag", ["--no-listen", "--text"])
def test_without_listening_nothing_is_said_about_the_microphone(audio_server: AudioServer, flag: str) -> None:
    result = subprocess.run([VOICE_RANG, "play", flag, "--beat", "0"], input="quit\nyes\n", env=audio_server.env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "Listening" not in result.stdout and "Voice commands" not in result.stdout


def test_a_sound_server_that_dies_mid_game_costs_one_line_each_and_play_goes_on_by_keyboard() -> None:
    with voice_game_on_its_own_server() as (server, process, lines):
        gone = time.monotonic()
        subprocess.run(["pulseaudio", "--kill"], env=server.env, check=False)
        assert lines.wait_for("Voice commands are off:", timeout=10, after=gone), lines.since(gone)
        assert lines.wait_for("Speech is off:", timeout=15, after=gone), lines.since(gone)
        assert process.stdin is not None
        process.stdin.write("turn\n")
        process.stdin.flush()
        assert lines.wait_for("You: the ", timeout=10, after=gone), lines.since(gone)
        process.stdin.write("quit\nyes\n")
        process.stdin.flush()
        assert process.wait(10) == 0
        after = lines.since(gone)
        assert sum(line.startswith("Voice commands are off") for line in after) == 1, after
        assert sum(line.startswith("Speech is off") for line in after) == 1, after
        assert not any("Errno" in line or "host error" in line for line in after), after
        assert process.stderr is not None
        assert process.stderr.read() == ""  # none of PortAudio's own complaints


def test_a_sound_server_that_restarts_mid_game_comes_back_for_voice_and_speech() -> None:
    from audio_server import start_audio_server

    server = start_audio_server()  # its own, to restart
    try:
        with voice_game(server) as (process, lines, old_speaker):
            settle(lines, old_speaker)
            restarted = time.monotonic()
            server.restart()  # both streams break: the game reopens them
            speaker = SpeakerWatch(server)  # a monitor of the new server's speaker
            speaker.start()
            try:
                time.sleep(6.0)  # longer than the speech output's stall limit and its reopening
                assert speaker.wait_quiet(0.8, timeout=20)
                said = time.monotonic()
                server.say_into_microphone(synthesize("turn"))
                assert lines.wait_for("You: the ", timeout=10, after=said), lines.since(restarted)
                assert speaker.first_sound_after(said, timeout=5) is not None, (
                    "no speech came back", lines.since(restarted))
            finally:
                speaker.stop()
            after = lines.since(restarted)
            assert not any(line.startswith(("Voice commands are off", "Speech is off")) for line in after), after
            assert process.poll() is None
    finally:
        server.stop()


def test_a_sound_server_freezing_mid_game_turns_speech_and_voice_off_and_the_game_still_exits(
        ) -> None:
    with voice_game_on_its_own_server() as (server, process, lines):
        frozen = time.monotonic()
        server.freeze()  # every PortAudio call on it now hangs, the microphone's read too
        assert lines.wait_for("Speech is off:", timeout=15, after=frozen), lines.since(frozen)
        # No error ever comes from a frozen server: the microphone just stops sending.
        assert lines.wait_for("Voice commands are off: The microphone stopped sending sound",
                              timeout=15, after=frozen), lines.since(frozen)
        assert process.stdin is not None
        process.stdin.write("quit\nyes\n")
        process.stdin.flush()
        assert lines.wait_for("Goodbye.", timeout=10, after=frozen), lines.since(frozen)
        try:
            code = process.wait(20)  # it used to wait for ever, closing the microphone
        except subprocess.TimeoutExpired:
            pytest.fail("the game said goodbye but never exited")
        assert code == 0
        assert sum("Voice commands are off" in line for _, line in lines.lines) == 1, lines.lines


def test_a_game_started_on_a_frozen_sound_server_says_so_and_plays_by_keyboard() -> None:
    from audio_server import start_audio_server

    server = start_audio_server()  # its own, to freeze
    server.freeze()  # the synthesizer's and PortAudio's starts now hang instead of failing
    try:
        with voice_game(server) as (process, lines, _):
            # It used to hang before its first line, silent, for ever.
            assert lines.wait_for("Speech is off: The sound system is not answering", timeout=30), lines.lines
            assert lines.wait_for("Voice commands are off: The sound system is not answering",
                                  timeout=10), lines.lines
            assert lines.wait_for("Your turn: say turn, or press space", timeout=10), lines.lines
            turn_and_quit_by_keyboard(process, lines)
            assert sum("not answering" in line for _, line in lines.lines) == 2, lines.lines
            assert process.stderr is not None
            assert process.stderr.read() == ""
    finally:
        server.stop()


def talking_now(speaker: SpeakerWatch, timeout: float) -> bool:
    """Wait until the last 50 ms the speaker played were loud."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = time.monotonic()
        if speaker.loudest_between(now - 0.05, now) >= THRESHOLD:
            return True
        time.sleep(0.005)
    return False


@pytest.mark.parametrize("headphones", [True, False])
def test_with_headphones_a_command_said_over_the_game_is_heard_and_without_them_it_is_not(
        audio_server: AudioServer, headphones: bool) -> None:
    # The test's speaker never reaches its microphone, as with headphones; without the flag the
    # game still cannot know that, so it stays deaf while it talks.
    extra = ("--headphones",) if headphones else ()
    with voice_game(audio_server, *extra) as (process, lines, speaker):
        settle(lines, speaker)
        assert process.stdin is not None
        asked = time.monotonic()
        process.stdin.write("help\n")  # several seconds of speech
        process.stdin.flush()
        talking = speaker.first_sound_after(asked, timeout=5)
        assert talking is not None
        turn = synthesize("turn")
        time.sleep(0.5)
        # Said while a sentence is playing, not in the pause between two (longer on a busy
        # machine, where the next sentence may not be ready when the last one ends).
        assert talking_now(speaker, timeout=10), "the game never talked long enough"
        ends = audio_server.say_into_microphone(turn)
        begins = ends - len(turn) / 32000
        acted = lines.wait_for("You: the ", timeout=4, after=begins)
        assert speaker.loudest_between(begins, begins + 0.1) >= THRESHOLD, "the game was not talking"
        assert acted is headphones, lines.since(asked)
