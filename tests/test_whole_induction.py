"""Induction over the whole-language relation: an invariant that holds because of where the rules are
(the market is refilled only after a card is taken) is 1-inductive there, while the counts abstraction,
which forgets the control flow, cannot prove it; a proof at one player count is tried at every other."""
from __future__ import annotations

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.report.wording import rests_on

from helpers import write_spec

MARKET = """
game {name} "{name}"
rulebook "rulebook.txt" source "{name}.txt"
players 2 to 4
unmodelled "Market." because "Title."
card Fish x 8
card Bread x 8
zone box: set, hidden, initial
zone deck: stack, hidden
zone market: set, public
zone stall per player: set, public
flow {
  move all from box to deck
  shuffle deck
  for i in 1..{opening} { move top from deck to market }
  turns from seat(0) {
    choose by current {
      action take(c in market) "Take a card from the market." { move c from market to stall(current) }
    }
    if size(deck) > 0 { move top from deck to market }
  } then {
    if size(market) == 0 { end game }
  }
}
"""

CHECKS = """
checks {name}
invariant market_small "The market never holds more than three cards." : size(market) <= 3
"""

FAST = dict(games=6, variant_games=0, max_steps=60, max_states=0, loop_search=0)


def market(tmp_path, opening="3", name="market"):
    text = MARKET.replace("{name}", name).replace("{opening}", opening)
    return Spec.find(str(write_spec(tmp_path, text, name=name, checks=CHECKS.replace("{name}", name))))


def findings(report, name):
    return [f for f in report.findings if f.kind == "invariant" and f.id.split("/")[2:3] == [name]]


def test_an_invariant_of_where_the_rules_are_is_proven_over_the_whole_language_relation(tmp_path):
    report = check_spec(market(tmp_path), PlayBounds(**FAST))
    proof = next(f for f in findings(report, "market_small") if f.method == "z3-k-induction"
                 and f.bound.get("relation") == "whole language")
    assert proof.verdict == "proven" and proof.bound["players"] == [2, 3, 4] and proof.bound["k"] == 1
    assert "1-inductive over the whole-language relation" in proof.message
    assert rests_on(proof) == "Z3 proof: 1-inductive over the whole-language relation, 2 to 4 players"
    # The counts abstraction forgets that a refill follows a take: it cannot prove it.
    abstraction = [f for f in findings(report, "market_small") if f.bound.get("abstraction")]
    assert abstraction and all(f.verdict != "proven" for f in abstraction)


def test_a_proof_at_one_player_count_is_no_proof_at_another(tmp_path):
    # The opening market has one card more than there are players: three cards with two players, and a
    # fourth with three. Proven where it holds, refuted where it does not, and never proven overall.
    report = check_spec(market(tmp_path, opening="player_count + 1", name="growing"), PlayBounds(**FAST))
    mine = findings(report, "market_small")
    assert not any(f.verdict == "proven" for f in mine)
    assert any(f.verdict == "refuted" for f in mine)
