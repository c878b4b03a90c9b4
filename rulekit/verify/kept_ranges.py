"""Ranges of the values a guarded-command system keeps over a decision without a declared range: an
inductive interval analysis of the commands that write them.

The whole-language relation (`verify.control`) keeps the locals of the rules (a `for` loop's seat, a
card chosen earlier in the turn, a player drawn at random) in slots of their own, with no declared
range: in an arbitrary state such a slot may hold anything, a seat that does not exist say, and a
check over arbitrary states (a ranking function, k-induction) then has to account for steps that no
play can take. Here each of those slots gets the interval of the values it can hold: its initial
value joined with what every command can write into it, each write's interval computed from the
declared ranges of the other slots, the support of the command's chance outcomes (its `assume`) and
the intervals found so far for the kept slots themselves. A bound that still grows after a few rounds is
dropped (widening). What is left is an inductive invariant: from a state within every range, each
command leads to a state within them, so every reachable state lies within them, and a check may
assume them as it assumes the declared ranges.
"""
from __future__ import annotations

from .terms import Command, interval

ROUNDS = 4  # rounds before a bound that still grows is dropped


def kept_ranges(slots: list, init: list[int], commands: list[Command], kept: list[int]) -> dict[int, tuple]:
    """Slot index -> (low, high) for each of the slots `kept` (which have no declared range) that the
    analysis bounds on both sides."""
    if not kept:
        return {}
    declared = {i: (s.low, s.high) for i, s in enumerate(slots)}
    found = {i: (init[i], init[i]) for i in kept}
    supports = [chance_support(c.assume) for c in commands]
    for round_ in range(ROUNDS + 1):
        grown = dict(found)
        for command, support in zip(commands, supports):
            env = {**declared, **found, **support}
            memo: dict = {}
            for i in kept:
                if i in command.updates:
                    grown[i] = _join(grown[i], interval(command.updates[i], env, memo))
        if grown == found:
            return {i: r for i, r in found.items() if None not in r}
        if round_ >= ROUNDS - 1:  # widen: a side that moved once more may move for ever
            grown = {i: (r[0] if r[0] == found[i][0] else None, r[1] if r[1] == found[i][1] else None)
                     for i, r in grown.items()}
        found = grown
    return {}


def chance_support(assume) -> dict[int, tuple]:
    """Slot -> (low, high) of each input that a command's `assume` holds to a list of values (a chance
    outcome of nonzero weight is one of them)."""
    out: dict[int, tuple] = {}
    stack = [assume]
    while stack:
        x = stack.pop()
        if x[0] == "and":
            stack += [x[1], x[2]]
            continue
        alternatives, pending = [], [x]
        while pending:
            y = pending.pop()
            if y[0] == "or":
                pending += [y[1], y[2]]
            else:
                alternatives.append(y)
        if not all(a[0] == "==" and a[1][0] == "s" and a[2][0] == "c" for a in alternatives):
            continue
        held = {a[1][1] for a in alternatives}
        if len(held) != 1:
            continue
        i = held.pop()
        values = [a[2][1] for a in alternatives]
        low, high = out.get(i, (min(values), max(values)))
        out[i] = (max(low, min(values)), min(high, max(values)))
    return out


def _join(a: tuple, b: tuple) -> tuple:
    return (None if a[0] is None or b[0] is None else min(a[0], b[0]),
            None if a[1] is None or b[1] is None else max(a[1], b[1]))


__all__ = ["chance_support", "kept_ranges"]
