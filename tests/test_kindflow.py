"""Where each card kind can be (`verify.kindflow`), and the conservation laws it lets the counts
abstraction prove: a law that counts every zone a kind can reach holds, whatever the number of kinds."""
from __future__ import annotations

from rulekit.pipeline import Spec
from rulekit.verify import segments

from helpers import one_state_proofs, play_random, write_spec

# Gems are dealt, played and discarded; coins go to a purse and stay there, unless a player may spend
# one (`spending`), which puts a coin in the deck among the gems.
MARKET = """
game market "Market"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 3
unmodelled "Tiny Game." "The player with the Ace wins." because "Not this game's."
enum Kind { gem, coin }
card Ruby x 4 { kind = gem }
card Pearl x 3 { kind = gem }
card Coin x 5 { kind = coin }
zone box: set, public, initial
zone purse: set, public
zone deck: stack, hidden
zone hand per player: set, owner
zone discard: stack, public
ambiguity spending "May a coin be spent?" {
  quote "Each player draws one card."
  question "May a player put a coin from the purse into the deck?"
  option never "No."
  option allowed "Yes."
  default never because "A test."
}
flow {
  move all c where c.kind == coin from box to purse
  move all c where c.kind == gem from box to deck
  shuffle deck
  random first in players
  turns from first {
    choose by current {
      action draw when size(deck) > 0 "Draw." { move top from deck to hand(current) }
      action play(c in hand(current)) "Play a card." { move c from hand(current) to discard }
      action pass when size(deck) == 0 and size(hand(current)) == 0 "Pass." { }
      action spend when spending is allowed and size(purse) > 0 "Spend a coin." {
        move Coin from purse to deck
        shuffle deck
      }
    }
    if size(deck) == 0 and count(c in every hand) == 0 { end game }
  }
}
"""

CHECKS = """
checks market
invariant gems_conserved "Every gem is in the box, the deck, a hand or the discard pile."
  : count(c in box where c.kind == gem) + size(deck) + count(c in every hand) + size(discard) == 7
invariant coins_kept "Every coin is in the box or the purse."
  : count(c in box where c.kind == coin) + size(purse) == 5
"""


def _reach(path, options=None):
    spec = Spec.find(str(path))
    config = spec.config(2, {**spec.model.default_options(), **(options or {})})
    names = [c.name for c in config.game.components]
    reach = segments.kinds_by_zone(config)
    return {zone: {names[k] for k in kinds} for zone, kinds in reach.items()}


def test_a_kind_is_only_where_the_moves_of_the_rules_can_carry_it(tmp_path):
    path = write_spec(tmp_path, MARKET, name="market", checks=CHECKS)
    reach = _reach(path)
    assert reach["box"] == {"Ruby", "Pearl", "Coin"}
    assert reach["purse"] == {"Coin"}
    assert reach["deck"] == reach["hand"] == reach["discard"] == {"Ruby", "Pearl"}
    spent = _reach(path, {"spending": "allowed"})
    assert spent["deck"] == spent["hand"] == spent["discard"] == {"Ruby", "Pearl", "Coin"}


def test_a_conservation_law_over_every_zone_a_kind_can_reach_is_proven(tmp_path):
    path = write_spec(tmp_path, MARKET, name="market", checks=CHECKS)
    proofs = one_state_proofs(path)
    assert proofs["gems_conserved"][0] == "proven"
    assert proofs["coins_kept"][0] == "proven"
    assert "where each card kind can be" in proofs["gems_conserved"][1]


def test_where_a_move_carries_a_kind_into_a_counted_zone_the_law_is_not_claimed_and_play_breaks_it(tmp_path):
    path = write_spec(tmp_path, MARKET, name="market", checks=CHECKS)
    spending = {"spending": "allowed"}
    proofs = one_state_proofs(path, spending)
    assert "gems_conserved" not in proofs and "coins_kept" not in proofs
    game = Spec.find(str(path)).engine(2, spending)
    purses = []
    for seed in range(20):
        play_random(game, seed, on_state=lambda state: purses.append(len(state.zone("purse"))))
    assert min(purses) < 5  # a coin was spent: the law is false, as the proof declined to claim


def test_an_option_that_carries_a_kind_elsewhere_gets_proofs_of_its_own(tmp_path):
    from rulekit.checking import PlayBounds
    from rulekit.checking.solving import abstraction_proofs

    path = write_spec(tmp_path, MARKET, name="market", checks=CHECKS)
    spec = Spec.find(str(path))
    never = abstraction_proofs(spec, spec.model, {"spending": "never"}, PlayBounds())
    allowed = abstraction_proofs(spec, spec.model, {"spending": "allowed"}, PlayBounds())
    assert never["coins_kept"][0] == "proven" and "coins_kept" not in allowed
