"""Z3: consistency of the declared numbers with minimal unsat cores, and the counts abstraction."""
from __future__ import annotations

import dataclasses
import random

import numpy as np

from rulekit import load
from rulekit import model as m
from rulekit.pipeline import Spec
from rulekit.verify import replay, segments, smt
from tests.helpers import configure
from tests.helpers import compile_text

TOKENS = "benchmarks/tokens/tokens.rules"


def chocobo():
    return Spec.find("chocobo").model


def test_bundled_facts_and_claims_are_consistent_for_every_player_count():
    g = chocobo()
    for n in range(g.min_players, g.max_players + 1):
        r = smt.consistency(g, n, g.default_options())
        assert r.result == "sat" and r.assertions > 0


def test_a_wrong_fact_gives_a_minimal_core_mapped_to_quotes():
    g = chocobo()
    facts = tuple(dataclasses.replace(f, value=m.Const(44, m.INT)) if f.name == "game_cards" else f for f in g.facts)
    r = smt.consistency(dataclasses.replace(g, facts=facts), 4, g.default_options())
    assert r.result == "unsat"
    labels = {t.label for t in r.core}
    assert {"fact game_cards", "claim cards_add_up"} <= labels
    assert "fact victory_tokens" not in labels and "claim markers_add_up" not in labels  # minimal
    assert any("43 game cards" in t.quotes for t in r.core)


def test_unsupported_constructs_are_unknown_not_a_crash():
    g = chocobo()

    @dataclasses.dataclass(frozen=True)
    class Strange(m.Expr):
        type: m.Type = m.BOOL

    claims = g.claims + (m.Claim("odd", Strange()),)
    r = smt.consistency(dataclasses.replace(g, claims=claims), 3, g.default_options())
    assert r.result == "unknown" and "unsupported" in r.reason


BOARD_SPEC = """
game grid "Grid"
rulebook "rulebook.txt" source "x.txt"
players 2 to 3
fact rows = 3
fact corners = 4 quote "four corners"
fact edge_pairs = EDGE_PAIRS
board plate: rows by rows + 1
define corner(x: plate): bool = (x.row == 1 or x.row == rows) and (x.column == 1 or x.column == rows + 1)
claim four_corners: count(x in plate where corner(x)) == corners quote "four corners"
claim pairs: count(x in plate where exists(y in plate where orthogonal(x, y) and corner(y))) == edge_pairs
claim neighbours: forall(x in plate: count(y in plate where adjacent(x, y)) >= 3 or not corner(x))
zone box: set, public, initial
zone cell per plate: set, public
flow { }
"""


def test_claims_over_a_board_are_decided_position_by_position():
    good = compile_text(BOARD_SPEC.replace("EDGE_PAIRS", "6"))
    for n in (2, 3):
        assert smt.consistency(good, n, good.default_options()).result == "sat"
    bad = smt.consistency(compile_text(BOARD_SPEC.replace("EDGE_PAIRS", "7")), 2, good.default_options())
    assert bad.result == "unsat" and {t.label for t in bad.core} == {"fact edge_pairs", "claim pairs"}


def every_count(model, options=None):
    return [configure(model, p, options) for p in range(model.min_players, model.max_players + 1)]


def test_abstraction_finds_the_dead_objective_only_under_same_type():
    g = chocobo()
    default = segments.state_proofs(every_count(g))
    strict = segments.state_proofs(every_count(g, {"six_of_any_type": "same_type"}))
    assert "six_crystals" not in default
    assert strict["six_crystals"][0] == "dead"
    assert default["tokens_conserved"][0] == "proven"
    assert "hunt_area_small" not in default  # needs the dynamics: never claimed proven


def test_token_model_invariants_follow_from_conservation():
    g = Spec.find(TOKENS).model
    proofs = segments.state_proofs(every_count(g))
    assert proofs["within_cap"][0] == "proven" and proofs["conserved"][0] == "proven"


# Options that change where cards go or how a variable is written are played too: the facts read off
# the rules (`kindflow`, `ranges`) differ with them.
CROSS_CHECKED = (("chocobo", (3, 5), None), ("chucky", (2,), None), ("cranky", (5,), None), ("chuche", (3,), None),
                 ("chicken", (2,), None), ("cranky", (4,), {"revive_text": "revive_only"}),
                 ("chuche", (2,), {"gestohlene_karte": "opfer"}), ("chocobo", (4,), {"monster_draw": "reshuffle"}))


def test_engine_states_satisfy_the_abstraction():
    """Cross-check: every state the engine reaches meets the state facts of the counts abstraction
    (conservation, where each card kind can be, declared and derived ranges), so its one-state proofs
    are sound."""
    for name, counts, options in CROSS_CHECKED:
        for players in counts:
            game = load(name, players=players, options=options)
            system = segments.state_system(game.config)
            labels, facts = zip(*system.invariants.items())
            test = replay.evaluator(list(facts))
            rng = random.Random(players)
            state = game.new_initial_state(seed=players, auto_chance=True)
            for _ in range(120):
                values = [np.array([v]) for v in replay.abstract(system, game, state)]
                broken = [label for label, ok in zip(labels, test(values)) if not np.all(ok)]
                assert not broken, (name, players, options, broken)
                if state.is_terminal():
                    break
                state.apply_action(rng.choice(state.legal_actions()))
