"""The parts that one generated expression repeats, worked out once.

A definition is inlined wherever it is called (`Codegen.x_DefineCall`), so a test of a whole state
that calls `role_of(p)` in five branches reads the role card five times. Python evaluates an
expression in a fixed order, some parts only on a condition (`and`, `or`, `if ... else`, the body of a
comprehension). Where one occurrence of a part is always evaluated before another, and every name in
it still means the same value there, the first keeps its value in a name (`(_E0 := ...)`) and the
second reads that name.

Only an expression whose every call is known to change nothing is rewritten (the language's functions
are pure, and so are the engine's helpers listed here): evaluating a part once then gives what
evaluating it again would, and a rule error that the second occurrence would raise, the first has
raised already. The caller vouches that nothing changes the state while the expression runs.
"""
from __future__ import annotations

import ast
import functools

# What an expression of the generated code may call and still be rewritten: Python's builtins that read
# only their arguments, the engine's helpers that read a state or raise a rule error (`the_tie` and
# `best_tie` also record a probe's site in a set, which recording twice does not change), and the
# methods of its constant tables and of the memo `_m` (whose `setdefault` keeps the first value).
PURE_FUNCTIONS = frozenset({
    "abs", "all", "any", "bool", "enumerate", "filter", "int", "iter", "len", "map", "max", "min", "next",
    "range", "reversed", "set", "sorted", "sum", "tuple", "zip",
    "the", "best", "the_tie", "best_tie", "check_range", "real_seat", "stack_end", "adjacent", "orthogonal",
    "subsets_every", "subsets_summing", "subsets_summing_kinds", "bag_index", "remember"})
PURE_PREFIXES = ("D_", "F_")  # a definition's function; a function (a procedure with a result), which the language keeps pure
PURE_METHODS = frozenset({"isdisjoint", "issubset", "intersection", "count", "index", "get", "setdefault",
                          "__contains__", "__getitem__"})
# Calls whose value is an iterator, used up as it is read: each occurrence needs its own.
ITERATORS = frozenset({"iter", "enumerate", "zip", "map", "filter", "reversed", "subsets_every", "subsets_summing"})
SMALLEST = 5  # nodes of the smallest part worth a name: `s.z[(2+p)]` has six
COMPREHENSIONS = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)
# the parts that may be kept in a name: a read of a table or a call, of some size, with no scope of its own
WORTH = (ast.Subscript, ast.Call, ast.IfExp, ast.BoolOp, ast.Compare, ast.BinOp, ast.UnaryOp)
NAME_PREFIX = "_E"


@functools.lru_cache(maxsize=512)
def share(source: str) -> str:
    """`source` (one Python expression) with each part it repeats evaluated once, or `source` itself
    when nothing is repeated where it may be shared or the expression calls something not known to be
    pure. Remembered: the same test is compiled for several uses and several configurations."""
    try:
        return _shared(source)
    except (SyntaxError, RecursionError, MemoryError):  # nested too deeply for Python: the compiler says so
        return source


def _shared(source: str) -> str:
    tree = ast.parse(source, mode="eval")
    facts = _Facts(tree)
    if not facts.pure:
        return source
    found = _Occurrences(facts)
    found.visit(tree.body, {}, True)
    if not found.shared:
        return source
    taken = facts.names[id(tree)]
    names, number = {}, 0
    for first in found.shared:  # in the order of evaluation
        while f"{NAME_PREFIX}{number}" in taken:
            number += 1
        names[first] = f"{NAME_PREFIX}{number}"
        number += 1
    return ast.unparse(_Rewrite(found, names).visit(tree).body)


def _pure_call(f: ast.expr) -> bool:
    if isinstance(f, ast.Name):
        return f.id in PURE_FUNCTIONS or f.id.startswith(PURE_PREFIXES)
    return isinstance(f, ast.Attribute) and f.attr in PURE_METHODS


class _Occurrences:
    """The walk of an expression in Python's order of evaluation. `avail`: the parts evaluated on every
    path to here (their number in `_Facts` -> the node of their first occurrence); a part met again while its
    first occurrence is available reads the name of that first occurrence instead."""

    def __init__(self, facts: _Facts):
        self.facts = facts
        self.first_of: dict[int, int] = {}  # id of a repeated occurrence -> id of the first one
        self.shared: dict[int, None] = {}  # ids of first occurrences read again, in order (a dict as an ordered set)

    def visit(self, node: ast.expr, avail: dict, may_bind: bool) -> None:
        key = self.facts.key[id(node)] if id(node) in self.facts.worth else None
        if key is not None and key in avail:
            self.first_of[id(node)] = avail[key]
            self.shared.setdefault(avail[key])
            return
        self.children(node, avail, may_bind)
        if key is not None and may_bind:
            avail[key] = id(node)

    def children(self, node: ast.expr, avail: dict, may_bind: bool) -> None:
        if isinstance(node, ast.BoolOp):  # each operand only when the ones before it did not decide
            self.visit(node.values[0], avail, may_bind)
            then = dict(avail)
            for value in node.values[1:]:
                self.visit(value, then, may_bind)
        elif isinstance(node, ast.IfExp):
            self.visit(node.test, avail, may_bind)
            self.visit(node.body, dict(avail), may_bind)
            self.visit(node.orelse, dict(avail), may_bind)
        elif isinstance(node, ast.Compare):  # a chain stops at its first false comparison
            self.visit(node.left, avail, may_bind)
            self.visit(node.comparators[0], avail, may_bind)
            then = dict(avail)
            for value in node.comparators[1:]:
                self.visit(value, then, may_bind)
        elif isinstance(node, COMPREHENSIONS):
            self.comprehension(node, avail, may_bind)
        elif isinstance(node, ast.Lambda):  # its body runs later, if at all; a name bound there would be its own
            bound = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            self.visit(node.body, self.unshadowed(avail, bound), False)
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is not None:
                    self.visit(k, avail, may_bind)
                self.visit(v, avail, may_bind)
        elif isinstance(node, ast.Call):
            self.visit(node.func, avail, may_bind)
            for arg in node.args:
                self.visit(arg, avail, may_bind)
            for kw in node.keywords:
                self.visit(kw.value, avail, may_bind)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.visit(child, avail, may_bind)

    def comprehension(self, node, avail: dict, may_bind: bool) -> None:
        """The first iterable runs before the loop, the rest once per pass, each test after the ones
        before it: Python allows no `:=` in an iterable, and names bound in a pass last only for it."""
        inner = avail
        for i, gen in enumerate(node.generators):
            self.visit(gen.iter, avail if i == 0 else inner, False)
            bound = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            inner = self.unshadowed(inner, bound)
            for test in gen.ifs:
                self.visit(test, inner, may_bind)
        if isinstance(node, ast.DictComp):
            self.visit(node.key, inner, may_bind)
            self.visit(node.value, inner, may_bind)
        else:
            self.visit(node.elt, inner, may_bind)

    def unshadowed(self, avail: dict, bound: set) -> dict:
        """A copy of `avail` without the parts that read a name the new scope binds anew."""
        names = self.facts.names
        return {k: first for k, first in avail.items() if not (names[first] & bound)}


class _Facts:
    """What the walk asks of every part of a tree, worked out in one pass from the leaves up: its
    structure as a number (equal parts, equal numbers), and whether it is worth a name (`worth`)."""

    def __init__(self, tree: ast.AST):
        self.numbers: dict[tuple, int] = {}
        self.key: dict[int, int] = {}
        self.worth: set[int] = set()
        self.names: dict[int, frozenset] = {}
        self.pure = True  # no call of anything not known to be pure, no `:=` of its own
        self.fact(tree)

    def fact(self, node: ast.AST) -> tuple:
        """(its number, nodes, whether it reads a table or calls, whether it has a scope of its own, its names)."""
        parts, size, costly, scoped, names = [], 1, isinstance(node, (ast.Subscript, ast.Call)), False, frozenset()
        for field, value in ast.iter_fields(node):
            for item in (value if isinstance(value, list) else [value]):
                if isinstance(item, ast.AST):
                    number, n, c, sc, nm = self.fact(item)
                    parts.append(number)
                    size, costly, scoped, names = size + n, costly or c, scoped or sc, names | nm
                else:  # with its type: 1 and True are equal, but not the same constant
                    parts.append((type(item), item))
            parts.append(field)
        if isinstance(node, ast.Call):
            self.pure = self.pure and _pure_call(node.func)
        elif isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            self.pure = False
        number = self.numbers.setdefault((type(node), tuple(parts)), len(self.numbers))
        scoped = scoped or isinstance(node, (ast.Lambda, *COMPREHENSIONS))
        if isinstance(node, ast.Name):
            names = frozenset((node.id,))
        self.key[id(node)], self.names[id(node)] = number, names
        single_use = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ITERATORS
        if isinstance(node, WORTH) and costly and not scoped and not single_use and size >= SMALLEST:
            self.worth.add(id(node))
        return number, size, costly, scoped, names


class _Rewrite(ast.NodeTransformer):
    def __init__(self, found: _Occurrences, names: dict[int, str]):
        self.found, self.names = found, names

    def visit(self, node):
        first = self.found.first_of.get(id(node))
        if first is not None:
            return ast.Name(self.names[first], ast.Load())
        name = self.names.get(id(node))
        node = self.generic_visit(node)
        if name is not None:
            return ast.NamedExpr(ast.Name(name, ast.Store()), node)
        return node


__all__ = ["share"]
