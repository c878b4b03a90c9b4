"""Cards, zones and moves the rules never use (`checking.unused`): slips a spec's author wants to hear of."""
from __future__ import annotations

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec

from helpers import write_spec

# Jokers are declared but no move takes them out of the box; the graveyard is never filled; the
# refund takes a gem from the purse, which only ever holds coins.
SLIPS = """
game slips "Slips"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Not this game's."
enum Kind { gem, coin, joker }
card Ruby x 4 { kind = gem }
card Coin x 3 { kind = coin }
card Joker x 2 { kind = joker }
zone box: set, public, initial
zone purse: set, public
zone deck: stack, hidden
zone hand per player: set, owner
zone graveyard: set, public
flow {
  move all c where c.kind == coin from box to purse
  move all c where c.kind == gem from box to deck
  shuffle deck
  random first in players
  turns from first {
    choose by current {
      action draw when size(deck) > 0 "Draw." { move top from deck to hand(current) }
      action refund "Take a gem back." { move one c where c.kind == gem from purse to hand(current) }
    }
    if size(deck) == 0 { end game }
  }
}
"""


def _unused(tmp_path, text):
    spec = Spec.find(str(write_spec(tmp_path, text, name="slips")))
    report = check_spec(spec, PlayBounds(games=5, variant_games=0, max_states=200, loop_search=0))
    return {f.id: f for f in report.findings if "/dead-rule/" in f.id and f.method == "static"}


def _line(text: str) -> int:
    return next(i for i, line in enumerate(SLIPS.splitlines(), 1) if text in line)


def test_a_component_a_zone_and_a_move_the_rules_never_use_are_reported_where_they_stand(tmp_path):
    found = _unused(tmp_path, SLIPS)
    refund_line = _line("from purse to hand")
    assert set(found) == {"slips/dead-rule/component/Joker", "slips/dead-rule/zone/graveyard",
                          f"slips/dead-rule/move/{refund_line}"}
    joker, grave = found["slips/dead-rule/component/Joker"], found["slips/dead-rule/zone/graveyard"]
    refund = found[f"slips/dead-rule/move/{refund_line}"]
    assert joker.location.endswith(f"slips.rules:{_line('card Joker')}:1") and "never leaves box" in joker.message
    assert grave.location.endswith(f"slips.rules:{_line('zone graveyard')}:1") and "never holds a card" in grave.message
    assert "purse never holds a Ruby" in refund.message and f"slips.rules:{refund_line}:" in refund.location
    assert all(f.severity == "warning" and f.verdict == "proven" for f in found.values())
    assert refund.details == {"source": "purse", "takes": ["Ruby"], "players": [2, 3]}
    assert joker.details == {"component": "Joker", "zone": "box", "players": [2, 3]}


def test_a_spec_that_uses_all_it_declares_gets_none(tmp_path):
    fixed = (SLIPS.replace("c.kind == gem from box to deck", "c.kind != coin from box to deck")
             .replace("from purse to hand(current)", "from hand(current) to graveyard"))
    assert _unused(tmp_path, fixed) == {}


def test_what_an_option_newly_leaves_unused_is_a_note_under_that_option(tmp_path):
    question = '''ambiguity jokers "Are the Jokers played?" {
  quote "Each player draws one card."
  question "Do the Jokers go in the deck?"
  option no "No."
  option yes "Yes."
  default yes because "A test."
}
flow {'''
    optional = SLIPS.replace("flow {", question, 1).replace(
        "c.kind == gem from box to deck", "(c.kind == gem or (jokers is yes and c.kind == joker)) from box to deck")
    found = _unused(tmp_path, optional)
    assert "slips/dead-rule/component/Joker" not in found
    note = found["slips/dead-rule/component/Joker/jokers=no"]
    assert note.severity == "info" and note.options == {"jokers": "no"} and "never leaves box" in note.message
    assert "slips/dead-rule/zone/graveyard/jokers=no" not in found  # already said under the default options


def test_two_dead_moves_on_one_line_are_told_apart_by_their_column(tmp_path):
    both = SLIPS.replace("move one c where c.kind == gem from purse to hand(current) }",
                         "move one c where c.kind == gem from purse to hand(current)\n"
                         "        move one c where c.kind == joker from deck to hand(current) move one c where "
                         "c.kind == joker from purse to hand(current) }")
    found = _unused(tmp_path, both)
    moves = sorted(i for i in found if "/move/" in i)
    assert len(moves) == 3 and len(set(moves)) == 3
    assert sum("-" in i.rsplit("/", 1)[1] for i in moves) == 2  # the two of one line carry their column
