"""The core IR's own nodes: builtins, iteration domains and card selectors, each a type of its own.

The model spells these as a name (or a `kind`) with optional fields, which suits the docs: they read a
builtin by its name. The core IR gives each one a node type with exactly the fields it has, so a
backend dispatches on the type and a field that a construct does not have cannot be read by mistake.
Everything else in the core IR is the model's own vocabulary, folded (`lower.fold`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .. import model as m
from ..errors import InternalError

_meta = dict(compare=False, repr=False)


def _span():
    return field(default=None, **_meta)


# ---- builtins ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Current(m.Expr):
    """The player whose turn it is."""

    type: m.Type = m.PLAYER
    span: object = _span()


@dataclass(frozen=True, slots=True)
class PlayerCount(m.Expr):
    """The number of players, where it is symbolic (`lower.every_count`); a constant everywhere else."""

    type: m.Type = m.INT
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Size(m.Expr):
    """How many cards a zone (or a set of cards) holds."""

    of: m.Expr
    type: m.Type = m.INT
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Neighbour(m.Expr):
    """The player `step` seats away in the order of play: +1 `next(p)`, -1 `previous(p)`."""

    player: m.Expr
    step: int
    type: m.Type = m.PLAYER
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Seat(m.Expr):
    """`seat(n)`: the player in seat n (a runtime error outside the table)."""

    number: m.Expr
    type: m.Type = m.PLAYER
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Supply(m.Expr):
    """The tokens of a kind still in the supply."""

    token: str
    type: m.Type = m.INT
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Held(m.Expr):
    """The tokens of a kind a player holds."""

    token: str
    player: m.Expr
    type: m.Type = m.INT
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Near(m.Expr):
    """Two positions of a board next to each other: `adjacent` (diagonals too) or `orthogonal`."""

    board: str
    a: m.Expr
    b: m.Expr
    diagonal: bool
    type: m.Type = m.BOOL
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Smaller(m.Expr):
    """`min(a, b)`."""

    a: m.Expr
    b: m.Expr
    type: m.Type = m.INT
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Larger(m.Expr):
    """`max(a, b)`."""

    a: m.Expr
    b: m.Expr
    type: m.Type = m.INT
    span: object = _span()


@dataclass(frozen=True, slots=True)
class Abs(m.Expr):
    of: m.Expr
    type: m.Type = m.INT
    span: object = _span()


@dataclass(frozen=True, slots=True)
class StackEnd(m.Expr):
    """`top(zone)` (`top`) or `bottom(zone)`: the last or the first card of a stack, as a value.
    A runtime error when the stack is empty; on a shuffled stack, its card is a chance event."""

    zone: m.Expr
    top: bool
    type: m.Type = m.CARD
    span: object = _span()


# ---- iteration domains (what a binder ranges over) ---------------------------------------------------

@dataclass(frozen=True, slots=True)
class Domain:
    element: m.Type


@dataclass(frozen=True, slots=True)
class CardsIn(Domain):
    """The cards in one zone: each distinct kind, or every copy, as the construct counts them."""

    zone: m.Expr


@dataclass(frozen=True, slots=True)
class CardsInEvery(Domain):
    """The cards in all the zones of a per-player family together (`every hand`)."""

    family: str


@dataclass(frozen=True, slots=True)
class Seats(Domain):
    """Every player: from seat 0 up, or from `start` in the order of play (`players from P`)."""

    start: m.Expr | None = None


@dataclass(frozen=True, slots=True)
class Members(Domain):
    """The members of an enum, in declaration order."""

    enum: str


@dataclass(frozen=True, slots=True)
class Positions(Domain):
    """The positions of a board, row by row."""

    board: str


@dataclass(frozen=True, slots=True)
class Items(Domain):
    """The listed values `{a, b, ...}`."""

    items: tuple[m.Expr, ...]


@dataclass(frozen=True, slots=True)
class Numbers(Domain):
    """The integers `low..high`."""

    low: m.Expr
    high: m.Expr


@dataclass(frozen=True, slots=True)
class CardsOf(Domain):
    """The cards of a set of cards (a `subsets` parameter): every copy."""

    cards: m.Expr


@dataclass(frozen=True, slots=True)
class SubsetsOf(Domain):
    """Every set of cards that can be taken from a zone."""

    zone: m.Expr


# ---- card selectors of `move` --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Selector:
    pass


@dataclass(frozen=True, slots=True)
class TopCard(Selector):
    pass


@dataclass(frozen=True, slots=True)
class BottomCard(Selector):
    pass


@dataclass(frozen=True, slots=True)
class AllCards(Selector):
    """Every card of the zone, or every card that meets `cond` (the card bound to `slot`)."""

    slot: int | None = None
    cond: m.Expr | None = None


@dataclass(frozen=True, slots=True)
class FirstCard(Selector):
    """`one`: the first card that meets `cond` (in the zone's order)."""

    slot: int | None = None
    cond: m.Expr | None = None


@dataclass(frozen=True, slots=True)
class GivenCard(Selector):
    """A card of a given kind, or a given set of cards."""

    card: m.Expr


# ---- the pass: the model's spelling to the core IR's nodes ----------------------------------------------

class TypedMemo:
    """What `typed` made of the nodes of one model, kept across its configurations.

    Folding a configuration rebuilds only the nodes that its facts and options change; every other
    node is the model's own, and turns into the same core IR node every time. Only the model's own
    nodes are kept: they live as long as the model, so their ids stay theirs."""

    def __init__(self, model):
        self.model = model  # keeps the nodes, and so their ids, alive
        self.own: set[int] = set()
        self.results: dict[int, object] = {}
        stack = [model]
        while stack:
            node = stack.pop()
            if isinstance(node, tuple):
                stack.extend(node)
            elif m.is_node(node) and not isinstance(node, m.Type) and id(node) not in self.own:
                self.own.add(id(node))
                stack.extend(getattr(node, name) for name in m.compared_field_names(type(node)))


def typed(node, memo: TypedMemo | None = None):
    """The node with every builtin, domain and selector below it turned into its core IR node. A `rule`
    stays: it runs its statements and nothing else, and its name and quotes are what reports and
    witnesses cite for the statements inside it. `memo`: the model's nodes already turned."""
    if isinstance(node, tuple):
        items = tuple(typed(x, memo) for x in node)
        return node if all(a is b for a, b in zip(items, node)) else items
    if isinstance(node, m.Type) or not m.is_node(node):
        return node
    if memo is not None and id(node) in memo.own:
        done = memo.results.get(id(node))
        if done is None:
            done = memo.results[id(node)] = _typed_node(node, memo)
        return done
    return _typed_node(node, memo)


def _typed_node(node, memo: TypedMemo | None):
    changes = {}
    for name in m.compared_field_names(type(node)):
        old = getattr(node, name)
        new = typed(old, memo)
        if new is not old:
            changes[name] = new
    node = dataclasses.replace(node, **changes) if changes else node
    if isinstance(node, m.Builtin):
        return _builtin(node)
    if isinstance(node, m.Iter):
        return _domain(node)
    if isinstance(node, m.Selector):
        return _selector(node)
    return node


def _builtin(e: m.Builtin) -> m.Expr:
    a, span = e.args, e.span
    if e.name == "current":
        return Current(span=span)
    if e.name == "player_count":
        return PlayerCount(span=span)
    if e.name == "size":
        return Size(a[0], span=span)
    if e.name in ("next", "previous"):
        return Neighbour(a[0], 1 if e.name == "next" else -1, span=span)
    if e.name == "seat":
        return Seat(a[0], span=span)
    if e.name == "supply":
        return Supply(e.token, span=span)
    if e.name == "held":
        return Held(e.token, a[0], span=span)
    if e.name in ("adjacent", "orthogonal"):
        return Near(e.token, a[0], a[1], e.name == "adjacent", span=span)
    if e.name == "min":
        return Smaller(a[0], a[1], span=span)
    if e.name == "max":
        return Larger(a[0], a[1], span=span)
    if e.name == "abs":
        return Abs(a[0], span=span)
    if e.name in ("top", "bottom"):
        return StackEnd(a[0], e.name == "top", span=span)
    raise InternalError(f"the core IR has no builtin {e.name!r}")


def _domain(it: m.Iter) -> Domain:
    kind, element = it.kind, it.element
    if kind == "cards":
        return CardsInEvery(element, it.every) if it.every is not None else CardsIn(element, it.zone)
    if kind == "players":
        return Seats(element, it.start)
    if kind == "enum":
        return Members(element, it.enum)
    if kind == "board":
        return Positions(element, it.enum)
    if kind == "set":
        return Items(element, it.items)
    if kind == "range":
        return Numbers(element, it.low, it.high)
    if kind == "bag":
        return CardsOf(element, it.zone)
    if kind == "subsets":
        return SubsetsOf(element, it.zone)
    raise InternalError(f"the core IR has no domain {kind!r}")


def _selector(sel: m.Selector) -> Selector:
    if sel.kind == "top":
        return TopCard()
    if sel.kind == "bottom":
        return BottomCard()
    if sel.kind == "all":
        return AllCards(sel.slot, sel.cond)
    if sel.kind == "one":
        return FirstCard(sel.slot, sel.cond)
    if sel.kind == "card":
        return GivenCard(sel.card)
    raise InternalError(f"the core IR has no selector {sel.kind!r}")


__all__ = ["Current", "PlayerCount", "Size", "Neighbour", "Seat", "Supply", "Held", "Near", "Smaller", "Larger", "Abs", "StackEnd",
           "Domain", "CardsIn", "CardsInEvery", "Seats", "Members", "Positions", "Items", "Numbers", "CardsOf",
           "SubsetsOf", "Selector", "TopCard", "BottomCard", "AllCards", "FirstCard", "GivenCard", "typed"]
