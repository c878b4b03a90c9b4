"""Aggregates max/min/argmax/argmin: front end, lowering, engine and the exact symbolic fragment."""
from __future__ import annotations

import pytest

import rulekit
from rulekit import model as m
from rulekit.verify import fragment, replay
from tests.helpers import compile_text, configure, load_text

HEADER = """
game agg "Aggregates"
rulebook "rulebook.txt" source "agg.txt"
players 2 to 4
order clockwise
payoff win 1 lose -1
card Low x 2 { value = 1 }
card Mid x 2 { value = 5 }
card High x 1 { value = 9 }
zone deck: stack, hidden, initial
zone hand per player: set, owner
var score per player: int = 0
var best: int = 0
"""

DEAL = HEADER + """
flow {
  shuffle deck
  for p in players {
    move top from deck to hand(p)
    set score(p) = max(c in hand(p): c.value)
  }
  set best = min(p in players where score(p) > 0: score(p))
  win argmax(p in players from seat(1): score(p))
  end game
}
"""


def test_aggregates_resolve_to_quantifiers_with_the_element_type():
    game = compile_text(DEAL)
    quants = [q for body in m.bodies(game) for st in m.walk(body) for q in _quants(st)]
    kinds = {q.kind: q.type for q in quants}
    assert kinds["max"] == m.INT and kinds["min"] == m.INT and kinds["argmax"] == m.PLAYER


def _quants(node):
    if isinstance(node, m.Quant):
        yield node
    for child in m.children(node):
        yield from _quants(child)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_deals_and_the_highest_card_wins_ties_to_the_first_from_seat_one(tmp_path, players):
    game = load_text(tmp_path, DEAL, players=players)
    values = {"Low": 1, "Mid": 5, "High": 9}
    for seed in range(60):
        state = game.new_initial_state(seed=seed, auto_chance=True)
        assert state.is_terminal()
        scores = [max(values[k] for k in state.zone("hand", p)) for p in range(players)]
        assert [state.value("score", p) for p in range(players)] == scores
        assert state.value("best") == min(scores)
        order = [(1 + i) % players for i in range(players)]
        winner = max(order, key=lambda p: scores[p])  # Python's max keeps the first of equal ones
        assert state.returns()[winner] == 1.0 and sum(r > 0 for r in state.returns()) == 1


def test_an_aggregate_over_nothing_is_a_runtime_error_naming_its_line(tmp_path):
    text = HEADER + "flow {\n  set best = max(p in players where score(p) > 100: score(p))\n  end game\n}\n"
    game = load_text(tmp_path, text, players=2)
    with pytest.raises(rulekit.RuleRuntimeError) as err:
        game.new_initial_state(seed=0)
    assert "ranges over nothing" in str(err.value) and ":15:" in str(err.value)


@pytest.mark.parametrize("expr, code, words", [
    ("highest(p in players: score(p))", "E107", "there is no aggregate 'highest'"),
    ("maxx(p in players: score(p))", "E107", "did you mean 'max'"),
    ("max(p in players)", "E202", "'max' needs the value to compare"),
    ("max(p in players: p)", "E202", "the value of 'max'"),
])
def test_aggregate_errors_say_what_exists(expr, code, words):
    with pytest.raises(rulekit.SpecError) as err:
        compile_text(HEADER + f"flow {{\n  set best = {expr}\n}}\n")
    assert err.value.diagnostics[0].code == code and words in err.value.render()


def test_aggregates_are_not_known_before_play():
    with pytest.raises(rulekit.SpecError) as err:
        compile_text(HEADER.replace("var best: int = 0", "var best: int = max(p in players: score(p))")
                     + "flow { }\n")
    assert err.value.diagnostics[0].code == "E204"


MARKET = """
game market "Market"
rulebook "rulebook.txt" source "market.txt"
players 2 to 3
order clockwise
payoff win 1 lose -1
card Coin x 1
zone box: set, public, initial
var score per player: int 0..3 = 0
var leader: player = seat(0)
var top: int 0..3 = 0
flow {
  loop {
    choose by current {
      action gain(p in players where score(p) < 3) { add 1 to score(p) }
    }
    set top = max(p in players: score(p))
    set leader = argmax(p in players: score(p))
    if top == 3 { win leader  end game }
  }
}
"""


def test_the_exact_fragment_agrees_with_the_engine_on_aggregates(tmp_path):
    """Cross-check: along random engine games, every command's successor in the symbolic relation is
    the engine's successor state."""
    import random

    game = load_text(tmp_path, MARKET, players=3)
    system = fragment.build(game.config)
    ids = replay.action_ids(system, game)
    rng = random.Random(1)
    for seed in range(20):
        state = game.new_initial_state(seed=seed, auto_chance=True)
        while not state.is_terminal():
            values = replay.abstract(system, game, state)
            enabled = {ids[c]: c for c in range(len(system.commands)) if replay.step(system, values, c)[0]}
            assert set(enabled) == set(state.legal_actions())
            action = rng.choice(state.legal_actions())
            _, refused, after = replay.step(system, values, enabled[action])
            state.apply_action(action)
            assert not refused and after == replay.abstract(system, game, state)


def test_configure_folds_the_player_count_into_aggregate_bodies():
    config = configure(compile_text(MARKET), 2)
    assert config.players == 2 and not any(isinstance(x, m.FactRef) for x in _walk(config.game.flow))


def _walk(node):
    yield node
    for child in m.children(node):
        yield from _walk(child)


def test_aggregates_read_as_english():
    from rulekit.sphinx.english import English

    english = English(compile_text(DEAL))
    said = []
    for st in m.walk(compile_text(DEAL).flow.body):
        for q in _quants(st):
            said.append("".join(p if isinstance(p, str) else p.text for p in english.expr(q)))
    assert "the largest, over each card in the player's hand, of that card's value" in said
    assert any(s.startswith("the player, in turn from the player in seat 1 for whom") and "first of them on a tie" in s
               for s in said)
    assert not any("_" in s for s in said)
