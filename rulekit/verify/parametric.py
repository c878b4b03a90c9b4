"""Invariants for every number of players, by induction in Z3 with the player count symbolic.

The fragment here is narrower than `fragment`'s: the state is integers only (variables, shared or
per player, and tokens; no cards), the flow has the same shape (set-up, then a loop around one choice),
action binders range over the players, and bodies are straight-line (set/add/subtract, take/return,
if, let). A per-player family of integers is an array indexed by seat, and every family that a
property sums over (`sum(p in players: X(p))`) carries a ghost variable, its sum: it starts at N times
the initial value and every write of one seat adds the change at that seat, so it equals the sum in
every reachable state without any quantifier over it. Properties become formulas over N, the arrays
and the ghosts (`forall p in players` a bounded quantifier).

`prove` runs Houdini over the invariants: the largest subset that holds initially for every N at
least the fewest players allowed, and that every action preserves together. Anything outside this
fragment is `Unsupported`; a solver timeout leaves an invariant unproven.
"""
from __future__ import annotations

import time

import z3

from .. import model as m
from ..lower import core
from . import Unsupported, budget


def _domain(it) -> str:
    return {core.CardsIn: "cards", core.CardsInEvery: "cards", core.Members: "an enum", core.Positions: "a board",
            core.Items: "a set", core.Numbers: "a range", core.CardsOf: "cards", core.SubsetsOf: "subsets",
            core.Seats: "players from a seat"}.get(type(it), type(it).__name__)


def _where(node) -> str:
    span = getattr(node, "span", None)
    return f" at {span}" if span is not None else ""


class _Encoder:
    def __init__(self, game: m.Game):
        self.g = game
        self.n = z3.Int("N", ctx=budget.context())
        self.vars = {v.name: v for v in game.vars}
        self.tokens = {t.name: t for t in game.tokens}
        self.defines = {d.name: d for d in game.defines}
        self.depth = 0
        self.fresh = 0
        if game.components:
            raise Unsupported("cards (the parametric proof covers integer state only)")
        if game.triggers:
            raise Unsupported(f"trigger {game.triggers[0].name}")
        for v in game.vars:
            if v.type != m.INT:
                raise Unsupported(f"variable {v.name} of type {v.type}")

    # ---- the state: name -> term; a per-player family is (array, ghost sum)
    def state(self, tag: str) -> dict:
        ctx = budget.context()
        ints = z3.IntSort(ctx=ctx)
        out = {}
        for v in self.g.vars:
            if v.per_player:
                out[("var", v.name)] = (z3.Array(f"{v.name}@{tag}", ints, ints), z3.Int(f"sum {v.name}@{tag}", ctx=ctx))
            else:
                out[("var", v.name)] = z3.Int(f"{v.name}@{tag}", ctx=ctx)
        for t in self.g.tokens:
            out[("supply", t.name)] = z3.Int(f"supply {t.name}@{tag}", ctx=ctx)
            out[("held", t.name)] = (z3.Array(f"{t.name}@{tag}", ints, ints), z3.Int(f"sum {t.name}@{tag}", ctx=ctx))
        return out

    def initial(self) -> dict:
        ctx = budget.context()
        ints, zero = z3.IntSort(ctx=ctx), z3.IntVal(0, ctx=ctx)
        out = {}
        for v in self.g.vars:
            init = self.ev(v.init, None, {})
            out[("var", v.name)] = (z3.K(ints, init), self.n * init) if v.per_player else init
        for t in self.g.tokens:
            out[("supply", t.name)] = self.ev(t.count, None, {})
            out[("held", t.name)] = (z3.K(ints, zero), zero)
        return out

    # ---- expressions
    def ev(self, e, st, env):
        budget.tick()
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise Unsupported(f"expression {type(e).__name__}{_where(e)}")
        return method(e, st, env)

    def e_Const(self, e, st, env):
        if e.type == m.BOOL:
            return z3.BoolVal(bool(e.value), ctx=budget.context())
        if e.type not in (m.INT,):
            raise Unsupported(f"a constant of type {e.type}{_where(e)}")
        return z3.IntVal(int(e.value), ctx=budget.context())

    def e_Local(self, e, st, env):
        if e.slot not in env:
            raise Unsupported(f"local {e.name}{_where(e)}")
        return env[e.slot]

    def _state(self, st, e):
        if st is None:
            raise Unsupported(f"a declared number that reads the state{_where(e)}")
        return st

    def e_VarRef(self, e, st, env):
        value = self._state(st, e)[("var", e.var)]
        if isinstance(value, tuple):
            return z3.Select(value[0], self.ev(e.player, st, env))
        return value

    def e_PlayerCount(self, e, st, env):
        return self.n

    def e_Supply(self, e, st, env):
        return self._state(st, e)[("supply", e.token)]

    def e_Held(self, e, st, env):
        return z3.Select(self._state(st, e)[("held", e.token)][0], self.ev(e.player, st, env))

    def e_Smaller(self, e, st, env):
        a, b = self.ev(e.a, st, env), self.ev(e.b, st, env)
        return z3.If(a <= b, a, b)

    def e_Larger(self, e, st, env):
        a, b = self.ev(e.a, st, env), self.ev(e.b, st, env)
        return z3.If(a >= b, a, b)

    def e_Abs(self, e, st, env):
        a = self.ev(e.of, st, env)
        return z3.If(a >= 0, a, -a)

    def e_Unary(self, e, st, env):
        a = self.ev(e.operand, st, env)
        return z3.Not(a) if e.op == "not" else -a

    def e_Binary(self, e, st, env):
        a, b = self.ev(e.left, st, env), self.ev(e.right, st, env)
        ops = {"and": z3.And, "or": z3.Or, "==": lambda x, y: x == y, "!=": lambda x, y: x != y,
               "<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
               "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}
        if e.op not in ops:
            raise Unsupported(f"operator {e.op}{_where(e)}")
        return ops[e.op](a, b)

    def e_IfExpr(self, e, st, env):
        return z3.If(self.ev(e.cond, st, env), self.ev(e.then, st, env), self.ev(e.orelse, st, env))

    def e_DefineCall(self, e, st, env):
        d = self.defines[e.define]
        self.depth += 1
        if self.depth > 50:
            raise Unsupported(f"recursive definition {e.define}")
        try:
            return self.ev(d.body, st, {p.slot: self.ev(a, st, env) for p, a in zip(d.params, e.args)})
        finally:
            self.depth -= 1

    def seat_var(self) -> z3.ArithRef:
        self.fresh += 1
        return z3.Int(f"p{self.fresh}", ctx=budget.context())

    def e_Quant(self, e, st, env):
        b = e.binder
        if not isinstance(b.iter, core.Seats) or b.iter.start is not None:
            raise Unsupported(f"a quantifier over {_domain(b.iter)} with the player count symbolic{_where(e)}")
        if e.kind == "sum":
            body = e.body
            if b.cond is None and isinstance(body, core.Held) and \
                    isinstance(body.player, m.Local) and body.player.slot == b.slot:
                return self._state(st, e)[("held", body.token)][1]
            if b.cond is None and isinstance(body, m.VarRef) and isinstance(body.player, m.Local) and \
                    body.player.slot == b.slot and self.vars[body.var].per_player:
                return self._state(st, e)[("var", body.var)][1]
            raise Unsupported(f"a sum over the players of something other than one per-player number{_where(e)}")
        if e.kind not in ("forall", "exists"):
            raise Unsupported(f"{e.kind} over the players with the player count symbolic{_where(e)}")
        p = self.seat_var()
        inner = {**env, b.slot: p}
        cond = z3.And(p >= 0, p < self.n, *( [self.ev(b.cond, st, inner)] if b.cond is not None else []))
        if e.kind == "forall":
            return z3.ForAll([p], z3.Implies(cond, self.ev(e.body, st, inner)))
        return z3.Exists([p], cond)

    # ---- statements: st is updated in place; `errors` collects conditions the engine refuses
    def run(self, stmts, st: dict, env: dict, errors: list, seats: list) -> None:
        budget.tick()
        for s in stmts:
            method = getattr(self, "s_" + type(s).__name__, None)
            if method is None:
                raise Unsupported(f"the `{m.keyword(s)}` statement{_where(s)}")
            method(s, st, env, errors, seats)

    def _write(self, st, key, seat, new, seats):
        arr, ghost = st[key]
        seats.append(seat)
        old = z3.Select(arr, seat)
        st[key] = (z3.Store(arr, seat, new), ghost + (new - old))

    def s_Rule(self, s, st, env, errors, seats):
        self.run(s.body, st, env, errors, seats)

    def s_Reveal(self, s, st, env, errors, seats):
        pass

    def s_Let(self, s, st, env, errors, seats):
        env[s.slot] = self.ev(s.value, st, env)

    def s_Assign(self, s, st, env, errors, seats):
        decl = self.vars[s.var]
        value = self.ev(s.value, st, env)
        key = ("var", s.var)
        seat = self.ev(s.player, st, env) if s.player is not None else None
        old = z3.Select(st[key][0], seat) if seat is not None else st[key]
        new = value if s.op == "=" else (old + value if s.op == "+" else old - value)
        if decl.low is not None and decl.high is not None:
            errors.append(z3.Or(new < self.ev(decl.low, None, {}), new > self.ev(decl.high, None, {})))
        if seat is None:
            st[key] = new
        else:
            self._write(st, key, seat, new, seats)

    def s_TokenMove(self, s, st, env, errors, seats):
        decl = self.tokens[s.token]
        seat = self.ev(s.player, st, env)
        amount = self.ev(s.amount, st, env)
        supply, key = ("supply", s.token), ("held", s.token)
        have = z3.Select(st[key][0], seat)

        def lo(a, b):
            return z3.If(a <= b, a, b)
        if s.to_player:
            room = lo(amount, st[supply])
            if decl.cap is not None:
                room = lo(room, self.ev(decl.cap, None, {}) - have)
            moved = z3.If(room >= 0, room, 0)
            st[supply] = st[supply] - moved
            self._write(st, key, seat, have + moved, seats)
        else:
            room = lo(amount, have)
            moved = z3.If(room >= 0, room, 0)
            st[supply] = st[supply] + moved
            self._write(st, key, seat, have - moved, seats)

    def s_If(self, s, st, env, errors, seats):
        branches = [(self.ev(c, st, env), body) for c, body in s.branches]
        outcomes = []
        for cond, body in [*branches, (None, s.orelse)]:
            inner, errs = dict(st), []
            self.run(body, inner, dict(env), errs, seats)
            outcomes.append((cond, inner, errs))
        merged = dict(outcomes[-1][1])
        error = z3.Or(outcomes[-1][2]) if outcomes[-1][2] else z3.BoolVal(False, ctx=budget.context())
        for cond, inner, errs in reversed(outcomes[:-1]):
            for key, value in inner.items():
                other = merged[key]
                if isinstance(value, tuple):
                    merged[key] = (z3.If(cond, value[0], other[0]), z3.If(cond, value[1], other[1]))
                else:
                    merged[key] = z3.If(cond, value, other)
            error = z3.If(cond, z3.Or(errs) if errs else z3.BoolVal(False, ctx=budget.context()), error)
        st.update(merged)
        errors.append(error)


def _equal(a: dict, b: dict) -> list:
    out = []
    for key, value in a.items():
        if isinstance(value, tuple):
            out += [value[0] == b[key][0], value[1] == b[key][1]]
        else:
            out.append(value == b[key])
    return out


def prove(game: m.Game, timeout_ms: int = 10_000) -> dict:
    """Invariant name -> (proven, text) for every invariant, over every player count from the fewest
    allowed, with no upper limit; `game` is the core IR for every player count (`lower.every_count`).
    Raises `Unsupported` outside the fragment."""
    from .fragment import flow_shape

    enc = _Encoder(game)
    setup, before, choose, after, loops = flow_shape(game)
    if not loops:
        raise Unsupported("a flow that ends after one decision (the proof is about a loop)")
    n = enc.n
    base = [n >= game.min_players]
    invariants = [p for p in game.properties if p.kind == "invariant"]
    if not invariants:
        return {}
    start = enc.initial()
    errs: list = []
    enc.run([*setup, *before], start, {}, errs, [])
    pre, post = enc.state("0"), enc.state("1")
    steps = []
    for action in choose.actions:
        env, cond = {}, []
        for b in action.binders:
            if not isinstance(b.iter, core.Seats) or b.iter.start is not None:
                raise Unsupported(f"a choice over {_domain(b.iter)} with the player count symbolic{_where(b)}")
            p = enc.seat_var()
            env[b.slot] = p
            cond += [p >= 0, p < n]
            if b.cond is not None:
                cond.append(enc.ev(b.cond, pre, env))
        if action.when is not None:
            cond.append(enc.ev(action.when, pre, env))
        st, errors, seats = dict(pre), [], []
        enc.run([*action.body, *after, *before], st, dict(env), errors, seats)
        seats_ok = [z3.And(s >= 0, s < n) for s in seats]
        steps.append(z3.And(*cond, *seats_ok, *(z3.Not(e) for e in errors), *_equal(st, post)))
    relation = z3.Or(steps)
    alive = {p.name: p for p in invariants}
    verdicts = {}
    for p in invariants:
        solver = budget.solver(timeout_ms)
        solver.add(*base, *(z3.Not(e) for e in errs), z3.Not(enc.ev(p.expr, start, {})))
        r = budget.check(solver)
        if r != z3.unsat:
            alive.pop(p.name)
            verdicts[p.name] = (False, "it does not hold initially for every player count" if r == z3.sat
                                else f"Z3 could not decide the initial state ({budget.unknown_reason(solver)})")
    while alive:
        solver = budget.solver(timeout_ms)
        solver.add(*base, relation, *(enc.ev(p.expr, pre, {}) for p in alive.values()))
        dropped = []
        for name, p in alive.items():
            r = budget.check(solver, z3.Not(enc.ev(p.expr, post, {})))
            if r != z3.unsat:
                dropped.append(name)
                verdicts[name] = (False, "some action can break it from a state where the invariants hold" if r == z3.sat
                                  else f"Z3 could not decide a step ({budget.unknown_reason(solver)})")
        if not dropped:
            break
        for name in dropped:
            alive.pop(name)
    ghosts = sorted({f"{key[1]}" for key in pre if isinstance(pre[key], tuple)})
    for name in alive:
        verdicts[name] = (True, f"for every number of players N >= {game.min_players} (no upper limit; the spec "
                          f"allows {game.min_players} to {game.max_players}): Z3 proves it holds initially and "
                          f"that every action preserves it together with {len(alive) - 1} other invariant(s) "
                          f"(1-induction over per-player arrays of {', '.join(ghosts) or 'no family'}, each "
                          "with a ghost sum updated by the change at the one seat an action writes)")
    return verdicts


def timed_prove(game: m.Game, timeout_ms: int = 10_000) -> tuple[dict, float]:
    t = time.perf_counter()
    out = prove(game, timeout_ms)
    return out, time.perf_counter() - t
