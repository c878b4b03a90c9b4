"""The whole-language relation (`verify.control`): turns, rounds, triggers and chance, exact against
the engine, and BMC witnesses over it replayed in the engine."""
from __future__ import annotations

import dataclasses
import random

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.errors import RuleRuntimeError
from rulekit.pipeline import Spec
from rulekit.verify import Unsupported, budget, control, fragment, replay, symbolic, terms

from helpers import follow_random_games, write_spec

# Turns inside rounds, a decision inside a loop inside a procedure, `end turn` and `end round`, a trigger
# that fires at a quiet moment, a blind draw and a die.
RELAY = """
game relay "Relay"
rulebook "rulebook.txt" source "relay.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card Ace x 1
card Two x 3
zone box: set, public, initial
zone deck: stack, hidden
zone hand per player: set, owner
var score per player: int 0..99 = 0
var rung: int 0..99 = 0
var rolled: int 0..6 = 0
trigger bell "Two points ring the bell." when exists(p in players where score(p) >= 2) {
  add 1 to rung
}
procedure play(p: player) {
  loop {
    choose by p {
      action draw "Draw." { if size(deck) > 0 { move top from deck to hand(p) } else { end turn } }
      action score "Score." { add 1 to score(p)  end turn }
      action pass "Pass." { end round }
    }
  }
}
flow {
  move all from box to deck
  shuffle deck
  rounds {
    random d in 1..6
    set rolled = d
    turns from seat(0) {
      do play(current)
      if exists(c in hand(current) where c == Ace) and rung > 0 { win current  end game }
    }
  }
}
"""

RELAY_CHECKS = """
checks relay
invariant die_rolled "A die was rolled." : rolled >= 1
invariant quiet "The bell never rings." : rung == 0
reachable ace_drawn "Someone holds the Ace." : exists(p in players where exists(c in hand(p) where c == Ace))
"""


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    return Spec.find(str(write_spec(tmp_path_factory.mktemp("relay"), RELAY, name="relay", checks=RELAY_CHECKS)))


def test_the_fragment_refuses_the_relay_and_the_whole_relation_builds_it(relay):
    with pytest.raises(Unsupported):
        fragment.build(relay.config(2))
    system = control.build(relay.config(2))
    assert system.free and not system.inexact  # the die and the draws are inputs; the deck is only shuffled
    assert any(c.events for c in system.commands)


def test_engine_games_follow_the_whole_relation_exactly(relay):
    for players in (2, 3):
        followed, whole = follow_random_games(relay, players, range(6), 40)
        assert whole == 6 and followed > 40


def test_a_bundled_game_follows_the_whole_relation():
    followed, whole = follow_random_games(Spec.find("chocobo"), 3, range(5), 60)
    assert followed > 40 and whole >= 1  # the others stop where the relation forgets the order of the deck


def test_a_bundled_game_with_a_chain_of_reveals_follows_the_whole_relation():
    spec = Spec.find("chucky")
    assert len(control.build(spec.config(1), command_limit=10**6).commands) < 60
    followed, whole = follow_random_games(spec, 1, range(4), 30, command_limit=10**6)
    assert whole == 4 and followed > 20


def test_bmc_over_the_whole_relation_finds_replayable_witnesses(relay):
    system = control.build(relay.config(2))
    answers = symbolic.bmc(system, 4, timeout_ms=60000)
    quiet = answers[("invariant", "quiet")]
    assert quiet.status == "refuted" and quiet.depth >= 3  # the set-up, then two points for one player
    assert answers[("invariant", "die_rolled")].status == "bounded"
    assert answers[("reachable", "ace_drawn")].status == "reached"
    loaded = relay.engine(2)
    state = loaded.new_initial_state(None)
    for action in replay.history(system, loaded, quiet.path, quiet.states):
        state.apply_action(action)
    assert state.value("rung") > 0


def test_check_reports_whole_relation_verdicts_with_witnesses(relay):
    report = check_spec(relay, PlayBounds(games=4, variant_games=0, max_steps=30, max_states=0, whole_bmc_depth=4,
                                          symbolic_time_limit=30))
    by_id = {f.id: f for f in report.findings}
    quiet = by_id["relay/invariant/quiet/z3-bmc"]
    assert quiet.verdict == "refuted" and quiet.witness and quiet.bound["relation"] == "whole language"
    # the count is the witness's (engine steps, chance outcomes among them); BMC's depth is in its own steps
    assert f"is false after {len(quiet.witness)} steps" in quiet.message, quiet.message
    assert "none is shorter in the steps of its relation" in quiet.message
    # 1-induction does not prove it (see the BMC test above); IC3/PDR does
    die_rolled = by_id["relay/invariant/die_rolled/z3-bmc"]
    assert (die_rolled.verdict, die_rolled.method, die_rolled.bound["relation"]) == ("proven", "z3-pdr", "whole language")
    assert by_id["relay/reachability/ace_drawn/z3-bmc"].verdict == "proven"


def test_a_relation_too_large_to_build_is_unsupported_not_slow(relay):
    with pytest.raises(Unsupported, match="too large"):
        control.build(relay.config(2), work_limit=100)


def test_trigger_conditions_are_shared_between_quiet_moments_without_changing_the_relation(relay, monkeypatch):
    config = relay.config(3)
    shared = control.ControlBuilder(config)
    with_sharing = shared.build()
    monkeypatch.setattr(control.ControlBuilder, "sharable", lambda self, e: False)
    plain = control.ControlBuilder(config)
    without = plain.build()
    assert [c.label for c in with_sharing.commands] == [c.label for c in without.commands]
    for a, b in zip(with_sharing.commands, without.commands):
        assert (a.guard, a.error, a.assume, a.updates) == (b.guard, b.error, b.assume, b.updates), a.label
    assert shared.work < plain.work


# Before the cards are dealt, `the(c in hand(p))` has no value, and the engine never asks it: in `bell`,
# `started` decides first; in `gong`, seat 0 meets the condition, so `exists` stops before seat 1. The
# relation must not refuse the set-up for an error the engine never meets.
GUARD = """
game guard "Guard"
rulebook "rulebook.txt" source "guard.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card Ace x 1
card Two x 1
zone box: set, public, initial
zone hand per player: set, owner
var started: bool = false
var rung: int 0..9 = 0
var gonged: bool = false
define first_card(p: player): card = the(c in hand(p))
define shown(p: player): card = if size(hand(p)) > 0 then first_card(p) else the(c in hand(seat(1)))
trigger bell "The Two rings the bell." when started and exists(p in players where shown(p) == Two) {
  add 1 to rung
}
trigger gong "Seat 0 strikes the gong." when exists(p in players where p == seat(0) or first_card(p) == Ace) {
  set gonged = true
}
flow {
  choose by seat(0) { action begin "Begin." { } }
  move Ace from box to hand(seat(0))
  move Two from box to hand(seat(1))
  set started = true
  loop {
    choose by current {
      action wait "Wait." { }
      action stop "Stop." { end game }
    }
  }
}
"""

GUARD_CHECKS = """
checks guard
reachable rang "The bell rang." : rung > 0
reachable gonged_early "The gong sounded before the game started." : gonged and not started
"""


def test_errors_count_only_where_the_engine_evaluates_them(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, GUARD, name="guard", checks=GUARD_CHECKS)))
    system = control.build(spec.config(2))
    assert system.commands[0].error == fragment.FALSE  # the set-up (on known values) meets no error
    loaded = spec.engine(2)
    state = loaded.new_initial_state(0)
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    problems, followed = replay.follow(system, loaded, state.history)
    assert not problems and followed == 4
    answers = symbolic.bmc(system, 3, timeout_ms=60000)
    assert answers[("reachable", "rang")].status == "reached"
    assert answers[("reachable", "gonged_early")].status == "reached"


def test_check_names_a_relation_past_its_size_limit(relay):
    bounds = PlayBounds(games=4, variant_games=0, max_steps=30, max_states=0, whole_bmc_depth=2, symbolic_time_limit=30)
    small = check_spec(relay, dataclasses.replace(bounds, whole_size=100))
    left_out = {f.id: f for f in small.findings}["relay/invariant/z3-symbolic"]
    assert left_out.verdict == "unknown" and "too large" in left_out.message and "--whole-size" in left_out.message
    assert not any(f.id == "relay/invariant/quiet/z3-bmc" for f in small.findings)
    assert control.commands_allowed(1_000_000) == 4 * control.commands_allowed(control.WORK_LIMIT)


# A chain of reveals: a Void card revealed lets the player reveal a neighbour, by the same procedure, as
# long as Voids keep coming; `counted` adds a statement after the call, so the call is not the last
# thing the procedure does.
CHAIN = """
game chain "Chain"
rulebook "rulebook.txt" source "chain.txt"
players 1 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card Ace x 1
card Void x {voids}
board line: 1 by {places}
zone box: set, public, initial
zone deck: stack, hidden
zone down per line: set, hidden
zone up per line: set, public
var chained: int 0..99 = 0
procedure reveal(x: line) {
  move all from down(x) to up(x)
  if exists(c in up(x) where c == Void) {
    choose by current {
      action next(y in line where orthogonal(x, y) and size(down(y)) > 0) "Reveal a neighbour." {
        do reveal(y)
      }
      action stop "Stop." { }
    }
  }{counted}
}
flow {
  move all from box to deck
  shuffle deck
  for x in line { move top from deck to down(x) }
  turns from seat(0) {
    choose x in line where size(down(x)) > 0 by current
    do reveal(x)
    if exists(x in line where exists(c in up(x) where c == Ace)) { win current  end game }
  }
}
"""


def _chain(tmp_path, places: int, counted: bool) -> Spec:
    text = (CHAIN.replace("{voids}", str(places - 1)).replace("{places}", str(places))
            .replace("{counted}", "\n  add 1 to chained" if counted else ""))
    folder = tmp_path / f"chain{places}{counted}"
    folder.mkdir(exist_ok=True)
    return Spec.find(str(write_spec(folder, text, name="chain")))


def test_a_procedure_that_calls_itself_last_adds_no_locations_however_deep(tmp_path):
    sizes = {}
    for places in (4, 7):
        spec = _chain(tmp_path, places, counted=False)
        system = control.build(spec.config(1), work_limit=20_000, command_limit=10**6)
        sizes[places] = len(system.commands)
        followed, whole = follow_random_games(spec, 1, range(8), 20, command_limit=10**6)
        assert whole == 8 and followed > 8
    assert sizes[4] == sizes[7]
    # A statement after the call: each depth is a place of its own to come back to, as deep as the
    # builder's limit on nesting, which it does not know the cards keep shallower. Its locals multiply;
    # every command writes every slot, which counts against the size limit, so the refusal comes early.
    builder = control.ControlBuilder(_chain(tmp_path, 4, counted=True).config(1), 20_000)
    with pytest.raises(budget.TooLarge):
        builder.build()
    assert len(builder.slots) < 20_000


# Counterclockwise, yet `players` counts from seat 0 upwards (only `players from P` follows the order
# of play): the relation once asked seat 2 before seat 1, and its states left the engine's at once.
COUNTERCLOCKWISE = """
game ccw "Ccw"
rulebook "rulebook.txt" source "ccw.txt"
players 3 to 4
order counterclockwise
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
var marks per player: int 0..9 = 0
var last: player = none
flow {
  for p in players {
    choose by p {
      action a "A." { set last = p  add 1 to marks(p) }
      action b "B." { set last = p }
    }
  }
  for p in players from seat(0) {
    choose by p { action c "C." { set last = p } }
  }
  end game
}
"""


@pytest.mark.parametrize("players", [3, 4])
def test_players_count_from_seat_zero_in_the_relation_as_in_the_engine(tmp_path, players):
    spec = Spec.find(str(write_spec(tmp_path, COUNTERCLOCKWISE, name="ccw")))
    loaded = spec.engine(players, spec.model.default_options())
    system = control.build(spec.config(players, spec.model.default_options()))
    for seed in range(6):
        rng = random.Random(seed)
        state = loaded.new_initial_state(seed)
        asked = []
        while not state.is_terminal():
            asked.append(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
        assert asked == list(range(players)) + [0] + list(range(players - 1, 0, -1))
        problems, followed = replay.follow(system, loaded, state.history)
        assert not problems and followed == len(asked)


# A decision whose guard reads the top of a stack, and whose action draws: the guard's chance input
# and the draw's were once the same slot (when the command before used none), so every draw was
# taken to show the card the guard read, and BMC missed the Blue drawn at once.
GUARDED_DRAW = """
game pick "Pick"
rulebook "rulebook.txt" source "pick.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card Red x 2
card Blue x 2
zone box: set, public, initial
zone deck: stack, hidden
zone pile: stack, public
zone hand per player: set, owner
flow {
  move all from box to deck
  shuffle deck
  move top from deck to pile
  turns from seat(0) {
    choose by current {
      action stop "Stop." { end game }
      action draw when size(deck) > 0 and top(pile) == Red "Draw." { move top from deck to hand(current) }
    }
  }
}
"""


def test_a_guard_that_reads_a_stack_gets_chance_inputs_of_its_own(tmp_path):
    checks = 'checks pick\ninvariant no_blue "No Blue is drawn." : count(c in every hand where c == Blue) == 0\n'
    spec = Spec.find(str(write_spec(tmp_path, GUARDED_DRAW, name="pick", checks=checks)))
    system = control.build(spec.config(2, spec.model.default_options()))
    draw = next(c for c in system.commands if c.label == "draw")
    assert len(draw.events) == 2 and len({e.slot for e in draw.events}) == 2  # the guard's, then the draw's
    with budget.fresh_context():
        answers = symbolic.bmc(system, 3, 60000)
    assert answers[("invariant", "no_blue")].status == "refuted" and answers[("invariant", "no_blue")].depth == 2


def test_a_game_that_ends_in_its_set_up_takes_no_step_after_the_end(tmp_path):
    text = """
game deal "Deal"
rulebook "rulebook.txt" source "deal.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card Ace x 2
card Two x 4
zone box: set, public, initial
zone deck: stack, hidden
zone hand per player: set, owner
flow {
  move all from box to deck
  shuffle deck
  for p in players { move top from deck to hand(p) }
}
"""
    spec = Spec.find(str(write_spec(tmp_path, text, name="deal")))
    loaded = spec.engine(2, spec.model.default_options())
    system = control.build(spec.config(2, spec.model.default_options()))
    for seed in range(4):
        rng = random.Random(seed)
        state = loaded.new_initial_state(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        problems, _ = replay.follow(system, loaded, state.history)
        assert not problems, problems


PEEK = """
game peek "Peek"
rulebook "rulebook.txt" source "peek.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card Up x 2
card Down x 2
zone box: set, public, initial
zone deck: stack, hidden
zone pile: stack, public
var last: card = Up
flow {
  move all from box to deck
  shuffle deck
  turns from seat(0) {
    choose by current {
      action wait "Wait." { }
      action look when size(deck) > 0 "Look." {
        set last = top(deck)
        move top from deck to pile
      }
    }
    if size(deck) == 0 { win current  end game }
  }
}
"""


def test_a_card_read_then_moved_is_drawn_twice_by_the_relation_and_the_follow_stops_there(tmp_path):
    """The engine decides the top of a shuffled stack at its first reading; the relation draws it at each
    (an over-approximation it declares), so a follow of the engine's games stops there, and does not
    report the second draw as a disagreement."""
    spec = Spec.find(str(write_spec(tmp_path, PEEK, name="peek")))
    system = control.build(spec.config(2))
    assert terms.STACK_END_REREAD in system.inexact
    look = next(c for c in system.commands if c.label == "look")
    assert len(look.events) == 2  # the reading, then the move
    loaded = spec.engine(2)
    stopped = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = loaded.new_initial_state(seed)
        decisions = 0
        while not state.is_terminal():
            decisions += not state.is_chance_node()
            state.apply_action(rng.choice(state.legal_actions()))
        problems, followed = replay.follow(system, loaded, state.history)
        assert not problems, problems
        stopped += followed < decisions
    assert stopped


WINDFALL = """
game windfall "Windfall"
rulebook "rulebook.txt" source "windfall.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
token Coin x 9
var steps: int 0..12 = 0
var level: int 0..5 = 1
var flag: bool = false
trigger bonus when level >= 4 and not flag {
  set flag = true
  take 1 Coin by current
}
trigger windfall once when Coin(current) >= 3 {
  choose by current {
    action cash "Cash in." { return 2 Coin by current }
    action hold "Hold." { }
  }
}
flow {
  turns from seat(0) {
    choose by current {
      action take "Take a coin." { take 1 Coin by current }
      action climb "Climb." { if level < 5 { add 1 to level } }
    }
  } then {
    if steps >= 12 { end game }
    add 1 to steps
  }
}
"""


def test_a_once_trigger_that_asks_a_decision_does_not_fire_inside_its_own_rules(tmp_path):
    """A location inside a `once` trigger's rules is resumed from any state, in which the trigger may
    look armed: were it let fire there, each firing would nest another, location after location."""
    spec = Spec.find(str(write_spec(tmp_path, WINDFALL, name="windfall")))
    builder = control.ControlBuilder(spec.config(2))
    builder.build()
    assert len(builder.order) <= 6
    followed, whole = follow_random_games(spec, 2, range(6), 30)
    assert whole == 6 and followed > 60


def test_end_turn_outside_any_turn_is_the_engine_s_rule_error_in_the_relation(tmp_path):
    text = """
game stray "Stray"
rulebook "rulebook.txt" source "stray.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
var steps: int 0..5 = 0
flow {
  rounds {
    if steps >= 5 { end game }
    add 1 to steps
    choose by seat(0) {
      action go "Go." { }
      action stop "Stop." { end turn }
    }
  }
}
"""
    spec = Spec.find(str(write_spec(tmp_path, text, name="stray")))
    system = control.build(spec.config(2))
    loaded = spec.engine(2)
    state = loaded.new_initial_state(0)
    values = replay.step(system, list(system.init), 0)[2]  # the set-up
    refused = {c.label: replay.step(system, values, i)[1] for i, c in enumerate(system.commands) if c.point >= 0}
    assert refused == {"go": False, "stop": True}
    stop = next(a for a in state.legal_actions() if state.action_to_string(a) == "stop")
    with pytest.raises(RuleRuntimeError, match="end turn"):
        state.apply_action(stop)


def test_a_range_bounded_by_a_die_roll_gets_the_values_the_roll_allows(tmp_path):
    """The inputs carry the range of the outcomes they stand for, so that a `for` up to a value the die
    moved has an interval; without it the relation refused the game."""
    text = """
game climb "Climb"
rulebook "rulebook.txt" source "climb.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
var steps: int 0..8 = 0
var level: int 0..5 = 0
var score per player: int 0..9 = 0
flow {
  turns from seat(0) {
    random d in 1..3
    if level + d <= 5 { add d to level }
    for i in 1..level { if score(current) < 9 { add 1 to score(current) } }
    choose by current {
      action rest "Rest." { }
      action drop when level > 0 "Drop." { subtract 1 from level }
    }
  } then {
    if steps >= 8 { end game }
    add 1 to steps
  }
}
"""
    spec = Spec.find(str(write_spec(tmp_path, text, name="climb")))
    system = control.build(spec.config(2))
    assert all((s.low, s.high) == (1, 3) for s in system.slots if s.key[0] == "input")
    followed, whole = follow_random_games(spec, 2, range(6), 20)
    assert whole == 6 and followed > 40


def test_the_end_that_the_set_up_reaches_is_a_state_of_the_relation(tmp_path):
    # The set-up deals and ends the game before any decision: the end is reached without leaving the
    # start location, and a target met there is met (it was once read as the start, where none is).
    from helpers import TINY_SPEC

    checks = ("checks tiny\nreachable ace_drawn \"Someone has the Ace\": "
              "exists(p in players where size(hand(p)) > 0)\n")
    spec = Spec.find(str(write_spec(tmp_path, TINY_SPEC, checks=checks)))
    system = control.build(spec.config(2, {}))
    with budget.fresh_context():
        answers = symbolic.bmc(system, 3)
    assert (answers[("reachable", "ace_drawn")].status, answers[("reachable", "ace_drawn")].depth) == ("reached", 1)
