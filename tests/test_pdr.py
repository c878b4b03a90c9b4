"""IC3/PDR (Z3's Spacer engine): invariants that hold in every reachable state without being inductive,
proven by the strengthening it finds, over the exact relation of a small game and over the whole-language
relation; with a verdict that depends on its resource units only, never on the machine."""
from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.checking.shared import config_of
from rulekit.pipeline import Spec
from rulekit.report.wording import rests_on
from rulekit.verify import budget, control, fragment, pdr, symbolic, terms

from helpers import write_spec

PIG = Path(__file__).resolve().parent.parent / "examples" / "pig"

# Two climbers who always climb together: "right <= 3" holds because right == left and left stops at 3,
# which no k-induction of the condition alone sees (from right == 3, left == 0, a climb breaks it).
LADDER = """
game ladder "Ladder"
rulebook "rulebook.txt" source "ladder.txt"
players 1 to 2
order clockwise
payoff win 1 lose 0
unmodelled "Ladder." because "Title."
zone box: set, public, initial
var left: int = 0
var right: int = 0
var rests: int = 0
flow {
  loop {
    choose by current {
      action climb when left < 3 "Both climb a rung." quote "Two climbers go up together." {
        add 1 to left
        add 1 to right
      }
      action rest "Rest." { add 1 to rests }
    }
  }
}
"""
LADDER_CHECKS = """
checks ladder
invariant right_below_the_top "The right climber never passes the third rung." : right <= 3
invariant right_below_rests "The right climber is never above the number of rests." : right <= rests
reachable right_past_the_top "The right climber passes the third rung." : right == 4
"""
LADDER_RULEBOOK = "Ladder.\nTwo climbers go up together.\n"
QUICK = dict(games=4, variant_games=0, max_steps=40, max_states=0, explore_states=0, loop_search=0)


@pytest.fixture
def ladder(tmp_path):
    return Spec.find(str(write_spec(tmp_path, LADDER, name="ladder", rulebook=LADDER_RULEBOOK,
                                    checks=LADDER_CHECKS)))


def _system(spec, players):
    return fragment.build(config_of(spec, players, spec.model.default_options()))


def test_an_invariant_that_needs_a_strengthening_is_proven_where_k_induction_is_not(ladder):
    system = _system(ladder, 2)
    condition = system.invariants["right_below_the_top"]
    with budget.fresh_context():
        assert symbolic.k_induction(system, condition, 3)[0] == "unknown"
    outcome = pdr.prove(system, condition, 5000)
    assert outcome.status == "proven" and outcome.lemmas >= 1 and outcome.units > 0


def test_a_false_invariant_is_violated_and_a_small_budget_is_unknown_with_its_reason(ladder):
    system = _system(ladder, 1)
    assert pdr.prove(system, system.invariants["right_below_rests"], 5000).status == "violated"
    starved = pdr.prove(system, system.invariants["right_below_the_top"], 5000, units=200)
    assert starved.status == "unknown" and "resource limit (200 Z3 resource units)" in starved.reason
    with budget.spending(budget.Account(300)) as account:
        spent = pdr.prove(system, system.invariants["right_below_the_top"], 5000)
    assert spent.status == "unknown" and account.left <= 0 and "resource budget" in spent.reason


def test_the_units_spent_are_the_same_on_every_run(ladder):
    system = _system(ladder, 2)
    runs = {pdr.prove(system, system.invariants["right_below_the_top"], 5000).units for _ in range(3)}
    assert len(runs) == 1


def test_check_reports_the_proof_and_the_unreachable_target_with_their_method(ladder):
    report = check_spec(ladder, PlayBounds(**QUICK))
    proof = next(f for f in report.findings if f.id == "ladder/invariant/right_below_the_top/z3")
    assert (proof.verdict, proof.method, proof.bound["players"], proof.bound["pdr_players"]) == (
        "proven", "z3-pdr", [1, 2], [1, 2])
    assert "IC3/PDR (Z3's Spacer engine) finds an inductive invariant" in proof.message
    assert rests_on(proof) == "Z3 proof: an inductive invariant found by IC3/PDR over the exact transition relation, " \
                              "1 to 2 players"
    never = next(f for f in report.findings if f.id == "ladder/reachability/right_past_the_top/z3")
    assert (never.verdict, never.method) == ("refuted", "z3-pdr") and "implies its negation" in never.message
    false = next(f for f in report.findings if f.id == "ladder/invariant/right_below_rests/z3")
    assert false.verdict == "refuted" and false.witness  # BMC's witness, replayed in the engine


def test_without_units_no_proof_is_claimed(ladder):
    report = check_spec(ladder, PlayBounds(**QUICK, pdr_units=0))
    finding = next(f for f in report.findings if f.id == "ladder/invariant/right_below_the_top/z3")
    assert (finding.verdict, finding.method) == ("bounded", "z3-bmc")


def test_the_whole_language_relation_of_a_dice_game_proves_at_most_one_winner_at_every_count():
    spec = Spec.find(str(PIG))
    system = control.build(config_of(spec, 2, spec.model.default_options()))
    with budget.fresh_context():
        assert symbolic.k_induction(system, system.invariants["one_winner_at_most"], 3)[0] == "unknown"
    report = check_spec(spec, PlayBounds(**QUICK))
    proof = next(f for f in report.findings if f.id == "pig/invariant/one_winner_at_most/z3-bmc")
    assert (proof.verdict, proof.method, proof.bound["players"]) == ("proven", "z3-pdr", [2, 3, 4])
    assert proof.bound["relation"] == "whole language"
    assert "over the whole-language relation" in rests_on(proof)


def test_a_proof_by_each_method_at_different_counts_says_which():
    from rulekit.checking.solving import proof_text

    method, text, extra = proof_text({2: symbolic.Proof(1, 0), 3: symbolic.Proof(0, 4, "pdr")}, True)
    assert method == "z3-pdr" and extra == {"k": 1, "pdr_players": [3], "pdr_lemmas": 4}
    assert "1-inductive over the whole-language relation (with 0 lemma(s) proven alongside) with 2 players" in text
    assert "IC3/PDR" in text and "with 3 players" in text


def test_a_condition_over_no_changing_slot_is_decided(ladder):
    system = _system(ladder, 1)
    assert pdr.prove(system, terms.TRUE, 5000).status == "proven"
    assert pdr.prove(system, terms.FALSE, 5000).status == "violated"


# Never stuck because the climbers stay level: from a state where they are not (left 0, right 3), three
# climbs lead to one where neither climbing nor descending is allowed, so k-induction up to 3 fails.
SEESAW = LADDER.replace('''      action rest "Rest." { add 1 to rests }''', '''      action descend when right > 0 and right == left "Both go down a rung." {
        add -1 to left
        add -1 to right
      }''').replace('game ladder "Ladder"', 'game seesaw "Seesaw"').replace('"ladder.txt"', '"seesaw.txt"')


def test_no_deadlock_that_needs_a_strengthening_is_proven(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, SEESAW, name="seesaw", rulebook=LADDER_RULEBOOK,
                                    checks="checks seesaw\n")))
    with budget.fresh_context():
        verdicts = symbolic.verify(_system(spec, 1), depth=6, budget=30)
    assert verdicts.stuck_free == 0 and verdicts.stuck_free_pdr is not None
    assert verdicts.stuck_free_pdr.method == "pdr"
    report = check_spec(spec, PlayBounds(**QUICK))
    deadlock = next(f for f in report.findings if f.id == "seesaw/deadlock/z3")
    assert (deadlock.verdict, deadlock.method, deadlock.bound["players"]) == ("proven", "z3-pdr", [1, 2])
    assert '"over, or some action is legal"' in deadlock.message


def test_no_deadlock_is_proven_at_every_count_over_the_whole_language_relation():
    spec = Spec.find(str(PIG))
    report = check_spec(spec, PlayBounds(**QUICK))
    deadlock = next(f for f in report.findings if f.id == "pig/deadlock/z3-bmc")
    assert (deadlock.verdict, deadlock.method, deadlock.bound["players"]) == ("proven", "z3-pdr", [2, 3, 4])


def test_a_violation_past_bmc_s_depth_gets_a_witness_that_replays(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, LADDER, name="ladder", rulebook=LADDER_RULEBOOK, checks=(
        "checks ladder\ninvariant few_rests \"At most 24 rests.\" : rests <= 24\n"
        "reachable many_rests \"30 rests.\" : rests == 30\n"))))
    report = check_spec(spec, PlayBounds(**QUICK, bmc_depth=20))
    broken = next(f for f in report.findings if f.id == "ladder/invariant/few_rests/z3")
    assert (broken.verdict, broken.method) == ("refuted", "z3-pdr") and len(broken.witness) == 25
    assert "IC3/PDR found such a state past the steps BMC searched" in broken.message
    assert rests_on(broken) == "IC3/PDR, past BMC's depth: a witness of 25 steps, replayed in the engine"
    reached = next(f for f in report.findings if f.id == "ladder/reachability/many_rests/z3")
    assert (reached.verdict, reached.method) == ("proven", "z3-pdr") and len(reached.witness) == 30


def test_a_relation_above_the_size_limit_is_not_tried(ladder, monkeypatch):
    system = _system(ladder, 1)
    monkeypatch.setattr(pdr, "NODE_LIMIT", pdr.relation_size(system) - 1)
    outcome = pdr.prove(system, system.invariants["right_below_the_top"], 5000)
    assert outcome.status == "unknown" and outcome.units == 0 and "too large for IC3/PDR" in outcome.reason


def test_a_target_is_proven_unreachable_over_the_whole_language_relation(tmp_path):
    import shutil

    folder = tmp_path / "pig"
    shutil.copytree(PIG, folder)
    with open(folder / "pig.checks", "a", encoding="utf-8") as f:
        f.write('\nreachable negative_score "A score below zero." : exists(p in players where score(p) < 0)\n')
    report = check_spec(Spec.find(str(folder)), PlayBounds(**QUICK))
    never = next(f for f in report.findings if f.id == "pig/reachability/negative_score/z3-bmc")
    assert (never.verdict, never.method, never.bound["pdr_players"]) == ("refuted", "z3-pdr", [2])
    assert "can never be reached with 2 players" in never.message


def test_a_computation_that_does_not_stop_is_killed_and_one_that_fails_is_a_bug():
    import time

    from rulekit.verify import isolated

    assert isolated.run(lambda: {"a": 1}, 5) == {"a": 1}
    started = time.monotonic()
    with pytest.raises(isolated.Stopped):
        isolated.run(lambda: time.sleep(30), 0.5)
    assert time.monotonic() - started < 10
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        isolated.run(lambda: 1 // 0, 5)


def test_spacer_that_runs_past_its_safety_net_stops_the_conditions_after_it(ladder, monkeypatch):
    from rulekit.verify import isolated

    def stopped(compute, seconds):
        raise isolated.Stopped("not finished")

    monkeypatch.setattr(isolated, "run", stopped)
    system = _system(ladder, 1)
    account = budget.Account(pdr.DEFAULT_UNITS)
    tried = pdr.prove_each(system, system.invariants, [], 5000, None, account)
    assert list(tried) == ["right_below_the_top"] and tried["right_below_the_top"].reason == pdr.HUNG
    assert account.left == 0
