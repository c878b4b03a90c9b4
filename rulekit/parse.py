"""Stage 1: text -> syntax tree with spans (Lark, LALR, positions propagated).

The transformer only builds syntax nodes; every semantic check belongs to
:mod:`rulekit.resolve`.
"""
from __future__ import annotations

import ast
import re
import warnings

from lark import (Token, Transformer_NonRecursive, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                  UnexpectedToken, v_args)

from . import hints
from .errors import DiagnosticSink, Span
from .grammar import expression_parser, parser
from .syntax import Block, Name, Node, Params, Quote, Text


def _span(file: str, meta) -> Span:
    if getattr(meta, "empty", True):
        return Span(file, 1, 1, 1, 1)
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def _token_span(file: str, tok: Token) -> Span:
    return Span(file, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))


def _split(children, *types):
    """Partition children by Python type, keeping order inside each group."""
    out = [[] for _ in types]
    rest = []
    for c in children:
        for i, t in enumerate(types):
            if isinstance(c, t):
                out[i].append(c)
                break
        else:
            rest.append(c)
    return out, rest


_SECRET = object()  # the `secret` mark of an action or a parameter


class _Visibility(Text):
    """Who may see a variable (`var ..., owner`): told apart from the quotes that follow it by its type."""


class Phrase(Text):
    """A declaration's English (`phrase "... {x} ..."`): told apart from a label or a quote by its type."""


class _Under(list):
    """The `under OPTION=VALUE, ...` of a property: (ambiguity name, option name) pairs."""


class _Steps(list):
    """The `do "STEP", ...` of an example: its steps as written (Text, with their spans)."""


class _Bookkeeping(Text):
    """The `bookkeeping` marker of a variable or a procedure."""


def _extras(children):
    """The phrase and the bookkeeping marker of a declaration, and its other children in order."""
    phrase = next((c for c in children if isinstance(c, Phrase)), None)
    bookkeeping = any(isinstance(c, _Bookkeeping) for c in children)
    return phrase, bookkeeping, [c for c in children if not isinstance(c, (Phrase, _Bookkeeping))]


@v_args(meta=True)
class _ToSyntax(Transformer_NonRecursive):  # non-recursive: deep nesting must not overflow Python's stack
    def __init__(self, file: str, sink: DiagnosticSink | None = None):
        super().__init__()
        self.file = file
        self.sink = sink

    # ---- tokens
    def NAME(self, tok):  # noqa: N802 (Lark calls terminal callbacks by terminal name)
        return Name(str(tok), _token_span(self.file, tok))

    def STRING(self, tok):  # noqa: N802
        if "\\" not in tok:
            return Text(str(tok)[1:-1], _token_span(self.file, tok))
        try:
            with warnings.catch_warnings():  # an unknown escape such as \q stays as written, on every Python
                warnings.simplefilter("ignore")
                value = ast.literal_eval(str(tok).replace("\0", "\\x00"))
        except (SyntaxError, ValueError):  # the grammar allows any \c; Python rejects \N, \x4, ...
            value = str(tok)[1:-1]
            if self.sink is not None:
                self.sink.error("E101", "a string has an invalid escape sequence", _token_span(self.file, tok),
                                'a backslash starts an escape such as \\n, \\t, \\" or \\\\ (a backslash itself)')
        return Text(value, _token_span(self.file, tok))

    def INT(self, tok):  # noqa: N802
        return int(tok)

    def __default_token__(self, tok):
        return tok

    def _node(self, kind, meta, **fields):
        return Node(kind, _span(self.file, meta), fields)

    # ---- declarations
    def start(self, meta, items):
        return self._node("spec", meta, items=items)

    def quote(self, meta, c):
        return Quote(c[0].text, c[0].span, c[1] if len(c) > 1 else None)

    def translation(self, meta, c):
        return c[0].text

    def phrase(self, meta, c):
        return Phrase(c[0].text, c[0].span)

    def bookkeeping(self, meta, c):
        return _Bookkeeping("bookkeeping", _span(self.file, meta))

    def game_decl(self, meta, c):
        return self._node("game", meta, name=c[0], title=c[1].text, quotes=c[2:])

    def rulebook_decl(self, meta, c):
        return self._node("rulebook", meta, path=c[0], source=c[1])

    def players_decl(self, meta, c):
        counts = [x for x in c if isinstance(x, int)]  # `players 2` is `players 2 to 2`
        return self._node("players", meta, low=counts[0], high=counts[-1], quotes=c[len(counts):])

    def order_decl(self, meta, c):
        return self._node("order", meta, direction=c[0], quotes=c[1:])

    # Keyword alternatives become plain strings.
    def dir_clockwise(self, meta, c):
        return "clockwise"

    def dir_counterclockwise(self, meta, c):
        return "counterclockwise"

    def cat_card(self, meta, c):
        return "card"

    def cat_piece(self, meta, c):
        return "piece"

    def shape_stack(self, meta, c):
        return "stack"

    def shape_set(self, meta, c):
        return "set"

    def vis_hidden(self, meta, c):
        return "hidden"

    def vis_owner(self, meta, c):
        return "owner"

    def vis_public(self, meta, c):
        return "public"

    def vis_internal(self, meta, c):
        return "internal"

    def secret(self, meta, c):
        return _SECRET

    def end_turn(self, meta, c):
        return "turn"

    def end_round(self, meta, c):
        return "round"

    def end_game(self, meta, c):
        return "game"

    def step_next(self, meta, c):
        return "next"

    def step_previous(self, meta, c):
        return "previous"

    def signed_int(self, meta, c):
        return -c[1] if len(c) == 2 else c[0]

    def payoff_decl(self, meta, c):
        return self._node("payoff", meta, win=c[0], lose=c[1], quotes=c[2:])

    def unmodelled_decl(self, meta, c):
        return self._node("unmodelled", meta, quotes=[Quote(t.text, t.span) for t in c[:-1]], reason=c[-1].text)

    def enum_decl(self, meta, c):
        phrase, _, c = _extras(c)
        (names, members, quotes), _ = _split(c, Name, tuple, Quote)
        member_phrases = {n.text: ph for n, ph in members if ph is not None}
        return self._node("enum", meta, name=names[0], members=[n for n, _ in members], quotes=quotes, phrase=phrase,
                          member_phrases=member_phrases)

    def enum_member(self, meta, c):
        return (c[0], c[1] if len(c) > 1 else None)

    def attribute_decl(self, meta, c):
        phrase, _, c = _extras(c)
        return self._node("attribute", meta, name=c[0], phrase=phrase, quotes=c[1:])

    def component_decl(self, meta, c):
        category, name, *rest = c
        display = rest.pop(0).text if rest and isinstance(rest[0], Text) else name.text
        count = rest.pop(0)
        attrs = rest.pop(0) if rest and isinstance(rest[0], list) else []
        return self._node("component", meta, category=str(category), name=name, display=display,
                          count=count, attrs=attrs, quotes=rest)

    def attrs(self, meta, c):
        return c

    def attr(self, meta, c):
        return (c[0], c[1])

    def fact_decl(self, meta, c):
        phrase, _, c = _extras(c)
        return self._node("fact", meta, name=c[0], value=c[1], quotes=c[2:], phrase=phrase)

    def claim_decl(self, meta, c):
        return self._node("claim", meta, name=c[0], expr=c[1], quotes=c[2:])

    def cap(self, meta, c):
        return ("cap", c[0])

    def token_decl(self, meta, c):
        name, *rest = c
        display = rest.pop(0).text if isinstance(rest[0], Text) else name.text
        count = rest.pop(0)
        cap = rest.pop(0)[1] if rest and isinstance(rest[0], tuple) else None
        return self._node("token", meta, name=name, display=display, count=count, cap=cap, quotes=rest)

    def per_player(self, meta, c):
        return "per_player"

    def per_board(self, meta, c):
        return ("per_board", c[0])

    def board_decl(self, meta, c):
        phrase, _, c = _extras(c)
        return self._node("board", meta, name=c[0], rows=c[1], columns=c[2], quotes=c[3:], phrase=phrase)

    def trigger_decl(self, meta, c):
        name, *rest = c
        description = rest.pop(0).text if rest and isinstance(rest[0], Text) else None
        once = bool(rest and isinstance(rest[0], Token) and rest[0].type == "ONCE")
        if once:
            rest.pop(0)
        return self._node("trigger", meta, name=name, description=description, once=once, cond=rest[0],
                          quotes=rest[1:-1], body=rest[-1])

    def initial(self, meta, c):
        return "initial"

    def zone_decl(self, meta, c):
        phrase, _, c = _extras(c)
        name, *rest = c
        per_player = "per_player" in rest
        per_board = next((r[1] for r in rest if isinstance(r, tuple)), None)
        initial = "initial" in rest
        rest = [r for r in rest if r not in ("per_player", "initial") and not isinstance(r, tuple)]
        shape, visibility, *quotes = rest
        return self._node("zone", meta, name=name, per_player=per_player, per_board=per_board, shape=str(shape),
                          visibility=str(visibility), initial=initial, quotes=quotes, phrase=phrase)

    def var_decl(self, meta, c):
        phrase, bookkeeping, c = _extras(c)
        name, *rest = c
        visibility = next((r.text for r in rest if isinstance(r, _Visibility)), None)  # None: the default
        rest = [r for r in rest if not isinstance(r, _Visibility)]
        per_player = rest[0] == "per_player"
        extra = dict(visibility=visibility, phrase=phrase, bookkeeping=bookkeeping)
        if per_player:
            rest = rest[1:]
        elif isinstance(rest[0], tuple):
            return self._node("var", meta, name=name, per_player=False, per_board=rest[0][1], type=rest[1],
                              init=rest[2], quotes=rest[3:], **extra)
        return self._node("var", meta, name=name, per_player=per_player, type=rest[0], init=rest[1], quotes=rest[2:],
                          **extra)

    def var_visibility(self, meta, c):
        return _Visibility(c[0], _span(self.file, meta))

    def int_type(self, meta, c):
        return self._node("type", meta, name="int", range=c[0] if c else None)

    def bool_type(self, meta, c):
        return self._node("type", meta, name="bool", range=None)

    def player_type(self, meta, c):
        return self._node("type", meta, name="player", range=None)

    def card_type(self, meta, c):
        return self._node("type", meta, name="card", range=None)

    def named_type(self, meta, c):
        return self._node("type", meta, name=c[0], range=None)

    def range(self, meta, c):
        return (c[0], c[1])

    def params(self, meta, c):
        return Params(c)

    def param(self, meta, c):
        return self._node("param", meta, name=c[0], type=c[1])

    def define_decl(self, meta, c):
        phrase, _, c = _extras(c)
        name, *rest = c
        params = rest.pop(0) if isinstance(rest[0], Params) else []
        return self._node("define", meta, name=name, params=params, type=rest[0], body=rest[1], quotes=rest[2:],
                          phrase=phrase)

    def procedure_decl(self, meta, c):
        phrase, bookkeeping, c = _extras(c)
        name, *rest = c
        params = rest.pop(0) if rest and isinstance(rest[0], Params) else []
        result = rest.pop(0)[1] if rest and isinstance(rest[0], tuple) and rest[0][0] == "result" else None
        return self._node("procedure", meta, name=name, params=params, quotes=rest[:-1], body=rest[-1],
                          phrase=phrase, bookkeeping=bookkeeping, result=result)

    def result(self, meta, c):
        return ("result", c[0])

    def flow_decl(self, meta, c):
        return self._node("flow", meta, quotes=c[:-1], body=c[-1])

    def ambiguity_decl(self, meta, c):
        name, *rest = c
        title = rest.pop(0).text if rest and isinstance(rest[0], Text) else name.text
        fields = dict(quotes=[], questions=[], options=[], defaults=[], kinds=[])
        for item in rest:
            fields[item[0]].append(item[1])
        return self._node("ambiguity", meta, name=name, title=title, **fields)

    def amb_quote(self, meta, c):
        return ("quotes", Quote(c[0].text, c[0].span, c[1] if len(c) > 1 else None))

    def amb_question(self, meta, c):
        return ("questions", c[0])

    def amb_option(self, meta, c):
        return ("options", (c[0], c[1].text))

    def amb_default(self, meta, c):
        return ("defaults", (c[0], c[1].text))

    def amb_kind(self, meta, c):
        words = [x for x in c if isinstance(x, Name)]
        return ("kinds", Name("-".join(w.text for w in words), Span(self.file, words[0].span.line, words[0].span.column,
                                                                    words[-1].span.end_line, words[-1].span.end_column)))

    def checks_decl(self, meta, c):
        return self._node("checks", meta, game=c[0])

    def invariant_decl(self, meta, c):
        return self._property("invariant", meta, c)

    def reachable_decl(self, meta, c):
        return self._property("reachable", meta, c)

    def _property(self, kind, meta, c):
        name, *rest = c
        description = rest.pop(0).text if isinstance(rest[0], Text) else None
        under = rest.pop(0) if isinstance(rest[0], _Under) else _Under()
        return self._node(kind, meta, name=name, description=description, under=list(under), expr=rest[0],
                          quotes=rest[1:])

    def example_decl(self, meta, c):
        name, *rest = c
        description = rest.pop(0).text if isinstance(rest[0], Text) else None
        players = rest.pop(0)
        under = rest.pop(0) if isinstance(rest[0], _Under) else _Under()
        steps = rest.pop(0) if isinstance(rest[0], _Steps) else _Steps()
        return self._node("example", meta, name=name, description=description, players=players, under=list(under),
                          steps=list(steps), expr=rest[0], quotes=rest[1:])

    def example_steps(self, meta, c):
        return _Steps(step for group in c for step in group)

    def example_step(self, meta, c):
        times = c[1] if len(c) > 1 else 1
        if times > MAX_REPEAT:
            if self.sink is not None:
                self.sink.error("E101", f"an example step is repeated {times:,} times: at most {MAX_REPEAT:,}",
                                _span(self.file, meta))
            times = 1
        return [c[0]] * times

    def under(self, meta, c):
        return _Under(c)

    def option_value(self, meta, c):
        return (c[0], c[1])

    def expect_decl(self, meta, c):
        return self._node("expect", meta, name=c[0], finding=c[1].text, reason=c[2].text, quotes=c[3:])

    # ---- statements
    def block(self, meta, c):
        return Block(c)

    def stmt(self, meta, c):
        node, *quotes = c
        node.fields["quotes"] = node.fields.get("quotes", []) + quotes
        return node

    def move(self, meta, c):
        return self._node("move", meta, selector=c[0], source=c[1], dest=c[2],
                          at_bottom=len(c) > 3 and c[3] == "bottom")

    def sel_top(self, meta, c):
        return self._node("sel_top", meta)

    def sel_bottom(self, meta, c):
        return self._node("sel_bottom", meta)

    def sel_all(self, meta, c):
        return self._node("sel_all", meta, var=None, cond=None)

    def sel_all_where(self, meta, c):
        return self._node("sel_all", meta, var=c[0], cond=c[1])

    def sel_one_where(self, meta, c):
        return self._node("sel_one", meta, var=c[0], cond=c[1])

    def sel_card(self, meta, c):
        return self._node("sel_card", meta, expr=c[0])

    def at_bottom(self, meta, c):
        return "bottom"

    def at_top(self, meta, c):
        return "top"

    def shuffle(self, meta, c):
        return self._node("shuffle", meta, zone=c[0])

    def lvalue(self, meta, c):
        return self._node("lvalue", meta, name=c[0], index=c[1] if len(c) > 1 else None)

    def assign(self, meta, c):
        return self._node("assign", meta, target=c[0], value=c[1])

    def add(self, meta, c):
        return self._node("add", meta, amount=c[0], target=c[1])

    def subtract(self, meta, c):
        return self._node("subtract", meta, amount=c[0], target=c[1])

    def take(self, meta, c):
        return self._node("take", meta, amount=c[0], token=c[1], player=c[2])

    def return_tokens(self, meta, c):
        return self._node("return_tokens", meta, amount=c[0], token=c[1], player=c[2])

    def pass_tokens(self, meta, c):
        return self._node("pass_tokens", meta, amount=c[0], token=c[1], source=c[2], dest=c[3])

    def reverse_stmt(self, meta, c):
        return self._node("reverse", meta)

    def return_value(self, meta, c):
        return self._node("return_value", meta, value=c[0])

    def if_stmt(self, meta, c):
        branches = [(c[i], c[i + 1]) for i in range(0, len(c) - 1, 2)]
        orelse = c[-1] if len(c) % 2 == 1 else Block()
        return self._node("if", meta, branches=branches, orelse=orelse)

    def for_stmt(self, meta, c):
        return self._node("for", meta, var=c[0], iter=c[1], body=c[2])

    def loop_stmt(self, meta, c):
        return self._node("loop", meta, body=c[0])

    def while_stmt(self, meta, c):
        return self._node("while", meta, cond=c[0], body=c[1])

    def break_stmt(self, meta, c):
        return self._node("break", meta)

    def let_stmt(self, meta, c):
        return self._node("let", meta, var=c[0], value=c[1])

    def do_stmt(self, meta, c):
        return self._node("do", meta, name=c[0], args=c[1] if len(c) > 1 else [])

    def choose_stmt(self, meta, c):
        by, *rest = c
        return self._node("choose", meta, by=by, actions=[r for r in rest if not isinstance(r, Quote)],
                          quotes=[r for r in rest if isinstance(r, Quote)])

    def action(self, meta, c):
        phrase, _, c = _extras(c)
        name, *rest = c
        binders = rest.pop(0) if rest and isinstance(rest[0], Params) else []
        secret = bool(rest) and rest[0] is _SECRET
        if secret:
            rest.pop(0)
        when = rest.pop(0)[1] if rest and isinstance(rest[0], tuple) else None
        label = rest.pop(0).text if rest and isinstance(rest[0], Text) else None
        return self._node("action", meta, name=name, binders=binders, when=when, label=label,
                          quotes=rest[:-1], body=rest[-1], phrase=phrase, secret=secret)

    def action_params(self, meta, c):
        return Params(c)

    def action_param(self, meta, c):
        binder = c[-1]
        binder.fields["secret"] = len(c) > 1
        return binder

    def when(self, meta, c):
        return ("when", c[0])

    def pick_stmt(self, meta, c):
        return self._node("pick", meta, binder=c[-2], by=c[-1], secret=len(c) > 2)

    def random_stmt(self, meta, c):
        return self._node("random", meta, binder=c[0], weight=c[1] if len(c) > 1 else None)

    def binder(self, meta, c):
        return self._node("binder", meta, var=c[0], iter=c[1], cond=c[2] if len(c) > 2 else None)

    def reveal_stmt(self, meta, c):
        if len(c) == 3:  # one card of a zone
            return self._node("reveal", meta, zone=c[1], card=c[0], to=c[2])
        return self._node("reveal", meta, zone=c[0], card=None, to=c[1])

    def announce_stmt(self, meta, c):
        return self._node("announce", meta, value=c[0], by=c[1])

    def check_triggers_stmt(self, meta, c):
        return self._node("check_triggers", meta)

    def win_stmt(self, meta, c):
        return self._node("win", meta, target=c[0])

    def everyone(self, meta, c):
        return self._node("everyone", meta)

    def target(self, meta, c):
        return c[0]

    def end_stmt(self, meta, c):
        return self._node("end", meta, what=str(c[0]))

    def rotate_stmt(self, meta, c):
        return self._node("rotate", meta, zone=c[0], step=str(c[1]))

    def rounds_stmt(self, meta, c):
        return self._node("rounds", meta, body=c[0])

    def turns_stmt(self, meta, c):
        start, *rest = c
        quotes = [r for r in rest if isinstance(r, Quote)]
        blocks = [r for r in rest if isinstance(r, Block)]
        return self._node("turns", meta, start=start, body=blocks[0],
                          then=blocks[1] if len(blocks) > 1 else Block(), quotes=quotes)

    def rule_stmt(self, meta, c):
        name, *rest = c
        title = rest.pop(0).text if rest and isinstance(rest[0], Text) else None
        return self._node("rule", meta, name=name, title=title, quotes=rest[:-1], body=rest[-1])

    # ---- expressions
    def iter(self, meta, c):
        return self._node("iter_expr", meta, expr=c[0])

    def iter_range(self, meta, c):
        return self._node("iter_range", meta, low=c[0], high=c[1])

    def iter_players_from(self, meta, c):
        return self._node("iter_players", meta, start=c[0])

    def iter_every(self, meta, c):
        return self._node("iter_every", meta, zone=c[0])

    def iter_subsets(self, meta, c):
        return self._node("iter_subsets", meta, zone=c[0])

    def or_expr(self, meta, c):
        return self._fold(meta, "or", c)

    def and_expr(self, meta, c):
        return self._fold(meta, "and", c)

    def _fold(self, meta, op, c):
        node = c[0]
        for right in c[1:]:
            node = self._node("binop", meta, op=op, left=node, right=right)
        return node

    def not_(self, meta, c):
        return self._node("not", meta, operand=c[0])

    def compare(self, meta, c):
        return self._node("binop", meta, op=str(c[1]), left=c[0], right=c[2])

    def binop(self, meta, c):
        return self._node("binop", meta, op=str(c[1]), left=c[0], right=c[2])

    def option_is(self, meta, c):
        return self._node("option_is", meta, ambiguity=c[0], option=c[1])

    def neg(self, meta, c):
        return self._node("neg", meta, operand=c[1])

    def attribute(self, meta, c):
        return self._node("attribute", meta, target=c[0], name=c[1])

    def int_lit(self, meta, c):
        return self._node("int", meta, value=c[0])

    def true_lit(self, meta, c):
        return self._node("bool", meta, value=True)

    def false_lit(self, meta, c):
        return self._node("bool", meta, value=False)

    def name(self, meta, c):
        return self._node("name", meta, name=c[0])

    def call(self, meta, c):
        return self._node("call", meta, name=c[0], args=c[1])

    def args(self, meta, c):
        return list(c)

    def all_players(self, meta, c):
        return self._node("players", meta)

    def set_lit(self, meta, c):
        return self._node("set", meta, items=c)

    def if_expr(self, meta, c):
        return self._node("if_expr", meta, cond=c[0], then=c[1], orelse=c[2])

    def count_q(self, meta, c):
        return self._node("count", meta, binder=c[0])

    def exists_q(self, meta, c):
        return self._node("exists", meta, binder=c[0])

    def the_q(self, meta, c):
        return self._node("the", meta, binder=c[0])

    def forall(self, meta, c):
        return self._node("forall", meta, var=c[0], iter=c[1], body=c[2])

    def sum_q(self, meta, c):
        return self._node("sum", meta, var=c[0], iter=c[1], body=c[2])

    def aggregate(self, meta, c):
        return self._node("aggregate", meta, name=c[0], binder=c[1], body=c[2] if len(c) > 2 else None)


# Friendly messages for common mistakes, matched against Lark's parser state.
SYNTAX_EXAMPLES: dict[str, tuple[str, list[str]]] = {
    "E102": ("a block is not closed: a '}' is missing", ["flow { loop {", "procedure p { if x {"]),
    "E103": ("'quote' needs a string in double quotes", ["fact a = 1 quote x", "game g \"G\" quote 1"]),
    "E104": ("a zone needs a shape and a visibility, as in `zone deck: stack, hidden`",
             ["zone deck: stack", "zone deck", "zone deck: hidden"]),
    "E105": ("a statement was expected here (move, shuffle, if, choose, ...)",
             ["flow { 1 }", "flow { x = 1 }", "flow { hand(p) }"]),
    "E106": ("an expression is incomplete", ["fact a = 1 +", "fact a = (1", "define f: int = "]),
}


_STATEMENT_STARTS = {"MOVE", "SHUFFLE", "CHOOSE", "LOOP"}
_EXPRESSION_STARTS = {"INT", "NAME", "LPAR"}
_ZONE_PARTS = {"COLON", "COMMA", "PER", "SET", "STACK", "HIDDEN", "OWNER", "PUBLIC"}


def _classify(err: UnexpectedInput, text: str) -> str | None:
    """A friendly code from what the parser expected where it stopped: this works at any depth,
    where Lark's example matching only recognises the samples' exact parser stack."""
    if isinstance(err, UnexpectedCharacters):
        return None  # "unexpected character" says it best
    expected = set(getattr(err, "expected", None) or ())
    at_end = isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END")
    before = text[:getattr(err, "pos_in_stream", None) or len(text)].rstrip()
    if expected == {"STRING"} and before.endswith("quote"):
        return "E103"
    if at_end and "RBRACE" in expected:
        return "E102"
    if expected and expected <= _ZONE_PARTS and re.search(r"(^|\s)zone\s+\w+[^\n]*$", before):
        return "E104"
    if _EXPRESSION_STARTS <= expected and not expected & _STATEMENT_STARTS:
        return "E106"
    if _STATEMENT_STARTS <= expected and not at_end:
        return "E105"
    return None


def _friendly(err: UnexpectedInput, text: str) -> tuple[str, str]:
    def try_parse(sample):
        return parser().parse(sample)

    examples = {code: samples for code, (_, samples) in SYNTAX_EXAMPLES.items()}
    try:
        code = err.match_examples(try_parse, examples, use_accepts=True)
    except Exception:  # noqa: BLE001 - matching is best effort; the classifier below still runs
        code = None
    code = code or _classify(err, text)
    if code:
        return code, SYNTAX_EXAMPLES[code][0]
    if isinstance(err, UnexpectedCharacters):
        if text[err.pos_in_stream] == '"':
            return "E101", "a string is not closed: it needs a '\"' on the same line"
        return "E101", f"unexpected character {text[err.pos_in_stream]!r}"
    if isinstance(err, UnexpectedEOF):
        return "E101", "unexpected end of file"
    assert isinstance(err, UnexpectedToken)
    got = "end of file" if err.token.type == "$END" else repr(str(err.token))
    return "E101", f"unexpected {got}"


def _token_before(err: UnexpectedInput) -> Token | None:
    """The last token read before an unexpected one, where the parser says it."""
    if not isinstance(err, UnexpectedToken) or err.token.type == "$END":
        return None
    history = getattr(err, "token_history", None) or []
    return history[-1] if history else None


def unclosed_brace(text: str) -> tuple[int, int, bool] | None:
    """Where the '{' that lacks its '}' most likely is: (line, column, whether indentation told). The first
    '}' that starts a line less indented than the line of the '{' it would close shows that this '{' was
    left open; else it is the innermost '{' still open at the end. Strings and comments are skipped."""
    stack: list[tuple[int, int, int]] = []  # line, column, indentation of the opening line
    lines = text.split("\n")
    line, start, i = 1, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "\n":
            line, start = line + 1, i + 1
        elif ch == "#":
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        elif ch == '"':
            i += 1
            while i < len(text) and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
        elif ch == "{":
            raw = lines[line - 1]
            stack.append((line, i - start + 1, len(raw) - len(raw.lstrip())))
        elif ch == "}" and stack:
            raw = lines[line - 1]
            indent = len(raw) - len(raw.lstrip())
            if raw.lstrip().startswith("}") and indent < stack[-1][2]:
                return (*stack[-1][:2], True)
            stack.pop()
        i += 1
    return (*stack[-1][:2], False) if stack else None


_ASSIGNMENT = re.compile(r"\w+(\([^()\n]*\))?\s*=(?!=)[^\n]*")


def _assignment_without_set(text: str, token: Token) -> str | None:
    """`score(p) = 3` where a statement belongs: the assignment as written, for `set` to go before it."""
    found = _ASSIGNMENT.match(text, token.start_pos)
    return found.group(0).strip() if found else None


def _misspelt_keyword(err: UnexpectedInput) -> Token | None:
    """The name just before the error when it is a misspelling of the one keyword expected there."""
    import difflib

    history = getattr(err, "token_history", None) or []
    expected = set(getattr(err, "expected", None) or ())
    if not isinstance(err, UnexpectedToken) or len(expected) != 1 or not history or history[-1].type != "NAME":
        return None
    keyword = next((t.pattern.value for t in parser().terminals if t.name in expected and t.pattern.type == "str"), None)
    if keyword is None or not difflib.get_close_matches(str(history[-1]), [keyword], n=1, cutoff=0.6):
        return None
    return history[-1]


def parse(text: str, file: str = "<spec>") -> Node:
    """Parse spec text into a syntax tree; raise :class:`SpecError` on a syntax error."""
    sink = DiagnosticSink(file, text)
    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        code, message = _friendly(err, text)
        line, column = max(1, err.line if err.line != -1 else text.count("\n") + 1), max(1, err.column if err.column != -1 else 1)
        width = len(err.token) if isinstance(err, UnexpectedToken) and err.token.type != "$END" else 1
        hint = hints.expected_hint(err, text, parser())
        typo = _misspelt_keyword(err)
        before = _token_before(err)
        if typo is not None:  # `move c frm box`: `frm` reads as a token name of `move N TOKEN from`
            line, column, width = typo.line, typo.column, len(typo)
            message = f"unexpected {str(typo)!r}"
        elif isinstance(err, UnexpectedToken) and str(err.token) == "=":
            # `where c.rank = r`: a comparison written as an assignment
            code, message = "E101", "unexpected '=': a comparison is written '=='"
            hint = "'=' only gives a value, as in `set x = 1` or `let y = 2`"
        elif code == "E105" and isinstance(err, UnexpectedToken) and err.token.type == "NAME" \
                and (assigned := _assignment_without_set(text, err.token)) is not None:
            hint = f"a value is given with `set`: write `set {assigned}`"
        elif code == "E102" and (opened := unclosed_brace(text)) is not None:
            line, column, width = opened[0], opened[1], 1
            hint = ("the '}' of this '{' seems missing: the first '}' after it lines up with an outer block"
                    if opened[2] else "the file ends with this '{' still open")
        elif code == "E104" and before is not None and before.end_line is not None and before.end_line < line:
            # the visibility missing belongs at the end of the line before (`zone laid: set`, then a new
            # declaration): the caret goes there, not on the next declaration, which is fine
            line, column, width = before.end_line, before.end_column, 1
        sink.error(code, message, Span(file, line, column, line, column + width), hint)
    sink.raise_if_any()  # outside the `except`: the error reads without Lark's own traceback chained to it
    syntax = _ToSyntax(file, sink).transform(tree)
    too_deep = _too_deep(syntax)
    if too_deep is not None:
        sink.error("E101", f"this is nested too deeply: more than {MAX_DEPTH} levels of blocks and operators",
                   too_deep.span, "move part of it into a define or a procedure")
    sink.raise_if_any()
    return syntax


def parse_expression(text: str, file: str = "<expression>") -> Node:
    """Parse one expression of the rule language (as in an invariant); raise :class:`SpecError` when it
    is not one."""
    sink = DiagnosticSink(file, text)
    try:
        tree = expression_parser().parse(text)
    except UnexpectedInput as err:
        at_end = isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END")
        if at_end:
            code, message = "E106", SYNTAX_EXAMPLES["E106"][0]
        elif isinstance(err, UnexpectedCharacters):
            code, message = "E101", f"unexpected character {text[err.pos_in_stream]!r}"
        else:
            code, message = "E101", f"unexpected {str(err.token)!r}: this is not an expression"
        line = max(1, err.line if err.line != -1 else text.count("\n") + 1)
        column = max(1, err.column if err.column != -1 else len(text.split("\n")[-1]) + 1)
        width = len(err.token) if isinstance(err, UnexpectedToken) and err.token.type != "$END" else 1
        sink.error(code, message, Span(file, line, column, line, column + width),
                   hints.expected_hint(err, text, expression_parser()))
    sink.raise_if_any()
    syntax = _ToSyntax(file, sink).transform(tree)
    if _too_deep(syntax) is not None:
        sink.error("E101", f"this is nested too deeply: more than {MAX_DEPTH} levels of operators",
                   syntax.span, "use a define of the spec")
    sink.raise_if_any()
    return syntax


MAX_REPEAT = 10_000  # `do "step" x N` in an example: a worked example in a rulebook is a few dozen steps
MAX_DEPTH = 100  # later stages recurse over the syntax tree; real specs nest about 15 levels


def _too_deep(syntax: Node) -> Node | None:
    """The first node nested deeper than MAX_DEPTH, if any (found without recursion)."""
    stack = [(syntax, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Node):
            if depth > MAX_DEPTH:
                return value
            stack.extend((child, depth + 1) for child in reversed(value.fields.values()))
        elif isinstance(value, (list, tuple)):
            stack.extend((child, depth) for child in reversed(value))
    return None
