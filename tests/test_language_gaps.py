"""The constructs a new user reaches for first: reversing the order of play, the top and bottom card of
a stack, tokens passed between players, one card revealed, functions, `none` for no player, and
observations that read values by name. Each is resolved, played, said in English and verified."""
from __future__ import annotations

import random
import time

import pytest

import rulekit
from rulekit import SpecError
from rulekit import model as m
from rulekit.errors import RuleRuntimeError
from rulekit.sphinx.english import English
from rulekit.sphinx.wording import plain
from rulekit.verify import Unsupported, fragment, replay, segments, symbolic
from tests.helpers import compile_text, configure, load_text

HEAD = """
game t "T"
rulebook "rulebook.txt" source "t.txt"
players 2 to 4
zone box: set, public, initial
zone deck: stack, hidden
zone pile: stack, public
zone hand per player: set, owner
enum Colour { red, blue }
card A x 2 { colour = red, value = 1 }
card B x 3 { colour = blue, value = 2 }
card C x 1 { value = 5 }
token Coin x 10 cap 4
var target: player = none
var last: card = A
var tint: Colour = red
var flag: bool = false
var seen: int 0..100 = 0
procedure richest_holding(extra: int): int {
  let most = 0
  for p in players { if Coin(p) > most { set most = Coin(p) } }
  return most + extra
}
procedure tally { add 1 to seen }
"""
PLAIN = HEAD.replace("var target: player = none\n", "")


def spec(body: str, extra: str = "") -> str:
    return HEAD + extra + "\nflow {\n" + body + "\n end game\n}\n"


def fresh(tmp_path, name: str):
    folder = tmp_path / name
    folder.mkdir()
    return folder


def run(tmp_path, body: str, extra: str = "", players: int = 3, seed: int = 1):
    game = load_text(tmp_path, spec(body, extra), players=players)
    return game, game.new_initial_state(seed=seed)


# ---- parse and resolve ------------------------------------------------------------------------------

def test_the_new_constructs_resolve_to_their_model_nodes():
    game = compile_text(spec("""
      move 2 Coin from seat(0) to seat(1)
      reverse order
      set last = top(pile)
      set last = bottom(pile)
      reveal top(deck) to current
      reveal last in pile to all
      set seen = richest_holding(1)
      if target == none { set target = current }"""))
    stmts = list(m.walk(game.flow.body))
    assert any(isinstance(s, m.TokenPass) and s.token == "Coin" for s in stmts)
    assert any(isinstance(s, m.Reverse) for s in stmts)
    reveals = [s for s in stmts if isinstance(s, m.Reveal)]
    assert [r.card is not None for r in reveals] == [True, True]
    assert reveals[0].zone == m.ZoneRef("deck", None), "reveal top(Z) shows one card of Z"
    ends = [x for x in m.nodes(game.flow) if isinstance(x, m.Builtin) and x.name in ("top", "bottom")]
    assert [x.name for x in ends] == ["top", "bottom", "top"] and all(x.type == m.CARD for x in ends)
    function = next(p for p in game.procedures if p.name == "richest_holding")
    assert function.result == m.INT and isinstance(function.body[-1], m.Return)
    assert any(isinstance(x, m.ProcedureCall) and x.type == m.INT for x in m.nodes(game.flow))
    assert m.uses_no_player(game) and m.reverses_order(game)
    plain_game = compile_text(PLAIN + "flow { end game }")
    assert not m.uses_no_player(plain_game) and not m.reverses_order(plain_game)


@pytest.mark.parametrize("body, extra, code, words", [
    ("set last = top(box)", "", "E202", "is a set"),
    ("take 1 Coin by none", "", "E207", "real player"),
    ("move 1 Coin from none to seat(0)", "", "E207", "real player"),
    ("move all from hand(none) to box", "", "E207", "real player"),
    ("reveal A to all", "", "E202", "say which"),
    ("return 1", "", "E204", "gives the value of a function"),
    ("do richest_holding(1)", "", "E204", "is a function"),
    ("set seen = tally", "", "E202", "is a procedure"),
    ("set seen = tally()", "", "E202", "is a procedure"),
    ("", "procedure f: int { move top from deck to pile\n return 1 }", "E204", "only computes its value"),
    ("", "procedure f: int { set seen = 1\n return 1 }", "E204", "cannot set 'seen'"),
    ("", "procedure f(n: int): int { return f(n) }", "E204", "calls itself"),
    ("", "procedure f: bool { return 1 }", "E202", "the value returned should be bool"),
    ("", "fact at_top = top(pile)", "E204", "reads the game state"),
])
def test_mistakes_with_the_new_constructs_are_spec_errors(body, extra, code, words):
    with pytest.raises(SpecError) as err:
        compile_text(spec(body, extra))
    first = err.value.diagnostics[0]
    assert first.code == code and words in first.message, (first.code, first.message)
    assert first.span is not None and first.span.line > 1


def test_top_bottom_none_and_reverse_stay_free_as_names():
    """The new words are no keywords where a name may stand: specs that used them still compile."""
    game = compile_text(PLAIN + """
enum Mark { none, some }
token top x 3
var reverse: int 0..9 = 0
var mark: Mark = none
flow { let top = 3  let bottom = top + 1  set reverse = bottom  set mark = none  take 1 top by current  end game }
""")
    assert [s.value.type for s in m.walk(game.flow.body) if isinstance(s, m.Assign)] == [m.INT, m.enum_type("Mark")]


def test_every_spec_that_compiled_before_still_has_no_new_keywords_in_its_way():
    """`reverse`, `none` and the result type of a procedure are new words; the bundled specs compile."""
    for name in ("chocobo", "chucky", "chuche", "cranky", "chicken"):
        assert rulekit.Spec.find(name).model.name


# ---- the engine -------------------------------------------------------------------------------------

TURNS = """
flow {
  turns from seat(0) {
    add 1 to seen
    if seen == 2 { reverse order }
    if seen == 3 { set target = next(current) }
    if seen == 6 { end game }
    choose by current { action pass "Pass." { } }
  }
}
"""


def test_reverse_order_turns_the_turns_and_next_around_and_survives_a_save(tmp_path):
    game = load_text(tmp_path, HEAD + TURNS, players=3)
    s = game.new_initial_state(seed=0)
    seats = []
    while not s.is_terminal():
        seats.append(s.current_player())
        if len(seats) == 3:
            assert s.observation(0)["vars"]["order"] == "counterclockwise"
            assert s.value("target") == 2, "next(P0) after the reversal is P2"
            assert game.state_from_json(s.to_json()) == s, "the direction is part of the state"
        s.apply_action(s.legal_actions()[0])
    assert seats == [0, 1, 0, 2, 1]


def test_a_game_that_never_reverses_keeps_its_layout(tmp_path):
    game = load_text(tmp_path, PLAIN + "flow { end game }")
    assert "order" not in game.variable_names() and game.layout.order_slot is None


def test_top_and_bottom_read_the_ends_of_a_stack_and_the_reads_the_bottom(tmp_path):
    _, s = run(tmp_path, """
      move A from box to pile
      move C from box to pile
      move B from box to pile
      set last = top(pile)
      set tint = bottom(pile).colour
      if the(c in pile) == bottom(pile) { set flag = true }""")
    assert s.is_terminal()
    assert s.value("last") == s.game.kind_names.index("B") and s.value("tint") == 0 and s.value("flag") == 1


def test_top_of_a_shuffled_stack_is_settled_by_chance_and_is_the_card_then_drawn(tmp_path):
    game, s = run(tmp_path, """
      move all from box to deck
      shuffle deck
      set last = top(deck)
      move top from deck to pile""")
    assert s.is_chance_node() and sum(p for _, p in s.chance_outcomes()) == pytest.approx(1)
    for outcome, _ in s.chance_outcomes():
        child = s.child(outcome)
        assert child.is_terminal() and child.zone("pile") == [game.kind_names[child.value("last")]]


def test_top_of_an_empty_stack_is_a_rule_error(tmp_path):
    with pytest.raises(RuleRuntimeError, match=r"top\(pile\) has no card"):
        run(tmp_path, "set last = top(pile)")


def test_tokens_pass_between_players_clamped_like_take_and_return(tmp_path):
    _, s = run(tmp_path, """
      take 3 Coin by seat(0)
      take 3 Coin by seat(1)
      move 5 Coin from seat(0) to seat(2)
      move 2 Coin from seat(1) to seat(2)""")
    # seat 0 held 3 (fewer than asked); seat 2's cap of 4 leaves room for one of seat 1's two
    assert [s.value("Coin", p) for p in range(3)] == [0, 2, 4] and s.value("Coin") == 4


def test_one_card_revealed_is_known_to_whom_it_was_shown(tmp_path):
    game, s = run(tmp_path, """
      move all c where c != C from box to deck
      move all from deck to hand(seat(0))
      reveal A in hand(seat(0)) to seat(1)
      move all from box to deck
      reveal bottom(deck) to all""")
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.observation(1)["known"]["hand[0]"] == ["A"]
    assert "hand[0]" not in s.observation(2)["known"]
    assert s.observation(2)["known"]["deck"] == [s.zone("deck")[0]]
    assert "A in hand[0] revealed to P1" in s.observation(1)["events"]
    assert "a card in hand[0] revealed to P1" in s.observation(2)["events"]
    with pytest.raises(RuleRuntimeError, match="cannot reveal C: it is not in zone 'hand\\[0\\]'"):
        run(fresh(tmp_path, "x"), "reveal C in hand(seat(0)) to all")


def test_functions_compute_values_in_statements_conditions_and_invariants(tmp_path):
    checks = "\ninvariant rich: richest_holding(0) <= 4\n"
    game, s = run(tmp_path, """
      take 2 Coin by seat(0)
      take 4 Coin by seat(2)
      set seen = richest_holding(10)
      choose by current { action go when richest_holding(0) == 4 "Go." { } }""", extra=checks)
    assert s.value("seen") == 14 and len(s.legal_actions()) == 1
    assert game.violated_invariants(s) == []


def test_a_function_that_ends_without_a_value_is_a_rule_error(tmp_path):
    with pytest.raises(RuleRuntimeError, match="function maybe ended without returning a value"):
        run(tmp_path, "set seen = maybe(0)", extra="procedure maybe(n: int): int { if n > 0 { return n } }\n")


def test_none_is_no_player_compared_and_refused_where_a_seat_is_needed(tmp_path):
    game, s = run(tmp_path, "if target == none { set flag = true }\n set last = B")
    assert s.value("flag") == 1 and s.value("target") == -1
    vars_ = s.observation(0)["vars"]
    assert vars_["target"] == "none" and vars_["last"] == "B" and vars_["tint"] == "red" and vars_["flag"] is True
    assert "target=none" in s.observation_string(0)
    with pytest.raises(RuleRuntimeError, match="no player"):
        run(fresh(tmp_path, "x"), "take 1 Coin by target")
    with pytest.raises(RuleRuntimeError, match="no player"):
        run(fresh(tmp_path, "y"), "set target = next(target)")


def test_the_observation_tensor_keeps_raw_values(tmp_path):
    from rulekit.engine.observation import encoder_for

    _, s = run(tmp_path, "set last = C\n set tint = blue")
    encoder = encoder_for(s.game)
    values = dict(zip(encoder.var_names, encoder.views(encoder.encode(s, 0))["vars"]))
    assert values["last"] == s.game.kind_names.index("C") and values["tint"] == 1 and values["target"] == -1


# ---- English ----------------------------------------------------------------------------------------

def test_the_new_constructs_in_english():
    game = compile_text(spec("""
      move 2 Coin from seat(0) to current
      reverse order
      set last = top(pile)
      reveal bottom(pile) to all
      reveal last in pile to seat(1)
      set seen = richest_holding(1)
      if target == none { set target = current }"""))
    english = English(game)
    said = [plain(line.parts) for line in english.block(game.flow.body)]
    assert "The first player gives 2 Coins to you (all they have, if fewer)." in said
    assert any("order of play reverses" in x for x in said)
    assert "Set the last to the top card of the pile." in said
    assert "Show the bottom card of the pile to everyone." in said
    assert any(x.startswith("Show the last (from the pile) to the player in seat 1") for x in said)
    assert "Set the seen to the richest holding of 1." in said
    assert "If there is no target, set the target to you." in said, said
    function = next(p for p in game.procedures if p.name == "richest_holding")
    body = [plain(line.parts) for line in english.procedure(function)]
    assert body[0] == "Let most be 0." and body[-1] == "The result is most plus the extra.", body
    assert "set most to" in plain(english.procedure(function)[1].parts)


# ---- the verify backends ----------------------------------------------------------------------------

STEAL = """
game steal "Steal"
rulebook "rulebook.txt" source "s.txt"
players 2 to 3
token Coin x 9 cap 4
var victim: player = none
flow {
  for p in players { take 2 Coin by p }
  loop {
    choose by current {
      action mark(q in players where q != current) "Mark a victim." { set victim = q }
      action rob when victim != none "Rob the victim." { move 3 Coin from victim to current  set victim = none }
    }
  }
}
invariant conserved: sum(p in players: Coin(p)) + supply(Coin) == 9
invariant capped: forall(p in players: Coin(p) <= 4)
invariant nobody_broke: forall(p in players: Coin(p) >= 1)
"""


def _symbolic_steps_agree_with_the_engine(system, game, seeds=3, steps=30):
    ids = replay.action_ids(system, game)
    command_of = {a: c for c, a in enumerate(ids)}
    checked = 0
    for seed in range(seeds):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        for _ in range(steps):
            values = replay.abstract(system, game, state)
            enabled = {ids[c] for c in range(len(system.commands)) if replay.step(system, values, c)[0]}
            assert enabled == set(state.legal_actions())
            action = rng.choice(state.legal_actions())
            ok, refused, after = replay.step(system, values, command_of[action])
            assert ok and not refused
            state.apply_action(action)
            assert after == replay.abstract(system, game, state)
            checked += 1
    return checked


def test_the_exact_fragment_models_a_steal_and_no_player(tmp_path):
    game = load_text(tmp_path, STEAL, players=3)
    system = fragment.build(configure(game.model, 3))
    assert _symbolic_steps_agree_with_the_engine(system, game) > 60
    victim = next(s for s in system.slots if s.key == ("var", "victim", None))
    assert victim.low == -1, "a player variable that may be `none` ranges from -1"
    verdicts = symbolic.verify(system, depth=6, budget=30)
    assert {"conserved", "capped"} <= set(verdicts.proven) and "nobody_broke" not in verdicts.proven
    assert verdicts.answers[("invariant", "nobody_broke")].status == "refuted", "a robbed player can have no coin"


def test_the_exact_fragment_says_unsupported_for_a_reversal():
    with pytest.raises(Unsupported, match="reverse order"):
        fragment.build(configure(compile_text(HEAD + TURNS), 3))


def test_the_counts_abstraction_stays_honest_about_what_it_does_not_record():
    checks = """
invariant coins_conserved: sum(p in players: Coin(p)) + supply(Coin) == 10
invariant last_is_a: last == A
invariant seen_small: seen <= 3
"""
    game = compile_text(HEAD + checks + """
flow {
  move all from box to deck
  shuffle deck
  turns from seat(0) {
    if size(deck) > 0 { set last = top(deck)  move top from deck to pile }
    set seen = richest_holding(0)
    if size(pile) == 3 { reverse order }
    choose by current {
      action grab "Grab." { take 1 Coin by current }
      action rob(q in players where q != current) "Rob." { move 1 Coin from q to current }
      action show "Show." { if size(pile) > 0 { reveal top(pile) to next(current) } }
    }
  }
}
""")
    system = segments.build(configure(game, 3))
    deadline = time.perf_counter() + 60
    assert segments.decide(system, "coins_conserved", 4, 3, 5000, deadline)[0] == "proven"
    assert segments.decide(system, "last_is_a", 4, 3, 5000, deadline)[0] != "proven", "top(deck) can be a B"
    assert segments.decide(system, "seen_small", 4, 3, 5000, deadline)[0] != "proven", "a function's value is unknown"


def test_a_function_called_in_an_expression_is_not_a_dead_rule():
    from rulekit.verify import graphs

    game = compile_text(spec("set seen = richest_holding(1)"))
    unreachable = graphs.turn_structure(game)["unreachable"]
    assert "procedure richest_holding" not in unreachable and "procedure tally" in unreachable


REVERSE_RULEBOOK = """Reverse Game.
Each player takes two coins.
On your turn, grab a coin, rob a player or reverse the order of play.
Look at the top card when you reverse.
The first player with four coins wins.
"""

REVERSE_SPEC = """
game rev "Reverse Game"
rulebook "rulebook.txt" source "made up"
players 2 to 3
unmodelled "Reverse Game." because "Title."
token Coin x 12 cap 4
zone box: set, public, initial
zone deck: stack, hidden
zone pile: stack, public
card Up x 2
card Down x 2
var victim: player = none
var last: card = Up
procedure richest: int {
  let most = 0
  for p in players { if Coin(p) > most { set most = Coin(p) } }
  return most
}
flow {
  for p in players { take 2 Coin by p quote "Each player takes two coins." }
  move all from box to deck
  shuffle deck
  turns from seat(0) {
    choose by current {
      action grab "Grab a coin." { take 1 Coin by current }
      action rob(q in players where q != current) "Rob." { set victim = q  move 1 Coin from victim to current  set victim = none }
      action turn "Reverse." quote "On your turn, grab a coin, rob a player or reverse the order of play." {
        reverse order
        if size(deck) > 0 {
          reveal top(deck) to current quote "Look at the top card when you reverse."
          set last = top(deck)
          move top from deck to pile
        }
      }
    }
    if richest == 4 { win current  end game quote "The first player with four coins wins." }
  }
}
invariant conserved: sum(p in players: Coin(p)) + supply(Coin) == 12
invariant no_victim_between_turns: victim == none
"""


def test_rulekit_check_on_a_spec_with_the_new_constructs(tmp_path):
    from rulekit.checking import PlayBounds, check_spec
    from rulekit.pipeline import Spec
    from tests.helpers import write_spec

    path = write_spec(tmp_path, REVERSE_SPEC, name="rev", rulebook=REVERSE_RULEBOOK)
    report = check_spec(Spec(path), PlayBounds(games=10, variant_games=2, max_states=5000, time_limit=2.0,
                                              shrink=False))
    assert not [f for f in report.findings if f.severity == "error"], [f.message for f in report.findings]
    assert not [f for f in report.findings if f.kind == "dead-rule" and f.severity == "warning"]
    conserved = [f.verdict for f in report.findings if f.kind == "invariant" and "/conserved" in f.id]
    assert "proven" in conserved and "refuted" not in conserved, conserved
    assert not [f for f in report.findings if "left out" in f.message], "the whole-language relation covers it"
    whole = [f for f in report.findings if f.id == "rev/invariant/no_victim_between_turns/z3-bmc"]
    assert whole and whole[0].verdict == "proven" and "over the whole-language relation" in whole[0].message


SHOW = """
game show "Show"
rulebook "rulebook.txt" source "s.txt"
players 2 to 2
card Gem x 2
card Rock x 1
zone pool: set, public, initial
zone hand per player: set, owner
var boasts: int 0..9 = 0
flow {
  loop {
    choose by current {
      action grab(c in pool) "Grab a card." { move c from pool to hand(current) }
      action boast "Show a Gem." { reveal Gem in hand(current) to all  add 1 to boasts }
    }
  }
}
"""


def test_the_exact_fragment_refuses_a_reveal_of_a_card_that_is_not_there(tmp_path):
    game = load_text(tmp_path, SHOW, players=2)
    system = fragment.build(configure(game.model, 2))
    ids = replay.action_ids(system, game)
    command_of = {a: c for c, a in enumerate(ids)}
    refusals = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        for _ in range(12):
            if state.is_terminal():
                break
            action = rng.choice(state.legal_actions())
            values = replay.abstract(system, game, state)
            ok, refused, after = replay.step(system, values, command_of[action])
            assert ok
            try:
                state.apply_action(action)
            except RuleRuntimeError:
                assert refused, "the engine refused a reveal the symbolic relation allows"
                refusals += 1
                continue
            assert not refused and after == replay.abstract(system, game, state)
    assert refusals > 0, "no reveal of a missing card was tried: the test would prove nothing"
