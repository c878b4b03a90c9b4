"""Random small games (`random_specs`): batch playouts, which play most games with the whole-game code,
must be the games the State API plays with the same seeds, and those of the engine's plain State."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

import rulekit
from rulekit.engine.state import State

from helpers import TINY_RULEBOOK, write_spec
from random_specs import random_specs
from test_playouts import reported, stepped

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
MAX_STEPS = 60


def same_games(text: str, folder) -> int:
    """Games compared at each player count of the game `text`; how many the whole-game code played."""
    path = write_spec(folder, text, name="fz", rulebook=TINY_RULEBOOK)
    fast = 0
    for players in (2, 3):
        try:
            game = rulekit.load(str(path), players=players)
        except rulekit.RulekitError:  # a count the game does not allow
            continue
        fast += game.whole_games is not None
        result = game.playouts(4, seed=11, max_steps=MAX_STEPS)
        for i, seed in enumerate(result.seeds):
            if i in result.errors:  # the engine itself played it, and met the error
                continue
            assert reported(result, i) == stepped(game, seed, MAX_STEPS), (players, seed, text)
            state = State(game, seed, auto_chance=True)
            made = state.play_on(random.Random(seed).choice, MAX_STEPS)
            assert (result.lengths[i], result.steps[i], result.returns[i]) == (
                made, len(state.history), state.returns()), (players, seed, text)
    return fast


@settings(max_examples=30, suppress_health_check=SUPPRESSED)
@given(text=random_specs())
def test_playouts_of_random_specs_are_the_state_api_games(text, tmp_path_factory):
    same_games(text, tmp_path_factory.mktemp("fz"))


@pytest.mark.slow
@settings(max_examples=200, suppress_health_check=SUPPRESSED)
@given(text=random_specs())
def test_playouts_of_many_random_specs_are_the_state_api_games(text, tmp_path_factory):
    same_games(text, tmp_path_factory.mktemp("fz"))


def test_the_whole_game_code_plays_the_random_specs(tmp_path):
    """The comparison is worth making: the whole-game code covers a random game with triggers, a
    function, a turned order of play and a board, rather than leaving it to the engine."""
    from hypothesis import find

    text = find(random_specs(), lambda t: all(word in t for word in ("trigger", "reverse order", "do chain", "spot(")),
                settings=settings(database=None, max_examples=5000))
    assert same_games(text, tmp_path) >= 1
