"""The symbolic fragment: one game configuration as a guarded-command system over integer slots.

A configuration (a player count and a choice of options) lies in the fragment when:

- its state is integers: variables (shared or per player), token supplies and holdings, how many
  copies of each card kind each zone holds (order forgotten; a zone laid out on a board has one count
  per position, as a per-player zone has one per seat), who has won and whether the game is over;
- its flow is straight-line set-up statements, then `loop { A; choose ...; B }` (or one `choose`
  followed by straight-line statements, after which the game is over), with no other decision;
- every statement the flow and the actions run is straight-line: set/add/subtract, take/return,
  if, let, `for` over a finite domain (unrolled), a procedure call (inlined), move of a given card kind,
  of all cards or of the first matching kind out of an unordered zone, reveal, win, end game.

A position of a board is the integer the engine uses: (row - 1) * columns + column - 1, so positions
run row by row from 0, and a choice over positions has the engine's action numbering.

Anything else (chance, shuffles, the top of a stack, turns, rounds, triggers, `the` over the cards of
a stack, model nodes this module does not know) raises `Unsupported` naming the construct and where it
is, and the caller reports `unknown`. Translation never guesses.

The system is built from the core IR of the configuration alone (`rulekit.lower`); the engine is used
only to name actions (their ids) when a witness is replayed (`verify.replay`). Expressions become the
terms of `verify.terms`, folded as they are built.

A command is one action with concrete binder values: a guard (the binders' conditions and `when`, over
the state before), an error condition (a rule the engine would refuse: a variable leaving its range, a
card taken from a zone without one), and for each slot it changes, its new value. Its effect is the
action's body, then the statements after the choice, then, unless the game ended, the statements
before the next choice.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from .. import model as m
from ..lower import Config, core
from . import Unsupported, budget
from .terms import (COMPARISONS, FALSE, TRUE, Command, Slot, System, and_, arith, compare, const, is_bool, ite, neg,
                    not_, or_)

# The nodes whose value is a function of their operands and the configuration alone: a definition
# built of these reads no slot, so its value for constant arguments is the same on every store.
_STATELESS = (m.Const, m.Local, m.Attr, m.Unary, m.Binary, m.IfExpr, m.Quant, m.Binder, m.DefineCall,
              core.PlayerCount, core.Smaller, core.Larger, core.Abs, core.Near, core.Neighbour, core.Seat,
              core.Members, core.Positions, core.Items, core.Numbers)


@dataclass
class Store:
    vals: list
    halted: tuple = FALSE
    error: tuple = FALSE

    def copy(self) -> Store:
        return Store(list(self.vals), self.halted, self.error)


def where(node) -> str:
    span = getattr(node, "span", None)
    return f" at {span}" if span is not None else ""


class Builder:
    """Translates the core IR of one configuration (facts and options already folded)."""

    def __init__(self, config: Config):
        game = config.game
        self.config = config
        self.g, self.n, self.options = game, config.players, dict(config.options)
        self.vars = {v.name: v for v in game.vars}
        self.zones = {z.name: z for z in game.zones}
        self.tokens = {t.name: t for t in game.tokens}
        self.enums = {e.name: e for e in game.enums}
        self.defines = {d.name: d for d in game.defines}
        self.procs = {p.name: p for p in game.procedures}
        self.kinds = {c.name: i for i, c in enumerate(game.components)}
        self.direction = 1 if game.order == "clockwise" else -1
        self.reverses = m.reverses_order(game)  # the direction of play can turn: the fragment keeps it static
        self.no_player = m.uses_no_player(game)  # a player value may be `none` (-1)
        self.depth = 0
        self._stateless: dict[str, bool] = {}
        self._stateless_values: dict[tuple, tuple] = {}  # (name, *arguments) -> (value, refused)
        self._attr_values: dict[str, list] = {}  # attribute -> its value per card kind (`attr_values`)
        self._check_declarations()
        self.counts = list(config.component_counts)
        self.slots: list[Slot] = []
        self.at: dict[tuple, int] = {}
        self.init: list[int] = []
        self._layout()

    # ---- what the fragment refuses up front
    def _check_declarations(self) -> None:
        g = self.g
        if g.triggers:
            raise Unsupported(f"trigger {g.triggers[0].name}{where(g.triggers[0])}")
        if self.reverses:
            raise Unsupported("`reverse order` (the direction of play changes during the game)")

    def static(self, e: m.Expr, what: str) -> int:
        value = self.ev(e, Store([]), {})
        if value[0] not in ("c", "b"):
            raise Unsupported(f"{what} is not known before play{where(e)}")
        return int(value[1])

    def _slot(self, key, name, low, high, init, seat=None) -> None:
        self.at[key] = len(self.slots)
        self.slots.append(Slot(key, name, low, high, seat))
        self.init.append(int(init))

    def _layout(self) -> None:
        n = self.n
        for v in self.g.vars:
            t = v.type
            if t == m.BOOL:
                low, high = 0, 1
            elif t.kind == "enum":
                low, high = 0, len(self.enums[t.enum].members) - 1
            elif t.kind == "player":
                low, high = (-1 if self.no_player else 0), n - 1
            elif t.kind == "card":
                low, high = 0, len(self.counts) - 1
            elif t.kind == "int":
                low = self.static(v.low, f"the range of {v.name}") if v.low is not None else None
                high = self.static(v.high, f"the range of {v.name}") if v.high is not None else None
            else:
                raise Unsupported(f"variable {v.name} of type {t}{where(v)}")
            init = self.static(v.init, f"the initial value of {v.name}")
            for p in (range(n) if v.per_player else [None]):
                self._slot(("var", v.name, p), v.name if p is None else f"{v.name}[{p}]", low, high, init, p)
        for t in self.g.tokens:
            total = self.static(t.count, f"the supply of {t.name}")
            cap = self.static(t.cap, f"the cap of {t.name}") if t.cap is not None else None
            self._slot(("supply", t.name), f"supply({t.name})", 0, max(0, total), total)
            for p in range(n):
                self._slot(("held", t.name, p), f"{t.name}[{p}]", 0, max(0, min(total, cap) if cap is not None else total),
                           0, p)
        initial = next((z.name for z in self.g.zones if z.initial), None)
        for z in self.g.zones:
            for p in self.instances(z):
                index_name = "" if p is None else f"[{p}]" if z.per_player else self.position_name(z.per_board, p)
                for k, c in enumerate(self.g.components):
                    # the engine puts the cards in the first instance of the initial zone
                    start = self.counts[k] if z.name == initial and p in (None, 0) else 0
                    self._slot(("zone", z.name, p, k), f"{z.name}{index_name}:{c.name}", 0,
                               max(0, self.counts[k]), start, p if z.per_player else None)
        self._slot(("over",), "over", 0, 1, 0)
        for p in range(n):
            self._slot(("winner", p), f"winner[{p}]", 0, 1, 0, p)

    # ---- boards: a position is the engine's integer, row by row from 0
    def board_size(self, board: str) -> tuple[int, int]:
        """(rows, columns) of a board in this configuration."""
        return self.config.board_sizes[board]

    def positions(self, board: str) -> int:
        rows, columns = self.board_size(board)
        return rows * columns

    def position_name(self, board: str, p: int) -> str:
        """`[row,column]`, as the engine names a zone instance on a board."""
        columns = self.board_size(board)[1]
        return f"[{p // columns + 1},{p % columns + 1}]"

    def instances(self, z: m.ZoneDecl):
        """A zone's instances: its seats, its positions on a board, or the one shared (None)."""
        if z.per_player:
            return range(self.n)
        if z.per_board is not None:
            return range(self.positions(z.per_board))
        return [None]

    # ---- reading and writing slot families at a possibly symbolic seat (or position)
    def family(self, prefix: tuple, per_player: bool) -> list[int]:
        """The slots of ('var', name) or ('zone', name, kind): one per seat, or the one shared; a zone
        laid out on a board has one per position."""
        key = (prefix, per_player)
        memo = self.__dict__.setdefault("_families", {})
        if key not in memo:
            zone = self.zones.get(prefix[1]) if prefix[0] == "zone" else None
            seats = (self.instances(zone) if zone is not None and zone.per_board is not None
                     else range(self.n) if per_player else [None])
            memo[key] = [self.at[(*prefix[:2], p, *prefix[2:])] for p in seats]
        return memo[key]

    def by_seat(self, slots: list[int]) -> bool:
        """Whether a family is indexed by seats (a position of a board is never `none`)."""
        return self.slots[slots[0]].seat is not None

    def read(self, st: Store, slots: list[int], seat):
        if len(slots) == 1:
            return st.vals[slots[0]]
        if self.by_seat(slots):
            self.fail_if_no_seat(st, seat)
        if seat[0] == "c":
            if not 0 <= seat[1] < len(slots):  # `none` (or no seat of the table): the engine's rule error
                self.fail_if(st, TRUE)
                return const(0)
            return st.vals[slots[seat[1]]]
        out = st.vals[slots[-1]]
        for p in range(len(slots) - 2, -1, -1):
            out = ite(compare("==", seat, const(p)), st.vals[slots[p]], out)
        return out

    def write(self, st: Store, slots: list[int], seat, new_value) -> None:
        """new_value(old) -> new; only where the seat matches, and only while the game goes on."""
        if len(slots) > 1:
            if self.by_seat(slots):
                self.fail_if_no_seat(st, seat)
            if seat[0] == "c" and not 0 <= seat[1] < len(slots):
                self.fail_if(st, TRUE)
                return
        targets = [(TRUE, slots[0])] if len(slots) == 1 else (
            [(TRUE, slots[seat[1]])] if seat[0] == "c" else [(compare("==", seat, const(p)), s) for p, s in enumerate(slots)])
        for cond, slot in targets:
            old = st.vals[slot]
            st.vals[slot] = ite(and_(cond, not_(st.halted)), new_value(old), old)

    def fail_if_no_seat(self, st: Store, seat) -> None:
        """`none` where a seat is needed is a rule error in the engine; here too."""
        if self.no_player and seat is not None and seat[0] != "c":
            self.fail_if(st, compare("<", seat, const(0)))

    def fail_if(self, st: Store, cond) -> None:
        st.error = or_(st.error, and_(not_(st.halted), cond))

    # ---- expressions
    def ev(self, e, st: Store, env: dict):
        budget.tick()
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise Unsupported(f"expression {type(e).__name__}{where(e)}")
        return method(e, st, env)

    def e_Const(self, e, st, env):
        if e.type == m.CARD:
            return const(self.kinds[e.name])
        if e.type == m.BOOL:
            return ("b", bool(e.value))
        return const(e.value)

    @contextmanager
    def _nested(self, limit: int, why: str):
        """One level into a fact, a definition or a procedure; deeper than `limit` means recursion."""
        self.depth += 1
        try:
            if self.depth > limit:
                raise Unsupported(why)
            yield
        finally:
            self.depth -= 1

    def e_Local(self, e, st, env):
        if e.slot not in env:
            raise Unsupported(f"local {e.name}{where(e)}")
        return env[e.slot]

    def e_VarRef(self, e, st, env):
        decl = self.vars.get(e.var)
        if decl is None:
            raise Unsupported(f"variable {e.var}{where(e)}")
        seat = self.ev(e.player, st, env) if e.player is not None else None
        value = self.read(st, self.family(("var", e.var), decl.per_player), seat)
        return compare("!=", value, const(0)) if decl.type == m.BOOL else value

    def e_ZoneRef(self, e, st, env):
        decl = self.zones.get(e.zone)
        if decl is None:
            raise Unsupported(f"zone {e.zone}{where(e)}")
        seat = self.ev(e.player, st, env) if e.player is not None else None
        return ("zone", e.zone, seat)

    def count_slots(self, zone, k: int) -> list[int]:
        return self.family(("zone", zone[1], k), self.zones[zone[1]].per_player)

    def zone_count(self, st, zone, k: int):
        return self.read(st, self.count_slots(zone, k), zone[2])

    # ---- builtins, each a node of the core IR
    def e_Current(self, e, st, env):
        return const(0)  # nothing in the fragment changes whose turn it is

    def e_Size(self, e, st, env):
        zone = self.ev(e.of, st, env)
        if zone[0] != "zone":
            raise Unsupported(f"the size of a set of cards{where(e)}")
        return _sum([self.zone_count(st, zone, k) for k in range(len(self.counts))])

    def e_Supply(self, e, st, env):
        return st.vals[self.at[("supply", e.token)]]

    def e_Held(self, e, st, env):
        seat = self.ev(e.player, st, env)
        return self.read(st, [self.at[("held", e.token, p)] for p in range(self.n)], seat)

    def e_Smaller(self, e, st, env):
        return arith("min", self.ev(e.a, st, env), self.ev(e.b, st, env))

    def e_Larger(self, e, st, env):
        return arith("max", self.ev(e.a, st, env), self.ev(e.b, st, env))

    def e_Abs(self, e, st, env):
        a = self.ev(e.of, st, env)
        return ite(compare(">=", a, const(0)), a, neg(a))

    def e_Neighbour(self, e, st, env):
        player = self.ev(e.player, st, env)
        self.fail_if_no_seat(st, player)
        return self.seats_on(st, player, e.step)

    def seats_on(self, st, seat, places: int):
        """The seat `places` seats on from `seat` in the direction of play (here fixed)."""
        return arith("mod", arith("+", seat, const(self.direction * places)), const(self.n))

    def e_Seat(self, e, st, env):
        a = self.ev(e.number, st, env)
        if a[0] == "c" and not 0 <= a[1] < self.n:
            self.fail_if(st, TRUE)  # the engine refuses it when play gets here
            return const(0)
        if a[0] != "c":  # the engine refuses a seat outside the table
            self.fail_if(st, or_(compare("<", a, const(0)), compare(">=", a, const(self.n))))
        return a

    def e_Near(self, e, st, env):
        """`adjacent` (diagonals too) or `orthogonal`, as the engine's neighbour tables say."""
        a, b = self.ev(e.a, st, env), self.ev(e.b, st, env)
        columns = self.board_size(e.board)[1]
        if a[0] != "c" and b[0] == "c":
            a, b = b, a  # next to each other is symmetric
        if a[0] == "c":
            return or_(*(compare("==", b, const(q)) for q in self.neighbours(e.board, a[1], e.diagonal)))
        rows = [arith("div", x, const(columns)) for x in (a, b)]
        cols = [arith("mod", x, const(columns)) for x in (a, b)]
        dr, dc = arith("-", rows[0], rows[1]), arith("-", cols[0], cols[1])
        if e.diagonal:
            return and_(compare("!=", a, b), compare("<=", dr, const(1)), compare(">=", dr, const(-1)),
                        compare("<=", dc, const(1)), compare(">=", dc, const(-1)))
        one = [or_(compare("==", d, const(1)), compare("==", d, const(-1))) for d in (dr, dc)]
        return or_(and_(compare("==", dr, const(0)), one[1]), and_(compare("==", dc, const(0)), one[0]))

    def neighbours(self, board: str, p: int, diagonal: bool) -> list[int]:
        rows, columns = self.board_size(board)
        if not 0 <= p < rows * columns:
            raise Unsupported(f"position {p} outside board {board}")
        r, c = divmod(p, columns)
        out = []
        for q in range(rows * columns):
            dr, dc = abs(q // columns - r), abs(q % columns - c)
            if (q != p and dr <= 1 and dc <= 1) if diagonal else dr + dc == 1:
                out.append(q)
        return out

    def e_Attr(self, e, st, env):
        if e.target.type.kind == "pos" and e.attr in ("row", "column"):
            columns = self.board_size(e.target.type.enum)[1]
            at = self.ev(e.target, st, env)
            return arith("+", arith("div" if e.attr == "row" else "mod", at, const(columns)), const(1))
        if e.target.type != m.CARD:
            raise Unsupported(f"attribute {e.attr} of a {e.target.type}{where(e)}")
        card = self.ev(e.target, st, env)
        values = self.attr_values(e.attr)
        if card[0] == "c":
            return values[card[1]]
        out = values[-1]
        for k in range(len(values) - 2, -1, -1):
            out = ite(compare("==", card, const(k)), values[k], out)
        return out

    def attr_values(self, attr: str) -> list:
        """The value of attribute `attr` for each card kind, in kind order (computed once: an attribute
        is read for every kind of every condition about a card)."""
        memo = self._attr_values
        if attr not in memo:
            decl = next((a for a in self.g.attrs if a.name == attr), None)
            default = -1 if decl is not None and decl.type.kind == "enum" else 0
            memo[attr] = [self.ev(given, Store([]), {}) if (given := dict(c.attrs).get(attr)) is not None
                          else const(default) for c in self.g.components]
        return memo[attr]

    def e_Unary(self, e, st, env):
        a = self.ev(e.operand, st, env)
        return not_(a) if e.op == "not" else neg(a)

    def e_Binary(self, e, st, env):
        op = e.op
        if op in ("and", "or"):  # the engine reads the right side only when the left does not decide
            a = self.ev(e.left, st, env)
            b = self.guarded(st, a if op == "and" else not_(a), lambda: self.ev(e.right, st, env))
            return and_(a, b) if op == "and" else or_(a, b)
        a, b = self.ev(e.left, st, env), self.ev(e.right, st, env)
        if op in COMPARISONS:
            if is_bool(a) or is_bool(b):
                if op not in ("==", "!="):
                    raise Unsupported(f"ordering of conditions{where(e)}")
                same = or_(and_(a, b), and_(not_(a), not_(b)))
                return same if op == "==" else not_(same)
            return compare(op, a, b)
        if op in ("+", "-", "*"):
            return arith(op, a, b)
        if op in ("/", "%"):
            # Python floors; Z3's div and mod agree with it only for a positive divisor.
            if b[0] != "c" or b[1] <= 0:
                raise Unsupported(f"{op} by a number that is not a positive constant{where(e)}")
            return arith("div" if op == "/" else "mod", a, b)
        raise Unsupported(f"operator {op}{where(e)}")

    def e_IfExpr(self, e, st, env):
        c = self.ev(e.cond, st, env)
        return ite(c, self.guarded(st, c, lambda: self.ev(e.then, st, env)),
                   self.guarded(st, not_(c), lambda: self.ev(e.orelse, st, env)))

    def guarded(self, st, cond, compute):
        """`compute()`, with the rule errors it meets counted only where `cond` holds: the engine
        evaluates that part of an expression only there (`a and b` reads b only where a holds)."""
        if cond == TRUE:
            return compute()
        before, st.error = st.error, FALSE
        try:
            return compute()
        finally:
            met, st.error = st.error, before
            if met != FALSE:
                st.error = or_(before, and_(cond, met))

    def e_DefineCall(self, e, st, env):
        d = self.defines.get(e.define)
        if d is None:
            raise Unsupported(f"definition {e.define}{where(e)}")
        with self._nested(50, f"recursive definition {e.define}{where(e)}"):
            return self.define_value(d, [self.ev(a, st, env) for a in e.args], st)

    def define_value(self, d: m.Define, args: list, st: Store):
        """A definition's value for these arguments on this store. A definition that reads no slot is
        worked out once for each tuple of constant arguments, on a store of its own, with the condition
        under which the engine refuses it, which every call then adds to its own store's error."""
        env = {p.slot: a for p, a in zip(d.params, args)}
        if not (self.stateless(d.name) and all(a[0] in ("c", "b") for a in args)):
            return self.ev(d.body, st, env)
        key = (d.name, *args)
        known = self._stateless_values.get(key)
        if known is None:
            blank = self.blank_store()
            known = self._stateless_values[key] = (self.ev(d.body, blank, env), blank.error)
        value, refused = known
        if refused != FALSE:
            self.fail_if(st, refused)
        return value

    def blank_store(self) -> Store:
        """A store with no slots, running, without error: for what reads no slot."""
        return Store([])

    def stateless(self, name: str) -> bool:
        """Whether definition `name` reads nothing of the state (nor any definition that does)."""
        known = self._stateless.get(name)
        if known is None:
            self._stateless[name] = False  # a recursive definition is not taken as stateless
            d = self.defines[name]
            known = all(isinstance(x, _STATELESS) and (not isinstance(x, m.DefineCall) or self.stateless(x.define))
                        or (isinstance(x, core.Seats) and x.start is None)
                        for x in m.nodes(d.body))
            self._stateless[name] = known
        return known

    # ---- finite domains: (value, present) pairs, `present` a condition (a card kind in the zone)
    def domain(self, it: core.Domain, st, env) -> list[tuple]:
        if isinstance(it, core.Seats):
            if it.start is None:  # every player from seat 0 upwards, as the engine counts them
                return [(const(p), TRUE) for p in range(self.n)]
            s = self.ev(it.start, st, env)
            if s[0] != "c":
                raise Unsupported(f"players from a seat not known before play{where(it.start)}")
            return [(const((s[1] + self.direction * i) % self.n), TRUE) for i in range(self.n)]
        if isinstance(it, core.Members):
            return [(const(i), TRUE) for i in range(len(self.enums[it.enum].members))]
        if isinstance(it, core.Numbers):
            lo, hi = self.ev(it.low, st, env), self.ev(it.high, st, env)
            if lo[0] != "c" or hi[0] != "c":
                raise Unsupported(f"a range whose bounds are not known before play{where(it.low)}")
            return [(const(v), TRUE) for v in range(lo[1], hi[1] + 1)]
        if isinstance(it, core.Positions):
            return [(const(p), TRUE) for p in range(self.positions(it.board))]
        if isinstance(it, core.Items):
            return [(self.ev(x, st, env), TRUE) for x in it.items]
        if isinstance(it, (core.CardsIn, core.CardsInEvery)):
            zones = ([("zone", it.family, const(p)) for p in self.instances(self.zones[it.family])]
                     if isinstance(it, core.CardsInEvery) else [self.ev(it.zone, st, env)])
            if any(z[0] != "zone" for z in zones):
                raise Unsupported("cards of something that is not a zone")
            return [(const(k), _sum([self.zone_count(st, z, k) for z in zones]))
                    for k in range(len(self.counts))]
        raise Unsupported(f"iteration over {type(it).__name__}")

    def e_Quant(self, e, st, env):
        b = e.binder
        if e.kind == "the":
            return self.the(e, st, env)
        if e.kind in ("max", "min", "argmax", "argmin"):
            return self.aggregate(e, st, env)
        cards = isinstance(b.iter, (core.CardsIn, core.CardsInEvery))
        terms = []
        before, st.error = st.error, FALSE  # the errors the conditions meet, held back (see below)
        try:
            for value, amount in self.domain(b.iter, st, env):
                inner = {**env, b.slot: value}
                # the engine goes through the cards a zone holds: a kind it lacks is never looked at
                in_zone = compare(">", amount, const(0)) if cards else TRUE
                cond = self.guarded(st, in_zone, lambda i=inner: self.ev(b.cond, st, i)) if b.cond is not None else TRUE
                present = and_(in_zone, cond)
                terms.append((inner, cond, present, amount))
            if e.kind == "forall":
                bodies = [self.guarded(st, p, lambda i=inner: self.ev(e.body, st, i)) for inner, _, p, _ in terms]
        finally:
            met, st.error = st.error, before
        if e.kind in ("exists", "forall"):
            # The engine stops at the first element that decides, in an order not modelled here: the
            # errors count only where none decides, so that every element is read (an under-approximation
            # of the engine's errors, which keeps every step it takes).
            result = (or_(*(p for _, _, p, _ in terms)) if e.kind == "exists"
                      else and_(*(or_(not_(p), body) for (_, _, p, _), body in zip(terms, bodies))))
            undecided = not_(result) if e.kind == "exists" else result
            if met != FALSE:
                st.error = or_(before, and_(undecided, met))
            return result
        if met != FALSE:
            st.error = or_(before, met)
        if e.kind == "count":
            return _sum([ite(c, amount if cards else const(1), const(0)) for _, c, _, amount in terms])
        if e.kind == "sum":
            # Over cards the engine adds the body once per copy.
            bodies = [self.guarded(st, p, lambda i=inner: self.ev(e.body, st, i)) for inner, _, p, _ in terms]
            return _sum([ite(p, arith("*", amount, body) if cards else body, const(0))
                         for (_, _, p, amount), body in zip(terms, bodies)])
        raise Unsupported(f"quantifier {e.kind}{where(e)}")

    def the(self, e, st, env):
        """`the(x in D where c)`: the first element of D that meets c, in the engine's order (a zone
        of cards that is a set is kept sorted: its first card is the smallest kind it holds; `every Z`
        goes through Z's instances in order); the engine refuses when there is none."""
        b = e.binder
        if isinstance(b.iter, (core.CardsIn, core.CardsInEvery)):
            # Every copy, zone after zone (the instances of a family in order), each zone's cards in its order.
            zones = ([("zone", b.iter.family, const(p)) for p in self.instances(self.zones[b.iter.family])]
                     if isinstance(b.iter, core.CardsInEvery) else [self.ev(b.iter.zone, st, env)])
            if any(z[0] != "zone" or self.zones[z[1]].shape != "set" for z in zones):
                raise Unsupported(f"the first card of a stack{where(e)}")
            conds = [self.ev(b.cond, st, {**env, b.slot: const(k)}) if b.cond is not None else TRUE
                     for k in range(len(self.counts))]
            found = [(and_(compare(">", self.zone_count(st, z, k), const(0)), conds[k]), const(k))
                     for z in zones for k in range(len(self.counts)) if conds[k] != FALSE]
        else:
            found = [(self.ev(b.cond, st, {**env, b.slot: value}) if b.cond is not None else TRUE, value)
                     for value, _ in self.domain(b.iter, st, env)]
        self.fail_if(st, not_(or_(*(p for p, _ in found))))
        out = const(0)
        for present, value in reversed(found):
            out = ite(present, value, out)
        return out

    def aggregate(self, e, st, env):
        """max/min, or the first element with the largest/smallest value (argmax/argmin), over the
        values of the domain that are present and meet the condition; the engine refuses an empty one."""
        b = e.binder
        larger = ">" if e.kind in ("max", "argmax") else "<"
        best, arg, found = const(0), const(0), FALSE
        for value, amount in self.domain(b.iter, st, env):
            inner = {**env, b.slot: value}
            present = self.ev(b.cond, st, inner) if b.cond is not None else TRUE
            if isinstance(b.iter, (core.CardsIn, core.CardsInEvery)):
                present = and_(compare(">", amount, const(0)), present)
            v = self.ev(e.body, st, inner)
            better = and_(present, or_(not_(found), compare(larger, v, best)))
            best, arg, found = ite(better, v, best), ite(better, value, arg), or_(found, present)
        self.fail_if(st, not_(found))
        return arg if e.kind.startswith("arg") else best

    # ---- statements
    def run(self, stmts, st: Store, env: dict) -> None:
        budget.tick()
        for s in stmts:
            if st.halted == TRUE:
                return
            method = getattr(self, "s_" + type(s).__name__, None)
            if method is None:
                raise Unsupported(f"the `{m.keyword(s)}` statement{where(s)}")
            method(s, st, env)

    def s_Rule(self, s, st, env):
        self.run(s.body, st, env)

    def s_Reveal(self, s, st, env):
        # what players see is no part of the state; one card shown must be in its zone
        if s.card is None:
            return
        zone, card = self.ev(s.zone, st, env), self.ev(s.card, st, env)
        if zone[0] != "zone":
            raise Unsupported(f"a card revealed from something that is not a zone{where(s)}")
        for k in range(len(self.counts)):
            here = compare("==", card, const(k)) if card[0] != "c" else ("b", card[1] == k)
            if here != FALSE:
                self.fail_if(st, and_(here, compare("<=", self.zone_count(st, zone, k), const(0))))

    def s_Announce(self, s, st, env):
        pass  # a statement players hear changes nothing, true or not

    def s_CheckTriggers(self, s, st, env):
        pass  # a place where triggers may fire: a stop of the counts abstraction, where they are segments

    def s_Let(self, s, st, env):
        env[s.slot] = self.ev(s.value, st, env)

    def s_Assign(self, s, st, env):
        decl = self.vars.get(s.var)
        if decl is None:
            raise Unsupported(f"variable {s.var}{where(s)}")
        seat = self.ev(s.player, st, env) if s.player is not None else None
        value = self.ev(s.value, st, env)
        slots = self.family(("var", s.var), decl.per_player)
        if decl.type == m.BOOL:
            flag = ite(value, const(1), const(0))
            self.write(st, slots, seat, lambda old: flag)
            return
        if s.op == "=":
            def new(old):
                return value
        else:
            def new(old):
                return arith(s.op, old, value)
        slot = self.slots[slots[0]]
        if decl.low is not None and decl.high is not None:
            after = new(self.read(st, slots, seat))
            self.fail_if(st, or_(compare("<", after, const(slot.low)), compare(">", after, const(slot.high))))
        self.write(st, slots, seat, new)

    def s_TokenMove(self, s, st, env):
        decl = self.tokens[s.token]
        seat = self.ev(s.player, st, env)
        amount = self.ev(s.amount, st, env)
        supply = self.at[("supply", s.token)]
        held = [self.at[("held", s.token, p)] for p in range(self.n)]
        have = self.read(st, held, seat)
        if s.to_player:
            room = arith("min", amount, st.vals[supply])
            if decl.cap is not None:
                cap = self.static(decl.cap, f"the cap of {s.token}")
                room = arith("min", room, arith("-", const(cap), have))
            moved = arith("max", const(0), room)
            st.vals[supply] = ite(st.halted, st.vals[supply], arith("-", st.vals[supply], moved))
            self.write(st, held, seat, lambda old: arith("+", old, moved))
        else:
            moved = arith("max", const(0), arith("min", amount, have))
            st.vals[supply] = ite(st.halted, st.vals[supply], arith("+", st.vals[supply], moved))
            self.write(st, held, seat, lambda old: arith("-", old, moved))

    def s_TokenPass(self, s, st, env):
        decl = self.tokens[s.token]
        source, dest = self.ev(s.source, st, env), self.ev(s.dest, st, env)
        amount = self.ev(s.amount, st, env)
        held = [self.at[("held", s.token, p)] for p in range(self.n)]
        moved = arith("min", amount, self.read(st, held, source))
        if decl.cap is not None:
            cap = self.static(decl.cap, f"the cap of {s.token}")
            moved = arith("min", moved, arith("-", const(cap), self.read(st, held, dest)))
        moved = arith("max", const(0), moved)
        self.write(st, held, source, lambda old: arith("-", old, moved))
        self.write(st, held, dest, lambda old: arith("+", old, moved))

    def s_If(self, s, st, env):
        branches = [(self.ev(c, st, env), body) for c, body in s.branches]
        self._if(branches, s.orelse, st, env)

    def _if(self, branches, orelse, st, env):
        if not branches:
            self.run(orelse, st, env)
            return
        (cond, body), rest = branches[0], branches[1:]
        if cond[0] == "b":
            self.run(body, st, self.branch_env(env)) if cond[1] else self._if(rest, orelse, st, env)
            return
        then, other = self.split(st, cond)
        self.run(body, then, self.branch_env(env))
        self._if(rest, orelse, other, self.branch_env(env))
        self.merge(st, cond, then, other)

    def branch_env(self, env: dict) -> dict:
        """The locals a branch starts from: a copy, since its own `let`s end with it."""
        return dict(env)

    def split(self, st: Store, cond) -> tuple[Store, Store]:
        """The stores of the two sides of a branch on `cond`."""
        return st.copy(), st.copy()

    def merge(self, st: Store, cond, then: Store, other: Store) -> None:
        """`st` becomes `then` where `cond` holds and `other` elsewhere."""
        st.vals = [ite(cond, a, b) for a, b in zip(then.vals, other.vals)]
        st.halted = ite(cond, then.halted, other.halted)
        st.error = ite(cond, then.error, other.error)

    def s_For(self, s, st, env):
        b = s.binder
        if b.cond is not None:
            raise Unsupported(f"a `for` with a condition{where(s)}")
        cards = isinstance(b.iter, (core.CardsIn, core.CardsInEvery))
        # The engine takes the domain once, before the first round.
        for value, amount in self.domain(b.iter, st, env):
            inner = {**env, b.slot: value}
            if cards:
                self._if([(compare(">", amount, const(0)), s.body)], (), st, inner)
            else:
                self.run(s.body, st, inner)

    def s_Do(self, s, st, env):
        proc = self.procs.get(s.procedure)
        if proc is None:
            raise Unsupported(f"procedure {s.procedure}{where(s)}")
        with self._nested(30, f"recursive procedure {s.procedure}{where(s)}"):
            self.call(s, proc, st, env, {p.slot: self.ev(a, st, env) for p, a in zip(proc.params, s.args)})

    def call(self, s: m.Do, proc: m.Procedure, st: Store, env: dict, inner: dict) -> None:
        """A procedure's body, inlined, with its parameters bound in `inner`."""
        self.run(proc.body, st, inner)

    def s_Win(self, s, st, env):
        winners = [self.at[("winner", p)] for p in range(self.n)]
        if s.player is None:
            for w in winners:
                st.vals[w] = ite(st.halted, st.vals[w], const(1))
        else:
            self.write(st, winners, self.ev(s.player, st, env), lambda old: const(1))

    def s_End(self, s, st, env):
        if s.what != "game":
            raise Unsupported(f"end {s.what}{where(s)}")
        over = self.at[("over",)]
        st.vals[over] = ite(st.halted, st.vals[over], const(1))
        st.halted = TRUE

    def s_Move(self, s, st, env):
        sel = s.selector
        src, dst = self.ev(s.source, st, env), self.ev(s.dest, st, env)
        if src[0] != "zone" or dst[0] != "zone":
            raise Unsupported(f"move between things that are not zones{where(s)}")
        kinds = range(len(self.counts))
        if isinstance(sel, core.GivenCard):
            if sel.card.type == m.CARDS:
                raise Unsupported(f"a move of a set of cards{where(s)}")
            card = self.ev(sel.card, st, env)
            for k in kinds:
                here = compare("==", card, const(k)) if card[0] != "c" else ("b", card[1] == k)
                if here == FALSE:
                    continue
                self.fail_if(st, and_(here, compare("<=", self.zone_count(st, src, k), const(0))))
                self._move(st, src, dst, k, lambda have, h=here: ite(h, const(1), const(0)))
            return
        if isinstance(sel, core.AllCards):
            for k in kinds:
                take = TRUE if sel.cond is None else self.ev(sel.cond, st, {**env, sel.slot: const(k)})
                self._move(st, src, dst, k, lambda have, t=take: ite(t, have, const(0)))
            return
        if isinstance(sel, core.FirstCard) and sel.cond is not None and self.zones[src[1]].shape == "set":
            # The first matching card of an unordered zone is the smallest matching kind it holds.
            taken = FALSE
            for k in kinds:
                cond = TRUE if sel.cond is None else self.ev(sel.cond, st, {**env, sel.slot: const(k)})
                this = and_(not_(taken), cond, compare(">", self.zone_count(st, src, k), const(0)))
                self._move(st, src, dst, k, lambda have, t=this: ite(t, const(1), const(0)))
                taken = or_(taken, this)
            return
        what = {core.TopCard: "top", core.BottomCard: "bottom", core.FirstCard: "first matching"}.get(type(sel), "one")
        raise Unsupported(f"move of the {what} card{' of a stack' if isinstance(sel, core.FirstCard) else ''}{where(s)}")

    def _move(self, st, src, dst, k, amount) -> None:
        have = self.zone_count(st, src, k)
        n = amount(have)
        if n == const(0):
            return
        self.write(st, self.count_slots(src, k), src[2], lambda old: arith("-", old, n))
        self.write(st, self.count_slots(dst, k), dst[2], lambda old: arith("+", old, n))

    # ---- the flow
    def build(self) -> System:
        setup, before, choose, after, loops = flow_shape(self.g, lambda st: hasattr(self, "s_" + type(st).__name__))
        start = Store([const(v) for v in self.init])
        self.run([*setup, *before], start, {})
        if start.error != FALSE or not all(v[0] == "c" for v in start.vals):
            raise Unsupported("a set-up that the fragment cannot evaluate before play")
        init = [v[1] for v in start.vals]
        over = self.at[("over",)]
        symbolic = [("s", i) for i in range(len(self.slots))]
        commands = []
        for ai, action in enumerate(choose.actions):
            for values in self._combos(action, Store(symbolic), {}):
                env = {b.slot: v for b, (v, _, _) in zip(action.binders, values)}
                guard = and_(compare("==", symbolic[over], const(0)), *(p for _, p, _ in values))
                if action.when is not None:
                    guard = and_(guard, self.ev(action.when, Store(symbolic), env))
                if guard == FALSE:
                    continue
                st = Store(list(symbolic))
                self.run(action.body, st, dict(env))
                self.run(after, st, {})
                if loops:
                    self.run(before, st, {})
                else:
                    st.vals[over] = const(1)
                updates = {i: v for i, v in enumerate(st.vals) if v != ("s", i)}
                combo = tuple(index for _, _, index in values)
                shown = ", ".join(str(v[1]) for v, _, _ in values)
                commands.append(Command(f"{action.name}({shown})" if values else action.name, choose.point, ai, combo,
                                        guard, st.error, updates))
        props = {}
        for kind in ("invariant", "reachable"):
            props[kind] = {}
            for p in self.g.properties:
                if p.kind == kind:
                    value = self.ev(p.expr, Store(symbolic), {})
                    if not is_bool(value):
                        raise Unsupported(f"property {p.name} is not a condition")
                    props[kind][p.name] = value
        return System(self.n, self.options, self.slots, init, commands, props["invariant"], props["reachable"], over)

    def _combos(self, action: m.Action, st, env) -> list:
        """Every assignment of the binders: (value, present and condition, domain index) per binder."""
        out = []

        def go(i, env, acc):
            if i == len(action.binders):
                out.append(list(acc))
                return
            b = action.binders[i]
            cards = isinstance(b.iter, (core.CardsIn, core.CardsInEvery))
            low = self.ev(b.iter.low, st, env)[1] if isinstance(b.iter, core.Numbers) else 0
            for position, (value, amount) in enumerate(self.domain(b.iter, st, env)):
                if value[0] not in ("c", "b"):
                    raise Unsupported(f"a choice over values not known before play{where(b)}")
                inner = {**env, b.slot: value}
                cond = self.ev(b.cond, st, inner) if b.cond is not None else TRUE
                present = and_(compare(">", amount, const(0)), cond) if cards else cond
                if present == FALSE:
                    continue
                by_value = isinstance(b.iter, (core.Seats, core.CardsIn, core.CardsInEvery, core.Members, core.Positions))
                index = value[1] if by_value else value[1] - low if isinstance(b.iter, core.Numbers) else position
                go(i + 1, inner, acc + [(value, present, index)])
        go(0, env, [])
        return out



def flow_shape(game: m.Game, straight=lambda st: True):
    """(set-up statements, statements before the choice, the choice, statements after it, loops):
    the flow is set-up, then `loop { before; choose; after }`, or set-up, one choice, then the rest."""
    body = list(game.flow.body)
    for i, s in enumerate(body):
        if not isinstance(s, (m.Loop, m.Choose)) and not straight(s):
            raise Unsupported(f"the `{m.keyword(s)}` statement{where(s)} in the flow (the fragment's flow is "
                              "set-up, then `loop { ... choose ... }`)")
        if isinstance(s, m.Loop):
            if s.cond is not None:
                raise Unsupported(f"a `while` around the decisions{where(s)}")
            inner = list(s.body)
            chooses = [j for j, x in enumerate(inner) if isinstance(x, m.Choose)]
            if len(chooses) != 1:
                raise Unsupported(f"a loop with {len(chooses)} decisions at its top level{where(s)}")
            j = chooses[0]
            parts = (body[:i], inner[:j], inner[j], inner[j + 1:], True)
            break
        if isinstance(s, m.Choose):
            parts = (body[:i], [], s, body[i + 1:], False)
            break
    else:
        raise Unsupported("a flow with no decision")
    for stmts in (parts[0], parts[1], parts[3]):
        for st in m.walk(stmts):
            if isinstance(st, (m.Choose, m.Random, m.Loop)):
                raise Unsupported(f"the `{m.keyword(st)}` statement outside the one decision{where(st)}")
    return parts

def _sum(xs):
    out = const(0)
    for x in xs:
        out = arith("+", out, x)
    return out


def build(config: Config) -> System:
    """The configuration as a guarded-command system, or `Unsupported` naming what lies outside."""
    return Builder(config).build()


__all__ = ["Builder", "Store", "where", "build", "flow_shape"]
