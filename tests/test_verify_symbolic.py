"""The symbolic transition relation against the engine: traces played by the engine satisfy it step by
step; its witnesses (Z3 and the vectorized explorer) replay in the engine; what lies outside the
fragment is `Unsupported` and ends as `unknown`, never a crash."""
from __future__ import annotations

import dataclasses
import random
import time

import pytest
import z3

from rulekit import load
from rulekit import model as m
from rulekit.checking import PlayBounds, check_spec
from rulekit.errors import RuleRuntimeError
from rulekit.pipeline import Spec
from rulekit.lower import every_count
from tests.helpers import configure
from rulekit.verify import Unsupported, budget, fragment, parametric, replay, segments, symbolic, terms, vector
from rulekit.verify.explore import Limits, explore
from tests.helpers import write_spec

TOKENS = "benchmarks/tokens/tokens.rules"

# Cards in unordered zones, per-player variables with a range (adding past it is refused), tokens with a
# cap, a procedure, if/else, a win that ends the game.
MARKET = """
game market "Market"
rulebook "rulebook.txt" source "market.txt"
players 2 to 3
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
card Gem x 3
card Coin x 2
token Star "star" x 3 cap 2
zone pool: set, public, initial
zone hand per player: set, owner
var score per player: int 0..3 = 0
var trades: int 0..4 = 0
procedure reward(p: player) {
  if Star(p) == 2 { win p  end game } else { add 1 to trades }
}
flow {
  loop {
    choose by current {
      action grab(p in players, c in pool) "Grab a card." {
        move c from pool to hand(p)
        if c == Gem { add 1 to score(p) }
      }
      action trade(p in players where score(p) >= 2) "Trade two points for a star." {
        subtract 2 from score(p)
        take 1 Star by p
        do reward(p)
      }
      action back(p in players, c in hand(p)) "Put a card back." {
        move c from hand(p) to pool
      }
    }
  }
}
"""

MARKET_CHECKS = """
checks market
invariant cards_kept "Every card is somewhere." : size(pool) + sum(p in players: size(hand(p))) == 5
invariant low_score "Nobody scores 3." : forall(p in players: score(p) < 3)
reachable someone_wins "Someone wins." : exists(p in players where Star(p) == 2)
"""

# Stuck once the counter reaches 2: no action is legal, and the game is not over.
STUCK = """
game stuck "Stuck"
rulebook "rulebook.txt" source "stuck.txt"
players 1 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
var n: int 0..5 = 0
flow {
  loop {
    choose by current {
      action up when n < 2 "Count up." { add 1 to n }
    }
  }
}
"""


@pytest.fixture(scope="module")
def market(tmp_path_factory):
    path = write_spec(tmp_path_factory.mktemp("market"), MARKET, name="market", checks=MARKET_CHECKS)
    return Spec.find(str(path))


def _configurations(market_spec):
    out = [(Spec.find(TOKENS), n) for n in (1, 2, 3, 8)]
    out += [(market_spec, n) for n in (2, 3)]
    return out


def _z3_step_holds(system, before, after, command) -> bool:
    """Does the Z3 transition relation relate these two concrete states by this command?"""
    rel = symbolic.Relation(system)
    xs = {i: z3.IntVal(v, ctx=budget.context()) for i, v in enumerate(before)}
    ys = {i: z3.IntVal(v, ctx=budget.context()) for i, v in enumerate(after)}
    # Slots no command writes are constants of the relation: a step must leave them at their start.
    if any(after[i] != system.init[i] for i in range(len(after)) if i not in rel.changing):
        return False
    solver = z3.Solver(ctx=budget.context())
    solver.add(rel.step(xs, ys, z3.IntVal(command, ctx=budget.context())))
    return solver.check() == z3.sat


def test_engine_traces_satisfy_the_symbolic_relation_step_by_step(market):
    for spec, players in _configurations(market):
        loaded = load(spec.path, players=players)
        raw = fragment.build(configure(spec.model, players, loaded.options))
        for system in (raw, terms.within_bounds(raw)):
            ids = replay.action_ids(system, loaded)
            command_of = {a: c for c, a in enumerate(ids)}
            checked = 0
            for seed in range(4):
                rng = random.Random(seed)
                state = loaded.new_initial_state(seed=seed)
                assert replay.abstract(system, loaded, state) == system.init
                for _ in range(40):
                    values = replay.abstract(system, loaded, state)
                    enabled = {ids[c] for c in range(len(system.commands)) if replay.step(system, values, c)[0]}
                    assert enabled == set(state.legal_actions()), (spec.path, players, values)
                    for prop, test in loaded.properties("invariant") + loaded.properties("reachable"):
                        expr = system.invariants.get(prop.name, system.targets.get(prop.name))
                        assert replay.holds(system, expr, values) == test(state), prop.name
                    if state.is_terminal() or not state.legal_actions():
                        break
                    action = rng.choice(state.legal_actions())
                    c = command_of[action]
                    ok, refused, after = replay.step(system, values, c)
                    assert ok
                    try:
                        state.apply_action(action)
                    except RuleRuntimeError:
                        assert refused, "the engine refused an action the symbolic relation allows"
                        continue
                    assert not refused, "the symbolic relation refuses an action the engine carries out"
                    assert after == replay.abstract(system, loaded, state)
                    if checked < 12:  # Z3 is slower: a sample of steps per configuration
                        assert _z3_step_holds(system, values, after, c)
                        wrong = list(after)
                        wrong[system.over] = 1 - wrong[system.over]
                        assert not _z3_step_holds(system, values, wrong, c)
                    checked += 1
            assert checked > 20


def test_market_lies_in_the_fragment_and_its_refused_trades_match_the_engine(market):
    system = fragment.build(configure(market.model, 2, {}))
    kinds = {s.key[0] for s in system.slots}
    assert {"var", "supply", "held", "zone", "over", "winner"} <= kinds
    assert any(c.error != terms.FALSE for c in system.commands)  # a score past 3 is refused


def test_bmc_witnesses_replay_in_the_engine(market):
    loaded = load(market.path, players=2)
    system = fragment.build(configure(market.model, 2, {}))
    verdicts = symbolic.verify(system, depth=8, budget=60)
    answers = verdicts.answers
    ids = replay.action_ids(system, loaded)
    broken = answers[("invariant", "low_score")]
    assert broken.status == "refuted" and broken.depth == 3  # three gems to one player
    state = loaded.replay([ids[c] for c in broken.path])
    assert max(state.value("score", p) for p in range(2)) == 3
    assert "cards_kept" in verdicts.proven and ("invariant", "cards_kept") not in answers
    assert symbolic.bmc(system, 2, questions={("invariant", "cards_kept")})[("invariant", "cards_kept")].status == "bounded"
    won = answers[("reachable", "someone_wins")]
    shortest = vector.explore(loaded, Limits(symmetry=False))
    assert won.depth == len(shortest.path(shortest.reached["someone_wins"])) == 7
    assert won.status == "reached"
    state = loaded.replay([ids[c] for c in won.path])
    assert 2 in (state.value("Star", 0), state.value("Star", 1)) and state.is_terminal() and 1 in state.returns()


def test_deadlock_found_by_bmc_replays_and_induction_proves_the_counter_bounds(tmp_path):
    spec = Spec.find(str(write_spec(tmp_path, STUCK, name="stuck")))
    loaded = load(spec.path, players=1)
    system = fragment.build(configure(spec.model, 1, {}))
    stuck = symbolic.bmc(system, 5)[("deadlock",)]
    assert stuck.status == "found" and stuck.depth == 2
    assert loaded.replay([replay.action_ids(system, loaded)[c] for c in stuck.path]).is_stuck()
    report = check_spec(spec, PlayBounds(games=2, variant_games=0, max_steps=20))
    z3_deadlock = next(f for f in report.findings if f.id == "stuck/deadlock/z3")
    assert z3_deadlock.verdict == "refuted" and z3_deadlock.method == "z3-bmc" and len(z3_deadlock.witness) == 2
    assert z3_deadlock.fails


def test_k_induction_proves_what_holds_and_not_what_does_not(market):
    system = fragment.build(configure(market.model, 3, {}))
    verdicts = symbolic.verify(system, depth=6, budget=30)
    assert "cards_kept" in verdicts.proven
    assert "low_score" not in verdicts.proven
    assert verdicts.answers[("invariant", "low_score")].status == "refuted"


def test_token_model_proofs_and_deadlock_freedom():
    model = Spec.find(TOKENS).model
    for players in (2, 8):
        v = symbolic.verify(fragment.build(configure(model, players, {})), depth=8, budget=30)
        assert set(v.proven) == {"within_cap", "conserved"} and v.stuck_free == 1
    v = symbolic.verify(fragment.build(configure(model, 3, {})), depth=8, budget=30)
    assert list(v.unreachable) == ["supply_empty"] and v.unreachable["supply_empty"].k == 1  # three players hold at most 15 of the 30


def test_parametric_proof_for_every_player_count_and_a_broken_variant_is_not_proven(tmp_path):
    model = Spec.find(TOKENS).model
    proofs = parametric.prove(every_count(model, {}))
    assert proofs["within_cap"][0] and proofs["conserved"][0]
    assert "every number of players" in proofs["conserved"][1]
    text = Spec.find(TOKENS).text.replace("take 1 Chip by p", "take 1 Chip by p\n        add 1 to extra(p)")
    text = text.replace("zone box: set, public, initial", "zone box: set, public, initial\nvar extra per player: int = 0")
    checks = Spec.find(TOKENS).checks_text + (
        "\ninvariant extra_small \"At most the cap.\" : forall(p in players: extra(p) <= cap)\n"
        "invariant extra_sum \"Sum.\" : sum(p in players: extra(p)) >= 0\n")
    path = write_spec(tmp_path, text, name="tokens2", rulebook=Spec.find(TOKENS).rulebook_text, checks=checks)
    proofs = parametric.prove(every_count(Spec.find(str(path)).model, {}))
    assert proofs["within_cap"][0] and proofs["conserved"][0] and proofs["extra_sum"][0]
    assert not proofs["extra_small"][0]


def test_vectorized_explorer_matches_the_engine_explorer(market):
    for spec, players in ((Spec.find(TOKENS), 3), (Spec.find(TOKENS), 4), (market, 2)):
        loaded = load(spec.path, players=players)
        for symmetry in (False, True):
            limits = Limits(max_states=200_000, time_limit=60, symmetry=symmetry)
            a, b = explore(loaded, limits), vector.explore(loaded, limits)
            assert a.complete and b.complete and a.states == b.states and a.symmetry == b.symmetry
            assert set(a.violated) == set(b.violated) and set(a.reached) == set(b.reached)
            assert bool(a.deadlocks) == bool(b.deadlocks) and a.fired == b.fired
            assert sorted(len(a.path(i)) for i in a.terminal)[:1] == sorted(len(b.path(i)) for i in b.terminal)[:1]
            for name, index in b.violated.items():
                path = b.path(index)
                assert len(path) == len(a.path(a.violated[name]))  # both shortest
                state = loaded.replay(path)
                assert not dict((p.name, t) for p, t in loaded.properties("invariant"))[name](state)
            for name, index in b.reached.items():
                state = loaded.replay(b.path(index))
                assert dict((p.name, t) for p, t in loaded.properties("reachable"))[name](state)


def test_vectorized_explorer_on_the_benchmark_with_symmetry_and_a_budget():
    loaded = load(TOKENS, players=8)
    r = vector.explore(loaded, Limits(max_states=5000, time_limit=30))
    assert r.complete and r.states == 1205 and r.symmetry
    path = r.path(r.reached["supply_empty"])
    assert len(path) == 30 and loaded.replay(path).value("Chip") == 0
    r = vector.explore(loaded, Limits(max_states=1000, time_limit=30, symmetry=False))
    assert not r.complete and r.stopped_by == "states" and r.states == 1000


@pytest.mark.slow
def test_vectorized_explorer_counts_the_whole_benchmark():
    r = vector.explore(load(TOKENS, players=8), Limits(max_states=2_000_000, time_limit=600, symmetry=False,
                                                       keep_edges=False))
    assert r.complete and r.states == 1_656_626 and not r.violated and not r.deadlocks


def test_bundled_games_are_outside_the_fragment_and_named():
    chocobo, chucky = Spec.find("chocobo").model, Spec.find("chucky").model
    with pytest.raises(Unsupported, match=r"`rounds` statement at .*chocobo.rules:\d+:\d+"):
        fragment.build(configure(chocobo, 3, chocobo.default_options()))
    with pytest.raises(Unsupported, match="trigger"):
        fragment.build(configure(chucky, 1, chucky.default_options()))
    with pytest.raises(Unsupported):
        parametric.prove(every_count(chocobo, chocobo.default_options()))


@dataclasses.dataclass(frozen=True)
class FutureStatement(m.Stmt):
    """A model node from a later version of the language."""

    span: object = None


@dataclasses.dataclass(frozen=True)
class FutureExpr(m.Expr):
    type: m.Type = m.INT
    span: object = None


def test_unknown_model_nodes_are_unsupported_never_a_crash():
    model = Spec.find(TOKENS).model
    loop = model.flow.body[0]
    choose = loop.body[0]
    take = choose.actions[0]
    changed = dataclasses.replace(take, body=take.body + (FutureStatement(),))
    flow = dataclasses.replace(model.flow, body=(dataclasses.replace(
        loop, body=(dataclasses.replace(choose, actions=(changed, *choose.actions[1:])),)),))
    odd = dataclasses.replace(model, flow=flow)
    with pytest.raises(Unsupported, match="FutureStatement"):
        fragment.build(configure(odd, 2, {}))
    with pytest.raises(Unsupported, match="FutureStatement"):
        parametric.prove(every_count(odd, {}))
    prop = dataclasses.replace(model.properties[0], expr=FutureExpr())
    odd = dataclasses.replace(model, properties=(prop, *model.properties[1:]))
    with pytest.raises(Unsupported, match="FutureExpr"):
        fragment.build(configure(odd, 2, {}))


def test_a_solver_timeout_is_unknown_or_decided_never_a_crash():
    system = fragment.build(configure(Spec.find(TOKENS).model, 8, {}))
    answers = symbolic.bmc(system, 40, timeout_ms=1)
    assert all(a.status in ("bounded", "unreached", "none", "unknown", "reached") for a in answers.values())
    v = symbolic.verify(system, depth=40, timeout_ms=1, budget=0.5)
    assert v.seconds < 30


def test_check_reports_the_symbolic_methods_on_the_token_model():
    report = check_spec(Spec.find(TOKENS), PlayBounds(games=2, variant_games=0, max_steps=20, bmc_depth=6))
    by_id = {f.id: f for f in report.findings}
    for name in ("within_cap", "conserved"):
        assert by_id[f"tokens/invariant/{name}/z3"].verdict == "proven"
        assert by_id[f"tokens/invariant/{name}/z3"].method == "z3-k-induction"
        assert by_id[f"tokens/invariant/{name}/z3-parametric"].verdict == "proven"
    assert by_id["tokens/deadlock/z3"].verdict == "proven"
    reach = by_id["tokens/reachability/supply_empty/z3"]
    assert reach.verdict == "unknown" and reach.method == "z3-bmc" and reach.bound["bmc_depth"] == 6
    assert all(x["method"] == "vectorized" for x in report.stats["explored"])


def test_check_refutes_with_a_replayed_bmc_witness(market):
    report = check_spec(market, PlayBounds(games=2, variant_games=0, max_steps=20, bmc_depth=8))
    by_id = {f.id: f for f in report.findings}
    low = by_id["market/invariant/low_score/z3"]
    assert low.verdict == "refuted" and low.method == "z3-bmc" and len(low.witness) == 3 and low.fails
    assert by_id["market/invariant/cards_kept/z3"].verdict == "proven"
    wins = by_id["market/reachability/someone_wins/z3"]
    assert wins.verdict == "proven" and wins.witness
    unsupported = [f for f in check_spec(Spec.find("chucky"), PlayBounds(games=1, variant_games=0, max_steps=50,
                                                                          max_states=0)).findings
                   if f.id.startswith("chucky/invariant/z3-symbolic")]
    assert unsupported and unsupported[0].verdict == "unknown" and "does not cover" in unsupported[0].message



# ---- the counts abstraction (verify.segments): whole games, control flow forgotten ------------------

def _kept_values(system, loaded, state, kept) -> dict:
    """The engine state's values of the kept slots (variables, tokens, zone counts, the end flag)."""
    whole = terms.System(system.players, system.options, [system.slots[i] for i in kept],
                            [system.init[i] for i in kept], [])
    return dict(zip(kept, replay.abstract(whole, loaded, state)))


def _reachable_within(system, before: dict, after: dict, steps: int) -> bool:
    """Is `after` reached from `before` in at most `steps` steps of the abstract relation?"""
    rel = symbolic.Relation(system)
    solver = z3.Solver(ctx=budget.context())
    solver.set("timeout", 20_000)
    xs = rel.state("0")
    solver.add(*(xs[i] == v for i, v in before.items()))
    for t in range(steps + 1):
        if solver.check(*(xs[i] == v for i, v in after.items())) == z3.sat:
            return True
        ys = rel.state(str(t + 1))
        solver.add(rel.step(xs, ys, z3.Int(f"c{t}", ctx=budget.context())))
        xs = ys
    return False


@pytest.mark.parametrize("name, players, invariant", [
    ("chucky", 1, "fear_conserved"), ("chucky", 3, "wounds_bounded"),
    ("chocobo", 3, "tokens_within_rounds"), ("chocobo", 4, "tokens_conserved"),
    ("chuche", 2, "aktionskarten_erhalten")])
def test_engine_traces_are_sequences_of_abstract_steps(name, players, invariant):
    """Each engine step (a decision or a chance outcome) is one or more abstract steps (or none: a step
    that changes no kept slot), on the invariant's slice."""
    spec = Spec.find(name)
    loaded = load(spec.path, players=players)
    system = segments.build(configure(spec.model, players, loaded.options))
    sliced = segments.slice(system, invariant)
    kept = sorted(set(range(len(sliced.slots))) - sliced.free - {i for i, s in enumerate(sliced.slots)
                                                                  if s.key[0] == "unknown"})
    kept = [i for i in kept if i in segments.cone(sliced, sliced.invariants[invariant]) | {sliced.over}]
    moved = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = loaded.new_initial_state(seed=seed)
        for _ in range(60):
            if state.is_terminal() or not (state.is_chance_node() or state.legal_actions()):
                break
            before = _kept_values(sliced, loaded, state, kept)
            if state.is_chance_node():
                state.apply_action(state.sample_chance())
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            after = _kept_values(sliced, loaded, state, kept)
            if after != before:
                moved += 1
                assert _reachable_within(sliced, before, after, 6), (name, seed, before, after)
    assert moved > 0, "the traces never touched the invariant's slots: the test would prove nothing"


def test_counts_abstraction_proves_the_token_invariants_of_the_bundled_games():
    for name, players, proven in (("chucky", 2, ["fear_capped", "fear_conserved", "wounds_bounded"]),
                                  ("chocobo", 3, ["tokens_within_rounds", "tokens_conserved"])):
        game = Spec.find(name).model
        system = segments.build(configure(game, players, game.default_options()))
        for invariant in proven:
            status, k, _ = segments.decide(system, invariant, 4, 3, 5000, time.perf_counter() + 30)
            assert (status, k) == ("proven", 1), (name, invariant)


def _with_invariant(system, name, expr):
    out = dataclasses.replace(system, invariants={**system.invariants, name: expr})
    out.compiled["untracked"] = system.compiled.get("untracked", {})
    return out


def test_counts_abstraction_proofs_are_not_vacuous():
    """Injected false invariants (a lower cap than the one the rules keep; a supply that the first
    take changes) are never proven."""
    game = Spec.find("chucky").model
    system = segments.build(configure(game, 2, game.default_options()))
    held = ("s", system.index(("held", "Fear", 0)))
    supply = ("s", system.index(("supply", "Fear")))
    lower_cap = _with_invariant(system, "lower_cap", terms.compare("<=", held, terms.const(3)))
    untouched = _with_invariant(system, "untouched", terms.compare("==", supply, terms.const(25)))
    for sys_, name in ((lower_cap, "lower_cap"), (untouched, "untouched")):
        status, _, why = segments.decide(sys_, name, 6, 3, 5000, time.perf_counter() + 30)
        assert status == "unknown", name
        assert "no engine trace" in why


def test_counts_abstraction_names_what_it_does_not_record():
    game = Spec.find("chucky").model
    system = segments.build(configure(game, 1, game.default_options()))
    status, _, why = segments.decide(system, "one_card_per_place", 4, 3, 1000, time.perf_counter() + 5)
    assert status == "unknown" and "board" in why and "chucky.checks" in why


def test_check_reports_counts_abstraction_verdicts_and_never_refutes_with_them():
    from rulekit.checking.solving import segment_findings

    spec = Spec.find("chucky")
    game = spec.model
    found = {f.id: f for f in segment_findings(spec, game, game.default_options(), PlayBounds(symbolic_time_limit=60))}
    assert found["chucky/invariant/fear_capped/z3"].verdict == "proven"
    assert found["chucky/invariant/fear_conserved/z3"].verdict == "proven"
    assert "counts abstraction" in found["chucky/invariant/fear_capped/z3"].message
    assert all(f.verdict in ("proven", "bounded", "unknown") for f in found.values())
    assert found["chucky/invariant/ends_match_outcome/z3"].verdict in ("unknown", "bounded")


def test_a_set_of_cards_and_a_position_it_does_not_record_are_unknowns_of_the_counts_abstraction():
    """A chosen set of cards moved (Chuche's captures) moves any number of each kind, at most what the
    source holds; a position found by `the(...)` (Chicken's hens) is any position: both games now
    have an abstraction, and each of their invariants a verdict of it, never a refutation."""
    for name, players in (("chuche", 2), ("chicken", 2)):
        game = Spec.find(name).model
        system = segments.build(configure(game, players, game.default_options()))
        for invariant in segments.by_cost(system):
            status, _, why = segments.decide(system, invariant, 2, 1, 500, time.perf_counter() + 5)
            assert status in ("proven", "bounded", "unknown") and (status != "unknown" or why), (name, invariant)


def test_counts_abstraction_mixes_flags_and_numbers_without_z3_sort_errors():
    """Flags live in integer slots: `and`, `not` and comparisons over them must still type-check in Z3."""
    import time

    from rulekit.verify import segments

    model = Spec.find("cranky").model
    system = segments.build(configure(model, 4, model.default_options()))
    for name in segments.by_cost(system):
        status, _, _ = segments.decide(system, name, 2, 1, 200, time.perf_counter() + 0.5)
        assert status in ("proven", "bounded", "unknown")


def test_simplifying_within_bounds_keeps_what_a_command_assumes():
    """A command's assumptions on its inputs and its chance events survive the simplification that
    holds once every slot is proven within its bounds."""
    from rulekit.verify import terms

    slots = [terms.Slot(("var", "x", None), "x", 0, 3), terms.Slot(("input", 0), "in0", None, None),
             terms.Slot(("over",), "over", 0, 1)]
    assume = terms.compare("<=", ("s", 1), terms.const(2))
    command = terms.Command("step", 0, 0, (), terms.TRUE, terms.FALSE, {0: ("s", 1)}, assume=assume,
                            events=["an event"])
    system = terms.System(2, {}, slots, [0, 0, 0], [command], over=2, free=frozenset({1}), inexact=("a stack",))
    simpler = terms.within_bounds(system)
    assert simpler.commands[0].assume == assume and simpler.commands[0].events == ["an event"]
    assert simpler.free == system.free and simpler.inexact == system.inexact
