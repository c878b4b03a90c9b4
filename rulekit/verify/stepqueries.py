"""What one step of a command can do to a weighted sum of slots, asked of the update terms or of Z3.

The ranking search (`verify.ranking`) asks, for many sums and commands, whether a step can increase a
sum and whether it always decreases it. Each question is answered as cheaply as it can be:

1. a change seen in an earlier answer refutes it at once;
2. the shapes of the updates may decide it (`verify.changes`), with no query;
3. else Z3 decides it, over every state within the declared ranges (x!i before the step, y!i after).

A command is translated for Z3 only when a query first needs it: most commands, and most of the
branches and parts the search cuts them into, are settled by the shapes alone. A part of a command
(a branch of its updates, or its steps that lead to one location) is encoded from the command's own
encoding where that keeps Z3's work small, and otherwise with its updates simplified under its
condition, when it is first asked about.
"""
from __future__ import annotations

import dataclasses

from . import budget, locations, paths
from . import terms as t
from .changes import ChangeBounds, may_decrease_on_a_branch, weighted_high, weighted_low
from .stepvars import StepVars


@dataclasses.dataclass
class _Pending:
    """How a part of command `whole` is made: its branch where `condition` holds (or fails), with all its
    updates simplified under it when it is encoded; or, with `z3_condition`, the steps of `whole` where
    that Z3 condition (made from `whole`'s encoding) holds."""

    whole: t.Command
    condition: tuple | None = None
    holds: bool = True
    z3_condition: object = None  # a function of whole's encoding: the Z3 condition of the part


class StepQueries:
    """The commands of a system, the questions asked of their steps, and the changes {slot: change} of
    the steps that Z3 has shown, kept per command."""

    def __init__(self, system: t.System, changing: list, bounded: list, timeout_ms: int, assumed=()):
        self.system, self.bounded, self.timeout_ms, self.assumed = system, bounded, timeout_ms, list(assumed)
        n = len(system.slots)
        # A slot that never changes keeps its first value; the others and the inputs may hold anything
        # within their declared ranges (the bounded ones) or at all.
        self.state = StepVars(system, changing)
        self.fixed, self.xs = self.state.fixed, self.state.xs
        self.names = {**self.state.names, **{n + i: f"y!{i}" for i in bounded}}
        self.domain = self.state.within(bounded)
        self.moved: dict = {}  # per command: the bounded slots it updates
        self.seen: dict = {}
        self._kept: dict = {}  # per command: the command (so that no id is reused while it is asked about)
        self._pending: dict = {}  # per part not yet encoded: how it is made
        self._encoding: dict = {}  # per command: (when it can step, {slot: new value equation}, {slot: change})
        self._proven: set = set()  # (command, weights, bound) that `holds` has shown
        # the ranges a query holds the slots to (and the values of those that never change), for the
        # bounds read off the updates before any query
        ranges = {i: (system.slots[i].low, system.slots[i].high) for i in bounded}
        self.changes = ChangeBounds({**{i: (v, v) for i, v in self.fixed.items()}, **ranges})
        self.shapes = t.Shapes()

    def add(self, c: t.Command) -> t.Command:
        """Command c, to be asked about (encoded for Z3 when a query first needs it); returns c."""
        self._kept[id(c)] = c
        self.moved[id(c)] = [i for i in self.bounded if i in c.updates]
        self.seen.setdefault(id(c), [])
        return c

    # ---- parts of commands

    def branches(self, c: t.Command, slots: list[int]) -> list[t.Command]:
        """Command c split along the conditions its updates of `slots` branch on (`paths`), each branch
        with those updates (and where it leads, and whether it ends the game) simplified under its
        condition; a branch that surely ends the game is left out (it is on no endless play). Each is
        encoded with all its updates simplified: Z3 finds such a step far easier than c's with the
        condition added."""
        over, pc = self.system.over, locations.pc_slot(self.system)
        folded_slots = [*slots, over, *(() if pc is None else (pc,))]
        parts = [c]
        for condition in paths.deciding_conditions(c, slots, self.shapes, least=1):
            parts = [half for whole in parts for holds in (True, False)
                     if (half := self._branch(whole, condition, holds, folded_slots)) is not None]
        return [p for p in parts if p.updates.get(over) != t.const(1)]

    def _branch(self, c: t.Command, condition, holds: bool, slots: list[int]) -> t.Command | None:
        guard = t.and_(c.guard, condition if holds else t.not_(condition))
        if guard == t.FALSE:
            return None
        keys = [i for i in dict.fromkeys(slots) if i in c.updates]
        folded = t.assuming([c.updates[i] for i in keys], condition, holds, self.shapes)
        part = dataclasses.replace(c, guard=guard, updates={**c.updates, **dict(zip(keys, folded))}, enabled=None)
        self._pending[id(part)] = _Pending(c, condition, holds)
        return self.add(part)

    def restricted(self, part: t.Command, whole: t.Command, z3_condition) -> t.Command:
        """`part`, the steps of command `whole` where a Z3 condition holds: `z3_condition` is a function of
        `whole`'s encoding (when it can step, its new-value equations) that gives it. Encoded as
        `whole` with the condition added."""
        self._pending[id(part)] = _Pending(whole, z3_condition=z3_condition)
        return self.add(part)

    def new_value(self, c: t.Command, i: int):
        """The Z3 term of slot i's new value in command c's encoding."""
        return self._encoded(c)[1][i].arg(1)

    # ---- encoding

    def _encoded(self, c: t.Command) -> tuple:
        key = id(c)
        if key not in self._encoding:
            pending = self._pending.get(key)
            if pending is not None and pending.z3_condition is not None:
                import z3

                enabled, after, delta = self._encoded(pending.whole)
                self._encoding[key] = (z3.And(enabled, pending.z3_condition(self, pending.whole)), after, delta)
            else:
                self._encoding[key] = self._translated(self._whole_form(c))
        return self._encoding[key]

    def _whole_form(self, c: t.Command) -> t.Command:
        """Command c with every update simplified under the conditions of the branches it was cut from."""
        pending = self._pending.get(id(c))
        if pending is None or pending.condition is None:
            return c
        whole = self._whole_form(pending.whole)
        keys = list(whole.updates)
        guard, assume, error, *updates = t.assuming(
            [whole.guard, whole.assume, whole.error, *(whole.updates[i] for i in keys)],
            pending.condition, pending.holds, self.shapes)
        condition = pending.condition if pending.holds else t.not_(pending.condition)
        return dataclasses.replace(whole, guard=t.and_(guard, condition), assume=assume, error=error,
                                   updates=dict(zip(keys, updates)), enabled=None)

    def _translated(self, c: t.Command) -> tuple:
        """Command c for Z3 (see `smtlib`): when it can step, the equation of each moved slot's new value,
        and each moved slot's change."""
        import z3

        from . import smtlib

        system, n, pre = self.system, len(self.system.slots), self.state.pre
        parts = [pre(c.guard), pre(c.assume), t.compare("==", ("s", system.over), t.const(0)),
                 *map(pre, self.assumed)]
        if system.over in c.updates:  # a step that ends the game is on no infinite run
            parts.append(t.compare("==", pre(c.updates[system.over]), t.const(0)))
        if c.error != t.FALSE:
            parts.append(t.not_(pre(c.error)))
        moved = [i for i in self.bounded if i in c.updates]
        # Translated together, so that what the step and its slots' new values share is one Z3 node; a
        # query then states only the new values of the slots it weighs.
        enabled, *after = smtlib.conditions(
            [t.and_(*parts), *(t.compare("==", ("s", n + i), pre(c.updates[i])) for i in moved)], self.names)
        delta = {i: z3.Int(self.names[n + i], ctx=budget.context()) - self.xs[i] for i in moved}
        return enabled, dict(zip(moved, after)), delta

    # ---- questions

    def possible(self, c: t.Command) -> bool:
        """Whether command c can step at all within the declared bounds (unknown counts as possible);
        a step found is kept in `seen`."""
        import z3

        solver = budget.solver(self.timeout_ms, simplify=True)
        solver.add(*self.domain, self._encoded(c)[0])
        r = budget.check(solver)
        if r == z3.sat:
            self.seen[id(c)].append(self._changes(c, solver.model()))
        return r != z3.unsat

    def refuted(self, c: t.Command, weights: dict, bound: int) -> dict | None:
        """The changes of a step of command c seen so far whose weighted change exceeds bound, if any."""
        for changes in self.seen[id(c)]:
            if sum(weights.get(i, 0) * d for i, d in changes.items()) > bound:
                return changes
        return None

    def holds(self, c: t.Command, weights: dict, bound: int):
        """True when the weighted change of command c is <= bound in every state where it is enabled;
        else the changes of a step where it is not {slot: change}, or a string saying why unknown."""
        seen = self.refuted(c, weights, bound)
        if seen is not None:
            return seen
        if self.surely(c, weights, bound):
            return True
        key = (id(c), tuple(sorted((i, w) for i, w in weights.items() if w)), bound)
        if key not in self._proven:
            answer = self._asked(c, weights, bound)
            if answer is not True:
                return answer
            self._proven.add(key)  # the parts of the rules that can repeat ask it again
        return True

    def _asked(self, c: t.Command, weights: dict, bound: int):
        import z3

        enabled, after, delta = self._encoded(c)
        weighed = [i for i in delta if weights.get(i, 0)]
        change = z3.Sum([weights[i] * delta[i] for i in weighed] or [z3.IntVal(0, ctx=budget.context())])
        solver = budget.solver(self.timeout_ms, simplify=True)
        solver.add(*self.domain, enabled, *(after[i] for i in weighed), change > bound)
        r = budget.check(solver)
        if r == z3.unsat:
            return True
        if r == z3.unknown:
            return budget.unknown_reason(solver)
        changes = self._changes(c, solver.model())
        self.seen[id(c)].append(changes)
        return changes

    def surely(self, c: t.Command, weights: dict, bound: int) -> bool:
        """Whether the shapes of command c's updates alone show that its weighted change is <= bound
        (`verify.changes`): no query needed. `weights` are over bounded slots only."""
        high = weighted_high(self.changes, c.updates, weights)
        return high is not None and high <= bound

    def never_down(self, c: t.Command, weights: dict) -> bool:
        """Whether the shapes of command c's updates show that no step of it decreases the weighted sum."""
        low = weighted_low(self.changes, c.updates, weights)
        return low is not None and low >= 0

    def may_decrease_on_a_branch(self, c: t.Command, weights: dict) -> bool:
        return may_decrease_on_a_branch(self.changes, c.updates, weights)

    def _changes(self, c: t.Command, model) -> dict:
        """What the step of command c from the model's state and inputs changes, slot by slot (the
        model need not give the new values of slots that its query did not weigh)."""
        values = self.state.values(model)
        memo: dict = {}
        return {i: int(t.evaluate(c.updates[i], values, memo)) - values[i] for i in self.moved[id(c)]}


__all__ = ["StepQueries"]
