"""Set choices taken one card at a time (rulekit.engine.stepwise), and the adapters that use them."""
from __future__ import annotations

import random

import pytest

import rulekit
from rulekit.engine.stepwise import Stepwise
from rulekit.errors import IllegalActionError

GAME = "chuche"  # its captures pick a set of table cards


def decision_states(players: int, seeds=range(3), per_game: int = 60):
    game = rulekit.load(GAME, players=players)
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed, auto_chance=True)
        for _ in range(per_game):
            if state.is_terminal():
                break
            yield state
            state.apply_action(rng.choice(state.legal_actions()))


def completions(stepwise, state, partial):
    """Every engine action reached by walking the legal steps from `partial`."""
    out = []
    for token in stepwise.legal(state, partial):
        move = stepwise.push(state, partial, token)
        out += [move] if move is not None else completions(stepwise, state, [*partial, token])
    return out


def test_only_games_with_set_choices_need_steps():
    assert Stepwise.needed(rulekit.load(GAME, players=2))
    assert not Stepwise.needed(rulekit.load("chocobo", players=3))


@pytest.mark.parametrize("players", [2, 4])
def test_walking_the_legal_steps_reaches_exactly_the_legal_actions(players):
    stepwise = None
    for state in decision_states(players):
        stepwise = stepwise or Stepwise(state.game)
        reached = completions(stepwise, state, [])
        assert sorted(reached) == state.legal_actions(), "each legal action once, nothing else"
        assert all(0 <= t < stepwise.num_actions for a in reached for t in stepwise.tokens(a))


def test_a_small_action_space_however_large_the_engine_ids():
    game = rulekit.load(GAME, players=6)
    stepwise = Stepwise(game)
    assert game.num_distinct_actions() > 10 ** 30
    assert stepwise.num_actions < 100_000
    assert stepwise.set_parameters == 2  # the capture's own blocked cards, then the table cards


def test_an_illegal_step_is_refused_and_names_the_legal_ones():
    state = next(s for s in decision_states(2) if any("kombinieren" in s.action_to_string(a)
                                                      for a in s.legal_actions()))
    stepwise = Stepwise(state.game)
    legal = stepwise.legal(state, [])
    bad = next(t for t in range(stepwise.num_actions) if t not in legal)
    with pytest.raises(IllegalActionError, match="legal actions are"):
        stepwise.push(state, [], bad)


def test_steps_read_as_the_action_then_the_cards():
    state = next(s for s in decision_states(2) if any("kombinieren" in s.action_to_string(a)
                                                      for a in s.legal_actions()))
    stepwise = Stepwise(state.game)
    action = next(a for a in state.legal_actions() if "kombinieren" in state.action_to_string(a))
    tokens = stepwise.tokens(action)
    head = stepwise.describe(state, [], tokens[0])
    assert head.startswith("kombinieren(h=") and head.endswith("then choose r and s)")
    assert stepwise.describe(state, tokens[:1], stepwise.done) == "done"
    names = [stepwise.describe(state, tokens[:i], t) for i, t in enumerate(tokens) if i and t != stepwise.done]
    shown = state.action_to_string(action)
    assert all(n.startswith("add ") and n[4:] in shown for n in names)


def test_openspiel_takes_a_capture_step_by_step_and_serializes_mid_choice():
    pyspiel = pytest.importorskip("pyspiel")
    from rulekit import openspiel

    game = openspiel.load_game(GAME, players=2)
    rng = random.Random(4)
    state = game.new_initial_state()
    mid_choice = 0
    while not state.is_terminal() and mid_choice < 5:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        play = state.rulekit_play
        if play.partial:
            mid_choice += 1
            again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
            assert again.rulekit_play.partial == play.partial and str(again) == str(state)
            assert again.legal_actions() == state.legal_actions()
            assert "choosing:" in state.observation_string(state.current_player())
        state.apply_action(rng.choice(state.legal_actions()))
    assert mid_choice == 5
