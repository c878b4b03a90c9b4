"""Loops whose filter the game cannot change, for the whole-game code (`direct`, `stepping`).

`for y in cells { if test(x, y) { ... } }` runs the test once per value and per pass, though where the
test reads nothing of the game (no zone, no variable, no draw) and only values the loop leaves alone,
it passes the same values every time those values are the same. Such a loop here runs over the values
that pass, worked out the first time and remembered per combination of the values the test reads (up
to `REMEMBERED` of them per loop). A test that fails on some value fails where it is worked out, before
the loop's first pass rather than at that value; the whole-game code leaves a failing game to the
engine, which replays it from the start, so the game's outcome is the same.

The loops of a listing of options and of a quantifier (`narrowed_domain`) get the same treatment for
the part of their test that reads nothing of the game: `y in cells where adjacent(x, y) and
face_down(y)` runs over the remembered neighbours of `x`, testing only whether each is face down.
"""
from __future__ import annotations

import ast
import builtins
import re

from .. import model as m
from .pyscope import free_names

REMEMBERED = 4096  # combinations of the values a loop's test reads that one loop remembers
_LOCAL = re.compile(r"fv(\d+)")  # how the whole-game code names a local (see `DirectCodegen.local_ref`)
# the names of values bound while an expression is evaluated: locals, and the variables of the loops of
# listings, quantifiers and inlined definitions (see `Codegen.prefix`)
_BOUND = re.compile(r"fv\d+|_L\d+|_D\d+_\d+")
_BUILTINS = frozenset(dir(builtins))


# a call of a definition's function, which passes it the state first (see `Codegen.x_DefineCall`)
_DEFINE_CALL = re.compile(r"\b(D_\w+)\(s(, |\))")


def read_names(codegen, code: str) -> set[str]:
    """The free names of `code`, but for the state `s` where it is only passed to definitions that read
    nothing of it (`Codegen.state_free_defines`): a test that calls only those reads nothing of the game."""
    pure = codegen.state_free_defines
    return free_names(_DEFINE_CALL.sub(
        lambda found: found.group(0) if found.group(1) not in pure else f"{found.group(1)}({found.group(2)[1:]}",
        code))


def remember(table: dict, key, values: tuple) -> tuple:
    """`values` kept in `table` under `key` while the table has room; returned either way."""
    if len(table) < REMEMBERED:
        table[key] = values
    return values


def fixed_filter_lines(codegen, st: m.For, var: str, domain: str) -> list[str] | None:
    """The lines of `st` (a loop of `var` over the constant `domain`, as Python source) that run only
    over the values passing its test, or None when the loop is not of that form."""
    if st.binder.cond is not None or len(st.body) != 1 or not isinstance(st.body[0], m.If):
        return None
    head = st.body[0]
    if len(head.branches) != 1 or head.orelse:
        return None
    cond, body = head.branches[0]
    test = codegen.ex(cond)
    free = read_names(codegen, test)
    # the game's state is read through `s`, the code's temporaries start with `_`; what is left is
    # the loop's value, other locals and the module's constants
    if "s" in free or any(name.startswith("_") for name in free):
        return None
    outer = sorted(name for name in free if _LOCAL.fullmatch(name) and name != var)
    written = {node.slot for stmt in body for node in m.nodes(stmt)
               if getattr(node, "slot", None) is not None and not isinstance(node, m.Local)}
    if any(int(_LOCAL.fullmatch(name).group(1)) in written for name in outer):
        return None
    table = codegen.const(f"FL{len(codegen.consts)}", {})
    key = "(" + "".join(f"{name}, " for name in outer) + ")"
    return [f"_fl = {table}.get({key})", "if _fl is None:",
            f"    _fl = remember({table}, {key}, tuple({var} for {var} in {domain} if {test}))",
            f"for {var} in _fl:", *codegen.indent(codegen.block_lines(body))]


def narrowed_domain(codegen, b: m.Binder, var: str, domain: str, cond: str | None) -> tuple[str, str | None] | None:
    """For the loop of binder `b` (`var` over the constant `domain`, tested by `cond`) in a listing or
    a quantifier: (the values of the domain that pass the conjuncts of its test that read nothing of
    the game, remembered per combination of the bound values they read; the other conjuncts or None),
    or None when no conjunct is of that kind."""
    if cond is None or b.cond is None:
        return None
    known = _BUILTINS | set(codegen.consts) | set(codegen.attr_tables()) | codegen.state_free_defines
    fixed, rest, reads = [], [], set()
    for code in conjuncts(cond):
        free = read_names(codegen, code) - {var}
        if all(name in known or _BOUND.fullmatch(name) for name in free):
            fixed.append(code)
            reads |= {name for name in free if _BOUND.fullmatch(name)}
        else:
            rest.append(code)
    if not fixed:
        return None
    table = codegen.const(f"FD{len(codegen.consts)}", {})
    names = sorted(reads)
    key = names[0] if len(names) == 1 else "(" + "".join(f"{name}, " for name in names) + ")"
    test = " and ".join(fixed)
    # `filter`, not a comprehension: the loop over the whole domain must not look like the binder's own
    # loop to what rewrites that (`slices.by_slices`)
    values = (f"({table}[{key}] if {key} in {table} else "
              f"remember({table}, {key}, tuple(filter(lambda {var}: {test}, {domain}))))")
    return values, (" and ".join(rest) if rest else None)


def conjuncts(code: str) -> list[str]:
    """The conjuncts of a test's code, each in brackets: those of the test as the rules wrote it, and
    those of the definitions it calls, inlined (`step_of(x) == r and bale(x)` is three)."""
    text = code.strip()
    node = ast.parse(text, mode="eval").body
    if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)):
        return [code]
    return [part for value in node.values for part in conjuncts(f"({ast.get_source_segment(text, value)})")]
