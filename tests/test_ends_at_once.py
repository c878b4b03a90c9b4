"""Termination under an option set whose set-up ends the game at once at some player count."""
from __future__ import annotations

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec

from helpers import TINY_RULEBOOK, write_spec

# Players pass for ever, whatever the options; under `solo=not_allowed` a game of one player ends in
# the set-up, before any decision or chance event.
SOLO = """
game solo "solo"
rulebook "rulebook.txt" source "solo.txt"
players 1 to 2
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Test."
unmodelled "The player with the Ace wins." because "Test."
ambiguity solo "Can one person play alone?" {
  kind silence
  quote "Each player draws one card."
  question "One player or two at least?"
  option allowed "One player plays alone."
  option not_allowed "A game of one player ends at once."
  default allowed because "Test."
}
zone box: set, public, initial
zone hand per player: set, owner
card Ace x 1
card Two x 4
flow {
  if player_count == 1 and solo is not_allowed { end game }
  turns from seat(0) {
    choose by current {
      action draw "Draw a card." {
        random c in box
        move c from box to hand(current)
      }
      action pass "Pass." { }
    }
  }
}
"""


def termination_findings(tmp_path, **bounds):
    spec = Spec.find(str(write_spec(tmp_path, SOLO, name="solo", rulebook=TINY_RULEBOOK)))
    return {f.options.get("solo", "default"): f
            for f in check_spec(spec, PlayBounds(games=4, variant_games=2, max_steps=50, **bounds)).findings
            if f.kind == "termination"}


def test_a_set_up_that_ends_the_game_proves_termination_at_that_count_without_an_exploration(tmp_path):
    found = termination_findings(tmp_path)
    assert found["default"].bound["per_players"] == {1: "refuted", 2: "refuted"}
    alone = found["not_allowed"]
    assert alone.verdict == "refuted" and alone.bound["per_players"] == {1: "proven", 2: "refuted"}
    assert "(with 1 player, every play ends)" in alone.message


def test_an_option_set_that_ends_every_game_at_once_is_proven_by_the_engine_not_by_z3(tmp_path):
    only_one = SOLO.replace("players 1 to 2", "players 1 to 1").replace("One player or two at least?",
                                                                         "One player or none?")
    spec = Spec.find(str(write_spec(tmp_path, only_one, name="solo", rulebook=TINY_RULEBOOK)))
    found = {f.options.get("solo", "default"): f
             for f in check_spec(spec, PlayBounds(games=4, variant_games=2, max_steps=50)).findings
             if f.kind == "termination"}
    alone = found["not_allowed"]
    assert alone.verdict == "proven" and alone.method == "explicit-state"
    assert "the set-up ends the game before any decision or chance event" in alone.message
