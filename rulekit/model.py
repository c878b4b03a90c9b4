"""Stage 3: the model of a game, the one IR every backend reads.

Frozen, slotted dataclasses; children are tuples; spans and quotes are kept for
provenance but excluded from equality, so two specs that say the same thing in
different places compare equal.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields

from .errors import Span

_meta = dict(compare=False, repr=False)


def _span():
    return field(default=None, **_meta)


def _quotes():
    return field(default=(), **_meta)


def _phrase():
    """How the docs say a declaration in English (`phrase "..."`): for readers, so not part of equality."""
    return field(default=None, **_meta)


def _bookkeeping():
    """A record kept for the engine that a player need not read (`bookkeeping`): docs only."""
    return field(default=False, **_meta)


# ---- types -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Type:
    """`kind` is one of: int, bool, player, card, enum, pos (a position of a board), zone, token,
    players, cards, enumset, ints, set. `enum` names the enum of an enum type or the board of a pos."""

    kind: str
    enum: str | None = None
    element: Type | None = None

    def __str__(self) -> str:
        if self.kind in ("enum", "pos"):
            return self.enum or self.kind
        if self.kind == "set" and self.element is not None:
            return f"set of {self.element}"
        return self.kind


INT, BOOL, PLAYER, CARD, ZONE, TOKEN = (Type(k) for k in ("int", "bool", "player", "card", "zone", "token"))
PLAYERS, CARDS, INTS = Type("players"), Type("cards"), Type("ints")
ERROR = Type("error")  # an expression already reported as wrong: no further type errors about it


def enum_type(name: str) -> Type:
    return Type("enum", name)


def pos_type(board: str) -> Type:
    return Type("pos", board)


# ---- expressions --------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Expr:
    pass


@dataclass(frozen=True, slots=True)
class Const(Expr):
    value: int
    type: Type
    name: str | None = None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Local(Expr):
    slot: int
    name: str
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class FactRef(Expr):
    fact: str
    type: Type = INT
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class VarRef(Expr):
    var: str
    player: Expr | None
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class ZoneRef(Expr):
    zone: str
    player: Expr | None
    type: Type = ZONE
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Builtin(Expr):
    """current, player_count, size(zone), next(p), previous(p), seat(n), supply(token), held(token, p),
    min, max, abs, top(zone) and bottom(zone) (the last and the first card of a stack)."""

    name: str
    args: tuple[Expr, ...]
    type: Type
    token: str | None = None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Attr(Expr):
    target: Expr
    attr: str
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    op: str
    operand: Expr
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class IfExpr(Expr):
    cond: Expr
    then: Expr
    orelse: Expr
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class OptionIs(Expr):
    ambiguity: str
    option: str
    type: Type = BOOL
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class SetLit(Expr):
    items: tuple[Expr, ...]
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Iter:
    """What a binder ranges over: `kind` is cards (distinct kinds in a zone, or in every zone of a
    per-player family when `every` names it), players, enum, board (its positions, `enum` names it),
    set, range."""

    kind: str
    element: Type
    zone: Expr | None = None
    every: str | None = None
    start: Expr | None = None
    enum: str | None = None
    items: tuple[Expr, ...] = ()
    low: Expr | None = None
    high: Expr | None = None


@dataclass(frozen=True, slots=True)
class Binder:
    slot: int
    name: str
    iter: Iter
    cond: Expr | None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Quant(Expr):
    """count (copies of matching cards, or matching elements), exists, the, forall, sum, and the
    aggregates max, min (a value) and argmax, argmin (an element, the first of equals)."""

    kind: str
    binder: Binder
    body: Expr | None
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class ProcedureCall(Expr):
    """The value of a function: a procedure with a result type, called in an expression."""

    procedure: str
    args: tuple[Expr, ...]
    type: Type
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class DefineCall(Expr):
    define: str
    args: tuple[Expr, ...]
    type: Type
    span: Span | None = _span()


# ---- statements ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Stmt:
    pass


_KEYWORDS = {"Move": "move", "Shuffle": "shuffle", "TokenPass": "move (tokens)", "Reverse": "reverse order",
             "Return": "return", "If": "if", "For": "for", "Loop": "loop", "Break": "break", "Let": "let",
             "Do": "do", "Choose": "choose", "Random": "random", "Reveal": "reveal", "Win": "win",
             "Announce": "announce", "CheckTriggers": "check triggers", "Rotate": "rotate", "Rounds": "rounds",
             "Turns": "turns", "Rule": "rule", "While": "while"}


def keyword(s: Stmt) -> str:
    """The statement as a spec writes it (`random`, `add`, `end turn`), for messages about it."""
    name = type(s).__name__
    if name == "Assign":
        return {"=": "set", "+": "add", "-": "subtract"}.get(getattr(s, "op", "="), "set")
    if name == "TokenMove":
        return "take" if getattr(s, "to_player", True) else "return"
    if name == "End":
        return f"end {getattr(s, 'what', '')}".strip()
    return _KEYWORDS.get(name, name)  # a node the language does not have yet: its class names it


@dataclass(frozen=True, slots=True)
class Selector:
    """top, bottom, all (optionally filtered), one (first matching kind), card (a given kind)."""

    kind: str
    slot: int | None = None
    cond: Expr | None = None
    card: Expr | None = None


@dataclass(frozen=True, slots=True)
class Move(Stmt):
    selector: Selector
    source: Expr
    dest: Expr
    at_bottom: bool
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Shuffle(Stmt):
    zone: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    """`set` (op '='), `add` (op '+'), `subtract` (op '-')."""

    var: str
    player: Expr | None
    op: str
    value: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class TokenMove(Stmt):
    """`take` (from the supply, to_player=True) or `return` (to the supply)."""

    token: str
    amount: Expr
    player: Expr
    to_player: bool
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class TokenPass(Stmt):
    """Tokens handed from player `source` to player `dest` (a steal): as many as asked, at most what
    the source holds and what the destination's cap leaves room for."""

    token: str
    amount: Expr
    source: Expr
    dest: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Reverse(Stmt):
    """The order of play turns around: `next`, `previous`, the turns and `players from` follow it."""

    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    """The value of a function (a procedure with a result type): the call ends here."""

    value: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class For(Stmt):
    binder: Binder
    body: tuple[Stmt, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Loop(Stmt):
    """`loop` (cond None) or `while`."""

    cond: Expr | None
    body: tuple[Stmt, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Let(Stmt):
    slot: int
    name: str
    value: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Do(Stmt):
    procedure: str
    args: tuple[Expr, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Action:
    name: str
    label: str | None
    binders: tuple[Binder, ...]
    when: Expr | None
    body: tuple[Stmt, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()
    phrase: str | None = _phrase()
    secret: bool = False  # the other seats see that it was taken, not which one nor its parameters
    secret_params: frozenset = frozenset()  # parameters the other seats do not see


@dataclass(frozen=True, slots=True)
class Choose(Stmt):
    """A decision of player `by` among `actions`; `point` numbers it for stable action ids."""

    point: int
    by: Expr
    actions: tuple[Action, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Random(Stmt):
    """A chance event: uniform over the binder's values (cards weighted by their copies), or weighted
    by `weight`, an int expression of the value (0 excludes a value)."""

    point: int
    binder: Binder
    span: Span | None = _span()
    quotes: tuple = _quotes()
    weight: Expr | None = None


@dataclass(frozen=True, slots=True)
class Reveal(Stmt):
    zone: Expr
    to: Expr | None  # None: everyone
    span: Span | None = _span()
    quotes: tuple = _quotes()
    card: Expr | None = None  # one card of the zone, or None: the whole zone


@dataclass(frozen=True, slots=True)
class Win(Stmt):
    player: Expr | None  # None: everyone
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Announce(Stmt):
    """Player `by` states `value` out loud: everyone observes the statement, true or not."""

    value: Expr
    by: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class CheckTriggers(Stmt):
    """A quiet moment on demand: the armed triggers whose condition holds fire here."""

    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class End(Stmt):
    what: str  # turn, round, game
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Rotate(Stmt):
    zone: str
    step: int  # +1 to the next player, -1 to the previous
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Rounds(Stmt):
    body: tuple[Stmt, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Turns(Stmt):
    start: Expr
    body: tuple[Stmt, ...]
    then: tuple[Stmt, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Rule(Stmt):
    name: str
    title: str | None
    body: tuple[Stmt, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


# ---- declarations -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class QuoteRef:
    """A verbatim rulebook quote and where the spec cites it."""

    text: str
    span: Span | None = _span()
    translation: str | None = field(default=None, compare=False)  # ours, marked as such in the docs
    owner: str | None = field(default=None, compare=False)  # the header line that carries it, for messages


@dataclass(frozen=True, slots=True)
class EnumDecl:
    name: str
    members: tuple[str, ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()
    phrase: str | None = _phrase()  # the English noun of the enum ("kind of card")
    member_phrases: tuple[tuple[str, str], ...] = field(default=(), **_meta)  # (member, its English)


@dataclass(frozen=True, slots=True)
class Component:
    name: str
    display: str
    category: str
    count: Expr
    attrs: tuple[tuple[str, Expr], ...]
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class AttrDecl:
    name: str
    type: Type
    phrase: str | None = _phrase()


@dataclass(frozen=True, slots=True)
class Fact:
    name: str
    value: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()
    phrase: str | None = _phrase()


@dataclass(frozen=True, slots=True)
class Claim:
    name: str
    expr: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class TokenDecl:
    name: str
    display: str
    count: Expr
    cap: Expr | None
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class BoardDecl:
    """A grid of positions, `rows` by `columns`; a position has a row and a column from 1."""

    name: str
    rows: Expr
    columns: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()
    phrase: str | None = _phrase()


@dataclass(frozen=True, slots=True)
class ZoneDecl:
    name: str
    per_player: bool
    shape: str  # stack (ordered, top last) or set (unordered)
    visibility: str  # hidden, owner, public
    initial: bool
    span: Span | None = _span()
    quotes: tuple = _quotes()
    per_board: str | None = None  # one zone per position of this board
    phrase: str | None = _phrase()

    @property
    def indexed(self) -> bool:
        return self.per_player or self.per_board is not None


@dataclass(frozen=True, slots=True)
class VarDecl:
    name: str
    per_player: bool
    type: Type
    low: Expr | None
    high: Expr | None
    init: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()
    # or owner (a per-player variable seen by its player only), hidden, or internal (bookkeeping for the
    # checks: hidden from every player and left out of what they are shown)
    visibility: str = "public"
    phrase: str | None = _phrase()
    bookkeeping: bool = _bookkeeping()


@dataclass(frozen=True, slots=True)
class Param:
    slot: int
    name: str
    type: Type


@dataclass(frozen=True, slots=True)
class Define:
    name: str
    params: tuple[Param, ...]
    type: Type
    body: Expr
    nlocals: int
    span: Span | None = _span()
    quotes: tuple = _quotes()
    phrase: str | None = _phrase()


@dataclass(frozen=True, slots=True)
class Procedure:
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    nlocals: int
    span: Span | None = _span()
    quotes: tuple = _quotes()
    phrase: str | None = _phrase()
    bookkeeping: bool = _bookkeeping()
    result: Type | None = None  # a function: it computes a value of this type and changes nothing


@dataclass(frozen=True, slots=True)
class Trigger:
    """Rules that apply as soon as a condition holds: checked whenever the game would next wait for a
    player's decision (a quiet moment: no effect is half done); fires once per time the condition
    becomes true (or once a game)."""

    name: str
    description: str | None
    once: bool
    cond: Expr
    body: tuple[Stmt, ...]
    nlocals: int
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Option:
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Ambiguity:
    name: str
    title: str
    kind: str  # ambiguity, contradiction, silence, translation, missing-reference
    question: str
    options: tuple[Option, ...]
    default: str
    reason: str
    span: Span | None = _span()
    quotes: tuple = _quotes()

    def option_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)


@dataclass(frozen=True, slots=True)
class Unmodelled:
    reason: str
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Property:
    """A claim about every reachable state (invariant) or about some reachable state (reachable)."""

    kind: str  # invariant or reachable
    name: str
    description: str | None
    expr: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()
    under: tuple = ()  # (ambiguity, option) pairs: the property is claimed only under these options

    def applies(self, options: dict) -> bool:
        """Whether the property is claimed under this choice of options."""
        return all(options.get(name) == option for name, option in self.under)


@dataclass(frozen=True, slots=True)
class Example:
    """A rulebook example: from the start of a game of `players` under `under`, the steps (decisions
    and chance outcomes, as the engine names them) lead to a state where `expr` holds."""

    name: str
    description: str | None
    players: int
    under: tuple  # (ambiguity, option) pairs
    steps: tuple  # (text, span) per step
    expr: Expr
    span: Span | None = _span()
    quotes: tuple = _quotes()


@dataclass(frozen=True, slots=True)
class Expected:
    """A finding that `rulekit check` reports but that does not fail the run."""

    name: str
    finding: str
    reason: str
    span: Span | None = _span()
    quotes: tuple = _quotes()  # the rulebook's words that make the finding expected


@dataclass(frozen=True, slots=True)
class Game:
    name: str
    title: str
    rulebook: str
    source: str
    min_players: int
    max_players: int
    order: str
    payoff: tuple[int, int]
    enums: tuple[EnumDecl, ...]
    attrs: tuple[AttrDecl, ...]
    components: tuple[Component, ...]
    facts: tuple[Fact, ...]
    claims: tuple[Claim, ...]
    tokens: tuple[TokenDecl, ...]
    zones: tuple[ZoneDecl, ...]
    vars: tuple[VarDecl, ...]
    defines: tuple[Define, ...]
    procedures: tuple[Procedure, ...]
    flow: Procedure
    ambiguities: tuple[Ambiguity, ...]
    unmodelled: tuple[Unmodelled, ...]
    choice_points: int
    random_points: int
    properties: tuple[Property, ...] = ()
    expected: tuple[Expected, ...] = ()
    examples: tuple[Example, ...] = ()
    boards: tuple[BoardDecl, ...] = ()
    triggers: tuple[Trigger, ...] = ()
    spec_path: str = field(default="", compare=False)
    quotes: tuple = _quotes()
    # The constructs the spec uses that change how backends compile it (`NO_PLAYER_USED`, ...): found by
    # the resolver once, so that no backend walks the whole model to learn it.
    uses: frozenset = field(default=frozenset(), compare=False)

    def ambiguity(self, name: str) -> Ambiguity:
        return next(a for a in self.ambiguities if a.name == name)

    def default_options(self) -> dict[str, str]:
        return {a.name: a.default for a in self.ambiguities}


# ---- walking the model ------------------------------------------------------------

def is_node(value) -> bool:
    """Whether `value` is a node of the model (a dataclass instance, not a dataclass itself): cheaper
    than `dataclasses.is_dataclass`, which the passes would call at every value they walk."""
    return hasattr(type(value), "__dataclass_fields__")


@functools.cache
def field_names(cls: type) -> tuple[str, ...]:
    """The names of a dataclass's fields: the passes walk millions of nodes, and `dataclasses.fields`
    rebuilds its answer at every call."""
    return tuple(f.name for f in fields(cls))


@functools.cache
def compared_field_names(cls: type) -> tuple[str, ...]:
    """The names of the fields that make a node what it is (`compare=True`): not its span or notes."""
    return tuple(f.name for f in fields(cls) if f.compare)


def children(node) -> list:
    """The model nodes directly inside a node, however deeply nested in tuples (an `if`'s branches).
    A list built in one go, not a generator: the passes ask for the children of every node they walk."""
    out: list = []
    for name in field_names(type(node)):
        value = getattr(node, name)
        if type(value) in _LEAVES:
            continue
        _flat(value, out)
    return out


_LEAVES = frozenset({str, int, bool, float, type(None)})  # field values that hold no node


def _flat(value, out: list) -> None:
    if isinstance(value, (tuple, list)):
        for item in value:
            _flat(item, out)
    elif hasattr(type(value), "__dataclass_fields__"):
        out.append(value)


def bodies(game: Game):
    """Every statement list that runs: the flow, each procedure, each trigger."""
    yield game.flow.body
    for p in game.procedures:
        yield p.body
    for t in game.triggers:
        yield t.body


def walk(stmts, actions: bool = False):
    """Every statement below `stmts`, depth first; with `actions`, each choice's actions too."""
    for st in stmts:
        yield st
        if isinstance(st, If):
            for _, body in st.branches:
                yield from walk(body, actions)
            yield from walk(st.orelse, actions)
        elif isinstance(st, Choose):
            for a in st.actions:
                if actions:
                    yield a
                yield from walk(a.body, actions)
        elif isinstance(st, Turns):
            yield from walk(st.body, actions)
            yield from walk(st.then, actions)
        elif isinstance(getattr(st, "body", None), tuple):
            yield from walk(st.body, actions)


def nodes(root):
    """Every model node below `root` (itself included), depth first, without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (Type, Span)):
            continue
        yield node
        stack.extend(reversed(list(children(node))))


NO_PLAYER = -1  # the value of `none`, the "no player" of a player-valued variable


# What `Game.uses` may hold.
NO_PLAYER_USED, REVERSE_USED, STACK_END_USED = "none", "reverse order", "top/bottom"


def is_no_player(e) -> bool:
    """Whether an expression is the literal `none`."""
    return isinstance(e, Const) and e.type == PLAYER and e.name == "none"


def uses_no_player(game: Game) -> bool:
    """Whether the game ever says `none`: then a player value may be no player at all."""
    return NO_PLAYER_USED in game.uses


def reverses_order(game: Game) -> bool:
    """Whether the order of play can turn around during the game (`reverse order`)."""
    return REVERSE_USED in game.uses


def reads_stack_ends(game: Game) -> bool:
    """Whether the game reads `top(Z)` or `bottom(Z)` as a value."""
    return STACK_END_USED in game.uses
