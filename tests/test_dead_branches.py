"""Branches that random play reaches and never takes (`lower.branches`, `checking.branches`): a condition
that can never hold is a `dead-rule` warning at the branch; a branch that is taken, one that only another
option takes, and one inside a branch never taken are not reported."""
from __future__ import annotations

import json
import random

from rulekit.cli import main
from rulekit.lower import branches
from rulekit.pipeline import Spec
from tests.helpers import write_spec

FAST = ["--games", "30", "--variant-games", "30", "--symbolic-time-limit", "0", "--max-states", "0", "--jobs", "1",
        "--format", "json"]

RULEBOOK = ("Tiny Game.\nOn your turn, draw one card.\nWith a full hand, you win.\nAfter four turns the game ends.\n"
            "Some say a long game ends in a draw.\n")

# Three cards in the box, so a hand never holds five; `turns_taken >= 0` always holds, so its else never
# runs; the rule inside the never-taken branch is never reached.
SPEC = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 2
unmodelled "Tiny Game." because "Title."
zone box: stack, hidden, initial
zone hand per player: set, owner
card Ace x 1
card Two x 2
var turns_taken: int 0..10 = 0
ambiguity long_game "How does a long game end?" {
  kind silence
  quote "Some say a long game ends in a draw."
  question "Does a long game end in a draw?"
  option no_draw "No."
  option draw "Yes."
  default no_draw because "The rulebook says it ends."
}
flow {
  shuffle box
  turns from seat(0) {
    rule draw quote "On your turn, draw one card." {
      if size(box) > 0 { move top from box to hand(current) }
    }
    if size(hand(current)) >= 5 {
      if turns_taken > 2 { add 1 to turns_taken }
      win current
      end game
    } quote "With a full hand, you win."
    add 1 to turns_taken
    if turns_taken >= 0 {
      add 0 to turns_taken
    } else {
      add 1 to turns_taken
    }
    if long_game is draw and turns_taken >= 2 { end game }
    if turns_taken >= 4 { end game } quote "After four turns the game ends."
  }
}
"""


def dead_branches(capsys, path, *extra):
    code = main(["check", str(path), *FAST, *extra])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return {f["id"]: f for f in json.loads(out)["games"][0]["findings"]
            if f["id"].startswith("tiny/dead-rule/branch/")}


def test_a_condition_that_never_holds_and_an_else_that_never_runs_are_dead_branches(tmp_path, capsys):
    found = dead_branches(capsys, write_spec(tmp_path, SPEC, rulebook=RULEBOOK))
    assert set(found) == {"tiny/dead-rule/branch/flow/25", "tiny/dead-rule/branch/flow/31-else"}
    # three cards in the game cannot make a hand of five, and the range 0..10 keeps `turns_taken >= 0`:
    # Z3 over the counts abstraction proves both, which random play had only sampled
    full = found["tiny/dead-rule/branch/flow/25"]
    assert full["severity"] == "warning" and full["verdict"] == "proven" and full["method"] == "z3-abstraction"
    assert full["message"].startswith("a branch that never runs: the condition `size(hand(current)) >= 5` holds in "
                                      "no state play can reach (Z3 over the counts abstraction: cards and tokens "
                                      "conserved, ")
    assert full["message"].endswith("with 2 players, under the default options and each option alone; nor did any "
                                    "of 30 random games (2 players) take it, though play reached the `if` (in flow)")
    assert full["location"].endswith("tiny.rules:25:8") and full["quotes"] == ["With a full hand, you win."]
    assert full["bound"]["games"] == 30 and "--games" not in full["hint"]  # more games cannot take it
    assert full["details"] == {"condition": "size(hand(current)) >= 5", "rule": "flow", "branch": "if"}
    otherwise = found["tiny/dead-rule/branch/flow/31-else"]
    assert otherwise["verdict"] == "proven"
    assert "an earlier condition holds in every state play can reach, so the `else` never runs" in otherwise["message"]


def test_a_branch_that_play_never_takes_but_no_state_rules_out_is_only_sampled(tmp_path, capsys):
    # every turn draws before it counts, so the box is never full once a turn is counted; the counts
    # abstraction, which knows nothing of that order, cannot rule it out
    text = SPEC.replace("if turns_taken >= 0 {", "if turns_taken >= 1 and size(box) == 3 {")
    found = dead_branches(capsys, write_spec(tmp_path, text, rulebook=RULEBOOK))
    full = found["tiny/dead-rule/branch/flow/31"]
    assert full["verdict"] == "bounded" and full["method"] == "random-play"
    assert full["message"].startswith("a branch that is never taken: the condition `turns_taken >= 1 and size(box) "
                                      "== 3` never held in 30 random games (2 players), though play reached the "
                                      "`if` (in flow); at 95 % confidence fewer than ")
    assert 0 < full["bound"]["violation_rate_below"] < 0.11 and "more games (--games) may reach it" in full["hint"]


def test_a_branch_taken_once_is_not_reported(tmp_path, capsys):
    taken = SPEC.replace("size(hand(current)) >= 5", "size(hand(current)) >= 2").replace(
        "turns_taken >= 0 {", "turns_taken >= 2 {").replace("turns_taken > 2", "turns_taken >= 2")
    found = dead_branches(capsys, write_spec(tmp_path, taken, rulebook=RULEBOOK))
    # a hand of two wins at the second draw, so the game never reaches four turns: that branch is dead now
    assert set(found) == {"tiny/dead-rule/branch/flow/37"}


def test_an_expect_acknowledges_a_dead_branch(tmp_path, capsys):
    checks = 'checks tiny\nexpect full_hand "tiny/dead-rule/branch/flow/25" because "a hand of five is a house rule"\n'
    found = dead_branches(capsys, write_spec(tmp_path, SPEC, rulebook=RULEBOOK, checks=checks))
    assert found["tiny/dead-rule/branch/flow/25"]["acknowledged_by"] == "expect full_hand"
    assert found["tiny/dead-rule/branch/flow/31-else"]["acknowledged_by"] is None


def test_branch_sites_keep_the_options_and_nesting_of_the_spec(tmp_path):
    spec = Spec(write_spec(tmp_path, SPEC, rulebook=RULEBOOK))
    default, drawn = (spec.config(2, o) for o in ({}, {"long_game": "draw"}))
    def branch_lines(config):  # key: branch@FILE:LINE:COLUMN/WHICH
        return {int(s.key.rsplit(":", 2)[1]) for s in branches.of(config) if not branches.is_reached_site(s)}

    # the option's branch is folded away under the default options; every `if` has its `reached` site
    assert branch_lines(default) == {23, 25, 26, 31, 37} and branch_lines(drawn) == {23, 25, 26, 31, 36, 37}
    assert sum(branches.is_reached_site(s) for s in branches.of(default)) == 6


def test_a_branch_test_evaluates_no_condition_the_if_would_not(tmp_path):
    # `the(...)` finds nothing once the box is empty: the second condition fails with a rule error
    # whenever the first holds, so a probe that tested it first would stop a game the rules allow.
    text = SPEC.replace("if size(box) > 0 { move top from box to hand(current) }",
                        "if size(box) == 0 { add 0 to turns_taken } "
                        "else if the(c in box where true) == Ace and size(box) > 5 { add 0 to turns_taken } "
                        "else { move top from box to hand(current) }")
    spec = Spec(write_spec(tmp_path, text, rulebook=RULEBOOK))
    plain, probed = spec.engine(2), spec.engine(2, probes=True)
    for seed in range(10):
        states = [g.new_initial_state(seed=seed, auto_chance=True) for g in (plain, probed)]
        rng = random.Random(seed)
        while not states[0].is_terminal():
            action = rng.choice(states[0].legal)
            for s in states:
                s.apply_action(action)
        assert states[0].history == states[1].history and states[0].returns() == states[1].returns()


def test_a_branch_the_player_count_rules_out_before_play_is_proven_dead(tmp_path, capsys):
    # at 2 and 3 players: `< 2` never holds (proven dead); `< 3` holds at 2, so neither it nor its else is
    # dead; the `if` that tests an option is left out, since options played together may take it
    text = SPEC.replace("players 2 to 2", "players 2 to 3").replace(
        "    add 1 to turns_taken\n    if turns_taken >= 0 {",
        "    add 1 to turns_taken\n"
        "    if player_count < 2 { add 1 to turns_taken }\n"
        "    if player_count < 3 { add 0 to turns_taken } else { add 0 to turns_taken }\n"
        "    if long_game is draw and player_count > 3 { add 0 to turns_taken }\n"
        "    if turns_taken >= 0 {")
    found = dead_branches(capsys, write_spec(tmp_path, text, rulebook=RULEBOOK))
    static = {key: f for key, f in found.items() if f["method"] == "static"}
    assert set(static) == {"tiny/dead-rule/branch/flow/31"}
    dead = static["tiny/dead-rule/branch/flow/31"]
    assert dead["verdict"] == "proven" and dead["severity"] == "warning"
    assert dead["message"].startswith("a branch that never runs: its condition `player_count < 2` is false with 2 "
                                      "to 3 players, under every option set, before play")
    assert dead["details"] == {"condition": "player_count < 2", "rule": "flow", "branch": "if", "players": [2, 3]}
    assert not any("/32" in key or "/33" in key for key in found)
