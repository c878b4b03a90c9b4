"""One game of players who do as little as the rules allow, under an option set no loop search covers
(`endless.stall_probe`, `checking.ending`)."""
from __future__ import annotations

import rulekit
from rulekit.checking import PlayBounds, check_spec
from rulekit.checking import ending
from rulekit.pipeline import Spec
from rulekit.verify import endless

from helpers import TINY_RULEBOOK, write_spec

# Each turn the player draws a card at random and wins with the Ace: the deck runs down, so every play
# ends. Under `passing=may` a player may pass instead, and players who always pass go round for ever,
# a loop that the default options do not have and so cannot carry over.
STALL = """
game stall "stall"
rulebook "rulebook.txt" source "stall.txt"
players 2 to 3
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Test."
unmodelled "The player with the Ace wins." because "Test."
ambiguity passing "May a player pass instead of drawing?" {
  quote "Each player draws one card."
  question "Must a player draw?"
  option must "They must draw."
  option may "They may pass instead."
  default must because "Test."
}
zone box: set, public, initial
zone hand per player: set, owner
card Ace x 1
card Two x 4
flow {
  turns from seat(0) {
    choose by current {
      action draw "Draw a card." {
        random c in box
        move c from box to hand(current)
        if c == Ace {
          win current
          end game
        }
      }
      action pass when passing is may "Pass." { }
    }
  }
}
"""


def stall_spec(tmp_path):
    return Spec.find(str(write_spec(tmp_path, STALL, name="stall", rulebook=TINY_RULEBOOK)))


def test_a_lazy_game_closes_the_loop_of_players_who_pass_and_ends_where_they_must_draw(tmp_path):
    spec = stall_spec(tmp_path)
    passing = endless.stall_probe(spec.engine(2, {"passing": "may"}), False, 1000)
    assert passing.found is not None and not passing.found.chance and passing.probe
    assert endless.replayed(spec.engine(2, {"passing": "may"}), passing.found) is not None
    assert "do as little as the rules allow" in passing.text()
    drawing = endless.stall_probe(spec.engine(2, {}), False, 1000)
    # the deck of five cards runs out: at most five draws, each a decision and a chance outcome
    assert drawing.found is None and 0 < drawing.states <= 10


def test_the_probe_is_held_to_its_states(tmp_path):
    # Three passes come back to the start; the states of one step (its options tried, the one taken) may
    # go past the budget, the next step is not taken.
    out = endless.stall_probe(stall_spec(tmp_path).engine(3, {"passing": "may"}), False, 2)
    assert out.found is None and out.states <= 2 + 2


def test_check_refutes_termination_under_an_option_that_lets_the_players_stall(tmp_path):
    bounds = PlayBounds(games=4, variant_games=2, max_steps=50)
    found = {f.options.get("passing", "default"): f
             for f in check_spec(stall_spec(tmp_path), bounds).findings if f.kind == "termination"}
    assert found["default"].verdict == "proven"
    stalls = found["may"]
    assert stalls.verdict == "refuted" and stalls.severity == "warning" and stalls.witness
    assert "found in one game of players who do as little as the rules allow" in stalls.message
    # One probe per option set, at the first count: the other counts say where it was played.
    assert stalls.bound["per_players"] == {2: "refuted", 3: "unknown"}
    assert "with 2 players" in stalls.bound["undecided"][3]


def test_no_probe_where_a_search_covers_the_option_set_or_the_search_is_off():
    bounds = PlayBounds()
    assert ending._stall_probe_share(False, bounds) == bounds.loop_search // ending.STALL_PROBE_PART
    assert ending._stall_probe_share(True, bounds) == 0  # the default options get the whole search
    assert ending._stall_probe_share(False, PlayBounds(all_options=True)) == 0  # every option set is searched
    assert ending._stall_probe_share(False, PlayBounds(loop_search=0)) == 0


def test_chuche_can_go_on_for_ever_where_a_card_may_always_be_laid_down():
    # Where laying a card down is always allowed, players who never capture score nothing, deal after
    # deal: the match need never end (only while chance deals the same cards again, so far as is shown).
    loaded = rulekit.load("chuche", players=2, options={"ablegen_erlaubt": "frei"})
    out = endless.stall_probe(loaded, False, PlayBounds().loop_search // ending.STALL_PROBE_PART)
    assert out.found is not None and endless.replayed(loaded, out.found) is not None
    assert endless.stall_probe(rulekit.load("chuche", players=2), False, 5000).found is None
