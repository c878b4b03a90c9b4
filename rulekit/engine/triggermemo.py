"""A trigger's condition remembered between tests that give it the same inputs.

The engine tests the condition of every armed trigger at each decision and at each `check triggers`.
A condition such as "some player has met their objective" reads much of the table every time, while
most decisions change nothing it reads. What it reads is known from the core IR: the zones and the
variables it names (through the definitions it calls) and the player to move. So the generated code
keeps, per trigger, the inputs of its last test with the answer, and a test whose inputs are equal
takes that answer without working the condition out again.

A condition is remembered only where that is exact and pays:

- it reads nothing this module cannot name: no function (a procedure's body may read anything), no
  stack end (which may be a chance event), no construct this module does not know;
- it has a quantifier: a condition without one costs about what building its key costs;
- its inputs stay the same often enough: one whose inputs change at nearly every test is switched
  off after a trial (`TRIAL`) and tested afresh from then on.

In a build with silent-case probes (`Game(probes=True)`), testing a condition may record a probe's site
in `HITS`, and a tool that clears `HITS` expects the next tests to record their sites again: the key
then holds the set's `epoch`, which `Hits.clear` moves on.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import model as m
from ..errors import Span
from ..lower import core


class Hits(set):
    """The probe sites a build has reached (see `rulekit.engine.probes`): a set whose `epoch` counts
    the times it was cleared, so that a remembered test made before a clear is not taken after it."""

    __slots__ = ("epoch",)

    def __init__(self, *args):
        super().__init__(*args)
        self.epoch = 0

    def clear(self) -> None:
        super().clear()
        self.epoch += 1


@dataclass(frozen=True)
class Inputs:
    """What a condition reads: ranges `[a, b)` of zones and of values, and whether the player to move."""

    zones: tuple[tuple[int, int], ...]
    values: tuple[tuple[int, int], ...]
    current: bool


class _Unnamed(Exception):
    """The condition reads something a key cannot name."""


# Nodes that read no state of their own (their children are walked).
_PURE = (m.Const, m.Local, m.FactRef, m.Attr, m.Unary, m.Binary, m.IfExpr, m.OptionIs, m.SetLit, m.Quant,
         m.Binder, core.Size, core.PlayerCount, core.Seat, core.Near, core.Smaller, core.Larger, core.Abs,
         core.CardsIn, core.CardsOf, core.SubsetsOf, core.Members, core.Positions, core.Items, core.Numbers)


class _Reader:
    def __init__(self, game: m.Game, layout):
        self.layout = layout
        self.defines = {d.name: d for d in game.defines}
        self.var_sizes = {v.name: layout.players if v.per_player else 1 for v in game.vars}
        self.zones: set[int] = set()
        self.values: set[int] = set()
        self.current = False
        self.quantified = False
        self.read_defines: set[str] = set()
        # the nodes walked: the lowered model shares nodes, and walking it as a tree is exponential
        self.seen: set[int] = set()

    def family(self, name: str) -> None:
        base = self.layout.zone_base[name]
        self.zones.update(range(base, base + self.layout.zone_count[name]))

    def order(self) -> None:
        if self.layout.order_slot is not None:
            self.values.add(self.layout.order_slot)

    def read(self, node) -> None:
        if isinstance(node, (tuple, list)):
            for x in node:
                self.read(x)
            return
        if node is None or isinstance(node, (m.Type, Span, str, int, bool, float)) or id(node) in self.seen:
            return
        self.seen.add(id(node))
        lay = self.layout
        if isinstance(node, m.ZoneRef):
            self.family(node.zone)
        elif isinstance(node, core.CardsInEvery):
            self.family(node.family)
        elif isinstance(node, m.VarRef):
            base = lay.var_base[node.var]
            self.values.update(range(base, base + self.var_sizes[node.var]))
        elif isinstance(node, core.Supply):
            self.values.add(lay.supply_slot[node.token])
        elif isinstance(node, core.Held):
            base = lay.held_base[node.token]
            self.values.update(range(base, base + lay.players))
        elif isinstance(node, core.Current):
            self.current = True
        elif isinstance(node, core.Neighbour):
            self.order()
        elif isinstance(node, core.Seats):
            if node.start is not None:
                self.order()
        elif isinstance(node, m.DefineCall):
            if node.define not in self.read_defines:
                self.read_defines.add(node.define)
                self.read(self.defines[node.define].body)
        elif not isinstance(node, _PURE):
            raise _Unnamed(type(node).__name__)
        if isinstance(node, m.Quant):
            self.quantified = True
        for child in m.children(node):
            self.read(child)


def inputs(cond: m.Expr, game: m.Game, layout) -> Inputs | None:
    """What the condition `cond` of a lowered game reads, or None where it is not worth remembering
    (see the module docstring)."""
    reader = _Reader(game, layout)
    try:
        reader.read(cond)
    except _Unnamed:
        return None
    if not reader.quantified:
        return None
    return Inputs(_ranges(reader.zones), _ranges(reader.values), reader.current)


def reads_no_state(expr: m.Expr, game: m.Game, layout) -> bool:
    """Whether `expr` of a lowered game reads nothing of the state (no zone, no value, not the player
    to move, not the order of play), the definitions it calls included: its value depends on its
    arguments alone."""
    reader = _Reader(game, layout)
    try:
        reader.read(expr)
    except _Unnamed:
        return False
    return not (reader.zones or reader.values or reader.current)


def _ranges(indices: set[int]) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for i in sorted(indices):
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return tuple((a, b) for a, b in out)


def key_source(read: Inputs, probes: bool) -> tuple[str, str]:
    """Two Python expressions of state `s` for the condition's inputs: (the key, its snapshot). The key
    reads the zones in place (a list of the zone lists themselves), so that testing it against the last
    snapshot copies nothing; the snapshot copies each zone, which changes in place, to be kept. The key
    is equal to a snapshot exactly when the inputs are the same: each zone, each value, the player to
    move."""
    key = [f"s.z[{a}]" if b == a + 1 else f"s.z[{a}:{b}]" for a, b in read.zones]
    snapshot = [f"s.z[{a}][:]" if b == a + 1 else f"[_z[:] for _z in s.z[{a}:{b}]]" for a, b in read.zones]
    values = [f"s.v[{a}]" if b == a + 1 else f"s.v[{a}:{b}]" for a, b in read.values]
    if read.current:
        values.append("s.cur")
    if probes:
        values.append("HITS.epoch")
    return "[" + ", ".join(key + values) + "]", "[" + ", ".join(snapshot + values) + "]"


# A remembered test goes on being remembered only where that pays: after TRIAL tests whose inputs had
# changed, it is switched off for good unless as many tests found them unchanged (a condition that
# reads the hands, which most decisions change, pays for its key and seldom uses it). The switch
# depends on the games played alone, never on time: the answers are the same either way.
TRIAL = 256


def new_memo() -> list:
    """A memo of `memo_function`: [the last key, its answer, tests that took it (None: switched off),
    tests that worked the answer out]."""
    return [None, None, 0, 0]


def memo_function(name: str, memo: str, key: str, cond_lines: list[str], snapshot: str | None = None) -> list[str]:
    """`name(s)`: the condition's answer, from `memo` (see `new_memo`) when the key is equal to the
    snapshot taken at the last test, else worked out by `cond_lines` (which set `_h`) and remembered
    with a new snapshot (`snapshot`, or the key itself where it holds no zone in place)."""
    kept = "_k" if snapshot is None else snapshot
    return [f"def {name}(s):", f"    _c = {memo}", "    if _c[2] is not None:", f"        _k = {key}",
            "        if _c[0] == _k:", "            _c[2] += 1", "            return _c[1]",
            *("    " + line for line in cond_lines),
            "    if _c[2] is not None:", f"        _c[0] = {kept}", "        _c[1] = _h", "        _c[3] += 1",
            f"        if _c[3] >= {TRIAL} and _c[2] < _c[3]:", "            _c[2] = None", "    return _h"]
