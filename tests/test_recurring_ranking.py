"""Ranking functions over the whole-language relation for the steps that can repeat: the values kept
over a decision get the ranges the rules give them (`verify.kept_ranges`), and the steps that run once
(the set-up) or that no path leads back to are left out, part by part (`verify.locations`)."""
from __future__ import annotations

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.verify import control, kept_ranges, locations, terms
from rulekit.verify import termination as term

from helpers import write_spec

# A trick-taking game: the leader plays a card, each other player follows suit if they can, the best
# card takes the trick and its player leads the next. No `turns`: a `while` around the tricks, a `for`
# around the followers (a local seat kept over each decision), and a set-up that deals the hands.
TRICKS = """
game {name} "{name}"
rulebook "rulebook.txt" source "{name}.txt"
players 2 to 3
unmodelled "Tricks." because "Title."
enum Suit { bells, hearts }
card B1 x 1 {{ suit = bells, rank = 1 }}
card B2 x 1 {{ suit = bells, rank = 2 }}
card B3 x 1 {{ suit = bells, rank = 3 }}
card H1 x 1 {{ suit = hearts, rank = 1 }}
card H2 x 1 {{ suit = hearts, rank = 2 }}
card H3 x 1 {{ suit = hearts, rank = 3 }}
zone box: set, hidden, initial
zone deck: stack, hidden
zone aside: set, hidden
zone hand per player: set, owner
zone trick: set, public
zone won per player: set, public
var led: Suit = bells
var best: card = B1
var best_player: player = none
var leader: player = none
define can_follow(p: player): bool = exists(c in hand(p) where c.suit == led)
flow {
  move all from box to deck
  shuffle deck
  for p in players { for i in 1..2 { move top from deck to hand(p) } }
  move all from deck to aside
  random dealer in players
  set leader = next(dealer)
  while size(hand(leader)) > 0 {
    choose by leader {
      action lead(c in hand(leader)) "Lead a card." {
        move c from hand(leader) to trick
        set led = c.suit
        set best = c
        set best_player = leader
      }
    }
    for p in players from next(leader) {
      if p != leader {
        choose by p {
          action follow(c in hand(p)) when c.suit == led or not can_follow(p) "Play a card." {
            move c from hand(p) to trick
            if c.suit == best.suit and c.rank > best.rank {
              set best = c
              set best_player = p
            }
          }
        }
      }
    }
    move all from trick to {taken}
    set leader = best_player
  }
  end game
}
"""

FAST = dict(games=4, variant_games=0, max_steps=60, max_states=0, loop_search=0)


def tricks(tmp_path, taken="won(best_player)", name="tricks"):
    text = TRICKS.replace("{name}", name).replace("{taken}", taken).replace("{{", "{").replace("}}", "}")
    return Spec.find(str(write_spec(tmp_path, text, name=name)))


def termination_of(report):
    return next(f for f in report.findings if f.kind == "termination")


def test_a_trick_taking_game_is_proven_to_end_by_the_cards_left_in_the_hands(tmp_path):
    f = termination_of(check_spec(tricks(tmp_path), PlayBounds(**FAST)))
    assert f.verdict == "proven" and f.method == "z3-ranking"
    assert f.bound["ranking_relations"] == {2: "whole language", 3: "whole language"}
    assert "the cards in every hand (strictly decreased by 2 action(s))" in f.message
    assert "the set-up runs at most once" in f.message


def test_without_the_ranges_of_the_kept_values_the_lead_alone_ranks_the_tricks(tmp_path, monkeypatch):
    """The seat of the `for` around the followers is kept over their decisions: in an arbitrary state it
    could name no seat at all, and a follow would then take no card from any hand. The follows still
    take none back, and every cycle of the decisions goes through the lead, which always plays a card:
    once the leads are left out no follow can come back to itself, so the follows need no level."""
    spec = tricks(tmp_path)
    config = spec.config(3, spec.model.default_options())
    ranking, why = term.ranking(control.build(config), 20_000)
    assert not why and [labels for _, labels in ranking.levels] == [["lead(chosen)", "follow(chosen)"]]
    monkeypatch.setattr(control, "kept_ranges", lambda *args: {})
    ranking, why = term.ranking(control.build(config), 20_000)
    assert not why and [labels for _, labels in ranking.levels] == [["lead(chosen)"]]
    assert ranking.text().startswith("the cards in every hand (strictly decreased by 1 action(s))")


def test_a_trick_that_goes_back_to_a_hand_is_never_proven_to_end(tmp_path):
    spec = tricks(tmp_path, taken="hand(best_player)", name="endless")
    f = termination_of(check_spec(spec, PlayBounds(**FAST)))
    assert f.verdict != "proven"
    ranking, why = term.ranking(control.build(spec.config(2, spec.model.default_options())), 20_000)
    assert ranking is None and why
    f = termination_of(check_spec(spec, PlayBounds(games=4, variant_games=0, max_steps=60)))
    assert f.verdict == "refuted"


def test_the_kept_values_get_the_ranges_of_what_is_written_into_them(tmp_path):
    spec = tricks(tmp_path)
    system = control.build(spec.config(3, spec.model.default_options()))
    kept = [s for s in system.slots if s.key[0] == "local"]
    assert kept and all(s.low is not None and s.high is not None for s in kept)
    assert {(s.low, s.high) for s in kept} <= {(0, 2), (0, 5)}  # seats, and card kinds
    assert len({s.key for s in system.slots}) == len(system.slots)  # each slot its own key


def slot(name, low=None, high=None, key=None):
    return terms.Slot(key or ("local", 1, name), name, low, high)


def command(label, guard, updates, assume=terms.TRUE):
    return terms.Command(label, 0, 0, (), guard, terms.FALSE, updates, assume=assume)


def test_a_kept_value_written_from_chance_gets_its_support_and_a_counter_none():
    slots = [slot("seat"), slot("count"), slot("copy"), slot("chance", key=("input", 0)),
             slot("score", 0, 9, key=("var", "score", None))]
    drawn = terms.or_(*(terms.compare("==", ("s", 3), terms.const(v)) for v in (1, 2, 4)))
    step = command("step", terms.TRUE, {0: ("s", 3), 1: terms.arith("+", ("s", 1), terms.const(1)),
                                        2: terms.arith("+", ("s", 4), ("s", 0))}, assume=drawn)
    found = kept_ranges.kept_ranges(slots, [0, 0, 0, 0, 0], [step], [0, 1, 2])
    assert found == {0: (0, 4), 2: (0, 13)}  # the initial 0 and the outcomes; a counter grows for ever


def test_a_value_kept_by_a_mod_stays_within_its_divisor():
    slots = [slot("seat"), slot("turn", 0, 2, key=("var", "turn", None))]
    step = command("step", terms.TRUE, {0: terms.arith("mod", terms.arith("+", ("s", 0), terms.const(1)),
                                                       terms.const(3))})
    assert kept_ranges.kept_ranges(slots, [0, 0], [step], [0]) == {0: (0, 2)}


def pc_is(v):
    return terms.compare("==", ("s", 0), terms.const(v))


@pytest.mark.parametrize("unpinned", [False, True])
def test_the_steps_that_no_path_comes_back_to_run_once(unpinned):
    slots = [terms.Slot(("pc",), "pc", 0, 3), terms.Slot(("over",), "over", 0, 1)]
    over = terms.compare("==", ("s", 1), terms.const(0))
    setup = command("(set-up)", pc_is(0), {0: terms.const(1)})
    play = command("play", terms.and_(pc_is(1), over), {0: terms.const(2)})
    back = command("back", terms.and_(pc_is(2), over), {0: terms.ite(over, terms.const(1), terms.const(3))})
    end = command("end", terms.and_(pc_is(3), over), {1: terms.const(1)})  # keeps pc: the game ends
    loose = command("loose", over, {0: terms.const(3)})
    commands = [setup, play, back, end] + ([loose] if unpinned else [])
    groups, once = locations.recurring(terms.System(2, {}, slots, [0, 0], commands, over=1))
    # A step whose guard names no location may start anywhere: from 3 it comes back to 3.
    assert sorted([c.label for c in g] for g in groups) == [["loose"], ["play", "back"]][0 if unpinned else 1:]
    assert [c.label for c in once] == ["(set-up)", "end"]
    # A step that can lead back to where it began recurs, whatever else it may do.
    again = command("again", terms.and_(pc_is(3), over), {0: terms.ite(over, terms.const(3), terms.const(1))})
    groups, once = locations.recurring(terms.System(2, {}, slots, [0, 0], commands + [again], over=1))
    assert sorted(c.label for g in groups for c in g) == sorted(["play", "back", "again"] + (["loose"] if unpinned else []))
