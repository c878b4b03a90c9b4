"""Stage 2: syntax tree -> model. Resolves names, checks types, reports every error found.

Errors carry stable codes:
E200 duplicate declaration, E201 unknown name, E202 type mismatch, E203 wrong
number of arguments, E204 misplaced statement, E205 bad ambiguity declaration,
E206 missing or bad game header, E207 bad value, E208 bad phrase.
"""
from __future__ import annotations

import difflib

from . import model as m
from .errors import DiagnosticSink, Span
from .resolve_expressions import BUILTIN_TYPES, FunctionScope
from .resolve_statements import StatementResolver
from .syntax import Name, Node

AMBIGUITY_KINDS = ("ambiguity", "contradiction", "silence", "translation", "missing-reference")


class Resolver(StatementResolver):
    """A whole spec: its declarations collected first (pass 1), then each resolved, its rules and checks
    with them (`resolve_statements`, `resolve_expressions`)."""

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
        self.fn = FunctionScope()
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
        self.fn = FunctionScope()
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
        self.fn = FunctionScope()
        e = self.expect(self.expr(node.expr), m.BOOL, node.expr.span, "a claim")
        self.fn = None
        return m.Claim(node.name.text, e, node.span, self.quotes(node))

    def _property(self, node):
        self.fn = FunctionScope()
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
            self.fn = FunctionScope()
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
        self.fn = FunctionScope()
        params = self._params(node.params)
        t = self._type(node.type)
        body = self.expect(self.expr(node.body), t, node.body.span, f"the value of '{node.name.text}'")
        d = m.Define(node.name.text, params, t, body, self.fn.nlocals, node.span, self.quotes(node),
                     self.phrase(node, [p.name for p in params]))
        self.fn = None
        return d

    def _procedure(self, node):
        self.fn = FunctionScope()
        params = self._params(node.params)
        self.function = self.proc_results.get(node.name.text) if node.get("result") is not None else None
        body = self.block(node.body)
        p = m.Procedure(node.name.text, params, body, self.fn.nlocals, node.span, self.quotes(node),
                        self.phrase(node, [x.name for x in params]), bool(node.get("bookkeeping")), self.function)
        self.function = None
        self.fn = None
        return p

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
    resolver.fn = FunctionScope()
    resolved = resolver.expr(expr)
    resolver.sink.raise_if_any()
    return resolved
