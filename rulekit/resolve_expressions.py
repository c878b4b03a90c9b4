"""The expressions of a spec resolved: names looked up, types checked, errors reported (see `resolve`
for the codes), and what every part of the resolver shares: its tables of declarations, the scopes of
a procedure's locals, and the helpers that report errors and check types.
"""
from __future__ import annotations

import difflib

from . import model as m
from . import phrases, vocabulary
from .errors import DiagnosticSink, Span
from .syntax import Name, Node

BUILTIN_TYPES = {"int": m.INT, "bool": m.BOOL, "player": m.PLAYER, "card": m.CARD}


class FunctionScope:
    """Local slots of one procedure or define, with nested lexical scopes."""

    def __init__(self):
        self.nlocals = 0
        self.scopes: list[dict[str, m.Local]] = [{}]

    def bind(self, name: str, type_: m.Type, span) -> m.Local:
        local = m.Local(self.nlocals, name, type_, span)
        self.nlocals += 1
        self.scopes[-1][name] = local
        return local

    def lookup(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def push(self):
        self.scopes.append({})

    def pop(self):
        self.scopes.pop()


class ExpressionResolver:
    """Expressions and iteration domains, typed against the declarations collected so far. Its tables are
    those every layer of the resolver reads: `Resolver` fills them in its first pass."""

    def __init__(self, sink: DiagnosticSink):
        self.sink = sink
        self.decls: dict[str, Node] = {}
        self.enum_members: dict[str, list[str]] = {}  # member -> enums that have it
        self.enums: dict[str, m.EnumDecl] = {}
        self.attr_types: dict[str, m.Type] = {}
        self.define_sigs: dict[str, tuple[list[m.Type], m.Type]] = {}
        self.proc_sigs: dict[str, list[m.Type]] = {}
        self.proc_results: dict[str, m.Type | None] = {}  # a function's result type; None for a procedure
        self.function: m.Type | None = None  # the result type of the function being resolved
        self.ambiguities: dict[str, m.Ambiguity] = {}
        self.fn: FunctionScope | None = None
        self.boards: dict[str, Node] = {}
        self.loop_depth = 0
        self.choice_points = 0
        self.random_points = 0
        self.uses: set[str] = set()  # see `Game.uses`

    # ---- helpers
    def error(self, code, message, span, hint=None):
        self.sink.error(code, message, span, hint)

    def unknown(self, name: Name, what: str, candidates, listed: int = 0):
        """E201, with the closest candidate as a hint; or, with `listed`, all of them when there are at
        most that many and none is close (a handful of attributes, say)."""
        candidates = list(candidates)
        close = difflib.get_close_matches(name.text, candidates, n=1)
        hint = f"did you mean '{close[0]}'?" if close else None
        if hint is None and 0 < len(candidates) <= listed:
            hint = f"the {what}s declared: {', '.join(sorted(candidates))}"
        elif hint is None and listed and not candidates:
            hint = f"this spec declares no {what}"
        self.error("E201", f"unknown {what} '{name.text}'", name.span, hint)

    def phrase_text(self, node, name: str, phrase) -> str:
        """The phrase of an enum member: no placeholders."""
        return self._checked(phrase, name, [])

    def phrase(self, node, params: list[str]) -> str | None:
        """The declaration's phrase, each `{name}` checked against its parameters."""
        phrase = node.get("phrase")
        if phrase is None:
            return None
        return self._checked(phrase, node.name.text, params)

    def _checked(self, phrase, name: str, params: list[str]) -> str:
        for problem, offset, length, hint in phrases.problems(phrase.text, params):
            span = phrase.span
            if span.line == span.end_line and span.end_column - span.column - 2 == len(phrase.text):  # no escapes
                column = span.column + 1 + offset  # past the opening quote mark
                span = Span(span.file, span.line, column, span.line, column + length)
            self.error("E208", f"the phrase of '{name}' {problem}", span, hint)
        return phrase.text

    def quotes(self, node, owner: str | None = None) -> tuple:
        return tuple(m.QuoteRef(q.text, q.span, q.translation, owner) for q in node.get("quotes", []) or [])

    def expect(self, expr: m.Expr, want: m.Type, span, what="expression") -> m.Expr:
        got = getattr(expr, "type", None)
        if got is None or m.ERROR in (got, want):
            return expr  # an error was reported where the placeholder was made
        if got != want and not (want.kind == "enum" and got.kind == "enum" and want.enum == got.enum):
            self.error("E202", f"{what} should be {want}, not {got}", span)
        return expr

    def _type(self, node: Node) -> m.Type:
        name = node.name
        if isinstance(name, str):
            return BUILTIN_TYPES[name]
        if name.text in self.enums:
            return m.enum_type(name.text)
        if name.text in self.boards:
            return m.pos_type(name.text)
        self.unknown(name, "type", list(BUILTIN_TYPES) + list(self.enums) + list(self.boards))
        return m.INT

    def real_player(self, e: m.Expr, span, what: str) -> m.Expr:
        """A player expression where a real player is needed: `none` there is E207."""
        self.expect(e, m.PLAYER, span, what)
        if m.is_no_player(e):
            self.error("E207", f"{what} must be a real player, not 'none' (no player)", span)
        return e

    def player_arg(self, n: Node, what: str) -> m.Expr:
        return self.real_player(self.expr(n), n.span, what)

    def zone_expr(self, n: Node) -> m.Expr:
        return self.expect(self.expr(n), m.ZONE, n.span, "a zone")

    def _token_name(self, name: Name) -> str | None:
        decl = self.decls.get(name.text)
        if decl is None or decl.kind != "token":
            self.unknown(name, "token", [k for k, d in self.decls.items() if d.kind == "token"])
            return None
        return name.text

    def binder(self, n: Node) -> m.Binder:
        it = self.iter(n.iter)
        local = self.fn.bind(n.var.text, it.element, n.var.span)
        cond = None
        if n.cond is not None:
            cond = self.expect(self.expr(n.cond), m.BOOL, n.cond.span, "a condition")
        return m.Binder(local.slot, n.var.text, it, cond, n.span)

    def _args(self, arg_nodes, types, name: Name, span) -> tuple[m.Expr, ...]:
        if len(arg_nodes) != len(types):
            self.error("E203", f"'{name.text}' takes {len(types)} argument(s), not {len(arg_nodes)}", span)
            return ()
        return tuple(self.expect(self.expr(a), t, a.span, f"argument {i + 1} of '{name.text}'")
                     for i, (a, t) in enumerate(zip(arg_nodes, types)))

    # ---- iteration domains
    def iter(self, n: Node) -> m.Iter:
        if n.kind == "iter_range":
            low = self.expect(self.expr(n.low), m.INT, n.low.span, "the lower bound")
            high = self.expect(self.expr(n.high), m.INT, n.high.span, "the upper bound")
            return m.Iter("range", m.INT, low=low, high=high)
        if n.kind == "iter_players":
            return m.Iter("players", m.PLAYER, start=self.player_arg(n.start, "the first player"))
        if n.kind == "iter_every":
            decl = self.decls.get(n.zone.text)
            indexed = lambda d: d.kind == "zone" and (d.per_player or d.get("per_board") is not None)  # noqa: E731
            if decl is None or not indexed(decl):
                self.unknown(n.zone, "per-player or per-position zone", [k for k, d in self.decls.items() if indexed(d)])
            return m.Iter("cards", m.CARD, every=n.zone.text)
        if n.kind == "iter_subsets":
            return m.Iter("subsets", m.CARDS, zone=self.zone_expr(n.zone))
        e = n.expr
        if e.kind == "players":
            return m.Iter("players", m.PLAYER)
        if e.kind == "name" and e.name.text in self.enums and self.fn.lookup(e.name.text) is None:
            return m.Iter("enum", m.enum_type(e.name.text), enum=e.name.text)
        if e.kind == "name" and e.name.text in self.boards and self.fn.lookup(e.name.text) is None:
            return m.Iter("board", m.pos_type(e.name.text), enum=e.name.text)
        if e.kind == "set":
            items = tuple(self.expr(i) for i in e.items)
            t = items[0].type
            for item, node in zip(items, e.items):
                self.expect(item, t, node.span, "a member of the set")
            return m.Iter("set", t, items=items)
        value = self.expr(e)
        if value.type == m.ZONE:
            return m.Iter("cards", m.CARD, zone=value)
        if value.type == m.CARDS:
            return m.Iter("bag", m.CARD, zone=value)
        if value.type == m.ERROR:
            return m.Iter("set", value.type, items=(value,))
        self.error("E202", f"cannot range over {value.type}: use a zone, players, an enum, {{a, b}}, a..b "
                   "or subsets(zone)", e.span)
        return m.Iter("set", value.type, items=(value,))

    # ---- expressions
    def expr(self, n: Node, static: bool = False) -> m.Expr:
        return getattr(self, "e_" + n.kind)(n, n.span, static)

    def e_int(self, n, span, static):
        return m.Const(n.value, m.INT, None, span)

    def e_bool(self, n, span, static):
        return m.Const(int(n.value), m.BOOL, None, span)

    def _stack_end(self, word: str, arg: Node, span, static):
        """`top(Z)` or `bottom(Z)`: the last or the first card of a stack."""
        if self._stateful(span, static, word):
            return _error(span)
        zone = self.zone_expr(arg)
        decl = self.decls.get(getattr(zone, "zone", None))
        if decl is not None and decl.shape != "stack":
            self.error("E202", f"{word}(...) reads a stack, and '{decl.name.text}' is a set (it has no order): "
                       f"use the(c in {decl.name.text} where ...) to name a card of it", arg.span)
            return _error(span)
        self.uses.add(m.STACK_END_USED)
        return m.Builtin(word, (zone,), m.CARD, None, span)

    def e_name(self, n, span, static):
        text = n.name.text
        local = self.fn.lookup(text) if self.fn else None
        if local is not None:
            return m.Local(local.slot, local.name, local.type, span)
        if text == "player_count":
            return m.Builtin("player_count", (), m.INT, None, span)
        if text == "current":
            if static:
                self.error("E204", "'current' has no value here: declarations cannot depend on the game state", span)
                return _error(span)
            return m.Builtin("current", (), m.PLAYER, None, span)
        if text in self.enum_members:
            enums = self.enum_members[text]
            if len(enums) > 1:
                self.error("E201", f"'{text}' is a member of several enums ({', '.join(enums)})", span)
            return m.Const(self.enums[enums[0]].members.index(text), m.enum_type(enums[0]), text, span)
        decl = self.decls.get(text)
        if decl is not None:
            if decl.kind == "component":
                return m.Const(-1, m.CARD, text, span)
            if decl.kind == "fact":
                return m.FactRef(text, m.INT, span)
            if decl.kind in ("var", "zone") and static:
                self.error("E204", f"'{text}' is part of the game state; declarations cannot depend on it", span)
                return _error(span)
            if decl.kind == "var":
                if decl.per_player:
                    self.error("E203", f"'{text}' is per player: name the player, as in {text}(p)", span)
                return m.VarRef(text, None, self._type(decl.type), span)
            if decl.kind == "zone":
                if decl.per_player or decl.get("per_board") is not None:
                    what = "player" if decl.per_player else "position"
                    self.error("E203", f"'{text}' is per {what}: name the {what}, as in {text}(x)", span)
                return m.ZoneRef(text, None, m.ZONE, span)
            if decl.kind == "define":
                return self._define_call(n.name, [], span)
            if decl.kind == "procedure" and self.proc_results.get(text) is not None:
                return self._function_call(n.name, [], span, static)
            self.error("E202", f"'{text}' is {article(decl.kind)} {decl.kind}, not a value", span)
            return _error(span)
        if text == "none":  # no player; a spec's own `none` (an enum member, say) comes first
            self.uses.add(m.NO_PLAYER_USED)
            return m.Const(m.NO_PLAYER, m.PLAYER, "none", span)
        self.unknown(n.name, "name", list(self.decls) + list(self.enum_members) + ["current", "player_count", "none"]
                     + ([x for s in self.fn.scopes for x in s] if self.fn else []))
        return _error(span)

    def _unknown_function(self, name: Name) -> None:
        callable_ = [d for d, decl in self.decls.items() if decl.kind in ("define", "zone", "var", "token")]
        close = difflib.get_close_matches(name.text, callable_ + list(vocabulary.BUILTIN_FUNCTIONS), n=1)
        defines = [d for d, decl in self.decls.items() if decl.kind == "define"]
        hint = (f"did you mean '{close[0]}'? " if close else "") + \
            f"built-in functions: {vocabulary.describe_functions()}" + \
            (f"; defined in this spec: {', '.join(sorted(defines))}" if defines else "") + \
            f"; aggregates: {vocabulary.describe_aggregates()}"
        self.error("E201", f"unknown function '{name.text}'", name.span, hint)

    def _function_call(self, name: Name, args, span, static):
        if static:
            self.error("E204", f"'{name.text}' is a function of the game state; declarations cannot depend on it", span)
            return _error(span)
        return m.ProcedureCall(name.text, self._args(args, self.proc_sigs[name.text], name, span),
                               self.proc_results[name.text], span)

    def _define_call(self, name: Name, args, span):
        types, result = self.define_sigs[name.text]
        return m.DefineCall(name.text, self._args(args, types, name, span), result, span)

    def e_call(self, n, span, static):
        text, args = n.name.text, n.args
        one = lambda want, what: self.expect(self.expr(args[0], static), want, args[0].span, what)  # noqa: E731
        builtins = {name: vocabulary.arity(name) for name in vocabulary.BUILTIN_FUNCTIONS}
        if text in builtins and text not in self.decls:
            if len(args) != builtins[text]:
                self.error("E203", f"'{text}' takes {builtins[text]} argument(s), not {len(args)}", span)
                return _error(span)
            if text == "size":
                arg = self.expr(args[0], static)
                if getattr(arg, "type", None) != m.CARDS:
                    arg = self.expect(arg, m.ZONE, args[0].span, "a zone or a set of cards")
                return m.Builtin("size", (arg,), m.INT, None, span)
            if text in ("next", "previous"):
                return m.Builtin(text, (self.real_player(self.expr(args[0], static), args[0].span, "a player"),),
                                 m.PLAYER, None, span)
            if text == "seat":
                return m.Builtin("seat", (one(m.INT, "a seat number"),), m.PLAYER, None, span)
            if text in ("adjacent", "orthogonal"):
                a, b = (self.expr(x, static) for x in args)
                if a.type.kind != "pos" and a.type != m.ERROR:
                    self.error("E202", f"'{text}' compares two positions of a board, not {a.type}", args[0].span)
                    return _error(span)
                self.expect(b, a.type, args[1].span, f"the second position of '{text}'")
                return m.Builtin(text, (a, b), m.BOOL, a.type.enum, span)
            if text in ("top", "bottom"):
                return self._stack_end(text, args[0], span, static)
            if text == "supply":
                if args[0].kind != "name":
                    self.error("E202", "supply(...) takes a token name", span)
                    return _error(span)
                token = self._token_name(args[0].name)
                return m.Builtin("supply", (), m.INT, token, span)
            xs = tuple(self.expect(self.expr(a, static), m.INT, a.span, f"an argument of '{text}'") for a in args)
            return m.Builtin(text, xs, m.INT, None, span)
        decl = self.decls.get(text)
        if decl is None:
            self._unknown_function(n.name)
            return _error(span)
        if decl.kind == "define":
            return self._define_call(n.name, args, span)
        if decl.kind == "procedure":
            if self.proc_results.get(text) is None:
                self.error("E202", f"'{text}' is a procedure: it changes the game and gives no value; run it with "
                           f"`do {text}(...)`, or give it a result type (`procedure {text}(...): int`) to make it a "
                           "function", span)
                return _error(span)
            return self._function_call(n.name, args, span, static)
        if decl.kind in ("zone", "var", "token"):
            if static:
                self.error("E204", f"'{text}' is part of the game state; declarations cannot depend on it", span)
            per_player = decl.kind == "token" or decl.per_player
            board = decl.get("per_board") if decl.kind == "zone" else None
            if not (per_player or board is not None) or len(args) != 1:
                wants = "one player" if per_player else "one position" if board is not None else "no argument"
                self.error("E203", f"'{text}' takes {wants}", span)
                return _error(span)
            if board is not None:
                return m.ZoneRef(text, one(m.pos_type(board.text), f"a position of '{board.text}'"), m.ZONE, span)
            player = self.real_player(self.expr(args[0], static), args[0].span, "the player")
            if decl.kind == "zone":
                return m.ZoneRef(text, player, m.ZONE, span)
            if decl.kind == "token":
                return m.Builtin("held", (player,), m.INT, text, span)
            return m.VarRef(text, player, self._type(decl.type), span)
        self.error("E202", f"'{text}' is a {decl.kind}, it cannot be called", span)
        return _error(span)

    def e_players(self, n, span, static):
        self.error("E202", "'players' is a set of players; use it after 'in', or use player_count", span)
        return _error(span)

    def e_set(self, n, span, static):
        self.error("E202", "a set {...} can only be ranged over, after 'in'", span)
        return _error(span)

    def e_binop(self, n, span, static):
        left, right = self.expr(n.left, static), self.expr(n.right, static)
        op = n.op
        if op in ("and", "or"):
            self.expect(left, m.BOOL, n.left.span, f"the left side of '{op}'")
            self.expect(right, m.BOOL, n.right.span, f"the right side of '{op}'")
            return m.Binary(op, left, right, m.BOOL, span)
        if op in ("==", "!="):
            self.expect(right, left.type, n.right.span, "the right side of the comparison")
            return m.Binary(op, left, right, m.BOOL, span)
        self.expect(left, m.INT, n.left.span, f"the left side of '{op}'")
        self.expect(right, m.INT, n.right.span, f"the right side of '{op}'")
        return m.Binary(op, left, right, m.BOOL if op in ("<", "<=", ">", ">=") else m.INT, span)

    def e_not(self, n, span, static):
        return m.Unary("not", self.expect(self.expr(n.operand, static), m.BOOL, n.operand.span, "the operand of 'not'"), m.BOOL, span)

    def e_neg(self, n, span, static):
        return m.Unary("-", self.expect(self.expr(n.operand, static), m.INT, n.operand.span, "the operand of '-'"), m.INT, span)

    def e_option_is(self, n, span, static):
        if n.ambiguity.kind != "name":
            self.error("E202", "'is' compares an ambiguity with one of its options, as in `rule_x is strict`", span)
            return _error(span)
        amb_name = n.ambiguity.name
        amb = self.ambiguities.get(amb_name.text)
        if amb is None:
            self.unknown(amb_name, "ambiguity", self.ambiguities)
            return _error(span)
        if n.option.text not in amb.option_names():
            close = difflib.get_close_matches(n.option.text, amb.option_names(), n=1)
            self.error("E201", f"ambiguity '{amb.name}' has no option '{n.option.text}'; its options are: "
                       + ", ".join(amb.option_names()), n.option.span, f"did you mean '{close[0]}'?" if close else None)
        return m.OptionIs(amb.name, n.option.text, m.BOOL, span)

    def e_attribute(self, n, span, static):
        target = self.expr(n.target, static)
        if target.type.kind == "pos":
            if n.name.text not in ("row", "column"):
                self.unknown(n.name, "attribute of a position", ["row", "column"])
                return _error(span)
            return m.Attr(target, n.name.text, m.INT, span)
        self.expect(target, m.CARD, n.target.span, "the thing whose attribute is read")
        t = self.attr_types.get(n.name.text)
        if t is None:
            self.unknown(n.name, "attribute", self.attr_types, listed=12)
            return _error(span)
        return m.Attr(target, n.name.text, t, span)

    def e_if_expr(self, n, span, static):
        cond = self.expect(self.expr(n.cond, static), m.BOOL, n.cond.span, "a condition")
        then, orelse = self.expr(n.then, static), self.expr(n.orelse, static)
        self.expect(orelse, then.type, n.orelse.span, "the 'else' value")
        return m.IfExpr(cond, then, orelse, then.type, span)

    def _stateful(self, span, static, what) -> bool:
        if static:
            self.error("E204", f"{what}(...) reads the game state; declarations cannot depend on it", span)
        return static

    def _quant(self, n, span, kind, static=False):
        if self._stateful(span, static, kind):
            return _error(span)
        self.fn.push()
        binder = self.binder(n.binder)
        self.fn.pop()
        if kind == "the":
            return m.Quant("the", binder, None, binder.iter.element, span)
        return m.Quant(kind, binder, None, m.INT if kind == "count" else m.BOOL, span)

    def e_count(self, n, span, static):
        return self._quant(n, span, "count", static)

    def e_exists(self, n, span, static):
        return self._quant(n, span, "exists", static)

    def e_the(self, n, span, static):
        return self._quant(n, span, "the", static)

    def e_forall(self, n, span, static, kind="forall", want=m.BOOL):
        if self._stateful(span, static, kind):
            return _error(span)
        self.fn.push()
        binder = self.binder(Node("binder", span, dict(var=n.var, iter=n.iter, cond=None)))
        body = self.expect(self.expr(n.body), want, n.body.span, f"the body of '{kind}'")
        self.fn.pop()
        return m.Quant(kind, binder, body, want, span)

    def e_sum(self, n, span, static):
        return self.e_forall(n, span, static, "sum", m.INT)

    def e_aggregate(self, n, span, static):
        """`max(x in I where C: E)` and the other aggregates of `vocabulary.BINDER_AGGREGATES`."""
        from .hints import aggregate_message

        kind = n.name.text
        if kind not in vocabulary.BINDER_AGGREGATES or n.body is None:
            if kind in vocabulary.BINDER_AGGREGATES:
                self.error("E202", f"'{kind}' needs the value to compare: {kind}(x in D [where C]: E)", span)
            else:
                message, hint = aggregate_message(kind)
                close = difflib.get_close_matches(kind, vocabulary.aggregate_words(), n=1)
                self.error("E107", message, n.name.span, (f"did you mean '{close[0]}'? " if close else "") + hint)
            return _error(span)
        if self._stateful(span, static, kind):
            return _error(span)
        self.fn.push()
        binder = self.binder(n.binder)
        body = self.expect(self.expr(n.body), m.INT, n.body.span, f"the value of '{kind}'")
        self.fn.pop()
        return m.Quant(kind, binder, body, m.INT if kind in ("max", "min") else binder.iter.element, span)


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _error(span) -> m.Expr:
    """What an expression becomes once an error has been reported about it."""
    return m.Const(0, m.ERROR, None, span)
