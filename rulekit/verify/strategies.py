"""The Hypothesis backend: play driven by Hypothesis, so that a failure shrinks to a minimal witness.

A game is played from the start (chance included, no seed) by a list of small integers: at each
step, the i-th integer picks among the legal actions (or chance outcomes) by index, and when the
list runs out the first legal one is taken. Hypothesis generates such lists, keeps one on which the
failure shows, and shrinks it: fewer, smaller choices, so a shorter and simpler action sequence.
Settings are derandomized and the example database is off, so `rulekit check` is reproducible.
"""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from ..errors import RuleRuntimeError

_SETTINGS = dict(database=None, derandomize=True, deadline=None, phases=[Phase.generate, Phase.shrink],
                 suppress_health_check=list(HealthCheck), report_multiple_bugs=False)


def play(loaded, choices: list[int], max_steps: int, fails) -> list[int] | None:
    """Play by `choices`; the history up to the first state where `fails` holds, or None."""
    state = loaded.new_initial_state()
    for i in range(max_steps + 1):
        try:
            if fails(state):
                return list(state.history)
        except RuleRuntimeError:
            return list(state.history)
        if state.is_terminal() or not state.legal:
            return None
        legal = state.legal
        pick = choices[i] if i < len(choices) else 0
        try:
            state.apply_action(legal[pick % len(legal)])
        except RuleRuntimeError:
            return None  # a rule the engine refuses ends this play before any state where `fails` holds
    return None


def shrink(loaded, history: list[int], fails, max_examples: int = 300) -> list[int] | None:
    """A history no longer than `history` on which `fails` holds, found and shrunk by Hypothesis;
    None when Hypothesis finds nothing shorter."""
    found = _find_failing(loaded, fails, len(history), max_examples)
    if found is None or len(found) >= len(history):
        return None
    return found


def search(loaded, fails, max_steps: int = 200, max_examples: int = 100) -> list[int] | None:
    """Hypothesis-driven play looking for a state where `fails` holds; the shrunk history, or None."""
    return _find_failing(loaded, fails, max_steps, max_examples)


def _find_failing(loaded, fails, limit: int, max_examples: int) -> list[int] | None:
    """The history of the smallest list of choice indices (at most `limit`) on which `fails` holds."""
    strategy = st.lists(st.integers(min_value=0, max_value=63), max_size=limit)
    try:
        best = find(strategy, lambda cs: play(loaded, cs, limit, fails) is not None,
                    settings=settings(max_examples=max_examples, **_SETTINGS))
    except (NoSuchExample, Unsatisfiable):
        return None
    return play(loaded, best, limit, fails)
