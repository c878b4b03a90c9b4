"""Does every play end? Evidence for one configuration, each piece sound on its own.

- `acyclic`: a complete exploration whose graph has no cycle through states that are not over: every
  play ends (within at most as many steps as there are states).
- `lasso`: a cycle among explored states that are not over (the exploration need not be complete: a
  cycle among the states it saw is a real one). It is turned into engine actions, a prefix from the
  start and a loop, and replayed in the engine: after the loop the state is the same as before it,
  compared on the explorer's exact (seat-order) key, so the loop can be repeated forever. With
  symmetry reduction the explored cycle may close only up to a renaming of the seats; the loop is
  then followed again until the engine state itself repeats.
- `ranking`: a lexicographic linear ranking function over a guarded-command system, found by Z3
  (`verify.ranking`): every command strictly decreases one bounded level and increases none before it.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import Unsupported
from .ranking import Ranking, ranking
from .successors import cyclic_core


@dataclass
class Lasso:
    prefix: list[int]  # engine actions (chance outcomes included) from the start
    loop: list[int]  # engine actions that lead back to the state after the prefix
    chance: bool  # whether the loop takes chance outcomes (then it repeats only when chance repeats)


def _cyclic_components(exploration, within: set | None = None) -> tuple[list[set], object]:
    import networkx as nx

    over = set(exploration.terminal)
    edges = exploration.edges
    if within is None:  # the whole graph: only the states that can lie on a cycle need a graph object
        within = set(cyclic_core(edges, over))
    graph = nx.DiGraph()
    for i in sorted(within):
        if i in over:
            continue
        for j in edges[i]:
            if j not in over and j in within:
                graph.add_edge(i, j)
    return [c for c in nx.strongly_connected_components(graph)
            if len(c) > 1 or graph.has_edge(next(iter(c)), next(iter(c)))], graph


def acyclic(exploration) -> bool:
    """True when the exploration is complete and no cycle avoids the ends."""
    if not exploration.complete or exploration.edges is None:
        return False
    components, _ = _cyclic_components(exploration)
    return not components


def lasso(exploration, key_of, exact_key_of, max_repeats: int = 24, within: set | None = None) -> Lasso | None:
    """A replayed lasso from the explored graph, or None (no cycle seen, or none that replays).
    `key_of(state)` is the explorer's key (up to seat renaming when it used symmetry);
    `exact_key_of(state)` tells engine states apart exactly. With `within`, only cycles through
    those states are tried."""
    if exploration.edges is None:
        return None
    import networkx as nx

    components, graph = _cyclic_components(exploration, within)
    if not components:
        return None
    loaded = exploration.loaded
    for component in sorted(components, key=min)[:3]:
        entry = min(component)  # breadth-first numbering: the cycle with the shortest prefix
        inside = graph.subgraph(component)
        back = min((p for p in inside.predecessors(entry)), key=lambda p: nx.shortest_path_length(inside, entry, p))
        cycle = nx.shortest_path(inside, entry, back) + [entry]
        prefix = exploration.path(entry)
        try:
            state = loaded.replay(prefix)
        except Exception:  # noqa: BLE001 - a path that does not replay is no witness
            continue
        targets = [key_of(loaded.replay(exploration.path(j))) for j in cycle[1:]]
        start = exact_key_of(state)
        loop: list[int] = []
        chance = False
        for _ in range(max_repeats):
            for target in targets:
                step = next((a for a in state.legal if _child_key(state, a, key_of) == target), None)
                if step is None:
                    break
                chance = chance or state.chance is not None
                state.apply_action(step)
                loop.append(step)
            else:
                if exact_key_of(state) == start:
                    return Lasso(prefix, loop, chance)
                continue
            break
    return None


def _child_key(state, action, key_of):
    child = state.clone()
    try:
        child.apply_action(action)
    except Exception:  # noqa: BLE001 - a refused action leads nowhere
        return None
    return key_of(child)


__all__ = ["Lasso", "Ranking", "acyclic", "lasso", "ranking", "Unsupported"]
