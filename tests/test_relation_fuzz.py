"""Random small games (`random_specs`): the whole-language relation must model every one of them,
and every game the engine plays must follow it (`replay.follow`), step by step and state by state;
and what induction proves over it must hold along the engine's games."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from rulekit.checking.solving import inductive
from rulekit.errors import RuleRuntimeError
from rulekit.pipeline import Spec
from rulekit.verify import budget, control, replay

from helpers import TINY_RULEBOOK, write_spec
from random_specs import claimed_specs, random_specs

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]


def engine_game(loaded, seed: int, decisions: int = 40) -> list[int]:
    """The history of a random game, up to `decisions` decisions or the first rule error."""
    rng = random.Random(seed)
    state = loaded.new_initial_state(seed)
    made = 0
    while not state.is_terminal() and made < decisions and state.legal_actions():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes())
            action = rng.choices(outcomes, weights)[0]
        else:
            action = rng.choice(state.legal_actions())
            made += 1
        try:
            state.apply_action(action)
        except RuleRuntimeError:
            break
    return list(state.history)


def follows(text: str, folder) -> int:
    """The decisions of engine games followed through the relation of the game `text`, at each count."""
    spec = Spec.find(str(write_spec(folder, text, name="fz", rulebook=TINY_RULEBOOK)))
    followed = 0
    for players in range(spec.model.min_players, spec.model.max_players + 1):
        try:
            system = control.build(spec.config(players))
        except budget.TooLarge:
            continue
        loaded = spec.engine(players)
        for seed in range(3):
            problems, n = replay.follow(system, loaded, engine_game(loaded, seed))
            assert not problems, (players, seed, problems, text)
            followed += n
    return followed


@settings(max_examples=12, suppress_health_check=SUPPRESSED)
@given(text=random_specs())
def test_engine_games_of_random_specs_follow_the_whole_relation(text, tmp_path_factory):
    follows(text, tmp_path_factory.mktemp("fz"))


@pytest.mark.slow
@settings(max_examples=40, suppress_health_check=SUPPRESSED)
@given(text=random_specs())
def test_many_random_specs_follow_the_whole_relation(text, tmp_path_factory):
    follows(text, tmp_path_factory.mktemp("fz"))


def proofs_hold(text: str, names: list[str], folder) -> int:
    """The invariants that induction proves over the whole-language relation are never broken at a
    decision or an end of a random engine game; the proofs checked, at each count."""
    spec = Spec.find(str(write_spec(folder, text, name="fz", rulebook=TINY_RULEBOOK)))
    checked = 0
    for players in range(spec.model.min_players, spec.model.max_players + 1):
        try:
            system = control.build(spec.config(players))
        except budget.TooLarge:
            continue
        proven = set(inductive(system, names, 2000))
        loaded = spec.engine(players)
        for seed in range(4):
            state = loaded.new_initial_state(seed)
            for action in [*engine_game(loaded, seed), None]:
                if not state.is_chance_node():
                    broken = proven & {p.name for p in loaded.violated_invariants(state)}
                    assert not broken, (players, seed, broken, text)
                if action is not None:
                    state.apply_action(action)
        checked += len(proven)
    return checked


@pytest.mark.slow
@settings(max_examples=15, suppress_health_check=SUPPRESSED)
@given(claimed=claimed_specs())
def test_invariants_proven_over_the_whole_relation_hold_along_engine_games(claimed, tmp_path_factory):
    text, names = claimed
    proofs_hold(text, names, tmp_path_factory.mktemp("fz"))
