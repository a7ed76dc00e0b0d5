"""A Bengali speaker teaches the game their card words (``voice-rang enroll --cards --lang bn
--import``), then plays a whole Court Piece session in Bengali by voice alone through the front
door (``voice-rang play court-piece --lang bn``) and the test sound card's microphone: trumps
called as "হরতন রং", every card said as "হরতনের বিবি", and every card played is the card said.

The speaker is espeak-ng's Bengali voice with its f2 variant (held out from tuning the card
words' rule, benchmarks/bench_card_words.py); the takes are said slower, as usual and faster,
the cards at yet another speed and pitch. The player knows only its own hand (the log's deal
line for its seat, as a person knows the cards they hold) and what the game prints in Bengali:
whose turn it is and the suit led. It answers the game's questions in Bengali too ("প্রথমটা",
"হ্যাঁ"), words taught with the card words.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import wave
from pathlib import Path

import pytest
from audio_server import AudioServer
from court_piece_checker import check_file
from live_game import VoicePlayer, end, start_game
from speech_samples import espeak, sox, trim
from test_card_words import BN_RANKS, BN_SUITS
from test_play import VOICE_RANG

VOICE = "bn+f2"
PAUSE = b"\0\0" * 4000
TURN = re.compile(r"^তোমার পালা: (\S+?) খেলা হয়েছে|নম্বর পিট শুরু করার পালা তোমার")
WHICH = re.compile(r"^(.+?), না (.+?)\? প্রথমটা বা দ্বিতীয়টা বলো")
DID_YOU = re.compile(r"^তুমি কি (.+?) বললে\?")
ANSWERS = {"yes": "হ্যাঁ", "no": "না", "first": "প্রথমটা", "second": "দ্বিতীয়টা"}
"""The answers to the game's questions, taught with the card words."""

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("sox") is None,
                                reason="needs espeak-ng and sox")


def said(text: str, tempo: float, cents: int = 0) -> bytes:
    return trim(sox(espeak(text, VOICE), "tempo", "-s", str(tempo), "pitch", str(cents)))


def enrol(folder: Path, env: dict[str, str]) -> None:
    """The 17 card words, three takes each, taught through the front door."""
    folder.mkdir()
    for code, text in {**BN_RANKS, **BN_SUITS, **ANSWERS}.items():
        for number, tempo in enumerate((0.9, 1.0, 1.12), 1):
            with wave.open(str(folder / f"{code}__{number}.wav"), "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(16000)
                out.writeframes(PAUSE + said(text, tempo) + PAUSE)
    done = subprocess.run([VOICE_RANG, "enroll", "--cards", "--lang", "bn", "--text", "--import", str(folder)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "২১টা তাসের শব্দের ৬৩টা রেকর্ডিং" in done.stdout, done.stdout


class BengaliPlayer:
    """Knows its hand from the deal and the cards it has played, and what to say on its turn."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def events(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def hand(self) -> list[str]:
        events = self.events()
        deal = [event for event in events if event["event"] == "deal"][-1]
        played = {event["card"] for event in events if event["event"] == "play" and event["seat"] == 0}
        return [card for card in deal["hands"][0] if card not in played]  # type: ignore[index]

    def trumps(self) -> str:
        deal = [event for event in self.events() if event["event"] == "deal"][-1]
        first = deal["first"][0]  # type: ignore[index]
        suit = max("CDHS", key=lambda letter: sum(card.endswith(letter) for card in first))
        return f"{BN_SUITS[suit]} রং"

    def card(self, led: str | None) -> str:
        hand = sorted(self.hand())
        suit = next((code for code, name in BN_SUITS.items() if name == led), None)
        follow = [card for card in hand if suit is not None and card.endswith(suit)]
        return (follow or hand)[0]


def say_card(code: str) -> str:
    return f"{BN_SUITS[code[-1]]}ের {BN_RANKS[code[:-1]]}"


def test_a_bengali_speaker_plays_a_whole_session_with_their_own_card_words(audio_server: AudioServer,
                                                                           tmp_path: Path) -> None:
    env = {**audio_server.env, "NO_COLOR": "1", "TERM": "dumb", "XDG_STATE_HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    enrol(tmp_path / "takes", env)
    audio_server.start_microphone()
    log = tmp_path / "voice.jsonl"
    process, lines = start_game(
        [VOICE_RANG, "play", "court-piece", "--lang", "bn", "--text", "--listen", "--beat", "0", "--seed", "16",
         "--scoring", "courts", "--deals", "1", "--log", str(log)], env)
    player = BengaliPlayer(log)
    said_cards: list[str] = []  # each card the player said, in order, once
    called: list[str] = []  # the trumps it called

    def say(text: str) -> None:
        done = audio_server.say_and_mark(PAUSE + said(text, 1.07, 80) + PAUSE)[1]
        done.wait(10)

    voice = VoicePlayer(lines, say, "শুনছি")
    printed = voice.printed
    try:
        for line in voice.lines():
            if line.startswith("শুনছি"):
                assert "শেখানো শব্দে" in line, line  # the listening line knows the words were taught
            if line.startswith("খেলা শেষ:"):
                break
            wanted = voice.wanted
            if line.startswith("রং ডাকবে তুমি"):
                called.append(player.trumps())
                voice.say(called[-1])
            elif (turn := TURN.search(line)) is not None:
                card = player.card(turn.group(1))
                if not said_cards or said_cards[-1] != card:  # a turn asked again is the same card
                    said_cards.append(card)
                voice.say(say_card(card))
            elif wanted and (which := WHICH.search(line)) is not None:
                voice.say(ANSWERS["first" if which.group(1) == wanted else "second"], wanted=False)
            elif wanted and (did_you := DID_YOU.search(line)) is not None:
                voice.say(ANSWERS["yes" if did_you.group(1) == wanted else "no"], wanted=False)
            elif wanted and "তাসটা আবার বলো" in line:
                voice.say(ANSWERS["yes"], wanted=False)
        assert printed and printed[-1].startswith("খেলা শেষ:"), printed[-40:]
    finally:
        end(process)
    events = player.events()
    trumps = [f"{BN_SUITS[str(event['suit'])]} রং" for event in events if event["event"] == "trump"]
    assert trumps == called[:1] and len(called) >= 1, (trumps, called)  # trumps called by voice, the suit said
    plays = [event["card"] for event in events if event["event"] == "play" and event["seat"] == 0]
    assert len(plays) >= 7 and plays == said_cards[:len(plays)], (plays, said_cards, printed[-30:])
    assert check_file(log) == []
