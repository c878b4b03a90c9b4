"""Rules that go round for ever with nobody to decide: the engine says so at once (their state comes
back), and `check` refutes termination with the play that leads there."""
from __future__ import annotations

import pytest

from rulekit.checking import sampling
from rulekit.checking import PlayBounds, check_spec
from rulekit.errors import EndlessRun, LongRun
from rulekit.pipeline import Spec

from helpers import write_spec

RULEBOOK = """War
A card game for two players.
The deck has two each of cards valued 1, 2 and 3.
Shuffle the deck and deal three cards to each player, face down, as their pile.
Each round, both players turn over the top card of their pile.
The player whose card is higher takes both cards and puts them at the bottom of their pile, their own card first.
If the cards are equal, each player puts their own card back at the bottom of their own pile.
A player who has no cards left loses; the other player wins.
"""

# A card game with no decision at all: after some deals the piles pass cards back and forth for ever.
WAR = """game war "War" quote "War"
rulebook "rulebook.txt" source "war.txt"
players 2 to 2 quote "A card game for two players."

card One x 2 { value = 1 } quote "The deck has two each of cards valued 1, 2 and 3."
card Two x 2 { value = 2 }
card Three x 2 { value = 3 }

zone deck: stack, hidden, initial
zone pile per player: stack, hidden
zone shown per player: stack, public

flow {
  shuffle deck quote "Shuffle the deck and deal three cards to each player, face down, as their pile."
  for p in players {
    for i in 1..3 { move top from deck to pile(p) }
  }
  loop {
    for p in players { move top from pile(p) to shown(p) } quote "Each round, both players turn over the top card of their pile."
    if top(shown(seat(0))).value == top(shown(seat(1))).value {
      for p in players { move all from shown(p) to pile(p) at bottom }
        quote "If the cards are equal, each player puts their own card back at the bottom of their own pile."
    } else {
      let w = if top(shown(seat(0))).value > top(shown(seat(1))).value then seat(0) else seat(1)
      move all from shown(w) to pile(w) at bottom quote "The player whose card is higher takes both cards and puts them at the bottom of their pile, their own card first."
      move all from shown(next(w)) to pile(w) at bottom
    }
    for p in players {
      if size(pile(p)) == 0 { win next(p)  end game } quote "A player who has no cards left loses; the other player wins."
    }
  }
}
"""


def _war(tmp_path) -> Spec:
    return Spec.find(str(write_spec(tmp_path, WAR, name="war", rulebook=RULEBOOK)))


def test_a_run_whose_state_comes_back_is_endless_at_once(tmp_path):
    game = _war(tmp_path).engine(2, {})
    errors = []
    for seed in range(20):
        try:
            game.new_initial_state(seed=seed, auto_chance=True)
        except EndlessRun as exc:
            errors.append(exc)
    assert errors and all(e.period > 0 and "the same state comes back" in str(e) for e in errors)
    assert errors[0].period < 10_000  # found by watching for the state, long before the step limit


def test_the_deals_that_end_still_end(tmp_path):
    game = _war(tmp_path).engine(2, {})
    ended = 0
    for seed in range(20):
        try:
            state = game.new_initial_state(seed=seed, auto_chance=True)
        except EndlessRun:
            continue
        assert state.is_terminal() and state.returns() != [0.0, 0.0]
        ended += 1
    assert ended


@pytest.mark.parametrize("explore", [True, False])
def test_check_refutes_termination_with_the_play_that_leads_there(tmp_path, explore):
    spec = _war(tmp_path)
    bounds = PlayBounds(games=30, variant_games=0, max_states=5_000 if explore else 0, solver_timeout=0,
                        loop_search=0)
    report = check_spec(spec, bounds)
    ends = [f for f in report.findings if f.kind == "termination" and not f.options]
    assert [f.verdict for f in ends] == ["refuted"] and ends[0].severity == "warning"
    assert "the rules go round for ever" in ends[0].message and ends[0].witness
    assert all(step["player"] == "chance" for step in ends[0].witness)
    assert ends[0].bound["endless_run"]["players"] == 2


def test_a_runtime_error_in_the_set_up_has_the_deal_as_its_witness(tmp_path):
    spec = _war(tmp_path)
    report = check_spec(spec, PlayBounds(games=30, variant_games=0, max_states=0, solver_timeout=0, loop_search=0))
    runtime = [f for f in report.findings if f.kind == "runtime"]
    assert runtime and runtime[0].witness and all(step["player"] == "chance" for step in runtime[0].witness)


# A set-up that never waits: the loop is compiled to one Python loop inside an instruction.
SPIN = """
game spin "Spin"
rulebook "rulebook.txt" source "spin.txt"
players 1
unmodelled "Spin" because "Title."
var x: int 0..3 = 0
flow {
  loop { set x = 1 - x } quote "Nothing ever happens."
}
"""


def test_a_loop_compiled_to_python_is_watched_too(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, SPIN, name="spin", rulebook="Spin\nNothing ever happens.\n")))
    with pytest.raises(EndlessRun) as caught:
        spec.engine(1, {}).new_initial_state(seed=0)
    assert caught.value.period == 2  # x goes 1, 0, 1, ...: every second round is the same


def test_a_set_up_that_goes_round_refutes_termination_from_the_start(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, SPIN, name="spin", rulebook="Spin\nNothing ever happens.\n")))
    report = check_spec(spec, PlayBounds(games=10, variant_games=0, solver_timeout=0))
    ends = [f for f in report.findings if f.kind == "termination"]
    assert [f.verdict for f in ends] == ["refuted"] and "from the start" in ends[0].message
    assert ends[0].method == "random-play" and not ends[0].witness
    assert [f.kind for f in report.findings if f.severity == "error"] == ["runtime"]


# A set-up that never waits and never comes back to a state: too long to tell from endless.
COUNT = SPIN.replace("var x: int 0..3 = 0", "var n: int = 0").replace("set x = 1 - x", "add 1 to n")


def test_a_set_up_that_fails_before_any_chance_fails_at_once_the_next_time(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, COUNT, name="spin", rulebook="Spin\nNothing ever happens.\n")))
    game = spec.engine(1, {})
    with pytest.raises(LongRun) as first:
        game.new_initial_state(seed=0)
    assert game.set_up_failure is first.value
    with pytest.raises(LongRun) as again:
        game.replay([])
    assert again.value is first.value


def test_games_stopped_by_a_rule_error_are_not_counted_as_ended(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, COUNT, name="spin", rulebook="Spin\nNothing ever happens.\n")))
    report = check_spec(spec, PlayBounds(games=10, variant_games=0, solver_timeout=0))
    ends = next(f for f in report.findings if f.kind == "termination")
    # every game runs the engine's limit: after a few the configuration plays no more, each costing a million steps
    assert ends.verdict == "unknown" and ends.bound["rule_errors"] == sampling.ENDLESS_GAMES
    assert f"0 of {sampling.ENDLESS_GAMES} games ended; {sampling.ENDLESS_GAMES} stopped on a rule error" in ends.message


def test_the_rule_docs_count_the_games_stopped_by_a_rule_error(tmp_path):
    from rulekit.sphinx.plots import outcome_plot, simulate

    stats = simulate(_war(tmp_path), games=20, max_steps=100)
    assert stats[0].failed and stats[0].failed + stats[0].finished + stats[0].unfinished == 20
    assert "rule error" in outcome_plot(stats, "War")
