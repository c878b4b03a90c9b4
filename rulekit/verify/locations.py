"""Which commands of a system can run again and again: the cycles of its control locations.

A system with a `pc` slot (the whole-language relation) waits at one location at a time, and each
command leaves from one location (its guard says which) for a few others (its update of `pc`). A
command whose step leads away from its location for good (no chain of commands leads back) runs at
most once in any play: the set-up, the last round's scoring. So an infinite play runs, from some step
on, only commands that stay within one strongly connected component of the locations, and a ranking
function is needed for each such component on its own, not for all the commands at once.
"""
from __future__ import annotations

from .terms import Command, System


def recurring(system: System) -> tuple[list[list[Command]], list[Command]] | None:
    """(the commands that can recur, grouped by the component of the locations they stay within; the
    commands that run at most once in a play), or None when the system has no control location."""
    import networkx as nx

    pc = pc_slot(system)
    if pc is None:
        return None
    everywhere = set(range((system.slots[pc].high or 0) + 1))
    moves = []  # per command: [(from, to)]
    for c in system.commands:
        sources = source_of(c.guard, pc)
        update = c.updates.get(pc)
        moves.append([(a, b) for a in (everywhere if sources is None else sources)
                      for b in (_targets(update, pc, everywhere) if update is not None else ())])
    graph = nx.DiGraph()
    graph.add_nodes_from(everywhere)
    graph.add_edges_from(edge for edges in moves for edge in edges)
    component = {x: n for n, members in enumerate(nx.strongly_connected_components(graph)) for x in members}
    # A command that recurs within two components (one whose location is not pinned) joins them.
    joined = nx.Graph()
    recurs_in = []
    for c, edges in zip(system.commands, moves):
        inside = sorted({component[a] for a, b in edges
                         if component[a] == component[b] and (a != b or graph.has_edge(a, a))})
        recurs_in.append(inside)
        joined.add_nodes_from(inside)
        joined.add_edges_from(zip(inside, inside[1:]))
    part = {n: k for k, members in enumerate(nx.connected_components(joined)) for n in members}
    groups: dict[int, list[Command]] = {}
    once = []
    for c, inside in zip(system.commands, recurs_in):
        if inside:
            groups.setdefault(part[inside[0]], []).append(c)
        else:
            once.append(c)
    return [groups[k] for k in sorted(groups)], once


def pc_slot(system: System) -> int | None:
    """The slot of the control location (`pc`), or None when the system has none."""
    return next((i for i, s in enumerate(system.slots) if s.key == ("pc",)), None)


def source_of(guard, pc: int) -> set[int] | None:
    """The location a command's guard allows (a conjunct `pc == v`), as a set of one, or None when it
    does not pin one."""
    stack = [guard]
    while stack:
        x = stack.pop()
        if x[0] == "and":
            stack += [x[1], x[2]]
        elif x[0] == "==" and x[1] == ("s", pc) and x[2][0] == "c":
            return {x[2][1]}
        elif x[0] == "==" and x[2] == ("s", pc) and x[1][0] == "c":
            return {x[1][1]}
    return None


def targets(update, pc: int) -> set[int] | None:
    """The locations an update of `pc` can lead to, or None where it computes `pc` otherwise than by
    choosing among constants (see `_targets`)."""
    return _targets(update, pc, None)


def _targets(update, pc: int, everywhere: set | None) -> set[int] | None:
    """The locations an update of `pc` can lead to: the constants it chooses among, or every location
    where it computes `pc` otherwise. A path that keeps `pc` as it was leads nowhere: in the
    whole-language relation every path of a command either stops at a location, which writes `pc`, or
    ends the game (or fails)."""
    out: set = set()
    stack, seen = [update], set()
    while stack:
        x = stack.pop()
        if id(x) in seen:  # the branches of a command share their subterms
            continue
        seen.add(id(x))
        if x[0] == "ite":
            stack += [x[2], x[3]]
        elif x[0] == "c":
            out.add(x[1])
        elif x != ("s", pc):
            return everywhere
    return out
