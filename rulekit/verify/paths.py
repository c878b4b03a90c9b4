"""A guarded command split along the branches that decide most of what it does.

One command of a relation can stand for steps that do very different things: the last card played
in a round is one step that plays it and, when every hand is then empty, also ends the round and
deals again. Its updates are `ite` terms on that condition. Split on it, the command becomes two
commands, each with the condition (or its negation) added to its guard and the branches it rules
out folded away; together they allow exactly the steps the command allowed.
"""
from __future__ import annotations

import dataclasses

from . import terms as t

# At most this many conditions per command, so at most 2 ** SPLIT_CONDITIONS parts of it.
SPLIT_CONDITIONS = 2
# A command whose update terms have more nodes than this is left whole: splitting it would cost more
# than the analyses it serves.
SPLIT_SIZE_LIMIT = 20_000


def split(command: t.Command, slots: list[int], shapes: t.Shapes | None = None) -> list[t.Command]:
    """The parts of `command` along the (at most SPLIT_CONDITIONS) conditions that decide the updates
    of the most of `slots`, each deciding at least two of them; `[command]` where none does. Parts
    whose guard folds to false are left out."""
    shapes = t.Shapes() if shapes is None else shapes
    deciding = deciding_conditions(command, slots, shapes)
    parts = [command]
    for condition in deciding:
        shape, halves = shapes.of(condition), []
        for whole in parts:
            if not _branches_on(whole, slots, shape, shapes):  # an earlier split folded it away
                halves.append(whole)
                continue
            for holds in (True, False):
                part = _assuming(whole, condition, holds, shapes)
                if part is not None:
                    halves.append(part)
        parts = halves
    return parts


def _branches_on(command: t.Command, slots: list[int], shape: int, shapes: t.Shapes) -> bool:
    return any(shapes.of(c) == shape for i in slots if i in command.updates
               for c in _branch_conditions(command.updates[i]))


def deciding_conditions(command: t.Command, slots: list[int], shapes: t.Shapes, least: int = 2) -> list:
    """The (at most SPLIT_CONDITIONS) conditions that the updates of most of `slots` branch on, each
    deciding at least `least` of them, the most deciding first."""
    terms = [command.updates[i] for i in slots if i in command.updates]
    if not terms or t.size(*terms) > SPLIT_SIZE_LIMIT:
        return []
    decides: dict[int, set] = {}  # a condition's shape -> the slots whose update branches on it
    first: dict[int, tuple] = {}  # a condition's shape -> one term of that shape
    for i in slots:
        if i not in command.updates:
            continue
        for condition in _branch_conditions(command.updates[i]):
            shape = shapes.of(condition)
            decides.setdefault(shape, set()).add(i)
            first.setdefault(shape, condition)
    ranked = sorted((shape for shape, which in decides.items() if len(which) >= least),
                    key=lambda shape: (-len(decides[shape]), shape))
    return [first[shape] for shape in ranked[:SPLIT_CONDITIONS]]


def _branch_conditions(x) -> list:
    """The conditions of the `ite` nodes on the way to the value of `x` (not those inside another
    condition, which only help decide it), each node visited once."""
    out, seen, stack = [], set(), [x]
    while stack:
        y = stack.pop()
        if id(y) in seen or y[0] in ("c", "b", "s"):
            continue
        seen.add(id(y))
        if y[0] == "ite":
            out.append(y[1])
            stack += [y[2], y[3]]
        elif not t.is_bool(y):
            stack.extend(y[1:])
    return out


def _assuming(command: t.Command, condition, holds: bool, shapes: t.Shapes) -> t.Command | None:
    keys = list(command.updates)
    guard, assume, error, *updates = t.assuming(
        [command.guard, command.assume, command.error, *(command.updates[i] for i in keys)],
        condition, holds, shapes)
    guard = t.and_(guard, condition if holds else t.not_(condition))
    if guard == t.FALSE:
        return None
    return dataclasses.replace(command, guard=guard, assume=assume, error=error,
                               updates=dict(zip(keys, updates)), enabled=None)


__all__ = ["SPLIT_CONDITIONS", "deciding_conditions", "split"]
