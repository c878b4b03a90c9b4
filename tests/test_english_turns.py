"""The English of a turn that repeats until the player stops or loses it (push-your-luck): every
condition of a choice said where the choice is, a single option not offered as a choice, and a
summary that tells what a turn is."""
from __future__ import annotations

import pytest

pytest.importorskip("sphinx")

from rulekit.sphinx.playbook import how_to_play, rules_text  # noqa: E402
from tests.helpers import compile_text  # noqa: E402

SPEC = """game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
var pot: int = 0 phrase "the pot"
var score per player: int = 0
define can_stop: bool = pot >= 3 phrase "the pot holds 3 coins or more"
flow {
  turns from seat(0) {
    set pot = 0
    loop {
      random d in 1..6
      if d == 1 { set pot = 0 end turn }
      choose by current {
        action take(n in 1..2 where n <= d) "Take coins." { add n to pot }
      }
      choose by current {
        action again "Roll again." { }
        action stop when can_stop "Stop." { add pot to score(current) end turn }
      }
    }
  } then {
    if score(current) >= 10 { win current end game }
  }
}
"""


def test_a_conditional_option_beside_one_that_does_nothing_is_listed_with_its_condition():
    """`you may stop` said for a choice between going on and stopping when allowed would leave out
    when stopping is allowed."""
    text = rules_text(compile_text(SPEC))
    assert "    You must choose one:\n      Roll again.\n      Stop (only if the pot holds 3 coins or more):\n" \
        in text, text


def test_a_choice_of_a_single_action_is_not_offered_as_one_of_several():
    text = rules_text(compile_text(SPEC))
    assert "    You must take coins, choosing a number from 1 to 2 that is at most the number:\n" \
           "      Add the other number to the pot.\n" in text, text
    assert text.count("choose one") == 2, text  # the choice between rolling again and stopping, in both sections


def test_a_player_compared_with_none_is_whether_there_is_one():
    """"if the player who leads is nobody" reads as if nobody were a player."""
    text = SPEC.replace("var score per player: int = 0",
                        'var score per player: int = 0\nvar leader: player = none phrase "the player who leads"\n'
                        "var rival: player = none")
    text = text.replace("if score(current) >= 10 { win current end game }",
                        "if leader == none and rival != none { set leader = current }\n"
                        "    if leader != none and rival == none { win current end game }")
    said = rules_text(compile_text(text))
    assert "If there is no player who leads and there is a rival, set the player who leads to you." in said, said
    assert "If there is a player who leads and there is no rival:" in said, said
    assert "nobody" not in said.replace("nobody wins", "") and "somebody" not in said, said


def test_the_summary_of_a_turn_that_repeats_gives_every_step():
    """The gist of a loop in one sentence stopped after its first few things: how the turn ends (the
    bust, the stop) was left out."""
    turn = how_to_play(compile_text(SPEC)).text().split("### A turn\n")[1].split("At the end")[0]
    assert turn.endswith("Set the pot to 0.\n"
                         "Repeat these 4 steps:\n"
                         "1. Pick a number from 1 to 6 at random.\n"
                         "2. If the number is 1, set the pot to 0, then your turn ends.\n"
                         "3. You must take coins, choosing a number from 1 to 2 that is at most the number.\n"
                         "4. You must choose one: roll again or stop (only if the pot holds 3 coins or more).\n"), turn


def test_a_rule_that_is_a_long_loop_gives_its_first_steps_and_points_to_the_rest():
    many = "\n".join(f"      add {i} to pot" if i % 2 else f"      random r{i} in 1..{i + 2}" for i in range(10))
    text = SPEC.replace("    loop {\n", "    rule rolling \"Rolling\" {\n    loop {\n" + many + "\n")
    text = text.replace("    }\n  } then", "    }\n    }\n  } then")
    turn = how_to_play(compile_text(text)).text().split("### A turn\n")[1].split("At the end")[0]
    assert "\nRolling: repeat these 14 steps:\n1. Pick a number from 1 to 2 at random.\n" in turn, turn
    assert "\n8. Add 7 to the pot.\nSteps 9 to 14: see the rules.\n" in turn, turn


def test_the_summary_says_when_an_option_may_be_taken_if_that_is_short():
    said = how_to_play(compile_text(SPEC)).text()
    assert "4. You must choose one: roll again or stop (only if the pot holds 3 coins or more).\n" in said, said
    long = SPEC.replace("when can_stop", "when pot >= 3 and pot <= 50 and pot != 7")
    said = how_to_play(compile_text(long)).text()
    assert "4. You must choose one: roll again or stop.\n" in said, said
