"""A role that goes round the table and skips a seat (`checking.rotation`): a dealer handed on two seats
at a time never reaches half the table with 4 players; handed on one seat at a time, or given out once
a game, it says nothing. A seat that never wins while the others often do (`checking.seats`)."""
from __future__ import annotations

import json

from rulekit.cli import main
from tests.helpers import write_spec

FAST = ["--games", "6", "--variant-games", "1", "--symbolic-time-limit", "0", "--max-states", "0", "--jobs", "1",
        "--format", "json"]

RULEBOOK = "Tiny Game.\nAfter each deal, the player on the left of the dealer deals.\nPass or stop.\n"

SPEC = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 3 to 4
unmodelled "Tiny Game." because "Title."
var dealer: player = seat(0) phrase "the dealer"
var fifth: player = none phrase "the fifth dealer"
var deals: int 0..20 = 0
flow {
  loop {
    choose by dealer {
      action pass "Pass or stop." { }
      action stop "Pass or stop." { }
    }
    set dealer = next(next(dealer)) quote "After each deal, the player on the left of the dealer deals."
    add 1 to deals
    if deals == 5 { set fifth = dealer }
    if deals >= 12 { end game }
  }
}
"""


def rotations(capsys, path):
    code = main(["check", str(path), *FAST])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return {f["id"]: f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "rotation"}


def test_a_dealer_handed_on_two_seats_at_a_time_skips_seats_with_four_players(tmp_path, capsys):
    found = rotations(capsys, write_spec(tmp_path, SPEC, rulebook=RULEBOOK))
    assert set(found) == {"tiny/rotation/dealer"}  # `fifth` is set once a game: it says nothing
    f = found["tiny/rotation/dealer"]
    assert f["severity"] == "warning" and f["verdict"] == "bounded" and f["location"].endswith("tiny.rules:6:1")
    assert f["message"] == ("the dealer (`dealer`) goes round the table but skips a seat: with 4 players, never P1 "
                            "or P3 in 3 random game(s), though it changed hands at least 12 times in each (only P0 "
                            "and P2); with 3 players it reached every seat; it is set at line 15")
    assert f["details"]["skipped"] == {"4": {"never": ["P1", "P3"], "held": ["P0", "P2"], "changes": 12, "games": 3}}


def test_a_dealer_that_always_moves_two_seats_on_skips_seats_though_it_reaches_every_one(tmp_path, capsys):
    # with 5 players two seats at a time reaches every seat, but never the next one
    text = SPEC.replace("players 3 to 4", "players 3 to 5")
    f = rotations(capsys, write_spec(tmp_path, text, rulebook=RULEBOOK))["tiny/rotation/dealer"]
    assert ("; with 5 players, it always moves 2 seats at a time, never to a neighbour, in 3 random game(s) (P0, P2, "
            "P4, P1, P3, P0, ... in one)") in f["message"]
    assert f["details"]["stepped"] == {"5": {"seats_at_a_time": 2, "games": 3,
                                             "example": ["P0", "P2", "P4", "P1", "P3"] * 2 + ["P0", "P2", "P4"]}}
    assert "4" in f["details"]["skipped"] and f["details"]["every_seat_with"] == [3, 5]


def test_a_dealer_handed_to_the_next_seat_reaches_every_seat(tmp_path, capsys):
    text = SPEC.replace("next(next(dealer))", "next(dealer)")
    assert rotations(capsys, write_spec(tmp_path, text, rulebook=RULEBOOK)) == {}


# Each seat gets two cards of six, one an Ace, in a pile of its own, except P1 with 3 players: P1 then
# never holds the Ace, so never wins.
SEATS = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 3
unmodelled "Tiny Game." because "Title."
unmodelled "After each deal, the player on the left of the dealer deals." because "Not this game."
unmodelled "Pass or stop." because "Not this game."
zone box: stack, hidden, initial
zone pile per player: stack, hidden
zone hand per player: set, owner
card Ace x 1
card Two x 5
var turns_taken: int 0..20 = 0
flow {
  shuffle box
  for p in players {
    if not (player_count == 3 and p == seat(1)) {
      move top from box to pile(p)
      move top from box to pile(p)
    }
  }
  turns from seat(0) {
    if size(pile(current)) > 0 { move top from pile(current) to hand(current) }
    if exists(c in hand(current) where c == Ace) {
      win current
      end game
    }
    add 1 to turns_taken
    if turns_taken >= 9 { end game }
  }
}
"""


def seat_findings(capsys, path, games: int):
    code = main(["check", str(path), *FAST, "--games", str(games)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return {f["id"]: f for f in json.loads(out)["games"][0]["findings"] if f["kind"] == "seat"}


def test_a_seat_that_never_wins_while_the_others_often_do_is_a_seat_finding(tmp_path, capsys):
    found = seat_findings(capsys, write_spec(tmp_path, SEATS, rulebook=RULEBOOK), 200)
    [f] = found.values()
    assert f["id"] == "tiny/seat/never-wins" and f["severity"] == "warning" and f["verdict"] == "bounded"
    assert f["message"].startswith("a seat never wins: P1 with 3 players: none of 200 finished random games, while "
                                   "every other seat won at least ")
    assert [(c["players"], c["seat"]) for c in f["details"]["seats"]] == [(3, "P1")]


def test_seats_that_all_can_win_or_too_few_games_are_no_seat_finding(tmp_path, capsys):
    fair = SEATS.replace("player_count == 3 and p == seat(1)", "false")
    assert seat_findings(capsys, write_spec(tmp_path, fair, rulebook=RULEBOOK), 200) == {}
    assert seat_findings(capsys, write_spec(tmp_path, SEATS, name="few", rulebook=RULEBOOK), 6) == {}
