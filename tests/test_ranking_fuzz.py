"""Random small games (`random_specs`) with a loop a player may go round for ever: no ranking function may
be found for them over the whole-language relation, however the search cuts the rules into parts."""
from __future__ import annotations

import random

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


def rankings(text: str, folder, reached_only: bool = False):
    """(players, (ranking, why not)) at each player count the relation fits; with `reached_only`, only
    at the counts where random play offers the loop's `again`: a game whose set-up always ends it (its
    first player always holds two cards, say) never reaches the loop, and is rightly ranked."""
    for players, system, spec in whole_relations(text, folder):
        if reached_only and not _offers_again(spec.engine(players)):
            continue
        with budget.fresh_context(), budget.spending(budget.Account(UNITS)):
            yield players, term.ranking(system, 5000)


def _offers_again(loaded, games: int = 20, decisions: int = 60) -> bool:
    for seed in range(games):
        rng = random.Random(seed)
        state = loaded.new_initial_state(seed=seed, auto_chance=True)
        for _ in range(decisions):
            if state.is_terminal() or not state.legal_actions():
                break
            if any(state.action_to_string(a) == "again" for a in state.legal_actions()):
                return True
            state.apply_action(rng.choice(state.legal_actions()))
    return False


@pytest.mark.slow
@settings(max_examples=10, suppress_health_check=SUPPRESSED)
@given(text=random_specs())
def test_a_loop_that_can_go_round_for_ever_is_never_ranked(text, tmp_path_factory):
    for players, (ranking, why) in rankings(endless(text), tmp_path_factory.mktemp("fz"), reached_only=True):
        assert ranking is None and why, (players, ranking and ranking.text(), text)


def test_a_game_whose_set_up_ends_it_is_ranked_though_a_loop_follows(tmp_path):
    """The game the fuzz test once met: every player count deals the first player two cards, and a
    player with two cards wins at once, so the loop after it is never reached and ranking the game is
    right; random play shows that the loop is not offered."""
    text = ENDS_AT_ONCE
    (tmp_path / "all").mkdir()
    (tmp_path / "reached").mkdir()
    ranked = [(players, ranking) for players, (ranking, _) in rankings(endless(text), tmp_path / "all")]
    assert ranked and all(ranking is not None for _, ranking in ranked)
    assert list(rankings(endless(text), tmp_path / "reached", reached_only=True)) == []


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


# The shape of a random game the fuzz test met: its deck of five cards deals the first player two,
# and a player with two cards wins at once.
ENDS_AT_ONCE = """
game fz "Fuzz"
rulebook "rulebook.txt" source "fz.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card A x 3
card B x 2
zone box: set, public, initial
zone deck: stack, hidden
zone hand per player: set, owner
var steps: int 0..12 = 0
flow {
  move all from box to deck
  shuffle deck
  for p in players { for i in 1..2 { if size(deck) > 0 { move top from deck to hand(p) } } }
  turns from seat(0) {
    if size(hand(current)) > 1 { win current  end game }
    choose by current {
      action pass "Pass." { }
    }
  } then {
    if steps >= 12 { end game }
    add 1 to steps
  }
}
"""
