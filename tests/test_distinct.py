"""The lower estimate of a configuration's distinct states (colliding states of random plays), on
tiny specs whose states the explorer counts exactly."""
from __future__ import annotations

import math
import types

import pytest

from rulekit import load
from rulekit.checking import PlayBounds, check_spec, exploring
from rulekit.pipeline import Spec
from rulekit.verify.distinct import distinct, poisson_upper, windows_for
from rulekit.verify.explore import Limits, explore

from helpers import write_spec

TOKENS = "benchmarks/tokens/tokens.rules"

# Roll a die until the total reaches twelve: chance outcomes, by their odds, on the way.
DICE = """
game dice "Dice"
rulebook "rulebook.txt" source "dice.txt"
players 1 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
var total: int 0..20 = 0
flow {
  loop {
    choose by current {
      action roll "Roll." {
        random r in 1..6
        add r to total
        if total >= 12 { end game }
      }
      action wait when total < 3 "Wait." { add 1 to total }
    }
  }
}
"""

FAST = dict(games=4, variant_games=0, max_steps=50)


def test_the_lower_estimate_never_exceeds_the_exact_number_of_states(tmp_path):
    dice = Spec.find(str(write_spec(tmp_path, DICE, name="dice")))
    cases = [(load(TOKENS, players=p), sym) for p in (3, 4) for sym in (False, True)]
    cases += [(dice.engine(p, dice.model.default_options()), False) for p in (1, 2)]
    for game, symmetric in cases:
        exact = explore(game, Limits(max_states=100_000, time_limit=60, symmetry=symmetric))
        assert exact.complete
        for seed in range(2):
            found = distinct(game, symmetric, step_budget=10_000, seed=seed)
            assert 1 < found.at_least <= exact.states
            assert max(w.at_least for w in found.windows) <= exact.states  # the collision bound itself
            assert found.distinct_seen <= exact.states and found.symmetric == exact.symmetry


def test_the_lower_estimate_grows_with_the_samples_towards_the_exact_count():
    game = load(TOKENS, players=4)  # 1,296 states without symmetry
    small, large = (distinct(game, step_budget=steps) for steps in (2_000, 100_000))
    assert small.at_least < large.at_least <= 1296 and large.at_least > 1296 / 2


def test_the_lower_estimate_is_deterministic_and_kept_to_its_step_budget():
    game = load(TOKENS, players=3)
    a, b = (distinct(game, step_budget=5_000, seed=7) for _ in range(2))
    assert {**a.as_dict()} == {**b.as_dict()}
    assert a.steps < 5_000 + max(w.last for w in a.windows)  # the last play may finish past the budget
    assert distinct(game, step_budget=5_000, seed=8).as_dict() != a.as_dict()


def test_windows_and_the_poisson_bound():
    assert windows_for(3000, 200) == [(1, 1), (2, 3), (4, 7), (8, 15)]
    assert windows_for(10, 200) == [(1, 1)]
    assert poisson_upper(0, 0.95) == pytest.approx(-math.log(0.05))
    assert poisson_upper(5, 0.95) > poisson_upper(4, 0.95) > 4


def dice_spec(tmp_path):
    return Spec.find(str(write_spec(tmp_path, DICE, name="dice")))


def test_an_unfinished_configuration_reports_both_estimates_in_the_json(tmp_path):
    report = check_spec(dice_spec(tmp_path), PlayBounds(**FAST, max_states=5))
    explored = report.stats["explored"]
    assert len(explored) == 2 and not any(x["complete"] for x in explored)
    for x in explored:
        d = x["distinct_states"]
        assert d["method"] == "collisions" and d["confidence"] == 0.95 and d["states_at_least"] >= 1
        assert x["estimate"]["method"] == "knuth"  # kept beside it
        assert x["distinct_states"]["states_at_least"] <= 73 and x["estimate"]["log10_tree_nodes"] < 7
        assert x["exhaustive_limit"] == {"states": exploring.EXHAUSTIVE_STATES, "fits": True}  # Knuth: it fits


def test_exhaustive_skips_what_the_lower_estimate_puts_above_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(exploring, "EXHAUSTIVE_STATES", 20)  # the dice game has 73 states
    monkeypatch.setattr(exploring, "EXHAUSTIVE_DISTINCT_STEPS", 4_000)  # above the default run's 3,000
    explored = check_spec(dice_spec(tmp_path), PlayBounds(**FAST, max_states=5, exhaustive=True)).stats["explored"]
    assert len(explored) == 2
    for x in explored:
        assert not x["complete"] and x["exhaustive_limit"]["fits"] is False
        assert x["exhaustive"].startswith("not tried") and "cannot finish" in x["exhaustive"]
        assert x["distinct_states"]["steps"] >= exploring.EXHAUSTIVE_DISTINCT_STEPS  # --exhaustive samples more


def test_exhaustive_tries_what_may_fit(tmp_path, monkeypatch):
    monkeypatch.setattr(exploring, "EXHAUSTIVE_STATES", 100)  # between the two estimates
    explored = check_spec(dice_spec(tmp_path), PlayBounds(**FAST, max_states=5, exhaustive=True,
                                                          distinct_steps=2_000)).stats["explored"]
    assert all(x["complete"] and x["exhaustive"] == "explored to the end" and x["size"] == {"exact": 73}
               for x in explored)


def test_the_exhaustive_state_limit_is_a_bound_a_user_sets(tmp_path, capsys):
    """`--exhaustive-states` below the dice game's 73 states: tried, cut at that limit, and said so."""
    explored = check_spec(dice_spec(tmp_path), PlayBounds(**FAST, max_states=5, exhaustive=True, exhaustive_states=40,
                                                          distinct_steps=0)).stats["explored"]
    assert explored
    for x in explored:
        assert not x["complete"] and x["exhaustive_limit"]["states"] == 40
        assert x["exhaustive"].startswith("tried: ") and "reach the 40-state limit, so the configuration cannot" in x["exhaustive"]
    from rulekit.cli import main

    for flag, value in (("--exhaustive-states", "0"), ("--exhaustive-time", "-1")):
        assert main(["check", "chicken", "--exhaustive", flag, value]) != 0
        assert flag in capsys.readouterr().err


def test_the_text_report_says_what_the_lower_estimate_is(tmp_path, capsys):
    from rulekit.cli import main

    path = write_spec(tmp_path, DICE, name="dice")
    code = main(["check", str(path), "--games", "4", "--variant-games", "0", "--jobs", "1", "--depth", "1",
                 "--solver-rlimit", "200000"])
    out = capsys.readouterr().out
    assert code == 0 and "distinct states (lower)" in out
    assert "a lower estimate at 95 % confidence, from colliding states of" in out and "Poisson approximation" in out
    main(["check", str(path), "-v", "--games", "4", "--variant-games", "0", "--jobs", "1", "--depth", "1",
          "--solver-rlimit", "200000"])
    out = capsys.readouterr().out
    assert "distinct states at 95% (a lower estimate: colliding states of" in out
    assert "(an upper estimate: Knuth's estimator" in out
    assert main(["check", str(path), "--distinct-steps", "-1"]) != 0
    assert "--distinct-steps must not be negative" in capsys.readouterr().err


def test_a_game_over_before_it_starts_gives_a_figure_not_a_hang(tmp_path):
    over = DICE.replace("flow {\n  loop {", "flow {\n  end game\n  loop {")
    spec = Spec.find(str(write_spec(tmp_path, over, name="dice")))
    found = distinct(spec.engine(1, spec.model.default_options()), step_budget=100)
    assert found.samples == 0 and found.distinct_seen == 0 and found.at_least == 0.0


def _explored(pairs: int) -> types.SimpleNamespace:
    window = {"depths": [8, 15], "samples": 200, "colliding_pairs": pairs}
    return types.SimpleNamespace(stats={"explored": [{
        "players": 2, "states": 100, "stopped_by": "states", "depth": 3, "complete": False,
        "distinct_states": {"plays": 200, "states_at_least": 4541, "confidence": 0.95, "best_window": window}}]})


def test_a_lower_estimate_without_a_collision_says_it_is_the_samples_ceiling():
    from rulekit.report.wording import state_space

    (line,) = state_space(_explored(0))
    assert "no two of its 200 samples were the same state" in line and "--distinct-steps samples more" in line
    (line,) = state_space(_explored(3))  # with collisions the figure is the game's, not the sample's ceiling
    assert "no two" not in line and "at least ~4,541 distinct states" in line


def test_the_state_space_table_explains_its_estimates_once():
    from rulekit.report.wording import STATE_SPACE_HEADER, state_space_table

    two = _explored(0)
    two.stats["explored"].append({**two.stats["explored"][0], "players": 1})
    rows, notes = state_space_table(two)
    assert [row[0] for row in rows] == ["2 players", "1 player"] and all(len(r) == len(STATE_SPACE_HEADER) for r in rows)
    assert rows[0][1] == "100 to depth 3 (the states limit)" and rows[0][2] == "~4,541 *"
    assert len(notes) == 2 and notes[-1].startswith("*: no two of the 200 samples")  # each said once
    rows, notes = state_space_table(_explored(3))
    assert rows[0][2] == "~4,541" and not any(n.startswith("*") for n in notes)
    # estimates from different numbers of plays: still one note, which gives the range
    mixed = _explored(3)
    first = mixed.stats["explored"][0]
    mixed.stats["explored"].append({**first, "players": 3, "distinct_states": {**first["distinct_states"], "plays": 303}})
    _, notes = state_space_table(mixed)
    (note,) = [n for n in notes if n.startswith("distinct states")]
    assert "from colliding states of 200 to 303 random plays" in note
    # a figure below the states explored has no ceiling to explain
    below = _explored(0)
    below.stats["explored"][0]["distinct_states"]["states_at_least"] = 50
    rows, notes = state_space_table(below)
    assert rows[0][2] == "below explored" and not any(n.startswith("*") for n in notes)
