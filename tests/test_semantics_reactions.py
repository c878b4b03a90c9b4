"""Secret variables, announcements, `check triggers` and the reaction idiom, on small inline specs."""
from __future__ import annotations

import numpy as np
import pytest

import rulekit
from rulekit.engine.observation import ObservationEncoder
from tests.helpers import compile_text, load_text

HEADER = '''
game tiny "Tiny"
rulebook "rulebook.txt" source "x"
players 3 to 3
zone box: set, public, initial
'''

VOTE = HEADER + '''
enum Side { yes, no, abstain }
var side per player: Side = abstain, owner
var note: int = 0, hidden
var open_count: int = 0
flow {
  for p in players {
    choose by p {
      action vote(s in {yes, no}) secret { set side(p) = s  set note = 7 }
      action skip secret { set side(p) = abstain }
    }
  }
  for p in players { announce side(p) by p }
  set open_count = 3
  choose by current { action done { end game } }
}
'''


def names(state):
    return [state.action_to_string(a) for a in state.legal_actions()]


def play(state, text):
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == text))


def test_owner_variables_are_seen_only_by_their_player(tmp_path):
    state = load_text(tmp_path, VOTE, players=3).new_initial_state()
    play(state, "vote(s=no)")
    assert state.observation(0)["vars"]["side[0]"] == "no", "an enum value reads by its name"
    assert state.observation(1)["vars"]["side[0]"] is None and state.observation(2)["vars"]["side[0]"] is None
    assert state.observation(0)["vars"]["note"] is None, "a hidden variable is seen by nobody"
    assert state.observation(1)["vars"]["open_count"] == 0
    assert "side[0]=?" in state.observation_string(1) and "side[0]=no" in state.observation_string(0)


def test_sequential_secret_choices_cannot_see_each_other(tmp_path):
    """The second voter's view is the same whatever the first voted: the choices are simultaneous."""
    game = load_text(tmp_path, VOTE, players=3)
    views = []
    for first in ("vote(s=yes)", "vote(s=no)", "skip"):
        state = game.new_initial_state()
        play(state, first)
        assert state.current_player() == 1
        views.append((state.observation(1), names(state)))
    assert views[0] == views[1] == views[2]


def test_announcements_reveal_the_choices_to_everyone(tmp_path):
    state = load_text(tmp_path, VOTE, players=3).new_initial_state()
    for choice in ("vote(s=yes)", "skip", "vote(s=no)"):
        play(state, choice)
    for observer in range(3):
        mine = {0: "P0: vote(s=yes)", 1: "P1: skip", 2: "P2: vote(s=no)"}
        secret = [mine[p] if p == observer else f"P{p}: a secret choice" for p in range(3)]
        assert state.observation(observer)["events"][-3:] == ["P0 announces: yes", "P1 announces: abstain",
                                                              "P2 announces: no"]
        assert state.observation(observer)["events"][:3] == secret


def test_secret_variables_stay_out_of_the_openspiel_tensor(tmp_path):
    game = load_text(tmp_path, VOTE, players=3)
    state = game.new_initial_state()
    play(state, "vote(s=no)")
    encoder = ObservationEncoder(game)
    mine = encoder.views(encoder.encode(state, 0))["vars"]
    theirs = encoder.views(encoder.encode(state, 1))["vars"]
    public = encoder.views(encoder.encode(state, 1, mode="public"))["vars"]
    truth = encoder.views(encoder.encode(state, 1, mode="all"))["vars"]
    slot = encoder.var_names.index("side[0]")
    assert mine[slot] == 1 and theirs[slot] == 0 and public[slot] == 0 and truth[slot] == 1
    own = encoder.var_names.index("side[1]")
    assert theirs[own] == 2 and public[own] == 0, "P1 sees their own secret, the public view does not"
    theirs[own] = 0
    assert np.array_equal(theirs, public)


def test_announce_takes_a_value_and_a_player():
    with pytest.raises(rulekit.SpecError) as err:
        compile_text(HEADER + "zone deck: stack, hidden\nflow { announce deck by current }\n")
    assert err.value.diagnostics[0].code == "E202"
    with pytest.raises(rulekit.SpecError) as err:
        compile_text(HEADER + "flow { announce 3 by 4 }\n")
    assert err.value.diagnostics[0].code == "E202"


def test_check_triggers_fires_before_the_next_statement(tmp_path):
    text = HEADER + '''
var n: int = 0
var after: int = 0
trigger reached when n >= 2 { set after = n  win current  end game }
flow {
  set n = 1
  check triggers
  set n = 2
  check triggers
  set n = 5
  choose by current { action never { } }
}
'''
    state = load_text(tmp_path, text, players=3).new_initial_state()
    assert state.is_terminal() and state.value("after") == 2 and state.value("n") == 2
    assert state.returns() == [1.0, -1.0, -1.0]


def test_without_check_triggers_the_trigger_waits_for_the_next_decision(tmp_path):
    text = HEADER + '''
var n: int = 0
var after: int = 0
trigger reached when n >= 2 { set after = n  end game }
flow {
  set n = 2
  set n = 5
  choose by current { action never { } }
}
'''
    state = load_text(tmp_path, text, players=3).new_initial_state()
    assert state.is_terminal() and state.value("after") == 5


def test_check_triggers_inside_a_procedure_and_a_loop(tmp_path):
    text = HEADER + '''
var n: int = 0
var fired: int = 0
trigger every_even when n % 2 == 0 and n > 0 { add 1 to fired }
procedure step { add 1 to n  check triggers }
flow {
  for i in 1..6 { do step }
  choose by current { action stop { end game } }
}
'''
    state = load_text(tmp_path, text, players=3).new_initial_state()
    assert state.value("fired") == 3 and state.value("n") == 6


REACTIONS = HEADER + '''
card Shield x 2
zone hand per player: set, owner
var hits: int = 0
var cancelled: bool = false
var answered_by: player = seat(0)
flow {
  move Shield from box to hand(seat(2))
  move Shield from box to hand(seat(1))
  set cancelled = false
  for q in players from next(current) {
    if q != current and size(hand(q)) > 0 {
      choose by q {
        action cancel { move Shield from hand(q) to box  set cancelled = true  set answered_by = q  break }
        action pass { }
      }
    }
  }
  if not cancelled { add 1 to hits }
  choose by current { action stop { end game } }
}
'''


def test_reactions_are_asked_in_order_and_the_first_answer_cancels(tmp_path):
    game = load_text(tmp_path, REACTIONS, players=3)
    state = game.new_initial_state()
    assert state.current_player() == 1 and names(state) == ["cancel", "pass"]
    play(state, "pass")
    assert state.current_player() == 2
    play(state, "cancel")
    assert state.value("hits") == 0 and state.value("answered_by") == 2 and names(state) == ["stop"]

    state = game.new_initial_state()
    play(state, "cancel")
    assert state.current_player() == 0 and state.value("answered_by") == 1, "nobody after the first answer is asked"

    state = game.new_initial_state()
    play(state, "pass")
    play(state, "pass")
    assert state.value("hits") == 1


def test_secret_variable_visibility_in_the_model():
    g = compile_text(VOTE)
    assert {v.name: v.visibility for v in g.vars} == {"side": "owner", "note": "hidden", "open_count": "public"}
