"""The expressions of the rule language compiled to Python expressions, for one configuration.

`ExprCodegen` holds what every part of the compiler reads of the configuration (its declarations, the
layout of the state, the constants the generated module will hold) and translates the core IR's
expressions: reads of the state, built-ins, definitions (inlined a few levels deep), quantifiers and
the domains of binders, with the tables of kinds and the remembered loops that make them cheap. The
statements around them are `nativecode` (plain Python) and `codegen` (instructions).
"""
from __future__ import annotations

import functools
import itertools
import re

from .. import model as m
from ..errors import InternalError
from ..lower import Config, core
from . import runtime, sharing, subsets, triggermemo
from .pyscope import free_names
from .slices import by_slices

AGGREGATES = {"max": (True, False), "min": (False, False), "argmax": (True, True), "argmin": (False, True)}
INLINE_DEPTH = 3  # definitions inlined into their callers, this many levels deep
PLAIN_ZONE = re.compile(r"s\.z\[[\w+()\s]*\]")  # a zone picked by arithmetic on names: cheap to read twice
CALL = re.compile(r"\w\(")  # a function called in it: not read twice


def py_name(name: str) -> str:
    """A rule's, procedure's or trigger's name as part of a Python name."""
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)


class ExprCodegen:
    """Python expressions for one configuration, read from its core IR (facts and options already folded)."""

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
        self.direction = 1 if game.order == "clockwise" else -1
        self.order_slot = config.layout.order_slot  # where the direction lives when `reverse order` can turn it
        self.reads_ends = m.reads_stack_ends(game)  # top(Z) or bottom(Z)
        self.no_player = m.uses_no_player(game)  # then a player value may be `none`, checked where a seat is needed
        # every name the compiler makes up (labels, loop guards, the prefixes of inlined definitions)
        # is numbered by this one counter, so that no two collide
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
        table = f"{name.upper()}_{py_name(e.board)}"
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
            values = self.attr_tables().get(f"A_{py_name(number.attr)}", ())
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
        return f"F_{py_name(e.procedure)}(s{''.join(', ' + self.ex(a) for a in e.args)})"

    def x_Attr(self, e):
        if e.target.type.kind == "pos":
            columns = self.board_sizes[e.target.type.enum][1]
            return f"({self.ex(e.target)} // {columns} + 1)" if e.attr == "row" else f"({self.ex(e.target)} % {columns} + 1)"
        return f"A_{py_name(e.attr)}[{self.ex(e.target)}]"

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
            return f"D_{py_name(e.define)}(s{''.join(', ' + a for a in args)})"
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
                self._attr_tables[f"A_{py_name(a.name)}"] = tuple(
                    eval(self.ex(x), {}) if x is not None else default for x in given)  # noqa: S307 - a literal
        return self._attr_tables

    @functools.cached_property
    def state_free_defines(self) -> frozenset[str]:
        """The functions `D_<name>` of the definitions whose value depends on their arguments alone: a
        call of one passes the state `s` but reads nothing of it. Empty in a build with probes, whose
        definitions may record the sites they reach each time they run."""
        if self.probing:
            return frozenset()
        return frozenset(f"D_{py_name(d.name)}" for d in self.g.defines
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


@functools.lru_cache(maxsize=4096)
def _kind_test(cond: str):
    """A kind test compiled once: every configuration of a game asks for the same ones."""
    return compile(cond, "<kind test>", "eval")


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
        if (isinstance(side, m.Local) and side.slot == b.slot and not mentions(other, b.slot)
                and all(isinstance(x, _PLAIN_READS) for x in m.nodes(other))):
            return other
    return None


def mentions(e, slot: int) -> bool:
    """Whether expression `e` reads the local `slot`."""
    if isinstance(e, m.Local):
        return e.slot == slot
    return any(mentions(c, slot) for c in m.children(e))


def _sum_target(cond: m.Expr, slot: int):
    """For a condition on subset `slot` that requires `sum(c in slot: value) + rest == target`
    (possibly as one conjunct of an `and`), the sum and the target it must reach; else None."""
    if isinstance(cond, m.Binary) and cond.op == "and":
        return _sum_target(cond.left, slot) or _sum_target(cond.right, slot)
    if not (isinstance(cond, m.Binary) and cond.op == "=="):
        return None
    for side, other in ((cond.left, cond.right), (cond.right, cond.left)):
        if mentions(other, slot):
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
                and b.iter.cards.slot == slot and b.cond is None and not mentions(e.body, slot)):
            return e, None
        return None
    if isinstance(e, m.Binary) and e.op in ("+", "-"):
        left = _split_sum(e.left, slot) if not mentions(e.right, slot) else None
        if left is not None:
            quant, rest = left
            return quant, m.Binary(e.op, rest if rest is not None else m.Const(0, m.INT), e.right, m.INT)
        if e.op == "+" and not mentions(e.left, slot):
            right = _split_sum(e.right, slot)
            if right is not None:
                quant, rest = right
                return quant, e.left if rest is None else m.Binary("+", e.left, rest, m.INT)
    return None
