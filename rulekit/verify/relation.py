"""A guarded-command system's states and steps as Z3 terms: what BMC, k-induction, Houdini and IC3/PDR
(`verify.symbolic`, `verify.pdr`) are written over.

A state is one Z3 integer per slot that some command writes (the others are their initial value); a
step is the disjunction over commands of `choice == c and guard and not error and x' == update(x)`,
written once over placeholder states and instantiated for each pair of states.
"""
from __future__ import annotations

import z3

from . import budget, smtlib, terms

_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _bool(t):
    return t if z3.is_bool(t) else t != 0


def _int(t):
    return z3.If(t, z3.IntVal(1, ctx=budget.context()), z3.IntVal(0, ctx=budget.context())) if z3.is_bool(t) else t


def to_z3(x, slots: dict, memo: dict | None = None):
    """The Z3 term of an IR expression; `slots` maps slot indexes to terms."""
    memo = {} if memo is None else memo
    key = id(x)
    if key in memo:
        return memo[key][1]
    tag = x[0]
    if tag == "c":
        out = z3.IntVal(x[1], ctx=budget.context())
    elif tag == "b":
        out = z3.BoolVal(x[1], ctx=budget.context())
    elif tag == "s":
        out = slots[x[1]]
    elif tag == "neg":
        out = -to_z3(x[1], slots, memo)
    elif tag == "not":
        out = z3.Not(_bool(to_z3(x[1], slots, memo)))
    elif tag == "ite":
        then, orelse = to_z3(x[2], slots, memo), to_z3(x[3], slots, memo)
        if then.sort() != orelse.sort():
            then, orelse = _int(then), _int(orelse)
        out = z3.If(_bool(to_z3(x[1], slots, memo)), then, orelse)
    else:
        a, b = to_z3(x[1], slots, memo), to_z3(x[2], slots, memo)
        if tag in ("and", "or"):
            a, b = _bool(a), _bool(b)
        elif a.sort() != b.sort() or tag not in ("==", "!="):
            a, b = _int(a), _int(b)  # a flag kept in an integer slot is 0 or 1
        if tag == "and":
            out = z3.And(a, b)
        elif tag == "or":
            out = z3.Or(a, b)
        elif tag in _CMP:
            out = _CMP[tag](a, b)
        elif tag == "+":
            out = a + b
        elif tag == "-":
            out = a - b
        elif tag == "*":
            out = a * b
        elif tag == "min":
            out = z3.If(a <= b, a, b)
        elif tag == "max":
            out = z3.If(a >= b, a, b)
        elif tag == "div":  # the divisor is a positive constant: SMT-LIB div floors, as Python does
            out = a / b
        else:
            out = a % b
    memo[key] = (x, out)
    return out


class Relation:
    """The system's states and steps as Z3 terms."""

    def __init__(self, system: terms.System):
        self.system = system
        self.changing = sorted({i for c in system.commands for i in c.updates} | set(system.free))
        self.template = None

    def state(self, tag: str) -> dict:
        xs = {i: z3.IntVal(v, ctx=budget.context()) for i, v in enumerate(self.system.init)}
        for i in self.changing:
            # by index as well as name: two slots of one name would otherwise be one Z3 constant
            xs[i] = z3.Int(f"{self.system.slots[i].name}#{i}@{tag}", ctx=budget.context())
        return xs

    def initial(self, xs: dict) -> list:
        return [xs[i] == self.system.init[i] for i in self.changing if i not in self.system.free]

    def step(self, xs: dict, ys: dict, choice) -> z3.BoolRef:
        """One step: the chosen command is enabled, and each slot's next value is that command's update.
        The step is written once, over placeholder states, and instantiated for each pair of states."""
        if self.template is None:
            self.template = self._template()
        formula, pairs = self.template
        targets = {"x": xs, "y": ys}
        return z3.substitute(formula, *[(var, choice if side == "choice" else targets[side][i])
                                        for var, (side, i) in pairs])

    def _template(self):
        """(the step over placeholder constants, [(placeholder, (side, slot))]). Each slot's next value is
        one if-chain over the commands that change it, rather than a disjunction of whole successor
        states, which the solver would have to split case by case."""
        system = self.system
        n = len(system.slots)
        fixed = {i: terms.const(v) for i, v in enumerate(system.init) if i not in self.changing}
        choice = ("s", 2 * n)

        def pre(x):
            return terms.substitute(x, {i: v[1] for i, v in fixed.items()}) if fixed else x

        options = []
        for ci, c in enumerate(system.commands):
            parts = [pre(c.guard), pre(c.assume), terms.not_(pre(c.error))]
            options.append(terms.and_(terms.compare("==", choice, terms.const(ci)), *parts))
        frame = []
        for i in self.changing:
            if i in system.free:
                continue
            value = ("s", i)
            for ci in range(len(system.commands) - 1, -1, -1):
                update = system.commands[ci].updates.get(i)
                if update is not None:
                    value = terms.ite(terms.compare("==", choice, terms.const(ci)), pre(update), value)
            frame.append(terms.compare("==", ("s", n + i), value))
        step = terms.and_(terms.or_(*options), *frame)
        names = {i: f"x!{i}" for i in range(n)}
        names.update({n + i: f"y!{i}" for i in range(n)})
        names[2 * n] = "choice!"
        formula = smtlib.condition(step, names)
        pairs = [(z3.Int(f"x!{i}", ctx=budget.context()), ("x", i)) for i in self.changing]
        pairs += [(z3.Int(f"y!{i}", ctx=budget.context()), ("y", i)) for i in self.changing if i not in system.free]
        pairs.append((z3.Int("choice!", ctx=budget.context()), ("choice", 0)))
        return formula, pairs

    def cond(self, expr, xs: dict) -> z3.BoolRef:
        return to_z3(expr, xs)

    def stuck(self, xs: dict) -> z3.BoolRef:
        memo: dict = {}
        return z3.And(to_z3(("s", self.system.over), xs, memo) == 0,
                      *(z3.Not(to_z3(c.guard if c.enabled is None else c.enabled, xs, memo))
                        for c in self.system.commands))


__all__ = ["Relation", "to_z3"]
