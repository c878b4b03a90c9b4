"""Variables that play never reads: records such as a turn counter or the last roll, kept for the checks.

A variable is inert when no condition, choice, move, end, definition or trigger reads it, except to
work out a new value of an inert variable. Two states that differ only in inert variables then play
alike for ever: the same actions are legal, the same chance events come, the same ends are reached.
So a search for endless play can leave them out of its state keys. Without that, a counter that goes
up every turn makes every state new, and a game that the players can keep going for ever (everyone
passes) looks like one that always ends.

An assignment can fail (a value outside the variable's declared range, a division by zero), and
failing is something play does. Where a failure could depend on an inert variable's value (`add 1
to turns` with `turns: int 0..99`, or `set share = 10 / turns`), the variables it reads are not
inert: their value can end the game with a rule error. Values that cannot fail (sums, products,
comparisons, choices between two values) keep them inert.

`inert_vars(game)` works on a configuration's lowered model (`Config.game`), where the branches an
option turns off are gone; `ignored_by_keys` says which of them a given key may leave out: all of
them for termination, and only those no property reads for the explorer that also judges the
properties.
"""
from __future__ import annotations

from .. import model as m
from ..memo import PerObject

# Expressions whose value, given the values they read, is always defined: reading an inert variable
# inside them cannot make play fail.
_TOTAL = (m.Const, m.VarRef, m.Local, m.FactRef, m.Unary, m.IfExpr, m.OptionIs)
_PARTIAL_OPS = frozenset({"/", "%"})


def inert_vars(game: m.Game) -> frozenset[str]:
    """The variables of `game` that nothing in play reads (see the module's docstring); worked out
    once per lowered model."""
    return _PER_MODEL.get("inert", game, lambda: _inert(game))


_PER_MODEL = PerObject()


def _inert(game: m.Game) -> frozenset[str]:
    reader = _Reader(game.defines)
    bodies = [game.flow.body, *(p.body for p in game.procedures), *((t.cond, t.body) for t in game.triggers)]
    relevant: set[str] = set()
    assigns: list[m.Assign] = []
    for body in bodies:
        reader.scan(body, relevant, assigns)
    decls = {v.name: v for v in game.vars}
    changed = True
    while changed:
        changed = False
        for a in assigns:
            read = set(reader.reads((a.value, a.player)))
            if a.op != "=":
                read.add(a.var)
            inert_read = {v for v in read if v not in relevant}
            if a.var in relevant:
                needed = read
            elif inert_read and (decls[a.var].low is not None or reader.may_fail(a.value, inert_read)
                                 or (a.player is not None and reader.may_fail(a.player, inert_read))):
                needed = inert_read
            else:
                continue
            if not needed <= relevant:
                relevant |= needed
                changed = True
    return frozenset(v.name for v in game.vars if v.name not in relevant)


def property_reads(properties, defines) -> frozenset[str]:
    """The variables the expressions of `properties` read, through the definitions they call."""
    reader = _Reader(defines)
    return frozenset().union(*(reader.reads(p.expr) for p in properties))


def ignored_by_keys(loaded, termination: bool) -> frozenset[str]:
    """The variables of a loaded game that a state key may leave out: every inert one where only
    termination is judged, else those no property of the spec reads as well."""
    inert = inert_vars(loaded.config.game)
    if termination or not inert:
        return inert
    model = loaded.model
    return inert - _PER_MODEL.get("read by properties", model,
                                  lambda: property_reads(model.properties, model.defines))


def var_slots(loaded, names) -> list[int]:
    """Where the variables `names` of a loaded game are in its states' values (every seat's of one per
    player), in declaration order."""
    return [loaded.var_index(v.name, p) for v in loaded.model.vars if v.name in names
            for p in (range(loaded.num_players()) if v.per_player else [None])]


class _Reader:
    """What parts of a model read, each shared node worked out once: the lowered model is a graph
    whose nodes many rules share, and walking it as a tree is exponential in its depth."""

    def __init__(self, defines):
        self.defines = {d.name: d for d in defines}
        self.memo: dict[int, tuple] = {}  # node id -> (node, the variables it reads)

    def reads(self, node, expanding: frozenset = frozenset()) -> frozenset[str]:
        """The variables `node` reads, through the definitions it calls."""
        key = (id(node), expanding)
        kept = self.memo.get(key)
        if kept is None:
            kept = self.memo[key] = (node, self._reads(node, expanding))  # the node kept: its id stays its own
        return kept[1]

    def _reads(self, node, expanding: frozenset) -> frozenset[str]:
        if isinstance(node, (tuple, list)):
            return frozenset().union(*(self.reads(x, expanding) for x in node))
        out: set[str] = set()
        if isinstance(node, m.VarRef):
            out.add(node.var)
        elif isinstance(node, m.DefineCall) and node.define in self.defines and node.define not in expanding:
            out |= self.reads(self.defines[node.define].body, expanding | {node.define})
        if m.is_node(node):
            for child in m.children(node):
                out |= self.reads(child, expanding)
        return frozenset(out)

    def scan(self, node, relevant: set, assigns: list) -> None:
        """Adds to `relevant` what `node` reads outside the values of assignments, which go to `assigns`."""
        if isinstance(node, (tuple, list)):
            for x in node:
                self.scan(x, relevant, assigns)
        elif isinstance(node, m.Assign):
            assigns.append(node)
        elif isinstance(node, (m.Expr, m.Iter, m.Binder)):
            relevant |= self.reads(node)
        elif m.is_node(node):
            for child in m.children(node):
                self.scan(child, relevant, assigns)

    def may_fail(self, expr, inert_read: set) -> bool:
        """Whether evaluating `expr` could fail in a way that depends on one of `inert_read`: a part that
        reads one of them and is not an expression that is always defined."""
        if not self.reads(expr) & inert_read:
            return False
        if not isinstance(expr, _TOTAL) and not (isinstance(expr, m.Binary) and expr.op not in _PARTIAL_OPS):
            return True
        return any(self.may_fail(child, inert_read) for child in m.children(expr))


__all__ = ["ignored_by_keys", "inert_vars", "property_reads", "var_slots"]
