"""The networkx backend: the turn-structure graph of a game, and the strongly connected components of
explored state graphs (play that can go on forever)."""
from __future__ import annotations

import dataclasses
from collections import deque

import networkx as nx

from .. import model as m
from .successors import Successors

SCC_LIMIT = 300_000  # above this many trapped states, SCCs are not computed (reported as such)


def trapped(exploration) -> tuple[int, int, int] | None:
    """In a complete exploration: the states from which no end can be reached and that lie on a cycle.

    Returns (a shortest-path witness state, how many such states, how many strongly connected
    components with a cycle), or None when every cycle has a way out to an end. States with no move
    at all are deadlocks, reported on their own.
    """
    edges = exploration.edges
    n = len(edges)
    reverse = (edges if isinstance(edges, Successors) else Successors.of(edges)).reverse()
    can_end = bytearray(n)
    queue = deque(exploration.terminal)
    for t in exploration.terminal:
        can_end[t] = 1
    while queue:
        j = queue.popleft()
        for i in reverse[j]:
            if not can_end[i]:
                can_end[i] = 1
                queue.append(i)
    stuck = [i for i in range(n) if not can_end[i]]
    if not stuck:
        return None
    if len(stuck) > SCC_LIMIT:
        cyclic = [i for i in stuck if edges[i]]  # every trapped state with a move leads into a cycle
        return (min(cyclic), len(cyclic), -1) if cyclic else None
    graph = nx.DiGraph()
    graph.add_nodes_from(stuck)
    inside = set(stuck)
    graph.add_edges_from((i, j) for i in stuck for j in edges[i] if j in inside)
    components = [c for c in nx.strongly_connected_components(graph)
                  if len(c) > 1 or any(graph.has_edge(i, i) for i in c)]
    if not components:
        return None
    states = sum(len(c) for c in components)
    return min(min(c) for c in components), states, len(components)


# ---- the turn structure: flow, procedures, rules, choice points, actions, triggers ------------------

def _label(node) -> str | None:
    if isinstance(node, m.Procedure):
        return f"procedure {node.name}"
    if isinstance(node, m.Rule):
        return f"rule {node.name}"
    if isinstance(node, m.Action):
        return f"action {node.name}"
    if isinstance(node, (m.Choose, m.Random)):
        return f"{type(node).__name__.lower()} point {node.point}"
    if isinstance(node, (m.Turns, m.Rounds)):
        return type(node).__name__.lower()
    name = getattr(node, "name", None)
    if isinstance(node, m.Stmt) or type(node).__name__ not in vars(m):
        return f"{type(node).__name__.lower()} {name}" if isinstance(name, str) else None
    return None


def turn_graph(game: m.Game) -> nx.DiGraph:
    """Nodes: the flow, procedures, rules, turns and rounds, choice and chance points, actions (and any
    named statement a newer model has); edges: "contains" and "calls" (a `do`)."""
    g = nx.DiGraph()
    roots = [("flow", game.flow), *((f"procedure {p.name}", p) for p in game.procedures)]
    for label, _ in roots:
        g.add_node(label)
    for label, root in roots:
        stack = [(label, child) for child in m.children(root)]
        while stack:
            parent, node = stack.pop()
            here = parent
            own = _label(node)
            if own is not None and own != parent:
                g.add_edge(parent, own, kind="contains")
                here = own
            if isinstance(node, m.Do):
                g.add_edge(here, f"procedure {node.procedure}", kind="calls")
            if isinstance(node, (m.Expr, m.Iter, m.Binder)):
                for name in _functions_called(node):  # a function is called where its value is read
                    g.add_edge(here, f"procedure {name}", kind="calls")
                continue
            stack.extend((here, child) for child in m.children(node))
    # Top-level model nodes that a newer model may add (triggers, ...) start from the flow too.
    for f in dataclasses.fields(game):
        value = getattr(game, f.name)
        if isinstance(value, tuple) and value and f.name not in (
                "enums", "attrs", "components", "facts", "claims", "tokens", "zones", "vars", "defines", "procedures",
                "ambiguities", "unmodelled", "properties", "expected", "quotes"):
            for item in value:
                if dataclasses.is_dataclass(item):
                    label = _label(item) or f"{f.name} {getattr(item, 'name', '?')}"
                    g.add_edge("flow", label, kind="contains")
                    for child in m.children(item):
                        if isinstance(child, m.Do):
                            g.add_edge(label, f"procedure {child.procedure}", kind="calls")
                    for name in _functions_called(item):
                        g.add_edge(label, f"procedure {name}", kind="calls")
    # A definition is read wherever it is used: the functions it calls count as called from the flow.
    for d in (*game.defines, *game.properties):
        for name in _functions_called(d):
            g.add_edge("flow", f"procedure {name}", kind="calls")
    return g


def _functions_called(node) -> set[str]:
    return {x.procedure for x in m.nodes(node) if isinstance(x, m.ProcedureCall)}


def turn_structure(game: m.Game) -> dict:
    g = turn_graph(game)
    reached = nx.descendants(g, "flow") | {"flow"}
    unreachable = sorted(n for n in g.nodes if n not in reached and n.startswith("procedure "))
    return {"nodes": g.number_of_nodes(), "edges": g.number_of_edges(), "unreachable": unreachable, "graph": g}
