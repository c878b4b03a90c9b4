"""Messages for new users: action strings that tell decisions apart, and the vocabulary messages list."""
from __future__ import annotations

import pytest

from rulekit import SpecError, vocabulary
from tests.helpers import compile_text, load_text

TWO_PICKS = """
game picks "Picks"
rulebook "rulebook.txt" source "x"
players 2 to 2
card King x 1
card Queen x 1
zone box: set, public, initial
zone hand per player: set, owner
zone table: set, public
procedure play_one {
  choose c in hand(current) by current
  move c from hand(current) to table
}
flow {
  move all from box to hand(current)
  rule give "Give a card" {
    choose c in hand(current) by current
    move c from hand(current) to hand(next(current))
  }
  do play_one
  choose by current {
    action keep(c in hand(current)) { end game }
    action done { end game }
  }
}
"""


def test_two_decisions_with_one_parameter_name_print_apart(tmp_path):
    game = load_text(tmp_path, TWO_PICKS)
    state = game.new_initial_state(seed=0, auto_chance=True)
    first = sorted(state.action_to_string(a) for a in state.legal_actions())
    assert first == ["give: c=King", "give: c=Queen"]
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "give: c=King"))
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["play_one: c=Queen"]
    state.apply_action(state.legal_actions()[0])
    # the hand is empty: only `done` is left, printed as its name
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == ["done"]


def test_a_parameter_name_used_once_prints_as_before(tmp_path):
    text = TWO_PICKS.replace("  do play_one\n", "").replace(
        "procedure play_one {\n  choose c in hand(current) by current\n  move c from hand(current) to table\n}\n", "")
    game = load_text(tmp_path, text)
    state = game.new_initial_state(seed=0, auto_chance=True)
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == ["c=King", "c=Queen"]


def test_aggregates_are_read_off_the_grammar():
    words = vocabulary.aggregate_words()
    assert {"count", "exists", "the", "forall", "sum", "max", "min", "argmax", "argmin"} <= set(words)
    assert "subsets" not in words and "players" not in words  # an iteration domain, a keyword: no binders


@pytest.mark.parametrize("call, words", [
    ("highest(p in players: 1)", ["E107", "there is no aggregate 'highest'", "max(x in D [where C]: E)",
                                  "sum(x in D: E)", "max(A, B)"]),
    ("size(p in players)", ["E107", "there is no aggregate 'size'", "size(ZONE) is a function of 1 argument"]),
    ("frob(3)", ["E201", "unknown function 'frob'", "size(ZONE)", "count(x in D [where C])"]),
])
def test_unknown_aggregates_and_functions_list_those_that_exist(call, words):
    text = ('game g "G"\nrulebook "r" source "x"\nplayers 2 to 2\n'
            f"define v: int = {call}\nflow {{ }}\n")
    with pytest.raises(SpecError) as info:
        compile_text(text)
    rendered = str(info.value)
    for word in words:
        assert word in rendered, (word, rendered)
    for word in vocabulary.aggregate_words() + list(vocabulary.BUILTIN_FUNCTIONS):
        assert f"{word}(" in rendered, word
