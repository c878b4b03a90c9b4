"""Compile a model, for one player count and one choice of options, to Python source.

Each statement becomes one or more *instructions*: functions `i<pc>(s, fr)` that
act on state `s` and the current frame `fr` (a list: fr[0] is the program
counter, fr[1:] the locals) and return the next pc, or one of the negative
signals of `signals`. Control lives in data (frames, pc, contexts), so a state clones
and serializes as plain lists. Expressions become Python expressions inline.

The functions are fused (see `Codegen.assemble`): each runs on through the code that follows it,
so that the stretch between two decisions is a few calls, not one per statement. The expressions are
`exprcode`'s, and a run of statements with no decision, chance or change of frame is one instruction of
plain Python (`nativecode`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .. import model as m
from ..errors import InternalError
from ..lower import Config, core
from . import runtime, triggermemo
from .exprcode import mentions, py_name
from .nativecode import NativeCodegen
from .signals import OWN_PC
from .slices import by_slices

__all__ = ["Codegen", "Instr", "Program"]


class Program:
    """The compiled form of one game configuration."""

    def __init__(self, source: str, namespace: dict, entry_locals: int, n_code: int, origins: list | None = None,
                 action_scopes: tuple = ()):
        self.source = source
        self.ns = namespace
        self.code = [namespace[f"i{pc}"] for pc in range(n_code)]
        self.entry_locals = entry_locals
        self.origins = origins or []  # pc -> (span of the statement it came from, its rule or procedure)
        self.action_scopes = action_scopes  # see `Codegen.action_scopes`

    def origin(self, pc: int) -> tuple:
        """(span, rule or procedure name) of the statement that instruction `pc` was compiled from."""
        return self.origins[pc] if 0 <= pc < len(self.origins) and self.origins[pc] else (None, None)


@dataclass
class Instr:
    """One instruction: its Python lines, and what the block builder needs to know of its control flow.

    `goes_on`: it ends by going to the next instruction and leaves early only to suspend (a chance or
    trigger guard, re-entered at its own pc, which it leaves in the frame: see OWN_PC). `then`: where
    its last line goes unconditionally (`NEXT` or a label), if anywhere. `jump`: it is nothing but
    that unconditional jump. `branch`: it is nothing but a two-way jump.
    """

    lines: list[str]
    goes_on: bool = True
    then: str | None = "NEXT"
    jump: bool = False
    branch: bool = False


class Codegen(NativeCodegen):
    """Python source for one configuration, read from its core IR (facts and options already folded): the
    expressions (`exprcode`) and native statements (`nativecode`), and here the instructions around them."""

    def __init__(self, config: Config, probes: list | None = None):
        super().__init__(config, probes)
        self.instrs: list[Instr] = []
        self.origins: list[tuple | None] = []  # beside each instruction: (statement span, rule or procedure)
        self.compiling: list[tuple] = []  # the statements being compiled, innermost last
        self.labels: dict[str, int] = {}
        self.loop_ends: list[str] = []
        self.frame_size = 0
        # Where an action's binders can be read: (first and last pc of its procedure, first and last pc
        # of the action's body, the frame indices of its binders). Outside the body they are dead.
        self.action_scopes: list[tuple] = []
        self.procedure_scopes: list[tuple] = []  # the procedure being compiled: (first, last pc of the body, slots)

    # ---- instructions
    def label(self) -> str:
        return f"@L{next(self.label_count)}@"

    def place(self, label: str) -> None:
        self.labels[label] = len(self.instrs)

    def instr(self, *lines: str, goes_on: bool = True, then: str | None = "NEXT",
              branch: bool = False) -> int:
        self.instrs.append(Instr(list(lines), goes_on, then, False, branch))
        self.origins.append(self.compiling[-1] if self.compiling else None)
        return len(self.instrs) - 1

    def compiling_stmt(self, st) -> None:
        rule = st.name if isinstance(st, (m.Rule, m.Procedure)) else (self.compiling[-1][1] if self.compiling else None)
        self.compiling.append((getattr(st, "span", None), rule))

    def jump(self, label: str) -> None:
        self.instrs.append(Instr([f"return {label}"], goes_on=False, then=label, jump=True))
        self.origins.append(self.compiling[-1] if self.compiling else None)

    def native_run(self, run: list[m.Stmt]) -> None:
        """Native statements as one instruction; an `end` among them returns its signal from it."""
        ends = any(isinstance(x, m.End) for x in m.walk(run))
        self.compiling_stmt(run[0])
        self.instr(*self.n_block(run), "return NEXT", goes_on=not ends)
        self.compiling.pop()

    def hidden_slot(self) -> int:
        self.frame_size += 1
        return self.frame_size - 1

    # ---- VM statements: split into instructions at decisions, chance and control transfers
    def block(self, stmts) -> None:
        run: list[m.Stmt] = []
        for st in stmts:
            if self.is_native(st, top=True):
                run.append(st)
                continue
            if run:
                self.native_run(run)
                run = []
            self.compiling_stmt(st)
            if self.probing and id(st) in self.probe_before:
                self.instr(*self.probe_lines(self.probe_before, st), "return NEXT")
            if self.stack_end_reads(st):
                self.guarded(st)
            else:
                getattr(self, "s_" + type(st).__name__)(st)
            if self.probing and id(st) in self.probe_after:
                self.instr(*self.probe_lines(self.probe_after, st), "return NEXT")
            self.compiling.pop()
        if run:
            self.native_run(run)

    def s_Rule(self, st):
        self.block(st.body)

    def guarded(self, st) -> None:
        """A statement that reads a stack's end: each end is decided first (a chance event on a
        shuffled stack, as for `move top`), then the statement runs."""
        for end in self.stack_end_reads(st):
            self.settle(self.ex(end.zone), end.top)
        if self.is_native_here(st, top=True):
            ends = any(isinstance(x, m.End) for x in m.walk([st]))
            self.instr(*self.n_block([st]), "return NEXT", goes_on=not ends)
        else:
            getattr(self, "s_" + type(st).__name__)(st)

    def settle(self, zone: str, top: bool) -> None:
        """An instruction that decides the top (or bottom) card of a shuffled stack by chance, when it is
        not decided yet, before a statement reads it."""
        guard = ["_h = s.hi[_z]", "if _h > s.lo[_z] and _h == len(s.z[_z]):"] if top else ["if needs_bottom(s, _z):"]
        self.instr(f"_z = {zone}", *guard,
                   f"    _r = s.chance_resolve(_z, {top})", "    if _r < 0:  # waits for the draw",
                   f"        fr[0] = {OWN_PC}", "        return _r", "return NEXT")

    def s_Move(self, st):
        self.settle(self.ex(st.source), isinstance(st.selector, core.TopCard))
        self.instr(*self.n_Move(st), "return NEXT")

    def s_If(self, st):
        end = self.label()
        for cond, body in st.branches:
            nxt = self.label()
            self.instr(f"return NEXT if {self.ex(cond)} else {nxt}", goes_on=False, then=None, branch=True)
            self.block(body)
            self.jump(end)
            self.place(nxt)
        self.block(st.orelse)
        self.place(end)

    def s_For(self, st):
        values, index = self.hidden_slot(), self.hidden_slot()
        var = st.binder.slot + 1
        head, end = self.label(), self.label()
        self.instr(f"fr[{values + 1}] = tuple({self.iter_src(st.binder.iter, distinct=True)})",
                   f"fr[{index + 1}] = 0", "return NEXT")
        self.place(head)
        self.instr(f"_i = fr[{index + 1}]", f"if _i >= len(fr[{values + 1}]):", f"    return {end}",
                   f"fr[{var}] = fr[{values + 1}][_i]", f"fr[{index + 1}] = _i + 1", "return NEXT", goes_on=False)
        self.loop_ends.append(end)
        self.block(st.body)
        self.loop_ends.pop()
        self.jump(head)
        self.place(end)

    def s_Loop(self, st):
        head, end = self.label(), self.label()
        self.place(head)
        if st.cond is not None:
            self.instr(f"return NEXT if {self.ex(st.cond)} else {end}", goes_on=False, then=None, branch=True)
        self.loop_ends.append(end)
        self.block(st.body)
        self.loop_ends.pop()
        self.jump(head)
        self.place(end)

    def s_Break(self, st):
        self.jump(self.loop_ends[-1])

    def s_Do(self, st):
        proc = self.procs[st.procedure]
        args = "".join(self.ex(a) + ", " for a in st.args)
        self.instr("fr[0] = NEXT", f"s.fr.append([@P_{py_name(proc.name)}@, {args}*PAD_{py_name(proc.name)}])",
                   "return FRAMES", goes_on=False, then=None)

    def s_Choose(self, st):
        labels = [self.label() for _ in st.actions]
        lines = self.choice_options(st, lambda ai, slots, values: f"({labels[ai]}, ({slots}), ({values}))")
        lines += [f"fr[0] = {OWN_PC}", f"return s.decide({self.seat(st.by)}, _o)"]
        self.instr(*lines, goes_on=False, then=None)
        end = self.label()
        for label, action in zip(labels, st.actions):
            self.place(label)
            first = len(self.instrs)
            self.block(action.body)
            if action.binders and action.body:  # a pick (`choose c in ... by p`) has no body: its card is used after it
                self.procedure_scopes.append((first, len(self.instrs), tuple(b.slot + 1 for b in action.binders)))
            self.jump(end)
        self.place(end)

    def choice_options(self, st: m.Choose, entry) -> list[str]:
        """Lines that fill the dict `_o` with the legal actions of a decision: action id ->
        `entry(action index, "slot, ..." of its binders, "value, ..." of their Python variables)`."""
        saved, self.memo = self.memo, {}
        try:
            lines = self.option_lines(st, entry)
        finally:
            memo, self.memo = self.memo, saved
        return ["_o = {}", "_m = {}", *lines] if memo else ["_o = {}", *lines]

    def on_one_state(self, compile_lines) -> list[str]:
        """`compile_lines()`: lines that only read one state, which nothing changes while they run (a
        definition, a test of a whole state, the trigger checks). A quantifier in them that sits inside
        another and reads none of their variables is worked out once for all of them, where it is first
        needed (see `x_Quant`): `forall(q in players: role_of(q) != r or dead(q))` inside a test of each
        player is then worked out once, not once per player."""
        saved = self.memo, self.memo_nested_only
        self.memo, self.memo_nested_only = {}, True  # one evaluated once anyway is not worth a dict
        try:
            lines = compile_lines()
            used = bool(self.memo)
        finally:
            self.memo, self.memo_nested_only = saved
        return ["_m = {}", *lines] if used else lines

    def once(self, node, distinct: bool = False) -> str:
        """An expression (or a binder's domain) of the listing evaluated once, outside its loops: nothing to remember."""
        saved, self.memo = self.memo, None
        try:
            return self.binder_src(node, distinct) if isinstance(node, m.Binder) else self.ex(node)
        finally:
            self.memo = saved

    def option_lines(self, st: m.Choose, entry) -> list[str]:
        lines = []
        for ai, action in enumerate(st.actions):
            start = len(lines)
            self.action_lines(st, ai, action, entry, lines)
            for j in range(start, len(lines)):  # each loop of a binder, with the lines nested in it
                loop = re.fullmatch(r"(\s*)for (_L\d+) in (range\(\d+\)):", lines[j])
                sliced = loop and by_slices(loop.group(2), loop.group(3), lines[j + 1:], self.families())
                if sliced:
                    target, src, lines[j + 1:] = sliced
                    lines[j] = f"{loop.group(1)}for {target} in {src}:"
        for action in st.actions:
            for b in action.binders:
                self.env.pop(b.slot, None)
        return lines

    def action_lines(self, st: m.Choose, ai: int, action: m.Action, entry, lines: list[str]) -> None:
        """The loops and tests that list one action's options into `_o`, appended to `lines`."""
        base, sizes = self.action_table.bases[(st.point, ai)], self.action_table.sizes[(st.point, ai)]
        depth = 0
        ids, values = [], []
        radix = 1
        for b, size in reversed(list(zip(action.binders, sizes))):
            ids.append(f"{self.domain_index(b)}*{radix}" if radix != 1 else self.domain_index(b))
            radix *= size
        # `when` is tested as soon as the binders it reads are bound, before the loops it does not need
        needs = [i for i, b in enumerate(action.binders) if action.when is not None and mentions(action.when, b.slot)]
        when_after = needs[-1] if needs else -1
        if action.when is not None and when_after < 0:
            lines.append("    " * depth + f"if {self.once(action.when)}:")
            depth += 1
        for i, b in enumerate(action.binders):
            var = f"_L{b.slot}"
            self.env[b.slot] = var
            src = self.once(b, distinct=True) if i == 0 else self.binder_src(b, distinct=True)
            src, cond = self.narrowed(b, var, src, self.ex(b.cond) if b.cond is not None else None)
            lines.append("    " * depth + f"for {var} in {src}:")
            depth += 1
            if cond is not None:
                lines.append("    " * depth + f"if {cond}:")
                depth += 1
            if i == when_after:
                lines.append("    " * depth + f"if {self.ex(action.when)}:")
                depth += 1
            values.append(var)
        aid = " + ".join([str(base)] + ids[::-1])
        slots = "".join(f"{b.slot}, " for b in action.binders)
        vals = "".join(f"{v}, " for v in values)
        lines.append("    " * depth + f"_o[{aid}] = {entry(ai, slots, vals)}")

    def domain_desc(self, it: core.Domain) -> str:
        if isinstance(it, (core.CardsIn, core.CardsInEvery)):
            return "card"
        if isinstance(it, core.Seats):
            return "player"
        if isinstance(it, core.Members):
            return f"enum:{it.enum}"
        if isinstance(it, core.Positions):
            return f"pos:{it.board}:{self.board_sizes[it.board][1]}"
        return "int"

    def domain_index(self, b: m.Binder) -> str:
        var = f"_L{b.slot}"
        it = b.iter
        if isinstance(it, (core.CardsIn, core.CardsInEvery, core.Seats, core.Members, core.Positions)):
            return var
        if isinstance(it, core.SubsetsOf):
            return f"bag_index({var}, BAG_WEIGHTS)"
        if isinstance(it, core.Items):
            return f"{self.iter_src(it, True)}.index({var})"
        if isinstance(it, core.Numbers):
            return f"({var} - {self.ex(it.low)})"
        raise InternalError(f"a decision or chance event over {type(it).__name__} has no action numbering")

    def s_Random(self, st):
        b = st.binder
        if self.draws_card(st):
            self.instr(f"_r = s.chance_card({self.ex(b.iter.zone)}, {b.slot + 1}, {self.span_const(st.span)}, NEXT)",
                       "if _r < 0:  # waits for the outcome", f"    fr[0] = {OWN_PC}", "    return _r", "return NEXT")
            return
        self.instr(*self.chance_weights(st),
                   f"_r = s.chance_random(_w, {b.slot + 1}, {self.span_const(st.span)}, {self.domain_desc(b.iter)!r}, NEXT)",
                   "if _r < 0:  # waits for the outcome", f"    fr[0] = {OWN_PC}", "    return _r", "return NEXT")

    @staticmethod
    def draws_card(st: m.Random) -> bool:
        """A `random` statement that draws a card of a zone blindly, each card equally likely."""
        b = st.binder
        return isinstance(b.iter, core.CardsIn) and b.cond is None and st.weight is None

    def chance_weights(self, st: m.Random) -> list[str]:
        """Lines that fill the dict `_w` with the outcomes of a `random` statement and their weights."""
        fixed = self.constant_weights(st)
        if fixed is not None:
            return [f"_w = {fixed}"]
        return self.weight_lines(st)

    def constant_weights(self, st: m.Random) -> str | None:
        """The name of a constant holding the outcomes and weights of a `random` statement whose domain,
        condition and weights read nothing of the state (dice, a weighted coin): worked out here once,
        by the very lines that would work them out at each draw. None when they depend on the game, or
        when working them out fails (the engine then fails at the draw, as it must)."""
        b = st.binder
        if not isinstance(b.iter, (core.Items, core.Members, core.Numbers, core.Seats)):
            return None
        if isinstance(b.iter, core.Seats) and b.iter.start is not None:
            return None
        parts = [b.iter, *(x for x in (b.cond, st.weight) if x is not None)]
        # no value but the outcome's own, and nothing of the state, in the definitions called too
        if any(isinstance(x, m.Local) and x.slot != b.slot for part in parts for x in m.nodes(part)):
            return None
        if not all(triggermemo.reads_no_state(part, self.g, self.lay) for part in parts):
            return None
        namespace = {**self.consts, "fail": runtime.fail, "s": None}  # a definition called here reads no state
        try:
            exec("\n".join(self.weight_lines(st)), namespace)  # noqa: S102 - the engine's own generated lines
        except Exception:  # noqa: BLE001 - a draw whose weights fail (or call what is not yet defined): worked out at each draw
            return None
        return self.const(f"CW{len(self.consts)}", namespace["_w"])

    def weight_lines(self, st: m.Random) -> list[str]:
        b = st.binder
        var = f"_L{b.slot}"
        self.env[b.slot] = var
        distinct = not isinstance(b.iter, (core.CardsIn, core.CardsInEvery))
        count = [f"    _w[{var}] = _w.get({var}, 0) + 1"]
        if st.weight is not None:
            count = [f"    _n = {self.ex(st.weight)}", "    if _n < 0:",
                     f"        fail('a weight is negative', {self.span_const(st.span)})",
                     "    if _n:", f"        _w[{var}] = _w.get({var}, 0) + _n"]
        if b.cond is not None:
            count = [f"    if {self.ex(b.cond)}:", *("    " + line for line in count)]
        lines = ["_w = {}", f"for {var} in {self.iter_src(b.iter, distinct)}:", *count]
        self.env.pop(b.slot, None)
        return lines

    def s_CheckTriggers(self, st):
        # Like a chance guard: when a trigger fires, its frame runs and this instruction runs again,
        # until no armed trigger's condition holds.
        self.instr("if s.check_triggers():", f"    fr[0] = {OWN_PC}", "    return TRIGGER", "return NEXT")

    def s_End(self, st):
        if st.what == "game":
            self.instr("s.over = True", f"fr[0] = {OWN_PC}", "return HALT", goes_on=False, then=None)
        else:
            self.instr(f"return s.end_context({st.what!r}, {self.span_const(st.span)})", goes_on=False,
                       then=None)

    def s_Rounds(self, st):
        start = self.label()
        self.instr(f"s.ctx.append(['round', len(s.fr) - 1, {start}])", "return NEXT")
        self.place(start)
        # Every round starts here, and a round ends only by starting the next one (or with the game):
        # an observer of the state sees each round boundary at the exact moment it happens.
        self.instr("if s.on_round is not None:", "    s.on_round(s)", "return NEXT")
        saved, self.loop_ends = self.loop_ends, []
        self.block(st.body)
        self.loop_ends = saved
        self.jump(start)

    def s_Turns(self, st):
        body, then, after = self.label(), self.label(), self.label()
        self.instr(f"s.cur = {self.seat(st.start)}", f"s.ctx.append(['turn', len(s.fr) - 1, {then}])",
                   "s.turn_start = len(s.log)", "return NEXT")
        self.place(body)
        saved, self.loop_ends = self.loop_ends, []
        self.block(st.body)
        self.place(then)
        self.instr(f"s.ctx[-1][2] = {after}", "return NEXT")
        self.block(st.then)
        self.loop_ends = saved
        self.place(after)
        self.instr(f"s.ctx[-1][2] = {then}", f"s.cur = (s.cur + {self.dir_src()}) % {self.n}",
                   "s.turn_start = len(s.log)", f"return {body}", goes_on=False, then=body)

    # ---- whole program
    def native_function(self, proc: m.Procedure) -> list[str]:
        params = "".join(f", _a{p.slot}" for p in proc.params)
        frame = ", ".join(["0"] + [f"_a{p.slot}" for p in proc.params] + ["None"] * (proc.nlocals - len(proc.params)))
        return [f"def P_{py_name(proc.name)}(s{params}):", f"    fr = [{frame}]", *self.indent(self.n_block(proc.body))]

    def function(self, proc: m.Procedure) -> list[str]:
        """A procedure with a result type: a Python function of the state that returns its value."""
        params = "".join(f", _a{p.slot}" for p in proc.params)
        frame = ", ".join(["0"] + [f"_a{p.slot}" for p in proc.params] + ["None"] * (proc.nlocals - len(proc.params)))
        missing = f"fail('function {proc.name} ended without returning a value', {self.span_const(proc.span)})"
        return [f"def F_{py_name(proc.name)}(s{params}):", f"    fr = [{frame}]",
                *self.indent(self.n_block(proc.body)), f"    {missing}"]

    def procedure(self, proc: m.Procedure) -> None:
        self.frame_size = proc.nlocals
        self.labels[f"@P_{py_name(proc.name)}@"] = len(self.instrs)
        start = len(self.instrs)
        self.procedure_scopes = []
        self.compiling_stmt(proc)
        self.block(proc.body)
        self.instr("s.fr.pop()", "return FRAMES", goes_on=False, then=None)
        self.compiling.pop()
        last = len(self.instrs) - 1
        self.action_scopes += [(start, last, *scope) for scope in self.procedure_scopes]
        self.consts[f"PAD_{py_name(proc.name)}"] = [None] * (self.frame_size - len(proc.params))

    def module(self) -> tuple[str, dict, int]:
        g = self.g
        out = ["# generated by rulekit from " + g.spec_path, ""]
        for a in g.attrs:
            default = -1 if a.type.kind == "enum" else 0
            values = []
            for c in g.components:
                given = dict(c.attrs).get(a.name)
                values.append(self.ex(given) if given is not None else str(default))
            out.append(f"A_{py_name(a.name)} = ({''.join(v + ', ' for v in values)})")
        for d in g.defines:
            self.env = {p.slot: f"_L{p.slot}" for p in d.params}
            params = "".join(f", _L{p.slot}" for p in d.params)
            out.append(f"def D_{py_name(d.name)}(s{params}):")
            out += self.indent(self.on_one_state(lambda d=d: [f"return {self.whole(d.body)}"]))
        tests = (("PROP", [p.expr for p in g.properties]), ("TRIG", [t.cond for t in g.triggers]),
                 ("CLAIM", [c.expr for c in g.claims]))
        for prefix, exprs in tests:  # conditions tested on a whole state
            probing, self.probing = self.probing, self.probing and prefix == "TRIG"  # the checks' own tests: no probes
            for i, expr in enumerate(exprs):
                self.env = {}
                out += [f"def {prefix}{i}(s):",
                        *self.indent(self.on_one_state(lambda expr=expr: [f"return bool({self.whole(expr)})"]))]
            self.probing = probing
        self.env = {}
        self.procedure(g.flow)
        flow_size = self.frame_size
        for p in g.procedures:
            self.env = {}
            if p.result is not None:
                out += self.function(p)
            elif self.native_procedure(p.name):
                out += self.native_function(p)
            else:
                self.procedure(p)
        triggers = []
        for i, trig in enumerate(g.triggers):
            self.env = {}
            proc = m.Procedure(f"T{i}_{trig.name}", (), trig.body, trig.nlocals, trig.span)
            entry = len(self.instrs)
            self.procedure(proc)
            triggers.append((i, entry, trig.once, self.frame_size))
        out.append("TRIGGERS = (" + "".join(f"(TRIG{i}, {entry}, {once}, {size}), " for i, entry, once, size in triggers) + ")")
        out += self.fire(triggers)
        out += self.assemble()
        return "\n".join(out) + "\n", self.consts, flow_size

    def fire(self, triggers: list[tuple]) -> list[str]:
        """`FIRE(s)`: start the first armed trigger whose condition holds (its frame pushed), re-arming
        on the way each that is not `once` and whose condition is false; True when one started."""
        remembered = self.remembered_conditions()

        def body() -> list[str]:
            lines = ["armed = s.armed"]
            for i, entry, once, size in triggers:
                self.env = {}
                # as TRIG<i> has it (its probes too)
                cond = f"TH{i}(s)" if i in remembered else self.whole(self.g.triggers[i].cond)
                lines += [f"if armed[{i}]:", f"    if {cond}:", f"        armed[{i}] = False",
                          f"        s.fr.append([{entry}{', None' * size}])", "        return True"]
                if not once:
                    lines += [f"elif not {cond}:", f"    armed[{i}] = True"]
            return lines + ["return False"]
        return [*(line for lines in remembered.values() for line in lines),
                "def FIRE(s):", *self.indent(self.on_one_state(body))]

    def remembered_conditions(self) -> dict[int, list[str]]:
        """{trigger i: the lines of `TH<i>(s)`}, its condition remembered between tests with the same
        inputs (`triggermemo`), for each trigger whose condition is worth it; its memo is the constant
        `TC<i>`, this build's own."""
        out = {}
        for i, expr in enumerate(t.cond for t in self.g.triggers):
            read = triggermemo.inputs(expr, self.g, self.lay)
            if read is None:
                continue
            self.env = {}
            cond_lines = self.on_one_state(lambda expr=expr: [f"_h = bool({self.whole(expr)})"])
            key, snapshot = triggermemo.key_source(read, self.probing)
            out[i] = triggermemo.memo_function(f"TH{i}", self.const(f"TC{i}", triggermemo.new_memo()), key,
                                               cond_lines, snapshot)
        return out

    # ---- assembly: instructions into Python functions
    def assemble(self) -> list[str]:
        """The functions `i<pc>`, one per instruction, each running from its instruction as far as it can.

        First each function holds its basic block: its instruction and the ones after it that no jump
        enters, up to one that does not go on (a jump, a decision, an end). Then `fuse` lets each go on,
        instead of returning a pc to the engine's loop, into the code of the function that pc names.
        Every signal that stops the run (a decision, a chance event, a trigger, the end) leaves its own
        pc in the frame first, so an instruction may sit anywhere inside a function.
        """
        instrs, n = self.instrs, len(self.instrs)

        def target(pc: int, then: str) -> int:
            return pc + 1 if then == "NEXT" else self.labels[then]

        def thread(pc: int) -> int:
            """Where control really goes: past instructions that only jump."""
            seen = set()
            while pc < n and pc not in seen and instrs[pc].jump:
                seen.add(pc)
                pc = target(pc, instrs[pc].then)
            return pc

        def text(line: str, at: int) -> str:
            line = line.replace(OWN_PC, str(at)).replace("NEXT", str(thread(at + 1)))
            return _LABEL.sub(lambda mt: str(self.labels[mt.group(0)]), line)

        self.labels = {label: thread(pc) for label, pc in self.labels.items()}
        targets = set(self.labels.values())
        blocks = []
        for pc in range(n):
            end = pc
            while instrs[end].goes_on and end + 1 < n and end + 1 not in targets:
                end += 1
            body = []
            for at in range(pc, end + 1):
                lines = instrs[at].lines[:-1] if at < end else instrs[at].lines
                body += [text(line, at) for line in lines]
            last = instrs[end]
            if last.then is not None:  # a block that ends by going to a two-way jump takes that jump itself
                to = thread(target(end, last.then)) if last.then != "NEXT" else thread(end + 1)
                if to < n and instrs[to].branch:
                    body[-1] = text(instrs[to].lines[0], to)
            blocks.append(body)
        fused: list[list[str]] = [[] for _ in range(n)]
        for pc in reversed(range(n)):  # a function fuses the ones after it, which are done by then
            fused[pc] = _fuse(pc, blocks, fused)
        out = []
        for pc in range(n):
            out.append(f"def i{pc}(s, fr):")
            out += self.indent(fused[pc])
        return out


_LABEL = re.compile(r"@[A-Za-z0-9_]+@")
_GOTO = re.compile(r"return (\d+)")
_BRANCH = re.compile(r"return (\d+) if (.+) else (\d+)")
FUSE_LINES = 12  # the longest code one function takes in from another, in lines


def _fuse(pc: int, blocks: list[list[str]], fused: list[list[str]]) -> list[str]:
    """The basic block at `pc`, going on into the code of the pc it returns (or of both pcs of a
    two-way jump) instead of returning it, where that code is short. A later pc brings its own fused
    code; an earlier one (a loop going round) only its basic block, so fusing always ends."""

    def then(to: int) -> list[str]:
        code = fused[to] if to > pc else blocks[to]
        return list(code) if len(code) <= FUSE_LINES else [f"return {to}"]

    body = blocks[pc]
    goto = _GOTO.fullmatch(body[-1])
    if goto:
        return body[:-1] + then(int(goto.group(1)))
    branch = _BRANCH.fullmatch(body[-1])
    if branch:
        yes, cond, no = int(branch.group(1)), branch.group(2), int(branch.group(3))
        if cond in ("0", "1"):  # an option folded to a constant
            return body[:-1] + then(yes if cond == "1" else no)
        return body[:-1] + [f"if {cond}:"] + ["    " + line for line in then(yes)] + then(no)
    return body

