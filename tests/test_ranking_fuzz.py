"""Random small games (`random_specs`) with a loop a player may go round for ever: no ranking function may
be found for them over the whole-language relation, however the search cuts the rules into parts."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from rulekit.verify import budget
from rulekit.verify import termination as term

from helpers import whole_relations
from random_specs import random_specs

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
UNITS = 1_500_000  # per configuration: enough for the search to cut a random game into its parts

ENDLESS = ('loop {{ choose by {who} {{ action again "Again." {{ }} action stop "Stop." {{ break }} }} }}\n'
           '    choose by {who} {{')


def endless(text: str) -> str:
    """The game with a loop before its main decision (the first in the flow) that the deciding player
    may go round for ever."""
    start = text.index("\nflow {")
    for who in ("current", "p"):
        head = f"choose by {who} {{"
        at = text.find(head, start)
        if at >= 0:
            return text[:at] + ENDLESS.format(who=who) + text[at + len(head):]
    raise AssertionError("no main decision")


def rankings(text: str, folder):
    for players, system, _ in whole_relations(text, folder):
        with budget.fresh_context(), budget.spending(budget.Account(UNITS)):
            yield players, term.ranking(system, 5000)


@pytest.mark.slow
@settings(max_examples=10, suppress_health_check=SUPPRESSED)
@given(text=random_specs())
def test_a_loop_that_can_go_round_for_ever_is_never_ranked(text, tmp_path_factory):
    for players, (ranking, why) in rankings(endless(text), tmp_path_factory.mktemp("fz")):
        assert ranking is None and why, (players, ranking and ranking.text(), text)


def test_the_endless_loop_is_where_the_ranking_fails(tmp_path):
    """Without the loop the same game is ranked (the count of turns ends it), so the test can fail."""
    from hypothesis import find

    def plain(t: str) -> bool:
        flow = t[t.index("\nflow {"):]
        return "\ntrigger " not in t and "do chain" not in flow and "loop {" not in flow and "rounds {" not in flow

    text = find(random_specs(), plain, settings=settings(database=None, max_examples=2000))
    (tmp_path / "ends").mkdir()
    (tmp_path / "endless").mkdir()
    ends = [ranking for _, (ranking, _) in rankings(text, tmp_path / "ends")]
    assert ends and all(ranking is not None for ranking in ends)
    assert all(ranking is None for _, (ranking, _) in rankings(endless(text), tmp_path / "endless"))
