"""`reverse order` in the whole-language relation: the direction of play is a slot of the state, and
the passing of turns, `next`, `players from` and `rotate` follow it, as in the engine."""
from __future__ import annotations

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.verify import control
from rulekit.verify import termination as term
from rulekit.verify.fragment import Builder

from helpers import follow_random_games, write_spec

RULEBOOK = """Turnabout
For 2 to 4 players.
Everyone starts with no points.
On your turn, score a point, give your neighbour a point, turn the order of play, or pass your hands on.
Then draw a random card from the bag.
A player with five points wins.
"""

# Every construct that reads the direction of play: the passing of turns, `next`, `players from` and
# `rotate`, with the direction turned up to four times.
TURNABOUT = """
game {name} "Turnabout"
rulebook "rulebook.txt" source "rulebook.txt"
players 2 to 4 quote "For 2 to 4 players."
payoff win 1 lose 0
unmodelled "Turnabout" because "The title."
enum Colour { red, blue }
card Red x 4 { colour = red }
card Blue x 3 { colour = blue }
zone box: set, public, initial
zone bag: set, hidden
zone hand per player: set, owner
var score per player: int 0..20 = 0 quote "Everyone starts with no points."
var turned: int 0..4 = 0
flow {
  move all from box to bag
  for p in players { move Red from bag to hand(p) }
  turns from seat(0) {
    choose by current quote "On your turn, score a point, give your neighbour a point, turn the order of play, or pass your hands on." {
      action score "Score a point." { add 1 to score(current) }
      action gift "Give the next player a point." { add 1 to score(next(current)) }
      action turn when turned < 4 "Turn the order of play." {
        add 1 to turned
        reverse order
      }
      PASS_ON
    }
    if size(bag) > 0 {
      random c in bag quote "Then draw a random card from the bag."
      move c from bag to hand(current)
    }
    for q in players from next(current) {
      if score(q) >= 5 { win q  end game } quote "A player with five points wins."
    }
  }
}
"""

PASS_ON = 'action pass_on "Everyone passes their hand on." { rotate hand to next }'


def turnabout(tmp_path, name="turnabout", pass_on=True) -> Spec:
    text = TURNABOUT.replace("{name}", name).replace("PASS_ON", PASS_ON if pass_on else "")
    return Spec.find(str(write_spec(tmp_path, text, name=name, rulebook=RULEBOOK)))


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return turnabout(tmp_path_factory.mktemp("turnabout"))


def test_the_relation_keeps_whether_the_order_is_turned(game):
    system = control.build(game.config(3))
    turned = [s for s in system.slots if s.key == ("turned",)]
    assert len(turned) == 1 and (turned[0].low, turned[0].high) == (0, 1)
    assert system.init[system.slots.index(turned[0])] == 0


@pytest.mark.parametrize("players", [3, 4])
def test_engine_games_that_turn_the_order_follow_the_relation(game, players):
    followed, whole = follow_random_games(game, players, range(6), 40)
    assert whole == 6 and followed > 60


@pytest.mark.parametrize("fixed", ["seats_on", "s_Reverse"])
def test_a_relation_that_keeps_the_direction_fixed_disagrees_with_the_engine(game, monkeypatch, fixed):
    """The follow above can fail: with the direction of play left as it was at the start, the engine's
    games leave the relation."""
    monkeypatch.setattr(control.ControlBuilder, fixed, getattr(Builder, fixed, lambda *args: None))
    with pytest.raises(AssertionError, match="in the relation"):
        follow_random_games(game, 3, range(6), 40)


def test_a_game_that_turns_the_order_is_proven_to_end(tmp_path):
    spec = turnabout(tmp_path, name="ends", pass_on=False)
    ranking, why = term.ranking(control.build(spec.config(3, spec.model.default_options())), 20_000)
    assert ranking is not None and not why
    f = next(f for f in check_spec(spec, PlayBounds(games=4, variant_games=0, max_steps=60, max_states=0,
                                                    loop_search=0)).findings if f.kind == "termination")
    assert f.verdict == "proven" and f.method == "z3-ranking"
    assert f.bound["ranking_relations"] == {2: "whole language", 3: "whole language", 4: "whole language"}
