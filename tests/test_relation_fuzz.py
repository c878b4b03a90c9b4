"""Random small games (`random_specs`): the whole-language relation must model every one of them,
and every game the engine plays must follow it (`replay.follow`), step by step and state by state;
and what induction and IC3/PDR prove over it must hold along the engine's games."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from rulekit.checking.solving import inductive
from rulekit.verify import budget, pdr, replay

from helpers import random_game, whole_relations
from random_specs import claimed_specs, random_specs

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]


def relations(text: str, folder):
    """(players, whole-language relation, engine) of the game `text` at each count its relation fits."""
    for players, system, spec in whole_relations(text, folder):
        yield players, system, spec.engine(players)


def engine_game(loaded, seed: int) -> list[int]:
    """The history of a random game, up to 40 decisions or the first rule error."""
    return random_game(loaded, seed, 40, stop_at_rule_error=True)[0]


def follows(text: str, folder) -> int:
    """The decisions of engine games followed through the relation of the game `text`, at each count."""
    followed = 0
    for players, system, loaded in relations(text, folder):
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
    """The invariants that induction or IC3/PDR proves over the whole-language relation are never broken
    at a decision or an end of a random engine game; the proofs checked, at each count."""
    checked = 0
    for players, system, loaded in relations(text, folder):
        proven = set(inductive(system, names, 2000, budget.Account(pdr.DEFAULT_UNITS)))
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
@settings(max_examples=25, suppress_health_check=SUPPRESSED)  # 8 proofs by IC3/PDR and 4 by induction among their claims
@given(claimed=claimed_specs())
def test_invariants_proven_by_induction_or_ic3_pdr_hold_along_engine_games(claimed, tmp_path_factory):
    text, names = claimed
    proofs_hold(text, names, tmp_path_factory.mktemp("fz"))
