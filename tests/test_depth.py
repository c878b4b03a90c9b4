"""Termination verdicts (lasso, exhaustive, ranking function), state-space estimates, deterministic Z3
budgets and the limits on building encodings, on tiny specs."""
from __future__ import annotations

import pytest

from rulekit.checking import PlayBounds, check_spec
from rulekit.pipeline import Spec
from rulekit.report.wording import rests_on
from rulekit.verify import budget, control, endless, fragment, houdini, paths, segments, symbolic, terms
from rulekit.verify import termination as term
from rulekit.verify.estimate import estimate
from rulekit.verify.explore import Limits, explore, state_key

from helpers import write_spec

HEAD = """
game {name} "{name}"
rulebook "rulebook.txt" source "{name}.txt"
players 2 to 3
unmodelled "Tiny Game." because "Title."
unmodelled "Each player draws one card." because "Test."
unmodelled "The player with the Ace wins." because "Test."
zone box: set, public, initial
card Ace x 1
"""

# A bluffing game: a player may always raise the claim back and forth instead of calling.
BLUFF = HEAD + """
var claim: int 0..1 = 0
flow {
  turns from seat(0) {
    choose by current {
      action bluff "Claim a card." { set claim = 1 - claim }
      action call "Call the bluff." {
        win current
        end game
      }
    }
  }
}
"""

# Take one or two from six: every play ends. `loop { choose }` keeps it in the exact symbolic relation.
TAKE = HEAD + """
var left: int 0..6 = 6
flow {
  loop {
    choose by current {
      action one "Take one." {
        add -1 to left
        if left == 0 { end game }
      }
      action two when left >= 2 "Take two." {
        add -2 to left
        if left == 0 { end game }
      }
    }
  }
}
"""

# As TAKE, but a player may put one back: play can go on forever.
PUT_BACK = TAKE.replace('action two when left >= 2 "Take two." {\n        add -2 to left',
                        'action back when left < 6 "Put one back." {\n        add 1 to left')

# Three decisions of two actions each, whatever was chosen: a tree of 1 + 2 + 4 + 8 nodes.
BINARY = HEAD + """
var n: int 0..3 = 0
flow {
  loop {
    choose by current {
      action a "A." {
        add 1 to n
        if n == 3 { end game }
      }
      action b "B." {
        add 1 to n
        if n == 3 { end game }
      }
    }
  }
}
"""

# A long game: a hundred decisions, each the only one possible.
LONG = HEAD + """
var n: int 0..100 = 0
flow {
  loop {
    choose by current {
      action up "Up." {
        add 1 to n
        if n == 100 { end game }
      }
    }
  }
}
"""

# The players can bluff back and forth forever, but only after forty forced steps: deeper than an
# exploration from the start of a few states sees.
DEEP_BLUFF = HEAD + """
var climb: int 0..40 = 0
var claim: int 0..1 = 0
flow {
  loop {
    choose by current {
      action up when climb < 40 "Climb." { add 1 to climb }
      action bluff when climb == 40 "Claim a card." { set claim = 1 - claim }
      action call when climb == 40 "Call the bluff." {
        win current
        end game
      }
    }
  }
}
"""

# A die decides: a six ends the game, anything else changes nothing. Play goes on forever only while
# the die keeps missing, which it does forever with probability zero.
DICE = HEAD + """
flow {
  loop {
    choose by current {
      action roll "Roll the die." {
        random d in 1..6
        if d == 6 {
          win current
          end game
        }
      }
    }
  }
}
"""

# As DICE, but after a six the player may also decline to stop: the players can keep play going
# whatever the die says.
DICE_DECLINE = DICE.replace("""        if d == 6 {
          win current
          end game
        }""", """        if d == 6 {
          choose by current {
            action stop "Stop." {
              win current
              end game
            }
            action again "Roll on." { }
          }
        }""")

# Eight different cards in a line. Each turn a window of three places moves on by one: its three cards
# are gathered, shuffled and dealt back. Play goes on forever once eight deals in a row put every card
# back where it was (one chance in 6**8): random games stop long before that luck comes, and an exploration around a point would
# see thousands of states first. Nothing is ever gathered whole, so no state repeats by itself.
REDEAL = HEAD + """
card King x 1
card Queen x 1
card Jack x 1
card Ten x 1
card Nine x 1
card Eight x 1
card Seven x 1
board line: 1 by 8
zone deck: stack, hidden
zone place per line: set, public
var w: int 0..7 = 0
define in_window(x: line): bool = x.column == w + 1 or x.column == (w + 1) % 8 + 1 or x.column == (w + 2) % 8 + 1
flow {
  move all from box to deck
  shuffle deck
  for x in line { move top from deck to place(x) }
  loop {
    choose by current {
      action deal "Gather the window's three cards, shuffle them, deal them back; move the window on." {
        for x in line { if in_window(x) { move all from place(x) to deck } }
        shuffle deck
        for x in line { if in_window(x) { move top from deck to place(x) } }
        set w = (w + 1) % 8
      }
      action stop "Stop." {
        win current
        end game
      }
    }
  }
}
"""

# A deck drawn down: each turn a player draws one or two cards, or swaps one for the top card; the game
# ends when the deck is empty. The shuffle and the turns take it out of the exact symbolic relation; a
# counter of turns that nothing bounds is kept too.
DRAW = HEAD + """
zone deck: stack, hidden
zone hand per player: set, owner
zone discard: set, public
card Red x 6
card Blue x 6
var turns_taken: int = 0
flow {
  move all from box to deck
  shuffle deck
  turns from seat(0) {
    add 1 to turns_taken
    choose by current {
      action one "Draw one card." { move top from deck to hand(current) }
      action two when size(deck) >= 2 "Draw two cards." {
        move top from deck to hand(current)
        move top from deck to hand(current)
      }
      action swap(c in hand(current)) "Discard a card and draw one." {
        move c from hand(current) to discard
        move top from deck to hand(current)
      }
    }
    if size(deck) == 0 {
      win current
      end game
    }
  }
}
"""

# The same deck, but chance decides each turn whether a card leaves it: play can go on as long as the
# coin says so.
COIN_DRAW = HEAD + """
zone deck: stack, hidden
zone discard: set, public
card Red x 6
flow {
  move all from box to deck
  turns from seat(0) {
    random stay in {true, false}
    if not stay { move top from deck to discard }
    choose by current {
      action go "Go on." { }
    }
    if size(deck) == 0 {
      win current
      end game
    }
  }
}
"""

# Two rounds: each deals three cards to each player, who play them out. The last card played in a round
# also ends it and deals again: one step that takes a card from a hand and, on one of its branches,
# puts six or nine back.
ROUNDS = HEAD + """
zone deck: stack, hidden
zone hand per player: set, owner
zone table: set, public
card Red x 6
card Blue x 6
var rounds_done: int 0..2 = 0
flow {
  rounds {
    move all from table to box
    move all from box to deck
    shuffle deck
    for p in players {
      for i in 1..3 { move top from deck to hand(p) }
    }
    turns from seat(0) {
      choose by current {
        action play(c in hand(current)) "Play a card." { move c from hand(current) to table }
      }
    } then {
      if forall(p in players: size(hand(p)) == 0) {
        add 1 to rounds_done
        if rounds_done >= 2 {
          win current
          end game
        }
        end round
      }
    }
  }
}
"""

FAST = dict(games=4, variant_games=0, max_steps=50)


def spec_of(tmp_path, text, name):
    return Spec.find(str(write_spec(tmp_path, text.replace("{name}", name), name=name)))


def termination_of(report):
    found = [f for f in report.findings if f.kind == "termination" and not f.id.endswith("/no-end")]
    assert len(found) == 1, "one termination finding per option set"
    return found[0]


def test_a_bluffing_game_that_can_go_on_forever_is_refuted_with_a_replayed_lasso(tmp_path):
    spec = spec_of(tmp_path, BLUFF, "bluff")
    f = termination_of(check_spec(spec, PlayBounds(**FAST)))
    assert f.verdict == "refuted" and f.severity == "warning" and f.witness
    assert f.bound["players"] == [2, 3] and set(f.bound["per_players"].values()) == {"refuted"}
    # The lasso itself: after the loop, the engine state is the same as before it.
    loaded = spec.engine(2, spec.model.default_options())
    x = explore(loaded, Limits())
    x.loaded = loaded
    found = term.lasso(x, state_key(loaded, x.symmetry), state_key(loaded, False))
    assert found is not None and found.loop and not found.chance
    exact = state_key(loaded, False)
    assert exact(loaded.replay(found.prefix)) == exact(loaded.replay(found.prefix + found.loop))
    assert not loaded.replay(found.prefix + found.loop).is_terminal()


def test_a_game_that_always_ends_is_proven_by_exhaustive_exploration(tmp_path):
    f = termination_of(check_spec(spec_of(tmp_path, TAKE, "take"), PlayBounds(**FAST)))
    assert f.verdict == "proven" and f.method == "explicit-state" and "no cycle" in f.message


def test_without_exploration_z3_finds_a_ranking_function(tmp_path):
    f = termination_of(check_spec(spec_of(tmp_path, TAKE, "take"), PlayBounds(**FAST, max_states=0)))
    assert f.verdict == "proven" and f.method == "z3-ranking" and "left" in f.message
    assert set(f.bound["ranking_relations"].values()) == {"fragment"}
    assert rests_on(f).startswith("Z3: a ranking function over the exact transition relation")


def test_no_ranking_function_for_a_game_that_can_go_on_forever(tmp_path):
    spec = spec_of(tmp_path, PUT_BACK, "back")
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, loop_search=0)))
    assert f.verdict == "unknown" and "no weighted sum" in f.message
    # Random games and the states near them show the loop the ranking function could not rule out.
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0)))
    assert f.verdict == "refuted" and f.severity == "warning" and "near random games" in f.message
    system = fragment.build(spec.config(2, spec.model.default_options()))
    ranking, why = term.ranking(system)
    assert ranking is None and why


def test_outside_the_exact_relation_z3_finds_a_ranking_function_over_the_whole_language_relation(tmp_path):
    spec = spec_of(tmp_path, DRAW, "draw")
    with pytest.raises(fragment.Unsupported):
        fragment.build(spec.config(2, spec.model.default_options()))
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, loop_search=0)))
    assert f.verdict == "proven" and f.method == "z3-ranking"
    assert f.bound["per_players"] == {2: "proven", 3: "proven"}
    assert f.bound["ranking_relations"] == {2: "whole language", 3: "whole language"}
    assert rests_on(f) == "Z3: a ranking function over the whole-language relation, 2 to 3 players"
    assert "ranking function over the whole-language relation" in f.message
    ranking, why = term.ranking(control.build(spec.config(3, spec.model.default_options())))
    weighed = {name for weights, _ in ranking.levels for name in weights}
    assert not why and "turns_taken" not in weighed  # a counter with no range is weighed by no level
    deck = {"deck:Ace": 1, "deck:Red": 1, "deck:Blue": 1}  # the cards in the deck, a level of their own
    assert deck in [weights for weights, _ in ranking.levels]


def test_commands_of_one_label_are_each_held_to_the_ranking():
    """The whole-language relation names the steps that go on from silent locations alike: a step that
    adds back what its namesake takes away keeps play going, and no ranking function may hide that."""
    slots = [terms.Slot(("var", "x", None), "x", 0, 5), terms.Slot(("over",), "over", 0, 1)]
    take = terms.Command("(the rules go on)", 0, 0, (), terms.compare(">", ("s", 0), terms.const(0)), terms.FALSE,
                         {0: terms.arith("-", ("s", 0), terms.const(1))})
    give = terms.Command("(the rules go on)", 0, 0, (), terms.compare("<", ("s", 0), terms.const(5)), terms.FALSE,
                         {0: terms.arith("+", ("s", 0), terms.const(1))})
    ranking, why = term.ranking(terms.System(2, {}, slots, [3, 0], [take, give], over=1))
    assert ranking is None and "no weighted sum" in why
    ranking, _ = term.ranking(terms.System(2, {}, slots, [3, 0], [take], over=1))
    assert ranking is not None and ranking.levels == [({"x": 1}, ["(the rules go on)"])]


def test_a_check_spends_the_same_solver_units_whatever_the_process_did_before(tmp_path):
    """Z3's heuristics follow the order in which a context made its terms: without a fresh context per
    piece of work, other Z3 work first (another spec, another test) moved this check's units and could
    turn its `proven` into `unknown`."""
    import z3

    spec = spec_of(tmp_path, ROUNDS, "rounds")

    def units():
        with budget.recording() as used:
            f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, loop_search=0)))
        return f.verdict, [(spent, result) for spent, _, result in used]

    alone = units()
    xs = [z3.Int(f"unrelated{i}", ctx=budget.context()) for i in range(500)]
    s = z3.Solver(ctx=budget.context())
    s.add(z3.Sum(xs) == 7, *[x >= 0 for x in xs])
    assert s.check() == z3.sat
    assert units() == alone and alone[0] == "proven"
    assert z3.simplify(xs[0] + 1 - xs[0]) == 1  # the context of the work before is back, usable


def test_the_whole_language_ranking_search_waits_for_the_loop_search(tmp_path, monkeypatch):
    """A game that play can keep going is refuted by the loop search first: the long search for a ranking
    function over the whole-language relation is left out."""
    relations = set()
    build = control.build

    def built(*args, **kwargs):
        system = build(*args, **kwargs)
        relations.add(id(system))
        return system

    ranked = []
    ranking = term.ranking
    monkeypatch.setattr(control, "build", built)
    monkeypatch.setattr(term, "ranking", lambda system, *a, **k: (ranked.append(id(system) in relations),
                                                                   ranking(system, *a, **k))[1])
    spec = spec_of(tmp_path, COIN_DRAW, "coin")
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, whole_bmc_depth=0)))
    assert f.verdict == "refuted" and "found near random games" in f.message and True not in ranked
    # With no loop search, the whole-language relation is searched.
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, whole_bmc_depth=0, loop_search=0)))
    assert f.verdict == "unknown" and True in ranked


def test_a_step_that_ends_the_round_and_deals_again_is_ranked_branch_by_branch(tmp_path, monkeypatch):
    spec = spec_of(tmp_path, ROUNDS, "rounds")
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, loop_search=0)))
    assert f.verdict == "proven" and f.bound["ranking_relations"] == {2: "whole language", 3: "whole language"}
    assert ("-1*rounds_done (strictly decreased by 1 action(s), on some of its branches); then the cards in every "
            "hand (strictly decreased by 1 action(s), on some of its branches); the set-up runs at most once" in f.message)
    system = control.build(spec.config(3, spec.model.default_options()))
    ranking, why = term.ranking(system)
    assert not why and ({"rounds_done": -1}, ["play(chosen)"]) in ranking.levels
    # Taken whole, the play decreases the hands on one branch and deals nine cards on the other: no
    # weights up to 4 make one sum of rounds and cards fall on both (and Z3 may give up looking).
    monkeypatch.setattr(paths, "deciding_conditions", lambda *args, **kwargs: [])
    ranking, why = term.ranking(system)
    assert ranking is None and why


def test_a_command_splits_along_the_condition_that_decides_most_of_its_updates():
    a, b, c, d = (("s", i) for i in range(4))
    ended = terms.compare("==", a, terms.const(0))
    one = terms.compare("==", d, terms.const(1))
    updates = {1: terms.ite(ended, terms.const(5), terms.arith("-", b, terms.const(1))),
               2: terms.ite(ended, terms.const(0), c),
               3: terms.ite(one, terms.const(2), d)}  # decides one slot only: not split on
    command = terms.Command("play", 0, 0, (), terms.compare(">", b, terms.const(0)), terms.FALSE, updates)
    parts = paths.split(command, [1, 2, 3])
    assert [p.guard for p in parts] == [terms.and_(command.guard, ended), terms.and_(command.guard, terms.not_(ended))]
    assert parts[0].updates == {1: terms.const(5), 2: terms.const(0), 3: updates[3]}
    assert parts[1].updates == {1: updates[1][3], 2: c, 3: updates[3]}
    # Every step of the command is a step of exactly one part, and the same step.
    for values in ([0, 3, 4, 1], [2, 3, 4, 0], [0, 1, 0, 5]):
        taken = [p for p in parts if terms.evaluate(p.guard, values)]
        assert len(taken) == 1
        assert {i: terms.evaluate(x, values) for i, x in taken[0].updates.items()} == \
            {i: terms.evaluate(x, values) for i, x in updates.items()}
    # A branch the guard rules out is no part.
    narrow = terms.Command("play", 0, 0, (), terms.and_(command.guard, ended), terms.FALSE, updates)
    assert [p.updates[1] for p in paths.split(narrow, [1, 2, 3])] == [terms.const(5)]


def test_assuming_a_condition_finds_it_by_shape_not_by_identity():
    x = ("s", 0)
    built_twice = [terms.compare("<", x, terms.const(3)) for _ in range(2)]
    assert built_twice[0] is not built_twice[1]
    term = terms.ite(built_twice[0], terms.const(1), terms.arith("+", x, terms.const(1)))
    assert terms.assuming([term], built_twice[1], True) == [terms.const(1)]
    assert terms.assuming([term], built_twice[1], False) == [terms.arith("+", x, terms.const(1))]
    shapes = terms.Shapes()
    assert shapes.of(built_twice[0]) == shapes.of(built_twice[1]) != shapes.of(terms.compare("<", x, terms.const(4)))


def test_no_ranking_function_over_the_whole_language_relation_when_chance_may_keep_play_going(tmp_path):
    spec = spec_of(tmp_path, COIN_DRAW, "coin")
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, loop_search=0)))
    assert f.verdict == "unknown" and "ranking function over the whole-language relation" in f.message
    ranking, why = term.ranking(control.build(spec.config(2, spec.model.default_options())))
    assert ranking is None and "no weighted sum" in why


def test_endless_play_deep_in_a_game_is_found_near_random_games(tmp_path):
    spec = spec_of(tmp_path, DEEP_BLUFF, "deep")
    f = termination_of(check_spec(spec, PlayBounds(**{**FAST, "max_steps": 500}, max_states=20)))
    assert f.verdict == "refuted" and f.severity == "warning" and f.bound["lasso"]["players_alone"]
    assert "near random games" in f.message and f.bound["lasso"]["prefix"] >= 40
    loaded = spec.engine(2, spec.model.default_options())
    search = endless.search(loaded, False, 2000, max_steps=500)
    exact = state_key(loaded, False)
    found = search.found
    assert found is not None and not found.chance and search.probability == 1.0
    assert exact(loaded.replay(found.prefix)) == exact(loaded.replay(found.prefix + found.loop))
    # Without the search, nothing decides it.
    f = termination_of(check_spec(spec, PlayBounds(**{**FAST, "max_steps": 500}, max_states=20, loop_search=0)))
    assert f.verdict == "unknown"


# Liar's dice with chips: every round a chip leaves the game, so every play ends; with few states
# explored, nothing decides it, but an exploration to the end could.
CHIPS = HEAD + """
payoff win 1 lose 0
token Chip x 6
var die per player: int 1..6 = 1, owner
var bid: int 0..3 = 0
var bidder: player = none
var loser: player = seat(0)
define alive(p: player): bool = Chip(p) > 0
define living: int = count(p in players where alive(p))
flow {
  for p in players { take 2 Chip by p }
  rounds {
    for p in players { if alive(p) { random r in 1..6  set die(p) = r } }
    set bid = 0
    set bidder = none
    turns from loser {
      if not alive(current) { end turn }
      choose by current {
        action raise(n in 1..3 where n > bid and n <= living) "Raise." { set bid = n  set bidder = current }
        action call when bidder != none "Call." {
          if count(p in players where alive(p) and die(p) == 6) >= bid { set loser = current } else { set loser = bidder }
          return 1 Chip by loser
          if not alive(loser) { set loser = the(p in players where alive(p)) }
          end round
        }
      }
    } then {
      if living == 1 { win the(p in players where alive(p))  end game }
    }
  }
}
"""


def test_an_undecided_termination_says_where_an_exploration_to_the_end_may_settle_it(tmp_path, monkeypatch):
    # The ranking function of this game needs what play keeps true (the loser of a call is still in):
    # without those invariants no ranking is found, and termination stays undecided.
    monkeypatch.setattr(houdini, "invariants", lambda *args: ([], "none"))
    spec = spec_of(tmp_path, CHIPS, "chips")
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=300, loop_search=0)))
    assert f.verdict == "unknown" and f.bound["exhaustive_may_settle"] == [2, 3]
    assert "--exhaustive may settle it with 2 to 3 players" in f.message
    assert rests_on(f).endswith("(-v: what was tried; --exhaustive may settle 2 to 3 players)")
    assert "open_counters" not in f.bound and "no range" not in f.message


def test_an_exploration_to_the_end_is_not_promised_where_a_counter_has_no_range(tmp_path, monkeypatch):
    monkeypatch.setattr(houdini, "invariants", lambda *args: ([], "none"))
    counted = CHIPS.replace("var bid: int 0..3 = 0", "var bid: int 0..3 = 0\nvar calls: int = 0\nvar raises: int 0..9 = 0").replace(
        '"Call." {', '"Call." {\n          add 1 to calls  add 0 to raises')
    f = termination_of(check_spec(spec_of(tmp_path, counted, "chips"), PlayBounds(**FAST, max_states=300,
                                                                                   loop_search=0)))
    assert f.verdict == "unknown" and f.bound["open_counters"] == ["calls"]
    assert ("--exhaustive may settle it with 2 to 3 players: an exploration to the end may fit there, unless "
            "`calls`, which has no range, keeps growing: then the states have no end") in f.message


def test_a_loop_that_needs_luck_is_a_note_and_one_the_players_keep_up_is_a_warning(tmp_path):
    f = termination_of(check_spec(spec_of(tmp_path, DICE, "dice"), PlayBounds(**FAST)))
    assert f.verdict == "refuted" and f.severity == "info" and not f.bound["lasso"]["players_alone"]
    assert "probability zero" in f.message
    f = termination_of(check_spec(spec_of(tmp_path, DICE_DECLINE, "decline"), PlayBounds(**FAST)))
    assert f.verdict == "refuted" and f.severity == "warning" and f.bound["lasso"]["players_alone"]
    assert "whatever chance does" in f.message


def test_a_walk_that_steers_chance_back_closes_a_loop_that_random_play_would_wait_for(tmp_path):
    import random

    spec = spec_of(tmp_path, REDEAL, "redeal")
    loaded = spec.engine(2, spec.model.default_options())
    exact = state_key(loaded, False)
    dealt = loaded.new_initial_state(seed=3)
    while dealt.chance is not None:
        dealt.apply_action(dealt.legal[0])
    prefix = list(dealt.history)
    found, spent = endless.steered_walk(loaded, prefix, exact, 1000, random.Random(0))
    assert found is not None and found.chance and spent < 1000
    # Eight deals, each a decision and the first two of the three cards (the last has no choice left); the
    # loop may close a few steps on from the point (the set-up's locals are still in its state).
    assert found.prefix[:len(prefix)] == prefix and len(found.loop) == 24
    assert exact(loaded.replay(found.prefix)) == exact(loaded.replay(found.prefix + found.loop))
    # The wall clock is a safety net: past its deadline the walk stops at once.
    assert endless.steered_walk(loaded, prefix, exact, 1000, random.Random(0), deadline=0.0) == (None, 0)
    # What the walk did in a few dozen states, an exploration does not do in thousands.
    x = explore(loaded, Limits(max_states=5000), prefix=prefix)
    x.loaded = loaded
    assert not x.complete and term.lasso(x, exact, exact) is None
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=20, loop_search=2000)))
    assert f.verdict == "refuted" and f.severity == "info" and f.bound["lasso"]["loop"] == 24


def test_players_who_do_as_little_as_they_may_keep_a_dice_game_going(tmp_path):
    spec = spec_of(tmp_path, DICE_DECLINE, "decline")
    loaded = spec.engine(2, spec.model.default_options())
    lazy = endless.lazy_closure(loaded, [], False, 100)
    assert lazy.complete and not lazy.terminal, "doing as little as they may, the players never stop"
    assert endless.kept_going(lazy) == set(range(lazy.states))
    spec = spec_of(tmp_path, DICE, "dice")
    loaded = spec.engine(2, spec.model.default_options())
    lazy = endless.lazy_closure(loaded, [], False, 100)
    assert lazy.terminal and endless.kept_going(lazy) == set(), "a six ends the game whatever they do"


def test_a_search_for_a_way_to_stay_finds_one_only_where_there_is_one(tmp_path):
    spec = spec_of(tmp_path, DICE_DECLINE, "decline")
    loaded = spec.engine(2, spec.model.default_options())
    graph = endless.staying(loaded, [], False, 100)
    assert 0 in endless.kept_going(graph), "rolling on after every six keeps play going"
    spec = spec_of(tmp_path, DICE, "dice")
    loaded = spec.engine(2, spec.model.default_options())
    graph = endless.staying(loaded, [], False, 100)
    assert graph.terminal and endless.kept_going(graph) == set()


def test_the_players_keep_play_going_only_where_every_chance_outcome_lets_them():
    from rulekit.verify.explore import CHANCE, EXPANDED, Exploration

    # 0 decides: to 1 (a chance event) or to the end 3; 1's outcomes lead to 0 and to 2, and 2 only ends.
    x = Exploration(2, {}, edges=[[1, 3], [0, 2], [3], []], terminal=[3],
                    kinds=bytearray([EXPANDED, EXPANDED | CHANCE, EXPANDED, EXPANDED]))
    assert endless.kept_going(x) == set()
    x.edges[2] = [0, 3]  # now 2 may go back to 0: every outcome of 1 leads to a state that can stay
    assert endless.kept_going(x) == {0, 1, 2}
    x.kinds[2] = 0  # a state on the frontier, not expanded, proves nothing
    assert endless.kept_going(x) == set()


def test_a_long_game_is_reported_as_cut_not_as_endless(tmp_path):
    f = termination_of(check_spec(spec_of(tmp_path, LONG, "long"), PlayBounds(**FAST, max_states=0)))
    assert f.severity == "info" and f.verdict == "proven"  # the ranking function: n goes up to 100
    assert f.bound["cut"] == f.bound["games"] > 0 and "cut at the step limit of 50" in f.message
    # Every game cut: all a sample can say is that a game may well run past the limit.
    long = f.bound["long_games"]
    assert long["cut"] == long["games"] == f.bound["games"] and long["rate_below"] == 1.0


def test_the_random_games_bound_the_chance_that_a_game_runs_past_the_step_limit(tmp_path):
    from rulekit.statistics import upper_bound

    # enough games for a bound worth stating (below 50 %): a bound of "below 100 %" is left unsaid
    enough = {**FAST, "games": 12}
    f = termination_of(check_spec(spec_of(tmp_path, BINARY, "binary"), PlayBounds(**enough, max_states=0, loop_search=0)))
    long = f.bound["long_games"]
    assert long["cut"] == 0 and long["games"] == f.bound["games"] == sum(long["games_by_players"].values())
    # Exact and one-sided, for each player count: the bound of the count with the fewest games.
    fewest = min(long["games_by_players"].values())
    assert long["rate_below"] == pytest.approx(upper_bound(0, fewest, 0.95)) and long["confidence"] == 0.95
    assert f"at 95 % confidence the chance that a game runs past {FAST['max_steps']:,} decisions is below" in f.message


def test_a_bound_on_long_games_that_says_nothing_is_left_unsaid(tmp_path):
    f = termination_of(check_spec(spec_of(tmp_path, BINARY, "binary"), PlayBounds(**FAST, max_states=0, loop_search=0)))
    assert f.bound["long_games"]["rate_below"] >= 0.5 and "runs past" not in f.message, f.message


def test_knuth_estimate_is_exact_on_a_uniform_tree(tmp_path):
    spec = spec_of(tmp_path, BINARY, "binary")
    found = estimate(spec.engine(2, spec.model.default_options()), probes=20)
    assert found.probes == 20 and found.nodes == pytest.approx(15)
    assert found.as_dict()["method"] == "knuth"


def test_an_unfinished_exploration_reports_an_estimate(tmp_path):
    report = check_spec(spec_of(tmp_path, BINARY, "binary"), PlayBounds(**FAST, depth=1))
    explored = report.stats["explored"]
    assert explored and all(not x["complete"] and x["estimate"]["probes"] > 0 for x in explored)
    complete = check_spec(spec_of(tmp_path, TAKE, "take"), PlayBounds(**FAST)).stats["explored"]
    assert all(x["complete"] and x["size"] == {"exact": x["states"]} for x in complete)


def test_exhaustive_explores_to_the_end_what_the_estimate_says_fits(tmp_path):
    report = check_spec(spec_of(tmp_path, BINARY, "binary"), PlayBounds(**FAST, max_states=3, exhaustive=True))
    assert all(x["complete"] and x["exhaustive"] == "explored to the end" for x in report.stats["explored"])


def test_resource_limit_decides_not_the_clock(tmp_path):
    spec = spec_of(tmp_path, TAKE, "take")
    system = fragment.build(spec.config(2, spec.model.default_options()))
    expr = ("<=", ("s", system.index(("var", "left", None))), ("c", 6))
    with budget.resource_limit(1):
        status, _, why = symbolic.k_induction(system, expr, 1, timeout_ms=600_000)
    assert status == "unknown" and "resource limit" in why
    assert symbolic.k_induction(system, expr, 1) == symbolic.k_induction(system, expr, 1) == ("proven", 1, "")


def test_a_solver_asked_again_spends_no_more_than_its_account_has_left():
    import z3

    for simplify in (False, True):
        with budget.fresh_context(), budget.spending(budget.Account(200_000)) as account:
            xs = [z3.Int(f"x{i}", budget.context()) for i in range(30)]
            solver = budget.solver(600_000, simplify=simplify)
            solver.add(*[z3.And(x >= 0, x < 1000) for x in xs])
            answers = [budget.check(solver, z3.Sum(*[x * x for x in xs[k:k + 20]]) == 12345 + 7 * k,
                                    z3.Product(*xs[:3]) == 999983 * (k + 1)) for k in range(4)]
            assert answers[-1] == z3.unknown and "budget of the configuration" in budget.unknown_reason(solver)
            # each check drew on what was left (a query stops a unit or so past it), not on a fresh 200,000
            assert account.units - account.left < 200_000 + 10


def test_shared_term_graphs_are_walked_once():
    x = ("s", 0)
    for i in range(200):  # a tree of 2**200 leaves, a graph of 201 nodes
        x = ("+", x, ("ite", ("==", ("s", i + 1), ("c", 0)), x, x))
    assert terms.slots_of(x) == set(range(201))
    assert terms.SlotSets().values(x) == {0}


def test_building_an_encoding_past_its_limit_is_too_large_not_a_hang(tmp_path):
    spec = spec_of(tmp_path, TAKE, "take")
    with pytest.raises(budget.TooLarge), budget.time_box(0.0, "the counts abstraction"):
        segments.build(spec.config(2, spec.model.default_options()))


def test_the_text_report_says_termination_and_the_state_space(tmp_path, capsys):
    from rulekit.cli import main

    path = write_spec(tmp_path, BINARY.replace("{name}", "binary"), name="binary")
    code = main(["check", str(path), "--games", "4", "--variant-games", "0", "--jobs", "1", "--depth", "1",
                 "--solver-rlimit", "200000"])
    out = capsys.readouterr().out
    assert code == 0 and "every play ends" in out
    assert "2 players  " in out and "tree of plays: an upper estimate" in out and "Knuth's estimator" in out
    main(["check", str(path), "-v", "--games", "4", "--variant-games", "0", "--jobs", "1", "--depth", "1",
          "--solver-rlimit", "200000"])
    assert "state space, 2 players: " in capsys.readouterr().out


def test_a_resource_limit_must_be_positive(tmp_path, capsys):
    from rulekit.cli import main

    path = write_spec(tmp_path, BINARY.replace("{name}", "binary"), name="binary")
    assert main(["check", str(path), "--solver-rlimit", "0"]) != 0
    assert "--solver-rlimit must be a positive" in capsys.readouterr().err


def test_what_one_player_count_leaves_of_the_loop_search_goes_to_the_next(tmp_path, monkeypatch):
    asked = []

    def search(loaded, symmetric, states, **kwargs):
        asked.append(states)
        return endless.Search(games=1, states=10)

    monkeypatch.setattr(endless, "search", search)
    spec = spec_of(tmp_path, REDEAL, "redeal")
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, loop_search=1000)))
    assert f.verdict == "unknown" and asked == [500, 990]
    # Each count but the last may spend half of what is left: the smallest counts, searched first,
    # get the longest watched games.
    asked.clear()
    spec = spec_of(tmp_path, REDEAL.replace("players 2 to 3", "players 2 to 4"), "redeal4")
    f = termination_of(check_spec(spec, PlayBounds(**FAST, max_states=0, loop_search=1000)))
    assert f.verdict == "unknown" and asked == [500, 495, 980]


# Two players may pass for ever; three count their turns up to an end no small exploration reaches.
PASS_AT_TWO = HEAD + """
var turn: int = 0
flow {
  turns from seat(0) {
    if player_count == 3 {
      add 1 to turn
      if turn > 500 { end game }
    }
    choose by current {
      action pass when player_count == 2 "Pass." { }
      action wait when player_count == 3 "Wait." { }
    }
  }
}
"""


def test_a_loop_at_one_player_count_earns_the_later_counts_a_larger_search(tmp_path, monkeypatch):
    asked = []

    def search(loaded, symmetric, states, **kwargs):
        asked.append(states)
        return endless.Search(games=1, states=states)  # nothing found, the whole share spent

    monkeypatch.setattr(endless, "search", search)
    # Two players pass for ever (the exploration finds it); three to five count their turns to an end.
    text = (PASS_AT_TWO.replace("players 2 to 3", "players 2 to 5").replace("player_count == 3", "player_count >= 3"))
    spec = spec_of(tmp_path, text, "passfive")
    f = termination_of(check_spec(spec, PlayBounds(**{**FAST, "max_states": 50}, loop_search=1000, solver_timeout=0)))
    assert f.bound["per_players"] == {2: "refuted", 3: "unknown", 4: "unknown", 5: "unknown"}
    # The loop at two players adds 1,500 states to the pool of 1,000: three take half of it, four three
    # quarters of the budget (more than half of what is left), five the rest. In all, two and a half
    # times the budget; without the loop, three would get half of the 1,000.
    assert asked == [1250, 750, 500] and sum(asked) == 2500


def test_a_refuted_finding_keeps_what_was_tried_at_the_counts_it_leaves_undecided(tmp_path):
    spec = spec_of(tmp_path, PASS_AT_TWO, "passtwo")
    bounds = PlayBounds(**{**FAST, "max_states": 50}, loop_search=0, solver_timeout=0)
    f = termination_of(check_spec(spec, bounds))
    assert f.verdict == "refuted" and f.bound["per_players"] == {2: "refuted", 3: "unknown"}
    assert "(with 3 players, undecided)" in f.message
    assert list(f.bound["undecided"]) == [3] and "stopped by the states limit" in f.bound["undecided"][3]


def test_player_counts_in_words():
    from rulekit.checking.shared import players_text

    assert [players_text(c) for c in ([3], [3, 4, 5], [4, 7, 8])] == ["3", "3 to 5", "4, 7 and 8"]


# BLUFF with two readings: one that leaves the bluffing loop alone (who wins a call) and one that
# breaks it (a second claim ends the game).
BLUFF_OPTIONS = BLUFF.replace("var claim", '''ambiguity calling "Who wins a call?" {
  quote "The player with the Ace wins."
  question "The caller or the claimant?"
  option caller "The caller."
  option claimant "The claimant."
  default caller because "Test."
}
ambiguity claims "How often may one claim?" {
  quote "Each player draws one card."
  question "Any number of times, or once?"
  option any "Any number of times."
  option once "Once: a second claim ends the game."
  default any because "Test."
}
var claimed: int 0..1 = 0
var claim''').replace("action bluff \"Claim a card.\" { set claim = 1 - claim }", '''action bluff "Claim a card." {
        set claim = 1 - claim
        if claims is once {
          if claimed == 1 { end game }
          set claimed = 1
        }
      }''').replace("win current\n", "if calling is caller { win current }\n        if calling is claimant { win next(current) }\n")


def test_a_loop_found_under_the_default_options_is_replayed_under_the_others(tmp_path):
    spec = spec_of(tmp_path, BLUFF_OPTIONS, "bluffs")
    bounds = PlayBounds(**{**FAST, "variant_games": 2})
    found = {f.options.get("calling") or f.options.get("claims") or "default": f
             for f in check_spec(spec, bounds).findings if f.kind == "termination"}
    assert found["default"].verdict == "refuted"
    untouched = found["claimant"]
    assert untouched.verdict == "refuted" and untouched.severity == "warning" and untouched.witness
    assert "replays under these too" in untouched.message
    assert untouched.details == {"same_as": "bluffs/termination"} and not found["default"].details
    broken = found["once"]
    assert broken.verdict == "unknown" and "does not replay under these" in broken.message
    # The search for another loop found none at two players: three, with longer rounds, are not searched.
    assert "no loop near random games" in broken.message
    assert "no search for another loop: none was found near random games with 2 players" in broken.message


# BLUFF with a reading under which the bluff is another action: the default options' loop does not
# replay there, yet play still goes round, by the other action.
BLUFF_REWORDED = BLUFF.replace("var claim", '''ambiguity wording "Is a bluff a claim or a pass?" {
  quote "Each player draws one card."
  question "A claim or a pass?"
  option claim "A claim."
  option pass "A pass."
  default claim because "Test."
}
var claim''').replace('action bluff "Claim a card." { set claim = 1 - claim }',
                      'action bluff when wording is claim "Claim a card." { set claim = 1 - claim }\n'
                      '      action pass when wording is pass "Pass." { }')


def test_where_an_option_breaks_the_default_loop_it_is_carried_over_by_the_names_of_its_steps(tmp_path):
    spec = spec_of(tmp_path, BLUFF_REWORDED, "reworded")
    # No loop search: what refutes termination under "pass" is the default options' loop, carried over.
    bounds = PlayBounds(**{**FAST, "variant_games": 2, "loop_search": 0})
    found = {f.options.get("wording", "default"): f for f in check_spec(spec, bounds).findings
             if f.kind == "termination"}
    assert found["default"].verdict == "refuted"
    again = found["pass"]
    assert again.verdict == "refuted" and again.severity == "warning" and again.witness
    assert "the loop found under the default options carried over to these" in again.message
    assert "pass" in " ".join(str(step) for step in again.witness).lower()
    assert not again.details, "another loop than the default options': not the same finding"


def test_where_the_default_loop_does_not_carry_over_play_is_searched_again_for_another(tmp_path, monkeypatch):
    from rulekit.verify import carry

    monkeypatch.setattr(carry, "carry", lambda loaded, steps, loop_start, max_states: carry.Carried(states=7))
    spec = spec_of(tmp_path, BLUFF_REWORDED, "reworded")
    bounds = PlayBounds(**{**FAST, "variant_games": 2})
    found = {f.options.get("wording", "default"): f for f in check_spec(spec, bounds).findings
             if f.kind == "termination"}
    again = found["pass"]
    assert again.verdict == "refuted" and again.severity == "warning" and again.witness
    assert "where the loop of the default options does not replay" in again.message
    assert "pass" in " ".join(str(step) for step in again.witness).lower()
    # Without a loop search the default options' loop is all there is, and it does not carry over.
    unsearched = PlayBounds(**{**FAST, "variant_games": 2, "loop_search": 0})
    found = {f.options.get("wording", "default"): f for f in check_spec(spec, unsearched).findings
             if f.kind == "termination"}
    assert found["pass"].verdict == "unknown" and "does not replay under these" in found["pass"].message
    assert "nor does it come back when its steps are played by their names (7 states)" in found["pass"].message


def test_the_text_report_tells_a_loop_once_with_the_option_sets_it_also_holds_under(tmp_path, capsys):
    from rulekit.cli import main

    path = write_spec(tmp_path, BLUFF_OPTIONS.replace("{name}", "bluffs"), name="bluffs")
    main(["check", str(path), "--games", "4", "--variant-games", "2", "--jobs", "1", "--max-steps", "50"])
    out = capsys.readouterr().out
    assert out.count("warning[termination]") == 1
    assert "the same under 1 other option set(s): calling=claimant" in out


def test_a_lasso_replays_only_where_every_step_is_legal_and_the_loop_comes_back(tmp_path):
    spec = spec_of(tmp_path, BLUFF_OPTIONS, "bluffs")
    model = spec.model
    default = spec.engine(2, model.default_options())
    x = explore(default, Limits())
    x.loaded = default
    found = term.lasso(x, state_key(default, x.symmetry), state_key(default, False))
    assert found is not None
    assert endless.replayed(default, found) is not None
    assert endless.replayed(spec.engine(2, {**model.default_options(), "calling": "claimant"}), found) is not None
    once = spec.engine(2, {**model.default_options(), "claims": "once"})
    assert endless.replayed(once, found) is None, "a second claim ends the game: the loop cannot go on"
    # A loop that does not come back to its state is no lasso, wherever it is replayed.
    assert endless.replayed(default, term.Lasso(found.prefix, found.loop[:1], False)) is None


# Ten cards on the table: a player takes any of its 1,023 non-empty subsets, or waits.
STALL = HEAD + """
zone table: set, public
zone won per player: set, public
card One x 1
card Two x 1
card Three x 1
card Four x 1
card Five x 1
card Six x 1
card Seven x 1
card Eight x 1
card Nine x 1
flow {
  move all from box to table
  turns from seat(0) {
    choose by current {
      action take(s in subsets(table) where size(s) > 0) "Take cards." {
        move s from table to won(current)
        if size(table) == 0 { end game }
      }
      action wait "Wait." { }
    }
  }
}
"""


def test_a_lazy_game_tries_one_option_of_each_action_where_a_decision_has_hundreds(tmp_path):
    # Trying every option of every decision, the lazy game spent the whole budget of 600 states on the
    # first decision's 1,024 options and found no loop; one option of each action finds the players waiting.
    loaded = spec_of(tmp_path, STALL, "stall").engine(2, {})
    assert len(loaded.new_initial_state(seed=0).legal_actions()) == 1024
    search = endless.search(loaded, False, 600, max_steps=500)
    found = search.found
    assert found is not None and not found.chance
    exact = state_key(loaded, False)
    assert exact(loaded.replay(found.prefix)) == exact(loaded.replay(found.prefix + found.loop))


def test_a_lasso_is_replayed_once_for_all_that_is_asked_of_it(tmp_path):
    # Under every option set a carried loop is replayed, its chance steps and their probability read and
    # the records it changes compared: one replay answers all of it (through a crowded table, a replay
    # costs seconds). A lasso that a rule refuses is said not to replay.
    loaded = spec_of(tmp_path, STALL, "replays").engine(2, {})
    options = loaded.new_initial_state(seed=0).legal_actions()
    wait = next(a for a in options if "wait" in loaded.describe_action(a))
    take = next(a for a in options if a != wait)
    replays = []
    play = loaded.replay
    loaded.replay = lambda actions, *rest: replays.append(len(actions)) or play(actions, *rest)
    found = term.Lasso([wait], [wait, wait], False)
    again = endless.replayed(loaded, found)
    assert again is not None and (again.prefix, again.loop, again.chance) == ([wait], [wait, wait], False)
    assert endless.loop_probability(loaded, found) == 1.0 and not endless.lasso_run(loaded, [wait], [wait, wait]).chance
    # (the state keys' probe of the start, an empty replay, aside)
    assert [n for n in replays if n] == [1], "one replay of the prefix, the loop played on from there"
    assert endless.replayed(loaded, term.Lasso([take, take], [wait], False)) is None, "a card taken twice"
    assert endless.replayed(loaded, term.Lasso([], [take], False)) is None, "the state does not come back"


DICE_ALONE = """
game {name} "Dice alone"
rulebook "rulebook.txt" source "x.txt"
players 2 to 2
unmodelled "Tiny Game." because "Title."
var rolled: int 0..1 = 0
flow {
  choose by seat(0) { action go "Go." { } }
  loop { random face in 1..6  set rolled = 1 }
}
"""


def test_a_loop_of_chance_alone_that_never_leads_to_an_end_is_said_so(tmp_path):
    f = termination_of(check_spec(spec_of(tmp_path, DICE_ALONE, "alone"),
                                  PlayBounds(**{**FAST, "max_states": 200}, loop_search=0, solver_timeout=0)))
    assert f.verdict == "refuted" and "no player decides on it" in f.message, f.message


def test_a_game_that_no_random_game_ends_is_a_warning_of_its_own(tmp_path):
    # 60 rolls were meant where 600 are written: a game of 40 decisions never gets there (and the count,
    # which never comes back, leaves no loop for the termination finding to show; an exploration of 300
    # states does not get there either)
    never = DICE.replace("flow {", "var rolls: int 0..1000 = 0\nflow {").replace(
        "random d in 1..6", "random d in 1..6\n        add 1 to rolls").replace("if d == 6 {", "if rolls >= 600 {")
    report = check_spec(spec_of(tmp_path, never, "never"),
                        PlayBounds(games=6, variant_games=0, max_steps=40, max_states=300))
    found = [f for f in report.findings if f.id == "never/termination/no-end"]
    assert len(found) == 1
    f = found[0]
    assert f.severity == "warning" and f.verdict == "unknown" and f.method == "random-play"
    assert f.message.startswith("no random game ended with 2 to 3 players: all 12 ran to the step limit of 40 "
                                "decisions; at 95 % confidence fewer than ")
    assert f.bound["games_by_players"] == {2: 6, 3: 6} and 0 < f.bound["end_rate_below"] < 0.5
    # a game that ends is no such warning, nor a sample too small to say much
    for name, text, games in (("ends", DICE, 6), ("few", never, 4)):
        report = check_spec(spec_of(tmp_path, text, name),
                            PlayBounds(games=games, variant_games=0, max_steps=40, max_states=300))
        assert not [f for f in report.findings if f.id.endswith("/no-end")]
