"""English for the model: every expression and statement of a game, as a player would read it.

The renderer reads the model only. Declarations are said with their phrases (`phrase "..."` in the
spec, or one derived from the name); values the rules bind (a chosen card, a procedure's player) are
referred to as "the card", "the other space", "you"; consecutive moves and sets become one
sentence; choices read "you may" or "you must choose"; an option test reads "under the reading X",
linked to the ambiguity; bookkeeping that the spec marks is left out. Statements are said by
:mod:`rulekit.sphinx.sentences`, the words they are made of are in :mod:`rulekit.sphinx.wording`.

A node type it does not know (the language grows) is rendered generically from its dataclass
fields, never with an error. The output is plain data (:class:`Line` trees whose text is a sequence
of strings and :class:`Ref` links), so that the Sphinx directives decide the markup and every piece
of spec text stays text.
"""
from __future__ import annotations

import dataclasses
import re

from .. import model as m
from .. import phrases
from ..errors import Span
from .sentences import Sentences
from .wording import (ADJECTIVES, AGREE, ARITH, COMPARE, FLAG_OFF, FLAG_ON, NOT_NOUNS, NOUNS, ORDINALS, PRECEDENCE, SELF,
                      SYMMETRIC, Line, Part, Ref, agree, humanize, is_you, join_text, plain, sentence)

__all__ = ["English", "Line", "Part", "Ref", "humanize", "language", "plain", "translation"]


class English(Sentences):
    """Renders one game's model. `game` gives the phrases, display names and ambiguities."""

    def __init__(self, game: m.Game):
        self.game = game
        self.cards = {c.name: c.display for c in getattr(game, "components", ())}
        self.categories = {c.name: c.category for c in getattr(game, "components", ())}
        only_pieces = self.categories and all(c == "piece" for c in self.categories.values())
        self.thing = "piece" if only_pieces else "card"  # what a component is called
        self.tokens = {t.name: t.display for t in getattr(game, "tokens", ())}
        self.facts = {f.name: f for f in getattr(game, "facts", ())}
        self.procedures = {p.name: p for p in getattr(game, "procedures", ())}
        self.defines = {d.name: d for d in getattr(game, "defines", ())}
        self.zones = {z.name: z for z in getattr(game, "zones", ())}
        self.vars = {v.name: v for v in getattr(game, "vars", ())}
        self.boards = {b.name: b for b in getattr(game, "boards", ())}
        self.ambiguities = {a.name: a for a in getattr(game, "ambiguities", ())}
        self.enums = {e.name: e for e in getattr(game, "enums", ())}
        self.members = {k: v for e in self.enums.values() for k, v in (getattr(e, "member_phrases", ()) or ())}
        self.attr_decls = {a.name: a for a in getattr(game, "attrs", ())}
        self.env: dict[int, list[Part]] = {}  # slot -> how the rules refer to that value
        self.self_nouns: dict[int, str] = {}  # slot of a binder whose condition is being said -> its noun
        self.call_refs: dict[str, list[list[Part]]] = {}  # procedure -> how its last call said its arguments
        self.calls: dict[str, int] = {}
        self.showing = False  # say bookkeeping too
        try:
            self._learn_calls()
        except Exception:  # noqa: BLE001 - learning is a nicety; the renderer works without it
            self.call_refs, self.env = {}, {}

    # ---- phrases ------------------------------------------------------------------------------

    def phrases_order(self) -> str:
        """The turn order as words: "clockwise"."""
        return phrases.words(getattr(self.game, "order", "") or "")

    def define_phrase(self, d) -> str:
        if getattr(d, "phrase", None):
            return d.phrase
        return phrases.default_define(d.name, [p.name for p in d.params], d.type == m.BOOL)

    def procedure_phrase(self, p) -> str:
        if getattr(p, "phrase", None):
            return p.phrase
        result = getattr(p, "result", None)
        if result is not None:  # a function is said as the value it gives
            return phrases.default_define(p.name, [x.name for x in getattr(p, "params", ())], result == m.BOOL)
        return phrases.default_procedure(p.name, [x.name for x in getattr(p, "params", ())])

    def zone_phrase(self, z) -> str:
        if getattr(z, "phrase", None):
            return z.phrase
        return phrases.default_zone(z.name, z.per_player, getattr(z, "per_board", None) is not None)

    def var_phrase(self, v) -> str:
        if getattr(v, "phrase", None):
            return v.phrase
        return phrases.default_var(v.name, v.per_player)

    def zone_title(self, z) -> str:
        """A zone named in a list of zones: "each player's hand", "each space (face up)"."""
        said = plain(self.fill(self.zone_phrase(z), {"player": ["each player"], "position": ["each space"]}))
        return said[:1].upper() + said[1:]

    def board_phrase(self, b) -> str:
        if getattr(b, "phrase", None):
            return b.phrase
        return phrases.default_board(b.name)

    def fill(self, template: str, args: dict, link: tuple[str, str] | None = None) -> list[Part]:
        """A phrase with its placeholders replaced by the parts given; its own words link to `link`."""
        out: list[Part] = []
        after_you = False
        for piece in phrases.pieces(template):
            if isinstance(piece, tuple):
                value = list(args.get(piece[1], [phrases.words(piece[1])]))
                before = out[-1] if out else ""
                before_text = before.text if isinstance(before, Ref) else before
                if value and isinstance(value[0], str) and value[0].startswith(("the ", "each ", "a ", "an ")) and \
                        re.search(r"\b(a|an|the)\s$", before_text):  # "has a {a}" with "the kind": "has the kind"
                    cut = re.sub(r"\b(a|an|the)\s$", "", before_text)
                    out[-1] = Ref(cut, before.target) if isinstance(before, Ref) else cut
                out += value
                after_you = is_you(value)
                continue
            literal = piece
            if after_you:
                literal, possessive = agree(literal)
                if possessive:
                    out[-1] = out[-1][:-3] + ("Your" if out[-1].endswith("You") else "your")
            if literal:
                out.append(Ref(literal, link) if link else literal)
            after_you = False
        return out

    def attribute(self, name: str) -> str:
        """An attribute in English: its phrase, else its enum's phrase, else its name as words."""
        decl = self.attr_decls.get(name)
        if decl is not None and getattr(decl, "phrase", None):
            return decl.phrase
        if decl is not None and decl.type.kind == "enum" and decl.type.enum in self.enums:
            enum = self.enums[decl.type.enum]
            if getattr(enum, "phrase", None):
                return enum.phrase
        return phrases.words(name)

    def member(self, name: str) -> str:
        return self.members.get(name) or phrases.words(name)

    def enum_noun(self, enum: str | None) -> str:
        decl = self.enums.get(enum or "")
        if decl is not None and getattr(decl, "phrase", None):
            return decl.phrase
        return phrases.words(enum or "value")

    # ---- referring to values -----------------------------------------------------------------

    def noun(self, t) -> str:
        if t is None:
            return "value"
        if t.kind == "enum" and t.enum:
            return self.enum_noun(t.enum)
        if t.kind == "card":
            return self.thing
        return NOUNS.get(t.kind, "value")

    def bind(self, slot: int, name: str, t, how: str = "") -> list[Part]:
        """Refer to a newly bound value: by its name when it is a word, else as "the <noun>", or, when
        another value of that kind is already in play, "the chosen <noun>", "the <noun> drawn" (`how`
        says which) or "the other <noun>"."""
        noun = self.noun(t)
        taken = {plain(v) for v in self.env.values()}
        if how and f"the {noun}" in taken and name.lower() not in ADJECTIVES:
            candidate = f"the chosen {noun}" if how == "chosen" else f"the {noun} drawn"
            if candidate not in taken:
                self.env[slot] = [candidate]
                return [candidate]
        if name.lower() in ADJECTIVES:
            ref = [f"the {name.lower()} {noun}"]
        elif len(name) >= 3 and name.replace("_", "").isalpha() and name.lower() not in NOT_NOUNS:
            ref = [f"the {phrases.words(name)}"]
        else:
            ref = [f"the {noun}"]
            for ordinal in ORDINALS:
                candidate = f"the {ordinal}{noun}"
                if candidate not in taken:
                    ref = [candidate]
                    break
        self.env[slot] = ref
        return ref

    def scoped(self):
        """Remember the bindings, so that a block's own bindings end with it."""
        return dict(self.env)

    # ---- expressions --------------------------------------------------------------------------

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
            if e.slot in self.env:
                return list(self.env[e.slot])
            return [f"the {self.noun(e.type)}"]
        if isinstance(e, m.FactRef):
            fact = self.facts.get(e.fact)
            value = fact.value if fact is not None else None
            if isinstance(value, m.Const) and value.name is None:
                return [str(value.value)]
            if fact is not None and getattr(fact, "phrase", None):
                return [fact.phrase]
            return [f"the {phrases.words(e.fact)}"]
        if isinstance(e, m.VarRef):
            return self.var(e)
        if isinstance(e, m.ZoneRef):
            return self.zone(e)
        if isinstance(e, m.Builtin):
            return self.builtin(e)
        if isinstance(e, m.Attr):
            target = self.expr(e.target, 9)
            decl = self.attr_decls.get(e.attr)
            if e.type == m.BOOL and decl is not None and getattr(decl, "phrase", None):
                return [*target, " ", decl.phrase]  # a flag said as a predicate: "the card is reusable"
            if e.type == m.BOOL:  # with no phrase, its name as the predicate: "the card is wild"
                return [*target, f" is {self.attribute(e.attr)}"]
            if len(plain(target).split()) > 3:
                return [f"the {self.attribute(e.attr)} of ", *target]
            return self.possessive(target, self.attribute(e.attr))
        if isinstance(e, m.Unary):
            if e.op == "not":
                return self.negate(e.operand)
            return ["minus ", *self._wrap(e.operand, 6)]
        if isinstance(e, m.Binary):
            return self.binary(e, context)
        if isinstance(e, m.IfExpr):
            out = [*self.expr(e.then), " if ", *self.cond(e.cond), ", otherwise ", *self.expr(e.orelse)]
            return ["(", *out, ")"] if context else out
        if isinstance(e, m.OptionIs):
            return ["under the reading ", self.reading(e)]
        if isinstance(e, m.SetLit):
            return self.listing([self.expr(i, 9) for i in e.items], "and")
        if isinstance(e, m.Quant):
            return self.quant(e, context)
        if isinstance(e, m.ProcedureCall):
            f = self.procedures.get(e.procedure)
            if f is None:
                return [Ref(humanize(e.procedure), ("procedure", e.procedure))]
            args = {p.name: self.expr(a, 9) for p, a in zip(f.params, e.args)}
            return self.fill(self.procedure_phrase(f), args, ("procedure", e.procedure))
        if isinstance(e, m.DefineCall):
            d = self.defines.get(e.define)
            if d is None:
                return [Ref(humanize(e.define), ("define", e.define))]
            args = {p.name: self.expr(a, 9) for p, a in zip(d.params, e.args)}
            return self.fill(self.define_phrase(d), args, ("define", e.define))
        return [self.generic(e)]

    def reading(self, e: m.OptionIs) -> Ref:
        """An option, said by the first clause of its description ("Face down"), or by its name when
        that clause says too little ("Yes") or too much."""
        amb = self.ambiguities.get(e.ambiguity)
        option = next((o for o in getattr(amb, "options", ()) if o.name == e.option), None)
        said = phrases.words(e.option)
        if option is not None and option.description:
            text = option.description.strip()
            answer = re.match(r"(yes|no)\b[:,.]?\s*", text, re.IGNORECASE)
            title = (getattr(amb, "title", "") or "").strip()
            if answer and title.endswith("?"):  # "Yes: ..." to "May X?" is said as: yes to "May X?"
                return Ref(f"{answer.group(1).lower()} to “{title}”", ("reading", e.ambiguity))
            clause = re.split(r"[:;.(,]| - ", text, maxsplit=1)[0].strip()
            if 2 <= len(clause.split()) <= 12:
                keep = any(clause.startswith(n) for n in self.names() if n) or re.match(r"[A-Z]{2}", clause)
                said = clause if keep else clause[:1].lower() + clause[1:]
        return Ref(said, ("reading", e.ambiguity))

    def negate(self, e) -> list[Part]:
        """`not x`, said as English says it: "is not", "does not hold", "it is not the case that"."""
        if isinstance(e, m.Quant) and e.kind == "exists":
            return ["there is no ", *self.binder(e.binder, article="")[0:]]
        if isinstance(e, m.Binary) and e.op in ("==", "!="):
            return self.binary(m.Binary("!=" if e.op == "==" else "==", e.left, e.right, e.type))
        inner = self.expr(e, 6)
        if inner and inner[-1] == FLAG_ON:
            return [*inner[:-1], FLAG_OFF]
        text = plain(inner)
        # a negative said positively: "the deck is not empty" negated is "the deck is empty", not "not not"
        for neg, word in ((" is not ", " is "), (" are not ", " are "), (" cannot ", " can "), (" has no ", " has a "),
                          (" have no ", " have a "), (" does not hold", " holds"), (" do not hold", " hold")):
            if text.count(neg) == 1 and " and " not in text and " or " not in text:
                return self._replace_first(inner, neg, word)
        for word, neg in ((" is ", " is not "), (" are ", " are not "), (" has a ", " has no "), (" have a ", " have no "),
                          (" has ", " has not "), (" have ", " have not "), (" holds ", " does not hold "),
                          (" hold ", " do not hold "), (" can ", " cannot "), (" must ", " need not "),
                          (" may ", " may not ")):
            if text.count(word) == 1 and " and " not in text and " or " not in text:
                return self._replace_first(inner, word, _not_having(text, word) or neg)
        return ["it is not the case that ", *inner]

    @staticmethod
    def _replace_first(parts, old: str, new: str) -> list[Part]:
        out = []
        done = False
        for p in parts:
            if not done:
                if isinstance(p, Ref) and old in p.text:
                    p = Ref(p.text.replace(old, new, 1), p.target)
                    done = True
                elif isinstance(p, str) and old in p:
                    p = p.replace(old, new, 1)
                    done = True
            out.append(p)
        return out

    def _wrap(self, e, level: int) -> list[Part]:
        inner = self.expr(e, level)
        if isinstance(e, m.Binary) and PRECEDENCE.get(e.op, 9) < level and e.op not in ("and", "or"):
            return ["(", *inner, ")"]
        return inner

    def const(self, e: m.Const) -> str:
        kind = e.type.kind if e.type else ""
        if kind == "player" and e.name == "none":
            return "no player"
        if e.name is not None:
            if kind == "card":
                return self.cards.get(e.name, humanize(e.name))
            return self.member(e.name)
        if kind == "bool":
            return "true" if e.value else "false"
        if kind == "player":
            return f"the player in seat {e.value}"
        return str(e.value)

    @staticmethod
    def possessive(owner: list[Part], thing: str) -> list[Part]:
        if is_you(owner):
            return [*owner[:-1], owner[-1][:-3] + f"your {thing}"]
        if owner == [SELF]:
            return [SELF, f"'s {thing}"]
        return [*owner, f"'s {thing}"]

    def player(self, e) -> list[Part]:
        return self.expr(e, 9)

    def var(self, e: m.VarRef) -> list[Part]:
        """A variable read in an expression. A flag with no phrase of its own reads as a condition ("the
        skip next flag is on"): its name alone ("the skip next") says nothing of whether it holds."""
        noun = self.var_noun(e)
        decl = self.vars.get(e.var)
        if decl is not None and decl.type == m.BOOL and not getattr(decl, "phrase", None):
            return [*noun, FLAG_ON]
        return noun

    def var_noun(self, e: m.VarRef) -> list[Part]:
        """A variable named as a thing that holds a value: "the score", "your points"."""
        if e.var in self.tokens:  # a token count written as a call: Fear(p)
            return self.held(e.var, e.player)
        decl = self.vars.get(e.var)
        if decl is None:
            return [f"the {phrases.words(e.var)}"]
        args = {"player": self.player(e.player)} if e.player is not None else {}
        return self.fill(self.var_phrase(decl), args)

    def held(self, token: str, who) -> list[Part]:
        name = self.tokens.get(token, phrases.words(token))
        owner = self.player(who) if who is not None else ["the player"]
        verb = " have" if is_you(owner) else " has"
        return [f"the number of {name}s ", *owner, verb]

    def zone(self, e: m.ZoneRef) -> list[Part]:
        decl = self.zones.get(e.zone)
        if decl is None:
            return [f"the {phrases.words(e.zone)}"]
        args = {}
        if e.player is not None:
            value = self.expr(e.player, 9)
            args = {"player": value, "position": value}
        return self.fill(self.zone_phrase(decl), args)

    def builtin(self, e: m.Builtin) -> list[Part]:
        a = [self.expr(x, 9) for x in e.args]
        token = self.tokens.get(e.token, phrases.words(e.token)) if e.token else "token"
        if e.name == "current" and not a:
            return ["you"]
        if e.name == "player_count" and not a:
            return ["the number of players"]
        if e.name == "size" and len(a) == 1:
            return ["the number of cards in ", *a[0]]
        if e.name == "next" and len(a) == 1:
            return ["the player after ", *a[0]]
        if e.name == "previous" and len(a) == 1:
            return ["the player before ", *a[0]]
        if e.name == "seat" and len(a) == 1:
            if isinstance(e.args[0], m.Const) and e.args[0].value == 0:
                return ["the first player"]
            return ["the player in seat ", *a[0]]
        if e.name == "supply" and not a:
            return [f"the number of {token}s left in the supply"]
        if e.name == "held" and len(a) == 1:
            return self.held(e.token, e.args[0])
        if e.name in ("adjacent", "orthogonal") and len(a) == 2:
            first, second = (a[1], a[0]) if a[1] == [SELF] else (a[0], a[1])
            how = "next to" if e.name == "adjacent" else "orthogonally next to"
            return [*first, f" is {how} ", *second]
        if e.name in ("min", "max") and a:
            word = "smaller" if e.name == "min" else "larger"
            return [f"the {word} of ", *self.listing(a, "and")]
        if e.name == "abs" and len(a) == 1:
            return ["the absolute value of ", *a[0]]
        if e.name in ("top", "bottom") and len(a) == 1:
            return [f"the {e.name} card of ", *a[0]]
        out: list[Part] = [phrases.words(e.name)]
        if e.token:
            out.append(f" {token}")
        if a:
            out += [" of ", *self.listing(a, "and")]
        return out

    def binary(self, e: m.Binary, context: int = 0) -> list[Part]:
        level = PRECEDENCE.get(e.op, 9)
        if e.op in ("and", "or"):
            items = []
            for x in self._flatten(e, e.op):
                said = self._wrap(x, level + 1)
                if isinstance(x, m.Binary) and x.op == "or" and e.op == "and":
                    said = ["either ", *said]  # "A and either B or C": the grouping said in words
                items.append(said)
            flat = self._flatten(e, e.op)
            if e.op == "or" and any(isinstance(x, m.Binary) and x.op == "and" for x in flat):
                return self.alternatives(items)
            return self.listing(items, e.op)
        if e.op in COMPARE:
            special = self.comparison(e)
            if special is not None:
                return special
            left, right = e.left, e.right
            if e.op in SYMMETRIC and self.expr(right, level) == [SELF]:
                left, right = right, left
            return [*self._wrap(left, level), f" {COMPARE[e.op]} ", *self._wrap(right, level + 1)]
        right_level = level + 1 if e.op in ("-", "/", "%") else level
        return [*self._wrap(e.left, level), f" {ARITH.get(e.op, e.op)} ", *self._wrap(e.right, right_level)]

    @staticmethod
    def _flatten(e, op):
        return _operands(e, op)

    def comparison(self, e: m.Binary) -> list[Part] | None:
        """Comparisons that English says better than "X is more than Y"."""
        left, right, op = e.left, e.right, e.op
        if op in ("==", "!=") and (m.is_no_player(right) or m.is_no_player(left)):
            other = left if m.is_no_player(right) else right
            return self.whether_any(self.expr(other, 9), op != "==")
        number = right.value if isinstance(right, m.Const) and right.name is None else None
        if isinstance(right, m.FactRef):
            fact = self.facts.get(right.fact)
            if fact is not None and isinstance(fact.value, m.Const) and fact.value.name is None:
                number = fact.value.value
        if isinstance(left, m.Quant) and left.kind == "count" and number == 0 and op in (">", "!=", "==", "<="):
            found = self.binder(left.binder)
            return ["there is ", *found] if op in (">", "!=") else ["there is no ", *found[0:1][0].split(" ", 1)[1:],
                                                                    *found[1:]]
        if isinstance(left, m.Builtin) and left.name == "size" and number == 0:
            zone = self.expr(left.args[0], 9)
            if op in (">", "!="):
                return [*zone, " is not empty"]
            if op in ("==", "<="):
                return [*zone, " is empty"]
        if isinstance(left, m.Builtin) and left.name == "size" and number is not None and op == "<":
            return [*self.expr(left.args[0], 9), f" holds fewer than {phrases.counted(number, 'card')}"]
        token = None
        who = None
        if isinstance(left, m.VarRef) and left.var in self.tokens:
            token, who = left.var, left.player
        elif isinstance(left, m.Builtin) and left.name == "held":
            token, who = left.token, left.args[0]
        if token is not None and number is not None:
            name = self.tokens.get(token, phrases.words(token))
            owner = self.player(who)
            has = " have" if is_you(owner) else " has"
            amount = {"<": f"fewer than {number}", "<=": f"at most {number}", ">": f"more than {number}",
                      ">=": f"at least {number}", "==": f"exactly {number}", "!=": f"other than {number}"}[op]
            if op == ">" and number == 0:
                return [*owner, has, f" a {name}"]
            if op in ("==", "<=") and number == 0:
                return [*owner, has, f" no {name}s"]
            plural = "" if number == 1 and op in ("==",) else "s"
            return [*owner, has, f" {amount} {name}{plural}"]
        if isinstance(left, m.Builtin) and left.name == "supply" and number == 0:
            name = self.tokens.get(left.token, phrases.words(left.token or "token"))
            if op in (">", "!="):
                return [f"a {name} is left in the supply"]
            if op in ("==", "<="):
                return [f"no {name} is left in the supply"]
        if op in ("==", "!=") and isinstance(left, m.Attr) and isinstance(right, m.Const) and right.name:
            target = self.expr(left.target, 9)
            noun = self.noun(left.target.type) if left.target.type else "card"
            if len(self.members.get(right.name, "").split()) > 1:  # a noun: "the card is a Block card"
                member = self.members[right.name]
                article = "" if member.split()[0].lower() in ("the", "a", "an") else \
                    ("an " if member[:1].lower() in "aeiou" else "a ")
                return [*target, " is " if op == "==" else " is not ", f"{article}{member}"]
            member = self.member(right.name)
            if left.attr == "type":
                article = "an" if member[:1] in "aeiou" else "a"
                return [*target, " is " if op == "==" else " is not ", f"{article} {member} {noun}"]
            return [*self.possessive(target, self.attribute(left.attr)), " is " if op == "==" else " is not ", member]
        return None

    @staticmethod
    def whether_any(player: list[Part], some: bool) -> list[Part]:
        """A player value compared with none. Named by a noun ("the player who leads"), it is whether
        there is one: "the player who leads is nobody" reads as if nobody were a player."""
        head = player[0] if player else ""
        text = head.text if isinstance(head, Ref) else head
        if not (isinstance(text, str) and text.startswith("the ") and len(text) > 4):
            return [*player, " is somebody" if some else " is nobody"]
        rest = text[4:]
        if some and rest.startswith("other "):
            article, rest = "another ", rest[len("other "):]
        else:
            article = "no " if not some else ("an " if rest[:1] in "aeiou" else "a ")
        head = Ref(rest, head.target) if isinstance(head, Ref) else rest
        return ["there is " + article, head, *player[1:]]

    def iter(self, it: m.Iter) -> list[Part]:
        if it.kind == "cards" and it.every:
            decl = self.zones.get(it.every)
            name = plain(self.fill(self.zone_phrase(decl), {"player": ["each player"], "position": ["each space"]})) \
                if decl is not None else phrases.words(it.every)
            return [f"{name}"]
        if it.kind in ("cards", "bag") and it.zone is not None:
            return self.expr(it.zone, 9)
        if it.kind == "subsets":
            return ["the sets of cards in ", *self.expr(it.zone, 9)]
        if it.kind == "players":
            if it.start is not None:
                return ["the players in turn, starting with ", *self.expr(it.start, 9)]
            return ["the players"]
        if it.kind == "board" and it.enum in self.boards and len(self.boards) > 1:
            return [self.board_phrase(self.boards[it.enum])]
        if it.kind == "board":
            return ["the board"]
        if it.kind == "enum" and it.enum:
            return [f"the {self.enum_noun(it.enum)}s"]
        if it.kind == "set":
            return self.listing([self.expr(i, 9) for i in it.items], "and")
        if it.kind == "range":
            return ["the numbers from ", *self.expr(it.low, 9), " to ", *self.expr(it.high, 9)]
        return [phrases.words(it.kind)]

    def _noun_of_iter(self, it: m.Iter) -> str:
        if it.kind in ("cards", "bag"):
            return self.thing
        if it.kind == "players":
            return "player"
        if it.kind == "board":
            return "space"
        if it.kind == "enum" and it.enum:
            return self.enum_noun(it.enum)
        if it.kind == "subsets":
            return "set of cards"
        return "number" if it.kind == "range" else "value"

    def _where(self, it: m.Iter) -> list[Part]:
        """Where a binder takes its value from, after its noun: " in your hand", " of the board"."""
        if it.kind in ("cards", "bag"):
            return [" in ", *self.iter(it)] if it.zone is not None or it.every else []
        if it.kind == "board":
            return [" of ", self.board_phrase(self.boards[it.enum])] if it.enum in self.boards and \
                len(self.boards) > 1 else []
        if it.kind == "players" and it.start is not None:
            return [", in turn from ", *self.expr(it.start, 9)]
        if it.kind == "subsets":
            return [" from ", *self.expr(it.zone, 9)]
        if it.kind == "range":
            return [" from ", *self.expr(it.low, 9), " to ", *self.expr(it.high, 9)]
        if it.kind == "set":
            return [" among ", *self.listing([self.expr(i, 9) for i in it.items], "and")]
        return []

    def binder(self, b: m.Binder, article: str = "a", plural: bool = False) -> list[Part]:
        """"a space that holds a face-down card": the binder's value as a noun with its condition as a
        relative clause; afterwards the rules refer to it as "the space"."""
        noun = self._noun_of_iter(b.iter)
        if plural:
            noun = noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")
        if article == "a" and noun[:1] in "aeiou":
            article = "an"
        head = f"{article} {noun}".strip()
        out: list[Part] = [head, *self._where(b.iter)]
        if b.cond is not None:
            saved = self.scoped()
            for slot, ref in list(self.env.items()):
                if ref == [SELF]:  # an outer binder's value, inside this one's condition
                    self.env[slot] = [f"that {self.self_nouns.get(slot, 'value')}"]
            self.env[b.slot] = [SELF]
            self.self_nouns[b.slot] = self._noun_of_iter(b.iter)
            try:
                cond = self.cond(b.cond)
            finally:
                self.env = saved
            out += self.relative(join_text(cond), person=noun.startswith("player"), plural=plural)
        return out

    def relative(self, cond: list[Part], person: bool, plural: bool) -> list[Part]:
        """The binder's condition as a relative clause: SELF at the start, or after "and" / "or",
        becomes "that" ("who", "whose"); elsewhere "it" ("its", "they", "their")."""
        that = "who" if person else "that"
        out: list[Part] = []
        first = True
        leading = cond[:1] == [SELF]
        if not leading:
            out.append(" such that ")
        else:
            out.append(" ")
        for i, p in enumerate(cond):
            if p != SELF:
                if plural and first is False and out and out[-1] in (f"{that} ",):
                    p = self._plural_verb(p)
                out.append(p)
                continue
            nxt = cond[i + 1] if i + 1 < len(cond) else ""
            if isinstance(nxt, Ref) and nxt.text.startswith("'s"):
                cond[i + 1] = nxt = nxt.text  # the possessive joins the pronoun; the link is its phrase's
            prev = out[-1] if out else ""
            nested = any(isinstance(x, str) and "either " in x for x in out)
            at_clause = i == 0 or (leading and not nested and isinstance(prev, str) and
                                   prev.endswith((" and ", " or ", ", ")))
            possessive = isinstance(nxt, str) and nxt.startswith("'s")
            if at_clause:
                if possessive:
                    out.append("whose")
                    cond[i + 1] = nxt[2:]
                else:
                    out.append(f"{that} ")
                    if i + 1 < len(cond) and isinstance(cond[i + 1], (str, Ref)):
                        cond[i + 1] = self._strip_space(cond[i + 1])
            else:
                if possessive:
                    out.append("their" if person or plural else "its")
                    cond[i + 1] = nxt[2:]
                else:
                    out.append("they" if person or plural else "it")
                    if (person or plural) and i + 1 < len(cond) and isinstance(cond[i + 1], (str, Ref)):
                        nxt_text = cond[i + 1].text if isinstance(cond[i + 1], Ref) else cond[i + 1]
                        agreed, _ = agree(nxt_text)
                        cond[i + 1] = Ref(agreed, cond[i + 1].target) if isinstance(cond[i + 1], Ref) else agreed
            first = False
        if plural:
            out = [self._plural_verb(p) if j and out[j - 1] == f"{that} " else p for j, p in enumerate(out)]
            out = [re.sub(r"\bare an? (\w+) (card|player|space)\b", r"are \1 \2s", p) if isinstance(p, str) else p
                   for p in join_text(out)]
        return out

    @staticmethod
    def _strip_space(p):
        if isinstance(p, Ref):
            return Ref(p.text.lstrip(), p.target)
        return p.lstrip()

    @staticmethod
    def _plural_verb(p):
        text = p.text if isinstance(p, Ref) else p
        match = re.match(r"(\s*)([a-z]+)\b", text)
        if match:
            word = match.group(2)
            new = AGREE.get(word) or (word[:-1] if word.endswith("s") and not word.endswith("ss") else word)
            text = match.group(1) + new + text[match.end():]
        return Ref(text, p.target) if isinstance(p, Ref) else text

    def quant(self, e: m.Quant, context: int) -> list[Part]:
        b = e.binder
        if e.kind == "count":
            return ["the number of ", *self.binder(b, article="", plural=True)]
        if e.kind == "exists":
            return ["there is ", *self.binder(b)]
        if e.kind == "the":
            return self.binder(b, article="the")
        if e.kind == "sum" and b.cond is None and isinstance(e.body, m.Attr) and isinstance(e.body.target, m.Local) \
                and e.body.target.slot == b.slot and b.iter.kind in ("cards", "bag"):
            what = self.iter(b.iter)
            attr = self.attribute(e.body.attr)
            return self.possessive(what, f"total {attr}") if what == [SELF] else [f"the total {attr} of ", *what]
        saved = self.scoped()
        ref = self.bind(b.slot, b.name, b.iter.element)
        noun = self.noun(b.iter.element) if b.iter.kind == "set" else self._noun_of_iter(b.iter)
        ref = [f"that {noun}"] if plain(ref).startswith("the ") else ref
        self.env[b.slot] = ref
        try:
            body = self.cond(e.body) if e.kind == "forall" else self.expr(e.body)
            only = ([" where ", *self.cond(b.cond)] if b.cond is not None and e.kind in ("max", "min", "argmax", "argmin")
                    else [])
        finally:
            self.env = saved
        each = ["each ", self._noun_of_iter(b.iter), *self._where(b.iter)]
        if b.iter.kind == "set":
            each = ["each of ", *self.listing([self.expr(i, 9) for i in b.iter.items], "and")]
        if e.kind == "forall":
            out = ["for ", *each, ", ", *body]
        elif e.kind == "sum":
            out = ["the sum, over ", *each, ", of ", *body]
        elif e.kind in ("max", "min"):
            out = [f"the {'largest' if e.kind == 'max' else 'smallest'}, over ", *each, *only, ", of ", *body]
        elif e.kind in ("argmax", "argmin"):
            out = [f"the {self._noun_of_iter(b.iter)}", *self._where(b.iter), *only, " for whom ", *body,
                   f" is the {'largest' if e.kind == 'argmax' else 'smallest'} (the first of them on a tie)"]
        else:
            out = [f"{phrases.words(e.kind)} of ", *self.binder(b)]
            if e.body is not None:
                out += [": ", *body]
        return ["(", *out, ")"] if context >= 9 else out

    def cond(self, e) -> list[Part]:
        """A condition, with the ambiguity readings it depends on said last: "X (under the reading Y)"."""
        if isinstance(e, m.Binary) and e.op == "or" and any(isinstance(x, m.Binary) and x.op == "and"
                                                             for x in self._flatten(e, "or")):
            return self.alternatives([self.cond(x) for x in self._flatten(e, "or")])
        if isinstance(e, m.Binary) and e.op == "and":
            items = self._flatten(e, "and")
            readings = [x for x in items if isinstance(x, m.OptionIs)]
            rest = [x for x in items if not isinstance(x, m.OptionIs)]
            if readings and rest:
                out = self.listing([self._wrap(x, 3) for x in rest], "and")
                for r in readings:
                    out += [" (under the reading ", self.reading(r), ")"]
                return out
        return self.expr(e)

    @staticmethod
    def alternatives(items: list[list[Part]]) -> list[Part]:
        """Alternatives some of which are conjunctions, kept apart so that the grouping reads: "A and B;
        or C", "A; B and C; or D" (a comma list would read "A, B and C or D")."""
        out: list[Part] = []
        for i, item in enumerate(items):
            out += ([("; or " if i == len(items) - 1 else "; ")] if i else []) + item
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
                if f.name in ("span", "quotes", "type", "slot", "point", "nlocals", "phrase", "bookkeeping"):
                    continue
                value = getattr(node, f.name, None)
                if isinstance(value, tuple) and value and all(isinstance(v, m.Stmt) for v in value):
                    continue  # nested statements become children
                shown = self.field_text(value)
                if value is not None and shown != "":
                    fields.append(f"{phrases.words(f.name)} {shown}")
            head = phrases.words(type(node).__name__)
            return head + (f" ({'; '.join(fields)})" if fields else "")
        except Exception:  # noqa: BLE001
            return phrases.words(type(node).__name__)

    def field_text(self, value) -> str:
        """A field of a node said generically: expressions in English, nested nodes by their fields,
        collections item by item, source positions left out; never Python's repr."""
        if isinstance(value, Span):
            return ""
        if isinstance(value, m.Expr):
            return self.text(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self.generic(value)
        if isinstance(value, (tuple, list, set, frozenset)):
            return ", ".join(s for s in (self.field_text(v) for v in value) if s)
        if isinstance(value, dict):
            return ", ".join(f"{phrases.words(str(k))} {self.field_text(v)}" for k, v in value.items())
        if value is None or isinstance(value, (str, int, float, bool)):
            return str(value)
        return phrases.words(type(value).__name__)

    # ---- declarations ---------------------------------------------------------------------------

    def define(self, d: m.Define) -> Line:
        saved = self.scoped()
        try:
            args = {p.name: self.bind(p.slot, p.name, p.type) for p in d.params}
            head = self.fill(self.define_phrase(d), args, ("define", d.name))
            word = " when " if d.type == m.BOOL else " is "
            body = self.cond(d.body) if d.type == m.BOOL else self.expr(d.body)
            parts = sentence([*head, word, *body, "."])
        finally:
            self.env = saved
        return Line(parts, tuple(d.quotes), [], d.span, "Define")

    def define_title(self, d: m.Define) -> str:
        """What a definition defines, as its rules say it: "you have enough points to bank"."""
        saved = self.scoped()
        try:
            args = {x.name: self.bind(x.slot, x.name, x.type) for x in d.params}
            return plain(self.fill(self.define_phrase(d), args))
        finally:
            self.env = saved

    def procedure_title(self, p) -> str:
        saved = self.scoped()
        try:
            args = {x.name: self.bind(x.slot, x.name, x.type) for x in getattr(p, "params", ())}
            said = plain(self.fill(self.procedure_phrase(p), args))
        finally:
            self.env = saved
        return said[:1].upper() + said[1:]


def translation(quote) -> str | None:
    """Our translation of a quote (`quote "..." translation "..."`), shown under the original."""
    text = getattr(quote, "translation", None)
    return text if isinstance(text, str) and text.strip() else None


def language(quote) -> str | None:
    lang = getattr(quote, "language", None) or getattr(quote, "lang", None)
    return lang if isinstance(lang, str) and re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]+)*", lang) else None


# Past participles that do not end like one ("has won"): after them "has" is a tense, said "has not won".
_PARTICIPLES = frozenset({"won", "lost", "met", "got", "had", "made", "held", "kept", "left", "paid", "put", "set", "hit",
                          "sold", "told", "found", "built", "spent", "sent", "caught", "bought", "brought", "fought",
                          "said", "read", "led", "run", "come", "become", "done", "gone", "dealt", "passed", "cut"})


def _not_having(text: str, word: str) -> str | None:
    """"has X" negated, when X is a thing had ("has best"): "does not have X"; "has not X" is kept for
    a tense ("has not played")."""
    if word.strip() not in ("has", "have"):
        return None
    after = text.split(word, 1)[1].split(" ", 1)[0].lower()
    if not after or after.endswith(("ed", "en", "wn")) or after in _PARTICIPLES:
        return None
    return " does not have " if word.strip() == "has" else " do not have "


def _operands(e, op: str) -> list:
    """The operands of a chain of one operator: `a and b and c` -> [a, b, c]."""
    if isinstance(e, m.Binary) and e.op == op:
        return [*_operands(e.left, op), *_operands(e.right, op)]
    return [e]
