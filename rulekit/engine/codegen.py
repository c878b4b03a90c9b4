"""Compile a model, for one player count and one choice of options, to Python source.

Each statement becomes one or more *instructions*: functions `i<pc>(s, fr)` that
act on state `s` and the current frame `fr` (a list: fr[0] is the program
counter, fr[1:] the locals) and return the next pc, or one of the negative
signals below. Control lives in data (frames, pc, contexts), so a state clones
and serializes as plain lists. Expressions become Python expressions inline.

The functions are fused (see `Codegen.assemble`): each runs on through the code that follows it,
so that the stretch between two decisions is a few calls, not one per statement.
"""
from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from .. import model as m
from ..errors import InternalError
from ..lower import Config, core
from . import runtime, sharing, subsets, triggermemo
from .pyscope import free_names
from .slices import by_slices

SUSPEND, FRAMES, HALT, TRIGGER = -1, -2, -3, -4
AGGREGATES = {"max": (True, False), "min": (False, False), "argmax": (True, True), "argmin": (False, True)}
OWN_PC = "@PC@"  # in an instruction's lines: its own pc, which a signal leaves in the frame to resume at
INLINE_DEPTH = 3  # definitions inlined into their callers, this many levels deep
PLAIN_ZONE = re.compile(r"s\.z\[[\w+()\s]*\]")  # a zone picked by arithmetic on names: cheap to read twice
CALL = re.compile(r"\w\(")  # a function called in it: not read twice


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


def _py_name(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)


class Codegen:
    """Python source for one configuration, read from its core IR (facts and options already folded)."""

    def __init__(self, config: Config, probes: list | None = None):
        game = config.game
        self.config = config
        self.g = game
        self.n = config.players
        self.kind = {c.name: i for i, c in enumerate(game.components)}
        self.zone_decls = {z.name: z for z in game.zones}
        self.var_decls = {v.name: v for v in game.vars}
        self.token_decls = {t.name: t for t in game.tokens}
        self.enum_decls = {e.name: e for e in game.enums}
        self.procs = {p.name: p for p in game.procedures}
        self.defines = {d.name: d for d in game.defines}
        self.prefix = "_L"  # of the Python names of bound variables
        self.inlining = 0
        self._native_procs: dict[str, bool] = {}
        self.direction = 1 if game.order == "clockwise" else -1
        self.order_slot = config.layout.order_slot  # where the direction lives when `reverse order` can turn it
        self.reads_ends = m.reads_stack_ends(game)  # top(Z) or bottom(Z)
        self.no_player = m.uses_no_player(game)  # then a player value may be `none`, checked where a seat is needed
        self.instrs: list[Instr] = []
        self.origins: list[tuple | None] = []  # beside each instruction: (statement span, rule or procedure)
        self.compiling: list[tuple] = []  # the statements being compiled, innermost last
        self.labels: dict[str, int] = {}
        self.label_count = itertools.count()
        self.consts: dict[str, object] = {}
        self.value_names: dict[tuple, str] = {}  # see `named_value`
        self.inlined: dict[tuple, int] | None = None  # while `whole` compiles: definitions inlined, by arguments
        self.env: dict[int, str] = {}
        # While a decision's options are listed: the quantifiers that read none of the loops' variables,
        # each worked out once for the whole listing (code -> its key in the dict `_m`), see `x_Quant`.
        self.memo: dict[str, int] | None = None
        self.memo_nested_only = False  # remember only quantifiers inside another one (see `on_one_state`)
        self.quant_depth = 0  # quantifiers being compiled, one inside the other
        self.finite: dict[str, tuple] = {}  # Python variables bound over a constant domain -> its values
        self._attr_tables: dict | None = None
        self.loop_ends: list[str] = []
        self.frame_size = 0
        # Where an action's binders can be read: (first and last pc of its procedure, first and last pc
        # of the action's body, the frame indices of its binders). Outside the body they are dead.
        self.action_scopes: list[tuple] = []
        self.procedure_scopes: list[tuple] = []  # the procedure being compiled: (first, last pc of the body, slots)
        self.board_sizes = config.board_sizes
        self.lay = config.layout
        self.action_table = config.actions
        self.consts["BAG_WEIGHTS"] = subsets.weights(list(config.component_counts))
        # Silent-case probes (`lower.sites`), only in the build that `rulekit check` plays: each site's
        # test, compiled before (or after) its statement, or inside its `the`/`argmax`.
        self.probe_before: dict[int, list] = {}
        self.probe_after: dict[int, list] = {}
        self.probe_ties: dict[int, int] = {}
        self.probing = probes is not None
        for i, site in enumerate(probes or ()):
            if site.decision:  # seen at the decision, by whoever plays
                continue
            if site.test is None:
                self.probe_ties[id(site.node)] = i
            else:
                (self.probe_after if site.after else self.probe_before).setdefault(id(site.node), []).append((i, site.test))

    # ---- constants
    def const(self, name: str, value) -> str:
        self.consts[name] = value
        return name

    def zone(self, name: str, player: m.Expr | None) -> str:
        base = self.lay.zone_base[name]
        return str(base) if player is None else f"({base}+{self.seat(player)})"

    def seat(self, e: m.Expr) -> str:
        """A player expression where a real seat is needed: checked at run time when it may be `none`."""
        if self.no_player and not isinstance(e, (core.Current, core.Neighbour, core.Seat)) and not (
                isinstance(e, m.Const) and e.value >= 0):
            return f"real_seat({self.ex(e)}, {self.span_const(getattr(e, 'span', None))})"
        return self.ex(e)

    def dir_src(self) -> str:
        """The direction of play: +1 clockwise, -1 counterclockwise; read from the state when it can turn."""
        return str(self.direction) if self.order_slot is None else f"s.v[{self.order_slot}]"

    # ---- expressions
    def ex(self, e: m.Expr) -> str:
        return getattr(self, "x_" + type(e).__name__)(e)

    def whole(self, e: m.Expr) -> str:
        """An expression evaluated whole on a state that nothing changes meanwhile (a definition, a
        test of a state, a trigger's condition), with the parts it repeats worked out once (`sharing`):
        looked for only where a definition was inlined twice with the same arguments."""
        saved, self.inlined = self.inlined, {}
        try:
            code = self.ex(e)
            repeated = any(n > 1 for n in self.inlined.values())
        finally:
            self.inlined = saved
        shared = sharing.share(code) if repeated else code
        # in brackets, as every compiled expression is: the caller may write `not` before it
        return code if shared == code else f"({shared})"

    def x_Const(self, e):
        if e.type == m.CARD:
            return str(self.kind[e.name])
        return str(int(e.value))

    def x_Local(self, e):
        return self.env.get(e.slot, self.local_ref(e.slot))

    @staticmethod
    def local_ref(slot: int) -> str:
        """Where a local lives: its place in the frame (a whole-game code keeps it in a Python local)."""
        return f"fr[{slot + 1}]"

    def x_VarRef(self, e):
        base = self.lay.var_base[e.var]
        return f"s.v[{base}]" if e.player is None else f"s.v[{base}+{self.seat(e.player)}]"

    def x_ZoneRef(self, e):
        return self.zone(e.zone, e.player)

    # ---- builtins, each a node of the core IR
    def x_Current(self, e):
        return "s.cur"

    def x_Size(self, e):
        return f"len({self.ex(e.of)})" if e.of.type == m.CARDS else f"len(s.z[{self.ex(e.of)}])"

    def x_Neighbour(self, e):
        return f"(({self.seat(e.player)}{'+' if e.step > 0 else '-'}{self.dir_src()})%{self.n})"

    def x_Near(self, e):
        name = "adjacent" if e.diagonal else "orthogonal"
        table = f"{name.upper()}_{_py_name(e.board)}"
        if table not in self.consts:  # each position's neighbours, looked up instead of computed
            rows, columns = self.board_sizes[e.board]
            test = getattr(runtime, name)
            self.consts[table] = tuple(frozenset(b for b in range(rows * columns) if test(a, b, columns))
                                       for a in range(rows * columns))
        return f"({self.ex(e.b)} in {table}[{self.ex(e.a)}])"

    def x_Seat(self, e):
        if self.seats_in_range(e.number):
            return self.ex(e.number)
        return f"check_range({self.ex(e.number)}, 0, {self.n - 1}, 'seat', {self.span_const(e.span)})"

    def seats_in_range(self, number: m.Expr) -> bool:
        """Whether every value `number` can take is a seat of this table, known before play: a constant,
        or a card attribute (a team, say) whose every value is one; its range check is then left out."""
        if isinstance(number, m.Const) and isinstance(number.value, int):
            return 0 <= number.value < self.n
        if isinstance(number, m.Attr) and number.target.type.kind != "pos":
            values = self.attr_tables().get(f"A_{_py_name(number.attr)}", ())
            return bool(values) and all(isinstance(v, int) and 0 <= v < self.n for v in values)
        return False

    def x_Supply(self, e):
        return f"s.v[{self.lay.supply_slot[e.token]}]"

    def x_Held(self, e):
        return f"s.v[{self.lay.held_base[e.token]}+{self.seat(e.player)}]"

    def x_Smaller(self, e):
        return f"min({self.ex(e.a)}, {self.ex(e.b)})"

    def x_Larger(self, e):
        return f"max({self.ex(e.a)}, {self.ex(e.b)})"

    def x_Abs(self, e):
        return f"abs({self.ex(e.of)})"

    def x_StackEnd(self, e):
        return f"stack_end(s, {self.ex(e.zone)}, {e.top}, {self.span_const(e.span)})"

    def x_ProcedureCall(self, e):
        return f"F_{_py_name(e.procedure)}(s{''.join(', ' + self.ex(a) for a in e.args)})"

    def x_Attr(self, e):
        if e.target.type.kind == "pos":
            columns = self.board_sizes[e.target.type.enum][1]
            return f"({self.ex(e.target)} // {columns} + 1)" if e.attr == "row" else f"({self.ex(e.target)} % {columns} + 1)"
        return f"A_{_py_name(e.attr)}[{self.ex(e.target)}]"

    def x_Unary(self, e):
        return f"(not {self.ex(e.operand)})" if e.op == "not" else f"(-{self.ex(e.operand)})"

    def x_Binary(self, e):
        if (e.op in (">", "!=", "==") and isinstance(e.left, core.Size) and isinstance(e.right, m.Const)
                and e.right.value == 0 and e.right.type != m.CARD):  # a zone's emptiness, without len()
            cards = self.ex(e.left.of) if e.left.of.type == m.CARDS else f"s.z[{self.ex(e.left.of)}]"
            return f"(not {cards})" if e.op == "==" else f"(not not {cards})"
        op = {"/": "//"}.get(e.op, e.op)
        return f"({self.ex(e.left)} {op} {self.ex(e.right)})"

    def x_IfExpr(self, e):
        return f"({self.ex(e.then)} if {self.ex(e.cond)} else {self.ex(e.orelse)})"

    def x_DefineCall(self, e):
        args = [self.ex(a) for a in e.args]
        if self.inlining >= INLINE_DEPTH:
            return f"D_{_py_name(e.define)}(s{''.join(', ' + a for a in args)})"
        if self.inlined is not None:
            key = (e.define, *args)
            self.inlined[key] = self.inlined.get(key, 0) + 1
        # Inline the definition: its parameters become the argument expressions (expressions have no
        # side effects), and its own bound variables get a fresh prefix so nothing is captured.
        d = self.defines[e.define]
        saved = self.env, self.prefix
        self.env = {p.slot: f"({a})" for p, a in zip(d.params, args)}
        self.prefix = f"_D{next(self.label_count)}_"
        self.inlining += 1
        try:
            return f"({self.ex(d.body)})"
        finally:
            self.inlining -= 1
            self.env, self.prefix = saved

    def x_SetLit(self, e):
        return "(" + "".join(self.ex(i) + ", " for i in e.items) + ")"

    def iter_src(self, it: core.Domain, distinct: bool) -> str:
        """A Python iterable over the binder's domain, in a deterministic order."""
        if isinstance(it, core.CardsInEvery):
            z = f"[_k for _zz in {self.family_zones(it)} for _k in _zz]"
            return f"sorted(set({z}))" if distinct else z
        if isinstance(it, core.CardsIn):
            z = f"s.z[{self.ex(it.zone)}]"
            return f"sorted(set({z}))" if distinct else z
        if isinstance(it, core.Seats):
            if it.start is None:
                return f"range({self.n})"
            return f"[({self.ex(it.start)}+{self.dir_src()}*_i)%{self.n} for _i in range({self.n})]"
        if isinstance(it, core.Members):
            return f"range({len(self.enum_decls[it.enum].members)})"
        if isinstance(it, core.Positions):
            rows, columns = self.board_sizes[it.board]
            return f"range({rows * columns})"
        if isinstance(it, core.Items):
            return "(" + "".join(self.ex(i) + ", " for i in it.items) + ")"
        if isinstance(it, core.CardsOf):
            return f"sorted(set({self.ex(it.cards)}))" if distinct else self.ex(it.cards)
        if isinstance(it, core.SubsetsOf):
            return f"subsets_every(s.z[{self.ex(it.zone)}])"
        if isinstance(it, core.Numbers):
            return f"range({self.ex(it.low)}, {self.ex(it.high)}+1)"
        raise InternalError(f"the engine does not know the domain {type(it).__name__}")

    def family_zones(self, it: core.CardsInEvery) -> str:
        """The list of the zones of a family (one per player, say), as a slice of the state's zones."""
        base = self.lay.zone_base[it.family]
        return f"s.z[{base}:{base + self.lay.zone_count[it.family]}]"

    def binder_src(self, b: m.Binder, distinct: bool) -> str:
        """Like iter_src, but subsets that must add up to a target are generated, not filtered."""
        if isinstance(b.iter, core.SubsetsOf) and b.cond is not None:
            found = _sum_target(b.cond, b.slot)
            if found is not None:
                value, target = found
                inner = value.binder.slot
                var = f"{self.prefix}{inner}"
                self.env[inner] = var
                body = self.ex(value.body)
                zone, goal = f"s.z[{self.ex(b.iter.zone)}]", self.ex(target)
                values = self.kind_values(var, body)
                if values is not None:
                    return f"subsets_summing_kinds({zone}, {values}, {goal})"
                return f"subsets_summing({zone}, lambda {var}: {body}, {goal})"
        return self.iter_src(b.iter, distinct)

    def x_Quant(self, e):
        code = self.quant_src(e)
        if self.memo is None or (self.memo_nested_only and not self.quant_depth) or \
                any(name.startswith("_") and name != "_m" for name in free_names(code)):
            return code
        # The same for every option: evaluated where it is first needed (so that an error is raised
        # where it would be anyway), then remembered until the listing ends.
        key = self.memo.setdefault(code, len(self.memo))
        return f"(_m[{key}] if {key} in _m else _m.setdefault({key}, {code}))"

    def quant_src(self, e):
        b = e.binder
        var = f"{self.prefix}{b.slot}"
        self.env[b.slot] = var
        domain = self.finite_domain(b)
        if domain is not None:  # known while its body and condition are compiled (see `kind_set`)
            self.finite[var] = domain
        self.quant_depth += 1
        try:
            code = self.quant_code(e, b, var)
        finally:
            self.quant_depth -= 1
            self.finite.pop(var, None)
        loop = re.search(rf" for {re.escape(var)} in (range\(\d+\))", code)
        if loop is not None:  # the quantifier's own loop (its variable is bound nowhere else)
            sliced = by_slices(var, loop.group(1), [code], self.families())
            if sliced is not None:
                target, src, (code,) = sliced
                code = code.replace(loop.group(0), f" for {target} in {src}", 1)
        return code

    def families(self) -> dict[int, int]:
        """The first zone index of each family of zones (per player, per position) -> its size."""
        return {self.lay.zone_base[z.name]: self.lay.zone_count[z.name] for z in self.g.zones
                if self.lay.zone_count[z.name] > 1}

    def finite_domain(self, b: m.Binder) -> tuple | None:
        """The values of a binder over a constant domain (listed values, an enum, constant bounds)."""
        if not isinstance(b.iter, (core.Items, core.Members, core.Numbers, core.Seats)):
            return None
        code = self.iter_src(b.iter, True)
        return tuple(eval(code, {"range": range})) if free_names(code) <= {"range"} else None  # noqa: S307

    def attr_tables(self) -> dict:
        """The attribute tables `A_<name>` of the generated module, as values."""
        if self._attr_tables is None:
            self._attr_tables = {}
            for a in self.g.attrs:
                default = -1 if a.type.kind == "enum" else 0
                given = [dict(c.attrs).get(a.name) for c in self.g.components]
                self._attr_tables[f"A_{_py_name(a.name)}"] = tuple(
                    eval(self.ex(x), {}) if x is not None else default for x in given)  # noqa: S307 - a literal
        return self._attr_tables

    @functools.cached_property
    def state_free_defines(self) -> frozenset[str]:
        """The functions `D_<name>` of the definitions whose value depends on their arguments alone: a
        call of one passes the state `s` but reads nothing of it. Empty in a build with probes, whose
        definitions may record the sites they reach each time they run."""
        if self.probing:
            return frozenset()
        return frozenset(f"D_{_py_name(d.name)}" for d in self.g.defines
                         if triggermemo.reads_no_state(d.body, self.g, self.lay))

    def kind_set(self, var: str, cond: str) -> str | None:
        """For a test of card `var` that reads only the card's kind, its attributes and values bound over
        constant domains: the kinds that pass it, worked out here for every kind (a constant frozenset,
        or a table of them by those values); None for any other test, or one that fails here."""
        tables = self.attr_tables()
        free = free_names(cond)
        outer = sorted(name for name in free if name in self.finite)
        if free - {var} - set(outer) - set(tables) - {"min", "max", "abs"}:
            return None
        combos = list(itertools.product(*(self.finite[name] for name in outer)))
        if len(combos) > 256:
            return None
        table = {}
        test = _kind_test(cond)
        for combo in combos:
            scope = {**tables, **dict(zip(outer, combo))}
            try:
                kinds = frozenset(k for k in range(len(self.g.components)) if eval(test, {**scope, var: k}))  # noqa: S307
            except Exception:  # noqa: BLE001 - a test that fails somewhere stays as it is
                return None
            table[combo if len(outer) > 1 else combo[0] if outer else None] = kinds
        if not outer:
            return self.const(f"K{len(self.consts)}", table[None])
        key = outer[0] if len(outer) == 1 else "(" + "".join(name + ", " for name in outer) + ")"
        return f"{self.const(f'KT{len(self.consts)}', table)}[{key}]"

    def kind_values(self, var: str, body: str) -> str | None:
        """For a value of card `var` that reads only the card's kind and its attributes: the constant
        tuple of its integer value for every kind; None for any other value, or one that fails here."""
        tables = self.attr_tables()
        if free_names(body) - {var} - set(tables) - {"min", "max", "abs"}:
            return None
        test = _kind_test(body)
        try:
            values = tuple(eval(test, {**tables, var: k}) for k in range(len(self.g.components)))  # noqa: S307
        except Exception:  # noqa: BLE001 - a value that fails somewhere is worked out at each card, as it is
            return None
        if not all(type(v) is int for v in values):
            return None
        return self.const(f"SV{len(self.consts)}", values)

    def narrowed(self, b: m.Binder, var: str, src: str, cond: str | None) -> tuple[str, str | None]:
        """The domain and the test of the loop of binder `b` in a listing or a quantifier: here as
        they are; the whole-game code narrows a constant domain by the fixed part of the test."""
        return src, cond

    def quant_code(self, e, b: m.Binder, var: str) -> str:
        cond = self.ex(b.cond) if b.cond is not None else None
        if cond and e.kind in ("exists", "count") and isinstance(b.iter, (core.CardsIn, core.CardsInEvery, core.CardsOf)):
            kinds = self.kind_set(var, cond)
            if kinds is not None:  # the zone's cards tested by kind in C, not one by one in Python
                src = self.binder_src(b, distinct=False)
                if e.kind == "exists":
                    return f"(not {kinds}.isdisjoint({src}))"
                single = kinds in self.consts and len(self.consts[kinds]) == 1
                return f"{src}.count({next(iter(self.consts[kinds]))})" if single else f"sum(map({kinds}.__contains__, {src}))"
            # The zone searched in C for one card that the state or a local names.
            card = matched_card(b)
            if card is not None and (e.kind == "exists" or not isinstance(b.iter, core.CardsOf)):
                src, other = self.binder_src(b, distinct=False), self.ex(card)
                return f"({other} in {src})" if e.kind == "exists" else f"{src}.count({other})"
        if e.kind == "count":
            if cond is None and isinstance(b.iter, core.CardsInEvery):  # the zones' sizes added up, not their cards listed
                return f"sum(map(len, {self.family_zones(b.iter)}))"
            src, cond = self.narrowed(b, var, self.binder_src(b, distinct=False), cond)
            copies = isinstance(b.iter, (core.CardsIn, core.CardsInEvery))
            return f"sum(1 for {var} in {src} if {cond})" if cond else f"len({src})" if copies else f"sum(1 for {var} in {src})"
        if e.kind in AGGREGATES:  # over distinct values, so that ties go to the first in the domain's order
            largest, element = AGGREGATES[e.kind]
            what = self.text_const(f"{e.kind}({b.name} in ...)")
            src, cond = self.narrowed(b, var, self.binder_src(b, distinct=True), cond)
            pairs = f"(({self.ex(e.body)}, {var}) for {var} in {src}{' if ' + cond if cond else ''})"
            if self.probing and id(e) in self.probe_ties:
                return f"best_tie(HITS, {self.probe_ties[id(e)]}, {pairs}, {largest}, {element}, {what}, {self.span_const(e.span)})"
            return f"best({pairs}, {largest}, {element}, {what}, {self.span_const(e.span)})"
        src = self.binder_src(b, distinct=not isinstance(b.iter, (core.CardsIn, core.CardsInEvery, core.CardsOf)))
        src, cond = self.narrowed(b, var, src, cond)
        guard = f" if {cond}" if cond else ""
        if e.kind == "exists":
            return f"any(True for {var} in {src}{guard})"
        if e.kind == "forall":
            return f"all({self.ex(e.body)} for {var} in {src}{guard})"
        if e.kind == "sum":
            body = self.ex(e.body)
            if not guard and isinstance(b.iter, (core.CardsIn, core.CardsInEvery, core.CardsOf)):
                values = self.kind_values(var, body)
                if values is not None:  # each card's value read from a table in C, not by a generator
                    return f"sum(map({values}.__getitem__, {src}))"
            return f"sum({body} for {var} in {src}{guard})"
        if e.kind != "the":
            raise InternalError(f"the engine does not know the quantifier {e.kind!r}")
        what = self.text_const(f"{b.name} in ...")
        by_index = (not guard and isinstance(b.iter, core.CardsIn) and PLAIN_ZONE.fullmatch(src) is not None
                    and not CALL.search(src))
        if self.probing and id(e) in self.probe_ties:
            values = f"iter({src})" if not guard else f"({var} for {var} in {src}{guard})"
            tie = f"the_tie(HITS, {self.probe_ties[id(e)]}, {values}, {what}, {self.span_const(e.span)})"
            # a zone of one card holds no tie: its card, read by index
            return f"({src}[0] if len({src}) == 1 else {tie})" if by_index else tie
        if by_index:  # the first card of a zone, read as a list index (a zone is a list, its first card first)
            return f"({src}[0] if {src} else the(None, {what}, {self.span_const(e.span)}))"
        first = f"iter({src})" if not guard else f"({var} for {var} in {src}{guard})"
        return f"the(next({first}, None), {what}, {self.span_const(e.span)})"

    def span_const(self, span) -> str:
        return self.named_value("S", span)

    def text_const(self, text: str) -> str:
        return self.named_value("W", text)

    def named_value(self, prefix: str, value) -> str:
        """The constant that holds `value` (a span, a text), one name per value: a definition inlined
        twice then reads the same names twice, and `sharing` sees its two copies as one part."""
        name = self.value_names.get((prefix, value))
        if name is None:
            name = self.value_names[(prefix, value)] = self.const(f"{prefix}{len(self.consts)}", value)
        return name

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

    # ---- native statements: no decision, no chance, no change of frame. They compile to plain
    # Python, so a whole suspension-free region (ifs, loops, procedure calls) is one instruction.
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
        return [f"P_{_py_name(st.procedure)}(s{''.join(', ' + self.ex(a) for a in st.args)})"]

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

    def stack_end_reads(self, st) -> list:
        """The `top(Z)`/`bottom(Z)` a statement reads itself (not in its nested statements) whose zone
        can be evaluated just before it: each is settled by chance first if the stack was shuffled."""
        if not self.reads_ends or not any(isinstance(x, core.StackEnd) for x in m.nodes(st)):
            return []
        return _stack_ends(st, self.defines, self.procs)

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
        self.instr("fr[0] = NEXT", f"s.fr.append([@P_{_py_name(proc.name)}@, {args}*PAD_{_py_name(proc.name)}])",
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
        needs = [i for i, b in enumerate(action.binders) if action.when is not None and _mentions(action.when, b.slot)]
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
        return [f"def P_{_py_name(proc.name)}(s{params}):", f"    fr = [{frame}]", *self.indent(self.n_block(proc.body))]

    def function(self, proc: m.Procedure) -> list[str]:
        """A procedure with a result type: a Python function of the state that returns its value."""
        params = "".join(f", _a{p.slot}" for p in proc.params)
        frame = ", ".join(["0"] + [f"_a{p.slot}" for p in proc.params] + ["None"] * (proc.nlocals - len(proc.params)))
        missing = f"fail('function {proc.name} ended without returning a value', {self.span_const(proc.span)})"
        return [f"def F_{_py_name(proc.name)}(s{params}):", f"    fr = [{frame}]",
                *self.indent(self.n_block(proc.body)), f"    {missing}"]

    def procedure(self, proc: m.Procedure) -> None:
        self.frame_size = proc.nlocals
        self.labels[f"@P_{_py_name(proc.name)}@"] = len(self.instrs)
        start = len(self.instrs)
        self.procedure_scopes = []
        self.compiling_stmt(proc)
        self.block(proc.body)
        self.instr("s.fr.pop()", "return FRAMES", goes_on=False, then=None)
        self.compiling.pop()
        last = len(self.instrs) - 1
        self.action_scopes += [(start, last, *scope) for scope in self.procedure_scopes]
        self.consts[f"PAD_{_py_name(proc.name)}"] = [None] * (self.frame_size - len(proc.params))

    def module(self) -> tuple[str, dict, int]:
        g = self.g
        out = ["# generated by rulekit from " + g.spec_path, ""]
        for a in g.attrs:
            default = -1 if a.type.kind == "enum" else 0
            values = []
            for c in g.components:
                given = dict(c.attrs).get(a.name)
                values.append(self.ex(given) if given is not None else str(default))
            out.append(f"A_{_py_name(a.name)} = ({''.join(v + ', ' for v in values)})")
        for d in g.defines:
            self.env = {p.slot: f"_L{p.slot}" for p in d.params}
            params = "".join(f", _L{p.slot}" for p in d.params)
            out.append(f"def D_{_py_name(d.name)}(s{params}):")
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


@functools.lru_cache(maxsize=4096)
def _kind_test(cond: str):
    """A kind test compiled once: every configuration of a game asks for the same ones."""
    return compile(cond, "<kind test>", "eval")


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


# What may be read once up front in place of at each card of a search: reading it cannot fail.
_PLAIN_READS = (m.Local, m.Const, m.FactRef, m.VarRef, core.Current, core.PlayerCount)


def matched_card(b: m.Binder):
    """For a binder over cards whose whole test is `card == E` (or `E == card`), with E a read of the
    state or a local that cannot fail and that does not name the card: E; else None."""
    cond = b.cond
    if not (isinstance(b.iter, (core.CardsIn, core.CardsInEvery, core.CardsOf))
            and isinstance(cond, m.Binary) and cond.op == "=="):
        return None
    for side, other in ((cond.left, cond.right), (cond.right, cond.left)):
        if (isinstance(side, m.Local) and side.slot == b.slot and not _mentions(other, b.slot)
                and all(isinstance(x, _PLAIN_READS) for x in m.nodes(other))):
            return other
    return None


def _mentions(e, slot: int) -> bool:
    if isinstance(e, m.Local):
        return e.slot == slot
    return any(_mentions(c, slot) for c in m.children(e))


def _sum_target(cond: m.Expr, slot: int):
    """For a condition on subset `slot` that requires `sum(c in slot: value) + rest == target`
    (possibly as one conjunct of an `and`), the sum and the target it must reach; else None."""
    if isinstance(cond, m.Binary) and cond.op == "and":
        return _sum_target(cond.left, slot) or _sum_target(cond.right, slot)
    if not (isinstance(cond, m.Binary) and cond.op == "=="):
        return None
    for side, other in ((cond.left, cond.right), (cond.right, cond.left)):
        if _mentions(other, slot):
            continue
        found = _split_sum(side, slot)
        if found is not None:
            quant, rest = found
            return quant, other if rest is None else m.Binary("-", other, rest, m.INT)
    return None


def _split_sum(e: m.Expr, slot: int):
    """`e` as `sum(c in slot: value) + rest`: (the sum, rest or None), when it has that shape."""
    if isinstance(e, m.Quant):
        b = e.binder
        if (e.kind == "sum" and isinstance(b.iter, core.CardsOf) and isinstance(b.iter.cards, m.Local)
                and b.iter.cards.slot == slot and b.cond is None and not _mentions(e.body, slot)):
            return e, None
        return None
    if isinstance(e, m.Binary) and e.op in ("+", "-"):
        left = _split_sum(e.left, slot) if not _mentions(e.right, slot) else None
        if left is not None:
            quant, rest = left
            return quant, m.Binary(e.op, rest if rest is not None else m.Const(0, m.INT), e.right, m.INT)
        if e.op == "+" and not _mentions(e.left, slot):
            right = _split_sum(e.right, slot)
            if right is not None:
                quant, rest = right
                return quant, e.left if rest is None else m.Binary("+", e.left, rest, m.INT)
    return None
