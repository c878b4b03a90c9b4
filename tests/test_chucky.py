"""Chucky: The Game: random play with invariants, every option, and golden playthroughs.

The golden playthroughs deal a known grid by choosing the outcome of each chance event of the
set-up, then name every decision; they follow the rulebook's own examples where it gives one.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from tests.helpers import act, chance, option_variants, play_explicit

GAME = "chucky"

# Row by row, 4 rows of 5 (default card mix: 6 Void, 5 Terror, 5 Hiding Place, 3 weapons, Chucky).
GRID = [
    "Void", "Terror", "Void", "HidingPlace", "Knife",
    "Hammer", "Scissors", "Chucky", "Void", "Void",
    "Terror", "HidingPlace", "Void", "Terror", "HidingPlace",
    "Terror", "HidingPlace", "Void", "Terror", "HidingPlace",
]


VARIANTS = option_variants(GAME)


def start(players: int = 2, grid=GRID, **options):
    game = rulekit.load(GAME, players=players, options=options)
    state = game.new_initial_state()
    for name in grid:
        if state.is_chance_node():  # the last cards of the deck may be forced: no chance event
            chance(state, name)
    assert not state.is_chance_node()
    assert [card(state, r, c)[1] for r in range(1, 5) for c in range(1, 6)] == list(grid)
    return state


def pos(r: int, c: int) -> int:
    return (r - 1) * 5 + (c - 1)


def card(state, r: int, c: int) -> tuple[str, str]:
    up, down = state.zone("up", pos(r, c)), state.zone("down", pos(r, c))
    return ("up", up[0]) if up else ("down", down[0])


def provoke(state, hits: list[bool]) -> None:
    for hit in hits:
        chance(state, "1" if hit else "0")


# ---- random play ------------------------------------------------------------------------

def assert_invariants(state):
    game = state.game
    n = game.num_players()
    grid = sum(len(state.zone("down", i)) + len(state.zone("up", i)) for i in range(20))
    dealt = len(state.zone("box")) != 21
    if dealt:
        assert grid + len(state.zone("pile")) + len(state.zone("deck")) == 20
    for p in range(n):
        assert 0 <= state.value("Fear", p) <= 5
        assert state.value("wounds", p) <= 2
    assert sum(state.value("Fear", p) for p in range(n)) + state.value("Fear") == 25
    assert not game.violated_invariants(state)


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
@settings(max_examples=4)
@given(seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_random_play_keeps_the_invariants(players, options, seed, choices):
    game = rulekit.load(GAME, players=players, options=options)
    play_explicit(game, seed, choices, 3000, assert_invariants)


# ---- golden playthroughs -------------------------------------------------------------------

def test_void_chain_and_terror_count_follow_the_rulebook_example():
    """"They reveal a Terror card and must take two Fear tokens before provoking Chucky: one for the
    Terror card and a second for the Void card turned over earlier.\""""
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(1,1)")                       # a Void
    act(s, "reveal_adjacent(y=shop(1,2))")      # the adjacent Terror
    assert s.value("Fear", 0) == 2
    provoke(s, [False, False])                  # two presses, one per Fear token
    assert s.current_player() == 1, "after the provocation, their turn ends"
    assert card(s, 1, 1) == ("up", "Void") and card(s, 1, 2) == ("up", "Terror")


def test_void_without_hidden_neighbours_costs_a_fear_token():
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(1,1)")
    assert "take_fear" in [s.action_to_string(a) for a in s.legal_actions()]
    act(s, "take_fear")
    assert s.value("Fear", 0) == 1 and s.current_player() == 1


def test_hiding_place_removes_up_to_two_fear_tokens():
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(1,1)")
    act(s, "reveal_adjacent(y=shop(1,2))")
    provoke(s, [False, False])
    act(s, "no_peek")                            # P1
    act(s, "reveal: x=shop(4,5)")                        # Hiding Place with no Fear: nothing happens
    assert s.value("Fear", 1) == 0 and s.current_player() == 0
    act(s, "no_peek")
    act(s, "reveal: x=shop(1,4)")                        # Hiding Place: 2 Fear -> 0, then the turn ends
    assert s.value("Fear", 0) == 0 and s.current_player() == 1


def test_peek_costs_two_fear_tokens_and_the_card_goes_back_face_down():
    s = start()
    act(s, "peek(x=shop(2,3))")
    assert s.value("Fear", 0) == 2 and card(s, 2, 3) == ("down", "Chucky")
    assert any("revealed: Chucky" in e for e in s.observation(1)["events"])
    s2 = start(peek_hide="face_up")
    act(s2, "peek(x=shop(2,3))")
    assert card(s2, 2, 3) == ("up", "Chucky")


def _decisions(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


@pytest.mark.parametrize("option", ["allowed", "not_allowed"])
def test_no_peek_at_five_fear_tokens_and_the_near_cap_option(option):
    s = start(1, peek_near_cap=option)
    act(s, "peek(x=shop(4,1))")                   # 2 Fear
    act(s, "reveal: x=shop(1,1)")                         # a Void, no hidden neighbour taken: +1
    act(s, "take_fear")
    act(s, "no_peek")
    act(s, "reveal: x=shop(1,3)")
    act(s, "take_fear")                           # 4 Fear
    assert s.value("Fear", 0) == 4
    can_peek = any(d.startswith("peek(") for d in _decisions(s))
    assert can_peek == (option == "allowed")
    if can_peek:
        act(s, "peek(x=shop(4,4))")               # the cap stops the second token
        assert s.value("Fear", 0) == 5
        act(s, "reveal: x=shop(3,3)")
        act(s, "take_fear")                       # at the cap: no token taken
        assert s.value("Fear", 0) == 5
        assert not any(d.startswith("peek(") for d in _decisions(s)), "no Peek with five Fear tokens"


def _knife_first(**options):
    s = start(**options)
    act(s, "no_peek")
    act(s, "reveal: x=shop(1,5)")                        # the Knife
    return s


def test_knife_normal_attack_ignores_the_effect():
    s = _knife_first()
    act(s, "attack_adjacent(y=shop(2,4))")       # a Void, attacked: face up, no effect
    assert card(s, 2, 4) == ("up", "Void") and s.value("Fear", 0) == 0
    assert s.value("knife_done") == 1 and s.current_player() == 1


def test_knife_stronger_attack_looks_then_may_attack():
    s = _knife_first()
    act(s, "stronger")                           # no Fear: no provocation needed
    act(s, "knife: y=shop(1,2)")                        # a card in the Knife's row
    assert any("revealed to P0: Terror" in e for e in s.observation(0)["events"])
    act(s, "leave_it")
    assert card(s, 1, 2) == ("down", "Terror")
    s = _knife_first()
    act(s, "stronger")
    act(s, "knife: y=shop(4,5)")                        # in the Knife's column
    act(s, "attack_it")
    assert card(s, 4, 5) == ("up", "HidingPlace")


def test_hammer_attacks_up_to_two_cards_in_its_line():
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(2,1)")                        # the Hammer
    act(s, "attack_adjacent(y=shop(1,1))")
    assert card(s, 1, 1) == ("up", "Void") and s.current_player() == 1
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(2,1)")
    act(s, "stronger")
    act(s, "first=shop(3,1)")
    act(s, "second(y=shop(4,1))")
    assert card(s, 3, 1) == ("up", "Terror") and card(s, 4, 1) == ("up", "Terror")
    assert s.value("Fear", 0) == 0, "attacked Terror cards have no effect"


def _enraged():
    """Scissors' stronger attack on Chucky; the Enraged Chucky is dealt to (4,3), the Scissors to (1,3)."""
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(2,2)")                        # the Scissors
    act(s, "stronger")
    act(s, "scissors: y=shop(2,3)")                        # Chucky: attacked for the first time
    assert s.value("enraged") == 1
    assert s.zone("box") == ["Chucky"] and s.zone("aside") == []
    # The row and column of Chucky are reorganized: 8 cards dealt face down at random.
    outcomes = [s.action_to_string(a) for a, _ in s.chance_outcomes()]
    assert "chance: EnragedChucky" in outcomes
    line = [(2, c) for c in range(1, 6)] + [(r, 3) for r in (1, 3, 4)]
    dealt = {}
    for r, c in sorted(line):
        name = "EnragedChucky" if (r, c) == (4, 3) else "Scissors" if (r, c) == (1, 3) else None
        if s.is_chance_node():
            choice = name or next(s.action_to_string(a)[8:] for a, _ in s.chance_outcomes()
                                  if s.action_to_string(a)[8:] not in ("EnragedChucky", "Scissors"))
            chance(s, choice)
        dealt[(r, c)] = card(s, r, c)
    assert all(face == "down" for face, _ in dealt.values())
    return s


def test_scissors_stronger_attack_reaches_any_card_and_chucky_becomes_enraged():
    s = _enraged()
    assert card(s, 4, 3) == ("down", "EnragedChucky") and card(s, 1, 3) == ("down", "Scissors")


def test_attacking_the_enraged_chucky_wins_for_everyone():
    s = _enraged()
    act(s, "no_peek")                             # P1
    act(s, "reveal: x=shop(1,3)")                         # the Scissors again, now at (1,3)
    act(s, "stronger")
    act(s, "scissors: y=shop(4,3)")                         # the Enraged Chucky
    assert s.is_terminal() and s.returns() == [1.0, 1.0] and s.value("outcome") == 1


def test_revealing_chucky_costs_two_fear_provokes_and_reorganizes():
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(2,3)")
    assert s.value("Fear", 0) == 2
    provoke(s, [False, False])
    assert s.is_chance_node(), "the row and column of Chucky are reorganized"


def test_a_second_wound_loses_the_game_for_everyone():
    s = start(1)
    act(s, "no_peek")
    act(s, "reveal: x=shop(2,3)")                         # Chucky: 2 Fear, then provoke
    provoke(s, [True])                            # attacked at the first press
    assert s.value("wounds", 0) == 1 and s.value("Wound", 0) == 1 and s.value("Fear", 0) == 0
    while s.is_chance_node():                     # the reorganization of Chucky's row and column
        s.apply_action(s.chance_outcomes()[0][0])
    act(s, "no_peek")
    hidden_terror = next(f"reveal: x=shop({r},{c})" for r in range(1, 5) for c in range(1, 6)
                         if card(s, r, c) == ("down", "Terror"))
    act(s, hidden_terror)                         # Terror: 1 Fear (+ Voids this turn), then provoke
    provoke(s, [True])
    assert s.is_terminal() and s.returns() == [-1.0] and s.value("outcome") == 2


def test_all_weapons_revealed_trigger_a_reorganization():
    s = start()
    for weapon, target in (("reveal: x=shop(1,5)", "attack_adjacent(y=shop(2,4))"),
                           ("reveal: x=shop(2,1)", "attack_adjacent(y=shop(1,1))"),
                           ("reveal: x=shop(2,2)", "attack_adjacent(y=shop(1,3))")):
        act(s, "no_peek")
        act(s, weapon)
        act(s, target)
    # The third weapon is resolved; before the next decision the players choose a weapon.
    names = [s.action_to_string(a) for a in s.legal_actions()]
    assert names == ["all_weapons: x=shop(1,5)", "all_weapons: x=shop(2,1)", "all_weapons: x=shop(2,2)"]
    act(s, "all_weapons: x=shop(2,1)")
    assert s.is_chance_node(), "the Hammer's row and column are dealt again"
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    assert all(card(s, 2, c)[0] == "down" for c in range(1, 6))
    assert [s.action_to_string(a) for a in s.legal_actions()][-1] == "no_peek", "it happens once"


def test_enraged_reveal_makes_everyone_provoke_in_turn():
    s = start(3)
    act(s, "no_peek")
    act(s, "reveal: x=shop(2,2)")
    act(s, "stronger")
    act(s, "scissors: y=shop(2,3)")                         # Chucky attacked: the Enraged Chucky replaces it
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    where = next((r, c) for r in range(1, 5) for c in range(1, 6) if card(s, r, c)[1] == "EnragedChucky")
    act(s, "peek(x=shop(4,4))")                   # P1: 2 Fear
    act(s, "reveal: x=shop(1,4)")                         # P1 ends the turn on a Hiding Place: 0 Fear
    act(s, "peek(x=shop(4,4))")                   # P2: 2 Fear
    act(s, f"reveal: x=shop({where[0]},{where[1]})")      # P2 reveals the Enraged Chucky: 2 more Fear
    assert s.value("Fear", 2) == 4 and s.value("Fear", 0) == 0 and s.value("Fear", 1) == 0
    presses = 0
    while s.is_chance_node() and s.action_to_string(s.chance_outcomes()[0][0]) in ("chance: 0", "chance: 1"):
        chance(s, "0")
        presses += 1
    assert presses == 4, "P2, P0 and P1 provoke in turn, one press per Fear token each"
    assert s.is_chance_node(), "then the Enraged Chucky's row and column are reorganized"


@pytest.mark.parametrize("option, players", [("one_to_five", 1), ("two_to_five", 1)])
def test_solo_play_option(option, players):
    game = rulekit.load(GAME, players=players, options={"solo_play": option})
    state = game.new_initial_state(seed=1)
    assert state.is_terminal() == (option == "two_to_five")


@pytest.mark.parametrize("option", ["count_anyway", "token_needed"])
def test_the_wound_supply_runs_out_with_five_players(option):
    """Each of five players takes one Wound token; a sixth wound finds the supply empty."""
    s = start(5, wound_supply=option)
    for terror in ("reveal: x=shop(1,2)", "reveal: x=shop(3,1)", "reveal: x=shop(3,4)", "reveal: x=shop(4,1)", "reveal: x=shop(4,4)"):
        act(s, "no_peek")
        act(s, terror)                            # 1 Fear, one press, an attack
        provoke(s, [True])
    assert s.value("Wound") == 0 and all(s.value("wounds", p) == 1 for p in range(5))
    act(s, "no_peek")
    act(s, "reveal: x=shop(2,3)")                         # P0 reveals Chucky: 2 Fear, attacked again
    provoke(s, [True])
    assert s.is_terminal() == (option == "count_anyway")
    assert s.value("wounds", 0) == (2 if option == "count_anyway" else 1)


def test_the_text_view_shows_the_grid_as_a_player_sees_it():
    s = start()
    act(s, "no_peek")
    act(s, "reveal: x=shop(1,1)")                          # a Void, face up for everyone
    view = s.observation_string(1)
    assert "shop (? is a card you cannot see" in view
    row1 = next(line for line in view.splitlines() if line.strip().startswith("1 Void"))
    assert row1.split()[1:] == ["Void", "?", "?", "?", "?"]
    assert "outcome=playing" in view
    assert not any(line.startswith(("  down[", "  up[")) for line in view.splitlines()), "cells are in the grid"
