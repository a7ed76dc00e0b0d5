"""The Court Piece computer seats: legal in every variant, blind to all but their view, sound habits, true hints.

Whole sessions are short (a low target) so that the strong level, on a tiny budget, plays every
variant in a few seconds; its strength is measured by ``benchmarks/bench_bots.py``, never here.
"""

from __future__ import annotations

import ast
from pathlib import Path
from random import Random

import pytest
from court_piece_deals import hands_around, play, stacked

from voice_rang.cards import Card, Suit
from voice_rang.games.court_piece.actions import Action, NameTrump, PlayCard, RevealTrump
from voice_rang.games.court_piece.bots import LEVELS, make_bot
from voice_rang.games.court_piece.bots.base import Bot, Explanation
from voice_rang.games.court_piece.bots.easy import EasyBot
from voice_rang.games.court_piece.bots.normal import NormalBot
from voice_rang.games.court_piece.bots.playout import Deal
from voice_rang.games.court_piece.bots.reasons import REASONS
from voice_rang.games.court_piece.bots.sampling import Template, deal_from
from voice_rang.games.court_piece.bots.strong import StrongBot
from voice_rang.games.court_piece.bots.value import session_chance
from voice_rang.games.court_piece.deck import index_of
from voice_rang.games.court_piece.events import DealEnded
from voice_rang.games.court_piece.narration import CourtPieceNarration
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.runner import play_session
from voice_rang.games.court_piece.session import Session
from voice_rang.games.court_piece.view import Phase, SeatView
from voice_rang.narration.narrator import Narrator
from voice_rang.prompts import load_game_prompts

TINY_BUDGET = 0.005

ENGLISH_PROMPTS, _ = load_game_prompts("en", "court-piece")
ENGLISH: dict[str, str] = ENGLISH_PROMPTS.messages["court_piece"]["reasons"]
"""The reasons' English words, as the table says them in a hint."""


def _empty_view() -> SeatView:
    session = Session(Rules.make(), Random(0))
    session.start()
    return session.view(0)


EMPTY_VIEW = _empty_view()
"""A view with no trick on the table, for reasons that need none."""


def sentence(explanation: Explanation, view: SeatView | None = None) -> str:
    """A reason as the table says it to the seat whose view it is (seat 0 where no view is given)."""
    narrator = Narrator(prompts=ENGLISH_PROMPTS, seats=4, listener=view.seat if view else 0,
                        kinds=("person", "computer", "computer", "computer"), partners=True)
    return CourtPieceNarration(narrator, Rules.make()).reason(explanation, view or EMPTY_VIEW)


def card_words(card: Card) -> str:
    return Narrator(prompts=ENGLISH_PROMPTS, seats=4).card(card)

VARIANTS = {
    "named, redeal": dict(variant="court-piece", trump="named", redeal=True),
    "card, redeal": dict(variant="court-piece", trump="card", redeal=True),
    "hidden, redeal": dict(variant="court-piece", trump="hidden", redeal=True),
    "blind": dict(variant="court-piece", trump="blind"),
    "double sir, later and options": dict(
        variant="double-sir", trump="later", no_early_late=True, aces_no_collect=True, goon=10
    ),
    "double sir, hidden": dict(variant="double-sir", trump="hidden", redeal=True),
    "be-ranga": dict(variant="be-ranga"),
    "hidden rung": dict(variant="hidden-rung", trump="hidden", redeal=True),
    "hidden rung, blind": dict(variant="hidden-rung", trump="blind"),
}
"""Every variant and option a bot has to decide in; sessions are kept short with a low target."""


class Checked:
    """A bot whose every action is checked against the view's legal actions (and its hint against the words)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.level = bot.level
        self.decisions = 0

    def decide(self, view: SeatView) -> Action:
        action = self.bot.decide(view)
        assert action in view.legal, f"{self.level} chose {action} not in {view.legal}"
        self.decisions += 1
        if self.decisions % 7 == 0:
            said = sentence(self.bot.explain(view, action), view)
            assert said and "\n" not in said
        return action

    def explain(self, view: SeatView, action: Action) -> Explanation:
        return self.bot.explain(view, action)


def session_between(rules: Rules, first: str, second: str, seed: int) -> Session:
    levels = (first, second, first, second)
    bots = [Checked(make_bot(level, Random(f"{seed}:{seat}"), budget=TINY_BUDGET)) for seat, level in enumerate(levels)]
    session = Session(rules, Random(seed), players=levels)
    play_session(session, bots)
    return session


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_sessions_of_every_variant_legally(level: str, name: str) -> None:
    options = dict(VARIANTS[name])
    rules = Rules.make(options.pop("variant"), target=3, **options)  # type: ignore[arg-type]
    other = "easy" if level == "normal" else "normal"
    session = session_between(rules, level, other, seed=len(name) + LEVELS.index(level))
    assert session.is_over and session.result is not None


def test_courts_scoring_sessions_are_played_to_their_last_deal() -> None:
    session = session_between(Rules.make(scoring="courts", deals=2), "strong", "normal", seed=5)
    assert session.result is not None and session.result.reason == "deals"


# ----- nothing but the view ------------------------------------------------------------------------


def a_view(seed: int = 3) -> SeatView:
    """A mid-deal view of the seat to play, from a session played a little way by the normal level."""
    session = Session(Rules.make(), Random(seed))
    session.start()
    normal = NormalBot(Random(seed))
    for _ in range(9):
        seat = session.to_act
        assert seat is not None
        session.apply(seat, normal.decide(session.view(seat)))
    seat = session.to_act
    assert seat is not None
    return session.view(seat)


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_given_only_a_view_decides(level: str) -> None:
    view = a_view()
    bot = make_bot(level, Random(1), budget=TINY_BUDGET)
    action = bot.decide(view)
    assert action in view.legal
    assert bot.explain(view, action).reason in REASONS


def test_no_bot_module_imports_the_session_or_anything_that_holds_the_hands() -> None:
    folder = Path(__file__).resolve().parent.parent / "voice_rang" / "games" / "court_piece" / "bots"
    forbidden = {"session", "runner", "simulate", "log", "events"}
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = {part for part in (node.module or "").split(".") if part}
                assert not names & forbidden, f"{path.name} imports {node.module}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert not set(alias.name.split(".")) & forbidden, f"{path.name} imports {alias.name}"


# ----- habits on stacked deals -------------------------------------------------------------------------


def after(fixed: dict[int, str], moves: list[str], voids: dict[int, str] | None = None, trump: str = "S") -> SeatView:
    """The view of the seat to play after seat 0 (the caller) names ``trump`` and ``moves`` are played."""
    session = stacked(Rules.make(), hands_around(fixed, voids), dealer=3)
    session.apply(0, NameTrump(Suit(trump)))
    play(session, moves)
    seat = session.to_act
    assert seat is not None
    return session.view(seat)


def played(bot: Bot, view: SeatView) -> str:
    action = bot.decide(view)
    assert isinstance(action, PlayCard)
    return action.card.code


def test_normal_never_overtakes_its_partner_who_is_winning() -> None:
    view = after({0: "AH 2C", 1: "2H", 2: "KH 3H"}, ["AH", "2H"])
    assert played(NormalBot(Random(0)), view) == "3H"


def test_normal_does_not_trump_its_partners_winning_card() -> None:
    view = after({0: "AH 2C", 1: "2H", 2: "AS KS 2D 3C"}, ["AH", "2H"], voids={2: "H"})
    card = played(NormalBot(Random(0)), view)
    assert not card.endswith("S"), card


def test_normal_wins_as_cheaply_as_it_can() -> None:
    view = after({0: "5H 2C", 1: "2H", 2: "9H", 3: "AH KH 10H 3H"}, ["5H", "2H", "9H"])
    assert played(NormalBot(Random(0)), view) == "10H"


def test_normal_trumps_with_the_lowest_trump_that_wins_last_in_the_trick() -> None:
    view = after({0: "5H 2C", 1: "2H", 2: "9H", 3: "AS 7S 4S 2D 3D 4D 5D 6D 7D 8D 9D 10D 3C"}, ["5H", "2H", "9H"])
    assert played(NormalBot(Random(0)), view) == "4S"


def test_normal_cashes_the_highest_card_left_when_it_leads() -> None:
    # seat 0 leads with no trumps (spades) and an ace: it cashes an ace, the highest card left of its suit
    session = stacked(Rules.make(), hands_around({0: "AC 4C 7D 9D 2H"}, {0: "S"}), dealer=3)
    session.apply(0, NameTrump(Suit.SPADES))
    assert played(NormalBot(Random(0)), session.view(0)).startswith("A")


def test_easy_follows_with_its_lowest_card() -> None:
    view = after({0: "5H 2C", 1: "9H", 2: "2H", 3: "AH KH 10H 3H"}, ["5H", "9H", "2H"])
    assert played(EasyBot(Random(0)), view) == "3H"


def test_easy_trumps_low_when_it_cannot_follow() -> None:
    view = after({0: "5H 2C", 1: "2H", 2: "9H", 3: "AS 7S 4S 2D 3D 4D 5D 6D 7D 8D 9D 10D 3C"}, ["5H", "2H", "9H"])
    assert played(EasyBot(Random(0)), view) == "4S"


def test_easy_names_its_longest_suit_of_the_first_five() -> None:
    session = stacked(Rules.make(), hands_around({0: "2D 5D 9D AS KS"}), dealer=3)
    assert EasyBot(Random(0)).decide(session.view(0)) == NameTrump(Suit.DIAMONDS)


def test_normal_asks_for_a_redeal_when_all_five_are_low_and_short() -> None:
    session = stacked(Rules.make(redeal=True), hands_around({0: "2D 5D 9H 3S 4C"}), dealer=3)
    assert type(NormalBot(Random(0)).decide(session.view(0))).__name__ == "AskRedeal"


# ----- the strong level ----------------------------------------------------------------------------


def test_strong_answers_at_once_when_it_has_a_single_legal_card() -> None:
    view = after({0: "5H 2C", 1: "9H", 2: "2H", 3: "KH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS AS"}, ["5H", "9H", "2H"])
    bot = StrongBot(Random(0))
    assert view.legal_mask.bit_count() == 1
    assert bot.search(view) is None
    assert played(bot, view) == "KH"


def test_strong_answers_at_once_when_all_its_legal_cards_are_equivalent() -> None:
    view = after({0: "5H 2C", 1: "9H", 2: "2H", 3: "KH QH JH 2S 3S 4S 5S 6S 7S 8S 9S 10S AS"}, ["5H", "9H", "2H"])
    bot = StrongBot(Random(0))
    assert bot.search(view) is None
    assert played(bot, view) == "JH"


def test_strong_is_deterministic_given_its_rng() -> None:
    view = a_view(seed=11)
    first = StrongBot(Random(4), budget=0.02).decide(view)
    second = StrongBot(Random(4), budget=0.02).decide(view)
    assert first == second


def test_strong_with_a_tiny_budget_still_plays_legally_and_explains_itself() -> None:
    session = Session(Rules.make(target=4), Random(8))
    session.start()
    bots = [StrongBot(Random(seat), budget=0.001) for seat in range(4)]
    while session.to_act is not None:
        seat = session.to_act
        view = session.view(seat)
        action = bots[seat].decide(view)
        assert action in view.legal
        explanation = bots[seat].explain(view, action)
        assert explanation.reason in REASONS
        if isinstance(action, PlayCard):
            assert card_words(action.card) in sentence(explanation, view)
        session.apply(seat, action)


# ----- the words --------------------------------------------------------------------------------


def test_every_reason_has_english_words() -> None:
    assert set(ENGLISH) == set(REASONS)


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_explanation_sentences_are_one_line_and_name_the_card_played(level: str) -> None:
    session = Session(Rules.make(target=3), Random(21))
    session.start()
    bots = [make_bot(level, Random(seat), budget=TINY_BUDGET) for seat in range(4)]
    said = 0
    while session.to_act is not None:
        seat = session.to_act
        view = session.view(seat)
        action = bots[seat].decide(view)
        words = sentence(bots[seat].explain(view, action), view)
        assert words and "\n" not in words and len(words) < 120
        if isinstance(action, PlayCard):
            assert card_words(action.card) in words, words
            said += 1
        session.apply(seat, action)
    assert said > 20


def test_the_sentence_for_a_winner_names_the_card_that_is_gone() -> None:
    explanation = Explanation("wins gone", card=Card("KH"), cards=(Card("AH"),), suit=Suit.HEARTS)
    assert sentence(explanation) == "the king of hearts wins the trick: the ace of hearts is gone"


def test_the_partner_is_named_from_the_listeners_chair() -> None:
    view = after({0: "AH 2C", 1: "2H", 2: "KH 3H"}, ["AH", "2H"])
    action = NormalBot(Random(0)).decide(view)
    words = sentence(NormalBot(Random(0)).explain(view, action), view)
    assert words == "your partner is winning this trick, so a low heart: the three of hearts"


# ----- the search's own parts ------------------------------------------------------------------------


def test_guessed_deals_agree_with_the_view() -> None:
    rng = Random(2)
    for seed in range(6):
        session = Session(Rules.make(trump="hidden"), Random(seed), players=("random",) * 4)
        session.start()
        chooser = Random(seed)
        while session.to_act is not None and session.deal_number == 1:
            seat = session.to_act
            view = session.view(seat)
            if view.phase is Phase.PLAY:
                template = Template(view)
                deal = template.sample(rng)
                assert deal is not None
                assert deal.hands[seat] == view.hand_mask
                for other in range(4):
                    assert not deal.hands[other] & view.seen_mask
                    if other != seat:
                        assert not deal.hands[other] & template.barred[other]
                        count = deal.hands[other].bit_count() + (deal.aside >= 0 and other == view.caller)
                        assert count == view.held[other]
            session.apply(seat, chooser.choice(view.legal))


@pytest.mark.parametrize("name", VARIANTS)
def test_the_play_out_deal_ends_as_the_engine_does(name: str) -> None:
    options = dict(VARIANTS[name])
    rules = Rules.make(options.pop("variant"), **options)  # type: ignore[arg-type]
    for seed in range(12):
        session = Session(rules, Random(seed), players=("random",) * 4)
        session.start()
        chooser = Random(seed)
        deal: Deal | None = None
        while session.to_act is not None and session.deal_number == 1:
            seat = session.to_act
            view = session.view(seat)
            if view.phase is Phase.PLAY and deal is None and view.trick_number >= 3:
                deal = deal_from(view)
                deal.hands = list(session._hands)  # the test knows every hand; a bot never does
                deal.aside = session._aside
            if deal is not None:
                assert deal.legal(seat) == (view.legal_mask, view.face_down_only, view.may_reveal)
            action = chooser.choice(view.legal)
            events = session.apply(seat, action)
            if deal is not None:
                if isinstance(action, PlayCard):
                    deal.play(seat, index_of(action.card), action.face_down)
                elif isinstance(action, RevealTrump):
                    deal.reveal(seat)
            for event in events:
                if isinstance(event, DealEnded) and deal is not None:
                    assert deal.outcome is not None
                    assert deal.outcome.winner == event.winner and deal.outcome.kind == event.kind
                    assert (deal.outcome.won0, deal.outcome.won1) == event.tricks


def test_a_point_is_worth_more_near_the_target() -> None:
    early = session_chance(2, 0, True, 10) - session_chance(0, 0, True, 10)
    late = session_chance(9, 8, True, 10) - session_chance(8, 8, True, 10)
    assert late > early > 0


def test_every_reason_has_bengali_words() -> None:
    bengali, _ = load_game_prompts("bn", "court-piece")
    assert set(bengali.messages["court_piece"]["reasons"]) == set(REASONS)
