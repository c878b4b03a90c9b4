"""Stage 4, lowering: the model of the whole game instantiated for one configuration.

    model --instantiate(players, options)--> Config (the core IR every backend reads)

A configuration is a player count and a choice of one option per ambiguity. Its core IR is the
model's vocabulary with builtins, iteration domains and card selectors as nodes of their own
(`lower.core`), and with the facts and options folded to constants, the numbers known before play computed once (component
counts, token supplies, board sizes, initial values), the state slots numbered (`Layout`) and the
action ids assigned (`ActionTable`). It is validated on construction: a number that must be known
before play and is not, a fact defined in terms of itself, or a negative count is a `SpecError`
with file, line, column and a caret. `Spec.config` caches one per configuration.
"""
from __future__ import annotations

import dataclasses

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, NamedTuple

from .. import model as m
from ..errors import DiagnosticSink
from . import core
from .actions import ActionTable
from .fold import Folder, fold_facts, is_const, settled_nodes
from .layout import Layout


@dataclass(frozen=True, eq=False)
class Config:
    """One configuration of a game, lowered. Read it; never change it."""

    source: m.Game  # the model under every option, for provenance and the docs
    game: m.Game  # the same model with this configuration's facts, options and player count folded
    players: int
    options: Mapping[str, str]
    facts: Mapping[str, int]
    board_sizes: Mapping[str, tuple[int, int]]  # rows, columns
    component_counts: tuple[int, ...]  # copies of each component kind
    supplies: Mapping[str, int]  # each token's total
    initial_values: Mapping[str, int]  # each variable's initial value
    layout: Layout
    actions: ActionTable
    choices: Mapping[int, m.Choose] = field(repr=False)  # by choice point, from the folded model
    max_chance_value: int = 0  # the largest outcome id of a chance event over numbers

    @property
    def key(self) -> tuple:
        """What tells this configuration apart from the game's others: the player count and the options."""
        return (self.players, tuple(sorted(self.options.items())))


def instantiate(model: m.Game, players: int, options: dict[str, str], texts: dict[str, str] | None = None) -> Config:
    """The core IR of `model` for `players` and `options` (the ambiguities not named at their defaults).

    `texts` maps source file names to their text, for the carets of the errors (else files are read).
    """
    sink = DiagnosticSink("", "", others=dict(texts or {}))
    options = {**model.default_options(), **options}
    memo = _model_memo(model)
    folder = fold_facts(model, players, options, sink, memo.settled)
    game = core.typed(folder.expr(model), memo.typed)
    # a property claimed under other options is not this configuration's claim
    game = dataclasses.replace(game, properties=tuple(p for p in game.properties if p.applies(options)))
    boards = {}
    for b in game.boards:
        rows = folder.value(b.rows, f"the number of rows of board '{b.name}'")
        columns = folder.value(b.columns, f"the number of columns of board '{b.name}'")
        if (rows < 1 or columns < 1) and not sink.diagnostics:
            sink.error("E213", f"board '{b.name}' would be {rows} by {columns} with {players} "
                               f"player{'' if players == 1 else 's'}", b.span)
        boards[b.name] = (max(1, rows), max(1, columns))
    counts = []
    for c in game.components:
        count = folder.value(c.count, f"the count of '{c.name}'")
        if count < 0:
            sink.error("E214", f"component '{c.name}' would have {count} copies with {players} "
                               f"player{'' if players == 1 else 's'}", c.span)
        counts.append(max(0, count))
    supplies = {t.name: folder.value(t.count, f"the supply of '{t.name}'") for t in game.tokens}
    initial = {v.name: folder.value(v.init, f"the initial value of '{v.name}'") for v in game.vars}
    layout = Layout.of(game, players, boards)
    numbering = _Numbering(game, folder, boards, counts)
    actions = numbering.actions()
    max_chance = numbering.max_chance_value()
    _raise_with_source(sink, model)
    choices = {c.point: c for body in m.bodies(game) for c in m.walk(body) if isinstance(c, m.Choose)}
    return Config(model, game, players, MappingProxyType(dict(options)), MappingProxyType(dict(folder.facts)),
                  MappingProxyType(boards), tuple(counts), MappingProxyType(supplies), MappingProxyType(initial),
                  layout, actions, MappingProxyType(choices), max_chance)


class _ModelMemo(NamedTuple):
    """What lowering learns of a model once and reuses in every configuration of it."""
    typed: core.TypedMemo  # keeps the model, and so the ids below, alive
    settled: set[int]  # its nodes that fold to themselves (`fold.settled_nodes`)


_MEMOS: dict[int, _ModelMemo] = {}  # by id(model); a memo keeps its model, so the id stays its own
MEMOS_KEPT = 8  # models whose memo is kept: the check of a few specs at once


def _model_memo(model: m.Game) -> _ModelMemo:
    """The memos of folding and of `core.typed` for `model`, shared by all its configurations."""
    memo = _MEMOS.pop(id(model), None) or _ModelMemo(core.TypedMemo(model), settled_nodes(model))
    _MEMOS[id(model)] = memo  # the most recently used last
    while len(_MEMOS) > MEMOS_KEPT:
        del _MEMOS[next(iter(_MEMOS))]
    return memo


def lower_expression(config: Config, expr: m.Expr) -> m.Expr:
    """One resolved expression of the model (a statistic, say), in the core IR of `config`."""
    sink = DiagnosticSink("", "")
    folder = Folder(config.source, config.players, dict(config.options), sink)
    folder.facts.update(config.facts)
    lowered = core.typed(folder.expr(expr))
    _raise_with_source(sink, config.source)
    return lowered


def every_count(model: m.Game, options: dict[str, str], texts: dict[str, str] | None = None) -> m.Game:
    """The core IR of the game under `options` for every player count at once, for backends that reason
    about all of them together (the parametric prover): the options folded, each fact replaced by its
    value or, when it depends on the player count, by its definition; the player count a
    `core.PlayerCount`. No slots or action ids: those exist only for one player count."""
    sink = DiagnosticSink("", "", others=dict(texts or {}))
    folder = fold_facts(model, None, {**model.default_options(), **options}, sink)
    game = core.typed(folder.expr(model))
    _raise_with_source(sink, model)
    return game


def _raise_with_source(sink: DiagnosticSink, model: m.Game) -> None:
    """Raise the diagnostics found, each with its source line for the caret."""
    if not sink.diagnostics:
        return
    texts = {}
    for d in sink.diagnostics:
        if d.span is not None and d.source_line is None:
            if d.span.file not in texts:
                try:
                    with open(d.span.file, encoding="utf-8-sig") as f:
                        texts[d.span.file] = f.read().split("\n")
                except OSError:
                    texts[d.span.file] = []
            lines = texts[d.span.file]
            if 0 < d.span.line <= len(lines):
                d.source_line = lines[d.span.line - 1]
    sink.raise_if_any()


class _Numbering:
    """Stable action ids: one range per action of each choice point, in choice-point order."""

    def __init__(self, game: m.Game, folder: Folder, boards: dict, counts: list[int]):
        self.game, self.folder, self.boards, self.counts = game, folder, boards, counts
        self.enums = {e.name: e for e in game.enums}

    def static(self, e: m.Expr, what: str) -> int:
        return self.folder.value(e, what)

    def domain_size(self, it: core.Domain) -> int:
        if isinstance(it, (core.CardsIn, core.CardsInEvery, core.CardsOf)):
            return len(self.game.components)
        if isinstance(it, core.Seats):
            return self.game.max_players
        if isinstance(it, core.Members):
            return len(self.enums[it.enum].members)
        if isinstance(it, core.Positions):
            rows, columns = self.boards[it.board]
            return rows * columns
        if isinstance(it, core.Items):
            return len(it.items)
        if isinstance(it, core.SubsetsOf):
            size = 1
            for c in self.counts:
                size *= c + 1
            return size
        what = "the bounds of a choice over a range"
        return max(0, self.static(it.high, what) - self.static(it.low, what) + 1)

    def value_names(self, it: core.Domain) -> list[str] | None:
        """How each index of a choice domain reads, for ranges and literal sets."""
        if isinstance(it, core.Numbers):
            low = self.static(it.low, "the bounds of a choice over a range")
            return [str(low + i) for i in range(self.domain_size(it))]
        if isinstance(it, core.Items):
            names = []
            for item in it.items:
                if isinstance(item, m.Const) and item.name:
                    names.append(item.name)
                elif isinstance(item, m.Const) and item.type == m.BOOL:
                    names.append("true" if item.value else "false")
                elif is_const(item):
                    names.append(str(int(item.value)))
                else:
                    names.append(f"#{len(names)}")
            return names
        return None

    def actions(self) -> ActionTable:
        table = ActionTable()
        chooses = sorted((s for body in m.bodies(self.game) for s in m.walk(body) if isinstance(s, m.Choose)),
                         key=lambda c: c.point)
        for c in chooses:
            for ai, action in enumerate(c.actions):
                table.add(c.point, ai, [self.domain_size(b.iter) for b in action.binders],
                          [self.value_names(b.iter) for b in action.binders])
        return table

    def max_chance_value(self) -> int:
        best = 0
        for body in m.bodies(self.game):
            for st in m.walk(body):
                it = st.binder.iter if isinstance(st, m.Random) else None
                if isinstance(it, (core.Numbers, core.Items)):
                    values = [it.high] if isinstance(it, core.Numbers) else list(it.items)
                    best = max([best, *(int(v.value) for v in values if is_const(v))])
        return best


__all__ = ["Config", "instantiate", "lower_expression", "every_count", "Layout", "ActionTable", "core"]
