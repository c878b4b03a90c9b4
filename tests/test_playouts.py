"""Batch playouts (`Game.playouts`) against the State API, and the legal-action cache of a state."""
from __future__ import annotations

import random

import pytest

import rulekit
from tests.helpers import load_text

BUNDLED = [("chocobo", 4), ("chucky", 3), ("chuche", 3), ("cranky", 5), ("chicken", 2)]


def stepped(game, seed: int, max_steps: int, policy=None) -> tuple:
    """Game `seed` played through the State API: what playouts reports for it."""
    rng = random.Random(seed)
    rounds = []
    state = game.new_initial_state(seed=seed, auto_chance=True, on_round=lambda s: rounds.append(1))
    made = 0
    while not state.is_terminal() and made < max_steps and state.legal_actions():
        state.apply_action(policy(state) if policy else rng.choice(state.legal_actions()))
        made += 1
    end = ("won" if state.winners else "no winner") if state.is_terminal() else "cut" if state.legal_actions() else "deadlock"
    return state.returns(), made, len(state.history), len(rounds), end


def reported(result, i: int) -> tuple:
    return result.returns[i], result.lengths[i], result.steps[i], result.rounds[i], result.ends[i]


@pytest.mark.parametrize("name,players", BUNDLED)
def test_playouts_are_the_games_the_state_api_plays_with_the_same_seeds(name, players):
    game = rulekit.load(name, players=players)
    assert game.whole_games is not None  # the fast path is the one under test
    result = game.playouts(4, seed=20, max_steps=60)
    assert result.seeds == [20, 21, 22, 23] and not result.errors
    for i, seed in enumerate(result.seeds):
        assert reported(result, i) == stepped(game, seed, 60)


def test_playouts_cut_at_max_steps_and_count_rounds():
    game = rulekit.load("chocobo", players=3)
    short, full = game.playouts(3, seed=1, max_steps=5), game.playouts(3, seed=1)
    assert short.ends == ["cut"] * 3 and short.lengths == [5] * 3 and short.returns == [[0.0] * 3] * 3
    assert all(end == "won" for end in full.ends) and all(r >= 1 for r in full.rounds)
    assert all(sum(1 for v in returns if v > 0) == 1 for returns in full.returns)
    assert full.winners == [[r.index(max(r))] for r in full.returns]


def test_a_policy_on_the_state_plays_as_the_state_api_does():
    game = rulekit.load("chucky", players=2)

    def last(state):  # deterministic: the highest legal action
        return max(state.legal_actions())

    result = game.playouts(seeds=[5, 9], policy=last, max_steps=200)
    for i, seed in enumerate(result.seeds):
        assert reported(result, i) == stepped(game, seed, 200, policy=last)


SPEC = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 2
zone box: set, public, initial
zone hand per player: set, owner
card Ace x 1
card Two x 1
flow {
  random c in box
  move c from box to hand(current)
  choose by current {
    action keep { if c == Ace { win current } end game }
    action %s
  }
  end game
}
"""


def test_a_rule_error_is_reported_per_game_as_the_engine_raises_it(tmp_path):
    game = load_text(tmp_path, SPEC % "bad { move Two from box to hand(current) move Two from box to hand(current) }")
    result = game.playouts(12, seed=0)
    assert set(result.ends) <= {"won", "no winner", "rule error"} and "rule error" in result.ends
    for i, seed in enumerate(result.seeds):
        if result.ends[i] != "rule error":
            continue
        state, rng = game.new_initial_state(seed=seed, auto_chance=True), random.Random(seed)
        with pytest.raises(rulekit.RuleRuntimeError) as info:
            state.apply_action(rng.choice(state.legal_actions()))
        assert str(result.errors[i]) == str(info.value) and result.lengths[i] == 0


def test_a_decision_without_options_ends_a_playout_as_a_deadlock(tmp_path):
    game = load_text(tmp_path, SPEC % "stuck { choose by current { action never when false { } } }")
    result = game.playouts(10, seed=3)
    assert "deadlock" in result.ends
    for i, seed in enumerate(result.seeds):
        assert reported(result, i) == stepped(game, seed, 100)


# ---- the legal actions of a state, computed once per decision and never stale
def test_legal_actions_follow_apply_clone_and_restore():
    game = rulekit.load("chocobo", players=4)
    state = game.new_initial_state(seed=3, auto_chance=True)
    rng = random.Random(3)
    for _ in range(30):
        legal = state.legal_actions()
        assert legal == sorted(legal) and legal
        twin = state.clone()
        legal.clear()  # the caller's copy: the state's own is untouched
        assert state.legal_actions() == twin.legal_actions()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        if state.is_terminal():
            assert state.legal_actions() == []
            break
        again = twin.child(action)
        assert again.legal_actions() == state.legal_actions()
        assert twin.legal_actions() != [] and twin != state  # the clone still waits where it was
        restored = game.state_from_json(state.to_json())
        assert restored.legal_actions() == state.legal_actions()
        restored.apply_action(restored.legal_actions()[0])
        assert restored.legal_actions() != [] or restored.is_terminal()
        assert state.legal_actions() == again.legal_actions()


def test_play_on_needs_chance_drawn_inside():
    game = rulekit.load("chocobo", players=3)
    with pytest.raises(ValueError, match="auto_chance"):
        game.new_initial_state(seed=1).play_on(lambda legal: legal[0], 10)


def test_playouts_of_a_game_with_the_newer_constructs_are_the_state_api_games(tmp_path):
    """Reversing the order, a stack's top card, tokens passed between players and a function: the batch
    path plays them (or hands the game to the reference engine) exactly as the State API does."""
    from tests.helpers import write_spec
    from tests.test_language_gaps import REVERSE_RULEBOOK, REVERSE_SPEC

    game = rulekit.load(str(write_spec(tmp_path, REVERSE_SPEC, name="rev", rulebook=REVERSE_RULEBOOK)), players=3)
    result = game.playouts(6, seed=3, max_steps=80)
    assert not result.errors
    for i, seed in enumerate(result.seeds):
        assert reported(result, i) == stepped(game, seed, 80)


def test_the_inline_pick_takes_the_index_random_choice_takes():
    from rulekit.engine.picks import index_below

    for seed in range(30):
        ours, theirs = random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 5, 8, 13, 31, 32, 33, 64, 100, 1000):
            assert index_below(ours.getrandbits, n) == theirs.choice(range(n))


@pytest.mark.parametrize("name,players", BUNDLED)
def test_options_said_to_be_listed_in_order_are_in_order(name, players, monkeypatch):
    from rulekit.engine import direct

    listed = direct.decide_listed
    seen = []

    def checked(s, options):
        assert list(options) == sorted(options)
        seen.append(len(options))
        return listed(s, options)

    monkeypatch.setattr(direct, "decide_listed", checked)
    monkeypatch.setattr(direct.DirectCodegen, "inline_picks", False)  # the calls, to watch them
    program = direct.direct_program(rulekit.load(name, players=players))
    for seed in range(3):
        assert program.play(seed, 300, random.Random(seed)) is not None
    assert seen  # every bundled game has such decisions


@pytest.mark.parametrize("name,players", [("chocobo", 4), ("chucky", 3)])
def test_playouts_are_the_games_of_the_plain_engine_state(name, players):
    """Not only of the stepped state (the same whole-game code): of the engine's own State too."""
    from rulekit.engine.state import State

    game = rulekit.load(name, players=players)
    result = game.playouts(2, seed=70)
    for i, seed in enumerate(result.seeds):
        state = State(game, seed, auto_chance=True)
        made = state.play_on(random.Random(seed).choice, 100_000)
        assert (result.lengths[i], result.steps[i], result.returns[i]) == (made, len(state.history), state.returns())


@pytest.mark.parametrize("name,players", BUNDLED)
def test_every_undetermined_block_stays_sorted(name, players):
    """The draws read a block of shuffled cards as a sorted multiset (one kind when its ends are, the
    drawn card deleted where it was found): whatever is played, each block stays sorted."""
    game = rulekit.load(name, players=players)
    blocks = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed, auto_chance=seed % 2 == 0)
        for _ in range(400):
            for cards, lo, hi in zip(state.z, state.lo, state.hi):
                assert cards[lo:hi] == sorted(cards[lo:hi])
                blocks += hi - lo > 1
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert blocks or name == "chicken"  # the test saw blocks to check (Chicken shuffles nothing)


def test_the_trigger_tests_before_a_decision_are_written_out_where_they_are_few_and_short():
    """Chucky's one trigger is tested before every decision: in place, not by a call of `fire`, which cost
    more than the test (the games stay the engine's: the other tests of this file hold them to it)."""
    from rulekit.engine.stepping import SteppingProgram

    game = rulekit.load("chucky", 3)
    source = game.whole_games.source
    assert "_ar = s.armed" in source and "if not fire(s):" not in source
    stepped = SteppingProgram(game).source  # its trigger decides: tested in place, then run as a generator
    assert "_ar = s.armed" in stepped and "_tf = 0" in stepped
