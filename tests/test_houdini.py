"""Invariants that play keeps, found by Houdini (`verify.houdini`), and the ranking functions that need
them: a game where players drop out ends because the loser of each call, who is still in, gives back a
chip, which holds only in the states that play reaches."""
from __future__ import annotations

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.verify import control, houdini, terms
from rulekit.verify import termination as term

from helpers import write_spec

# Liar's dice with chips: a call costs the loser (the caller or the last bidder) a chip; a player with
# no chip is out and skipped; the last player with chips wins.
BLUFF = """
game {name} "{name}"
rulebook "rulebook.txt" source "{name}.txt"
players 2 to 4
unmodelled "Bluff." because "Title."
zone box: set, public, initial
token Chip x 8
var die per player: int 1..6 = 1, owner
var bid: int 0..4 = 0
var bidder: player = none
var loser: player = seat(0)
define alive(p: player): bool = Chip(p) > 0
define living: int = count(p in players where alive(p))
define sixes: int = count(p in players where alive(p) and die(p) == 6)
flow {
  for p in players { take 2 Chip by p }
  rounds {
    for p in players { if alive(p) { random r in 1..6  set die(p) = r } }
    set bid = 0
    set bidder = none
    turns from loser {
      if not alive(current) { end turn }
      choose by current {
        action raise(n in 1..4 where n > bid and n <= living) "Raise the bid." {
          set bid = n
          set bidder = current
        }
        action call when bidder != none "Call the last bidder a liar." {
          if sixes >= bid { set loser = current } else { set loser = bidder }
          {pay}
          if not alive(loser) { set loser = the(p in players where alive(p)) }
          end round
        }
      }
    } then {
      if living == 1 {
        win the(p in players where alive(p))
        end game
      }
    }
  }
}
"""

FAST = dict(games=4, variant_games=0, max_steps=60, max_states=0, loop_search=0)


def bluff(tmp_path, pay="return 1 Chip by loser", name="bluff"):
    return Spec.find(str(write_spec(tmp_path, BLUFF.replace("{name}", name).replace("{pay}", pay), name=name)))


def termination_of(report):
    return next(f for f in report.findings if f.kind == "termination")


def test_a_game_where_players_drop_out_is_proven_to_end_under_the_invariants_play_keeps(tmp_path):
    f = termination_of(check_spec(bluff(tmp_path), PlayBounds(**FAST)))
    assert f.verdict == "proven" and f.method == "z3-ranking"
    assert f.bound["ranking_relations"] == {2: "whole language", 3: "whole language", 4: "whole language"}
    assert "the Chip tokens the players hold (strictly decreased by 1 action(s)); then -1*bid" in f.message
    assert "in every state that play reaches, as Z3 proves by induction: bidder has some Chip (or is none)" in f.message


def test_without_the_invariants_no_ranking_is_found(tmp_path, monkeypatch):
    spec = bluff(tmp_path)
    system = control.build(spec.config(3, spec.model.default_options()))
    ranking, why = term.ranking(system, 20_000)
    assert ranking is not None and ranking.assumed
    monkeypatch.setattr(houdini, "invariants", lambda *args: ([], "none"))
    ranking, why = term.ranking(system, 20_000)
    assert ranking is None and why.startswith("no weighted sum")


def test_the_invariants_hold_on_every_state_of_random_play_and_the_wrong_candidates_are_dropped(tmp_path):
    spec = bluff(tmp_path)
    system = control.build(spec.config(3, spec.model.default_options()))
    found, why = houdini.invariants(system, 20_000)
    texts = {c.text for c in found}
    assert not why and "bidder has some Chip (or is none)" in texts
    assert "where the rules offer raise or call: the current player has some Chip" in texts
    # False at the start, before the set-up hands out the chips; broken by the first raise.
    assert "the current player has some Chip" not in texts and "bidder has no Chip (or is none)" not in texts
    candidates = {c.text for c in houdini.candidates(system)}
    assert "bidder has no Chip (or is none)" in candidates  # proposed, and dropped by a step Z3 found


def test_an_elimination_game_where_chips_come_back_is_never_proven_to_end(tmp_path):
    # The loser gives a chip to the caller: nobody ever drops out, so a bid and a call can go on forever.
    spec = bluff(tmp_path, pay="move 1 Chip from loser to current", name="endless")
    f = termination_of(check_spec(spec, PlayBounds(**FAST)))
    assert f.verdict != "proven"
    ranking, why = term.ranking(control.build(spec.config(3, spec.model.default_options())), 20_000)
    assert ranking is None and why


def test_houdini_drops_what_a_step_breaks_and_keeps_what_every_step_keeps():
    """Two seats; `holder` names one. Taking from the holder leaves it with none only when a second step
    moves the holder on: "the holder has some" is kept, "seat 1 has some" is broken."""
    slots = [terms.Slot(("held", "Coin", 0), "Coin[0]", 0, 3, seat=0),
             terms.Slot(("held", "Coin", 1), "Coin[1]", 0, 3, seat=1),
             terms.Slot(("var", "holder", None), "holder", 0, 1),
             terms.Slot(("over",), "over", 0, 1)]
    coin_of_holder = terms.ite(terms.compare("==", ("s", 2), terms.const(0)), ("s", 0), ("s", 1))
    # pass: the holder gives a coin to the other seat, who becomes the holder
    give = terms.Command("give", 0, 0, (), terms.compare(">=", coin_of_holder, terms.const(1)), terms.FALSE,
                         {0: terms.ite(terms.compare("==", ("s", 2), terms.const(0)),
                                       terms.arith("-", ("s", 0), terms.const(1)), terms.arith("+", ("s", 0), terms.const(1))),
                          1: terms.ite(terms.compare("==", ("s", 2), terms.const(0)),
                                       terms.arith("+", ("s", 1), terms.const(1)), terms.arith("-", ("s", 1), terms.const(1))),
                          2: terms.arith("-", terms.const(1), ("s", 2))})
    system = terms.System(2, {}, slots, [2, 0, 0, 0], [give], over=3)
    found, why = houdini.invariants(system, 20_000)
    texts = {c.text for c in found}
    assert not why and "holder has some Coin" in texts and "some player has some Coin" in texts
    assert "holder has no Coin" not in texts  # false at the start
    assert all(terms.evaluate(c.term, [2, 0, 0, 0]) for c in found)


DUEL = """
game {name} "{name}"
rulebook "rulebook.txt" source "{name}.txt"
players 2 to 4
unmodelled "Duel." because "Title."
zone box: set, public, initial
var lives per player: int 0..30 = 30
var out per player: bool = false
define standing: int = count(p in players where not out(p))
flow {
  turns from seat(0) {
    if out(current) { end turn }
    choose by current {
      action hit(p in players where p != current and not out(p)) "Hit a player." {
        subtract 1 from lives(p)
        if lives(p) == 0 { set out(p) = true }
      }
    }
  } then {
    if standing == 1 {
      win the(p in players where not out(p))
      end game
    }
  }
}
"""


def test_a_player_who_is_out_by_a_flag_is_skipped_and_the_game_ends(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, DUEL.replace("{name}", "duel"), name="duel")))
    f = termination_of(check_spec(spec, PlayBounds(**FAST)))
    assert f.verdict == "proven" and f.method == "z3-ranking"
    assert "lives summed over the seats (strictly decreased by 1 action(s), on some of its branches)" in f.message
    assert "out is false for the current player" in f.message
