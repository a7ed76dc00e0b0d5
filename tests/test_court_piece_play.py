"""Court Piece at the table: the same table as Rang Milanti's, driven by scripted commands and a fake clock.

Every test plays through :class:`~voice_rang.table.Table` exactly as keys, typed lines and the
computer seats do, and reads what the listener would hear.
"""

from __future__ import annotations

import re
from random import Random

import pytest
from court_piece_checker import check_log
from court_piece_deals import hands_around
from test_table import Clock, RecordingOutputs

from voice_rang.cards import Card
from voice_rang.commands import CommandSet
from voice_rang.games.court_piece.events import CardPlayed, DealDone, TrumpChosen, TrumpRevealed
from voice_rang.games.court_piece.log import encode_events
from voice_rang.games.court_piece.phrases import Phrases
from voice_rang.games.court_piece.play import CourtPiecePlay
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.session import Session, deck_for_hands
from voice_rang.narration import Narrator
from voice_rang.prompts import load_game_prompts
from voice_rang.table import SeatKind, Table

CARD_WORDS = re.compile(r"the (ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king) of "
                        r"(clubs|diamonds|hearts|spades)")
RANK_CODES = {"ace": "A", "jack": "J", "queen": "Q", "king": "K", "two": "2", "three": "3", "four": "4",
              "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}


class CourtPieceTable:
    """A table holding Court Piece, its outputs, its clock, and everything it logged and said, in order."""

    def __init__(self, rules: Rules, *, hands: list[list[Card]] | None = None, dealer: int = 0,
                 people: tuple[int, ...] = (0,), seed: int = 1, language: str = "en", level: str = "easy") -> None:
        prompts, words = load_game_prompts(language, "court-piece")
        self.kinds: list[SeatKind] = ["person" if seat in people else "computer" for seat in range(4)]
        self.narrator = Narrator(prompts=prompts, seats=4, listener=people[0] if len(people) == 1 else None,
                                 kinds=self.kinds)
        self.commands = CommandSet(phrases=prompts.commands, keys=prompts.keys, typed_only=prompts.typed_only)
        self.outputs = RecordingOutputs()
        self.clock = Clock()
        self.timeline: list[object] = []
        self.events: list[object] = []
        rng = Random(seed)
        decks = [deck_for_hands(hands, (dealer + 1) % 4, rules)] if hands else None
        players = tuple("person" if kind == "person" else level for kind in self.kinds)

        def new_session(number: int) -> Session:
            return Session(rules, rng, players=players, number=number, dealer=dealer, decks=decks)

        self.play = CourtPiecePlay(self.narrator, Phrases.build(prompts, words), rules, new_session,
                                   people=people, levels=[level] * 4, bot_rng=Random(seed + 1), hint_budget=0.05)
        original_say = self.outputs.say

        def say(message: object) -> None:
            self.timeline.append(message)
            original_say(message)  # type: ignore[arg-type]

        self.outputs.say = say  # type: ignore[method-assign]

        def log(events: list[object]) -> None:
            self.timeline.extend(events)
            self.events.extend(events)

        self.table = Table(self.narrator, self.play, self.outputs, kinds=self.kinds, beat=1.0, interactive=True,
                           log=log, clock=self.clock)
        self.table.start()

    def send(self, *lines: str) -> list[str]:
        """Typed lines (or key ids) as the keyboard delivers them; what was said since."""
        start = len(self.outputs.texts)
        for line in lines:
            command = self.commands.parse(line) or self.commands.keys.get(line) or self.commands.as_typed(line)
            self.table.handle(command)
        return self.outputs.since(start)

    def key(self, name: str) -> list[str]:
        start = len(self.outputs.texts)
        self.table.handle(self.commands.keys[name])
        return self.outputs.since(start)

    def wait(self, seconds: float = 1.0, times: int = 1) -> list[str]:
        start = len(self.outputs.texts)
        for _ in range(times):
            self.clock.now += seconds
            self.table.tick()
        return self.outputs.since(start)

    def until_my_turn(self, seat: int = 0, limit: int = 40) -> None:
        for _ in range(limit):
            if self.play.to_act == seat or self.play.is_over:
                return
            self.wait()
        raise AssertionError("the turn never came")


HEARTS_DEAL = hands_around({0: "QH 4H KS 2C QS KH 3C 4C 5C 6C 7C 8C 9C", 1: "AH 9H", 2: "5H", 3: "7H"})
"""Seat 0 (you) holds two queens; seat 1 (the caller, dealer 0) holds the ace of hearts."""


def test_the_caller_names_trumps_with_words_and_then_hears_its_whole_hand() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    assert table.play.to_act == 0
    said = table.outputs.texts
    assert any(text.startswith("You call trumps. Your first five:") for text in said)
    assert "Deal 1: guest 3 deals, and you call trumps." in said
    said = table.send("spades are trumps")
    assert said[0] == "You name spades trumps."
    assert said[1].startswith("Your hand: spades,")
    assert said[-1] == "Your turn to lead trick 1."


def test_the_hand_is_said_by_suit_counts_first_trumps_first_high_to_low() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("spades are trumps")
    said = table.key("a")[0]
    assert said.startswith("Your hand, 13 cards: spades, ")
    hearts = re.search(r"hearts, (\d+): ([a-z, ]+)", said)
    assert hearts is not None
    ranks = hearts.group(2).split(", ")
    assert int(hearts.group(1)) == len(ranks) == 3 and ranks == ["king", "queen", "four"]


SPADES_LED = hands_around({1: "AS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S AD KD", 0: "KS QS QH 4H 2C 3C 4C 5C 6C 7C 8C 9C 10C"})
"""Seat 1 calls (dealer 0) holding nearly every spade: it names spades and leads one."""


def test_arrows_browse_the_hand_and_a_card_that_cannot_be_played_says_why() -> None:
    table = CourtPieceTable(Rules.make(), hands=SPADES_LED, dealer=0)
    table.until_my_turn()
    assert table.outputs.texts[-1] == "Your turn: spades led, you have 2."
    assert table.key("h") == ["The queen of hearts, can't play: you must follow spades."]
    assert table.key("right") == ["The four of hearts, can't play: you must follow spades."]
    assert table.key("s") == ["The king of spades."]
    assert table.key("right") == ["The queen of spades."]
    assert table.key("end") == ["The king of spades."]
    assert table.key("home") == ["The queen of spades."]
    assert table.key("down") == ["The ten of clubs, can't play: you must follow spades."]
    assert table.key("enter") == ["You must follow spades."]
    table.key("s")
    assert table.key("enter")[0] == "You play the king of spades."


def test_enter_plays_the_card_under_the_cursor() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("hearts are trumps")
    cursor = table.key("h")[0]
    assert cursor == "The king of hearts."
    said = table.key("enter")
    assert said[0] == "You lead the king of hearts."


def test_typed_cards_lowest_highest_and_a_rank_alone_play_the_card_meant() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps")
    assert table.send("queen")[0] == "Which one: the queen of hearts or the queen of spades?"
    assert table.send("the queen of hearts")[0] == "You lead the queen of hearts."


def test_a_card_not_held_and_a_card_out_of_turn_are_refused_and_change_nothing() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps")
    before = len(table.events)
    assert table.send("ace of hearts") == ["You don't hold the ace of hearts."]
    assert len(table.events) == before
    table.send("queen of hearts")
    assert table.send("king of spades") == ["It is guest 1's turn; the computer plays it."]


def test_computer_seats_play_after_the_beat_and_are_named_from_the_listeners_seat() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps", "queen of hearts")
    said = table.wait(times=3)
    assert said[0].startswith("Guest 1 plays the ") or said[0].startswith("Guest 1 trumps")
    assert said[1].startswith("Your partner plays") or said[1].startswith("Your partner trumps")


def test_questions_answer_from_the_listeners_view() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps", "queen of hearts")
    table.wait()
    assert table.key("t")[0].startswith("Trick 1: you, the queen of hearts; guest 1, the ")
    assert table.key("u") == ["Clubs are trumps."]
    assert table.key("w") == ["It is your partner's turn."]
    assert table.key("p")[0] == "Score: your team 0, their team 0; first team to 10 points wins."
    table.wait(times=3)
    assert table.key("k")[0].startswith("Tricks: your team ")
    assert table.key("l")[0].startswith("Last trick, 1: you, the queen of hearts")
    assert table.key("H")[0].startswith("Hearts played: queen")
    assert table.send("whose turn")[0].startswith("It is ")


def test_hint_names_a_legal_card_and_one_reason_from_the_view_only() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    table.send("clubs are trumps")
    hint = table.key("i")[0]
    assert hint.startswith("Hint: play the ")
    card = CARD_WORDS.search(hint)
    assert card is not None
    assert Card(RANK_CODES[card.group(1)] + card.group(2)[0].upper()) in HEARTS_DEAL[0]
    assert "\n" not in hint


def test_help_says_what_can_be_said_now_and_the_keys() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3)
    said = table.key("?")
    assert said[0].startswith("You call trumps: say hearts are trumps")
    assert said[-1].startswith("Keys: left and right move through your hand")


def play_whole_session(table: CourtPieceTable) -> None:
    table.send("auto-play on")
    for _ in range(3000):
        if table.table.over:
            return
        table.wait()
    raise AssertionError("the session did not end")


@pytest.mark.parametrize("rules", [
    Rules.make(), Rules.make(trump="hidden"), Rules.make("double-sir", trump="card"), Rules.make("be-ranga"),
    Rules.make("hidden-rung"),
])
def test_auto_play_plays_a_whole_session_whose_log_follows_the_rules(rules: Rules) -> None:
    table = CourtPieceTable(rules, seed=7)
    play_whole_session(table)
    assert table.outputs.texts[-1] == "Say new game or press g; say quit or press q."
    assert table.outputs.texts[-2].startswith("Game over:")
    assert check_log(encode_events(table.events).splitlines()) == []  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", [Rules.make(trump="hidden"), Rules.make("hidden-rung"), Rules.make("double-sir"),
                                   Rules.make("be-ranga")])
def test_nothing_said_names_a_card_the_listener_may_not_know(rules: Rules) -> None:
    """Every card named is the listener's own (as dealt so far), played face up, or shown to all.

    A move's events come before its words, and one move can end a deal and start the next: the
    words of a batch may name what the events of that batch made known, in either deal."""
    for seed in range(3):
        table = CourtPieceTable(rules, seed=seed)
        play_whole_session(table)
        known: set[Card] = set()
        allowed: set[Card] = set()
        rest: set[Card] = set()
        in_batch = False
        for item in table.timeline:
            if hasattr(item, "text"):
                in_batch = False
                for rank, suit in CARD_WORDS.findall(item.text):  # type: ignore[attr-defined]
                    card = Card(RANK_CODES[rank] + suit[0].upper())
                    assert card in allowed, f"{item.text!r} names {card.code}"  # type: ignore[attr-defined]
                continue
            if not in_batch:
                allowed = set(known)
                in_batch = True
            if isinstance(item, DealDone):
                all_at_once = rules.variant.value == "be-ranga"
                known = set(item.hands[0] if all_at_once else item.hands[0][:5])
                rest = set(item.hands[0])
            elif isinstance(item, TrumpChosen):
                if item.how != "unable":
                    known |= rest
                if item.card is not None and item.how in ("card", "random", "later", "unable"):
                    known.add(item.card)
            elif isinstance(item, TrumpRevealed) or (
                    isinstance(item, CardPlayed) and (not item.face_down or item.seat == 0)):
                known.add(item.card)
            allowed |= known


def test_two_people_at_one_keyboard_hear_their_own_hands_only_after_taking_it() -> None:
    table = CourtPieceTable(Rules.make(), seed=4, people=(0, 2))
    assert table.send("hand") == [
        "Nobody has the keyboard yet: the table says whom to pass it to when a person's turn comes."]
    for _ in range(40):
        if table.play.to_act in (0, 2) and table.outputs.texts[-1].startswith("Pass the keyboard to"):
            break
        table.wait()
    seat = table.play.to_act
    name = "the host" if seat == 0 else "guest 2"
    assert table.outputs.texts[-1].startswith(f"Pass the keyboard to {name}.")
    assert table.send("lowest") == [f"Pass the keyboard to {name} first: {name} presses Enter."]
    said = table.key("enter")
    assert said[0].startswith("Your hand") or said[0].startswith("You call trumps")
    session = table.play.session
    assert session is not None and seat is not None
    own = set(session.view(seat).hand)
    rank_words = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "ten": "10", "nine": "9", "eight": "8",
                  "seven": "7", "six": "6", "five": "5", "four": "4", "three": "3", "two": "2"}
    for suit, ranks in re.findall(r"(clubs|diamonds|hearts|spades), \d+: ([a-z, ]+?)(?:;|\.)", said[0]):
        for rank in ranks.split(", "):
            assert Card(rank_words[rank] + suit[0].upper()) in own  # the holder's own cards, nobody else's


def test_the_game_speaks_bengali_with_bengali_card_words() -> None:
    table = CourtPieceTable(Rules.make(), hands=HEARTS_DEAL, dealer=3, language="bn")
    said = table.send("ইস্কাবন রং")
    assert said[0] == "তুমি রং ডাকলে ইস্কাবন।"
    assert table.send("হরতনের বিবি")[0] == "তুমি শুরু করলে হরতনের বিবি দিয়ে।"
