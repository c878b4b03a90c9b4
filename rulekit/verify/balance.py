"""Conservation proven term by term: an invariant `sum == constant` that no command of a system changes.

An invariant such as "every card is in exactly one zone" is a linear sum of count slots equal to a
constant. Where every command moves cards only between zones the sum counts alike, the sum after each
command is the sum before it, whatever the state: the invariant holds in every reachable state once it
holds in the initial one. That is a 1-inductive proof, and it needs no solver: each command's change of
the sum is written as a polynomial over the slots and the conditions its terms test (`ite(c, a, b)` is
`b + [c]·(a - b)`), and the proof is that this polynomial is zero. Two facts of the command's guard make
it so where a card's place or kind is an unknown:

- an unknown held to a range by the guard takes exactly one value of it: the terms `[u == v]` for every
  `v` of the range, with the same rest and coefficient, add up to that rest;
- `[u == v]·[u == w]` with `v != w` is zero.

A slot known to be zero in every reachable state (a card kind that never comes to a zone) counts as
zero. Where the polynomial is not zero, or grows past `MONOMIAL_LIMIT` terms, the answer is no proof,
never a refutation: a solver may still decide the invariant.
"""
from __future__ import annotations

from .terms import System, is_bool

MONOMIAL_LIMIT = 50_000  # terms of one command's polynomial before the check gives up on it
RANGE_LIMIT = 64  # values of an unknown's range that the first rule above enumerates at most

_ONE = frozenset()


class _TooLarge(Exception):
    pass


def conserved(system: System, expr, zero: frozenset = frozenset()) -> bool:
    """Whether `expr` (an invariant of `system`) is `linear sum of slots == constant`, true in the initial
    state, and kept by every command (see the module docstring); `zero`: slots that are 0 in every
    reachable state."""
    if expr[0] != "==":
        return False
    # the polynomials of the system's terms, shared by the invariants asked about (the terms are its own)
    memo: dict = system.compiled.setdefault("balance polynomials", {})
    try:
        difference = _add(_poly(expr[1], memo), _poly(expr[2], memo), -1)
    except _TooLarge:
        return False
    weights: dict[int, int] = {}
    for monomial, coefficient in difference.items():
        if monomial == _ONE:
            continue
        (atom,) = monomial if len(monomial) == 1 else (None,)
        if atom is None or atom[0] != "s":
            return False  # not linear in the slots
        weights[atom[1]] = coefficient
    if not weights or any(i in system.free for i in weights):
        return False
    if sum(c * system.init[i] for i, c in weights.items()) + difference.get(_ONE, 0) != 0:
        return False
    return all(_keeps(command, weights, zero, memo) for command in system.commands)


def _keeps(command, weights: dict, zero: frozenset, memo: dict) -> bool:
    """Whether the weighted sum after `command` is the sum before it."""
    change: dict = {}
    try:
        for i, weight in weights.items():
            update = command.updates.get(i)
            if update is None:
                continue
            for m, c in _poly(update, memo).items():
                change[m] = change.get(m, 0) + weight * c
            m = frozenset([("s", i)])
            change[m] = change.get(m, 0) - weight
    except _TooLarge:
        return False
    change = {m: c for m, c in change.items() if c}
    change = {m: c for m, c in change.items() if not any(a[0] == "s" and a[1] in zero for a in m)}
    return not _partitioned(change, _guard_ranges(command.guard))


def _atom(x) -> tuple:
    """The key of a term the polynomial treats as one unknown: a slot, an equality of a slot and a
    constant (so that the same test written twice is one atom), or any other term by its identity."""
    tag = x[0]
    if tag == "s":
        return ("s", x[1])
    if tag == "==":
        a, b = x[1], x[2]
        if a[0] == "s" and b[0] == "c":
            return ("==", a[1], b[1])
        if b[0] == "s" and a[0] == "c":
            return ("==", b[1], a[1])
    return ("term", id(x))


def _condition(x) -> tuple:
    """The atom of a tested term, 1 where it holds and 0 where not: an integer tested for being nonzero
    is another atom than its value."""
    return _atom(x) if is_bool(x) else ("nonzero", _atom(x))


def _poly(x, memo: dict) -> dict:
    """The polynomial of an integer term: {frozenset of atoms: coefficient}."""
    key = id(x)
    if key in memo:
        return memo[key][1]
    tag = x[0]
    if tag == "c":
        out = {_ONE: int(x[1])} if x[1] else {}
    elif tag == "b":
        out = {_ONE: 1} if x[1] else {}
    elif tag == "neg":
        out = {m: -c for m, c in _poly(x[1], memo).items()}
    elif tag in ("+", "-"):
        out = _chain(x, memo)
    elif tag == "*" and (x[1][0] == "c" or x[2][0] == "c"):
        out = _times(_poly(x[1], memo), _poly(x[2], memo))
    elif tag == "ite":
        then, orelse = _poly(x[2], memo), _poly(x[3], memo)
        out = _add(orelse, _times({frozenset([_condition(x[1])]): 1}, _add(then, orelse, -1)))
    else:  # a slot, a condition, min, max, a product of two unknowns: one atom each
        out = {frozenset([_atom(x)]): 1}
    memo[key] = (x, out)  # the term is kept alive, so that its id is not reused while the memo lives
    return out


def _chain(x, memo: dict) -> dict:
    """The polynomial of a chain of `+` and `-` (a sum over many zones nests to the left), summed in one
    dict rather than copied at each link."""
    parts = []
    node = x
    while node[0] in ("+", "-") and id(node) not in memo:
        parts.append((1 if node[0] == "+" else -1, node[2]))
        node = node[1]
    out = dict(_poly(node, memo))
    for sign, term in reversed(parts):
        for m, c in _poly(term, memo).items():
            out[m] = out.get(m, 0) + sign * c
    return {m: c for m, c in out.items() if c}


def _add(p: dict, q: dict, sign: int = 1) -> dict:
    out = dict(p)
    for m, c in q.items():
        value = out.get(m, 0) + sign * c
        if value:
            out[m] = value
        else:
            out.pop(m, None)
    return out


def _times(p: dict, q: dict) -> dict:
    out: dict = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m = _product(m1, m2)
            if m is None:
                continue
            value = out.get(m, 0) + c1 * c2
            if value:
                out[m] = value
            else:
                out.pop(m, None)
    if len(out) > MONOMIAL_LIMIT:
        raise _TooLarge
    return out


def _product(m1: frozenset, m2: frozenset) -> frozenset | None:
    """The product of two monomials; None where it tests one slot for two different values, which is
    zero. A repeated atom counts once: only conditions (0 or 1) are multiplied here, by a product with a
    constant or by the condition of an `ite`, so a value other than 0 or 1 never meets itself."""
    m = m1 | m2
    seen: dict = {}
    for a in m:
        if a[0] == "==" and seen.setdefault(a[1], a[2]) != a[2]:
            return None
    return m


def _guard_ranges(guard) -> dict[int, tuple[int, int]]:
    """Slot -> (low, high) of the slots the guard's top-level conjunction holds between two constants."""
    low: dict = {}
    high: dict = {}
    stack = [guard]
    while stack:
        g = stack.pop()
        if g[0] == "and":
            stack += [g[1], g[2]]
        elif g[0] in (">=", "<=") and g[1][0] == "s" and g[2][0] == "c":
            (low if g[0] == ">=" else high)[g[1][1]] = g[2][1]
    return {i: (low[i], high[i]) for i in low if i in high and 0 <= high[i] - low[i] < RANGE_LIMIT}


def _partitioned(p: dict, ranges: dict) -> dict:
    """`p` with every group `[u == v]·rest` over all the values `v` of `u`'s range (one coefficient)
    replaced by `rest`, until none is left."""
    changed = True
    while changed:
        changed = False
        for monomial, coefficient in list(p.items()):
            if monomial not in p:
                continue
            for atom in monomial:
                if atom[0] != "==" or atom[1] not in ranges:
                    continue
                low, high = ranges[atom[1]]
                rest = monomial - {atom}
                group = [rest | {("==", atom[1], v)} for v in range(low, high + 1)]
                if all(p.get(g) == coefficient for g in group):
                    for g in group:
                        del p[g]
                    p = _add(p, {rest: coefficient})
                    changed = True
                    break
    return p
