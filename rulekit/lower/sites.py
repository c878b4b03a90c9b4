"""Silent-case sites: the places of one configuration's core IR where, in some states, the language's
default decides instead of a rule.

A rule that says "draw a card" does not say what happens when the deck is empty; the spec then guards the
draw (`if size(deck) > 0 { ... }`) and the draw is skipped. Each such place is known before play:

- `skip`: an `if` without `else` whose condition tests that cards, tokens or matches are there
  (`size(Z) > 0`, `supply(T) >= n`, `exists(...)`, `count(...) > 0`); it is reached when the rest of the
  condition holds and that test fails, so the step is skipped because something is missing;
- `stop`: the same test in a `while` condition: the loop stops because something ran out;
- `nothing-moved`: `move one c where ...` that finds no card, so nothing moves;
- `empty-loop`: `for` over cards, or over a filtered domain, with nothing to go over;
- `supply-clamp`, `cap-clamp`, `short-return`: a `take` that the supply (or a cap the rulebook does not
  state) clamps, a `return` of more tokens than the player holds;
- `tie`: `the(...)`, `argmax`, `argmin` with more than one candidate: the domain's order picks one;
- `one-option`: a decision among cards, players, positions or values (an action with parameters) that
  offers a single legal action, so the player has nothing to choose.

Each site has a test: an expression of the core IR that holds, just before (or, for `stop`, just after)
its statement runs, exactly when the default decides; the engine built with probes (`rulekit.engine.Game`
with `probes=True`) records the sites whose test held. A `tie` is tested inside its expression; a
`one-option` site is seen at the decision itself, by whoever plays (the count of legal actions).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import model as m
from ..memo import PerObject
from . import core

KINDS = ("skip", "stop", "nothing-moved", "empty-loop", "supply-clamp", "cap-clamp", "short-return", "tie",
         "one-option")


@dataclass(frozen=True, eq=False)
class Site:
    key: str  # stable over configurations: kind@file:line:column
    kind: str
    node: object  # the statement (or, for a tie, the expression) of the core IR
    span: object
    owner: str  # the innermost rule, procedure or trigger, or "flow"
    quotes: tuple[str, ...]  # the statement's own quotes, then those of the rules around it
    near: tuple[str, ...]  # the nearest quotes: the statement's own, else those of the innermost rule that has some
    test: m.Expr | None = None  # holds when the default decides; None for a tie (tested in the expression)
    after: bool = False  # tested after the statement (a loop's exit) instead of before
    case: tuple = ()  # the tests of the condition that fail (skip, stop), for messages
    step: object = None  # the statement that is skipped, for messages
    extra_quotes: tuple[str, ...] = field(default=())  # quotes of declarations that state the case (a cap)
    decision: bool = False  # reached at a decision (one-option): seen by whoever plays, not compiled as a probe


def of(config) -> list[Site]:
    """Every silent-case site of a configuration, in a stable order."""
    return _PER_CONFIG.get("silent-case sites", config, lambda: _sites(config))


def _sites(config) -> list[Site]:
    finder = _Finder(config.game)
    game = config.game
    finder.body(game.flow.body, "flow", ())
    for p in game.procedures:
        finder.body(p.body, p.name, (_texts(p),))
    for t in game.triggers:
        finder.expr(t.cond, f"trigger {t.name}", (_texts(t),))
        finder.body(t.body, f"trigger {t.name}", (_texts(t),))
    for d in game.defines:
        finder.expr(d.body, f"define {d.name}", (_texts(d),))
    return finder.sites


_PER_CONFIG = PerObject()


def _texts(node) -> tuple[str, ...]:
    return tuple(q.text for q in getattr(node, "quotes", ()))


class _Finder:
    def __init__(self, game: m.Game):
        self.sites: list[Site] = []
        self.seen: set[int] = set()
        self.tokens = {t.name: t for t in game.tokens}
        self.defines = {d.name: d for d in game.defines}
        self.procs = {p.name: p for p in game.procedures}
        self.used: dict[tuple, tuple] = {}  # (node id, definitions being expanded) -> (node, what `uses` found)

    def uses(self, node, visiting: frozenset = frozenset()) -> set:
        """The zones and tokens a node reads or changes, through the definitions and procedures it calls
        (a set the caller must not change)."""
        key = (id(node), visiting)
        kept = self.used.get(key)
        if kept is None:
            kept = self.used[key] = (node, self._uses(node, visiting))  # the node kept: its id stays its own
        return kept[1]

    def _uses(self, node, visiting: frozenset) -> set:
        out: set = set()
        if isinstance(node, (tuple, list)):
            for x in node:
                out |= self.uses(x, visiting)
            return out
        if isinstance(node, m.ZoneRef):
            out.add(node.zone)
        elif isinstance(node, core.CardsInEvery):
            out.add(node.family)
        elif isinstance(node, (core.Supply, core.Held, m.TokenMove)):
            out.add("token " + node.token)
        elif isinstance(node, m.Rotate):
            out.add(node.zone)
        elif isinstance(node, m.DefineCall) and node.define not in visiting and node.define in self.defines:
            out |= self.uses(self.defines[node.define].body, visiting | {node.define})
        elif isinstance(node, m.Do) and node.procedure not in visiting and node.procedure in self.procs:
            out |= self.uses(self.procs[node.procedure].body, visiting | {node.procedure})
        if isinstance(node, (m.Expr, m.Stmt, m.Binder, m.Action, core.Domain, core.Selector)):
            for child in m.children(node):
                out |= self.uses(child, visiting)
        return out

    def needed_by(self, missing, body) -> bool:
        """Whether the step uses what the failing test counts: then it is skipped for want of it
        (`if size(deck) > 0 { draw }`), not for a condition of the rule (`if holds(Ace) { win }`)."""
        return bool(self.uses(missing) & self.uses(body))

    def add(self, kind: str, node, owner: str, around: tuple, **more) -> None:
        span = getattr(node, "span", None)
        where = f"{span.file}:{span.line}:{span.column}" if span is not None else f"#{len(self.sites)}"
        quotes = tuple(text for group in around for text in group)
        near = next((group for group in around if group), ())
        self.sites.append(Site(f"{kind}@{where}", kind, node, span, owner, quotes, near, **more))

    def body(self, stmts, owner: str, around: tuple) -> None:
        for st in stmts:
            self.stmt(st, owner, around)

    def stmt(self, st, owner: str, around: tuple) -> None:
        quotes = (_texts(st), *around)
        if isinstance(st, m.Rule):
            self.body(st.body, st.name, quotes)
            return
        for e in _exprs_of(st):
            self.expr(e, owner, quotes)
        if isinstance(st, m.If):
            # Branches folded to `false` (an option not chosen) are not there; one folded to `true` is an else.
            live = [(c, body) for c, body in st.branches if not _constant(c, 0)]
            if len(live) == 1 and not st.orelse and not _constant(live[0][0], 1):
                cond, body = live[0]
                split = _split(cond, self.defines)
                if split is not None and self.needed_by(split[1], body):
                    rest, missing = split
                    self.add("skip", st, owner, quotes, test=_and(rest, _not(missing)), case=_split_parts(cond, self.defines),
                             step=body[0] if body else None)
            for _, body in st.branches:
                self.body(body, owner, quotes)
            self.body(st.orelse, owner, quotes)
        elif isinstance(st, m.Loop):
            split = _split(st.cond, self.defines) if st.cond is not None else None
            # A loop that runs until a zone is empty ends normally; it stops short only when it had
            # another reason to go on.
            if split is not None and split[0] is not None and self.needed_by(split[1], st.body) \
                    and not any(isinstance(x, m.Break) for x in m.walk(st.body)):
                rest, missing = split
                self.add("stop", st, owner, quotes, test=_and(rest, _not(missing)), after=True,
                         case=_split_parts(st.cond, self.defines),
                         step=st.body[0] if st.body else None)
            self.body(st.body, owner, quotes)
        elif isinstance(st, m.For):
            b = st.binder
            if isinstance(b.iter, (core.CardsIn, core.CardsInEvery)) or b.cond is not None:
                self.add("empty-loop", st, owner, quotes, test=_not(m.Quant("exists", b, None, m.BOOL)),
                         step=st.body[0] if st.body else None)
            self.body(st.body, owner, quotes)
        elif isinstance(st, m.Move):
            sel = st.selector
            if isinstance(sel, core.FirstCard) and sel.cond is not None:
                binder = m.Binder(sel.slot, "card", core.CardsIn(m.CARD, st.source), sel.cond)
                self.add("nothing-moved", st, owner, quotes, test=_not(m.Quant("exists", binder, None, m.BOOL)))
        elif isinstance(st, m.TokenMove):
            held = core.Held(st.token, st.player)
            decl = self.tokens[st.token]
            if st.to_player:
                short = m.Binary(">", st.amount, core.Supply(st.token), m.BOOL)
                if decl.cap is None:
                    self.add("supply-clamp", st, owner, quotes, test=short, extra_quotes=_texts(decl))
                else:  # the supply clamps only where the cap does not already
                    room = m.Binary("-", decl.cap, held, m.INT)
                    self.add("supply-clamp", st, owner, quotes, extra_quotes=_texts(decl),
                             test=_and(short, m.Binary("<=", st.amount, room, m.BOOL)))
                    self.add("cap-clamp", st, owner, quotes, test=m.Binary(">", st.amount, room, m.BOOL),
                             extra_quotes=_texts(decl))
            else:
                self.add("short-return", st, owner, quotes, test=m.Binary(">", st.amount, held, m.BOOL))
        elif isinstance(st, m.Choose):
            if any(a.binders for a in st.actions):
                self.add("one-option", st, owner, quotes, decision=True)
            for a in st.actions:
                aq = (_texts(a), *quotes)
                for b in a.binders:
                    self.expr(b.cond, owner, aq)
                self.expr(a.when, owner, aq)
                self.body(a.body, owner, aq)
        elif isinstance(st, m.Turns):
            self.body(st.body, owner, quotes)
            self.body(st.then, owner, quotes)
        elif isinstance(getattr(st, "body", None), tuple):
            self.body(st.body, owner, quotes)

    def expr(self, e, owner: str, quotes: tuple) -> None:
        if e is None or not isinstance(e, (m.Expr, m.Binder, core.Domain)):
            return
        if isinstance(e, m.Quant) and e.kind in ("the", "argmax", "argmin") and id(e) not in self.seen:
            self.seen.add(id(e))
            self.add("tie", e, owner, quotes)
        for child in m.children(e):
            self.expr(child, owner, quotes)


def _exprs_of(st) -> list:
    """The expressions a statement evaluates itself (not those of the statements inside it)."""
    if isinstance(st, m.If):
        return [c for c, _ in st.branches]
    if isinstance(st, m.Choose):
        return [st.by]
    if isinstance(st, m.Loop):
        return [st.cond]
    if isinstance(st, m.For):
        return [st.binder]
    if isinstance(st, m.Move):
        sel = st.selector
        return [st.source, st.dest, getattr(sel, "cond", None), getattr(sel, "card", None)]
    if isinstance(st, m.Random):
        return [st.binder, st.weight]
    if isinstance(st, m.Turns):
        return [st.start]
    return [getattr(st, name, None) for name in ("zone", "value", "amount", "player", "by", "to")]


def _constant(e, value: int) -> bool:
    return isinstance(e, m.Const) and e.type == m.BOOL and int(e.value) == value


def _conjuncts(e) -> list:
    if isinstance(e, m.Binary) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _counts_something(e) -> bool:
    return isinstance(e, (core.Size, core.Supply, core.Held)) or (isinstance(e, m.Quant) and e.kind == "count")


def _positive(e) -> bool:
    return isinstance(e, m.Const) and e.type == m.INT and e.value >= 0


def is_availability(e, defines: dict | None = None) -> bool:
    """A test that something is there: cards in a zone, tokens, a match (`exists`), or a definition
    that is such a test."""
    if isinstance(e, m.Quant) and e.kind == "exists":
        # A card that matches; over players or positions, a match only if what it asks is availability
        # (a square that holds a piece), else it is a condition of the rule ("someone reached the score").
        b = e.binder
        return isinstance(b.iter, (core.CardsIn, core.CardsInEvery, core.CardsOf)) or (
            b.cond is not None and any(is_availability(p, defines) for p in _conjuncts(b.cond)))
    if isinstance(e, m.DefineCall) and defines and e.define in defines:
        return all(is_availability(p, defines) for p in _conjuncts(defines[e.define].body))
    if not isinstance(e, m.Binary):
        return False
    if e.op in (">", ">=", "!=") and _counts_something(e.left) and _positive(e.right):
        return e.op != ">=" or e.right.value >= 1
    if e.op in ("<", "<=", "!=") and _counts_something(e.right) and _positive(e.left):
        return e.op != "<=" or e.left.value >= 1
    return False


def _split(cond, defines: dict):
    """(the rest of the condition or None, the availability tests) of a condition, or None if it has none."""
    parts = _conjuncts(cond)
    missing = [p for p in parts if is_availability(p, defines)]
    if not missing:
        return None
    rest = [p for p in parts if not is_availability(p, defines)]
    return _all(rest), _all(missing)


def _split_parts(cond, defines: dict) -> tuple:
    return tuple(p for p in _conjuncts(cond) if is_availability(p, defines))


def _all(parts):
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = m.Binary("and", out, p, m.BOOL)
    return out


def _and(a, b):
    return b if a is None else m.Binary("and", a, b, m.BOOL)


def _not(e):
    return m.Unary("not", e, m.BOOL)


__all__ = ["KINDS", "Site", "of", "is_availability"]
