"""The Z3 backend: the consistency of a spec's declared numbers, derived from the model.

Every fact, component count, token supply and claim becomes one *tracked* assertion for a given
player count and choice of options. Facts and counts are equations (`fact == its expression`),
claims are evaluated on the initial position (every component in the initial zone, variables at
their initial values, tokens in the supply, `current` = seat 0), symbolically over the facts. An
unsat answer has an unsat core, which is shrunk to a minimal one (deletion: each member is needed)
and mapped back to the declarations' quotes. A construct the encoder does not know raises
`Unsupported`; a solver timeout is `unknown`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import z3

from .. import model as m
from . import Unsupported, budget


@dataclass
class Tracked:
    """One tracked assertion: what it is (fact, count, token, claim), its declaration and its quotes."""

    label: str
    what: str
    name: str
    decl: object
    quotes: list[str] = field(default_factory=list)


@dataclass
class Consistency:
    players: int
    options: dict
    result: str  # sat, unsat, unknown
    core: list[Tracked] = field(default_factory=list)
    reason: str = ""
    assertions: int = 0


def _quotes(decl) -> list[str]:
    return [q.text for q in getattr(decl, "quotes", ())]


class Encoder:
    """Symbolic values of model expressions in a game's initial position, for one configuration."""

    def __init__(self, game: m.Game, players: int, options: dict[str, str]):
        self.g, self.n, self.options = game, players, options
        self.facts = {f.name: z3.Int(f"fact:{f.name}", ctx=budget.context()) for f in game.facts}
        self.counts = [z3.Int(f"count:{c.name}", ctx=budget.context()) for c in game.components]
        self.tokens = {t.name: z3.Int(f"token:{t.name}", ctx=budget.context()) for t in game.tokens}
        self.comp_index = {c.name: i for i, c in enumerate(game.components)}
        self.defines = {d.name: d for d in game.defines}
        self.zones = {z.name: z for z in game.zones}
        self.vars = {v.name: v for v in game.vars}
        self.enums = {e.name: e for e in game.enums}
        self.boards = {b.name: b for b in game.boards}
        self._sizes: dict[str, tuple[int, int]] = {}
        self.initial = next((z.name for z in game.zones if z.initial), None)
        self.depth = 0
        self.claims = True

    # ---- values bound to locals: ("int", z3 term) / ("bool", z3 term) / ("card", index) / ("player", int)
    def ev(self, e: m.Expr, env: dict):
        budget.tick()
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise Unsupported(f"expression {type(e).__name__}")
        return method(e, env)

    def e_Const(self, e, env):
        if e.type == m.CARD:
            if e.name not in self.comp_index:
                raise Unsupported(f"card constant {e.name}")
            return ("card", self.comp_index[e.name])
        if e.type == m.BOOL:
            return z3.BoolVal(bool(e.value), ctx=budget.context())
        return z3.IntVal(int(e.value), ctx=budget.context())

    def e_Local(self, e, env):
        if e.slot not in env:
            raise Unsupported(f"local {e.name}")
        v = env[e.slot]
        return v[1] if isinstance(v, tuple) and v[0] in ("int", "bool") else v

    def e_FactRef(self, e, env):
        return self.facts[e.fact]

    def e_VarRef(self, e, env):
        decl = self.vars.get(e.var)
        if decl is None:
            raise Unsupported(f"variable {e.var}")
        return self.ev(decl.init, {})

    def e_ZoneRef(self, e, env):
        if e.player is not None:
            self.ev(e.player, env)  # only to reject what cannot be encoded
        return ("zone", e.zone, e.player is not None)

    def _size(self, zone) -> z3.ArithRef:
        _, name, _per_player = zone
        if name != self.initial:
            return z3.IntVal(0, ctx=budget.context())
        return z3.Sum([*self.counts, z3.IntVal(0, ctx=budget.context())])

    def e_Builtin(self, e, env):
        name = e.name
        if name == "player_count":
            return z3.IntVal(self.n, ctx=budget.context())
        if name == "current":
            return ("player", 0)
        if name == "size":
            return self._size(self.ev(e.args[0], env))
        if name == "supply":
            return self.tokens[e.token]
        if name == "held":
            return z3.IntVal(0, ctx=budget.context())
        if name in ("min", "max"):
            a, b = (self.ev(x, env) for x in e.args)
            return z3.If(a <= b, a, b) if name == "min" else z3.If(a >= b, a, b)
        if name == "abs":
            a = self.ev(e.args[0], env)
            return z3.If(a >= 0, a, -a)
        if name in ("next", "previous", "seat"):
            p = self.ev(e.args[0], env)
            if name == "seat":
                if not z3.is_int_value(z3.simplify(p)):
                    raise Unsupported("seat() of a symbolic number")
                return ("player", z3.simplify(p).as_long() % self.n)
            if not (isinstance(p, tuple) and p[0] == "player"):
                raise Unsupported(f"{name}() of a symbolic player")
            step = 1 if (self.g.order == "clockwise") == (name == "next") else -1
            return ("player", (p[1] + step) % self.n)
        if name in ("adjacent", "orthogonal"):
            a, b = (self.ev(x, env) for x in e.args)
            if not (isinstance(a, tuple) and a[0] == "pos" and isinstance(b, tuple) and b[0] == "pos"):
                raise Unsupported(f"{name}() of a symbolic position")
            (ra, ca), (rb, cb) = (divmod(x[1], self._board_size(x[2])[1]) for x in (a, b))
            near = abs(ra - rb) + abs(ca - cb) == 1 if name == "orthogonal" else \
                a[1] != b[1] and abs(ra - rb) <= 1 and abs(ca - cb) <= 1
            return z3.BoolVal(near, ctx=budget.context())
        raise Unsupported(f"builtin {name}")

    def _board_size(self, board: str) -> tuple[int, int]:
        """A board's rows and columns, from the facts' own definitions (they are static)."""
        if board in self._sizes:
            return self._sizes[board]
        decl = self.boards[board]
        sizes = []
        for expr in (decl.rows, decl.columns):
            term = self.ev(expr, {})
            for _ in range(len(self.facts) + 1):  # a fact may be defined by others, never circularly
                term = z3.simplify(z3.substitute(term, *[(v, self.ev(f.value, {})) for f in self.g.facts
                                                         for v in [self.facts[f.name]]]))
                if z3.is_int_value(term):
                    break
            if not z3.is_int_value(term):
                raise Unsupported(f"the size of board {board}")
            sizes.append(term.as_long())
        self._sizes[board] = sizes[0], sizes[1]
        return self._sizes[board]

    def _attr(self, comp: int, attr: str):
        for name, value in self.g.components[comp].attrs:
            if name == attr:
                return self.ev(value, {})
        raise Unsupported(f"attribute {attr} of {self.g.components[comp].name}")

    def e_Attr(self, e, env):
        target = self.ev(e.target, env)
        if isinstance(target, tuple) and target[0] == "pos":
            columns = self._board_size(target[2])[1]
            value = target[1] // columns + 1 if e.attr == "row" else target[1] % columns + 1
            return z3.IntVal(value, ctx=budget.context())
        if not (isinstance(target, tuple) and target[0] == "card"):
            raise Unsupported(f"attribute {e.attr} of a non-card")
        return self._attr(target[1], e.attr)

    def e_Unary(self, e, env):
        x = self.ev(e.operand, env)
        return z3.Not(x) if e.op == "not" else -x

    def _eq(self, a, b):
        if isinstance(a, tuple) or isinstance(b, tuple):
            if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] and a[0] in ("card", "player", "pos"):
                return z3.BoolVal(a[1] == b[1], ctx=budget.context())
            raise Unsupported("comparison of non-numbers")
        return a == b

    def e_Binary(self, e, env):
        a, b = self.ev(e.left, env), self.ev(e.right, env)
        op = e.op
        if op == "and":
            return z3.And(a, b)
        if op == "or":
            return z3.Or(a, b)
        if op == "==":
            return self._eq(a, b)
        if op == "!=":
            return z3.Not(self._eq(a, b))
        if isinstance(a, tuple) or isinstance(b, tuple):
            raise Unsupported(f"operator {op} on non-numbers")
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b, "%": lambda: a % b,
               "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}
        if op not in ops:
            raise Unsupported(f"operator {op}")
        return ops[op]()

    def e_IfExpr(self, e, env):
        c, t, o = self.ev(e.cond, env), self.ev(e.then, env), self.ev(e.orelse, env)
        if isinstance(t, tuple) or isinstance(o, tuple):
            raise Unsupported("conditional of non-numbers")
        return z3.If(c, t, o)

    def e_OptionIs(self, e, env):
        return z3.BoolVal(self.options.get(e.ambiguity) == e.option, ctx=budget.context())

    def e_DefineCall(self, e, env):
        d = self.defines.get(e.define)
        if d is None:
            raise Unsupported(f"definition {e.define}")
        self.depth += 1
        if self.depth > 50:
            raise Unsupported("recursive definition")
        try:
            inner = {p.slot: self._bind(self.ev(a, env)) for p, a in zip(d.params, e.args)}
            return self.ev(d.body, inner)
        finally:
            self.depth -= 1

    @staticmethod
    def _bind(value):
        if isinstance(value, tuple):
            return value
        return ("bool", value) if z3.is_bool(value) else ("int", value)

    # ---- quantifiers: over the cards of the initial position, players, enum members, sets, ranges
    def _domain(self, it: m.Iter, env) -> list[tuple]:
        """(value to bind, multiplicity term or None for 1) for every element of the domain."""
        if it.kind == "cards":
            zone = (None, it.every, True) if it.every is not None else self.ev(it.zone, env)
            if not (isinstance(zone, tuple) and zone[0] == "zone"):
                raise Unsupported("cards of a non-zone")
            if zone[1] != self.initial:
                return []
            return [(("card", k), self.counts[k]) for k in range(len(self.counts))]
        if it.kind == "players":
            start = 0
            if it.start is not None:
                s = self.ev(it.start, env)
                if not (isinstance(s, tuple) and s[0] == "player"):
                    raise Unsupported("players from a symbolic seat")
                start = s[1]
            step = 1 if self.g.order == "clockwise" else -1
            return [(("player", (start + step * i) % self.n), None) for i in range(self.n)]
        if it.kind == "enum":
            return [(("int", z3.IntVal(i, ctx=budget.context())), None) for i in range(len(self.enums[it.enum].members))]
        if it.kind == "set":
            return [(self._bind(self.ev(x, env)), None) for x in it.items]
        if it.kind == "range":
            lo, hi = z3.simplify(self.ev(it.low, env)), z3.simplify(self.ev(it.high, env))
            if not (z3.is_int_value(lo) and z3.is_int_value(hi)):
                raise Unsupported("a range with symbolic bounds")
            return [(("int", z3.IntVal(i, ctx=budget.context())), None) for i in range(lo.as_long(), hi.as_long() + 1)]
        if it.kind == "board":
            rows, columns = self._board_size(it.enum)
            return [(("pos", i, it.enum), None) for i in range(rows * columns)]
        raise Unsupported(f"iteration over {it.kind}")

    def e_Quant(self, e, env):
        b = e.binder
        ctx = budget.context()
        terms = []
        for value, mult in self._domain(b.iter, env):
            inner = {**env, b.slot: value}
            cond = self.ev(b.cond, inner) if b.cond is not None else z3.BoolVal(True, ctx=ctx)
            present = cond if mult is None else z3.And(cond, mult > 0)
            terms.append((inner, cond, present, mult))
        if e.kind == "count":
            return z3.Sum([z3.IntVal(0, ctx=ctx)] + [z3.If(c, mult if mult is not None else z3.IntVal(1, ctx=ctx), 0)
                                                     for _, c, _, mult in terms])
        if e.kind == "exists":
            return z3.Or([z3.BoolVal(False, ctx=ctx)] + [p for _, _, p, _ in terms])
        if e.kind == "forall":
            return z3.And([z3.BoolVal(True, ctx=ctx)] + [z3.Implies(p, self.ev(e.body, inner)) for inner, _, p, _ in terms])
        if e.kind == "sum":
            return z3.Sum([z3.IntVal(0, ctx=ctx)] + [z3.If(c, self.ev(e.body, inner), 0) for inner, c, _, _ in terms])
        raise Unsupported(f"quantifier {e.kind}")

    # ---- the tracked assertions of this configuration
    def assertions(self) -> list[tuple[Tracked, z3.BoolRef]]:
        out = []
        for f in self.g.facts:
            out.append((Tracked(f"fact {f.name}", "fact", f.name, f, _quotes(f)),
                        self.facts[f.name] == self._int(self.ev(f.value, {}))))
        for i, c in enumerate(self.g.components):
            out.append((Tracked(f"count {c.name}", "count", c.name, c, _quotes(c)),
                        self.counts[i] == self._int(self.ev(c.count, {}))))
        for t in self.g.tokens:
            out.append((Tracked(f"token {t.name}", "token", t.name, t, _quotes(t)),
                        self.tokens[t.name] == self._int(self.ev(t.count, {}))))
        for c in self.g.claims if self.claims else ():
            value = self.ev(c.expr, {})
            if not z3.is_bool(value):
                raise Unsupported(f"claim {c.name} is not a condition")
            out.append((Tracked(f"claim {c.name}", "claim", c.name, c, _quotes(c)), value))
        return out

    @staticmethod
    def _int(value):
        if isinstance(value, tuple) or not z3.is_int(value):
            raise Unsupported("a declared number that is not an integer")
        return value


def consistency(game: m.Game, players: int, options: dict[str, str], timeout_ms: int = 5000,
                without_claims: frozenset = frozenset()) -> Consistency:
    """Are the facts, counts, token supplies and claims satisfiable together for this configuration?
    `without_claims`: claims left out, so that the claims of another unsat core can be found."""
    try:
        tracked = [t for t in Encoder(game, players, options).assertions()
                   if not (t[0].what == "claim" and t[0].name in without_claims)]
    except Unsupported as exc:
        return Consistency(players, options, "unknown", reason=f"unsupported: {exc}")
    except z3.Z3Exception as exc:
        return Consistency(players, options, "unknown", reason=f"Z3: {exc}")
    solver = budget.solver(timeout_ms)
    labels = [z3.Bool(f"track:{i}", ctx=budget.context()) for i in range(len(tracked))]
    for label, (_, formula) in zip(labels, tracked):
        solver.add(z3.Implies(label, formula))
    result = budget.check(solver, *labels)
    if result == z3.sat:
        return Consistency(players, options, "sat", assertions=len(tracked))
    if result == z3.unknown:
        return Consistency(players, options, "unknown", reason=budget.unknown_reason(solver),
                           assertions=len(tracked))
    core = [lab for lab in labels if any(z3.eq(lab, c) for c in solver.unsat_core())]
    # Deletion-based minimisation: drop each member in turn; keep it only if the rest is satisfiable.
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if budget.check(solver, *trial) == z3.unsat:
            core = [lab for lab in trial if any(z3.eq(lab, c) for c in solver.unsat_core())] or trial
            i = 0 if len(core) < len(trial) else i
        else:
            i += 1
    index = {str(lab): k for k, lab in enumerate(labels)}
    members = [tracked[index[str(lab)]][0] for lab in core]
    return Consistency(players, options, "unsat", core=members, assertions=len(tracked))
