"""Constant folding for one configuration: facts, options and the player count become constants.

What is known before play (a fact, an ambiguity's option, `player_count`, arithmetic over those) is
computed here once, with the engine's arithmetic (Python's: floor division, sign of the divisor for
`%`), so that no backend evaluates facts or tests options itself.
"""
from __future__ import annotations

import dataclasses
import operator

from .. import model as m
from ..errors import DiagnosticSink

_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv, "%": operator.mod,
          "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
          "==": operator.eq, "!=": operator.ne}
_STATIC_BUILTINS = {"min": min, "max": max, "abs": abs}


def fact_order(game: m.Game, sink: DiagnosticSink) -> list[m.Fact]:
    """The facts, each after those it is defined with; a cycle is a spec error at the fact that closes it."""
    by_name = {f.name: f for f in game.facts}
    done, order = set(), []

    def visit(fact: m.Fact, path: tuple[str, ...]) -> None:
        if fact.name in done:
            return
        if fact.name in path:
            cycle = " -> ".join((*path[path.index(fact.name):], fact.name))
            sink.error("E210", f"fact '{fact.name}' is defined in terms of itself ({cycle})", fact.span,
                       "give one of these facts a value that does not depend on the others")
            done.add(fact.name)
            return
        for ref in fact_refs(fact.value):
            if ref in by_name:
                visit(by_name[ref], (*path, fact.name))
        done.add(fact.name)
        order.append(fact)

    for fact in game.facts:
        visit(fact, ())
    return order


def fact_refs(e) -> list[str]:
    """The facts an expression names, in order."""
    if isinstance(e, m.FactRef):
        return [e.fact]
    return [ref for child in m.children(e) if isinstance(child, m.Expr) for ref in fact_refs(child)]


def is_const(e) -> bool:
    return isinstance(e, m.Const) and e.type in (m.INT, m.BOOL)


_VARYING = (m.FactRef, m.OptionIs)  # what a configuration gives a value
_FOLDING = (m.Unary, m.Binary, m.IfExpr, m.DefineCall, m.Builtin)  # folded when an operand is constant


def settled_nodes(model: m.Game) -> set[int]:
    """The ids of the nodes of `model` that fold to themselves in every configuration: nothing below
    them names a fact, an option or the seats, and no operator below them has a constant operand.
    Folding a configuration can pass them by; the caller keeps `model` alive, so the ids stay theirs."""
    settled: set[int] = set()
    seen: set[int] = set()

    def visit(value) -> bool:
        if isinstance(value, tuple):
            return all([visit(v) for v in value])  # a list: every item is visited, settled or not
        if isinstance(value, m.Type) or not m.is_node(value):
            return True
        if id(value) in seen:
            return id(value) in settled
        seen.add(id(value))
        fields = [getattr(value, name) for name in m.compared_field_names(type(value))]
        below = all([visit(v) for v in fields])
        if (below and not isinstance(value, _VARYING)
                and not (isinstance(value, _FOLDING) and any(isinstance(v, m.Const) for v in _operands(fields)))
                and not (isinstance(value, m.Builtin) and (value.name in ("player_count", "seat")
                                                            or value.name in _STATIC_BUILTINS))
                and not (isinstance(value, m.DefineCall) and not value.args)):  # inlined: a constant
            settled.add(id(value))
            return True
        return False

    visit(model)
    return settled


def _operands(fields: list):
    for value in fields:
        yield from value if isinstance(value, tuple) else (value,)


class Folder:
    """Folds the expressions of one configuration; `facts` fills up as facts are folded in order.
    `settled`: nodes known to fold to themselves (`settled_nodes`), passed by."""

    def __init__(self, game: m.Game, players: int | None, options: dict[str, str], sink: DiagnosticSink,
                 settled: set[int] | frozenset = frozenset()):
        self.game = game
        self.settled = settled
        self.players = players
        self.options = options
        self.sink = sink
        self.facts: dict[str, int] = {}
        self.definitions: dict[str, m.Expr] = {}  # facts that depend on a symbolic player count
        self.defines = {d.name: d for d in game.defines}
        self.kinds = {c.name: i for i, c in enumerate(game.components)}
        self._defining: set[str] = set()

    # ---- values that must be known before play
    def value(self, e: m.Expr, what: str) -> int:
        """The constant an expression folds to, or a spec error at the expression (then 0)."""
        folded = self.expr(e)
        if isinstance(folded, m.Const):
            return self.kinds[folded.name] if folded.type == m.CARD else int(folded.value)
        self.sink.error("E211", f"{what} must be known before play (from numbers, facts, options and "
                                "player_count)", getattr(e, "span", None))
        return 0

    # ---- expressions
    def expr(self, e, env: dict | None = None):
        if e is None:
            return None
        if not env and id(e) in self.settled:
            return e
        method = getattr(self, "f_" + type(e).__name__, None)
        if method is not None:
            return method(e, env or {})
        return self.children(e, env or {})

    def children(self, node, env: dict):
        """The node with every expression below it folded."""
        changes = {}
        for name in m.compared_field_names(type(node)):
            old = getattr(node, name)
            new = self.any(old, env)
            if new is not old:
                changes[name] = new
        return dataclasses.replace(node, **changes) if changes else node

    def any(self, value, env: dict):
        if not env and id(value) in self.settled:
            return value
        if isinstance(value, m.Expr):
            return self.expr(value, env)
        if isinstance(value, tuple):
            items = tuple(self.any(v, env) for v in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        if isinstance(value, m.Type):
            return value
        if m.is_node(value):
            return self.children(value, env)
        return value

    def f_FactRef(self, e: m.FactRef, env):
        if e.fact in self.facts:
            return m.Const(self.facts[e.fact], e.type, span=e.span)
        return self.definitions.get(e.fact, e)  # else a fact of a cycle, already reported

    def f_OptionIs(self, e: m.OptionIs, env):
        return m.Const(self.options.get(e.ambiguity) == e.option, m.BOOL, span=e.span)

    def f_Local(self, e: m.Local, env):
        return env.get(e.slot, e)

    def f_Builtin(self, e: m.Builtin, env):
        if e.name == "player_count":
            return e if self.players is None else m.Const(self.players, m.INT, span=e.span)
        folded = self.children(e, env)
        if (e.name == "seat" and self.players is not None and is_const(folded.args[0])
                and 0 <= folded.args[0].value < self.players):
            return m.Const(int(folded.args[0].value), m.PLAYER, span=e.span)
        if e.name in _STATIC_BUILTINS and folded.args and all(is_const(a) for a in folded.args):
            return m.Const(_STATIC_BUILTINS[e.name](*(int(a.value) for a in folded.args)), m.INT, span=e.span)
        return folded

    def f_Unary(self, e: m.Unary, env):
        operand = self.expr(e.operand, env)
        if is_const(operand):
            value = (not operand.value) if e.op == "not" else -int(operand.value)
            return m.Const(value, e.type, span=e.span)
        return e if operand is e.operand else dataclasses.replace(e, operand=operand)

    def f_Binary(self, e: m.Binary, env):
        left, right = self.expr(e.left, env), self.expr(e.right, env)
        if e.op in ("and", "or") and is_const(left):
            if bool(left.value) == (e.op == "or"):
                return m.Const(e.op == "or", m.BOOL, span=e.span)
            return right
        if e.op in _ARITH and is_const(left) and is_const(right):
            if e.op in ("/", "%") and right.value == 0:
                self.sink.error("E212", "division by zero in a number known before play", e.span)
                return m.Const(0, e.type, span=e.span)
            value = _ARITH[e.op](left.value, right.value)
            return m.Const(value if e.type == m.BOOL else int(value), e.type, span=e.span)
        if left is e.left and right is e.right:
            return e
        return dataclasses.replace(e, left=left, right=right)

    def f_IfExpr(self, e: m.IfExpr, env):
        cond = self.expr(e.cond, env)
        if is_const(cond):
            return self.expr(e.then if cond.value else e.orelse, env)
        return dataclasses.replace(e, cond=cond, then=self.expr(e.then, env), orelse=self.expr(e.orelse, env))

    def f_DefineCall(self, e: m.DefineCall, env):
        folded = self.children(e, env)
        d = self.defines.get(e.define)
        if d is None or e.define in self._defining or not all(is_const(a) for a in folded.args):
            return folded
        self._defining.add(e.define)  # a recursive definition is left to the backends
        try:
            body = self.expr(d.body, {p.slot: a for p, a in zip(d.params, folded.args)})
        finally:
            self._defining.discard(e.define)
        return m.Const(body.value, e.type, span=e.span) if is_const(body) else folded


def fold_facts(game: m.Game, players: int | None, options: dict[str, str], sink: DiagnosticSink,
               settled: set[int] | frozenset = frozenset()) -> Folder:
    """A folder that knows the value of every fact of the configuration. With `players` None the
    player count stays symbolic: a fact that depends on it is replaced by its folded definition."""
    folder = Folder(game, players, options, sink, settled)
    for fact in fact_order(game, sink):
        if players is not None:
            folder.facts[fact.name] = folder.value(fact.value, f"fact '{fact.name}'")
            continue
        folded = folder.expr(fact.value)
        if isinstance(folded, m.Const):
            folder.facts[fact.name] = folder.value(folded, f"fact '{fact.name}'")
        else:
            folder.definitions[fact.name] = folded
    return folder


__all__ = ["Folder", "fold_facts", "settled_nodes", "fact_order", "fact_refs", "is_const"]
