"""Carrying a loop found under one option set over to another, by the names of its steps (`verify.carry`)."""
from __future__ import annotations

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.verify import carry, endless
from rulekit.verify import termination as term
from rulekit.verify.explore import Limits, explore, state_key

from helpers import TINY_RULEBOOK, write_spec

# Each turn the player draws a card at random and puts one back, or stops and wins. Under the default
# options the loop draws the Ace and puts it back; under `aces=without` the Ace is set aside first, so
# that neither the draw nor the move of the loop exists there, and yet play goes round with the Twos.
DRAW_LOOP = """
game drawloop "drawloop"
rulebook "rulebook.txt" source "drawloop.txt"
players 2 to 3
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Test."
unmodelled "The player with the Ace wins." because "Test."
ambiguity aces "Are the Aces in the deck?" {
  quote "Each player draws one card."
  question "With the Aces or without?"
  option with "With them."
  option without "Without them: they are set aside."
  default with because "Test."
}
zone box: set, public, initial
zone aside: set, public
zone hand per player: set, owner
card Ace x 1
card Two x 2
flow {
  if aces is without { move Ace from box to aside }
  turns from seat(0) {
    random c in box
    move c from box to hand(current)
    choose by current {
      action put(k in hand(current)) "Put a card back." { move k from hand(current) to box }
      action stop "Stop." {
        win current
        end game
      }
    }
  }
}
"""


def draw_loop(tmp_path):
    return Spec.find(str(write_spec(tmp_path, DRAW_LOOP, name="drawloop", rulebook=TINY_RULEBOOK)))


def default_lasso(loaded):
    x = explore(loaded, Limits())
    x.loaded = loaded
    found = term.lasso(x, state_key(loaded, x.symmetry), state_key(loaded, False))
    assert found is not None
    return found


def without_aces(tmp_path):
    """(the default options' lasso with two players, its steps, the game without the Aces)."""
    spec = draw_loop(tmp_path)
    default = spec.engine(2, {})
    found = default_lasso(default)
    return found, carry.step_labels(default, found), spec.engine(2, {"aces": "without"})


def test_a_loop_whose_chance_outcome_and_move_are_gone_is_carried_over_to_a_loop_of_the_other_rules(tmp_path):
    found, steps, without = without_aces(tmp_path)
    assert (True, "chance: Ace") in steps and (False, "put(k=Ace)") in steps
    assert endless.replayed(without, found) is None, "the Ace is not there to draw: the loop does not replay"
    out = carry.carry(without, steps, len(found.prefix), max_states=1000)
    assert out.found is not None and out.states <= 1000
    again = endless.replayed(without, out.found)
    assert again is not None, "what the carried loop found is a lasso of these rules"
    state = without.replay(again.prefix)
    names = []
    for action in again.loop:
        names.append(state.action_to_string(action))
        state.apply_action(action)
    assert names and all(name == "put(k=Two)" for name in names)


def test_a_game_of_too_many_actions_to_index_reads_the_names_of_each_state_s_options(tmp_path, monkeypatch):
    found, steps, without = without_aces(tmp_path)
    indexed = carry.carry(without, steps, len(found.prefix), max_states=1000)
    monkeypatch.setattr(carry, "INDEXED_ACTIONS", 0)
    read = carry.carry(without, steps, len(found.prefix), max_states=1000)
    assert read.found == indexed.found and read.path == indexed.path and read.found is not None


def test_carrying_a_loop_over_is_held_to_its_states_and_never_ends_the_game(tmp_path):
    found, steps, without = without_aces(tmp_path)
    out = carry.carry(without, steps, len(found.prefix), max_states=1)
    assert out.found is None and out.states <= 1 + len(without.replay([]).legal_actions())
    # Where every move left ends the game, the carried play stops rather than end it.
    stop_only = DRAW_LOOP.replace('action put(k in hand(current)) "Put a card back." { move k from hand(current) to box }',
                                  'action put(k in hand(current)) when aces is with "Put a card back." '
                                  '{ move k from hand(current) to box }')
    folder = tmp_path / "stops"
    folder.mkdir()
    spec = Spec.find(str(write_spec(folder, stop_only, name="drawloop", rulebook=TINY_RULEBOOK)))
    default = spec.engine(2, {})
    found = default_lasso(default)
    out = carry.carry(spec.engine(2, {"aces": "without"}), carry.step_labels(default, found), len(found.prefix), 1000)
    assert out.found is None and out.path == []


def test_check_refutes_termination_under_an_option_with_the_carried_loop(tmp_path):
    spec = draw_loop(tmp_path)
    bounds = PlayBounds(games=4, variant_games=2, max_steps=50, loop_search=0)
    found = {f.options.get("aces", "default"): f for f in check_spec(spec, bounds).findings if f.kind == "termination"}
    assert found["default"].verdict == "refuted"
    carried = found["without"]
    assert carried.verdict == "refuted" and carried.witness
    assert "carried over to these" in carried.message
    assert carried.bound["per_players"] == {2: "refuted", 3: "refuted"}


# DRAW_LOOP where an option renames the move that puts a card back: the default options' loop does
# not replay (its move has another name), and carried over it needs chance to draw the Ace again.
RENAMED = DRAW_LOOP.replace('option without "Without them: they are set aside."',
                            'option without "Without them: they are set aside."\n  option renamed "With them, given back."'
                            ).replace(
    'action put(k in hand(current)) "Put a card back." { move k from hand(current) to box }',
    'action put(k in hand(current)) when not (aces is renamed) "Put a card back." { move k from hand(current) to box }\n'
    '      action give_back(k in hand(current)) when aces is renamed "Give a card back." '
    '{ move k from hand(current) to box }')


def test_a_carried_loop_that_needs_luck_waits_for_the_search_which_may_find_one_the_players_keep(tmp_path,
                                                                                                  monkeypatch):
    spec = Spec.find(str(write_spec(tmp_path, RENAMED, name="drawloop", rulebook=TINY_RULEBOOK)))
    default, renamed = spec.engine(2, {}), spec.engine(2, {"aces": "renamed"})
    found = default_lasso(default)
    assert endless.replayed(renamed, found) is None
    carried = carry.carry(renamed, carry.step_labels(default, found), len(found.prefix), 1000).found
    assert carried is not None and endless.replayed(renamed, carried).chance
    # Where the players cannot keep the carried loop going alone, it needs luck: the search goes first.
    monkeypatch.setattr(endless, "players_keep", lambda loaded, lasso, symmetric, states: (None, states))
    searched = []

    def search(loaded, symmetric, states, **kwargs):
        searched.append(states)
        return endless.Search(games=1, states=states, found=found_by_search, kept=True)

    monkeypatch.setattr(endless, "search", search)
    bounds = PlayBounds(games=4, variant_games=2, max_steps=50)

    def renamed_finding():
        return next(f for f in check_spec(spec, bounds).findings
                    if f.kind == "termination" and f.options.get("aces") == "renamed")

    found_by_search = endless.replayed(renamed, carried)
    f = renamed_finding()
    assert searched and f.verdict == "refuted" and "found near random games" in f.message
    assert "carried over" not in f.message
    # A search that finds nothing leaves the carried loop: still a loop, one that needs luck.
    searched.clear()
    found_by_search = None
    f = renamed_finding()
    assert searched and f.verdict == "refuted" and "carried over to these" in f.message
    assert f.severity == "info"
