"""A whole Court Piece session played by voice alone, through the front door (``voice-rang play
court-piece``) and the test sound card's microphone, in a voice the listener was never tuned on
(flite's slt): every card played must be the card said.

The player is a script that reads the printed lines, as a screen reader user hears them, and says
into the microphone what a person would: the card it chooses, "hearts are trumps", "yes" to a
question about the card it said, "the first" or "the second" to "this or that?".
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from audio_server import AudioServer
from court_piece_checker import check_file
from live_game import VoicePlayer, end, start_game
from speech_samples import synthesize
from test_play import VOICE_RANG
from test_play_court_piece import RANKS, SUITS, LineReadingPlayer

VOICE = "slt"
"""A voice held out from tuning the listener's rule (benchmarks/bench_cards.py)."""
PAUSE = b"\0\0" * 4000

needs_flite = pytest.mark.skipif(shutil.which("flite") is None, reason="needs flite")


CARD = re.compile(r"(" + "|".join(RANKS) + r") of (clubs|diamonds|hearts|spades)")


def code_of(text: str) -> str | None:
    found = CARD.search(text.lower())
    return None if found is None else RANKS[found.group(1)] + SUITS[found.group(2)]


def means(meant: str | None, text: str) -> bool:
    """Whether ``text`` (a question) names what the player meant: the same card, or the suit
    it called trumps."""
    if meant is None:
        return False
    card = code_of(meant)
    if card is not None:
        return code_of(text) == card
    return meant.split()[0] in text.lower()


class Speaker:
    """Says phrases into the microphone, one at a time, and remembers what it last meant."""

    def __init__(self, server: AudioServer) -> None:
        self.server = server
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)
        done = self.server.say_and_mark(PAUSE + synthesize(text, VOICE) + PAUSE)[1]
        done.wait(10)


@needs_flite
def test_a_whole_session_is_played_by_voice_alone_and_every_card_played_is_the_card_said(
        audio_server: AudioServer, tmp_path: Path) -> None:
    audio_server.start_microphone()
    log = tmp_path / "voice.jsonl"
    process, lines = start_game(
        [VOICE_RANG, "play", "court-piece", "--text", "--listen", "--beat", "0", "--seed", "16",
         "--scoring", "courts", "--deals", "1", "--log", str(log)],
        {**audio_server.env, "NO_COLOR": "1", "TERM": "dumb", "XDG_STATE_HOME": str(tmp_path)})
    speaker = Speaker(audio_server)
    voice = VoicePlayer(lines, speaker.say, "Listening")
    printed = voice.printed
    player = LineReadingPlayer()
    meant: str | None = None  # the move last said, as the player would say it
    played: list[tuple[str, str | None]] = []  # (card played, card meant)
    named: list[bool] = []  # each trump call was the suit said
    try:
        for line in voice.lines():
            if line.startswith(("You lead", "You play", "You trump", "You cannot follow")):
                played.append((code_of(line) or "", code_of(meant or "") if meant else None))
                voice.wanted = ""
            if line.startswith(("You name", "You set")):
                named.append(means(meant, line))
                voice.wanted = ""
            if line.startswith("Game over"):
                break
            if line.startswith("Did you say"):
                speaker.say("yes" if means(meant, line) else "no")
                continue
            which = re.match(r"(.+?) or (.+?)\? Say the first or the second", line)
            if which:
                speaker.say("the first" if means(meant, which.group(1)) else "the second")
                continue
            if "Say yes, or the card again" in line or "Say yes or no." in line:
                speaker.say("yes")
                continue
            answer = player.read(line)
            if answer is not None:
                meant = answer
                voice.say(answer)
        assert printed and printed[-1].startswith("Game over"), printed[-40:]
    finally:
        end(process)
    assert named == [True], named  # trumps were called by voice, the suit said
    wrong = [(card, said) for card, said in played if said is not None and card != said]
    plays_in_log = [event["card"] for event in map(json.loads, log.read_text().splitlines())
                    if event["event"] == "play" and event["seat"] == 0]
    assert len(played) >= 7 and [card for card, _ in played] == plays_in_log, (played, printed[-40:])
    assert wrong == [], wrong
    assert check_file(log) == []
