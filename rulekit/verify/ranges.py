"""Ranges of the integer variables a spec declares without one: an interval analysis of every `set`,
`add` and `subtract` of the rules.

A variable starts at its initial value (per seat) and changes only by those statements. Each one is
read as a term over an unknown state (`fragment.Builder.ev`), and its value's interval is taken from
the bounds every slot is known to keep: declared ranges, card counts between 0 and the copies of the
kind, tokens between 0 and the supply, and the ranges found so far for the variables analysed here.
The interval of a variable is the union of its initial values and of what each of its writes can give
(each write the configuration leaves in the rules, `live`), whatever the order the statements run in
and whatever the seat they name. After one round, a bound
that a write can push further is dropped (widening), so the analysis ends after a few rounds.

The result over-approximates every reachable state, so the counts abstraction may assume it (the
facts of `segments.state_proofs`): a score only ever increased by non-negative amounts is at least its
initial value, however the game goes.
"""
from __future__ import annotations

from .. import model as m
from . import live
from .terms import interval

Range = tuple  # (low or None, high or None)


def derived_ranges(builder) -> dict[str, Range]:
    """Variable name -> (low, high) for each integer variable declared without a range, where the
    analysis bounds a side; a side left open is None."""
    game = builder.g
    open_ = {v.name: v for v in game.vars if v.type.kind == "int" and v.low is None}  # a range gives both sides
    if not open_:
        return {}
    slots = {name: builder.family(("var", name), decl.per_player) for name, decl in open_.items()}
    ranges = {name: (min(builder.init[i] for i in ss), max(builder.init[i] for i in ss))
              for name, ss in slots.items()}
    writes = [(st.var, st.op, live.value_of(builder, st.value, {})) for st in live.everywhere(builder.g)
              if isinstance(st, m.Assign) and st.var in open_]
    base = _known_bounds(builder)
    first = True
    while True:
        env = dict(base)
        for name, ss in slots.items():
            env.update({i: ranges[name] for i in ss})
        grown = dict(ranges)
        for name, op, value in writes:
            grown[name] = _join(grown[name], _after(ranges[name], op, interval(value, env) if value else (None, None)))
        # One round as computed (a `set` to a constant is then within its range), then widening.
        widened = grown if first else {name: _widen(ranges[name], grown[name]) for name in ranges}
        first = False
        if widened == ranges:
            break
        ranges = widened
    return {name: r for name, r in ranges.items() if r != (None, None)}


def _known_bounds(builder) -> dict[int, Range]:
    """Slot -> the interval it keeps whatever happens: its declared range, a card count's 0 to the
    copies of its kind, a token count's 0 to its supply; an unknown's domain."""
    out = {}
    supplies = builder.config.supplies
    for i, slot in enumerate(builder.slots):
        key = slot.key
        if key[0] == "zone":
            out[i] = (0, max(0, builder.counts[key[3]]))
        elif key[0] in ("supply", "held"):
            out[i] = (0, max(0, supplies[key[1]]))
        elif slot.low is not None or slot.high is not None:
            out[i] = (slot.low, slot.high)
    out.update(getattr(builder, "domains", {}))
    return out


def _after(old: Range, op: str, value: Range) -> Range:
    (a0, a1), (b0, b1) = old, value
    if op == "=":
        return value
    if op == "+":
        return (a0 + b0 if None not in (a0, b0) else None, a1 + b1 if None not in (a1, b1) else None)
    return (a0 - b1 if None not in (a0, b1) else None, a1 - b0 if None not in (a1, b0) else None)


def _join(a: Range, b: Range) -> Range:
    low = None if a[0] is None or b[0] is None else min(a[0], b[0])
    high = None if a[1] is None or b[1] is None else max(a[1], b[1])
    return low, high


def _widen(old: Range, new: Range) -> Range:
    """`new`, with a side that moved past `old` dropped: iterating would only push it further."""
    low = old[0] if new[0] is not None and old[0] is not None and new[0] >= old[0] else None
    high = old[1] if new[1] is not None and old[1] is not None and new[1] <= old[1] else None
    return low, high
