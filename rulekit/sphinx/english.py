"""English for the model: every expression and statement of a game, as a rules editor would say it.

The renderer reads the model only. It knows the node types of rulekit/model.py; a node type it does
not know (the language grows) is rendered generically from its dataclass fields, never with an
error. The output is plain data (:class:`Line` trees whose text is a sequence of strings and
:class:`Ref` links), so that the Sphinx directives decide the markup and every piece of spec text
stays text.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from .. import model as m

# ---- output ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A piece of text that links to another part of the page: `target` is (kind, name), where kind is
    procedure, define, ambiguity or rule."""

    text: str
    target: tuple[str, str]


Part = str | Ref


@dataclass
class Line:
    """One rule in English, the rulebook quotes that it formalizes, and the rules nested in it."""

    parts: list[Part]
    quotes: tuple = ()
    children: list[Line] = field(default_factory=list)
    span: object = None
    kind: str = ""

    @property
    def text(self) -> str:
        return "".join(p.text if isinstance(p, Ref) else p for p in self.parts)


def plain(parts) -> str:
    return "".join(p.text if isinstance(p, Ref) else p for p in parts)


def humanize(name: str) -> str:
    """`end_of_turn` -> "end of turn", `RedCard` -> "Red Card" (spec names read as words)."""
    words = name.replace("_", " ")
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", words)
    return " ".join(words.split())


# ---- expressions ----------------------------------------------------------------------------

_COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least"}
_ARITH = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "%": "modulo"}
_PRECEDENCE = {"or": 1, "and": 2, **{op: 3 for op in _COMPARE}, "+": 4, "-": 4, "*": 5, "/": 5, "%": 5}


class English:
    """Renders one game's model. `game` gives display names of components and titles of ambiguities."""

    def __init__(self, game: m.Game):
        self.game = game
        self.cards = {c.name: c.display for c in getattr(game, "components", ())}
        self.tokens = {t.name: t.display for t in getattr(game, "tokens", ())}
        self.facts = {f.name: f for f in getattr(game, "facts", ())}
        self.procedures = {p.name: p for p in getattr(game, "procedures", ())}
        self.defines = {d.name: d for d in getattr(game, "defines", ())}

    # -- expressions: a list of parts
    def expr(self, e, context: int = 0) -> list[Part]:
        try:
            return self._expr(e, context)
        except Exception:  # noqa: BLE001 - a renderer must never take the docs down
            return [self.generic(e)]

    def text(self, e) -> str:
        return plain(self.expr(e))

    def text_binder(self, b: m.Binder) -> str:
        try:
            return plain(self.binder(b))
        except Exception:  # noqa: BLE001
            return getattr(b, "name", "")

    def _expr(self, e, context: int) -> list[Part]:
        if e is None:
            return ["nothing"]
        if isinstance(e, m.Const):
            return [self.const(e)]
        if isinstance(e, m.Local):
            return [e.name]
        if isinstance(e, m.FactRef):
            fact = self.facts.get(e.fact)
            value = fact.value if fact is not None else None
            shown = f" ({value.value})" if isinstance(value, m.Const) and value.name is None else ""
            return [f"the {humanize(e.fact)}{shown}"]
        if isinstance(e, m.VarRef):
            name = self.tokens.get(e.var, humanize(e.var))
            return [name] if e.player is None else [f"{name} of ", *self.expr(e.player, 9)]
        if isinstance(e, m.ZoneRef):
            return self.zone(e)
        if isinstance(e, m.Builtin):
            return self.builtin(e)
        if isinstance(e, m.Attr):
            return [f"the {humanize(e.attr)} of ", *self.expr(e.target, 9)]
        if isinstance(e, m.Unary):
            if e.op == "not":
                return ["not ", *self._wrap(e.operand, 6)]
            return ["minus ", *self._wrap(e.operand, 6)]
        if isinstance(e, m.Binary):
            return self.binary(e, context)
        if isinstance(e, m.IfExpr):
            out = ["if ", *self.expr(e.cond), " then ", *self.expr(e.then), ", otherwise ", *self.expr(e.orelse)]
            return ["(", *out, ")"] if context else out
        if isinstance(e, m.OptionIs):
            return ["the rules are read as ", Ref(f"{e.ambiguity} = {e.option}", ("ambiguity", e.ambiguity))]
        if isinstance(e, m.SetLit):
            return self.listing([self.expr(i, 9) for i in e.items], "and")
        if isinstance(e, m.Quant):
            return self.quant(e, context)
        if isinstance(e, m.DefineCall):
            parts: list[Part] = [Ref(humanize(e.define), ("define", e.define))]
            if e.args:
                parts += [" of ", *self.listing([self.expr(a, 9) for a in e.args], "and")]
            return parts
        return [self.generic(e)]

    def _wrap(self, e, level: int) -> list[Part]:
        inner = self.expr(e, level)
        if isinstance(e, m.Binary) and _PRECEDENCE.get(e.op, 9) < level:
            return ["(", *inner, ")"]
        return inner

    def const(self, e: m.Const) -> str:
        kind = e.type.kind if e.type else ""
        if e.name is not None:
            if kind == "card":
                return self.cards.get(e.name, humanize(e.name))
            return e.name
        if kind == "bool":
            return "true" if e.value else "false"
        if kind == "player":
            return f"seat {e.value}"
        return str(e.value)

    def zone(self, e: m.ZoneRef) -> list[Part]:
        name = humanize(e.zone)
        if e.player is None:
            return [f"the {name}"]
        if isinstance(e.player, m.Builtin) and e.player.name == "current":
            return [f"the current player's {name}"]
        return [f"the {name} of ", *self.expr(e.player, 9)]

    def builtin(self, e: m.Builtin) -> list[Part]:
        a = [self.expr(x, 9) for x in e.args]
        token = self.tokens.get(e.token, humanize(e.token)) if e.token else "tokens"
        if e.name == "current" and not a:
            return ["the current player"]
        if e.name == "player_count" and not a:
            return ["the number of players"]
        if e.name == "size" and len(a) == 1:
            return ["the number of cards in ", *a[0]]
        if e.name == "next" and len(a) == 1:
            return ["the player after ", *a[0]]
        if e.name == "previous" and len(a) == 1:
            return ["the player before ", *a[0]]
        if e.name == "seat" and len(a) == 1:
            return ["the player in seat ", *a[0]]
        if e.name == "supply" and not a:
            return [f"the {token}s left in the supply"]
        if e.name == "held" and len(a) == 1:
            return [f"the {token}s held by ", *a[0]]
        if e.name in ("min", "max") and a:
            word = "smallest" if e.name == "min" else "largest"
            return [f"the {word} of ", *self.listing(a, "and")]
        if e.name == "abs" and len(a) == 1:
            return ["the absolute value of ", *a[0]]
        out: list[Part] = [humanize(e.name)]
        if e.token:
            out.append(f" {token}")
        if a:
            out += [" of ", *self.listing(a, "and")]
        return out

    def binary(self, e: m.Binary, context: int) -> list[Part]:
        level = _PRECEDENCE.get(e.op, 9)
        if e.op in ("and", "or"):
            word = f" {e.op} "
        elif e.op in _COMPARE:
            word = f" {_COMPARE[e.op]} "
        else:
            word = f" {_ARITH.get(e.op, e.op)} "
        right_level = level + 1 if e.op in ("-", "/", "%") else level
        out = [*self._wrap(e.left, level), word, *self._wrap(e.right, right_level)]
        return out

    def iter(self, it: m.Iter) -> list[Part]:
        if it.kind == "cards" and it.every:
            return [f"every {humanize(it.every)}"]
        if it.kind in ("cards", "bag") and it.zone is not None:
            return self.expr(it.zone, 9)
        if it.kind == "subsets":
            return ["the sets of cards in ", *self.expr(it.zone, 9)]
        if it.kind == "players":
            if it.start is not None:
                return ["the players, starting from ", *self.expr(it.start, 9)]
            return ["the players"]
        if it.kind == "enum" and it.enum:
            return [f"the {humanize(it.enum)} values"]
        if it.kind == "set":
            return self.listing([self.expr(i, 9) for i in it.items], "and")
        if it.kind == "range":
            return ["the numbers from ", *self.expr(it.low, 9), " to ", *self.expr(it.high, 9)]
        if it.enum:
            return [f"the {humanize(it.kind)} {humanize(it.enum)}"]
        return [humanize(it.kind)]

    def binder(self, b: m.Binder, article: str = "a") -> list[Part]:
        if b.iter.kind == "enum" and b.iter.enum:
            art = "an" if article == "a" and b.iter.enum[:1].lower() in "aeiou" else article
            out: list[Part] = [f"{art} {b.iter.enum} {b.name}"]
            return out + ([" where ", *self.expr(b.cond)] if b.cond is not None else [])
        if b.iter.kind == "subsets":
            out = [f"{article} set of cards {b.name} from ", *self.expr(b.iter.zone, 9)]
            return out + ([" where ", *self.expr(b.cond)] if b.cond is not None else [])
        noun = {"cards": "card", "bag": "card", "players": "player", "board": "position"}.get(b.iter.kind, "")
        where = self.iter(b.iter)
        head = f"{article} {noun} {b.name}" if noun else f"{article} {b.name}"
        out: list[Part] = [head, " in " if noun == "card" else " among ", *where]
        if b.cond is not None:
            out += [" where ", *self.expr(b.cond)]
        return out

    def quant(self, e: m.Quant, context: int) -> list[Part]:
        b = e.binder
        if e.kind == "count":
            out = ["the number of ", *self._plural(b)]
        elif e.kind == "exists":
            out = ["there is ", *self.binder(b)]
        elif e.kind == "the":
            out = ["the ", *self._singular(b)]
        elif e.kind == "forall":
            out = ["for every ", b.name, " in ", *self.iter(b.iter), ": ", *self.expr(e.body)]
        elif e.kind == "sum":
            out = ["the sum, over every ", b.name, " in ", *self.iter(b.iter), ", of ", *self.expr(e.body)]
        elif e.kind in ("max", "min"):
            out = [f"the {'largest' if e.kind == 'max' else 'smallest'} ", *self.expr(e.body), " over the ",
                   *self._plural(b)]
        elif e.kind in ("argmax", "argmin"):
            out = ["the ", *self._singular(b), f" with the {'largest' if e.kind == 'argmax' else 'smallest'} ",
                   *self.expr(e.body), " (on a tie, the first of them)"]
        else:
            out = [f"{humanize(e.kind)} of ", *self.binder(b)]
            if e.body is not None:
                out += [": ", *self.expr(e.body)]
            return out
        if e.kind in ("count", "exists", "the") and e.body is not None:
            out += [": ", *self.expr(e.body)]
        return ["(", *out, ")"] if context >= 9 and e.kind in ("forall", "sum") else out

    def _plural(self, b: m.Binder) -> list[Part]:
        noun = {"cards": "cards", "players": "players"}.get(b.iter.kind, "values")
        out: list[Part] = [f"{noun} {b.name} in ", *self.iter(b.iter)]
        if b.cond is not None:
            out += [" where ", *self.expr(b.cond)]
        return out

    def _singular(self, b: m.Binder) -> list[Part]:
        noun = {"cards": "card", "players": "player"}.get(b.iter.kind, "value")
        out: list[Part] = [f"{noun} {b.name} in ", *self.iter(b.iter)]
        if b.cond is not None:
            out += [" where ", *self.expr(b.cond)]
        return out

    @staticmethod
    def listing(items: list[list[Part]], conj: str) -> list[Part]:
        out: list[Part] = []
        for i, item in enumerate(items):
            if i:
                out.append(f" {conj} " if i == len(items) - 1 else ", ")
            out += item
        return out

    def generic(self, node) -> str:
        """Any node, from its fields: for node types this renderer does not know yet."""
        try:
            if not dataclasses.is_dataclass(node):
                return str(node)
            fields = []
            for f in dataclasses.fields(node):
                if f.name in ("span", "quotes", "type", "slot", "point", "nlocals"):
                    continue
                value = getattr(node, f.name, None)
                if isinstance(value, tuple) and value and all(isinstance(v, m.Stmt) for v in value):
                    continue  # nested statements become children
                if isinstance(value, (m.Expr, m.Iter, m.Binder)):
                    shown = self.text(value) if isinstance(value, m.Expr) else self.generic(value)
                elif isinstance(value, tuple):
                    shown = ", ".join(self.text(v) if isinstance(v, m.Expr) else str(v) for v in value)
                else:
                    shown = str(value)
                if value is not None and shown != "":
                    fields.append(f"{humanize(f.name)} {shown}")
            head = humanize(type(node).__name__).lower()
            return head + (f" ({'; '.join(fields)})" if fields else "")
        except Exception:  # noqa: BLE001
            return type(node).__name__

    # -- statements: a list of Lines
    def block(self, stmts) -> list[Line]:
        out: list[Line] = []
        for s in stmts or ():
            out += self.stmt(s)
        return out

    def stmt(self, s) -> list[Line]:
        try:
            return self._stmt(s)
        except Exception:  # noqa: BLE001 - never crash on a statement; say what it is
            return [self._generic_stmt(s)]

    def _line(self, s, parts, children=None) -> Line:
        return Line(list(parts), tuple(getattr(s, "quotes", ()) or ()), children or [], getattr(s, "span", None),
                    type(s).__name__)

    def _stmt(self, s) -> list[Line]:
        if isinstance(s, m.Move):
            return [self._line(s, self.move(s))]
        if isinstance(s, m.Shuffle):
            return [self._line(s, ["Shuffle ", *self.expr(s.zone), "."])]
        if isinstance(s, m.Assign):
            target = self.expr(m.VarRef(s.var, s.player, m.INT))
            value = self.expr(s.value)
            if s.op == "+":
                return [self._line(s, ["Add ", *value, " to ", *target, "."])]
            if s.op == "-":
                return [self._line(s, ["Subtract ", *value, " from ", *target, "."])]
            return [self._line(s, ["Set ", *target, " to ", *value, "."])]
        if isinstance(s, m.TokenMove):
            token = self.tokens.get(s.token, humanize(s.token))
            who, amount = self.expr(s.player), self.expr(s.amount)
            if s.to_player:
                return [self._line(s, [*_subject(who, s.player), " takes ", *amount, f" {token}(s) from the supply."])]
            return [self._line(s, [*_subject(who, s.player), " returns ", *amount, f" {token}(s) to the supply."])]
        if isinstance(s, m.If):
            lines = []
            for i, (cond, body) in enumerate(s.branches):
                head = "If " if i == 0 else "Otherwise, if "
                line = Line([head, *self.expr(cond), ":"], (), self.block(body), getattr(s, "span", None), "If")
                lines.append(line)
            if s.orelse:
                lines.append(Line(["Otherwise:"], (), self.block(s.orelse), None, "If"))
            lines[0].quotes = tuple(s.quotes)
            return lines
        if isinstance(s, m.For):
            return [self._line(s, ["For each ", *self._each(s.binder), ":"],
                               self.block(s.body))]
        if isinstance(s, m.Loop):
            head = ["Repeat:"] if s.cond is None else ["As long as ", *self.expr(s.cond), ", repeat:"]
            return [self._line(s, head, self.block(s.body))]
        if isinstance(s, m.Break):
            return [self._line(s, ["Stop repeating."])]
        if isinstance(s, m.Let):
            return [self._line(s, ["Let ", s.name, " be ", *self.expr(s.value), "."])]
        if isinstance(s, m.Do):
            proc = self.procedures.get(s.procedure)
            parts: list[Part] = ["Carry out ", Ref(humanize(s.procedure), ("procedure", s.procedure))]
            if s.args:
                names = [p.name for p in proc.params] if proc is not None else [""] * len(s.args)
                shown = []
                for name, arg in zip(names, s.args):
                    value = self.expr(arg, 9)
                    shown.append(value if plain(value) == name or not name else [f"{name} = ", *value])
                parts += [" for ", *self.listing(shown, "and")]
            return [self._line(s, [*parts, "."])]
        if isinstance(s, m.Choose):
            return [self.choose(s)]
        if isinstance(s, m.Random):
            return [self._line(s, ["Pick ", *self.binder(s.binder), " at random."])]
        if isinstance(s, m.Reveal):
            to = ["everyone"] if s.to is None else self.expr(s.to)
            return [self._line(s, ["Reveal ", *self.expr(s.zone), " to ", *to, "."])]
        if isinstance(s, m.Announce):
            return [self._line(s, [*_subject(self.expr(s.by), s.by), " says out loud that it is ", *self.expr(s.value),
                                   " (everyone hears it; nobody can check it)."])]
        if isinstance(s, m.CheckTriggers):
            return [self._line(s, ["Check the triggers now: any whose condition holds applies before play goes on."])]
        if isinstance(s, m.Win):
            if s.player is None:
                return [self._line(s, ["Everyone wins."])]
            return [self._line(s, [*_subject(self.expr(s.player), s.player), " wins."])]
        if isinstance(s, m.End):
            return [self._line(s, [f"The {s.what} ends."])]
        if isinstance(s, m.Rotate):
            where = "next" if s.step > 0 else "previous"
            return [self._line(s, [f"Every player passes their {humanize(s.zone)} to the {where} player."])]
        if isinstance(s, m.Rounds):
            return [self._line(s, ["Play round after round:"], self.block(s.body))]
        if isinstance(s, m.Turns):
            order = humanize(getattr(self.game, "order", "") or "")
            head = ["Players take turns", f" ({order})" if order else "", ", starting with ", *self.expr(s.start),
                    ". On each turn:"]
            lines = [self._line(s, head, self.block(s.body))]
            if s.then:
                lines.append(Line(["At the end of each turn:"], (), self.block(s.then), None, "Turns"))
            return lines
        if isinstance(s, m.Rule):
            title = s.title or humanize(s.name)
            return [self._line(s, ["Rule ", Ref(title, ("rule", s.name)), ":"], self.block(s.body))]
        return [self._generic_stmt(s)]

    def _each(self, b: m.Binder) -> list[Part]:
        noun = {"cards": "card", "players": "player", "board": "position"}.get(b.iter.kind, "")
        out: list[Part] = [f"{noun} {b.name}" if noun else b.name, " in ", *self.iter(b.iter)]
        if b.cond is not None:
            out += [" where ", *self.expr(b.cond)]
        return out

    def _generic_stmt(self, s) -> Line:
        children = []
        if dataclasses.is_dataclass(s):
            for f in dataclasses.fields(s):
                value = getattr(s, f.name, None)
                if isinstance(value, tuple) and value and all(isinstance(v, m.Stmt) for v in value):
                    children += self.block(value)
        text = self.generic(s)
        return Line([text[:1].upper() + text[1:] + "."], tuple(getattr(s, "quotes", ()) or ()), children,
                    getattr(s, "span", None), type(s).__name__)

    def move(self, s: m.Move) -> list[Part]:
        sel = s.selector
        src, dest = self.expr(s.source), self.expr(s.dest)
        where = [" at the bottom"] if s.at_bottom else []
        if sel.kind == "top":
            return ["Move the top card of ", *src, " to ", *dest, *where, "."]
        if sel.kind == "bottom":
            return ["Move the bottom card of ", *src, " to ", *dest, *where, "."]
        if sel.kind == "all" and sel.cond is None:
            return ["Move all cards from ", *src, " to ", *dest, *where, "."]
        name = self._selector_name(sel)
        if sel.kind == "all":
            return [f"Move every card {name}from ", *src, " where ", *self._cond(sel), " to ", *dest, *where, "."]
        if sel.kind == "one":
            return [f"Move one card {name}from ", *src, " where ", *self._cond(sel), " to ", *dest, *where, "."]
        if sel.kind == "card" and sel.card is not None:
            return ["Move ", *self.expr(sel.card), " from ", *src, " to ", *dest, *where, "."]
        return ["Move ", self.generic(sel), " from ", *src, " to ", *dest, *where, "."]

    @staticmethod
    def _selector_name(sel: m.Selector) -> str:
        """The name the spec gave the selected card (`all c where ...`), found in the condition."""
        stack = [sel.cond]
        while stack:
            node = stack.pop()
            if isinstance(node, m.Local) and node.slot == sel.slot:
                return node.name + " "
            if dataclasses.is_dataclass(node):
                stack += [getattr(node, f.name, None) for f in dataclasses.fields(node)]
            elif isinstance(node, tuple):
                stack += list(node)
        return ""

    def _cond(self, sel: m.Selector) -> list[Part]:
        return self.expr(sel.cond) if sel.cond is not None else ["any"]

    def choose(self, s: m.Choose) -> Line:
        who = self.expr(s.by)
        actions = s.actions
        if len(actions) == 1 and len(actions[0].binders) == 1 and actions[0].name == actions[0].binders[0].name:
            a = actions[0]
            line = self._line(s, [*_subject(who, s.by), " chooses ", *self.binder(a.binders[0]), "."], self.block(a.body))
            return line
        line = self._line(s, [*_subject(who, s.by), " chooses one of:"])
        for a in actions:
            parts: list[Part] = [humanize(a.name)]
            if a.label:
                parts.append(f" ({a.label.rstrip('.')})")
            if a.binders:
                parts += [", with ", *self.listing([self.binder(b) for b in a.binders], "and")]
            if a.when is not None:
                parts += [", allowed when ", *self.expr(a.when)]
            parts.append(":" if a.body else ".")
            line.children.append(Line(parts, tuple(getattr(a, "quotes", ()) or ()), self.block(a.body),
                                      getattr(a, "span", None), "Action"))
        return line

    # -- declarations
    def define(self, d: m.Define) -> Line:
        params = ", ".join(p.name for p in d.params)
        head: list[Part] = [Ref(humanize(d.name), ("define", d.name))]
        if params:
            head.append(f" of {params}")
        return Line([*head, " is ", *self.expr(d.body), "."], tuple(d.quotes), [], d.span, "Define")

    def procedure_title(self, p) -> str:
        params = ", ".join(x.name for x in getattr(p, "params", ()))
        return humanize(p.name) + (f" ({params})" if params else "")


def _subject(parts: list[Part], e) -> list[Part]:
    """The start of a sentence about a player: `p` becomes "Player p", "the ..." becomes "The ..."."""
    if isinstance(e, m.Local):
        return ["Player ", *parts]
    return _cap(parts)


def _cap(parts: list[Part]) -> list[Part]:
    if parts and isinstance(parts[0], str) and parts[0]:
        return [parts[0][:1].upper() + parts[0][1:], *parts[1:]]
    return parts


def translation(quote) -> str | None:
    """Our translation of a quote (`quote "..." translation "..."`), shown under the original."""
    text = getattr(quote, "translation", None)
    return text if isinstance(text, str) and text.strip() else None


def language(quote) -> str | None:
    lang = getattr(quote, "language", None) or getattr(quote, "lang", None)
    return lang if isinstance(lang, str) and re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]+)*", lang) else None
