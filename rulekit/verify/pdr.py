"""Invariants proven by IC3/PDR: Z3's Spacer engine on a guarded-command system's Horn clauses.

k-induction proves a condition that is inductive on its own, or after k steps of it. Many are not: "at
most one player has reached the target" holds in every reachable state, yet a state where one player
has reached it in the middle of a turn, with another's score just below, steps to a state where two
have. Such a condition needs a strengthening (here: a player who has reached the target ends the game
at the end of that turn), which property-directed reachability (IC3/PDR, Bradley 2011; Spacer, Komuravelli
et al. 2014) finds by itself, lemma by lemma, from the states that would break it.

The system is written as constrained Horn clauses over one predicate `Inv` of the slots that change
(the inputs, the chance outcomes and values chosen, are quantified in each step):

    Inv(x)  <-  x is the initial state
    Inv(y)  <-  Inv(x) and step(x, y) and the facts already proven hold in x
    bad     <-  Inv(x) and not condition(x)

`bad` unreachable (Spacer's `unsat`) means Spacer found an inductive invariant that implies the
condition: the condition holds in every reachable state. `bad` reachable (`sat`) means some reachable
state breaks it, and Spacer says how many steps from the start its run takes; the caller still has to
show it by a witness (BMC's query at that depth, replayed in the engine) before it says so, as the
relation may over-approximate the game. Anything else is `unknown` with its reason.

Deterministic: Spacer gets a resource limit (Z3's `rlimit`) drawn from the budget's account, in a fresh
Z3 context, so the same spec gives the same verdicts on any machine; the wall-clock timeout is only the
budget's safety net.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from . import budget, isolated, terms
from .relation import Relation

# Resource units per configuration by default (`rulekit check --pdr-units`), shared by its conditions, and
# what one condition may spend when no account is given: the hardest proof among the examples and tests
# takes about 180,000.
DEFAULT_UNITS = 3_000_000


@dataclass
class Outcome:
    status: str  # "proven", "violated" or "unknown"
    reason: str = ""  # why unknown
    lemmas: int = 0  # conjuncts of the inductive invariant found, when proven
    units: int = 0  # Z3 resource units spent
    depth: int = 0  # when violated: the steps from the start of the run Spacer found to a state breaking it


# Distinct term nodes of a relation's commands above which Spacer is not tried: its preprocessing, which
# grows with the relation and which its resource limit does not count, then takes seconds per condition
# (minutes on a relation of 260,000 nodes), while the relations it proves things on are small (a few
# hundred nodes).
NODE_LIMIT = 20_000


# The wall-clock safety net of one condition, per million resource units it may spend: Spacer spends
# about 2 million a second on the relations it is tried on, but on some (a random game of the tests, 6,500
# term nodes) it loops where neither its resource limit, nor its timeout, nor an interrupt stops it, so it
# runs in a child process that the net kills.
SECONDS_PER_MILLION_UNITS = 3.0
LEAST_SECONDS = 3.0


def prove(system: terms.System, expr, timeout_ms: int, assume: list | None = None,
          units: int = DEFAULT_UNITS) -> Outcome:
    """Whether `expr` holds in every reachable state of `system`, by Spacer, within `units` resource units
    (and what the budget's account has left, if one is open); `assume` lists conditions already proven to
    hold in every reachable state, which every step may take for granted."""
    nodes = relation_size(system)
    if nodes > NODE_LIMIT:
        return Outcome("unknown", f"the relation is too large for IC3/PDR ({nodes:,} term nodes, above "
                                  f"{NODE_LIMIT:,})")
    acc = budget.account()
    limit = max(1, min(units, acc.left) if acc is not None else units)
    net = min(timeout_ms * budget.SAFETY_FACTOR / 1000,
              max(LEAST_SECONDS, SECONDS_PER_MILLION_UNITS * limit / 1_000_000))
    try:
        outcome = isolated.run(lambda: _spacer(system, expr, list(assume or ()), limit, net), net)
    except isolated.Stopped:
        outcome = Outcome("unknown", HUNG, units=limit)
    except isolated.Crashed as exc:
        outcome = Outcome("unknown", f"IC3/PDR (Z3 Spacer) crashed ({exc})", units=limit)
    else:
        if outcome.status == "unknown":
            outcome.reason = _why(outcome.reason, limit, acc, outcome.units)
    if acc is not None:
        acc.left -= outcome.units
    return outcome


# The reason of a condition whose Spacer run the safety net stopped: the conditions after it are not tried.
HUNG = ("IC3/PDR (Z3 Spacer) did not stop within its wall-clock safety net (the verdict depends on the "
        "machine)")


def _spacer(system: terms.System, expr, assume: list, limit: int, seconds: float) -> Outcome:
    with budget.fresh_context():
        fp = _clauses(system, expr, assume)
        fp.set("rlimit", limit)
        fp.set("timeout", max(1, int(seconds * 1000)))
        try:
            result = fp.query(z3.Bool("bad", ctx=budget.context()))
            reason = fp.reason_unknown() if result == z3.unknown else ""
        except z3.Z3Exception as exc:  # Spacer raises where a plain solver answers unknown
            result, reason = z3.unknown, (exc.value.decode() if isinstance(exc.value, bytes) else str(exc.value))
        spent = _units(fp)
        if result == z3.unsat:
            return Outcome("proven", lemmas=_conjuncts(fp), units=spent)
        if result == z3.sat:
            return Outcome("violated", units=spent, depth=_steps(fp))
        return Outcome("unknown", reason, units=spent)


def relation_size(system: terms.System) -> int:
    """The distinct term nodes of the system's commands (computed once per system)."""
    if "relation nodes" not in system.compiled:
        system.compiled["relation nodes"] = terms.size(*(x for c in system.commands
                                                         for x in (c.guard, c.error, c.assume, *c.updates.values())))
    return system.compiled["relation nodes"]


def prove_each(system: terms.System, conditions: dict, facts: list, timeout_ms: int, deadline: float | None,
               units: budget.Account) -> dict:
    """{name: Outcome} for `conditions` (name -> condition) in turn, each drawing on the account `units`
    and taking `facts` (proven) for granted, until the account or the wall-clock `deadline` (a safety
    net) runs out."""
    out = {}
    with budget.spending(units):
        for name, e in conditions.items():
            if units.empty or (deadline is not None and time.perf_counter() > deadline):
                break
            out[name] = prove(system, e, timeout_ms, assume=facts)
            if out[name].reason == HUNG:
                break
    return out


def _clauses(system: terms.System, expr, assume: list) -> z3.Fixedpoint:
    ctx = budget.context()
    rel = Relation(system)
    state = [i for i in rel.changing if i not in system.free]
    xs, ys = rel.state("x"), rel.state("y")
    inv = z3.Function("Inv", *([z3.IntSort(ctx)] * len(state)), z3.BoolSort(ctx))
    bad = z3.Bool("bad", ctx=ctx)
    choice = z3.Int("choice", ctx=ctx)
    now, after = [xs[i] for i in state], [ys[i] for i in state]
    inputs = [xs[i] for i in rel.changing if i in system.free]
    fp = z3.Fixedpoint(ctx=ctx)
    fp.set("engine", "spacer")
    fp.declare_var(*now, *after, *inputs, choice)
    fp.register_relation(inv, bad.decl())
    fp.rule(inv(*now), z3.And(*rel.initial(xs), ctx) if state else z3.BoolVal(True, ctx=ctx))
    fp.rule(inv(*after), [inv(*now), rel.step(xs, ys, choice), *(rel.cond(a, xs) for a in assume)])
    fp.rule(bad, [inv(*now), z3.Not(rel.cond(expr, xs))])
    return fp


def _units(fp: z3.Fixedpoint) -> int:
    stats = fp.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0


def _steps(fp: z3.Fixedpoint) -> int:
    """The steps of the run that reaches `bad`: the clauses along Spacer's trace are the query's, one step
    clause per step, and the initial state's (0 where Spacer gives no trace)."""
    try:
        return max(0, len(fp.get_rules_along_trace()) - 2)
    except z3.Z3Exception:
        return 0


def _conjuncts(fp: z3.Fixedpoint) -> int:
    """The lemmas of the invariant Spacer found for `Inv` (its answer: `bad` false, and Inv's definition)."""
    try:
        answer = fp.get_answer()
    except z3.Z3Exception:
        return 0
    count = 0
    stack = [answer]
    while stack:
        x = stack.pop()
        if z3.is_quantifier(x):
            stack.append(x.body())
        elif z3.is_and(x):
            stack.extend(x.children())
        elif z3.is_eq(x) and z3.is_app(x.arg(0)) and x.arg(0).decl().name() == "Inv":
            body = x.arg(1)
            count += len(body.children()) if z3.is_and(body) else 1
    return count


def _why(reason: str, limit: int, acc, spent: int) -> str:
    if "resource limit" in reason:
        if acc is not None and acc.left <= spent:
            return acc.reason()
        return f"IC3/PDR (Z3 Spacer) reached its resource limit ({limit:,} Z3 resource units)"
    if reason in ("canceled", "timeout"):
        return ("the wall-clock safety net fired (the machine was too slow or too busy for the resource limit; "
                "the verdict depends on the machine)")
    return f"IC3/PDR (Z3 Spacer): {reason or 'unknown'}"


__all__ = ["DEFAULT_UNITS", "HUNG", "NODE_LIMIT", "Outcome", "prove", "prove_each", "relation_size"]
