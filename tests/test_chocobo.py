"""Chocobo's Crystal Hunt: random play with invariants at every step, and each option as a real switch."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from tests.helpers import option_variants

GAME = "chocobo"
CARD_ZONES = ("box", "removed", "deck", "discard", "hunting", "drawn")
MARKERS = {"FireMarker", "WaterMarker", "WindMarker", "EarthMarker", "ChocoboMarker"}


VARIANTS = option_variants(GAME)


def assert_invariants(state) -> None:
    game = state.game
    n = game.num_players()
    cards = Counter()
    for zone in CARD_ZONES:
        cards.update(state.zone(zone))
    for p in range(n):
        hand = state.zone("hand", p)
        assert len(hand) >= 0
        cards.update(hand)
    cards = Counter({k: v for k, v in cards.items() if k not in MARKERS})
    expected = {k: v for k, v in game.component_counts.items() if k not in MARKERS}
    assert sum(cards.values()) == 43, "every one of the 43 cards is in exactly one zone"
    assert dict(cards) == expected
    tokens = sum(state.value("Victory", p) for p in range(n))
    assert tokens <= state.value("rounds_played"), "victory tokens never exceed rounds played"
    assert state.value("Victory") + tokens == 5


def play_checked(game, seed: int, rng: random.Random, max_decisions: int = 1500):
    state = game.new_initial_state(seed=seed)
    decisions = 0
    while not state.is_terminal() and decisions < max_decisions:
        assert_invariants(state)
        assert state.legal_actions(), "no deadlock: a state that is not an end has a legal move"
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    assert_invariants(state)
    return state


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
@pytest.mark.parametrize("players", [3, 4, 5])
@settings(max_examples=6)
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_random_play_keeps_the_invariants(players, options, seed, choices):
    game = rulekit.load(GAME, players=players, options=options)
    play_checked(game, seed, random.Random(choices))


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
def test_many_random_games_end_with_one_winner(players):
    game = rulekit.load(GAME, players=players)
    for seed in range(150):
        state = play_checked(game, seed, random.Random(seed))
        assert state.is_terminal()
        assert sorted(state.returns()).count(1.0) == 1


def _diverges(options: dict, players: int, seeds=range(300)) -> bool:
    """True when some default game, replayed action by action under `options`, goes differently."""
    default = rulekit.load(GAME, players=players)
    variant = rulekit.load(GAME, players=players, options=options)
    for seed in seeds:
        rng = random.Random(seed)
        a = default.new_initial_state(seed=seed)
        b = variant.new_initial_state(seed=seed)
        while not a.is_terminal():
            action = a.sample_chance() if a.is_chance_node() else rng.choice(a.legal_actions())
            if b.legal_actions() != a.legal_actions() or b.is_chance_node() != a.is_chance_node():
                return True
            a.apply_action(action)
            b.apply_action(action)
            if a.zone("discard") != b.zone("discard") or a.value("rounds_played") != b.value("rounds_played"):
                return True
        if not b.is_terminal():
            return True
    return False


@pytest.mark.parametrize("options", [o for o in VARIANTS if o and "victory_supply" not in o and "stalled_round" not in o],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_every_option_changes_play(options):
    assert _diverges(options, players=4)


def test_victory_supply_option_changes_who_can_still_win():
    """Five different round winners use up the five tokens; the sixth round decides the option."""
    game = rulekit.load(GAME, players=5, options={"victory_supply": "count_anyway"})
    strict = rulekit.load(GAME, players=5, options={"victory_supply": "token_needed"})
    for seed in range(3000):
        final = game.new_initial_state(seed=seed, auto_chance=True)
        rng = random.Random(seed)
        while not final.is_terminal():
            final.apply_action(rng.choice(final.legal_actions()))
        if final.value("rounds_played") == 6:
            break
    else:
        pytest.fail("no five-player game went to a sixth round")
    assert final.value("Victory") == 0
    # In the strict reading the sixth winner gets no token, so no one has two wins and play goes on.
    replayed = strict.replay(final.history, seed, auto_chance=True)
    assert not replayed.is_terminal()
    assert replayed.value("rounds_played") == 6


def test_a_stalled_round_goes_on_forever_or_ends_without_a_winner():
    """Once the deck is used up, every player may end each turn without hunting. As the rules are
    written (stalled_round=play_on) the state then comes back, so play can go on forever; under
    round_void the round ends without a winner instead."""
    from rulekit.verify import endless
    from rulekit.verify.explore import state_key

    game = rulekit.load(GAME, players=5)
    found = endless.search(game, False, 1000).found
    assert found is not None and not found.chance, "players alone keep play going"
    start = game.replay(found.prefix)
    assert len(start.zone("deck")) == 0 and not start.is_terminal()
    exact = state_key(game, False)
    assert exact(game.replay(found.prefix + found.loop)) == exact(start)
    assert {start.action_to_string(a) for a in found.loop} == {"stop"}
    void = rulekit.load(GAME, players=5, options={"stalled_round": "round_void"})
    state = void.replay(found.prefix)
    played = state.value("rounds_played")
    for action in found.loop:
        state.apply_action(action)
        if state.value("rounds_played") > played:
            break
    assert state.value("rounds_played") == played + 1 and not state.is_terminal()
    assert sum(state.value("rounds_won", p) for p in range(5)) == sum(start.value("rounds_won", p) for p in range(5))


def test_same_type_reading_makes_objective_b_unreachable():
    """Under six_of_any_type=same_type no hand can hold six crystals of one type: only four exist."""
    game = rulekit.load(GAME, players=3, options={"six_of_any_type": "same_type"})
    for seed in range(40):
        state = play_checked(game, seed, random.Random(seed))
        assert state.is_terminal()


def test_monster_with_chocobo_keep_returns_the_chocobo():
    default = rulekit.load(GAME, players=3)
    keep = rulekit.load(GAME, players=3, options={"monster_with_chocobo": "keep"})
    for seed in range(200):
        rng = random.Random(seed)
        a, b = default.new_initial_state(seed=seed), keep.new_initial_state(seed=seed)
        while not a.is_terminal():
            action = a.sample_chance() if a.is_chance_node() else rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
            monster_hunt = any(e.startswith(("Bomb: hand", "Ahriman: hand")) and "-> drawn" in e
                               for e in a.observation(0)["events"][-3:])
            if monster_hunt and a.zone("discard") != b.zone("discard"):
                assert a.zone("discard").count("Chocobo") == b.zone("discard").count("Chocobo") + 1
                return
    pytest.fail("no Chocobo hunt found a Monster in 200 games")
