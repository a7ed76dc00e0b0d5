"""Helpers for Court Piece over the network: a guest that records every byte the host sends it,
and the check that nothing in them tells it another seat's card (or a hidden trump) too soon.

Two kinds of recording guest: :class:`Tap`, a TCP relay on loopback in front of the host that a
real ``voice-rang join`` connects through (every byte, WebSocket framing and all), and
:class:`SocketGuest`, a WebSocket client like the web page's (``narrate`` as the page sends it)
that plays its first allowed card whenever its board says it is its turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import threading
from pathlib import Path
from typing import Any

import aiohttp

from voice_rang.cards import Card
from voice_rang.narration import Narrator

WAIT_S = 60.0


def _loop_thread(main: Any) -> threading.Thread:
    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    return thread


class Tap:
    """A relay from a free loopback port to the host's, keeping every byte sent back to the guest."""

    def __init__(self, host_port: int) -> None:
        self.host_port = host_port
        self.received = bytearray()
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                guest, _ = self._listener.accept()
            except OSError:
                return
            host = socket.create_connection(("127.0.0.1", self.host_port))
            threading.Thread(target=self._pipe, args=(guest, host, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(host, guest, True), daemon=True).start()

    def _pipe(self, source: socket.socket, target: socket.socket, keep: bool) -> None:
        try:
            while data := source.recv(65536):
                if keep:
                    self.received.extend(data)
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def frames(self) -> list[str]:
        """The host's messages, in order, read from the recorded bytes (each connection's HTTP
        upgrade answer skipped, unmasked text frames)."""
        data, frames, at = bytes(self.received), [], 0
        while at < len(data):
            if data.startswith(b"HTTP/1.1", at):
                at = data.index(b"\r\n\r\n", at) + 4
                continue
            opcode, size = data[at] & 0x0F, data[at + 1] & 0x7F
            at += 2
            if size == 126:
                size, at = int.from_bytes(data[at:at + 2], "big"), at + 2
            elif size == 127:
                size, at = int.from_bytes(data[at:at + 8], "big"), at + 8
            if opcode == 1:
                frames.append(data[at:at + size].decode())
            at += size
        return frames


class SocketGuest:
    """A guest on the host's WebSocket, as the page is: every frame kept; plays when its turn comes."""

    def __init__(self, port: int, name: str, *, code: str | None = "4719", narrate: bool = True,
                 play: bool = True, token: str | None = None) -> None:
        self.port, self.name, self.code, self.narrate, self.play = port, name, code, narrate, play
        self.token = token
        self.frames: list[str] = []
        self.seat = -1
        self.ended = threading.Event()
        self._send: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._socket: Any = None
        self._thread = _loop_thread(self._main)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            async with aiohttp.ClientSession() as session, session.ws_connect(
                    f"http://127.0.0.1:{self.port}/ws") as ws:
                self._socket = ws
                await ws.send_str(json.dumps({"type": "hello", "version": 1, "code": self.code, "token": self.token,
                                              "name": self.name, "narrate": self.narrate}))
                async for frame in ws:
                    if frame.type != aiohttp.WSMsgType.TEXT:
                        break
                    self.frames.append(frame.data)
                    message = json.loads(frame.data)
                    if message["type"] == "welcome":
                        self.seat, self.token = message["seat"], message["token"]
                    if message["type"] == "bye":
                        break
                    board = message.get("board") if message["type"] == "private" else None
                    if self.play and board and board["turn"]:
                        await ws.send_str(json.dumps({"type": "say", "text": "cursor"}))
        finally:
            self.ended.set()

    def close(self) -> None:
        """Drop the connection without a goodbye, as a lost network does."""
        if self._loop is not None and self._socket is not None:
            asyncio.run_coroutine_threadsafe(self._socket.close(), self._loop).result(10)
        self.ended.wait(10)

    def send(self, message: dict[str, Any]) -> None:
        """Send any JSON object (a forged one too) from the test's thread."""
        assert self._loop is not None and self._socket is not None
        asyncio.run_coroutine_threadsafe(self._socket.send_str(json.dumps(message)), self._loop).result(10)

    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(frame) for frame in self.frames]


# ----- the check --------------------------------------------------------------------------------

_NARRATOR = Narrator.load("en", seats=4)
_WORDS = {card.code: _NARRATOR.card(card).lower().removeprefix("the ") for card in Card}
_CODE = re.compile(r'"((?:10|[2-9JQKA])[CDHS])"')


def host_record(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def leaks(frames: list[str], seat: int, record: list[dict[str, Any]]) -> list[str]:
    """Whatever in ``frames`` (one guest's messages, in order) shows ``seat`` something it may not
    know yet: a card of another seat's hand before it is played, a face-down card's face, a hidden
    trump before its reveal, in the events, the board or the words. Empty when there is none."""
    hands: dict[int, list[set[str]]] = {}
    plays: dict[tuple[int, int, int], dict[str, Any]] = {}
    trumps: dict[int, dict[str, Any]] = {}
    for event in record:
        kind = event.get("event")
        if kind == "deal":
            hands[event["deal"]] = [set(hand) for hand in event["hands"]]
        elif kind == "play":
            plays[(event["deal"], event["trick"], event["seat"])] = event
        elif kind == "trump":
            trumps[event["deal"]] = dict(event)
        elif kind == "reveal":
            trumps.setdefault(event["deal"], {})["suit"] = event["suit"]
    problems: list[str] = []
    known: set[str] = set()
    deal = 0
    revealed = False
    for number, frame in enumerate(frames):
        message = json.loads(frame)
        if message["type"] != "private":
            found = set(_CODE.findall(frame))
            if found:
                problems.append(f"frame {number}: cards in a {message['type']} message: {sorted(found)}")
            continue
        if message["seat"] != seat:
            problems.append(f"frame {number}: seat {message['seat']}'s message on seat {seat}'s connection")
        deals = {deal}
        for event in message["events"]:
            kind, at = event["event"], event.get("deal", deal)
            if kind == "deal":
                deal, revealed, known = at, False, set(known)
                deals.add(at)
                own = hands[at][seat]
                if not set(event["cards"]) <= own:
                    problems.append(f"frame {number}: dealt cards not its own: {event['cards']}")
                known |= set(event["cards"]) & own
            elif kind == "hand":
                own = hands[at][seat]
                if not set(event["cards"]) <= own:
                    problems.append(f"frame {number}: a hand not its own: {event['cards']}")
                known |= set(event["cards"]) & own
            elif kind == "trump":
                truth = trumps[at]
                if truth["how"] in ("hidden", "blind") and seat != truth["seat"] and (
                        event["suit"] is not None or event["card"] is not None):
                    problems.append(f"frame {number}: a hidden trump shown: {event}")
                if event["card"] is not None and (truth["how"] == "card" or seat == truth["seat"]):
                    known.add(event["card"])
            elif kind == "reveal":
                revealed = True
                known.add(event["card"])
            elif kind == "play":
                truth = plays[(at, event["trick"], event["seat"])]
                if truth["face_down"] and event["seat"] != seat:
                    if event["card"] is not None:
                        problems.append(f"frame {number}: a face-down card's face: {event}")
                elif event["card"] != truth["card"]:
                    problems.append(f"frame {number}: a play that was not made: {event}")
                else:
                    known.add(truth["card"])
        others = set().union(*(hands[d][s] for d in deals if d in hands for s in range(4) if s != seat))
        secret = others - known
        shown = set(_CODE.findall(frame)) & secret
        if shown:
            problems.append(f"frame {number}: another seat's cards {sorted(shown)}")
        if len(deals - {0}) <= 1:
            text = " ".join([line["text"] for line in message["lines"]] + _board_words(message.get("board"))).lower()
            said = {code for code in secret if re.search(rf"\b{re.escape(_WORDS[code])}\b", text)}
            if said:
                problems.append(f"frame {number}: another seat's cards in words {sorted(said)}")
        truth = trumps.get(deal)
        board = message.get("board")
        if (truth and truth["how"] in ("hidden", "blind") and not revealed and seat != truth["seat"]
                and board and truth.get("suit")):
            suit = _NARRATOR.prompts.messages["words"]["suits"][truth["suit"]]
            if suit in board["trumps"].lower():
                problems.append(f"frame {number}: the hidden trump in the board: {board['trumps']}")
    return problems


def _board_words(board: dict[str, Any] | None) -> list[str]:
    if not board:
        return []
    words = [board["score"], board["trumps"], *board["trick"], *board["last"]]
    for group in board["hand"]:
        words.extend(card["name"] for card in group["cards"])
    return words
