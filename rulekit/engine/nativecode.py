"""Native statements compiled to plain Python: those with no decision, no chance and no change of frame.

A whole region of them (ifs, loops, procedure calls) becomes the lines of one instruction of `codegen`,
or the body of a procedure's function. `NativeCodegen` adds them to the expressions of `exprcode`.
"""
from __future__ import annotations

from .. import model as m
from ..lower import Config, core
from . import runtime
from .exprcode import ExprCodegen, py_name
from .signals import OWN_PC


class NativeCodegen(ExprCodegen):
    """The native statements of one configuration, and which statements and procedures are native."""

    def __init__(self, config: Config, probes: list | None = None):
        super().__init__(config, probes)
        self._native_procs: dict[str, bool] = {}

    def is_native(self, st: m.Stmt, in_loop: bool = False, top: bool = False) -> bool:
        """`in_loop`: inside a loop that is itself native, so that `break` can be Python's.
        `top`: in an instruction rather than a procedure's function, so `end` can return its signal."""
        if self.stack_end_reads(st):
            return False
        return self.is_native_here(st, in_loop, top)

    def is_native_here(self, st: m.Stmt, in_loop: bool = False, top: bool = False) -> bool:
        """Whether a statement compiles to plain Python, its own reads of a stack's ends apart."""
        if isinstance(st, m.Break):
            return in_loop
        if isinstance(st, m.End):
            return top
        if isinstance(st, (m.Shuffle, m.Assign, m.TokenMove, m.Let, m.Reveal, m.Win, m.Rotate, m.Announce,
                           m.TokenPass, m.Reverse)):
            return True
        if isinstance(st, m.Move):
            return not (isinstance(st.selector, (core.TopCard, core.BottomCard))
                        and self.zone_decls[st.source.zone].shape == "stack")
        if isinstance(st, m.If):
            return (all(self.natives(b, in_loop, top) for _, b in st.branches)
                    and self.natives(st.orelse, in_loop, top))
        if isinstance(st, m.Rule):
            return self.natives(st.body, in_loop, top)
        if isinstance(st, (m.For, m.Loop)):
            return self.natives(st.body, True, top)
        if isinstance(st, m.Do):
            return self.native_procedure(st.procedure)
        return False

    def natives(self, stmts, in_loop: bool = False, top: bool = False) -> bool:
        return all(self.is_native(st, in_loop, top) for st in stmts)

    def native_procedure(self, name: str) -> bool:
        if name not in self._native_procs:
            self._native_procs[name] = False  # a recursive procedure runs in the VM
            proc = self.procs[name]
            self._native_procs[name] = self.natives(proc.body)
        return self._native_procs[name]

    def n_block(self, stmts) -> list[str]:
        lines = []
        for st in stmts:
            lines += self.probe_lines(self.probe_before, st)
            lines += getattr(self, "n_" + type(st).__name__)(st)
            lines += self.probe_lines(self.probe_after, st)
        return lines or ["pass"]

    def probe_lines(self, where: dict, st) -> list[str]:
        if not self.probing or id(st) not in where:
            return []
        saved = dict(self.env)  # a test's binders must not rebind the statement's own locals
        # A site is reported once: once reached, its test is not evaluated again.
        lines = [f"if {i} not in HITS and ({self.ex(test)}): HITS.add({i})" for i, test in where[id(st)]]
        self.env = saved
        return lines

    @staticmethod
    def indent(lines: list[str]) -> list[str]:
        return ["    " + line for line in lines]

    def n_Rule(self, st):
        return self.n_block(st.body)

    def n_Move(self, st, drawn: bool = False):
        """`drawn`: a card taken from a stack's end is drawn there if it is undetermined (a chance event
        of the whole-game compilers; the engine's instructions settle the end before the move)."""
        src, dst = self.ex(st.source), self.ex(st.dest)
        src_stack = self.zone_decls[st.source.zone].shape == "stack"
        dst_stack = self.zone_decls[st.dest.zone].shape == "stack"
        sel = st.selector
        sp = self.span_const(st.span)
        end = "top" if isinstance(sel, core.TopCard) else "bottom" if isinstance(sel, core.BottomCard) else None
        if isinstance(sel, core.GivenCard) and sel.card.type == m.CARDS:
            put = (["if _ks:", "    _c = s.z[_d]", "    _c.extend(_ks)", "    _c.sort()"] if not dst_stack
                   else self.put_many_lines(st.at_bottom))
            return [f"_z = {src}", f"_ks = take_bag(s, _z, {self.ex(sel.card)}, {sp})", f"_d = {dst}", *put,
                    *self.move_log_lines("(_z, _d, _k)", each=True)]
        if end is not None:
            take = self.take_end_lines(end, sp, drawn)
        elif isinstance(sel, core.GivenCard):
            take = ([f"_k = take_kind(s, _z, {self.ex(sel.card)}, {sp})"] if src_stack else
                    [f"_k = {self.ex(sel.card)}", "try:", "    s.z[_z].remove(_k)", "except ValueError:",
                     f"    take_kind(s, _z, _k, {sp})"])
        if end is not None or isinstance(sel, core.GivenCard):
            if not dst_stack:
                put = "insort(s.z[_d], _k)"
            elif not st.at_bottom:
                put = "s.z[_d].append(_k)"
            else:
                put = "put(s, _d, _k, True)"
            return [f"_z = {src}", *take, f"_d = {dst}", put, *self.move_log_lines("(_z, _d, _k)")]
        if src_stack:
            pred = "None"
            if sel.cond is not None:
                var = f"_L{sel.slot}"
                self.env[sel.slot] = var
                pred = f"lambda {var}: {self.ex(sel.cond)}"
            return [f"_z = {src}", f"_d = {dst}",
                    f"_ks = move_many(s, _z, _d, {pred}, {isinstance(sel, core.FirstCard)}, {st.at_bottom}, {sp})",
                    *self.move_log_lines("(_z, _d, _k)", each=True)]
        if sel.cond is None:
            take = self.take_all_lines()
        elif isinstance(sel, core.AllCards):
            var = f"_L{sel.slot}"
            self.env[sel.slot] = var
            cond = self.ex(sel.cond)
            take = ["_c = s.z[_z]", f"_ks = [{var} for {var} in _c if {cond}]",
                    "if _ks:", f"    s.z[_z] = [{var} for {var} in _c if not {cond}]"]
        else:
            var = f"_L{sel.slot}"
            self.env[sel.slot] = var
            take = self.take_first_lines(var, self.ex(sel.cond))
        if not dst_stack:
            put = ["if _ks:", "    _c = s.z[_d]", "    _c.extend(_ks)", "    _c.sort()"]
        else:
            put = self.put_many_lines(st.at_bottom)
        return [f"_z = {src}", *take, f"_d = {dst}", *put, *self.move_log_lines("(_z, _d, _k)", each=True)]

    # The steps of a move that the whole-game compilers (`direct`, `stepping`) write their own way.
    def take_end_lines(self, end: str, span: str, drawn: bool) -> list[str]:
        """The card at the top or bottom of zone `_z` taken, into `_k`."""
        return [f"_k = take_{end}(s, _z, {span})"]

    def take_all_lines(self) -> list[str]:
        """Every card of zone `_z` taken, into `_ks`."""
        return ["_ks = take_all(s, _z)"]

    def take_first_lines(self, var: str, cond: str) -> list[str]:
        """The first card of set `_z` that passes `cond` (of `var`) taken, into `_ks` (none if none passes)."""
        return [f"_ks = take_where(s, _z, lambda {var}: {cond}, True)"]

    def put_many_lines(self, at_bottom: bool) -> list[str]:
        """The cards `_ks` put on (or under) stack `_d`."""
        return [f"put_many(s, _d, _ks, {at_bottom})"]

    def move_log_lines(self, entry: str, each: bool = False) -> list[str]:
        """The move log's record of a move, a reveal of a zone or a rotation (`each`: one per card `_k` of `_ks`)."""
        return [f"for _k in _ks: s.log.append({entry})" if each else f"s.log.append({entry})"]

    def n_Shuffle(self, st):
        return [f"shuffle(s, {self.ex(st.zone)})"]

    def n_Assign(self, st):
        decl = self.var_decls[st.var]
        base = self.lay.var_base[st.var]
        slot = f"{base}" if st.player is None else f"{base}+{self.seat(st.player)}"
        value = self.ex(st.value)
        if st.op != "=":
            value = f"s.v[_i] {st.op} {value}"
        if decl.type == m.BOOL:
            value = f"(1 if {value} else 0)"
        elif decl.low is not None:
            value = (f"check_range({value}, {self.ex(decl.low)}, {self.ex(decl.high)}, "
                     f"{st.var!r}, {self.span_const(st.span)})")
        return [f"_i = {slot}", f"s.v[_i] = {value}"]

    def n_TokenMove(self, st):
        decl = self.token_decls[st.token]
        supply, held = self.lay.supply_slot[st.token], self.lay.held_base[st.token]
        if st.to_player:
            room = f", {self.ex(decl.cap)} - s.v[_h]" if decl.cap is not None else ""
            return [f"_h = {held}+{self.seat(st.player)}", f"_n = max(0, min({self.ex(st.amount)}, s.v[{supply}]{room}))",
                    f"s.v[{supply}] -= _n", "s.v[_h] += _n"]
        return [f"_h = {held}+{self.seat(st.player)}", f"_n = max(0, min({self.ex(st.amount)}, s.v[_h]))",
                f"s.v[{supply}] += _n", "s.v[_h] -= _n"]

    def n_TokenPass(self, st):
        decl, held = self.token_decls[st.token], self.lay.held_base[st.token]
        room = f", {self.ex(decl.cap)} - s.v[_t]" if decl.cap is not None else ""
        return [f"_f = {held}+{self.seat(st.source)}", f"_t = {held}+{self.seat(st.dest)}",
                f"_n = max(0, min({self.ex(st.amount)}, s.v[_f]{room}))", "s.v[_f] -= _n", "s.v[_t] += _n"]

    def n_Reverse(self, st):
        return [f"s.v[{self.order_slot}] = -s.v[{self.order_slot}]"]

    def n_Return(self, st):
        return [f"return {self.ex(st.value)}"]

    def n_If(self, st):
        lines = []
        for i, (cond, body) in enumerate(st.branches):
            lines.append(f"{'if' if i == 0 else 'elif'} {self.ex(cond)}:")
            lines += self.indent(self.n_block(body))
        if st.orelse:
            lines.append("else:")
            lines += self.indent(self.n_block(st.orelse))
        return lines

    def n_For(self, st):
        return [f"for {self.local_ref(st.binder.slot)} in tuple({self.iter_src(st.binder.iter, distinct=True)}):",
                *self.indent(self.n_block(st.body))]

    def n_Loop(self, st):
        return [*self.loop_head(st), *self.indent(self.n_block(st.body))]

    def loop_head(self, st, head: str | None = None) -> list[str]:
        """A loop compiled to Python, up to its body: `head` (by default the loop's own `while`), a count
        of its rounds, and the guard on that count (`loop_guard`)."""
        if head is None:
            head = "while True:" if st.cond is None else f"while {self.ex(st.cond)}:"
        guard = next(self.label_count)
        return [f"_g{guard} = 0", f"_w{guard} = None", head, f"    _g{guard} += 1",
                *self.loop_guard(guard, self.span_const(getattr(st, "span", None)))]

    def loop_guard(self, guard: int, span: str) -> list[str]:
        """The head of each round of a loop compiled to Python: past `runtime.WATCH_AFTER` rounds, the
        engine watches for the state coming back (`runtime.watch_loop`)."""
        return [f"    if _g{guard} > {runtime.WATCH_AFTER}:",
                f"        _w{guard} = watch_loop(s, _w{guard}, _g{guard}, locals(), {span})"]

    def n_Break(self, st):
        return ["break"]

    def n_End(self, st):
        if st.what == "game":
            return ["s.over = True", f"fr[0] = {OWN_PC}", "return HALT"]
        return [f"return s.end_context({st.what!r}, {self.span_const(st.span)})"]

    def n_Let(self, st):
        return [f"{self.local_ref(st.slot)} = {self.ex(st.value)}"]

    def n_Do(self, st):
        return [f"P_{py_name(st.procedure)}(s{''.join(', ' + self.ex(a) for a in st.args)})"]

    def n_Reveal(self, st):
        to = "-1" if st.to is None else self.seat(st.to)
        if st.card is not None:  # one card: the players shown it know it is in the zone
            return [f"_z = {self.ex(st.zone)}", f"_k = {self.ex(st.card)}",
                    f"show_card(s, _z, _k, {to}, {self.span_const(st.span)})"]
        return [f"_z = {self.ex(st.zone)}", *self.move_log_lines(f"('reveal', _z, tuple(s.z[_z]), {to})")]

    def n_Announce(self, st):
        domain = self.value_domain(st.value.type)
        return [f"s.log.append(('say', {self.ex(st.by)}, {self.ex(st.value)}, {domain!r}))"]

    def value_domain(self, t: m.Type) -> str:
        """How a value of type `t` reads for people (see Game.describe_value)."""
        if t.kind == "pos":
            return f"pos:{t.enum}:{self.board_sizes[t.enum][1]}"
        if t.kind == "enum":
            return f"enum:{t.enum}"
        return {"card": "card", "player": "player", "bool": "bool"}.get(t.kind, "int")

    def n_Win(self, st):
        if st.player is None:
            return [f"s.winners.update(range({self.n}))"]
        return [f"s.winners.add({self.seat(st.player)})"]

    def n_Rotate(self, st):
        base = self.lay.zone_base[st.zone]
        return [f"_old = s.z[{base}:{base + self.n}]", f"_lo = s.lo[{base}:{base + self.n}]",
                f"_hi = s.hi[{base}:{base + self.n}]",
                f"for _p in range({self.n}):",
                f"    _q = {base} + (_p + {self.rotation(st.step)}) % {self.n}",
                "    s.z[_q] = _old[_p]; s.lo[_q] = _lo[_p]; s.hi[_q] = _hi[_p]",
                *self.move_log_lines(f"('rotate', {base}, {self.n}, {self.rotation(st.step)})")]

    def rotation(self, step: int) -> str:
        """Seats a `rotate` moves each zone by, in the direction of play."""
        return str(step * self.direction) if self.order_slot is None else f"{step}*{self.dir_src()}"

    def stack_end_reads(self, st) -> list:
        """The `top(Z)`/`bottom(Z)` a statement reads itself (not in its nested statements) whose zone
        can be evaluated just before it: each is settled by chance first if the stack was shuffled."""
        if not self.reads_ends or not any(isinstance(x, core.StackEnd) for x in m.nodes(st)):
            return []
        return _stack_ends(st, self.defines, self.procs)


def _stack_ends(st, defines: dict, procs: dict) -> list:
    """The stack ends a statement reads in its own expressions (defines and functions included), in order,
    leaving out those whose zone depends on a value bound inside the statement or inside a definition."""
    found, seen = [], set()

    def visit(root, bound_outside: bool) -> None:
        stack = [root]
        while stack:
            x = stack.pop()
            if isinstance(x, (m.Type,)) or (isinstance(x, m.Stmt) and x is not st and root is st):
                continue
            if isinstance(x, core.StackEnd):
                locals_ = {y.slot for y in m.nodes(x.zone) if isinstance(y, m.Local)}
                if (not locals_ if not bound_outside else not locals_ & bound) and x not in seen:
                    seen.add(x)
                    found.append(x)
            elif isinstance(x, (m.DefineCall, m.ProcedureCall)):
                name = getattr(x, "define", None) or x.procedure
                body = defines[name].body if isinstance(x, m.DefineCall) else procs[name].body
                if (type(x), name) not in seen:
                    seen.add((type(x), name))
                    for part in (body if isinstance(body, tuple) else (body,)):
                        visit(part, False)
            stack.extend(reversed(list(m.children(x))))

    bound = {x.slot for x in m.nodes(st) if isinstance(x, m.Binder)}
    bound |= {x.slot for x in m.nodes(st) if isinstance(x, core.Selector) and getattr(x, "slot", None) is not None}
    visit(st, True)
    return found

