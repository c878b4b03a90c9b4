"""Terms of the symbolic fragment: a small integer/boolean IR of nested tuples, and the guarded-command
system built of them.

Ints are ('c', v) ('s', i) (op, a, b) ('neg', a) ('ite', c, a, b); bools are ('b', v) and comparisons.
Terms are folded as they are built; `to_python` turns them into numpy code (for frontiers of states,
or one state) and `verify.symbolic` into Z3 terms; `within_bounds` simplifies a system for states
within the slots' declared bounds.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

# ---- the IR: ints ('c', v) ('s', i) (op, a, b) ('neg', a) ('ite', c, a, b); bools ('b', v) and comparisons

TRUE, FALSE = ("b", True), ("b", False)
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "min": min, "max": max, "div": lambda a, b: a // b, "mod": lambda a, b: a % b}
_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def const(v: int):
    return ("c", int(v))


def is_const(x) -> bool:
    return x[0] in ("c", "b")


def arith(op: str, a, b):
    if a[0] == "c" and b[0] == "c":
        return const(_ARITH[op](a[1], b[1]))
    if op == "+" and a == ("c", 0):
        return b
    if op in ("+", "-") and b == ("c", 0):
        return a
    if op == "*" and (a == ("c", 1) or b == ("c", 1)):
        return b if a == ("c", 1) else a
    if op == "*" and (a == ("c", 0) or b == ("c", 0)):
        return const(0)
    if op in ("min", "max") and a == b:
        return a
    return (op, a, b)


def compare(op: str, a, b):
    if a[0] == "c" and b[0] == "c":
        return ("b", _CMP[op](a[1], b[1]))
    return (op, a, b)


def not_(a):
    if a[0] == "b":
        return ("b", not a[1])
    if a[0] == "not":
        return a[1]
    return ("not", a)


def and_(*xs):
    out = TRUE
    for x in xs:
        if x == FALSE or out == FALSE:
            return FALSE
        out = x if out == TRUE else out if x == TRUE else ("and", out, x)
    return out


def or_(*xs):
    out = FALSE
    for x in xs:
        if x == TRUE or out == TRUE:
            return TRUE
        out = x if out == FALSE else out if x == FALSE else ("or", out, x)
    return out


def ite(c, a, b):
    if c[0] == "b":
        return a if c[1] else b
    if a == b:
        return a
    if a[0] == "b" or b[0] == "b" or a[0] in _BOOL_OPS or b[0] in _BOOL_OPS:
        return or_(and_(c, a), and_(not_(c), b))
    return ("ite", c, a, b)


_BOOL_OPS = {"and", "or", "not", *_CMP}
COMPARISONS = frozenset(_CMP)


def neg(a):
    return const(-a[1]) if a[0] == "c" else ("neg", a)


def is_bool(x) -> bool:
    return x[0] == "b" or x[0] in _BOOL_OPS


def substitute(x, values: dict):
    """`x` with the slots in `values` replaced by constants, folded again."""
    def leaf(y):
        return const(values[y[1]]) if y[0] == "s" and y[1] in values else None
    return _rebuild([x], leaf)[0]


class Shapes:
    """A number for each term's shape, equal for terms that are equal: terms are DAGs whose trees can be
    exponentially larger, so shapes are numbered bottom-up, each node once (by identity), never by
    comparing or hashing the trees themselves."""

    def __init__(self):
        self._of: dict = {}  # id(node) -> (node, number); the node is kept so its id is never reused
        self._numbers: dict = {}  # (tag, numbers of the children or the leaf's value) -> number

    def of(self, x) -> int:
        hit = self._of.get(id(x))
        if hit is not None:
            return hit[1]
        stack = [(x, False)]
        while stack:
            y, ready = stack.pop()
            if id(y) in self._of:
                continue
            if y[0] in ("c", "b", "s"):
                key = y
            elif ready:
                key = (y[0], *(self._of[id(z)][1] for z in y[1:]))
            else:
                stack.append((y, True))
                stack.extend((z, False) for z in y[1:] if id(z) not in self._of)
                continue
            self._of[id(y)] = (y, self._numbers.setdefault(key, len(self._numbers)))
        return self._of[id(x)][1]


def assuming(xs: list, condition, holds: bool, shapes: Shapes | None = None) -> list:
    """The terms `xs` where the boolean term `condition` is known to be `holds`: each occurrence of it
    replaced by that constant, folded again (the branches of an `ite` on it that cannot be taken fall
    away). Occurrences are found by shape (`shapes`, which calls on one system may share)."""
    shapes = Shapes() if shapes is None else shapes
    value, target = (TRUE if holds else FALSE), shapes.of(condition)
    tag = condition[0]
    return _rebuild(xs, lambda y: value if y[0] == tag and shapes.of(y) == target else None)


def replace_slots(xs: list, by_slot: dict) -> list:
    """The terms `xs` with each slot `i` in `by_slot` replaced by the term `by_slot[i]` (a state's
    property read after a step: the step's updates for the slots it moves), folded again."""
    return _rebuild(xs, lambda y: by_slot.get(y[1]) if y[0] == "s" else None)


def where_holds(x, fact):
    """`x` where only the states that meet `fact` matter: each conjunct of `fact` (the very term, shared
    by identity) taken as true inside `x`, folded again; the loop of a function decides its condition
    this way on the paths still running, whose values are held as `ite(running, new, old)`."""
    known, todo = set(), [fact]
    while todo:
        y = todo.pop()
        if y[0] == "and":
            todo.extend(y[1:])
        elif y != TRUE:
            known.add(id(y))
    if not known:
        return x
    return _rebuild([x], lambda y: TRUE if id(y) in known else None)[0]


def _rebuild(roots: list, leaf) -> list:
    """The terms `roots` with each node for which `leaf(node)` gives a term replaced by it, folded
    again bottom-up; shared nodes are rebuilt once for all the roots."""
    memo: dict = {}

    def go(x):
        key = id(x)
        if key in memo:
            return memo[key][1]
        tag = x[0]
        replaced = leaf(x)
        if replaced is not None:
            out = replaced
        elif tag in ("c", "b", "s"):
            out = x
        elif tag == "ite":
            out = ite(go(x[1]), go(x[2]), go(x[3]))
        elif tag == "not":
            out = not_(go(x[1]))
        elif tag == "neg":
            a = go(x[1])
            out = const(-a[1]) if a[0] == "c" else ("neg", a)
        elif tag == "and":
            out = and_(go(x[1]), go(x[2]))
        elif tag == "or":
            out = or_(go(x[1]), go(x[2]))
        elif tag in _CMP:
            out = compare(tag, go(x[1]), go(x[2]))
        else:
            out = arith(tag, go(x[1]), go(x[2]))
        memo[key] = (x, out)
        return out
    return [go(x) for x in roots]


def slots_of(x, out: set | None = None, seen: set | None = None) -> set:
    """The slots `x` reads. Terms share subterms (a DAG whose tree can be exponentially larger), so
    each node is visited once, by identity; `seen` (node ids) can be shared by several calls whose
    terms share nodes, to add the slots of their union to `out`."""
    out = set() if out is None else out
    seen = set() if seen is None else seen
    stack = [x]
    while stack:
        y = stack.pop()
        if id(y) in seen:
            continue
        seen.add(id(y))
        tag = y[0]
        if tag == "s":
            out.add(y[1])
        elif tag not in ("c", "b"):
            stack.extend(z for z in y[1:] if isinstance(z, tuple))
    return out


_EMPTY = frozenset()
_VALUE_OPS = frozenset(("+", "-", "*", "min", "max", "div", "mod", "neg"))


class SlotSets:
    """The slots each term reads (`reads`) or takes its value from (`values`: not the slots only
    tested by its conditions), memoized by node identity across every term asked about: the terms
    of a system share most of their nodes, so each node is computed once. Inside, a set of slots is
    an int with bit i for slot i: a union is one machine-level or, not a walk over two sets."""

    def __init__(self):
        self._reads: dict = {}
        self._values: dict = {}
        self._sets: dict[int, frozenset] = {0: _EMPTY}

    def reads(self, x) -> frozenset:
        return self._as_set(self._walk(x, self._reads, False))

    def values(self, x) -> frozenset:
        return self._as_set(self._walk(x, self._values, True))

    def _as_set(self, mask: int) -> frozenset:
        out = self._sets.get(mask)
        if out is None:
            bits, i = [], 0
            while mask >> i:
                low = (mask >> i) & -(mask >> i)  # the lowest bit left
                i += low.bit_length() - 1
                bits.append(i)
                i += 1
            out = self._sets[mask] = frozenset(bits)
        return out

    @staticmethod
    def _children(y, value: bool) -> list:
        tag = y[0]
        if tag in ("c", "b", "s"):
            return []
        if value:
            if tag == "ite":
                return [y[2], y[3]]
            return list(y[1:]) if tag in _VALUE_OPS else []
        return [z for z in y[1:] if isinstance(z, tuple)]

    def _walk(self, x, memo: dict, value: bool) -> int:
        if id(x) in memo:
            return memo[id(x)][1]
        children = self._children
        stack = [(x, None)]
        while stack:
            y, kids = stack.pop()
            if kids is not None:  # its children are done
                out = 0
                for z in kids:
                    out |= memo[id(z)][1]
                memo[id(y)] = (y, out)  # the node itself is kept, so its id is never reused
            elif id(y) not in memo:
                if y[0] == "s":
                    memo[id(y)] = (y, 1 << y[1])
                    continue
                kids = children(y, value)
                stack.append((y, kids))
                stack.extend([(z, None) for z in kids if id(z) not in memo])
        return memo[id(x)][1]


def size(*roots) -> int:
    """The number of distinct nodes of the terms `roots` (shared subterms counted once)."""
    seen: set = set()
    stack = list(roots)
    while stack:
        y = stack.pop()
        if id(y) in seen:
            continue
        seen.add(id(y))
        if y[0] not in ("c", "b", "s"):
            stack.extend(z for z in y[1:] if isinstance(z, tuple))
    return len(seen)


def to_python(x, name: str = "x") -> str:
    """A numpy expression of `x` over `name[i]` (arrays of one slot's values, or one-element arrays)."""
    tag = x[0]
    if tag == "c":
        return str(x[1]) if x[1] >= 0 else f"({x[1]})"
    if tag == "b":
        return "np.True_" if x[1] else "np.False_"
    if tag == "s":
        return f"{name}[{x[1]}]"
    if tag == "neg":
        return f"(-{to_python(x[1], name)})"
    if tag == "not":
        return f"(~{to_python(x[1], name)})"
    if tag == "ite":
        return f"np.where({to_python(x[1], name)}, {to_python(x[2], name)}, {to_python(x[3], name)})"
    a, b = to_python(x[1], name), to_python(x[2], name)
    if tag == "and":
        return f"({a} & {b})"
    if tag == "or":
        return f"({a} | {b})"
    if tag == "min":
        return f"np.minimum({a}, {b})"
    if tag == "max":
        return f"np.maximum({a}, {b})"
    if tag == "div":
        return f"({a} // {b})"
    if tag == "mod":
        return f"({a} % {b})"
    return f"({a} {tag} {b})"


def evaluate(x, values: list[int], memo: dict | None = None):
    """The value (an int or a bool) of `x` on one state. Terms are DAGs whose trees can be
    exponentially larger, so each node is computed once, by identity; `memo` may be shared by the
    terms of one state."""
    memo = {} if memo is None else memo
    key = id(x)
    hit = memo.get(key)
    if hit is not None and hit[0] is x:
        return hit[1]
    tag = x[0]
    if tag in ("c", "b"):
        out = x[1]
    elif tag == "s":
        out = values[x[1]]
    elif tag == "neg":
        out = -evaluate(x[1], values, memo)
    elif tag == "not":
        out = not evaluate(x[1], values, memo)
    elif tag == "ite":
        out = evaluate(x[2] if evaluate(x[1], values, memo) else x[3], values, memo)
    elif tag == "and":
        out = bool(evaluate(x[1], values, memo)) and bool(evaluate(x[2], values, memo))
    elif tag == "or":
        out = bool(evaluate(x[1], values, memo)) or bool(evaluate(x[2], values, memo))
    elif tag in _CMP:
        out = _CMP[tag](evaluate(x[1], values, memo), evaluate(x[2], values, memo))
    else:
        out = _ARITH[tag](int(evaluate(x[1], values, memo)), int(evaluate(x[2], values, memo)))
    memo[key] = (x, out)
    return out


# ---- the system ------------------------------------------------------------------------------------

@dataclass
class Slot:
    """One integer of the state. `key` names it: ('var', name, seat), ('supply', token),
    ('held', token, seat), ('zone', zone, index, kind), ('over',), ('winner', seat). A zone's `index`
    is the engine's (`zone_index`): None when shared, the seat of a per-player zone, the position of a
    zone laid out on a board (row by row from 0). `seat` is the player the slot belongs to (None when
    shared, and for a position of a board): the unit that symmetry reduction permutes."""

    key: tuple
    name: str
    low: int | None
    high: int | None
    seat: int | None = None


# Compared and hashed by identity: its guard and updates are terms, DAGs whose trees can be exponentially
# larger (see `Shapes`), so two commands are never compared by their trees.
@dataclass(eq=False)
class Command:
    label: str
    point: int
    action: int  # index of the action in its choice
    combo: tuple  # the binders' domain indexes, as the engine numbers actions
    guard: tuple
    error: tuple
    updates: dict  # slot index -> new value
    # What the command takes for granted of its inputs (free slots): each chance event's outcome is one of
    # nonzero weight; and those events, in order, for a witness to be replayed with the same outcomes.
    assume: tuple = TRUE
    events: list = field(default_factory=list)
    # A command for every assignment of its action's binders: (the free slots that hold the values
    # chosen, {values: their domain indexes, as `combo` gives them}); empty for a command of one assignment.
    # `enabled`: the condition that some assignment is allowed, whatever the free slots hold (None: `guard`).
    chosen: tuple = ()
    enabled: tuple | None = None


# What `System.inexact` says where the relation reads the end of a stack as a value: the engine decides that
# card once and reads it again, the relation draws it at each reading (and at the move that takes it).
STACK_END_REREAD = "a stack's end read as a value"


@dataclass
class System:
    players: int
    options: dict
    slots: list[Slot]
    init: list[int]
    commands: list[Command]
    invariants: dict[str, tuple] = field(default_factory=dict)
    targets: dict[str, tuple] = field(default_factory=dict)
    over: int = 0  # slot index of the end flag
    # Slots with no initial value and no update: any value in every state (an abstraction's unknowns).
    free: frozenset = frozenset()
    # Where the system over-approximates the game (a witness must replay before it counts); empty when exact.
    inexact: tuple = ()
    compiled: dict = field(default_factory=dict, repr=False, compare=False)  # evaluators, by what they compute

    def index(self, key: tuple) -> int:
        return next(i for i, s in enumerate(self.slots) if s.key == key)

    def enabled_any(self):
        return or_(*(c.guard for c in self.commands))

    def not_stuck(self):
        """Over, or some action is legal: the negation of what BMC calls stuck (`Relation.stuck`)."""
        return or_(compare("!=", ("s", self.over), const(0)),
                   *(c.guard if c.enabled is None else c.enabled for c in self.commands))


# ---- simplification within the declared bounds -------------------------------------------------------

def interval(x, env: dict, memo: dict | None = None) -> tuple:
    """(low, high) that an integer term can take when each slot `i` lies within `env[i]` = (low, high);
    None where unbounded. Terms asked about with the same `env` may share a `memo`: their common nodes
    are then computed once."""
    return _interval(x, env, {} if memo is None else memo)


def _interval(x, env: dict, memo: dict):
    key = id(x)
    if key in memo:
        return memo[key][1]
    tag = x[0]
    out = (None, None)
    if tag == "c":
        out = (x[1], x[1])
    elif tag == "s":
        out = env.get(x[1], (None, None))
    elif tag in ("+", "-", "min", "max", "neg", "ite"):
        parts = [_interval(y, env, memo) for y in x[1:] if isinstance(y, tuple) and not is_bool(y)]
        (a0, a1) = parts[0]
        (b0, b1) = parts[1] if len(parts) > 1 else (None, None)

        def ok(*v):
            return all(u is not None for u in v)
        if tag == "+":
            out = (a0 + b0 if ok(a0, b0) else None, a1 + b1 if ok(a1, b1) else None)
        elif tag == "-":
            out = (a0 - b1 if ok(a0, b1) else None, a1 - b0 if ok(a1, b0) else None)
        elif tag == "neg":
            out = (-a1 if ok(a1) else None, -a0 if ok(a0) else None)
        elif tag == "min":
            out = (min(a0, b0) if ok(a0, b0) else None,
                   min(v for v in (a1, b1) if v is not None) if ok(a1) or ok(b1) else None)
        elif tag == "max":
            out = (max(v for v in (a0, b0) if v is not None) if ok(a0) or ok(b0) else None,
                   max(a1, b1) if ok(a1, b1) else None)
        else:
            out = (min(a0, b0) if ok(a0, b0) else None, max(a1, b1) if ok(a1, b1) else None)
    elif tag == "*":
        out = _product(_interval(x[1], env, memo), _interval(x[2], env, memo))
    elif tag == "mod" and x[2][0] == "c" and x[2][1] > 0:  # Python's and SMT-LIB's mod agree here
        a0, a1 = _interval(x[1], env, memo)
        inside = a0 is not None and a1 is not None and 0 <= a0 and a1 < x[2][1]
        out = (a0, a1) if inside else (0, x[2][1] - 1)
    memo[key] = (x, out)
    return out


def _product(a: tuple, b: tuple) -> tuple:
    """The interval of `x * y` for x in `a` and y in `b` (None: unbounded on that side)."""
    (a0, a1), (b0, b1) = a, b
    if None not in (a0, a1, b0, b1):
        ends = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
        return min(ends), max(ends)
    if a0 is not None and b0 is not None and a0 >= 0 and b0 >= 0:  # both factors non-negative
        return a0 * b0, a1 * b1 if a1 is not None and b1 is not None else None
    return None, None


def _decide(op, a, b):
    """True/False when intervals a and b decide `a op b`, else None."""
    (a0, a1), (b0, b1) = a, b
    known = all(v is not None for v in (a0, a1, b0, b1))
    if op in ("<", "<=") and a1 is not None and b0 is not None and (a1 < b0 or (op == "<=" and a1 <= b0)):
        return True
    if op in ("<", "<=") and a0 is not None and b1 is not None and (a0 > b1 or (op == "<" and a0 >= b1)):
        return False
    if op in (">", ">="):
        r = _decide("<" if op == ">" else "<=", b, a)
        return r
    if op in ("==", "!=") and known:
        if a0 == a1 == b0 == b1:
            return op == "=="
        if a1 < b0 or b1 < a0:
            return op == "!="
    return None


def _narrow(env: dict, cond) -> dict:
    """Slot intervals tightened by the atoms `slot op constant` of a conjunction."""
    env = dict(env)
    stack = [cond]
    while stack:
        c = stack.pop()
        if c[0] == "and":
            stack += [c[1], c[2]]
            continue
        if c[0] not in _CMP:
            continue
        op, a, b = c
        if a[0] == "c" and b[0] == "s":
            op, a, b = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op], b, a
        if not (a[0] == "s" and b[0] == "c"):
            continue
        lo, hi = env.get(a[1], (None, None))
        v = b[1]
        if op in ("<", "<="):
            v = v - 1 if op == "<" else v
            hi = v if hi is None else min(hi, v)
        elif op in (">", ">="):
            v = v + 1 if op == ">" else v
            lo = v if lo is None else max(lo, v)
        elif op == "==":
            lo, hi = v, v
        env[a[1]] = (lo, hi)
    return env


def simplify(x, env: dict):
    """`x` with min, max, comparisons and conditionals that the intervals of `env` decide, folded."""
    memo: dict = {}
    intervals: dict = {}

    def go(x):
        key = id(x)
        if key in memo:
            return memo[key][1]
        tag = x[0]
        if tag in ("c", "b", "s"):
            out = x
        elif tag == "ite":
            out = ite(go(x[1]), go(x[2]), go(x[3]))
        elif tag == "not":
            out = not_(go(x[1]))
        elif tag == "neg":
            out = neg(go(x[1]))
        elif tag == "and":
            out = and_(go(x[1]), go(x[2]))
        elif tag == "or":
            out = or_(go(x[1]), go(x[2]))
        else:
            a, b = go(x[1]), go(x[2])
            if tag in _CMP:
                r = _decide(tag, _interval(a, env, intervals), _interval(b, env, intervals))
                out = ("b", r) if r is not None else compare(tag, a, b)
            elif tag in ("min", "max"):
                (a0, a1), (b0, b1) = _interval(a, env, intervals), _interval(b, env, intervals)
                first = (a1 is not None and b0 is not None and a1 <= b0) if tag == "min" else \
                    (a0 is not None and b1 is not None and a0 >= b1)
                second = (b1 is not None and a0 is not None and b1 <= a0) if tag == "min" else \
                    (b0 is not None and a1 is not None and b0 >= a1)
                out = a if first else b if second else arith(tag, a, b)
            else:
                out = arith(tag, a, b)
        memo[key] = (x, out)
        return out
    return go(x)


def within_bounds(system: System) -> System:
    """The same system, its commands simplified for states within every slot's declared bounds
    (and, for a command's error and updates, where its guard holds). Exact on those states only: use
    it where every state is known to be within bounds (checked, or proven)."""
    base = {i: (s.low, s.high) for i, s in enumerate(system.slots)}
    commands = []
    for c in system.commands:
        guard = simplify(c.guard, base)
        inside = _narrow(base, guard)
        commands.append(dataclasses.replace(c, guard=guard, error=simplify(c.error, inside),
                                            updates={i: simplify(e, inside) for i, e in c.updates.items()}))
    # The properties stay as written: a state outside the bounds must still break them.
    return dataclasses.replace(system, commands=commands, compiled={})
