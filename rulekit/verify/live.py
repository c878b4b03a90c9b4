"""The statements a configuration leaves in the rules, and expressions read over an unknown state.

A configuration folds its options and player count into the rules (a condition they decide becomes a
constant), but a statement they rule out is still there: a branch whose condition is the constant
false, the branches after one whose condition is the constant true, an action whose `when` is false.
The static analyses (`kindflow`, `ranges`) read the rules through `statements`, so that what an option
turns off does not blur what they find.
"""
from __future__ import annotations

import weakref

from .. import model as m
from . import Unsupported, budget
from .fragment import Store


def statements(stmts):
    """Every statement among `stmts` and below, but for those the configuration rules out."""
    for st in stmts:
        yield st
        if isinstance(st, m.If):
            for cond, body in st.branches:
                if _constant(cond) is not False:
                    yield from statements(body)
                if _constant(cond) is True:
                    break
            else:
                yield from statements(st.orelse)
        elif isinstance(st, m.Choose):
            for action in st.actions:
                if action.when is None or _constant(action.when) is not False:
                    yield from statements(action.body)
        else:
            for name in m.field_names(type(st)):
                inner = getattr(st, name)
                if isinstance(inner, tuple) and inner and isinstance(inner[0], m.Stmt):
                    yield from statements(inner)


def everywhere(game: m.Game):
    """Every statement a configuration's game (`Config.game`) leaves in the flow, the procedures and the
    triggers."""
    for body in m.bodies(game):
        yield from statements(body)


def _constant(cond):
    """True or False where the configuration decided the condition, else None."""
    return bool(cond.value) if isinstance(cond, m.Const) else None


_UNKNOWN_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # builder -> its unknown state


def value_of(builder, expr, env: dict):
    """`expr` as a term over an unknown state, the locals in `env` given (None where the builder cannot
    read it): a constant when the rules fix it whatever the state."""
    # The slots of the state are laid out when the builder is made; the unknowns it adds later are
    # terms of their own, never read from the store. One store per builder, copied for each read (an
    # expression may call a procedure that writes), spares a tuple per slot per read.
    unknown = _UNKNOWN_STATES.get(builder)
    if unknown is None:
        unknown = _UNKNOWN_STATES[builder] = Store([("s", i) for i in range(len(builder.slots))])
    try:
        return builder.ev(expr, unknown.copy(), dict(env))
    except budget.TooLarge:
        raise  # a limit that holds: the caller ends in an honest unknown
    except Unsupported:
        return None
