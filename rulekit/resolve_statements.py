"""The statements of a spec resolved (see `resolve` for the error codes): each checked where it may stand
(a function's body only computes its value), its expressions typed by `resolve_expressions`.
"""
from __future__ import annotations

from . import model as m
from .resolve_expressions import ExpressionResolver, article
from .syntax import Node


# What a name that is declared, but not as a `var`, is when a statement tries to change it.
_NOT_SETTABLE = {
    "define": ("a definition, worked out from the state whenever it is read",
               "to keep a value that the rules change, declare `var {name}: TYPE = INITIAL` and set that"),
    "fact": ("a fact, one of the rulebook's fixed numbers", "a number that changes during play is a `var`"),
    "zone": ("a zone", "cards go in and out of a zone with `move`"),
    "token": ("a kind of token", "tokens change hands with `take`, `return` and `move N {name} from A to B`"),
    "board": ("a board", "pieces go on a board's spaces with `move`"),
}

class StatementResolver(ExpressionResolver):
    """Statements and the blocks they stand in."""

    # A function computes a value: only these statements may stand in its body.
    FUNCTION_STATEMENTS = ("let", "assign", "add", "subtract", "if", "for", "loop", "while", "break", "return_value",
                           "rule")

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
        if decl is not None and decl.kind in _NOT_SETTABLE:
            what, hint = _NOT_SETTABLE[decl.kind]
            self.error("E201", f"'{lv.name.text}' is {what}; only a `var` can be set or changed", lv.name.span, hint.format(name=lv.name.text))
            return None, None, m.ERROR
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
                       f"enum member), not {article(str(value.type))} {value.type}", n.value.span)
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


def _keyword(kind: str) -> str:
    """How a statement of kind `kind` (a syntax node) starts, for messages."""
    return {"pass_tokens": "move", "return_tokens": "return", "pick": "choose", "check_triggers": "check triggers",
            "reverse": "reverse order"}.get(kind, kind)
