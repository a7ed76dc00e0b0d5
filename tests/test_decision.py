"""The one decision rule: never a command that is not valid now, never one the models disagree on."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from voice_rang.listen.command_head import HeadScores
from voice_rang.listen.decision import Rule, decide, said_again
from voice_rang.listen.personal import PersonalMatch
from voice_rang.listen.results import Recognition

LABELS = ("", "turn", "stop", "help", "yes")


def heard(command: str | None = None, reason: str = "not a command", snr_db: float = 40.0) -> Recognition:
    return Recognition(command, command or "[the]", False, 1.0, reason, 600.0, command, snr_db)


def distributions(size: int) -> st.SearchStrategy[tuple[float, ...]]:
    """Probabilities over ``size`` labels, summing to one."""
    return st.lists(st.floats(0.0, 1.0), min_size=size, max_size=size).filter(
        lambda p: sum(p) > 0).map(lambda p: tuple(x / sum(p) for x in p))


probabilities = distributions(len(LABELS))
grammar = st.sampled_from([heard(), heard("turn", "command"), heard("stop", "command"),
                           heard(None, "too short"), heard(None, "part of longer talk")])
allowed_sets = st.one_of(st.none(), st.sets(st.sampled_from(LABELS[1:])).map(frozenset))


@given(p=probabilities, said=grammar, allowed=allowed_sets)
def test_only_a_command_valid_now_is_ever_acted_on(p: tuple[float, ...], said: Recognition,
                                                   allowed: frozenset[str] | None) -> None:
    result = decide(said, HeadScores(LABELS, p), allowed, Rule())
    if result.command is not None:
        assert allowed is None or result.command in allowed
        assert not result.unsure


@given(p=probabilities)
def test_the_head_and_the_grammar_naming_two_commands_is_a_question_never_an_act(p: tuple[float, ...]) -> None:
    scores = HeadScores(LABELS, p)
    rule = Rule()
    result = decide(heard("stop", "command"), scores, None, rule)
    best, p_best, _ = scores.best()
    if best not in (None, "stop") and p_best >= rule.ask:  # the head leans to another command
        assert result.command is None


SETTINGS = ("", "auto-reveal on", "auto-reveal off", "turn")


@given(p=distributions(len(SETTINGS)))
def test_a_setting_the_grammar_is_sure_of_stands_only_where_the_head_leans_to_another_setting_and_finds_it_likely(
        p: tuple[float, ...]) -> None:
    scores = HeadScores(SETTINGS, p)
    rule = Rule(accept=0.8, ask=0.41)
    result = decide(heard("auto-reveal off", "command"), scores, None, rule)
    best, p_best, _ = scores.best()
    if result.command is not None:
        assert result.command == "auto-reveal off"  # never the head's other command
    if best == "turn" and p_best >= rule.ask:
        assert result.command is None
    if best == "auto-reveal on" and p_best >= rule.ask:
        assert (result.command is not None) == (p_best < rule.accept and scores.of("auto-reveal off")
                                                >= rule.second_opinion and scores.of("") < rule.accept)


def test_auto_reveal_off_heard_by_the_grammar_stands_when_the_head_only_leans_to_on() -> None:
    labels = SETTINGS
    said = heard("auto-reveal off", "command")
    lean_on = HeadScores(labels, (0.01, 0.52, 0.33, 0.14))
    assert decide(said, lean_on, None, Rule(accept=0.8, ask=0.41)).command == "auto-reveal off"
    # The head all but rules the grammar's command out: the game asks.
    rules_it_out = HeadScores(labels, (0.01, 0.60, 0.01, 0.38))
    assert decide(said, rules_it_out, None, Rule(accept=0.8, ask=0.41)).reason == "doubt"
    # The head leans to a command of another kind: the game asks, however likely it finds theirs.
    other_kind = HeadScores(labels, (0.01, 0.05, 0.30, 0.64))
    result = decide(said, other_kind, None, Rule(accept=0.8, ask=0.41))
    assert result.command is None and result.reason == "doubt"
    # The head is sure of the other: the game asks, whatever it gave the grammar's command.
    sure_on = HeadScores(labels, (0.0, 0.81, 0.19, 0.0))
    assert decide(said, sure_on, None, Rule(accept=0.8, ask=0.41)).reason == "doubt"


def test_a_command_the_grammar_is_sure_of_and_the_head_all_but_rules_out_is_asked_about() -> None:
    ruled_out = HeadScores(LABELS, (0.75, 0.01, 0.01, 0.2, 0.03))
    result = decide(heard("stop", "command"), ruled_out, None, Rule())
    assert (result.command, result.unsure, result.guess) == (None, True, "stop")
    likely = HeadScores(LABELS, (0.75, 0.01, 0.2, 0.01, 0.03))
    assert decide(heard("stop", "command"), likely, None, Rule()).command == "stop"


def test_a_command_not_said_on_its_own_stays_talk_whatever_the_head_thinks() -> None:
    sure = HeadScores(LABELS, (0.0, 1.0, 0.0, 0.0, 0.0))
    assert decide(heard(None, "part of longer talk"), sure, None, Rule()).command is None


def test_a_lean_is_asked_about_and_said_as_too_noisy_only_in_a_very_noisy_room() -> None:
    lean = HeadScores(LABELS, (0.3, 0.6, 0.1, 0.0, 0.0))
    rule = Rule(accept=0.9, ask=0.5, grammar_rescue=False)
    assert decide(heard(snr_db=30.0), lean, None, rule).reason == "unsure"
    assert decide(heard(snr_db=2.0), lean, None, rule).reason == "too noisy"
    assert decide(heard(snr_db=2.0), lean, None, rule).guess == "turn"


def test_a_command_the_grammar_heard_too_deep_in_noise_and_the_head_not_at_all_is_said_as_too_noisy() -> None:
    nothing = HeadScores(LABELS, (0.82, 0.18, 0.0, 0.0, 0.0))
    noisy = Recognition(None, "turn", True, 1.0, "too noisy", 600.0, "turn", 15.0)
    result = decide(noisy, nothing, frozenset({"turn"}), Rule(accept=0.8, ask=0.41))
    assert (result.command, result.unsure, result.reason) == (None, True, "too noisy")
    assert decide(noisy, nothing, frozenset({"stop"}), Rule()).reason != "too noisy"  # not valid now


def test_the_players_own_takes_decide_in_a_quiet_room_what_the_stock_head_barely_hears() -> None:
    barely = HeadScores(LABELS, (0.9, 0.08, 0.02, 0.0, 0.0))
    mine = PersonalMatch("help", 0.95, 0.2)
    result = decide(heard(snr_db=40.0), barely, None, Rule(), mine)
    assert (result.command, result.personal) == ("help", True)
    assert decide(heard(snr_db=40.0), barely, frozenset({"turn"}), Rule(), mine).command is None


def test_the_players_takes_never_act_over_music_on_a_command_the_head_all_but_rules_out() -> None:
    """Music with nobody speaking, near a short take recorded in quiet: the head gives "turn"
    about 0.01 and the takes alone must not turn a card; a word the head half hears they decide."""
    music = HeadScores(LABELS, (0.88, 0.01, 0.0, 0.11, 0.0))
    result = decide(heard(snr_db=17.0), music, frozenset({"turn", "help"}), Rule(), PersonalMatch("turn", 0.92, 0.33))
    assert (result.command, result.personal) == (None, False)
    half = HeadScores(LABELS, (0.7, 0.2, 0.0, 0.1, 0.0))
    result = decide(heard(snr_db=17.0), half, frozenset({"turn", "help"}), Rule(), PersonalMatch("turn", 0.92, 0.33))
    assert (result.command, result.personal) == ("turn", True)


@given(p=probabilities, similarity=st.floats(0.8, 1.0), margin=st.floats(0.04, 1.0),
       snr_db=st.floats(0.0, 60.0))
def test_over_sound_the_takes_alone_act_only_on_a_command_the_head_gives_its_floor(
        p: tuple[float, ...], similarity: float, margin: float, snr_db: float) -> None:
    scores = HeadScores(LABELS, p)
    rule = Rule()
    result = decide(heard(snr_db=snr_db), scores, None, rule, PersonalMatch("turn", similarity, margin))
    if result.personal:
        assert result.command == "turn"
        assert snr_db >= rule.personal_quiet_db or scores.of("turn") >= rule.personal_min_head


commands = st.sampled_from([None, "turn", "stop", "help"])
answers = st.builds(
    lambda command, reason, snr: Recognition(command, "[turn]", reason in ("unsure", "doubt"), 1.0,
                                             "command" if command else reason, 600.0, command, snr),
    commands, st.sampled_from(["not a command", "unsure", "too noisy", "doubt", "part of longer talk",
                               "too short"]), st.floats(0.0, 60.0))
leans = st.tuples(commands, st.floats(0.0, 1.0))


@given(now=answers, lean=leans, before=answers, lean_before=leans)
def test_a_command_said_again_is_acted_on_only_after_silence_in_a_quiet_room_and_when_both_leaned_to_it(
        now: Recognition, lean: tuple[str | None, float], before: Recognition,
        lean_before: tuple[str | None, float]) -> None:
    rule = Rule(again_min=0.15)
    result = said_again(now, lean, (before, lean_before), rule)
    if now.command is not None or now.reason == "doubt":
        assert result == now  # acted on already, or a question about two commands already
    if result == now:
        return
    assert before.command is None and not before.unsure  # the first was met with silence
    assert lean[0] is not None and result.guess == lean[0] == lean_before[0]
    assert min(lean[1], lean_before[1]) >= rule.again_min
    if result.command is not None:
        assert result.command == lean[0]
        assert min(now.snr_db, before.snr_db) >= rule.personal_quiet_db
    else:
        assert result.unsure


def test_nothing_heard_before_leaves_the_answer_as_it_was() -> None:
    said = heard()
    assert said_again(said, ("turn", 0.9), None, Rule(again_min=0.15)) == said


def test_by_default_a_command_said_again_is_judged_as_if_said_once() -> None:
    said = heard()
    assert said_again(said, ("turn", 0.9), (said, ("turn", 0.9)), Rule()) == said
