"""The state before a step of a guarded-command system as Z3 integers, for the queries that ask what
one step can do (a ranking level, a candidate invariant).

A slot that no command changes keeps its first value and is replaced by it; the others and the inputs
are Z3 constants `x!i`, which a query may hold within their declared ranges (`within`). A model of a
query is read back as the slot values of one state (`values`).
"""
from __future__ import annotations

from . import budget
from . import terms as t


class StepVars:
    def __init__(self, system: t.System, changing):
        import z3

        self.system = system
        variable = sorted({*changing, system.over, *system.free})
        kept = set(variable)
        self.fixed = {i: v for i, v in enumerate(system.init) if i not in kept}
        self.names = {i: f"x!{i}" for i in variable}
        self.xs = {i: z3.Int(self.names[i], ctx=budget.context()) for i in variable}

    def pre(self, x):
        """Term `x` with the slots that never change replaced by their values."""
        return t.substitute(x, self.fixed) if self.fixed else x

    def within(self, slots) -> list:
        """Z3 conditions holding each of `slots` (indexes of changing slots) within its declared range."""
        import z3

        out = []
        for i in slots:
            s = self.system.slots[i]
            if i in self.xs and s.low is not None and s.high is not None:
                out.append(z3.And(self.xs[i] >= s.low, self.xs[i] <= s.high))
        return out

    def values(self, model) -> list[int]:
        """The slot values of the state a Z3 model gives."""
        values = [self.fixed.get(i, 0) for i in range(len(self.system.slots))]
        for i, x in self.xs.items():
            values[i] = model.eval(x, model_completion=True).as_long()
        return values


__all__ = ["StepVars"]
