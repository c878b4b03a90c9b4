"""Hints for syntax errors: what may stand where the parser stopped; the words of an unknown aggregate.

Lark's `expected` set is the LALR state's lookahead set, which merges every place a rule is used (after a
block, the declarations that may follow a procedure as well as the statements that may follow an `if`).
The interactive parser of the error tries each of those terminals and keeps the ones it really accepts;
the hint names them, and says "a statement", "a declaration" or "an expression" where every terminal that
may start one is accepted.
"""
from __future__ import annotations

from functools import lru_cache

from lark import Lark, UnexpectedInput

from . import vocabulary

_NO_ELIF = {"elif", "elsif", "elseif"}
# What a group of terminals is called in a hint, when every terminal that may start it may stand here.
_GROUPS = (("a statement", "stmt"), ("a declaration", "start"), ("an expression", "expr"))
_SHOWN = 10


def aggregate_message(name: str) -> tuple[str, str]:
    """(message, hint) for `NAME(x in ...)` where no aggregate NAME exists."""
    words = vocabulary.aggregate_words()
    if name in vocabulary.BUILTIN_FUNCTIONS:
        n = vocabulary.arity(name)
        message = (f"there is no aggregate '{name}': {name}({', '.join(vocabulary.BUILTIN_FUNCTIONS[name])}) is a "
                   f"function of {n} argument{'s' if n != 1 else ''}")
    else:
        message = f"there is no aggregate '{name}': the aggregates are {', '.join(repr(w) for w in words)}"
    return message, (f"aggregates: {vocabulary.describe_aggregates()}; "
                     f"built-in functions: {vocabulary.describe_functions()}")


@lru_cache(maxsize=4)
def _first_terminals(lark: Lark) -> dict[str, frozenset[str]]:
    """For each rule of the grammar, the terminals its text may start with."""
    rules = lark.rules
    first: dict[str, set[str]] = {r.origin.name: set() for r in rules}
    nullable: set[str] = set()
    changed = True
    while changed:
        changed = False
        for rule in rules:
            into = first[rule.origin.name]
            before = len(into)
            for sym in rule.expansion:
                if sym.is_term:
                    into.add(sym.name)
                    break
                into |= first.get(sym.name, set())
                if sym.name not in nullable:
                    break
            else:
                if rule.origin.name not in nullable:
                    nullable.add(rule.origin.name)
                    changed = True
            changed = changed or len(into) != before
    return {name: frozenset(terms) for name, terms in first.items()}


def _allowed(err: UnexpectedInput) -> set[str]:
    """The terminals that may really stand where the parser stopped."""
    expected = set(getattr(err, "expected", None) or getattr(err, "allowed", None) or ())
    interactive = getattr(err, "interactive_parser", None)
    if interactive is not None:
        try:
            return set(interactive.accepts())
        except Exception:  # noqa: BLE001 - a best-effort refinement: the lookahead set is still right
            return expected
    return expected


def expected_hint(err: UnexpectedInput, text: str, lark: Lark) -> str | None:
    allowed = _allowed(err)
    if not allowed:
        return None
    terms = {t.name: t for t in lark.terminals}
    first = _first_terminals(lark)
    groups = []
    for label, rule in _GROUPS:
        starts = first.get(rule, frozenset()) - {"$END"}
        if starts and starts <= allowed:
            groups.append(label)
            allowed -= starts
    words, classes = [], []
    for term_name in allowed - {"$END"}:
        term = terms.get(term_name)
        if term is not None and term.pattern.type == "str":
            words.append(repr(term.pattern.value))
        else:
            classes.append(term_name.lower())
    shown = groups + sorted(words) + sorted(classes) + (["the end of the file"] if "$END" in allowed else [])
    hint = "expected " + ", ".join(shown[:_SHOWN]) + (" ..." if len(shown) > _SHOWN else "")
    token = getattr(err, "token", None)
    if token is not None and str(token) in _NO_ELIF and "_ELSE" in allowed:
        hint = f"there is no '{token}': write `else if CONDITION {{ ... }}`; {hint}"
    return hint
