"""English for statements: rules as sentences a player reads ("You may ...", "If ..., ..."), with
bookkeeping left out and consecutive moves and sets aggregated. A mixin of
:class:`rulekit.sphinx.english.English`, which says the expressions."""
from __future__ import annotations

import dataclasses

from .. import model as m
from .. import phrases
from .stable import noted_name, unchanged
from .wording import (Line, Part, Ref, aggregate, humanize, is_you, lower_first, plain, reads_option, sentence,
                      short_referent, uses)


class Sentences:
    """The statements of a game's rules in English; the expressions are the subclass's."""

    # ---- statements: a list of Lines ------------------------------------------------------------

    def block(self, stmts) -> list[Line]:
        saved = self.scoped()
        out: list[Line] = []
        stmts = list(stmts or ())
        try:
            for i, s in enumerate(stmts):
                if isinstance(s, m.Let) and getattr(self, "function_locals", None) is None \
                        and not unchanged(s, stmts[i + 1:], self.defines):
                    out.append(self._line(s, self.noted(s)))
                    continue
                out += self.stmt(s)
        finally:
            self.env = saved
        return aggregate(out)

    def noted(self, s: m.Let) -> list:
        """A `let` whose value the rules change before they read it: noted, and named where it is read."""
        name = phrases.words(s.name)
        said = (["Note whether ", *self.cond(s.value)] if s.value.type == m.BOOL else ["Note ", *self.expr(s.value)])
        self.env[s.slot] = [noted_name(s.name)]
        return [*said, f"; call {self.pronoun(s.value.type)} {name}."]

    def procedure(self, p) -> list[Line]:
        """A procedure's rules, its parameters referred to as "the space", "the player", ..."""
        saved = self.scoped()
        saved_function, self.function_locals = getattr(self, "function_locals", None), (
            set() if getattr(p, "result", None) is not None else None)
        try:
            refs = self.call_refs.get(p.name) if self.calls.get(p.name) == 1 else None
            for i, param in enumerate(getattr(p, "params", ())):
                ref = refs[i] if refs and i < len(refs) else None
                if ref and short_referent(ref) and ref not in self.env.values():
                    self.env[param.slot] = list(ref)  # called from one place: said as that place says it
                else:
                    self.bind(param.slot, param.name, param.type)
            return self.block(p.body)
        finally:
            self.env = saved
            self.function_locals = saved_function

    def _learn_calls(self) -> None:
        """Render the game once, quietly, to learn how the one call of each procedure called from a
        single place refers to its arguments ("the card drawn"), so that its rules can say the same."""
        self.calls = {}
        for body in m.bodies(self.game):
            for st in m.walk(body, True):
                if isinstance(st, m.Do):
                    self.calls[st.procedure] = self.calls.get(st.procedure, 0) + 1
        for _ in range(2):  # a procedure called from a procedure learns from its caller's second reading
            self.block(self.game.flow.body)
            for p in self.procedures.values():
                self.procedure(p)
            for t in getattr(self.game, "triggers", ()):
                self.block(t.body)
        self.env = {}

    def stmt(self, s) -> list[Line]:
        try:
            return self._stmt(s)
        except Exception:  # noqa: BLE001 - never crash on a statement; say what it is
            return [self._generic_stmt(s)]

    def _line(self, s, parts, children=None) -> Line:
        return Line(sentence(parts), tuple(getattr(s, "quotes", ()) or ()), children or [],
                    getattr(s, "span", None), type(s).__name__)

    def hidden(self, s) -> bool:
        """Bookkeeping the spec marks: a set of a `bookkeeping` or `internal` variable, a call of such a procedure
        (said after all where it depends on a reading, which a player must know)."""
        if self.showing:
            return False
        if isinstance(s, m.Assign):
            decl = self.vars.get(s.var)
            return bool(decl is not None and (getattr(decl, "bookkeeping", False) or decl.visibility == "internal"))
        if isinstance(s, m.Do):
            decl = self.procedures.get(s.procedure)
            return bool(decl is not None and getattr(decl, "bookkeeping", False))
        return False

    def subject(self, who_expr) -> tuple[list[Part], bool]:
        """The subject of a sentence about a player, and whether it is "you"."""
        who = self.player(who_expr)
        return who, is_you(who)

    def _stmt(self, s) -> list[Line]:
        if self.hidden(s):
            return []
        if isinstance(s, m.Move):
            return [self._line(s, self.move(s))]
        if isinstance(s, m.Shuffle):
            return [self._line(s, ["Shuffle ", *self.expr(s.zone), "."])]
        if isinstance(s, m.Assign):
            decl = self.vars.get(s.var)
            ref = m.VarRef(s.var, s.player, decl.type if decl else m.INT)
            target = self.var_noun(ref)
            value = self.expr(s.value)
            if s.op == "+":
                return [self._line(s, ["Add ", *value, " to ", *target, "."])]
            if s.op == "-":
                return [self._line(s, ["Subtract ", *value, " from ", *target, "."])]
            if decl is not None and decl.type == m.BOOL and isinstance(s.value, m.Const):
                if s.value.value:
                    return [self._line(s, ["From now on, ", *self.var(ref), "."])]
                return [self._line(s, ["From now on, ", *self.negate(ref), "."])]
            return [self._line(s, ["Set ", *target, " to ", *value, "."])]
        if isinstance(s, m.TokenMove):
            return [self._line(s, self.tokens_sentence(s))]
        if isinstance(s, m.If):
            return self.if_lines(s)
        if isinstance(s, m.For):
            return self.for_lines(s)
        if isinstance(s, m.Loop):
            body = self.block(s.body)
            if not body:
                return []
            head = ["Repeat:"] if s.cond is None else ["As long as ", *self.cond(s.cond), ", repeat:"]
            return [self._line(s, head, body)]
        if isinstance(s, m.Break):
            return [self._line(s, ["Stop repeating."])]
        if isinstance(s, m.Let):
            locals_ = getattr(self, "function_locals", None)
            if locals_ is not None:  # a function's own values are said, since they change
                value = self.expr(s.value)
                name = phrases.words(s.name)
                again = s.slot in locals_
                locals_.add(s.slot)
                self.env[s.slot] = [name]
                return [self._line(s, [f"Set {name} to " if again else f"Let {name} be ", *value, "."])]
            self.env[s.slot] = self.expr(s.value)
            return []
        if isinstance(s, m.Return):
            return [self._line(s, ["The result is ", *self.expr(s.value), "."])]
        if isinstance(s, m.TokenPass):
            return [self._line(s, self.pass_sentence(s))]
        if isinstance(s, m.Reverse):
            return [self._line(s, ["The order of play reverses: from now on, play goes the other way round."])]
        if isinstance(s, m.Do):
            proc = self.procedures.get(s.procedure)
            if proc is None:
                return [self._line(s, [Ref(humanize(s.procedure), ("procedure", s.procedure)), "."])]
            args = {p.name: self.expr(a, 9) for p, a in zip(proc.params, s.args)}
            self.call_refs[s.procedure] = [args[p.name] for p in proc.params]
            return [self._line(s, [*self.call(proc, args), "."])]
        if isinstance(s, m.Choose):
            return [self.choose(s)]
        if isinstance(s, m.Random):
            return [self._line(s, self.random(s))]
        if isinstance(s, m.Reveal):
            zone = self.expr(s.zone)
            if s.card is not None:
                card = self.expr(s.card)
                if not (isinstance(s.card, m.Builtin) and s.card.name in ("top", "bottom")):
                    card = [*card, " (from ", *zone, ")"]
                zone = card
            if s.to is None:
                return [self._line(s, ["Show ", *zone, " to everyone."])]
            to = self.player(s.to)
            if is_you(to):
                return [self._line(s, ["Look at ", *zone, " (only you see it)."])]
            return [self._line(s, ["Show ", *zone, " to ", *to, " (only ", *to, " sees it)."])]
        if isinstance(s, m.Announce):
            who, you = self.subject(s.by)
            verb = " say" if you else " says"
            return [self._line(s, [*who, verb, " out loud that it is ", *self.expr(s.value),
                                   " (everyone hears it; nobody can check it)."])]
        if isinstance(s, m.CheckTriggers):
            return [self._line(s, ["Check the triggers now: any whose condition holds applies before play goes on."])]
        if isinstance(s, m.Win):
            if s.player is None:
                return [self._line(s, ["Everyone wins."])]
            who, you = self.subject(s.player)
            return [self._line(s, [*who, " win the game." if you else " wins the game."])]
        if isinstance(s, m.End):
            if s.what == "turn":
                return [self._line(s, ["Your turn ends."])]
            return [self._line(s, [f"The {s.what} ends."])]
        if isinstance(s, m.Rotate):
            order = getattr(self.game, "order", "")
            side = {("clockwise", True): "on their left", ("clockwise", False): "on their right",
                    ("counterclockwise", True): "on their right", ("counterclockwise", False): "on their left"}
            where = side.get((order, s.step > 0)) or ("next" if s.step > 0 else "previous")
            decl = self.zones.get(s.zone)
            what = plain(self.fill(self.zone_phrase(decl), {"player": ["their"]})) if decl else phrases.words(s.zone)
            what = what.replace("their's", "their")
            said = f"the player {where}" if where.startswith("on ") else f"the {where} player"
            return [self._line(s, [f"Every player passes {what} to {said}."])]
        if isinstance(s, m.Rounds):
            return [self._line(s, ["Play round after round:"], self.block(s.body))]
        if isinstance(s, m.Turns):
            order = phrases.words(getattr(self.game, "order", "") or "")
            head = ["Players take turns", f" {order}" if order else "", ", starting with ", *self.expr(s.start),
                    ". On your turn:"]
            lines = [self._line(s, head, self.block(s.body))]
            if s.then:
                then = self.block(s.then)
                if then:
                    lines.append(Line(["At the end of your turn:"], (), then, None, "Turns"))
            return lines
        if isinstance(s, m.Rule):
            title = s.title or humanize(s.name)
            body = self.block(s.body)
            return [self._line(s, [Ref(title[:1].upper() + title[1:], ("rule", s.name)), ":"], body)]
        return [self._generic_stmt(s)]

    def call(self, proc, args: dict) -> list[Part]:
        """A procedure carried out: its phrase, an instruction. A name is no instruction ("end of hand"
        reads as a noun), so a procedure without a phrase is carried out by its title, the heading of
        its rules: "carry out End of hand"."""
        said = self.fill(self.procedure_phrase(proc), args, ("procedure", proc.name))
        if getattr(proc, "phrase", None):
            return said
        return ["Carry out ", *sentence(said)]

    def tokens_sentence(self, s: m.TokenMove) -> list[Part]:
        name = self.tokens.get(s.token, phrases.words(s.token))
        who, you = self.subject(s.player)
        amount = s.amount
        if isinstance(amount, m.Const) and amount.name is None or isinstance(amount, m.FactRef):
            count = self.text(amount)
            what = [f"a {name}" if count == "1" else f"{count} {name}s"]
        else:
            how_many = self.expr(amount)
            if s.to_player:
                return [*(["Take "] if you else [*who, " takes "]), f"{name}s from the supply: as many as ", *how_many,
                        "."]
            return [*(["Discard "] if you else [*who, " discards "]), f"{name}s: as many as ", *how_many,
                    " (all", " you have" if you else " they have", ", if fewer)."]
        if s.to_player:
            if you:
                return ["Take ", *what, " from the supply."]
            return [*who, " takes ", *what, " from the supply."]
        if you:
            return ["Discard ", *what, " (all you have, if fewer)."]
        return [*who, " discards ", *what, " (all they have, if fewer)."]

    def pass_sentence(self, s: m.TokenPass) -> list[Part]:
        name = self.tokens.get(s.token, phrases.words(s.token))
        who, you = self.subject(s.source)
        to = self.player(s.dest)
        if isinstance(s.amount, m.Const) and s.amount.name is None or isinstance(s.amount, m.FactRef):
            count = self.text(s.amount)
            what = [f"a {name}" if count == "1" else f"{count} {name}s"]
        else:
            what = [f"{name}s: as many as ", *self.expr(s.amount), ","]
        mine = "you have" if you else "they have"
        return [*(["Give "] if you else [*who, " gives "]), *what, " to ", *to, f" (all {mine}, if fewer)."]

    def random(self, s: m.Random) -> list[Part]:
        b = s.binder
        saved_ref = self.bind(b.slot, b.name, b.iter.element, how="drawn" if b.iter.kind in ("cards", "bag") else "")
        what = self.binder(b)
        self.env[b.slot] = saved_ref
        if s.weight is not None and b.iter.kind == "set" and isinstance(s.weight, m.IfExpr) and \
                isinstance(s.weight.cond, m.Local) and s.weight.cond.slot == b.slot:
            yes, no = self.expr(s.weight.then, 9), self.expr(s.weight.orelse, 9)
            rest = s.weight.orelse
            if isinstance(rest, m.Binary) and rest.op == "-" and rest.right == s.weight.then:
                total = self.expr(rest.left, 9)  # weights w and N - w: a chance of w in N
                return ["Chance decides whether there is ", *self._indefinite(saved_ref), ": a chance of ", *yes, " in ",
                        *total, "."]
            return ["Chance decides whether there is ", *self._indefinite(saved_ref), ": weight ", *yes, " for yes, ",
                    *no, " for no."]
        if s.weight is not None:
            self.env[b.slot] = [f"each {self._noun_of_iter(b.iter)}"]
            weight = self.expr(s.weight)
            self.env[b.slot] = saved_ref
            return ["Chance picks ", *what, ", weighted by ", *weight, f"; call {self.pronoun(b.iter.element)} ",
                    *saved_ref, "."]
        # the name the rules go on to use, where it says more than the noun: "; call them the first player"
        named = [f"; call {self.pronoun(b.iter.element)} ", *saved_ref] \
            if plain(saved_ref) != f"the {self.noun(b.iter.element)}" else []
        if b.iter.kind in ("cards", "bag"):
            return ["Take ", *what, " at random (without looking)", *named, "."]
        return ["Pick ", *what, " at random", *named, "."]

    @staticmethod
    def pronoun(t) -> str:
        """The object pronoun of a value: a player is a person ("call them"), anything else a thing."""
        return "them" if t is not None and t.kind == "player" else "it"

    @staticmethod
    def _indefinite(ref: list[Part]) -> list[Part]:
        """"the hit" -> "a hit"."""
        text = plain(ref)
        if text.startswith("the "):
            word = text[4:]
            return [("an " if word[:1] in "aeiou" else "a ") + word]
        return ref

    def if_lines(self, s: m.If) -> list[Line]:
        lines: list[Line] = []
        for i, (cond, body) in enumerate(s.branches):
            children = self.block(body)
            if not children and body and reads_option(cond):
                self.showing = True  # bookkeeping under a reading: the reading changes the rules
                try:
                    children = self.block(body)
                finally:
                    self.showing = False
            c = self.cond(cond)
            if isinstance(cond, m.OptionIs):
                head = ["Under the reading ", self.reading(cond)] if i == 0 else \
                    ["Otherwise, under the reading ", self.reading(cond)]
            elif isinstance(cond, m.Unary) and cond.op == "not" and plain(c).startswith("it is not the case that "):
                inner = self.cond(cond.operand)
                head = ["Unless ", *inner] if i == 0 else ["Otherwise, unless ", *inner]
            else:
                head = ["If ", *c] if i == 0 else ["Otherwise, if ", *c]
            lines.append(self._inline(head, children, getattr(s, "span", None)))
        if s.orelse:
            children = self.block(s.orelse)
            lines.append(self._inline(["Otherwise"], children, None))
        if all(not line.children and line.parts[-1:] == [":"] for line in lines):
            return []  # every branch is bookkeeping
        for line in lines:
            if not line.children and line.parts[-1:] == [":"]:
                line.parts[-1:] = [", nothing else happens here."]
        while lines and lines[-1].parts[-1:] == [":"] and not lines[-1].children:
            lines.pop()  # an `else` with nothing a player does
        if not lines:
            return []
        lines[0].quotes = tuple(s.quotes) + tuple(lines[0].quotes)
        return lines

    def _inline(self, head: list[Part], children: list[Line], span) -> Line:
        """"If X, do Y." for a branch of one short sentence; "If X:" with the sentences under it."""
        names = self.names()
        if len(children) == 1 and not children[0].children and children[0].text.endswith("."):
            child = children[0]
            parts = lower_first(list(child.parts), names)
            return Line(sentence([*head, ", ", *parts]), tuple(child.quotes), [], span, "If")
        return Line(sentence([*head, ":"]), (), children, span, "If")

    def for_lines(self, s: m.For) -> list[Line]:
        b = s.binder
        saved = self.scoped()
        extra: tuple = ()
        try:
            if b.iter.kind == "range" and not uses(s.body, b.slot):
                body = self.block(s.body)
                head = ["Do this ", *self.times(self.expr(b.iter.high, 9)), ":"]
                if not self._is_one(b.iter.low):
                    head = ["For each number from ", *self.expr(b.iter.low), " to ", *self.expr(b.iter.high), ":"]
                return [self._line(s, head, body)] if body else []
            stmts = s.body
            if b.cond is None and len(stmts) == 1 and isinstance(stmts[0], m.If) and len(stmts[0].branches) == 1 \
                    and not stmts[0].orelse and uses((stmts[0].branches[0][0],), b.slot):
                extra = tuple(stmts[0].quotes)
                cond, stmts = stmts[0].branches[0]  # "for each y: if c(y) {...}": "for each y that c: ..."
                b = m.Binder(b.slot, b.name, b.iter, cond)
            what = self.binder(b, article="each")
            self.env[b.slot] = [f"that {self._noun_of_iter(b.iter)}"]
            body = self.block(stmts)
        finally:
            self.env = saved
        if not body:
            return []
        line = self._inline(["For ", *what], body, getattr(s, "span", None))
        line.quotes = tuple(getattr(s, "quotes", ()) or ()) + extra + tuple(line.quotes)
        line.kind = "For"
        return [line]

    @staticmethod
    def times(count: list[Part]) -> list[Part]:
        """How often, from a count: "once", "8 times", or for a count that is a quantity said in words,
        "as many times as the hand size" ("the hand size times" would not read)."""
        said = plain(count)
        if said == "1":
            return ["once"]
        if said.replace(",", "").isdigit():
            return [said, " times"]
        return ["as many times as ", *count]

    @staticmethod
    def _is_one(e) -> bool:
        return isinstance(e, m.Const) and e.value == 1

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

    def moved(self, s: m.Move) -> list[Part]:
        """What a move takes: "the top card of the deck", "every card of X that ..."."""
        sel = s.selector
        src = self.expr(s.source)
        if sel.kind == "top":
            return ["the top card of ", *src]
        if sel.kind == "bottom":
            return ["the bottom card of ", *src]
        if sel.kind == "all" and sel.cond is None:
            return ["all cards of ", *src]
        if sel.kind in ("all", "one") and sel.slot is not None:
            binder = m.Binder(sel.slot, "", m.Iter("cards", m.CARD, zone=s.source), sel.cond)
            head = "every card" if sel.kind == "all" else "a card"
            said = self.binder(binder, article="")
            return [head, *said[1:]]
        if sel.kind == "card" and sel.card is not None:
            card = self.expr(sel.card)
            if isinstance(sel.card, m.Const):
                noun = " card" if self.categories.get(sel.card.name, "card") == "card" else ""
                card = [f"the {plain(card)}{noun}"]
            return [*card, " from ", *src]
        return [self.generic(sel), " from ", *src]

    def move(self, s: m.Move) -> list[Part]:
        where = [" at the bottom"] if s.at_bottom else []
        return ["Move ", *self.moved(s), " to ", *self.expr(s.dest), *where, "."]

    def choose(self, s: m.Choose) -> Line:
        who, you = self.subject(s.by)
        actions = s.actions
        must = ["You must" if you else f"{plain(sentence(who))} must"]
        if len(actions) == 1 and len(actions[0].binders) == 1 and actions[0].name == actions[0].binders[0].name:
            a = actions[0]
            b = a.binders[0]
            what = self.binder(b)
            self.bind(b.slot, b.name, b.iter.element, how="chosen")  # used after it, in the same block
            return self._line(s, [*must, " choose ", *what, "."], self.block(a.body))
        passes = [a for a in actions if not a.body and not a.binders and a.when is None]
        if len(actions) == 2 and len(passes) == 1:
            a = next(x for x in actions if x is not passes[0])
            if a.when is None:  # "you may X (only if C)" would hide what a player does when C fails: listed
                may = ["You may" if you else f"{plain(sentence(who))} may"]
                head = [*may, " ", *self._action_words(a, lower=True)]
                body = self._action_body(a)
                line = self._line(s, [*head, ":" if body else "."], body)
                line.quotes = tuple(line.quotes) + tuple(a.quotes) + tuple(passes[0].quotes)
                return line
        if len(actions) == 1:  # nothing to choose between: "you must choose one" would promise options
            a = actions[0]
            body = self._action_body(a)
            line = self._line(s, [*must, " ", *self._action_words(a, lower=True), *self.only_if(a), ":" if body else "."],
                              body)
            line.quotes = tuple(line.quotes) + tuple(a.quotes)
            return line
        line = self._line(s, [*must, " choose one:"])
        for a in actions:
            parts = [*self._action_words(a, lower=False), *self.only_if(a)]
            body = self._action_body(a)
            parts.append(":" if body else ".")
            line.children.append(Line(sentence(parts), tuple(getattr(a, "quotes", ()) or ()), body,
                                      getattr(a, "span", None), "Action"))
        return line

    def only_if(self, a: m.Action) -> list[Part]:
        """The condition under which an action may be taken, said after the action."""
        return [] if a.when is None else [" (only if ", *self.cond(a.when), ")"]

    def names(self) -> tuple[str, ...]:
        """Names that keep their capital letter inside a sentence: cards and tokens."""
        return tuple(sorted({*self.cards.values(), *self.tokens.values()}, key=len, reverse=True))

    def _action_words(self, a: m.Action, lower: bool) -> list[Part]:
        """How an action is said: its phrase (with its choices), else its label, else its name."""
        saved = self.scoped()
        try:
            if getattr(a, "phrase", None):
                args = {b.name: self.binder(b) for b in a.binders}
                parts = self.fill(a.phrase, args)
            else:
                label = (a.label or "").strip().rstrip(".")
                parts = [label or phrases.words(a.name)]
                if a.binders:
                    parts += [", choosing ", *self.listing([self.binder(b) for b in a.binders], "and")]
        finally:
            self.env = saved
        return lower_first(parts, self.names()) if lower else parts

    def _action_body(self, a: m.Action) -> list[Line]:
        saved = self.scoped()
        try:
            for b in a.binders:
                self.bind(b.slot, b.name, b.iter.element)
            return self.block(a.body)
        finally:
            self.env = saved

