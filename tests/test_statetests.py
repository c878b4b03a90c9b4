"""`rulekit.engine.statetests`: every invariant and target compiled into one test of a state must say what
the engine's tests say one by one, on every state of random games."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from rulekit.engine.statetests import one_by_one
from rulekit.pipeline import Spec

from helpers import TINY_RULEBOOK, write_spec
from random_specs import targeted_specs

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]


def states_of(loaded, games: int, max_steps: int):
    for seed in range(games):
        state, rng = loaded.new_initial_state(seed=seed, auto_chance=True), random.Random(seed)
        for _ in range(max_steps):
            yield state
            if state.is_terminal() or not state.legal:
                break
            state = state.clone()
            state.apply_action(rng.choice(state.legal))


def assert_same_answers(loaded, games: int, max_steps: int) -> int:
    compiled, reference = loaded.state_tests, one_by_one(loaded)
    assert compiled.__name__ == "STATE_TESTS"  # compiled, not the fallback
    targets = [p.name for p, _ in loaded.properties("reachable")]
    seen = 0
    for state in states_of(loaded, games, max_steps):
        for reached in (set(), set(targets[::2])):
            broken, new = compiled(state, reached)
            assert [list(broken), list(new)] == [list(x) for x in reference(state, reached)]
        seen += 1
    return seen


@pytest.mark.parametrize("name,players", [("chucky", 3), ("chocobo", 4), ("chicken", 3), ("chuche", 4), ("cranky", 6)])
def test_the_compiled_tests_answer_as_the_engines_on_every_state(name, players):
    spec = Spec.find(name)
    assert assert_same_answers(spec.engine(players, dict(spec.model.default_options())), 4, 400) > 50


@settings(max_examples=30, suppress_health_check=SUPPRESSED, deadline=None)
@given(text=targeted_specs())
def test_the_compiled_tests_of_random_games_answer_as_the_engines(text, tmp_path_factory):
    spec = Spec.find(str(write_spec(tmp_path_factory.mktemp("fz"), text, name="fz", rulebook=TINY_RULEBOOK)))
    assert_same_answers(spec.engine(2, {}), 3, 60)


def test_a_state_that_breaks_an_invariant_is_tested_for_the_targets_too(tmp_path):
    text = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
var n: int 0..9 = 0
flow { add 1 to n }
invariant small: n <= 0
invariant fine: n <= 9
reachable one: n == 1
"""
    loaded = Spec.find(str(write_spec(tmp_path, text, rulebook=TINY_RULEBOOK))).engine(2, {})
    end = loaded.new_initial_state(seed=0, auto_chance=True)
    assert end.is_terminal()
    assert [list(x) for x in loaded.state_tests(end, set())] == [["small"], ["one"]]  # a state the rules reach
