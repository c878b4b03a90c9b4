"""BMC over the whole-language relation by default through the set-up and ten decisions, deepening only
while its budget of Z3 resource units pays for the next step."""
from __future__ import annotations

from pathlib import Path

from rulekit.checking import PlayBounds
from rulekit.checking.solving import symbolic_findings
from rulekit.pipeline import Spec

PIG = Path(__file__).resolve().parent.parent / "examples" / "pig"


def _bmc_findings(**bounds) -> dict:
    """The BMC findings, with IC3/PDR off: it proves `one_winner_at_most`, whose BMC depth these tests read."""
    spec = Spec.find(str(PIG))
    found = symbolic_findings(spec, spec.model, spec.model.default_options(), PlayBounds(pdr_units=0, **bounds))
    return {f.id.split("/")[-2] if f.kind != "deadlock" else "deadlock": f for f in found
            if f.id.endswith("/z3-bmc") and f.method == "z3-bmc"}


def test_a_small_game_is_searched_through_the_set_up_and_ten_decisions_by_default():
    found = _bmc_findings()
    invariant = found["one_winner_at_most"]
    assert (invariant.verdict, invariant.bound["relation"], invariant.bound["bmc_depth"]) == ("bounded",
                                                                                            "whole language", 11)
    assert "the set-up, then up to 10 decisions" in invariant.message
    assert found["deadlock"].bound["bmc_depth"] == 11
    # the target is reached on the way, with a witness that replays
    assert found["someone_wins"].verdict == "proven" and found["someone_wins"].witness


def test_a_step_the_budget_cannot_pay_for_is_not_unrolled():
    found = _bmc_findings(whole_bmc_units=1)
    invariant = found["one_winner_at_most"]
    # the set-up is searched whatever the budget; the step after it is not begun, and the message says why
    assert (invariant.verdict, invariant.bound["bmc_depth"]) == ("bounded", 1)
    assert "within the set-up, before any decision" in invariant.message
    assert "the next step would cost more than" in invariant.message


def test_an_undecided_question_is_bounded_by_the_steps_before_it():
    from rulekit.verify import budget, control, symbolic
    from rulekit.checking.shared import config_of

    spec = Spec.find(str(PIG))
    system = control.build(config_of(spec, 2, spec.model.default_options()))
    with budget.fresh_context():
        answers = symbolic.bmc(system, 6, deepen=budget.Account(1))
    assert {a.status for a in answers.values()} == {"unknown"}
    assert {a.depth for a in answers.values()} == {1}
    with budget.fresh_context():
        answers = symbolic.bmc(system, 6)
    assert answers[("invariant", "one_winner_at_most")].status == "bounded"
    assert answers[("invariant", "one_winner_at_most")].depth == 6
