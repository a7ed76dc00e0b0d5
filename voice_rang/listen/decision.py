"""The one decision rule: what the game does with an utterance, from what each acoustic model said.

Receives: the grammar decoders' :class:`.results.Recognition` (which also carries duration,
"said on its own" and the room's SNR), the command head's :class:`.command_head.HeadScores`, the
match against the player's own enrolled takes (:class:`.personal.PersonalMatch`, or ``None``),
and the commands valid now. Emits: one :class:`.results.Recognition`.

The order of the checks is the order of what matters: never act on a command that is not valid
now; a command heard as *another* command is the worst error, so where the two models name
different commands the game asks rather than acts; "too noisy" only when nothing can be trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .results import Recognition

if TYPE_CHECKING:
    from .command_head import HeadScores
    from .personal import PersonalMatch

__all__ = ["GRAMMAR_DECIDES", "SETTLED", "Lean", "Rule", "decide", "said_again", "siblings"]

Lean = tuple[str | None, float]
"""The head's likeliest command valid now and its probability (``None`` when none is valid)."""

GRAMMAR_DECIDES = frozenset({"too short", "too long", "part of longer talk", "silence"})
"""What the grammar side decides alone: duration sanity and "a command is said on its own"."""


@dataclass(frozen=True)
class Rule:
    """The numbers and switches of :func:`decide` (``bench_neural.py`` measures each)."""

    accept: float = 0.9
    """Head probability from which a command is acted on (the model's own, from its training)."""
    ask: float = 0.5
    """Head probability from which the game asks "Did you say …?"."""
    grammar_veto: bool = True
    """When the grammar decoders are sure of a *different* command, ask instead of acting."""
    grammar_rescue: bool = True
    """When the head only leans to a command (``ask`` or more) and the grammar decoders are sure
    of the same one, or lean to it themselves (``unsure``, ``poor match``), act on it: two
    models naming the same command is what a question would have confirmed."""
    grammar_trust: bool = True
    """When the grammar decoders are sure of a command, act on it unless the head leans to a
    different command (then ask) or is sure it is not a command (then ask): the head vetoes, it
    does not have to agree. Without this, a clear command the head was merely unsure of was
    dropped in silence (flite's slt: 100 % of clean commands right through the release, 80 %)."""
    trust_min_head: float = 0.03
    """A command the grammar decoders are sure of is asked about, not acted on, when the head gives
    it less than this: the head all but rules it out. On the training voices' new takes this cost
    no right command and took away a wrong one across a room and one under music, a line of talk
    and a near word in quiet and a near word under music (``docs/voice-experiments.md``)."""
    second_opinion: float = 0.15
    """When the grammar decoders are sure of a command and the head only leans (under
    ``accept``) to the same command with another setting ("auto reveal on" for "auto reveal
    off", :func:`siblings`), the grammar's command stands if the head gives it at least this much.
    The head pools the whole utterance (24 spans of Moonshine's encoder) and confuses commands that
    differ only in their last word; the grammar decoders hear that word. On new takes of the
    training voices every such case was "auto reveal on" and "off" taken one for the other by
    the head (the head giving the grammar's command 0.21-0.33), and the grammar was right; where
    the head leant to a command of another kind the grammar was wrong (the head giving its command 0.01-0.08). The worst
    this can do is a wrong setting, never a card turned or a game quit. ``1.0``: the game always
    asks then."""
    noisy_db: float = 6.0
    """Below this SNR an unsure answer is said as "too noisy": the player learns why."""
    personal_min_snr_db: float = 15.0
    """Below this SNR the player's takes (recorded in quiet) only confirm the head's own lean
    (``ask`` or more) and never decide alone: on the held-out enrolled voices at 10 dB, letting
    them decide made 6.8 % of commands the wrong one."""
    personal_min_head: float = 0.05
    """In a room with sound in it (under ``personal_quiet_db``) the player's takes decide only
    a command the head gives at least this much: they confirm what the head half heard, never
    stand against a head that all but rules the command out. Takes are recorded in quiet, and
    over music a short one can lie nearer the music alone than the same word said over that
    music does: on music with nobody speaking the takes named "turn" or "stop" where the head
    gave it about 0.01, and the card turned by itself (the radio benchmark's music and a
    training package's both). On the training voices' new takes every command the takes rightly
    decided had 0.13 or more from the head."""
    personal_quiet_db: float = 30.0
    """At or above this SNR the room is quiet, as the takes were made, and they decide alone: a
    voice the head all but fails to hear (a child, atypical speech) is what the takes are for.
    The music that matched takes stood 13-19 dB over its own floor."""
    again_min: float = 2.0
    """A command said again (:func:`said_again`): how likely the head must find it in both
    utterances; above 1, as by default, never. Off: on pairs of the training voices' takes its
    best setting (0.15) answered 2 more of 396 commands said twice and took 3 more near words said
    twice, short of what it had to gain to be kept (docs/voice-experiments.md, *A command said
    again*), so it is measured (``benchmarks/bench_again.py``), not used."""
    again_within_ms: float = 8000.0
    """And at most this much silence between them (the game said nothing in between: its speech
    makes the listener forget what it heard before)."""
    use_head: bool = True
    """``False``: the grammar decoders alone (the release before the head, for comparison)."""


def siblings(one: str, other: str) -> bool:
    """Two settings of one command (ids ``"<command> <setting>"``: "auto-reveal on" and
    "auto-reveal off", "verbosity brief" and "verbosity full").

    >>> siblings("auto-reveal on", "auto-reveal off"), siblings("turn", "status")
    (True, False)
    """
    family = one.rpartition(" ")[0]
    return bool(family) and family == other.rpartition(" ")[0] and one != other


def decide(grammar: Recognition, scores: HeadScores | None, allowed: frozenset[str] | None,
           rule: Rule, personal: PersonalMatch | None = None) -> Recognition:
    """One answer for one utterance.

    >>> from voice_rang.listen.command_head import HeadScores
    >>> said = Recognition(None, "[the] [cat]", False, 1.0, "not a command", 500.0)
    >>> head = HeadScores(("", "turn", "stop"), (0.02, 0.97, 0.01))
    >>> decide(said, head, None, Rule()).command
    'turn'
    >>> decide(said, head, frozenset({"stop"}), Rule()).reason
    'not valid now'
    >>> sure_stop = replace(said, command="stop", reason="command", guess="stop")
    >>> decide(sure_stop, head, None, Rule()).reason   # two models, two commands: ask
    'doubt'
    """
    if not rule.use_head or scores is None or grammar.reason in GRAMMAR_DECIDES:
        return grammar
    command, p, _runner = scores.best(allowed)
    anything, p_any, _ = scores.best(None)

    def answer(chosen: str | None, unsure: bool, reason: str, *, own: bool = False,
               confidence: float = p) -> Recognition:
        return replace(grammar, command=chosen, unsure=unsure, reason=reason,
                       guess=command if chosen is None and unsure else chosen,
                       confidence=confidence, personal=own)

    mine = personal.command if personal is not None else None
    quiet = grammar.snr_db >= rule.personal_quiet_db
    if mine is not None and (allowed is None or mine in allowed) and (
            quiet or scores.of(mine) >= rule.personal_min_head) and (
            grammar.snr_db >= rule.personal_min_snr_db or (command == mine and p >= rule.ask)):
        if command == mine or p < rule.accept:
            return answer(mine, False, "command", own=True)
        return replace(answer(None, True, "doubt"), guess=mine)
    grammar_sure = grammar.command if grammar.reason == "command" else None
    if command is not None and p >= rule.accept:
        if rule.grammar_veto and grammar_sure is not None and grammar_sure != command:
            return answer(None, True, "doubt")
        return answer(command, False, "command")
    if rule.grammar_trust and grammar_sure is not None and (allowed is None or grammar_sure in allowed):
        if command not in (None, grammar_sure) and p >= rule.ask and not (
                siblings(command, grammar_sure) and scores.of(grammar_sure) >= rule.second_opinion):
            return answer(None, True, "doubt")
        if scores.of("") >= rule.accept or scores.of(grammar_sure) < rule.trust_min_head:
            return replace(answer(None, True, "doubt", confidence=scores.of(grammar_sure)), guess=grammar_sure)
        return answer(grammar_sure, False, "command", confidence=scores.of(grammar_sure))
    if command is not None and p >= rule.ask:
        grammar_leans = grammar.guess == command and grammar.reason in ("unsure", "poor match")
        if rule.grammar_rescue and (grammar_sure == command or grammar_leans):
            return answer(command, False, "command")
        return answer(None, True, "too noisy" if grammar.snr_db < rule.noisy_db else "unsure")
    if grammar.reason == "too noisy" and (allowed is None or grammar.guess in allowed):
        # The grammar decoders heard a command too deep in the noise to trust and the head heard
        # none: the player is told why nothing happened, not left in silence.
        return grammar
    if anything is not None and allowed is not None and anything not in allowed and p_any >= rule.accept:
        return replace(answer(None, False, "not valid now", confidence=p_any), guess=anything)
    return replace(answer(None, False, "not a command"), guess=None)


SETTLED = GRAMMAR_DECIDES | {"command", "not valid now"}
"""Answers that nothing heard later changes: acted on, or ruled out by duration, by "said on its
own", or as a command that cannot be done now."""


def said_again(result: Recognition, lean: Lean, earlier: tuple[Recognition, Lean] | None,
               rule: Rule) -> Recognition:
    """:func:`decide`'s answer, or more, when the player says again what the game did not act on.

    A player who is not answered says the command again. Two utterances in a row that the head
    leans to the same command (each at least ``again_min``), the first met with silence (not
    acted on, not asked about, not "too noisy": any of those is an answer, and the game's
    speech makes the listener forget it), the second neither acted on nor asked about as two
    different commands, and neither ruled out by duration or "said on its own", are two
    hearings of one command: in a quiet room (both at least ``personal_quiet_db``) the game acts on it; in a
    noisy one it asks "Did you say …?", never acts, since there a miss can lean to another
    command and the same voice in the same noise leans the same way twice. ``earlier``: the
    answer to the utterance just before and its lean, or ``None`` (none within
    ``again_within_ms``, or the game spoke since).

    >>> said = Recognition(None, "[turn]", False, 1.0, "not a command", 500.0, snr_db=40.0)
    >>> again = Rule(again_min=0.15)
    >>> said_again(said, ("turn", 0.3), (said, ("turn", 0.25)), again).command
    'turn'
    >>> noisy = replace(said, snr_db=12.0)
    >>> asked = said_again(noisy, ("turn", 0.3), (said, ("turn", 0.25)), again)
    >>> asked.command, asked.unsure, asked.guess
    (None, True, 'turn')
    >>> said_again(said, ("turn", 0.3), (said, ("stop", 0.4)), again).command is None
    True
    """
    command, p = lean
    if earlier is None or command is None or result.command is not None or result.reason in _LEFT_ALONE:
        return result
    before, (was, p_was) = earlier
    if before.command is not None or before.unsure or before.reason in _LEFT_ALONE or was != command \
            or min(p, p_was) < rule.again_min:
        return result
    if min(result.snr_db, before.snr_db) >= rule.personal_quiet_db:
        return replace(result, command=command, unsure=False, reason="command", guess=command, confidence=p)
    return replace(result, command=None, unsure=True, reason="unsure", guess=command, confidence=p)


_LEFT_ALONE = SETTLED | {"doubt"}
"""Answers :func:`said_again` leaves as they are: acted on, ruled out whatever was said (by
duration, by "said on its own", or as a command that cannot be done now), and a question about
two different commands, which the game already asks."""
