"""Where each card kind can ever be: the zones a kind can reach from where the game puts it, along the
moves the rules contain under the configuration (a move in a branch or an action that its options
rule out is not one).

A card changes zone only by a `move` (a `rotate` passes a family's zones between seats, within the
family), so a kind is only ever in the zone where every component starts (the first `initial` zone)
or in a zone that some move can carry it to from a zone it can already be in. Each move is an edge
from its source zone to its destination zone, for the kinds its selector can take: a given kind, the
kinds its condition does not rule out, or every kind. Whether the move ever runs, how many cards it
takes and which seat's or position's zone it names are all ignored, so the answer over-approximates
every reachable state: a kind that cannot reach a zone is never in it.

This is the support of the place invariants of the Petri net whose places are the zones and whose
tokens are the cards: what lets the counts abstraction prove that a conservation law counts every
zone a card can be in (`segments._state_facts`), however many kinds the game has.
"""
from __future__ import annotations

from .. import model as m
from ..lower import core
from . import Unsupported, budget
from .fragment import Store
from .terms import FALSE, TRUE, const


def reachable_kinds(builder) -> dict[str, frozenset[int]] | None:
    """Zone name -> the kinds that can ever be in a zone of that name (any seat, any position), for the
    configuration `builder` (a `fragment.Builder`) translates; None when a move names its source or
    destination by something other than a zone, so that the edges cannot be read off the rules."""
    game = builder.g
    kinds = [k for k, count in enumerate(builder.counts) if count > 0]
    start = next((z.name for z in game.zones if z.initial), None)
    where: dict[str, set[int]] = {z.name: set() for z in game.zones}
    if start is not None:
        where[start].update(kinds)
    edges = []
    for body in m.bodies(game):
        for st in _moves(builder, body):
            source, dest = getattr(st.source, "zone", None), getattr(st.dest, "zone", None)
            if source not in where or dest not in where:
                return None
            edges.append((source, dest, _kinds_taken(builder, st.selector, kinds)))
    changed = True
    while changed:
        changed = False
        for source, dest, taken in edges:
            new = (where[source] & taken) - where[dest]
            if new:
                where[dest] |= new
                changed = True
    return {name: frozenset(ks) for name, ks in where.items()}


def _moves(builder, stmts):
    """The moves among `stmts` and below, but for those the configuration rules out whatever the state: a
    branch after one that always runs or whose condition is always false, an action that is never
    allowed (an option's `when`, say)."""
    for st in stmts:
        if isinstance(st, m.Move):
            yield st
        elif isinstance(st, m.If):
            for cond, body in st.branches:
                value = _value(builder, cond, {})
                if value != FALSE:
                    yield from _moves(builder, body)
                if value == TRUE:
                    break
            else:
                yield from _moves(builder, st.orelse)
        elif isinstance(st, m.Choose):
            for action in st.actions:
                if action.when is None or _value(builder, action.when, {}) != FALSE:
                    yield from _moves(builder, action.body)
        else:
            for name in m.field_names(type(st)):
                inner = getattr(st, name)
                if isinstance(inner, tuple) and inner and isinstance(inner[0], m.Stmt):
                    yield from _moves(builder, inner)


def _kinds_taken(builder, selector, kinds: list[int]) -> set[int]:
    """The kinds a move's selector can take: all of them unless its condition, or the kind it names,
    rules some out whatever the state."""
    if isinstance(selector, core.GivenCard):
        if selector.card.type == m.CARDS:
            return set(kinds)
        value = _value(builder, selector.card, {})
        return {value[1]} if value is not None and value[0] == "c" else set(kinds)
    cond = getattr(selector, "cond", None)
    if cond is None:
        return set(kinds)
    return {k for k in kinds if _value(builder, cond, {selector.slot: const(k)}) != FALSE}


def _value(builder, expr, env: dict):
    """`expr` as a term over an unknown state (None where the builder cannot read it): a constant when
    the rules fix it whatever the state."""
    store = Store([("s", i) for i in range(len(builder.slots))])
    try:
        return builder.ev(expr, store, dict(env))
    except budget.TooLarge:
        raise  # a limit that holds: the caller ends in an honest unknown
    except Unsupported:
        return None
