"""Ranges of the variables declared without one (`verify.ranges`), and the invariants the counts
abstraction proves with them: a score only ever increased by non-negative amounts stays at least its
initial value."""
from __future__ import annotations

from rulekit.pipeline import Spec
from rulekit.verify import segments

from helpers import one_state_proofs, play_random, write_spec

# A score grows by the cards a player takes (never fewer than none); a bonus is set to 0 or 3; a debt
# only grows when `penalties` lets a player pay one point for a card.
SCORING = """
game scoring "Scoring"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 3
unmodelled "Tiny Game." "The player with the Ace wins." because "Not this game's."
card Gem x 6
zone box: set, public, initial
zone deck: stack, hidden
zone taken per player: set, owner
var score per player: int = 0
var bonus per player: int = 0
var turns_left: int = 12
ambiguity penalties "May a player pay for a card?" {
  quote "Each player draws one card."
  question "May a player take a card for one point?"
  option never "No."
  option allowed "Yes."
  default never because "A test."
}
flow {
  move all from box to deck
  random first in players
  turns from first {
    choose by current {
      action take when size(deck) > 0 "Take a card." {
        move top from deck to taken(current)
        add size(taken(current)) to score(current)
        if size(taken(current)) >= 2 { set bonus(current) = 3 } else { set bonus(current) = 0 }
      }
      action buy when penalties is allowed and size(deck) > 0 "Pay a point for a card." {
        move top from deck to taken(current)
        subtract 1 from score(current)
      }
      action wait "Wait." { }
    }
    subtract 1 from turns_left
    if turns_left == 0 { end game }
  }
}
"""

CHECKS = """
checks scoring
invariant scores_not_negative "No score is ever below zero." : forall(p in players: score(p) >= 0)
invariant bonus_small "A bonus is 0 to 3." : forall(p in players: bonus(p) >= 0 and bonus(p) <= 3)
"""


def _ranges(path, options=None):
    spec = Spec.find(str(path))
    config = spec.config(2, {**spec.model.default_options(), **(options or {})})
    return segments.derived_ranges(config)


def test_a_variable_gets_the_range_its_writes_keep_it_in(tmp_path):
    path = write_spec(tmp_path, SCORING, name="scoring", checks=CHECKS)
    ranges = _ranges(path)
    assert ranges["score"] == (0, None)  # only ever increased by a count of cards
    assert ranges["bonus"] == (0, 3)  # set to one of two constants
    assert ranges["turns_left"] == (None, 12)  # only ever decreased
    assert "score" not in _ranges(path, {"penalties": "allowed"})  # a point paid: no bound is left


def test_an_invariant_that_follows_from_the_ranges_is_proven(tmp_path):
    path = write_spec(tmp_path, SCORING, name="scoring", checks=CHECKS)
    proofs = one_state_proofs(path)
    assert proofs["scores_not_negative"][0] == "proven" and proofs["bonus_small"][0] == "proven"


def test_where_a_write_can_break_the_range_it_is_not_claimed_and_play_breaks_it(tmp_path):
    path = write_spec(tmp_path, SCORING, name="scoring", checks=CHECKS)
    allowed = {"penalties": "allowed"}
    proofs = one_state_proofs(path, allowed)
    assert "scores_not_negative" not in proofs and proofs["bonus_small"][0] == "proven"
    game = Spec.find(str(path)).engine(2, allowed)
    scores = []
    for seed in range(20):
        play_random(game, seed, on_state=lambda state: scores.extend(state.value("score", p) for p in range(2)))
    assert min(scores) < 0  # a point paid before any was scored: the invariant is false, as the proof said


def test_the_interval_of_a_product_covers_every_product_of_its_factors():
    from rulekit.verify.terms import interval

    x, y = ("s", 0), ("s", 1)
    assert interval(("*", x, ("c", 3)), {0: (0, 5)}) == (0, 15)
    assert interval(("*", x, y), {0: (-2, 1), 1: (3, 4)}) == (-8, 4)
    assert interval(("*", x, y), {0: (0, None), 1: (2, 2)}) == (0, None)
    assert interval(("*", x, y), {0: (-1, None), 1: (2, 2)}) == (None, None)
