"""1-induction one command at a time, for a system too large to give Z3 as one step relation.

An invariant is 1-inductive when it holds initially and every command keeps it: from any state where
it holds and the command is enabled, it holds after the command. The step relation of `symbolic` asks
that of all commands at once (one formula, a choice among them), so its size is the sum of theirs,
and a large abstraction is not tried at all. Asked one command at a time, each query is the size of
one command and the slots it reads: the same proof, cut into pieces that each fit a query's limits.

Each query keeps what the whole system says of the slots: a slot that some command changes (or an
unknown) is any value, a slot that no command changes keeps its initial value. An invariant that is
not inductive alone may be with lemmas the caller offers (Houdini keeps those that are inductive
together with it); otherwise the answer is no proof, never a refutation.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from . import budget, replay
from .terms import System
from .terms import size as term_size


@dataclass
class Kept:
    """The answer for one invariant: `proven`, or why not (`why`), after `queries` Z3 queries."""
    proven: bool
    why: str = ""
    queries: int = 0
    timed_out: bool = False  # the wall-clock safety net stopped it


INVARIANT = "the invariant"  # its name among the candidates


def kept_by_each(system: System, expr, size_limit: int, timeout_ms: int, deadline: float | None = None,
                 lemmas: dict | None = None) -> Kept:
    """Whether `expr` holds in `system`'s initial state and each command, on its own, keeps it: alone
    first, then together with those of the candidate `lemmas` (name -> condition) that are inductive with
    it (Houdini: a lemma that holds initially, and that every command keeps where all the kept ones
    hold). A command larger than `size_limit` term nodes is not asked about (no proof); Z3's budget is
    `budget`'s, and `deadline` (a time on `time.perf_counter`) only a safety net."""
    if not replay.holds(system, expr, system.init):
        return Kept(False, "it does not hold before the set-up, where the abstraction starts")
    for index, command in enumerate(system.commands):
        nodes = term_size(command.guard, command.assume, command.error, *command.updates.values())
        if nodes > size_limit:
            return Kept(False, f"{_named(command, index, system)} alone is too large ({nodes:,} term nodes, "
                               f"above {size_limit:,})")
    changing = {i for c in system.commands for i in c.updates} | set(system.free)
    out = _houdini(system, changing, {INVARIANT: expr}, timeout_ms, deadline)
    starting = {name: e for name, e in (lemmas or {}).items() if replay.holds(system, e, system.init)}
    if out.proven or not starting or out.timed_out:
        return out
    # most invariants that are kept need no lemma, and a query without any is small: lemmas only now
    with_lemmas = _houdini(system, changing, {INVARIANT: expr, **starting}, timeout_ms, deadline)
    with_lemmas.queries += out.queries
    return with_lemmas


def _houdini(system: System, changing: set, alive: dict, timeout_ms: int, deadline: float | None) -> Kept:
    out = Kept(False)
    changed = True
    while changed:
        changed = False
        for index, command in enumerate(system.commands):
            if deadline is not None and time.perf_counter() > deadline:
                out.why, out.timed_out = "the time limit came first", True
                return out
            out.queries += 1
            broken = _broken(system, changing, command, alive, timeout_ms)
            if INVARIANT in broken:
                out.why = (f"{_named(command, index, system)} does not keep it"
                           + (f", even from states where the {len(alive) - 1} lemma(s) tried with it hold (it may "
                              "need another" if len(alive) > 1 else " (it may need a lemma")
                           + ", or Z3's budget ran out)")
                return out
            if broken:
                alive = {name: e for name, e in alive.items() if name not in broken}
                changed = True
    out.proven = True
    return out


def _named(command, index: int, system: System) -> str:
    """How a message names a command: its label (a segment and where it starts), else its place."""
    return f"rule {command.label}" if command.label else f"rule segment {index + 1} of {len(system.commands)}"


def _broken(system: System, changing: set, command, alive: dict, timeout_ms: int) -> set:
    """The names of `alive` that Z3 cannot show `command` keeps, from a state where all of them hold."""
    import z3

    from .relation import to_z3

    memo: dict = {}
    before = _Slots(system, changing, "x")
    after = _Slots(system, changing, "y", lambda i: to_z3(command.updates[i], before, memo)
                   if i in command.updates else None if i in system.free else before[i])
    s = budget.solver(timeout_ms)
    s.add(*(_term(e, before, memo) for e in alive.values()), _term(command.guard, before, memo),
          _term(command.assume, before, memo), z3.Not(_term(command.error, before, memo)))
    after_memo: dict = {}
    pending = {name: _term(e, after, after_memo) for name, e in alive.items()}
    broken: set = set()
    # Houdini's query: is any of them broken? A model names some that are; ask again about the others.
    while pending:
        try:
            answer = budget.check(s, z3.Or(*(z3.Not(t) for t in pending.values())))
            if answer == z3.unsat:
                break
            model = s.model() if answer == z3.sat else None
        except z3.Z3Exception:
            model = None
        found = set() if model is None else {name for name, t in pending.items()
                                             if z3.is_false(model.eval(t, model_completion=True))}
        if not found:  # undecided together: each asked on its own
            return broken | {name for name, t in pending.items() if not _shown(s, t)}
        broken |= found
        pending = {name: t for name, t in pending.items() if name not in found}
    return broken


def _shown(s, term) -> bool:
    import z3

    try:
        return budget.check(s, z3.Not(term)) == z3.unsat
    except z3.Z3Exception:
        return False


def _term(x, slots: dict, memo: dict):
    """The Z3 condition of `x` (an integer is true where it is not zero)."""
    import z3

    from .relation import to_z3

    term = to_z3(x, slots, memo)
    return term if z3.is_bool(term) else term != 0


class _Slots(dict):
    """Slot index -> Z3 term, made when first read: `given(i)` where it gives one (a state after a step
    reads the step's update), else a constant of its own for a slot that changes (or an unknown, read
    afresh), else the slot's initial value."""

    def __init__(self, system: System, changing: set, tag: str, given=None):
        super().__init__()
        self.system, self.changing, self.tag, self.given = system, changing, tag, given

    def __missing__(self, i: int):
        import z3

        term = self.given(i) if self.given is not None else None
        if term is None:
            ctx = budget.context()
            term = (z3.Int(f"{self.system.slots[i].name}#{i}@{self.tag}", ctx=ctx) if i in self.changing
                    else z3.IntVal(self.system.init[i], ctx=ctx))
        self[i] = term
        return term
