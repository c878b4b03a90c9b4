"""The sampled checks' fast path (`rulekit.engine.watched`, `rulekit.checking.watching`): random play by the
watched whole-game code must give the tally that playing every game through `State` gives, field for field,
witnesses' histories included."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings

from rulekit.checking import sampling, watching
from rulekit.pipeline import Spec

from helpers import TINY_RULEBOOK, write_spec
from random_specs import targeted_specs

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]


def tallies(spec, players: int, options: dict, games: int, max_steps: int = 5000, monkeypatch=None):
    """(the tally with the watched code and the compiled tests from the first game on, the tally of
    `State` and the engine's tests alone, games the watched code accounted for)."""
    accounted = []

    def counting(*args):
        done = watching.watched_game(*args)
        accounted.append(done)
        return done

    monkeypatch.setattr(sampling, "WATCH_WORTH", 0)
    monkeypatch.setattr(sampling, "TESTS_WORTH", 0)
    monkeypatch.setattr(sampling, "watched_game", counting)
    fast = sampling.play_sample(spec, players, options, games, 10**9, max_steps, 3)
    monkeypatch.setattr(sampling, "TESTS_WORTH", 10**12)  # the engine's own tests, one by one
    slow = sampling.play_sample(spec, players, options, games, 10**9, max_steps, 3, watched=False)
    return fast, slow, sum(accounted)


def differences(a, b) -> dict:
    return {f.name: (getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
            if getattr(a, f.name) != getattr(b, f.name)}


@pytest.mark.parametrize("name,players", [("chucky", 3), ("chocobo", 4), ("chicken", 2), ("chuche", 3), ("cranky", 5)])
def test_the_watched_games_give_the_tally_of_the_state_api(name, players, monkeypatch):
    spec = Spec.find(name)
    fast, slow, accounted = tallies(spec, players, dict(spec.model.default_options()), 30, monkeypatch=monkeypatch)
    assert not differences(fast, slow)
    assert fast.played == 30 and accounted >= 20  # most games need no second run through State


def test_a_rule_error_a_deadlock_and_a_broken_invariant_give_the_same_tally(tmp_path, monkeypatch):
    text = TINY_GAME.replace("{END}", """
    if size(deck) == 0 and Coin(current) == 2 { choose by current { action stuck(c in hand(current)) "Stuck." { } } }
    if size(deck) == 0 and Coin(current) == 3 { move top from deck to pile }""")
    spec = Spec.find(str(write_spec(tmp_path, text, name="edge", rulebook=TINY_RULEBOOK)))
    fast, slow, accounted = tallies(spec, 2, {}, 40, monkeypatch=monkeypatch)
    assert not differences(fast, slow)
    assert fast.deadlocks and fast.errors and fast.broken and fast.reached
    assert accounted  # the others, each a witness, went through State


@pytest.mark.parametrize("steps", [0, 3])
def test_games_cut_at_the_step_limit_count_alike(steps, tmp_path, monkeypatch):
    spec = Spec.find(str(write_spec(tmp_path, TINY_GAME.replace("{END}", ""), name="cut", rulebook=TINY_RULEBOOK)))
    fast, slow, _ = tallies(spec, 2, {}, 12, max_steps=steps, monkeypatch=monkeypatch)
    assert not differences(fast, slow)
    assert fast.unfinished == 12


@settings(max_examples=25, suppress_health_check=SUPPRESSED, deadline=None)
@given(text=targeted_specs())
def test_random_games_give_the_same_tally_either_way(text, tmp_path_factory):
    spec = Spec.find(str(write_spec(tmp_path_factory.mktemp("fz"), text, name="fz", rulebook=TINY_RULEBOOK)))
    with pytest.MonkeyPatch.context() as monkeypatch:
        for players in (2, 3):
            if players > spec.model.max_players:
                continue
            fast, slow, _ = tallies(spec, players, {}, 12, max_steps=60, monkeypatch=monkeypatch)
            assert not differences(fast, slow), (players, text)


def test_the_watched_code_is_compiled_only_for_many_states_ahead(monkeypatch):
    spec = Spec.find("chucky")
    used = []
    monkeypatch.setattr(sampling, "watched_game", lambda *args: used.append(1) or watching.watched_game(*args))
    sampling.play_sample(spec, 3, {}, 100, 8000, 5000, 0, min_games=30)  # the default sample: a few thousand states
    assert not used
    sampling.play_sample(spec, 3, {}, 3000, 10**9, 5000, 0)  # tens of thousands ahead after the first game
    assert len(used) == 2999


TINY_GAME = """
game edge "Edge"
rulebook "rulebook.txt" source "edge.txt"
players 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card A x 3 { value = 1 }
zone box: set, public, initial
zone deck: stack, hidden
zone pile: set, public
zone hand per player: set, owner
token Coin x 8
var steps: int 0..20 = 0
flow {
  move all from box to deck
  shuffle deck
  turns from seat(0) {
    choose by current {
      action take "Take." { if size(deck) > 0 { move top from deck to hand(current) } }
      action coin "Coin." { if supply(Coin) > 0 { take 1 Coin by current } }
      action pass "Pass." { }
    }{END}
  } then {
    if steps >= 12 { end game }
    add 1 to steps
  }
}
invariant few_coins: Coin(current) <= 3
reachable a_coin: Coin(current) >= 1
"""


def test_a_broken_invariant_does_not_cut_the_games_short(tmp_path, monkeypatch):
    """Random play goes on past a broken invariant: the targets, the ends and the lengths, and the other
    invariants, are those of the same games without it (a game stopped at the break made a target that
    play reaches later look unreached, and an invariant broken later look sampled)."""
    game = TINY_GAME.replace("{END}", "")
    plain = Spec.find(str(write_spec(tmp_path, game, name="plain", rulebook=TINY_RULEBOOK)))
    claimed = game.replace("invariant few_coins", "invariant never_taken: size(hand(seat(0))) + size(hand(seat(1))) == 0\n"
                           "invariant few_coins")
    spec = Spec.find(str(write_spec(tmp_path, claimed, name="claimed", rulebook=TINY_RULEBOOK)))
    base, _, _ = tallies(plain, 2, {}, 40, monkeypatch=monkeypatch)
    fast, slow, _ = tallies(spec, 2, {}, 40, monkeypatch=monkeypatch)
    assert not differences(fast, slow)
    assert fast.broken_by_players["never_taken"][2] > 30  # broken early in nearly every game
    assert fast.reach_by_players == base.reach_by_players and fast.reached.keys() == base.reached.keys()
    assert fast.broken_by_players["few_coins"] == base.broken_by_players["few_coins"]
    assert fast.lengths == base.lengths and fast.unfinished == base.unfinished
    outcome, plain_outcome = fast.outcomes[2], base.outcomes[2]
    assert outcome.ends == plain_outcome.ends and outcome.broken == fast.broken_by_players["never_taken"][2]
