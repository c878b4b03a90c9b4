"""Bounded model checking, k-induction and Houdini over the symbolic transition relation of a configuration.

The relation (`verify.relation`) is read off a `terms.System` (itself derived from the model, never
written per game). The choice variable of each step names the command, so a satisfying assignment is a
witness: a sequence of engine actions, which the caller replays in the engine before reporting it.

- `bmc`: from the initial state, step by step up to a depth, looks for a state breaking each invariant,
  meeting each reachability target, or stuck (not over, no command enabled). Each answer is shortest.
- `k_induction`: proves that a condition holds in every reachable state: if it holds in k consecutive
  states linked by the relation, it holds in the next (the base case is BMC to depth k - 1).
  Conditions already proven may be assumed in every state of the step case.
- `verify` runs them in turn with IC3/PDR (`verify.pdr`) for what induction leaves; `past_bmc` turns a
  violation IC3/PDR finds deeper than BMC looked into a witness, by one query at its depth.

Every query has a time limit; a timeout or a Z3 error is `unknown`, never a crash.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import z3

from . import budget, pdr, replay
from .budget import Account  # `verify` names its time budget `budget`
from . import terms
from .relation import Relation


@dataclass
class Answer:
    """`status`: for an invariant, refuted / bounded / unknown; for a target, reached / unreached /
    unknown; for deadlocks, found / none / unknown. `path` lists command indexes from the start."""

    status: str
    depth: int = 0
    path: list[int] = field(default_factory=list)
    reason: str = ""
    states: list = field(default_factory=list)  # the slot values before each step of `path` (inputs too)
    by: str = "bmc"  # "pdr": a violation IC3/PDR found past BMC's depth, its witness a query at that depth


def _solver(timeout_ms: int) -> z3.Solver:
    return budget.solver(timeout_ms)


def bmc(system: terms.System, depth: int, timeout_ms: int = 5000, deadline: float | None = None,
        questions: set | None = None, assume: list | None = None, deepen: budget.Account | None = None) -> dict:
    """Answers keyed ('invariant', name), ('reachable', name) and ('deadlock',), each shortest.

    `questions` restricts the keys asked; `assume` lists conditions proven to hold in every reachable
    state (1-inductive lemmas, whose base case is the initial state): asserting them in every unrolled
    state prunes the search without changing any answer. With `deepen`, the queries past the first step
    draw on that account, and the search stops deepening once it is spent. An `unknown` answer's depth
    is the last depth decided for its question (every shallower query said no), -1 where none was."""
    run = _Unrolling(system, timeout_ms, deadline, questions, list(assume or ()), deepen)
    with contextlib.ExitStack() as deepening:
        reached = run.unroll(depth, deepening)
    out = dict(run.found)
    for key, (reason, at) in run.unknown.items():
        out[key] = Answer("unknown", at - 1, reason=reason)
    quiet = {"invariant": "bounded", "reachable": "unreached", "deadlock": "none"}
    for key in run.open:
        out[key] = Answer(quiet[key[0]], reached)
    return out


class _Unrolling:
    """BMC's unrolled relation, one state per step from the start, and its questions: those still open
    (each a goal over a state), those answered (`found`), and those Z3 left undecided (`unknown`: the
    reason and the depth it was asked at)."""

    def __init__(self, system: terms.System, timeout_ms: int, deadline: float | None, questions: set | None,
                 lemmas: list, deepen: budget.Account | None):
        self.system, self.deadline, self.lemmas, self.deepen = system, deadline, lemmas, deepen
        self.rel = Relation(system)
        self.solver = _solver(timeout_ms)
        self.states = [self.rel.state("0")]
        self.choices: list = []
        self.solver.add(*self.rel.initial(self.states[0]))
        rel = self.rel
        open_ = {("invariant", k): (lambda xs, e=e: z3.Not(rel.cond(e, xs))) for k, e in system.invariants.items()}
        open_.update({("reachable", k): (lambda xs, e=e: rel.cond(e, xs)) for k, e in system.targets.items()})
        open_[("deadlock",)] = rel.stuck
        self.open = open_ if questions is None else {k: v for k, v in open_.items() if k in questions}
        self.found: dict = {}
        self.unknown: dict = {}

    def unroll(self, depth: int, deepening: contextlib.ExitStack) -> int:
        """BMC's steps from the start, each one deeper, until `depth` or no open question; the depth reached.
        From the second step on, the queries draw on `deepen` (entered into `deepening`), if given."""
        solver, deepen = self.solver, self.deepen
        reached = -1
        for t in range(depth + 1):
            if deepen is not None and t == 2:
                deepening.enter_context(budget.spending(deepen))
            before = budget.units_spent(solver)
            self.ask_at(t)
            last = budget.units_spent(solver) - before  # what this step's queries took
            if not self.open or t == depth:
                reached = t
                break
            # A step costs at least what the one before it did: one the account cannot pay is not unrolled.
            if deepen is not None and t >= 1 and deepen.left < max(1, last):
                for key in self.open:
                    self.unknown[key] = (deepen.reason() if deepen.empty else
                                         f"the next step would cost more than the {deepen.left:,} Z3 resource "
                                         "units left for going deeper", t + 1)
                self.open.clear()
                reached = t
                break
            if self.deadline is not None and time.perf_counter() > self.deadline:
                reached = t
                break
            self.step(t)
            reached = t
        return reached

    def ask_at(self, t: int) -> None:
        """Every open question at state `t`: answered where Z3 finds a model, left open where it shows
        there is none, undecided where it cannot tell."""
        solver, xs, open_ = self.solver, self.states[t], self.open
        for lemma in self.lemmas:
            solver.add(self.rel.cond(lemma, xs))
        # All open questions at once first: at most depths nothing is found, and one query says so.
        batch = _ask(solver, [goal(xs) for goal in open_.values()]) if len(open_) > 1 else None
        while batch is not None and open_:
            r, _ = batch
            if r != z3.sat:
                break
            model = solver.model()
            hits = [key for key, goal in open_.items() if z3.is_true(model.eval(goal(xs), model_completion=True))]
            for key in hits:
                self.found[key] = _answer(key, t, model, self.choices, self.states, self.system)
                del open_[key]
            batch = _ask(solver, [goal(xs) for goal in open_.values()]) if len(open_) > 1 else None
        if batch is not None and batch[0] == z3.unsat:
            return
        for key, goal in list(open_.items()):
            if self.deadline is not None and time.perf_counter() > self.deadline:
                self.unknown[key] = ("the wall-clock safety net of BMC fired (the verdict depends on the machine)", t)
                del open_[key]
                continue
            try:
                r = budget.check(solver, goal(xs))
            except z3.Z3Exception as exc:
                r, solver_reason = z3.unknown, str(exc)
            else:
                solver_reason = budget.unknown_reason(solver) if r == z3.unknown else ""
            if r == z3.sat:
                self.found[key] = _answer(key, t, solver.model(), self.choices, self.states, self.system)
                del open_[key]
            elif r == z3.unknown:
                self.unknown[key] = (solver_reason or "Z3: unknown", t)
                del open_[key]

    def step(self, t: int) -> None:
        """The relation unrolled one step further, from state `t`."""
        choice = z3.Int(f"choice@{t}", ctx=budget.context())
        nxt = self.rel.state(str(t + 1))
        self.solver.add(self.rel.step(self.states[t], nxt, choice))
        self.choices.append(choice)
        self.states.append(nxt)


def _ask(solver, goals: list):
    """(result, reason) of one query for any of `goals`."""
    try:
        r = budget.check(solver, z3.Or(*goals))
    except z3.Z3Exception as exc:
        return z3.unknown, str(exc)
    return r, budget.unknown_reason(solver) if r == z3.unknown else ""


def _answer(key, depth: int, model, choices: list, states: list, system: terms.System) -> Answer:
    """The answer to a question that the model meets at `depth`: its path and the states along it."""
    path = [model.eval(c, model_completion=True).as_long() for c in choices]
    values = [[model.eval(xs[i], model_completion=True).as_long() for i in range(len(system.slots))]
              for xs in states[:len(path)]]
    status = {"invariant": "refuted", "reachable": "reached", "deadlock": "found"}[key[0]]
    return Answer(status, depth, path, states=values)


def k_induction(system: terms.System, expr, max_k: int = 3, timeout_ms: int = 5000, assume: list | None = None,
                stuck_free: bool = False) -> tuple[str, int, str]:
    """("proven", k, "") when `expr` (or, with `stuck_free`, "not stuck") is k-inductive for some
    k <= max_k, relative to the conditions `assume` (already proven invariants); else ("unknown", 0, why).
    The base case is the caller's: BMC to depth k - 1 at least."""
    rel = Relation(system)
    reason = "not k-inductive"
    for k in range(1, max_k + 1):
        solver = _solver(timeout_ms)
        states = [rel.state(f"k{i}") for i in range(k + 1)]

        def prop(xs):
            return z3.Not(rel.stuck(xs)) if stuck_free else rel.cond(expr, xs)

        for i in range(k):
            solver.add(rel.step(states[i], states[i + 1], z3.Int(f"choice@k{i}", ctx=budget.context())))
            solver.add(prop(states[i]))
        for xs in states:
            for a in assume or ():
                solver.add(rel.cond(a, xs))
        solver.add(z3.Not(prop(states[k])))
        try:
            r = budget.check(solver)
        except z3.Z3Exception as exc:
            return "unknown", 0, f"Z3: {exc}"
        if r == z3.unsat:
            return "proven", k, ""
        if r == z3.unknown:
            return "unknown", 0, budget.unknown_reason(solver)
        reason = f"not k-inductive for k <= {max_k}"
    return "unknown", 0, reason


def houdini(system: terms.System, candidates: dict, timeout_ms: int = 5000, deadline: float | None = None) -> dict:
    """The largest subset of `candidates` (name -> condition) that holds initially and is inductive
    together: each one holds after any step from a state where all of them hold. Every member holds
    in every reachable state. A candidate the solver cannot decide is dropped."""
    alive = {k: e for k, e in candidates.items() if replay.holds(system, e, system.init)}
    rel = Relation(system)
    while alive:
        solver = _solver(timeout_ms)
        xs, ys = rel.state("h0"), rel.state("h1")
        solver.add(rel.step(xs, ys, z3.Int("choice@h", ctx=budget.context())))
        solver.add(*(rel.cond(e, xs) for e in alive.values()))
        dropped = []
        for name, e in alive.items():
            if deadline is not None and time.perf_counter() > deadline:
                return {}
            try:
                r = budget.check(solver, z3.Not(rel.cond(e, ys)))
            except z3.Z3Exception:
                r = z3.unknown
            if r != z3.unsat:
                dropped.append(name)
        if not dropped:
            break
        for name in dropped:
            del alive[name]
    return alive


def bound_lemmas(system: terms.System) -> dict:
    """Candidate lemmas: each changing slot within its declared bounds."""
    out = {}
    for i in sorted({i for c in system.commands for i in c.updates} - set(system.free)):
        slot = system.slots[i]
        if slot.low is not None:
            out[f"{slot.name} >= {slot.low}"] = (">=", ("s", i), ("c", slot.low))
        if slot.high is not None:
            out[f"{slot.name} <= {slot.high}"] = ("<=", ("s", i), ("c", slot.high))
    return out


class Proof(NamedTuple):
    """How a condition was proven to hold in every reachable state."""

    k: int  # the k of a k-induction proof; 0 for one by IC3/PDR
    lemmas: int  # conditions proven alongside (induction), or the lemmas of the invariant found (IC3/PDR)
    method: str = "k-induction"  # or "pdr"


@dataclass
class Verdicts:
    """What the symbolic methods decided for one configuration."""

    proven: dict = field(default_factory=dict)  # invariant name -> Proof
    unreachable: dict = field(default_factory=dict)  # target name -> Proof (of its negation)
    stuck_free: int = 0  # k when "no deadlock" is proven by k-induction, else 0
    stuck_free_pdr: Proof | None = None  # its proof by IC3/PDR, where k-induction gave none
    answers: dict = field(default_factory=dict)  # BMC answers, as `bmc` returns them
    depth: int = 0
    lemmas: int = 0
    seconds: float = 0.0
    notes: list = field(default_factory=list)


def verify(system: terms.System, depth: int = 20, max_k: int = 3, timeout_ms: int = 5000,
           budget: float = 10.0, pdr_units: int = pdr.DEFAULT_UNITS) -> Verdicts:
    """Induction first (Houdini over the invariants, the negated targets and the slot bounds; then
    k-induction up to `max_k` relative to what Houdini proved), then IC3/PDR for the invariants left,
    then BMC up to `depth` for whatever is left, with the lemmas proven assumed in every state, and last
    IC3/PDR for the targets BMC did not reach. A k-induction proof with k > 1 counts only when BMC has
    checked its base case (depth k - 1 without a violation). IC3/PDR gets `pdr_units` Z3 resource units
    in all (0: none)."""
    start = time.perf_counter()
    deadline = start + budget
    out = Verdicts()
    candidates = {("invariant", k): e for k, e in system.invariants.items()}
    candidates.update({("unreachable", k): terms.not_(e) for k, e in system.targets.items()})
    candidates.update({("bound", k): e for k, e in bound_lemmas(system).items()})
    lemmas = houdini(system, candidates, timeout_ms, deadline)
    out.lemmas = len(lemmas)
    if all(("bound", k) in lemmas for k in bound_lemmas(system)):
        # Every reachable state is within bounds, and so is every state the step cases assume:
        # there the simpler commands are exact.
        system = terms.within_bounds(system)
        out.notes.append("every slot proven within its declared bounds")
    for key in lemmas:
        if key[0] == "invariant":
            out.proven[key[1]] = Proof(1, len(lemmas) - 1)
        elif key[0] == "unreachable":
            out.unreachable[key[1]] = Proof(1, len(lemmas) - 1)
    facts = [e for key, e in lemmas.items() if key[0] in ("invariant", "bound")]
    pending_k = {}
    for name, e in system.invariants.items():
        if name in out.proven or time.perf_counter() > deadline:
            continue
        status, k, _ = k_induction(system, e, max_k, timeout_ms, assume=facts)
        if status == "proven":
            pending_k[name] = k
    if time.perf_counter() < deadline:
        status, k, _ = k_induction(system, None, max_k, timeout_ms, assume=facts, stuck_free=True)
        if status == "proven":
            out.stuck_free = k
    pdr_spent = Account(pdr_units)  # shared by the invariants now and the targets and deadlocks after BMC
    left = {name: e for name, e in system.invariants.items() if name not in out.proven and name not in pending_k}
    tried = pdr.prove_each(system, left, facts, timeout_ms, deadline, pdr_spent)
    for name, proof in proofs(tried).items():
        out.proven[name] = proof
        facts.append(system.invariants[name])  # proven: BMC may take it for granted too
    questions = {("invariant", k) for k in system.invariants if k not in out.proven}
    questions |= {("reachable", k) for k in system.targets if k not in out.unreachable}
    if not out.stuck_free or out.stuck_free > 1:
        questions.add(("deadlock",))
    out.answers = bmc(system, depth, timeout_ms, deadline, questions, facts) if questions else {}
    checked = min((a.depth for a in out.answers.values()), default=depth)
    out.depth = checked if out.answers else depth
    for name, k in pending_k.items():
        a = out.answers.get(("invariant", name))
        if a is not None and a.status == "bounded" and a.depth >= k - 1:
            out.proven[name] = Proof(k, len(facts))
    past_bmc(system, {("invariant", name): o for name, o in tried.items()}, out.answers, facts, timeout_ms)
    unreached = {name: terms.not_(e) for name, e in system.targets.items() if name not in out.unreachable
                 and out.answers.get(("reachable", name), Answer("unknown")).status != "reached"}
    tried = pdr.prove_each(system, unreached, facts, timeout_ms, deadline, pdr_spent)
    out.unreachable.update(proofs(tried))
    past_bmc(system, {("reachable", name): o for name, o in tried.items()}, out.answers, facts, timeout_ms)
    a = out.answers.get(("deadlock",))
    if out.stuck_free > 1 and not (a is not None and a.status == "none" and a.depth >= out.stuck_free - 1):
        out.stuck_free = 0
    if not out.stuck_free and (a is None or a.status != "found"):
        out.stuck_free_pdr = stuck_free_by_pdr(system, facts, timeout_ms, deadline, pdr_spent, out.answers)
    out.seconds = time.perf_counter() - start
    return out


def stuck_free_by_pdr(system: terms.System, facts: list, timeout_ms: int, deadline: float | None,
                      units: budget.Account, answers: dict | None = None) -> Proof | None:
    """The proof by IC3/PDR that no reachable state is stuck (`terms.System.not_stuck`), if it finds one;
    where it finds a stuck state instead, past what BMC decided in `answers`, its witness goes there."""
    tried = pdr.prove_each(system, {"deadlock": system.not_stuck()}, facts, timeout_ms, deadline, units)
    if answers is not None and "deadlock" in tried:
        past_bmc(system, {("deadlock",): tried["deadlock"]}, answers, facts, timeout_ms)
    return proofs(tried).get("deadlock")


def proofs(outcomes: dict) -> dict:
    """{name: Proof} of the IC3/PDR outcomes that are proofs."""
    return {name: Proof(0, o.lemmas, "pdr") for name, o in outcomes.items() if o.status == "proven"}


_FOUND = {"invariant": "refuted", "reachable": "reached", "deadlock": "found"}


def past_bmc(system: terms.System, outcomes: dict, answers: dict, facts: list, timeout_ms: int) -> None:
    """For each question (BMC's key) whose IC3/PDR outcome is a violation that BMC did not find, a witness
    at the depth of Spacer's run, by one BMC query there, put in `answers` (marked as found by IC3/PDR)."""
    for key, outcome in outcomes.items():
        a = answers.get(key)
        if outcome.status != "violated" or outcome.depth <= 0 or (a is not None and a.status == _FOUND[key[0]]):
            continue
        found = witness_at(system, key, outcome.depth, timeout_ms, facts)
        if found is not None:
            answers[key] = found


def witness_at(system: terms.System, key: tuple, depth: int, timeout_ms: int, facts: list) -> Answer | None:
    """A run of `depth` steps from the start to a state that answers BMC's question `key` (an invariant
    broken, a target met, a stuck state), by one query at that depth; None where Z3 finds none within
    its resource limit."""
    run = _Unrolling(system, timeout_ms, None, {key}, list(facts), None)
    for t in range(depth):
        run.solver.add(*(run.rel.cond(fact, run.states[t]) for fact in facts))
        run.step(t)
    run.ask_at(depth)
    found = run.found.get(key)
    if found is not None:
        found.by = "pdr"
    return found
