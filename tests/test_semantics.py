"""What each construct of the language does when played: small specs run in the engine."""
from __future__ import annotations

import re

import pytest

import rulekit
from rulekit.errors import EndlessRun
from tests.helpers import load_text

HEAD = """
game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 3
zone box: set, public, initial
zone deck: stack, hidden
zone pile: stack, public
zone hand per player: set, owner
enum Colour { red, blue }
card A x 2 { colour = red, value = 1 }
card B x 3 { colour = blue, value = 2 }
card C x 1 { value = 5 }
"""


def run(tmp_path, body: str, extra: str = "", players: int = 2, **kw):
    game = load_text(tmp_path, HEAD + extra + "\nflow {\n" + body + "\n end game\n}\n", players=players, **kw)
    return game, game.new_initial_state(seed=1)


def finish(state, pick=lambda s: s.legal_actions()[0]):
    while not state.is_terminal():
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node() else pick(state))
    return state


def test_components_start_in_the_initial_zone(tmp_path):
    _, s = run(tmp_path, "")
    assert sorted(s.zone("box")) == ["A", "A", "B", "B", "B", "C"]


def test_move_selectors(tmp_path):
    _, s = run(tmp_path, """
      move all c where c.colour == blue from box to pile
      move one c where c.value == 1 from box to hand(seat(0))
      move C from box to hand(seat(1))
      move top from pile to hand(seat(1))
      move all from box to pile
      move bottom from pile to hand(seat(0)) """)
    finish(s)
    assert s.zone("hand", 0) == ["A", "B"] and s.zone("hand", 1) == ["B", "C"]
    assert s.zone("pile") == ["B", "A"]


def test_move_of_a_missing_card_is_a_rule_error(tmp_path):
    with pytest.raises(rulekit.RuleRuntimeError, match="there is no C in zone 'pile'"):
        run(tmp_path, "move C from pile to box")


def test_shuffle_defers_the_order_to_chance_events_weighted_by_copies(tmp_path):
    _, s = run(tmp_path, "move all from box to deck\nshuffle deck\nmove top from deck to hand(seat(0))")
    assert s.is_chance_node()
    outcomes = dict((s.action_to_string(a), p) for a, p in s.chance_outcomes())
    assert outcomes == pytest.approx({"chance: A": 2 / 6, "chance: B": 3 / 6, "chance: C": 1 / 6})
    s.apply_action(next(a for a, _ in s.chance_outcomes() if s.action_to_string(a) == "chance: C"))
    assert s.zone("hand", 0) == ["C"] and s.is_terminal()


def test_a_card_put_under_a_shuffled_deck_stays_known(tmp_path):
    _, s = run(tmp_path, """
      move all c where c != C from box to deck
      shuffle deck
      move C from box to deck at bottom
      move bottom from deck to hand(seat(1))""")
    assert s.is_terminal() and s.zone("hand", 1) == ["C"]


def test_variables_ranges_and_booleans(tmp_path):
    extra = "var n: int 0..3 = 1\nvar flag: bool = false\nvar who: player = seat(0)\n"
    _, s = run(tmp_path, "add 2 to n\nsubtract 1 from n\nset flag = n == 2\nset who = next(who)", extra)
    assert (s.value("n"), s.value("flag"), s.value("who")) == (2, 1, 1)
    with pytest.raises(rulekit.RuleRuntimeError, match="'n' would become 4, outside its range 0..3"):
        run(tmp_path / "x", "add 3 to n", extra) if (tmp_path / "x").mkdir() is None else None


@pytest.mark.parametrize("players, raises", [(3, False), (2, True)])
def test_a_seat_numbered_by_a_card_attribute_is_checked_where_some_value_is_no_seat(tmp_path, players, raises):
    """The owners are seats 0 to 2: with three players every one is a seat, and the check is left out of
    the engine's code; with two, the card owned by seat 2 is still a rule error."""
    head = HEAD.replace("{ colour = red, value = 1 }", "{ colour = red, value = 1, owner = 0 }").replace(
        "{ colour = blue, value = 2 }", "{ colour = blue, value = 2, owner = 2 }").replace(
        "{ value = 5 }", "{ value = 5, owner = 1 }")
    # `for c in pile` goes over the kinds in the pile, one card of each
    flow = "flow {\n  move all from box to pile\n  for c in pile { move c from pile to hand(seat(c.owner)) }\n  end game\n}\n"
    game = load_text(tmp_path, head + flow, players=players)
    assert ("'seat'" in game.program.source) == raises
    if raises:
        with pytest.raises(rulekit.RuleRuntimeError, match="'seat' would become 2, outside its range 0..1"):
            game.new_initial_state(seed=1)
    else:
        state = game.new_initial_state(seed=1)
        assert (state.zone("hand", 0), state.zone("hand", 1), state.zone("hand", 2)) == (["A"], ["C"], ["B"])


def test_tokens_are_clamped_by_supply_and_cap(tmp_path):
    extra = "token Fear x 7 cap 5\n"
    _, s = run(tmp_path, "take 4 Fear by seat(0)\ntake 4 Fear by seat(0)\ntake 4 Fear by seat(1)\nreturn 9 Fear by seat(0)", extra)
    assert (s.value("Fear", 0), s.value("Fear", 1), s.value("Fear")) == (0, 2, 5)


def test_control_flow(tmp_path):
    extra = "var n: int = 0\nvar total: int = 0\n"
    _, s = run(tmp_path, """
      for p in players { add 1 to n }
      while n < 10 { add 1 to n if n == 7 { break } }
      loop { add 1 to total if total >= 3 { break } }
      let k = n * 2
      if k == 14 { add 100 to total } else if k == 0 { add 1000 to total } else { add 10 to total }""", extra)
    assert (s.value("n"), s.value("total")) == (7, 103)


def test_procedures_and_defines(tmp_path):
    extra = """var n: int = 0
define double(x: int): int = x * 2
procedure bump(by: int) { add double(by) to n }
"""
    _, s = run(tmp_path, "do bump(3)\ndo bump(n)", extra)
    assert s.value("n") == 18


def test_choose_actions_parameters_guards_and_stable_ids(tmp_path):
    game, s = run(tmp_path, """
      choose by current {
        action take(c in box where c.value >= 2, p in players where p != current) "Give a card." {
          move c from box to hand(p)
        }
        action skip when size(box) > 100 { }
        action pass { }
      }""")
    names = [s.action_to_string(a) for a in s.legal_actions()]
    assert names == ["take(c=B, p=P1)", "take(c=C, p=P1)", "pass"]
    assert s.current_player() == 0
    again = game.new_initial_state(seed=99)
    assert again.legal_actions() == s.legal_actions()
    s.apply_action(s.legal_actions()[1])
    assert s.zone("hand", 1) == ["C"] and s.is_terminal()


def test_pick_binds_the_chosen_value_for_later_statements(tmp_path):
    _, s = run(tmp_path, "choose c in box where c != A by next(current)\nmove c from box to hand(current)")
    assert s.current_player() == 1
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["c=B", "c=C"]
    s.apply_action(s.legal_actions()[0])
    assert s.zone("hand", 0) == ["B"]


def test_random_over_players_enums_sets_and_ranges(tmp_path):
    extra = "var x: int = 0\nvar col: Colour = red\nvar who: player = seat(0)\n"
    _, s = run(tmp_path, """
      random p in players
      random e in Colour
      random v in {3, 5, 7} where v > 3
      random d in 1..6
      set x = v * 10 + d
      set who = p
      set col = e""", extra)
    sizes = []
    while not s.is_terminal():
        sizes.append(len(s.chance_outcomes()))
        s.apply_action(s.chance_outcomes()[-1][0])
    assert sizes == [2, 2, 2, 6]
    assert (s.value("x"), s.value("who"), s.value("col")) == (76, 1, 1)


def test_reveal_shows_a_hidden_zone_to_one_player(tmp_path):
    game, s = run(tmp_path, "move all from box to hand(seat(0))\nreveal hand(seat(0)) to next(current)\nchoose by current { action go { } }")
    assert "hand[0] revealed to P1: A, A, B, B, B, C" in "\n".join(s.observation(1)["events"])
    assert "hand[0] revealed to P1" in "\n".join(s.observation(0)["events"])
    assert s.observation(1)["zones"]["hand[0]"] == 6


def test_turns_end_turn_unwinds_into_then_and_rounds_restart(tmp_path):
    extra = """var turns_taken: int = 0
var rounds_seen: int = 0
var thens: int = 0
procedure deep { end turn }
"""
    _, s = run(tmp_path, """
      rounds {
        add 1 to rounds_seen
        if rounds_seen == 3 { end game }
        turns from seat(0) {
          add 1 to turns_taken
          choose by current { action stop { do deep } action finish_round { end round } }
          add 1000 to turns_taken
        } then {
          add 1 to thens
        }
      }""", extra)
    script = iter(["stop", "stop", "stop", "finish_round", "finish_round"])

    def pick(st):
        name = next(script)
        return next(a for a in st.legal_actions() if st.action_to_string(a) == name)
    finish(s, pick)
    assert (s.value("turns_taken"), s.value("thens"), s.value("rounds_seen")) == (5, 3, 3)


def test_turn_order_counterclockwise(tmp_path):
    game = load_text(tmp_path, HEAD.replace("players 2 to 3", "players 3 to 3\norder counterclockwise") + """
var seen: int = 0
flow { turns from seat(0) {
  set seen = seen * 10 + (if current == seat(0) then 1 else if current == seat(1) then 2 else 3)
  if seen > 100 { end game } } }
""".replace("turns from 0", "turns from seat(0)"), players=3)
    s = game.new_initial_state()
    assert s.value("seen") == 132


def test_rotate_passes_zones_to_the_next_player(tmp_path):
    _, s = run(tmp_path, "move A from box to hand(seat(0))\nmove C from box to hand(seat(1))\nrotate hand to next", players=3)
    assert (s.zone("hand", 0), s.zone("hand", 1), s.zone("hand", 2)) == ([], ["A"], ["C"])


def test_quantifiers_and_every(tmp_path):
    extra = "var r: int = 0\n"
    _, s = run(tmp_path, """
      move A from box to hand(seat(0))
      move B from box to hand(seat(1))
      move B from box to hand(seat(1))
      set r = count(c in every hand) * 1000 + count(c in box where c.colour == blue) * 100
            + sum(p in players: size(hand(p))) * 10 + (if forall(p in players: exists(c in hand(p) where c.value >= 1)) then 1 else 0)
      if the(c in hand(seat(1)) where c.value == 2) != B { set r = -1 }""", extra)
    assert s.value("r") == 3000 + 100 + 30 + 1


def test_win_and_payoff(tmp_path):
    game, s = run(tmp_path, "win next(current)", "payoff win 3 lose -2\n", players=3)
    assert s.is_terminal() and s.returns() == [-2.0, 3.0, -2.0]
    assert (game.min_utility(), game.max_utility()) == (-2.0, 3.0)


def test_facts_and_component_counts_may_depend_on_the_player_count(tmp_path):
    text = HEAD.replace("card C x 1 { value = 5 }", "card C x extra { value = 5 }") + """
fact extra = player_count - 1
claim enough: count(c in box where c == C) == extra
flow { end game }
"""
    game = load_text(tmp_path, text, players=3)
    assert game.component_counts["C"] == 2 and game.facts["extra"] == 2
    assert [holds for _, holds in game.claims()] == [True]


def test_ambiguity_options_are_switches(tmp_path):
    extra = """var n: int = 0
ambiguity how "How many?" {
  quote "t"
  question "One or two?"
  option one "One."
  option two "Two."
  default one because "Fewer."
}
"""
    _, s = run(tmp_path, "if how is two { set n = 2 } else { set n = 1 }", extra)
    assert s.value("n") == 1
    _, s = run(tmp_path / "two" if (tmp_path / "two").mkdir() is None else tmp_path, "if how is two { set n = 2 } else { set n = 1 }", extra,
               options={"how": "two"})
    assert s.value("n") == 2


def test_end_turn_outside_a_turn_is_a_rule_error(tmp_path):
    with pytest.raises(rulekit.RuleRuntimeError, match="'end turn' is reached outside of any turn"):
        run(tmp_path, "end turn")


def test_moving_a_shuffled_stack_keeps_it_shuffled(tmp_path):
    _, s = run(tmp_path, "move all from box to deck\nshuffle deck\nmove all from deck to pile\nmove top from pile to hand(seat(0))")
    assert s.is_chance_node() and len(s.chance_outcomes()) == 3


def test_moving_some_cards_of_a_shuffled_stack(tmp_path):
    _, s = run(tmp_path, """
      move all from box to deck
      shuffle deck
      move all c where c == B from deck to pile
      move top from deck to hand(seat(0))""")
    assert s.zone("pile") == ["B", "B", "B"]
    assert sorted(s.action_to_string(a) for a, _ in s.chance_outcomes()) == ["chance: A", "chance: C"]


def test_choice_over_a_range_bounded_by_a_fact_reads_its_values(tmp_path):
    _, s = run(tmp_path, "choose i in 1..k by current\nchoose j in {low, 9} by current", "fact k = 3\nfact low = 4\n")
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["i=1", "i=2", "i=3"]
    s.apply_action(s.legal_actions()[2])
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["j=4", "j=9"]


def test_break_out_of_a_loop_that_waits_for_a_decision(tmp_path):
    extra = "var n: int = 0\n"
    _, s = run(tmp_path, "loop { add 1 to n choose by current { action again { } action stop { break } } }", extra)
    for name in ("again", "again", "stop"):
        s.apply_action(next(a for a in s.legal_actions() if s.action_to_string(a) == name))
    assert s.is_terminal() and s.value("n") == 3


BOARD = """
board grid: 2 by 3
zone down per grid: set, hidden
zone up per grid: set, public
"""


def test_board_zones_adjacency_and_choices_of_positions(tmp_path):
    extra = BOARD + "var n: int = 0\nvar m: int = 0\n"
    game, s = run(tmp_path, """
      move all from box to deck
      shuffle deck
      for x in grid { move top from deck to down(x) }
      choose x in grid where x.row == 2 by current
      set n = count(y in grid where adjacent(x, y))
      set m = count(y in grid where orthogonal(x, y))
      move all from down(x) to up(x)""", extra)
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["x=grid(2,1)", "x=grid(2,2)", "x=grid(2,3)"]
    s.apply_action(s.legal_actions()[1])
    assert (s.value("n"), s.value("m")) == (5, 3)
    assert len(s.zone("up", 4)) == 1 and s.zone("down", 4) == []
    assert sum(len(s.zone("down", i)) for i in range(6)) == 5
    assert s.observation(0)["zones"]["down[1,1]"] == 1 and isinstance(s.observation(0)["zones"]["up[2,2]"], list)


def test_triggers_fire_before_the_next_decision_once_per_activation(tmp_path):
    extra = """var n: int = 0
var fired: int = 0
var once_fired: int = 0
trigger at_two "n reached two" when n == 2 { add 1 to fired }
trigger first_time once when n >= 1 { add 1 to once_fired }
"""
    _, s = run(tmp_path, """
      loop {
        choose by current {
          action up { add 1 to n }
          action down { subtract 1 from n }
          action stop { break }
        }
      }""", extra)
    for name in ("up", "up", "up", "down", "down", "up"):
        s.apply_action(next(a for a in s.legal_actions() if s.action_to_string(a) == name))
    # n went 1, 2, 3, 2, 1, 2: at_two fired at each arrival at 2 after leaving it; first_time once.
    assert (s.value("n"), s.value("fired"), s.value("once_fired")) == (2, 3, 1)


def test_a_trigger_may_ask_for_a_decision(tmp_path):
    extra = """var n: int = 0
var bonus: int = 0
trigger reward when n == 1 {
  choose by current { action small { add 1 to bonus } action big { add 10 to bonus } }
}
"""
    _, s = run(tmp_path, "loop { choose by current { action up { add 1 to n } action stop { break } } }", extra)
    s.apply_action(next(a for a in s.legal_actions() if s.action_to_string(a) == "up"))
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["small", "big"]
    s.apply_action(s.legal_actions()[1])
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["up", "stop"]
    assert s.value("bonus") == 10


def test_weighted_random(tmp_path):
    extra = "var hit: bool = false\nfact odds = 6\n"
    _, s = run(tmp_path, "random h in {true, false} weighted (if h then 1 else odds - 1)\nset hit = h", extra)
    assert sorted(p for _, p in s.chance_outcomes()) == pytest.approx([1 / 6, 5 / 6])
    s.apply_action(next(a for a, p in s.chance_outcomes() if p < 0.5))
    assert s.value("hit") == 1


def test_a_value_of_weight_zero_is_never_drawn(tmp_path):
    _, s = run(tmp_path, "random d in 1..6 weighted (if d % 2 == 0 then 1 else 0)", "")
    assert [a for a, _ in s.chance_outcomes()] == [2, 4, 6]


def test_an_endless_loop_without_decisions_is_a_rule_error_not_a_hang(tmp_path):
    with pytest.raises(EndlessRun, match="the rules go round for ever"):
        run(tmp_path, "loop { set n = 1 }", "var n: int = 0\n")


def test_turns_that_never_wait_are_a_rule_error_not_a_hang(tmp_path):
    with pytest.raises(EndlessRun, match="the rules go round for ever"):
        run(tmp_path, "turns from current { if size(box) > 100 { choose by current { action a { } } } }")


def test_the_first_card_of_a_zone_and_of_an_empty_one(tmp_path):
    """`the(c in zone)` without a test is the zone's first card (the whole-game code reads it by index);
    on an empty zone it is the same rule error in the engine and in the whole-game code."""
    extra = "var r: int = 0\n"
    game, s = run(tmp_path, """
      move B from box to hand(seat(1))
      move A from box to hand(seat(1))
      if the(c in hand(seat(1))) == A { set r = 1 }
      choose by seat(0) { action go { } }
      if the(c in hand(seat(0))) == A { set r = 2 }""", extra)
    assert s.value("r") == 1
    with pytest.raises(rulekit.RuleRuntimeError, match=r"the\(c in \.\.\.\) found nothing"):
        s.apply_action(s.legal_actions()[0])
    # the read by index is what is tested (through a local of s.z where the function reads it often)
    assert "[0] if s.z[" in game.whole_games.source or "[0] if _Sz[" in game.whole_games.source
    played = game.playouts(1, seed=1)
    assert played.ends == ["rule error"]


def test_a_search_for_one_named_card_agrees_with_the_card_by_card_test(tmp_path):
    # `exists(c in Z where c == h)` and `count(c in Z where c == h)`, h a card held in a parameter, are
    # compiled as one membership test and one count of the zone; the answers are the card-by-card ones.
    extra = """
var found: int 0..9 = 0
var copies: int 0..9 = 0
var place: int 0..9 = 0
define holds(p: player, h: card): bool = exists(c in hand(p) where c == h)
define copies_of(h: card): int = count(c in box where h == c)
procedure note(h: card) {
  if holds(seat(1), h) { add 1 to found }
  add copies_of(h) to copies
}
"""
    game, s = run(tmp_path, """
      move one c where c.value == 2 from box to hand(seat(1))
      do note(A)
      do note(B)
      do note(C)
      move all from box to hand(seat(0))
      do note(A) """, extra)
    finish(s)
    assert (s.value("found"), s.value("copies")) == (1, 2 + 2 + 1 + 0)
    source = game.program.source
    assert "any(" not in source and "sum(" not in source, "no card-by-card search is left in the engine's code"
    assert re.search(r"\bin s\.z\[", source) and re.search(r"s\.z\[\d+\]\.count\(", source)


def test_the_cards_in_every_zone_of_a_family_are_counted_by_the_zones_sizes(tmp_path):
    game, s = run(tmp_path, """
      move one c where c.value == 2 from box to hand(seat(1))
      move all c where c.value == 1 from box to hand(seat(0))
      set total = count(c in every hand)
      set blue = count(c in every hand where c.colour == blue)""", "var total: int 0..9 = 0\nvar blue: int 0..9 = 0\n")
    finish(s)
    assert (s.value("total"), s.value("blue")) == (3, 1)
    assert "sum(map(len, s.z[" in game.program.source, "the sizes of the zones are added up, no list of their cards made"
