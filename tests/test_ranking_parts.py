"""Rankings part by part: once a level is found, the steps that strictly decrease it are left out, and
what can still repeat without them falls apart into smaller cycles of the decisions, each ranked on its
own (`verify.ranking`); a step is split by where it leads, so that a branch that leaves a cycle is not
counted in it."""
from __future__ import annotations

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.verify import control
from rulekit.verify import termination as term

from helpers import TINY_RULEBOOK, write_spec

# Rounds counted up to a limit; in each, the players in turn give coins to each other or pass, and a
# trigger pays a bonus once. Coins go round for ever: only the count of rounds ends the game.
GIFTS = """
game gifts "Gifts"
rulebook "rulebook.txt" source "gifts.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
card A x 1
token Coin x 6
var rounds_played: int 0..6 = 0
var score per player: int 0..9 = 0
var level: int 0..5 = 0
var bonus_paid: bool = false
trigger bonus when level >= 4 and not bonus_paid {
  set bonus_paid = true
  take 1 Coin by current
}
flow {
  rounds {
    if rounds_played >= 6 { end game }
    add 1 to rounds_played
    for p in players from next(argmax(q in players: score(q))) {
      choose by p {
        action pass "Pass." { if level < 5 { add 1 to level } }
        action give(q in players where q != p) when Coin(p) > 0 "Give." { move 1 Coin from p to q }
      }
      check triggers
      if Coin(p) >= 4 { end round }
    }
    {AFTER}
  }
}
"""

# After the players' turns, the first player may swap a coin with another player as often as they like.
ENDLESS_SWAPS = """loop {
      choose by seat(0) {
        action swap(q in players where q != seat(0)) when Coin(seat(0)) > 0 "Swap." {
          move 1 Coin from seat(0) to q
          move 1 Coin from q to seat(0)
        }
        action stop "Stop." { break }
      }
    }"""

# A round draws cards while the deck and a hand allow (more than one stretch can hold), and ends with
# a climb that stops at its top.
CLIMB = """
game climb "Climb"
rulebook "rulebook.txt" source "climb.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card A x 3
card B x 3
zone box: set, public, initial
zone deck: stack, hidden
zone pile: set, public
zone hand per player: set, owner
var rounds_done: int 0..5 = 0
var level: int 0..3 = 0
flow {
  move all from box to deck
  shuffle deck
  rounds {
    if rounds_done >= 5 { end game }
    add 1 to rounds_done
    set level = 0
    while size(deck) > 0 and size(hand(seat(0))) < 3 { move top from deck to hand(seat(0)) }
    for p in players {
      choose by p {
        action play(c in hand(p)) "Play." { move c from hand(p) to pile }
        action rest "Rest." { }
      }
    }
    loop {
      choose by seat(0) {
        action more "More." { if level < 3 { add 1 to level } }
        action done "Done." { break }
      }
      if level >= 3 { break }
    }
    move all from pile to deck
    shuffle deck
  }
}
"""


def spec_of(tmp_path, text: str, name: str) -> Spec:
    return Spec.find(str(write_spec(tmp_path, text, name=name, rulebook=TINY_RULEBOOK)))


def ranking_of(spec: Spec, players: int):
    return term.ranking(control.build(spec.config(players, spec.model.default_options())), 5000)


@pytest.mark.parametrize("players", [2, 3])
def test_the_rounds_counted_rank_the_game_and_the_turns_between_them_fall_apart(tmp_path, players):
    ranking, why = ranking_of(spec_of(tmp_path, GIFTS.replace("{AFTER}", ""), "gifts"), players)
    assert not why
    text = ranking.text()
    assert text.startswith("-1*rounds_played (strictly decreased by ")
    assert "between two steps that decrease it, play can repeat only within" in text
    assert len(ranking.parts) == 1 and ranking.parts[0].inner  # the turns of a round: smaller parts
    assert all(part.end > part.start for part in ranking.parts[0].inner)  # each ranked by a level of its own


@pytest.mark.parametrize("players", [2, 3])
def test_swaps_that_can_go_on_for_ever_within_a_round_are_not_ranked(tmp_path, players):
    ranking, why = ranking_of(spec_of(tmp_path, GIFTS.replace("{AFTER}", ENDLESS_SWAPS), "swaps"), players)
    assert ranking is None and "swap" in why


def test_a_loop_at_a_silent_location_is_ranked_on_the_branch_that_goes_round(tmp_path):
    """The draws of the `while` may not fit one stretch: the rules then wait at a silent location, and
    the step from it either goes round again (drawing a card) or goes on to the decisions. Split by
    where it leads, the branch that goes round is ranked by the cards in the deck."""
    ranking, why = ranking_of(spec_of(tmp_path, CLIMB, "climb"), 2)
    assert not why
    inner = ranking.parts[0].inner
    sums = {ranking.sums[part.start] for part in inner}
    assert {"the cards in deck", "-1*level"} <= sums


def test_check_says_the_game_ends_and_how(tmp_path):
    spec = spec_of(tmp_path, GIFTS.replace("{AFTER}", ""), "gifts")
    report = check_spec(spec, PlayBounds(games=4, variant_games=0, max_steps=60, max_states=0, loop_search=0))
    f = next(f for f in report.findings if f.kind == "termination")
    assert f.verdict == "proven" and f.bound["ranking_relations"] == {2: "whole language", 3: "whole language"}
    assert "ranked on their own" in f.message
