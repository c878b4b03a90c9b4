"""The statements a configuration leaves in the rules, and expressions read over an unknown state.

A configuration folds its options and player count into the rules, but a statement they rule out is
still there: a branch whose condition is false whatever the state, the branches after one whose
condition always holds, an action whose `when` is never true (an option's, say). The static analyses
(`kindflow`, `ranges`) read the rules through `statements`, so that what an option turns off does not
blur what they find.
"""
from __future__ import annotations

from .. import model as m
from . import Unsupported, budget
from .fragment import Store
from .terms import FALSE, TRUE


def statements(builder, stmts):
    """Every statement among `stmts` and below, but for those the configuration rules out whatever the
    state; `builder` (a `fragment.Builder`) reads the conditions."""
    for st in stmts:
        yield st
        if isinstance(st, m.If):
            for cond, body in st.branches:
                value = value_of(builder, cond, {})
                if value != FALSE:
                    yield from statements(builder, body)
                if value == TRUE:
                    break
            else:
                yield from statements(builder, st.orelse)
        elif isinstance(st, m.Choose):
            for action in st.actions:
                if action.when is None or value_of(builder, action.when, {}) != FALSE:
                    yield from statements(builder, action.body)
        else:
            for name in m.field_names(type(st)):
                inner = getattr(st, name)
                if isinstance(inner, tuple) and inner and isinstance(inner[0], m.Stmt):
                    yield from statements(builder, inner)


def everywhere(builder):
    """Every statement the configuration leaves in the flow, the procedures and the triggers."""
    for body in m.bodies(builder.g):
        yield from statements(builder, body)


def value_of(builder, expr, env: dict):
    """`expr` as a term over an unknown state, the locals in `env` given (None where the builder cannot
    read it): a constant when the rules fix it whatever the state."""
    store = Store([("s", i) for i in range(len(builder.slots))])
    try:
        return builder.ev(expr, store, dict(env))
    except budget.TooLarge:
        raise  # a limit that holds: the caller ends in an honest unknown
    except Unsupported:
        return None
