"""Stage 2: syntax tree -> model. Resolves names, checks types, reports every error found.

Errors carry stable codes:
E200 duplicate declaration, E201 unknown name, E202 type mismatch, E203 wrong
number of arguments, E204 misplaced statement, E205 bad ambiguity declaration,
E206 missing or bad game header, E207 bad value, E208 bad phrase.
"""
from __future__ import annotations

import difflib

from . import model as m
from . import phrases, vocabulary
from .errors import DiagnosticSink, Span
from .syntax import Name, Node

BUILTIN_TYPES = {"int": m.INT, "bool": m.BOOL, "player": m.PLAYER, "card": m.CARD}
AMBIGUITY_KINDS = ("ambiguity", "contradiction", "silence", "translation", "missing-reference")


class _Function:
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


class Resolver:
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
        self.fn: _Function | None = None
        self.boards: dict[str, Node] = {}
        self.loop_depth = 0
        self.choice_points = 0
        self.random_points = 0
        self.uses: set[str] = set()  # see `Game.uses`

    # ---- helpers
    def error(self, code, message, span, hint=None):
        self.sink.error(code, message, span, hint)

    def unknown(self, name: Name, what: str, candidates):
        close = difflib.get_close_matches(name.text, list(candidates), n=1)
        self.error("E201", f"unknown {what} '{name.text}'", name.span,
                   f"did you mean '{close[0]}'?" if close else None)

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

    # ---- entry
    def resolve(self, spec: Node, path: str, checks: Node | None = None) -> m.Game | None:
        items = spec.items + (checks.items if checks is not None else [])
        self.checks_items = {id(i) for i in checks.items} if checks is not None else set()
        if checks is not None:
            headers = [i for i in checks.items if i.kind == "checks"]
            game_decls = [i for i in spec.items if i.kind == "game"]
            if not headers:
                self.error("E206", "a checks file starts with `checks GAME`, naming the game it is about", checks.span)
            elif game_decls and headers[0].game.text != game_decls[0].name.text:
                self.error("E206", f"these checks are for '{headers[0].game.text}', but the spec is "
                           f"'{game_decls[0].name.text}'", headers[0].game.span)
        header = {k: [i for i in items if i.kind == k] for k in ("game", "rulebook", "players", "order", "payoff", "flow")}
        for kind in ("game", "rulebook", "players", "flow"):
            if not header[kind]:
                self.error("E206", f"the spec has no '{kind}' declaration", Span(path, 1, 1, 1, 2))
            elif len(header[kind]) > 1:
                self.error("E200", f"'{kind}' is declared more than once", header[kind][1].span)
        if any(not header[k] for k in ("game", "rulebook", "players", "flow")):
            return None

        self._collect(items)
        enums = tuple(self.enums.values())
        components = tuple(self._component(i) for i in items if i.kind == "component")
        attr_phrases = self._attribute_phrases([i for i in items if i.kind == "attribute"])
        attrs = tuple(m.AttrDecl(n, t, attr_phrases.get(n)) for n, t in self.attr_types.items())
        facts = tuple(self._fact(i) for i in items if i.kind == "fact")
        tokens = tuple(self._token(i) for i in items if i.kind == "token")
        boards = tuple(self._board(i) for i in items if i.kind == "board")
        zones = tuple(self._zone(i) for i in items if i.kind == "zone")
        if zones and sum(z.initial for z in zones) != 1:
            self.error("E207", "exactly one zone must be marked 'initial' (where every component starts)",
                       zones[0].span)
        variables = tuple(self._var(i) for i in items if i.kind == "var")
        ambiguities = tuple(self.ambiguities.values())
        defines = tuple(self._define(i) for i in items if i.kind == "define")
        claims = tuple(self._claim(i) for i in items if i.kind == "claim")
        procedures = tuple(self._procedure(i) for i in items if i.kind == "procedure")
        self._function_calls(procedures)
        flow_node = header["flow"][0]
        flow = self._procedure(Node("procedure", flow_node.span, dict(
            name=Name("flow", flow_node.span), params=[], quotes=flow_node.quotes, body=flow_node.body)))
        unmodelled = tuple(m.Unmodelled(u.reason, u.span, self.quotes(u)) for u in items if u.kind == "unmodelled")
        properties = tuple(self._property(i) for i in items if i.kind in ("invariant", "reachable"))
        triggers = tuple(self._trigger(i) for i in items if i.kind == "trigger")
        expected = tuple(m.Expected(i.name.text, i.finding, i.reason, i.span, self.quotes(i)) for i in items if i.kind == "expect")

        g, rb, pl = header["game"][0], header["rulebook"][0], header["players"][0]
        if not 1 <= pl.low <= pl.high:
            self.error("E207", f"player counts {pl.low} to {pl.high} are not a range of at least one player", pl.span)
        examples = self._examples([i for i in items if i.kind == "example"], pl.low, pl.high)
        payoff = (header["payoff"][0].win, header["payoff"][0].lose) if header["payoff"] else (1, -1)
        order = header["order"][0].direction if header["order"] else "clockwise"
        game_quotes = (self.quotes(g, "game") + self.quotes(pl, "players")
                       + (self.quotes(header["order"][0], "order") if header["order"] else ())
                       + (self.quotes(header["payoff"][0], "payoff") if header["payoff"] else ()))
        return m.Game(
            name=g.name.text, title=g.title, rulebook=rb.path.text, source=rb.source.text,
            min_players=pl.low, max_players=pl.high, order=order, payoff=payoff,
            enums=enums, attrs=attrs, components=components, facts=facts, claims=claims, tokens=tokens,
            zones=zones, vars=variables, defines=defines, procedures=procedures, flow=flow,
            ambiguities=ambiguities, unmodelled=unmodelled, choice_points=self.choice_points,
            random_points=self.random_points, properties=properties, expected=expected, examples=examples,
            boards=boards, triggers=triggers,
            spec_path=path, quotes=game_quotes, uses=frozenset(self.uses))

    # ---- pass 1: names and signatures
    def _collect(self, items):
        named = ("enum", "component", "fact", "claim", "token", "zone", "var", "define", "procedure", "ambiguity",
                 "invariant", "reachable", "board", "trigger")
        for item in items:
            if item.kind not in named:
                continue
            name = item.name.text
            if name in self.decls or name in BUILTIN_TYPES or name in ("current", "player_count", "flow"):
                self.error("E200", f"'{name}' is already declared", item.name.span)
                continue
            self.decls[name] = item
        for item in items:
            if item.kind == "enum":
                members = [n.text for n in item.members]
                for dup in {x for x in members if members.count(x) > 1}:
                    self.error("E200", f"enum '{item.name.text}' lists '{dup}' twice", item.span)
                member_phrases = tuple((k, self.phrase_text(item, k, v)) for k, v in item.member_phrases.items())
                self.enums[item.name.text] = m.EnumDecl(item.name.text, tuple(members), item.span, self.quotes(item),
                                                        self.phrase(item, []), member_phrases)
                for member in members:
                    self.enum_members.setdefault(member, []).append(item.name.text)
        self.boards = {i.name.text: i for i in items if i.kind == "board"}
        for item in items:
            if item.kind == "ambiguity":
                self._ambiguity(item)
            elif item.kind == "define":
                self.define_sigs[item.name.text] = ([self._type(p.type) for p in item.params], self._type(item.type))
            elif item.kind == "procedure":
                self.proc_sigs[item.name.text] = [self._type(p.type) for p in item.params]
                result = item.get("result")
                self.proc_results[item.name.text] = self._type(result) if result is not None else None
        for item in items:
            if item.kind == "component":
                for attr_name, value in item.attrs:
                    t = self._static_type(value)
                    known = self.attr_types.get(attr_name.text)
                    if known is None:
                        self.attr_types[attr_name.text] = t
                    elif t is not None and known != t:
                        self.error("E202", f"attribute '{attr_name.text}' is {known} elsewhere, here {t}", value.span)

    def _static_type(self, value: Node) -> m.Type:
        if value.kind == "int":
            return m.INT
        if value.kind == "bool":
            return m.BOOL
        if value.kind == "name":
            enums = self.enum_members.get(value.name.text)
            if enums:
                return m.enum_type(enums[0])
            if value.name.text in self.decls and self.decls[value.name.text].kind == "fact":
                return m.INT
        self.error("E207", "an attribute value must be a number, true/false, an enum member or a fact", value.span)
        return m.INT

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

    # ---- declarations
    def _ambiguity(self, node: Node):
        options = [m.Option(n.text, d) for n, d in node.options]
        names = [o.name for o in options]
        if len(options) < 2:
            self.error("E205", f"ambiguity '{node.name.text}' needs at least two options", node.span)
        for dup in {x for x in names if names.count(x) > 1}:
            self.error("E205", f"ambiguity '{node.name.text}' lists option '{dup}' twice", node.span)
        if len(node.questions) != 1:
            self.error("E205", f"ambiguity '{node.name.text}' needs exactly one question", node.span)
        if not node.quotes:
            self.error("E205", f"ambiguity '{node.name.text}' needs the rulebook quote it is about", node.span)
        default, reason = "", ""
        if len(node.defaults) != 1:
            self.error("E205", f"ambiguity '{node.name.text}' needs exactly one default with its reason", node.span)
        else:
            default_name, reason = node.defaults[0]
            default = default_name.text
            if default not in names:
                self.unknown(default_name, f"option of '{node.name.text}'", names)
        kind = node.kinds[0].text if node.kinds else "ambiguity"
        if kind not in AMBIGUITY_KINDS:
            self.error("E205", f"ambiguity kind '{kind}' is not one of: {', '.join(AMBIGUITY_KINDS)}", node.kinds[0].span)
        self.ambiguities[node.name.text] = m.Ambiguity(
            node.name.text, node.title, kind, node.questions[0].text if node.questions else "",
            tuple(options), default, reason, node.span, tuple(m.QuoteRef(q.text, q.span, q.translation) for q in node.quotes))

    def _static_expr(self, node: Node, want: m.Type = m.INT) -> m.Expr:
        """An expression of declarations: facts, enum members, player_count and arithmetic; no state."""
        self.fn = _Function()
        e = self.expect(self.expr(node, static=True), want, node.span)
        self.fn = None
        return e

    def _component(self, node: Node) -> m.Component:
        attrs = tuple((n.text, self._static_expr(v, self.attr_types.get(n.text, m.INT))) for n, v in node.attrs)
        return m.Component(node.name.text, node.display, node.category, self._static_expr(node.count), attrs,
                           node.span, self.quotes(node))

    def _fact(self, node):
        return m.Fact(node.name.text, self._static_expr(node.value), node.span, self.quotes(node),
                      self.phrase(node, []))

    def _attribute_phrases(self, nodes) -> dict[str, str]:
        out = {}
        for node in nodes:
            name = node.name
            if name.text not in self.attr_types:
                self.unknown(name, "attribute", self.attr_types)
            elif name.text in out:
                self.error("E200", f"attribute '{name.text}' is given a phrase twice", name.span)
            else:
                out[name.text] = self.phrase(node, [])
        return out

    def _token(self, node):
        cap = self._static_expr(node.cap) if node.cap is not None else None
        return m.TokenDecl(node.name.text, node.display, self._static_expr(node.count), cap, node.span, self.quotes(node))

    def _zone(self, node):
        board = node.get("per_board")
        if board is not None and board.text not in self.boards:
            self.unknown(board, "board", self.boards)
            board = None
        if node.visibility == "internal":
            self.error("E207", "`internal` is for variables; a zone is hidden, owner or public", node.span)
        if node.initial and (node.per_player or board is not None):
            self.error("E207", "the initial zone cannot be per player or per position", node.span)
        index = ["player"] if node.per_player else ["position"] if node.get("per_board") is not None else []
        return m.ZoneDecl(node.name.text, node.per_player, node.shape, node.visibility, node.initial,
                          node.span, self.quotes(node), board.text if board is not None else None,
                          self.phrase(node, index))

    def _board(self, node):
        return m.BoardDecl(node.name.text, self._static_expr(node.rows), self._static_expr(node.columns),
                           node.span, self.quotes(node), self.phrase(node, []))

    def _trigger(self, node):
        self.fn = _Function()
        cond = self.expect(self.expr(node.cond), m.BOOL, node.cond.span, "the condition of a trigger")
        body = self.block(node.body)
        t = m.Trigger(node.name.text, node.description, node.once, cond, body, self.fn.nlocals, node.span,
                      self.quotes(node))
        self.fn = None
        return t

    def _var(self, node):
        if node.get("per_board") is not None:
            self.error("E207", "variables can be per player, not per position: use a zone per position", node.span)
        t = self._type(node.type)
        low = high = None
        if node.type.range is not None:
            low, high = (self._static_expr(x) for x in node.type.range)
        elif t == m.BOOL:
            low, high = m.Const(0, m.INT), m.Const(1, m.INT)
        init = self._static_expr(node.init, t)
        # a variable the checks file declares is bookkeeping for the checks unless it says otherwise
        default = "internal" if id(node) in self.checks_items else "public"
        return m.VarDecl(node.name.text, node.per_player, t, low, high, init, node.span, self.quotes(node),
                         node.get("visibility") or default, self.phrase(node, ["player"] if node.per_player else []),
                         bool(node.get("bookkeeping")))

    def _claim(self, node):
        self.fn = _Function()
        e = self.expect(self.expr(node.expr), m.BOOL, node.expr.span, "a claim")
        self.fn = None
        return m.Claim(node.name.text, e, node.span, self.quotes(node))

    def _property(self, node):
        self.fn = _Function()
        e = self.expect(self.expr(node.expr), m.BOOL, node.expr.span, f"the {node.kind} '{node.name.text}'")
        self.fn = None
        return m.Property(node.kind, node.name.text, node.description, e, node.span, self.quotes(node),
                          self.option_values(node.get("under", ())))

    def _examples(self, nodes, low: int, high: int) -> tuple:
        out, seen = [], set()
        for node in nodes:
            if node.name.text in seen:
                self.error("E200", f"example '{node.name.text}' is already declared", node.name.span)
            seen.add(node.name.text)
            if not low <= node.players <= high:
                self.error("E207", f"example '{node.name.text}' is for {node.players} players; the game is for "
                           f"{low} to {high}", node.span)
            self.fn = _Function()
            e = self.expect(self.expr(node.expr), m.BOOL, node.expr.span, f"the example '{node.name.text}'")
            self.fn = None
            out.append(m.Example(node.name.text, node.description, node.players, self.option_values(node.under),
                                 tuple((step.text, step.span) for step in node.steps), e, node.span, self.quotes(node)))
        return tuple(out)

    def option_values(self, pairs) -> tuple:
        """`AMBIGUITY=OPTION, ...` resolved against the declared ambiguities: each name once."""
        out: dict[str, str] = {}
        for amb_name, option in pairs:
            amb = self.ambiguities.get(amb_name.text)
            if amb is None:
                self.unknown(amb_name, "ambiguity", self.ambiguities)
                continue
            if option.text not in amb.option_names():
                close = difflib.get_close_matches(option.text, amb.option_names(), n=1)
                self.error("E201", f"ambiguity '{amb.name}' has no option '{option.text}'; its options are: "
                           + ", ".join(amb.option_names()), option.span, f"did you mean '{close[0]}'?" if close else None)
                continue
            if amb.name in out:
                self.error("E205", f"ambiguity '{amb.name}' is given an option twice", amb_name.span)
                continue
            out[amb.name] = option.text
        return tuple(sorted(out.items()))

    def _params(self, params) -> tuple[m.Param, ...]:
        out = []
        for p in params:
            t = self._type(p.type)
            local = self.fn.bind(p.name.text, t, p.span)
            out.append(m.Param(local.slot, p.name.text, t))
        return tuple(out)

    def _define(self, node):
        self.fn = _Function()
        params = self._params(node.params)
        t = self._type(node.type)
        body = self.expect(self.expr(node.body), t, node.body.span, f"the value of '{node.name.text}'")
        d = m.Define(node.name.text, params, t, body, self.fn.nlocals, node.span, self.quotes(node),
                     self.phrase(node, [p.name for p in params]))
        self.fn = None
        return d

    def _procedure(self, node):
        self.fn = _Function()
        params = self._params(node.params)
        self.function = self.proc_results.get(node.name.text) if node.get("result") is not None else None
        body = self.block(node.body)
        p = m.Procedure(node.name.text, params, body, self.fn.nlocals, node.span, self.quotes(node),
                        self.phrase(node, [x.name for x in params]), bool(node.get("bookkeeping")), self.function)
        self.function = None
        self.fn = None
        return p

    # A function computes a value: only these statements may stand in its body.
    FUNCTION_STATEMENTS = ("let", "assign", "add", "subtract", "if", "for", "loop", "while", "break", "return_value",
                           "rule")

    def _function_calls(self, procedures) -> None:
        """A function that calls itself, directly or through others, is E204: it could run forever."""
        functions = {p.name: p for p in procedures if p.result is not None}
        calls = {name: {x.procedure for st in m.walk(p.body) for x in m.nodes(st) if isinstance(x, m.ProcedureCall)}
                 for name, p in functions.items()}
        for name, p in functions.items():
            seen, todo = set(), list(calls[name])
            while todo:
                callee = todo.pop()
                if callee == name:
                    self.error("E204", f"function '{name}' calls itself: a function cannot recurse; use a loop "
                               "(for, while) in its body", p.span)
                    break
                if callee not in seen and callee in calls:
                    seen.add(callee)
                    todo.extend(calls[callee])

    # ---- statements
    def block(self, stmts) -> tuple[m.Stmt, ...]:
        self.fn.push()
        out = tuple(s for s in (self.stmt(n) for n in stmts) if s is not None)
        self.fn.pop()
        return out

    def stmt(self, n: Node) -> m.Stmt | None:
        if self.function is not None and n.kind not in self.FUNCTION_STATEMENTS:
            self.error("E204", f"'{_keyword(n.kind)}' changes the game, and a function (a procedure with a result "
                       "type) only computes its value: let, set/add/subtract of its own values, if, for, loop, "
                       "while, break and return may stand in it", n.span)
            return None
        handler = getattr(self, "s_" + n.kind)
        return handler(n, n.span, self.quotes(n))

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

    def s_move(self, n, span, q):
        source = self.zone_expr(n.source)
        dest = self.zone_expr(n.dest)
        sel = n.selector
        if sel.kind in ("sel_top", "sel_bottom"):
            selector = m.Selector(sel.kind[4:])
        elif sel.kind == "sel_card":
            card = self.expr(sel.expr)
            if getattr(card, "type", None) != m.CARDS:
                card = self.expect(card, m.CARD, sel.span, "the card to move")
            selector = m.Selector("card", card=card)
        else:
            cond = slot = None
            if sel.var is not None:
                self.fn.push()
                slot = self.fn.bind(sel.var.text, m.CARD, sel.var.span).slot
                cond = self.expect(self.expr(sel.cond), m.BOOL, sel.cond.span, "a condition")
                self.fn.pop()
            selector = m.Selector(sel.kind[4:], slot, cond)
        return m.Move(selector, source, dest, n.at_bottom, span, q)

    def s_shuffle(self, n, span, q):
        return m.Shuffle(self.zone_expr(n.zone), span, q)

    def _lvalue(self, lv: Node):
        decl = self.decls.get(lv.name.text)
        if decl is None or decl.kind != "var":
            self.unknown(lv.name, "variable", [k for k, d in self.decls.items() if d.kind == "var"])
            return None, None, m.ERROR
        player = None
        if decl.per_player:
            if lv.index is None:
                self.error("E203", f"'{lv.name.text}' is per player: name the player, as in {lv.name.text}(p)", lv.span)
            else:
                player = self.player_arg(lv.index, "the player")
        elif lv.index is not None:
            self.error("E203", f"'{lv.name.text}' is not per player", lv.span)
        return lv.name.text, player, self._type(decl.type)

    def _function_local(self, lv: Node):
        """In a function, `set`/`add`/`subtract` may change one of its own values (a parameter or a `let`)."""
        if self.function is None:
            return None
        local = self.fn.lookup(lv.name.text) if lv.index is None else None
        if local is None:
            self.error("E204", f"a function (a procedure with a result type) changes nothing: it cannot set "
                       f"'{lv.name.text}'; only its own values (its parameters and its `let`s) can change", lv.span)
        return local

    def s_assign(self, n, span, q):
        local = self._function_local(n.target)
        if local is not None:
            value = self.expect(self.expr(n.value), local.type, n.value.span, "the new value")
            return m.Let(local.slot, local.name, value, span, q)
        if self.function is not None:
            return None
        var, player, t = self._lvalue(n.target)
        value = self.expect(self.expr(n.value), t, n.value.span, "the new value")
        return m.Assign(var, player, "=", value, span, q) if var else None

    def s_add(self, n, span, q, op="+"):
        local = self._function_local(n.target)
        if local is not None:
            self.expect(m.Const(0, local.type), m.INT, n.target.span, f"'{local.name}'")
            amount = self.expect(self.expr(n.amount), m.INT, n.amount.span, "the amount")
            old = m.Local(local.slot, local.name, local.type, n.target.span)
            return m.Let(local.slot, local.name, m.Binary(op, old, amount, m.INT, span), span, q)
        if self.function is not None:
            return None
        var, player, t = self._lvalue(n.target)
        self.expect(m.Const(0, t), m.INT, n.target.span, f"'{n.target.name.text}'")
        amount = self.expect(self.expr(n.amount), m.INT, n.amount.span, "the amount")
        return m.Assign(var, player, op, amount, span, q) if var else None

    def s_subtract(self, n, span, q):
        return self.s_add(n, span, q, "-")

    def _token_name(self, name: Name) -> str | None:
        decl = self.decls.get(name.text)
        if decl is None or decl.kind != "token":
            self.unknown(name, "token", [k for k, d in self.decls.items() if d.kind == "token"])
            return None
        return name.text

    def s_take(self, n, span, q, to_player=True):
        token = self._token_name(n.token)
        amount = self.expect(self.expr(n.amount), m.INT, n.amount.span, "the number of tokens")
        player = self.player_arg(n.player, "the player")
        return m.TokenMove(token, amount, player, to_player, span, q) if token else None

    def s_pass_tokens(self, n, span, q):
        token = self._token_name(n.token)
        amount = self.expect(self.expr(n.amount), m.INT, n.amount.span, "the number of tokens")
        source = self.player_arg(n.source, "the player who gives the tokens")
        dest = self.player_arg(n.dest, "the player who receives the tokens")
        return m.TokenPass(token, amount, source, dest, span, q) if token else None

    def s_reverse(self, n, span, q):
        self.uses.add(m.REVERSE_USED)
        return m.Reverse(span, q)

    def s_return_value(self, n, span, q):
        if self.function is None:
            self.error("E204", "'return VALUE' gives the value of a function (a procedure with a result type, as in "
                       "`procedure best(p: player): int { ... }`); to give tokens back write `return N TOKEN by P`",
                       span)
            return None
        return m.Return(self.expect(self.expr(n.value), self.function, n.value.span, "the value returned"), span, q)

    def s_return_tokens(self, n, span, q):
        return self.s_take(n, span, q, to_player=False)

    def s_if(self, n, span, q):
        branches = tuple((self.expect(self.expr(c), m.BOOL, c.span, "a condition"), self.block(b)) for c, b in n.branches)
        return m.If(branches, self.block(n.orelse), span, q)

    def binder(self, n: Node) -> m.Binder:
        it = self.iter(n.iter)
        local = self.fn.bind(n.var.text, it.element, n.var.span)
        cond = None
        if n.cond is not None:
            cond = self.expect(self.expr(n.cond), m.BOOL, n.cond.span, "a condition")
        return m.Binder(local.slot, n.var.text, it, cond, n.span)

    def s_for(self, n, span, q):
        self.fn.push()
        binder = self.binder(Node("binder", span, dict(var=n.var, iter=n.iter, cond=None)))
        self.loop_depth += 1
        body = self.block(n.body)
        self.loop_depth -= 1
        self.fn.pop()
        return m.For(binder, body, span, q)

    def s_loop(self, n, span, q):
        self.loop_depth += 1
        body = self.block(n.body)
        self.loop_depth -= 1
        return m.Loop(None, body, span, q)

    def s_while(self, n, span, q):
        cond = self.expect(self.expr(n.cond), m.BOOL, n.cond.span, "a condition")
        self.loop_depth += 1
        body = self.block(n.body)
        self.loop_depth -= 1
        return m.Loop(cond, body, span, q)

    def s_break(self, n, span, q):
        if self.loop_depth == 0:
            self.error("E204", "'break' is only allowed inside loop, while or for", span)
        return m.Break(span, q)

    def s_let(self, n, span, q):
        value = self.expr(n.value)
        local = self.fn.bind(n.var.text, value.type, n.var.span)
        return m.Let(local.slot, n.var.text, value, span, q)

    def s_do(self, n, span, q):
        name = n.name.text
        if name not in self.proc_sigs:
            self.unknown(n.name, "procedure", self.proc_sigs)
            return None
        if self.proc_results.get(name) is not None:
            self.error("E204", f"'{name}' is a function (it returns a value and changes nothing): use its value in "
                       f"an expression, as in `let x = {name}(...)`", n.name.span)
            return None
        args = self._args(n.args, self.proc_sigs[name], n.name, span)
        return m.Do(name, args, span, q)

    def _args(self, arg_nodes, types, name: Name, span) -> tuple[m.Expr, ...]:
        if len(arg_nodes) != len(types):
            self.error("E203", f"'{name.text}' takes {len(types)} argument(s), not {len(arg_nodes)}", span)
            return ()
        return tuple(self.expect(self.expr(a), t, a.span, f"argument {i + 1} of '{name.text}'")
                     for i, (a, t) in enumerate(zip(arg_nodes, types)))

    def s_choose(self, n, span, q):
        by = self.player_arg(n.by, "the player who chooses")
        point = self.choice_points
        self.choice_points += 1
        actions = []
        seen = set()
        for a in n.actions:
            if a.name.text in seen:
                self.error("E200", f"action '{a.name.text}' appears twice in one choice", a.name.span)
            seen.add(a.name.text)
        for a in n.actions:
            self.fn.push()
            binders = tuple(self.binder(b) for b in a.binders)
            when = self.expect(self.expr(a.when), m.BOOL, a.when.span, "a condition") if a.when is not None else None
            body = self.block(a.body)
            self.fn.pop()
            secret_params = frozenset(b.var.text for b in a.binders if b.get("secret"))
            actions.append(m.Action(a.name.text, a.label, binders, when, body, a.span, self.quotes(a),
                                    self.phrase(a, [b.name for b in binders]), bool(a.get("secret")), secret_params))
        return m.Choose(point, by, tuple(actions), span, q)

    def s_pick(self, n, span, q):
        by = self.player_arg(n.by, "the player who chooses")
        point = self.choice_points
        self.choice_points += 1
        binder = self.binder(n.binder)  # bound in the enclosing scope: the choice is used after it
        action = m.Action(binder.name, None, (binder,), None, (), n.span, q,
                          secret_params=frozenset({binder.name} if n.get("secret") else ()))
        return m.Choose(point, by, (action,), span, q)

    def s_random(self, n, span, q):
        point = self.random_points
        self.random_points += 1
        binder = self.binder(n.binder)  # bound in the enclosing scope: the drawn value is used after the draw
        weight = None
        if n.get("weight") is not None:
            weight = self.expect(self.expr(n.weight), m.INT, n.weight.span, "a weight")
        return m.Random(point, binder, span, q, weight)

    def s_reveal(self, n, span, q):
        to = None if n.to.kind == "everyone" else self.player_arg(n.to, "the player")
        if n.get("card") is not None:  # reveal CARD in ZONE
            card = self.expect(self.expr(n.card), m.CARD, n.card.span, "the card shown")
            return m.Reveal(self.zone_expr(n.zone), to, span, q, card)
        shown = self.expr(n.zone)
        if isinstance(shown, m.Builtin) and shown.name in ("top", "bottom"):  # reveal top(ZONE): its zone is known
            return m.Reveal(shown.args[0], to, span, q, shown)
        if getattr(shown, "type", None) == m.CARD:
            self.error("E202", "a card is shown from a zone: say which, as in `reveal c in hand(p) to all`", n.zone.span)
            return None
        return m.Reveal(self.expect(shown, m.ZONE, n.zone.span, "a zone"), to, span, q)

    def s_announce(self, n, span, q):
        value = self.expr(n.value)
        if value.type.kind not in ("int", "bool", "player", "card", "enum", "pos", "error"):
            self.error("E202", f"only a value can be announced (a number, a truth value, a player, a card or an "
                       f"enum member), not {_article(str(value.type))} {value.type}", n.value.span)
        by = self.player_arg(n.by, "the player who announces")
        return m.Announce(value, by, span, q)

    def s_check_triggers(self, n, span, q):
        return m.CheckTriggers(span, q)

    def s_win(self, n, span, q):
        who = None if n.target.kind == "everyone" else self.player_arg(n.target, "the winner")
        return m.Win(who, span, q)

    def s_end(self, n, span, q):
        return m.End(n.what, span, q)

    def s_rotate(self, n, span, q):
        decl = self.decls.get(n.zone.text)
        if decl is None or decl.kind != "zone" or not decl.per_player:
            self.unknown(n.zone, "per-player zone", [k for k, d in self.decls.items() if d.kind == "zone" and d.per_player])
            return None
        return m.Rotate(n.zone.text, 1 if n.step == "next" else -1, span, q)

    def s_rounds(self, n, span, q):
        return m.Rounds(self.block(n.body), span, q)

    def s_turns(self, n, span, q):
        start = self.player_arg(n.start, "the first player")
        return m.Turns(start, self.block(n.body), self.block(n.then), span, q)

    def s_rule(self, n, span, q):
        return m.Rule(n.name.text, n.title, self.block(n.body), span, q)

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
            self.error("E202", f"'{text}' is {_article(decl.kind)} {decl.kind}, not a value", span)
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
            self.unknown(n.name, "attribute", self.attr_types)
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


def _keyword(kind: str) -> str:
    """How a statement of kind `kind` (a syntax node) starts, for messages."""
    return {"pass_tokens": "move", "return_tokens": "return", "pick": "choose", "check_triggers": "check triggers",
            "reverse": "reverse order"}.get(kind, kind)


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _error(span) -> m.Expr:
    """What an expression becomes once an error has been reported about it."""
    return m.Const(0, m.ERROR, None, span)


def resolve(spec: Node, path: str, text: str, checks: Node | None = None,
            checks_texts: dict[str, str] | None = None) -> m.Game:
    sink = DiagnosticSink(path, text, others=dict(checks_texts or {}))
    game = Resolver(sink).resolve(spec, path, checks)
    sink.raise_if_any()
    assert game is not None
    return game


def resolve_expression(expr: Node, file: str, text: str, spec: Node, path: str, spec_text: str,
                       checks: Node | None = None, checks_texts: dict[str, str] | None = None) -> m.Expr:
    """One expression (from `parse.parse_expression`), resolved and typed in the scope of a spec's
    invariants: its zones, variables, tokens, facts, defines and enums. Errors in the expression raise
    SpecError pointing into `text`."""
    resolver = Resolver(DiagnosticSink(path, spec_text, others=dict(checks_texts or {})))
    resolver.resolve(spec, path, checks)
    resolver.sink.raise_if_any()
    resolver.sink = DiagnosticSink(file, text)
    resolver.fn = _Function()
    resolved = resolver.expr(expr)
    resolver.sink.raise_if_any()
    return resolved
