"""Terms to Z3 through SMT-LIB text: a large term, built once, in a fraction of the time that Z3's Python
API takes node by node.

A relation's step can hold hundreds of thousands of nodes; making each one a Python Z3 object costs
several microseconds. Here the term DAG becomes one SMT-LIB formula, each shared node bound once by a
`let`, which Z3 parses in C++. The meaning is exactly that of `symbolic.to_z3`: a condition kept in an
integer is true when nonzero, a flag used as a number is 0 or 1, and `div`/`mod` floor (their divisor is
a positive constant).
"""
from __future__ import annotations

import z3

from . import budget
from .terms import is_bool

_OPS = {"+": "+", "-": "-", "*": "*", "div": "div", "mod": "mod", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
        "==": "=", "and": "and", "or": "or"}


def _bool_of(x) -> bool:
    return is_bool(x)


def condition(x, names: dict) -> z3.BoolRef:
    """The Z3 condition of term `x`; `names` maps slot indexes to the names of Z3 integer constants."""
    text, shared, used = _translate([x], names)
    body = "".join([*(f"(let (({name} {value})) " for name, value, _ in shared), _as_bool(x, text[id(x)]),
                    ")" * len(shared)])
    return z3.And(*z3.parse_smt2_string(f"{_declarations(used)}(assert {body})", ctx=budget.context()))


def conditions(xs: list, names: dict) -> list:
    """The Z3 conditions of the terms `xs`, in order, translated together: a node they share is
    written once (a `define-fun`) and is one Z3 node in all of them."""
    if not xs:
        return []
    text, shared, used = _translate(xs, names)
    defined = "".join(f"(define-fun {name} () {'Bool' if boolean else 'Int'} {value})"
                      for name, value, boolean in shared)
    asserted = "".join(f"(assert {_as_bool(x, text[id(x)])})" for x in xs)
    return list(z3.parse_smt2_string(f"{_declarations(used)}{defined}{asserted}", ctx=budget.context()))


def _translate(roots: list, names: dict) -> tuple[dict, list, set]:
    """SMT-LIB text for each node of `roots` (by id); the nodes used more than once, as (name, text,
    whether it is a condition), to be bound in that order before use; the names of the constants used."""
    counts: dict = {}
    order: list = []
    used: set = set()
    stack = [(x, False) for x in reversed(roots)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            order.append(node)
            continue
        if key in counts:
            counts[key] += 1
            continue
        counts[key] = 1
        stack.append((node, True))
        if node[0] == "s":
            used.add(names[node[1]])
        elif node[0] not in ("c", "b"):
            for child in node[1:]:
                stack.append((child, False))
    text: dict = {}
    shared: list = []
    for node in order:
        out = _node(node, text, names)
        if counts[id(node)] > 1 and node[0] not in ("c", "b", "s"):
            name = f"t{len(shared)}"
            shared.append((name, out, _bool_of(node)))
            out = name
        text[id(node)] = out
    return text, shared, used


def _declarations(used: set) -> str:
    # Declared in the text, not as Python objects (Z3 checks each of those, a relation has thousands):
    # a constant is its name and sort, so these are the very constants that other terms name.
    return "".join(f"(declare-fun {n} () Int)" for n in sorted(used))


def _as_int(node, t: str) -> str:
    return f"(ite {t} 1 0)" if _bool_of(node) else t


def _as_bool(node, t: str) -> str:
    return t if _bool_of(node) else f"(not (= {t} 0))"


def _node(x, text: dict, names: dict) -> str:
    tag = x[0]
    if tag == "c":
        return str(x[1]) if x[1] >= 0 else f"(- {-x[1]})"
    if tag == "b":
        return "true" if x[1] else "false"
    if tag == "s":
        return names[x[1]]
    args = [text[id(c)] for c in x[1:]]
    if tag == "neg":
        return f"(- {_as_int(x[1], args[0])})"
    if tag == "not":
        return f"(not {_as_bool(x[1], args[0])})"
    if tag == "ite":
        c = _as_bool(x[1], args[0])
        if _bool_of(x[2]) and _bool_of(x[3]):
            return f"(ite {c} {args[1]} {args[2]})"
        return f"(ite {c} {_as_int(x[2], args[1])} {_as_int(x[3], args[2])})"
    a, b = args
    if tag in ("and", "or"):
        return f"({tag} {_as_bool(x[1], a)} {_as_bool(x[2], b)})"
    if tag in ("==", "!=") and _bool_of(x[1]) and _bool_of(x[2]):
        eq = f"(= {a} {b})"
    else:
        a, b = _as_int(x[1], a), _as_int(x[2], b)
        if tag == "min":
            return f"(ite (<= {a} {b}) {a} {b})"
        if tag == "max":
            return f"(ite (>= {a} {b}) {a} {b})"
        if tag == "!=":
            return f"(not (= {a} {b}))"
        eq = f"({_OPS[tag]} {a} {b})"
    return f"(not {eq})" if tag == "!=" else eq


__all__ = ["condition", "conditions"]
