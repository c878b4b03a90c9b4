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
zone a card can be in (the facts of `segments.state_proofs`), however many kinds the game has.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import model as m
from ..lower import core
from . import live
from .terms import FALSE, const


@dataclass
class KindFlow:
    """`where`: zone name -> the kinds that can ever be in a zone of that name (any seat, any position);
    `moves`: each move the configuration leaves in the rules, with the kinds its selector can take and
    those it can ever carry (of those, the ones its source can hold), in the order of the rules;
    `start`: the zone where every component starts (None when no zone is `initial`)."""

    where: dict[str, frozenset[int]]
    moves: list[tuple[m.Move, frozenset[int], frozenset[int]]]
    start: str | None


def kind_flow(builder) -> KindFlow | None:
    """Where the kinds can be, for the configuration `builder` (a `fragment.Builder`) translates; None
    when a move names its source or destination by something other than a zone, so that the edges
    cannot be read off the rules."""
    game = builder.g
    kinds = [k for k, count in enumerate(builder.counts) if count > 0]
    start = next((z.name for z in game.zones if z.initial), None)
    where: dict[str, set[int]] = {z.name: set() for z in game.zones}
    if start is not None:
        where[start].update(kinds)
    edges = []
    for st in live.everywhere(builder.g):
        if isinstance(st, m.Move):
            source, dest = getattr(st.source, "zone", None), getattr(st.dest, "zone", None)
            if source not in where or dest not in where:
                return None
            edges.append((st, source, dest, frozenset(_kinds_taken(builder, st.selector, kinds))))
    changed = True
    while changed:
        changed = False
        for _, source, dest, taken in edges:
            new = (where[source] & taken) - where[dest]
            if new:
                where[dest] |= new
                changed = True
    return KindFlow({name: frozenset(ks) for name, ks in where.items()},
                    [(st, taken, frozenset(where[source] & taken)) for st, source, _, taken in edges], start)


def _kinds_taken(builder, selector, kinds: list[int]) -> set[int]:
    """The kinds a move's selector can take: all of them unless its condition, or the kind it names,
    rules some out whatever the state."""
    if isinstance(selector, core.GivenCard):
        if selector.card.type == m.CARDS:
            return set(kinds)
        value = live.value_of(builder, selector.card, {})
        return {value[1]} if value is not None and value[0] == "c" else set(kinds)
    cond = getattr(selector, "cond", None)
    if cond is None:
        return set(kinds)
    # Only the conjuncts about the card alone can rule a kind out whatever the state; reading the others
    # for every kind would cost a walk of the state per kind.
    about_card = [c for c in _conjuncts(cond) if all(isinstance(n, _CARD_ONLY) for n in m.nodes(c))]
    return {k for k in kinds
            if not any(live.value_of(builder, c, {selector.slot: const(k)}) == FALSE for c in about_card)}


# What a condition about the card alone is made of: its attributes, constants, facts and arithmetic.
_CARD_ONLY = (m.Const, m.Local, m.Attr, m.Unary, m.Binary, m.IfExpr, m.SetLit, m.FactRef, m.OptionIs,
              core.PlayerCount)


def _conjuncts(cond) -> list:
    if isinstance(cond, m.Binary) and cond.op == "and":
        return _conjuncts(cond.left) + _conjuncts(cond.right)
    return [cond]
