"""Does every play end? Evidence for one configuration, each piece sound on its own.

- `acyclic`: a complete exploration whose graph has no cycle through states that are not over: every
  play ends (within at most as many steps as there are states).
- `lasso`: a cycle among explored states that are not over (the exploration need not be complete: a
  cycle among the states it saw is a real one). It is turned into engine actions, a prefix from the
  start and a loop, and replayed in the engine: after the loop the state is the same as before it,
  compared on the explorer's exact (seat-order) key, so the loop can be repeated forever. With
  symmetry reduction the explored cycle may close only up to a renaming of the seats; the loop is
  then followed again until the engine state itself repeats.
- `ranking`: a lexicographic linear ranking function over a guarded-command system (the exact
  symbolic relation of `verify.fragment`, or the whole-language relation of `verify.control`, whose
  steps go from one decision to the next), found by Z3: at each level the sums a reader names first
  are tried first (the cards in one zone, taken down or built up), then counterexample-guided search
  (candidate weights from the differences seen so far), each checked over every state within the
  declared bounds. Each level is a weighted sum of the slots that change and have a declared range
  (variables, tokens, card counts, the control location), so it is bounded; every command strictly
  decreases one level and does not increase the levels before it. Hence no infinite run: the first
  level whose commands run infinitely often would decrease forever. A slot with no range (a counter,
  a value kept for later) and an input (a chance outcome, a value chosen for an action) are weighed
  by no level and may hold any value in each check, so a ranking holds whatever they hold.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import Unsupported, budget
from . import terms as t


@dataclass
class Lasso:
    prefix: list[int]  # engine actions (chance outcomes included) from the start
    loop: list[int]  # engine actions that lead back to the state after the prefix
    chance: bool  # whether the loop takes chance outcomes (then it repeats only when chance repeats)


def _cyclic_components(exploration, within: set | None = None) -> tuple[list[set], object]:
    import networkx as nx

    over = set(exploration.terminal)
    edges = exploration.edges
    graph = nx.DiGraph()
    for i, succ in enumerate(edges):
        if i in over or (within is not None and i not in within):
            continue
        for j in succ:
            if j not in over and (within is None or j in within):
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


# ---- ranking functions over the exact symbolic relation -------------------------------------------

@dataclass
class Ranking:
    levels: list = field(default_factory=list)  # [(weights {slot name: weight}, [command labels])]

    def text(self) -> str:
        parts = []
        for weights, labels in self.levels:
            sum_ = " + ".join(f"{w}*{name}" if w != 1 else name for name, w in weights.items()) or "0"
            parts.append(f"{sum_} (strictly decreased by {len(labels)} action(s))")
        return "; then ".join(parts)


def ranking(system: t.System, timeout_ms: int = 1000, weight_bound: int = 4, rounds: int = 40) -> tuple[Ranking | None, str]:
    """(a lexicographic linear ranking function, "") or (None, why none was found)."""
    import z3

    from . import smtlib

    slots = system.slots
    changing = sorted({i for c in system.commands for i in c.updates if i != system.over})
    bounded = [i for i in changing if slots[i].low is not None and slots[i].high is not None]
    if not bounded:
        return None, "no slot that changes has a declared range, so no weighted sum of them is bounded"
    # A slot with no range (a counter, a kept value) and an input (a chance outcome, a chosen value) may
    # hold anything: each check holds for all of their values, and no level weighs them. A slot that
    # never changes keeps its first value.
    variable = sorted({*changing, system.over, *system.free})
    kept = set(variable)
    fixed = {i: v for i, v in enumerate(system.init) if i not in kept}

    def pre(x):
        return t.substitute(x, fixed) if fixed else x

    n = len(slots)
    names = {i: f"x!{i}" for i in variable}  # slot i before the step; n + i: after it
    names.update({n + i: f"y!{i}" for i in bounded})
    xs = {i: z3.Int(names[i]) for i in variable}
    domain = [z3.And(xs[i] >= slots[i].low, xs[i] <= slots[i].high) for i in bounded]
    commands = [c for c in system.commands if c.guard != t.FALSE]
    enabled = {}
    delta = {}
    for c in commands:
        parts = [pre(c.guard), pre(c.assume), t.compare("==", ("s", system.over), t.const(0))]
        if system.over in c.updates:  # a step that ends the game is on no infinite run
            parts.append(t.compare("==", pre(c.updates[system.over]), t.const(0)))
        if c.error != t.FALSE:
            parts.append(t.not_(pre(c.error)))
        moved = [i for i in bounded if i in c.updates]
        parts += [t.compare("==", ("s", n + i), pre(c.updates[i])) for i in moved]
        # one SMT-LIB formula per command (see `smtlib`): the step, its slots after it named y!i
        enabled[id(c)] = smtlib.condition(t.and_(*parts), names)
        delta[id(c)] = {i: z3.Int(names[n + i]) - xs[i] for i in moved}
    remaining = list(commands)
    result = Ranking()
    natural = _natural_sums(slots, bounded)
    while remaining:
        level = _natural_level(natural, remaining, domain, enabled, delta, timeout_ms)
        if level is None:
            found = None
            for first in remaining:
                weights = _weights(first, remaining, domain, enabled, delta, bounded, weight_bound, rounds,
                                   timeout_ms)
                if isinstance(weights, str):
                    if weights.startswith("the resource") or weights.startswith("the wall-clock"):
                        return None, weights
                    continue
                if weights is not None:
                    found = weights
                    break
            if found is None:
                labels = ", ".join(c.label for c in remaining[:3])
                return None, (f"no weighted sum of the variables, tokens and card counts decreases on every play "
                              f"of {labels}{' and others' if len(remaining) > 3 else ''} (weights up to "
                              f"{weight_bound})")
            level = found, [c for c in remaining if _holds(c, found, -1, domain, enabled, delta, timeout_ms) is True]
        weights, strict = level
        result.levels.append(({slots[i].name: w for i, w in weights.items() if w}, [c.label for c in strict]))
        remaining = [c for c in remaining if c not in strict]
    return result, ""


def _natural_sums(slots, bounded: list) -> list[dict]:
    """Weights of the quantities a reader names first: the cards in one zone (every seat's or place's
    of a zone laid out per player or per position), taken down or built up."""
    zones: dict = {}
    for i in bounded:
        if slots[i].key[0] == "zone":
            zones.setdefault(slots[i].key[1], []).append(i)
    return [{i: sign for i in members} for members in zones.values() for sign in (1, -1)]


def _natural_level(natural: list, remaining, domain, enabled, delta, timeout_ms) -> tuple | None:
    """The first of the `natural` weights that no command of `remaining` increases and some decrease:
    (the weights, the commands that strictly decrease them), or None."""
    for weights in natural:
        if all(_holds(c, weights, 0, domain, enabled, delta, timeout_ms) is True for c in remaining):
            strict = [c for c in remaining if _holds(c, weights, -1, domain, enabled, delta, timeout_ms) is True]
            if strict:
                return weights, strict
    return None


def _holds(c, weights: dict, bound: int, domain, enabled, delta, timeout_ms):
    """True when the weighted change of command c is <= bound in every state where it is enabled;
    else the counterexample's changes {slot: change}, or a string saying why it is unknown."""
    import z3

    change = z3.Sum([w * d for i, d in delta[id(c)].items() if (w := weights.get(i, 0))] or [z3.IntVal(0)])
    solver = budget.solver(timeout_ms)
    solver.add(*domain, enabled[id(c)], change > bound)
    r = budget.check(solver)
    if r == z3.unsat:
        return True
    if r == z3.unknown:
        return budget.unknown_reason(solver)
    model = solver.model()
    return {i: model.eval(d, model_completion=True).as_long() for i, d in delta[id(c)].items()}


def _weights(first, remaining, domain, enabled, delta, bounded, weight_bound, rounds, timeout_ms):
    """Weights making `first` strictly decrease and no command of `remaining` increase, or None."""
    import z3

    ws = {i: z3.Int(f"w{i}") for i in bounded}
    chooser = budget.solver(timeout_ms)
    chooser.add(*(z3.And(w >= -weight_bound, w <= weight_bound) for w in ws.values()))
    for _ in range(rounds):
        r = budget.check(chooser)
        if r == z3.unsat:
            return None
        if r == z3.unknown:
            return budget.unknown_reason(chooser)
        model = chooser.model()
        weights = {i: model.eval(w, model_completion=True).as_long() for i, w in ws.items()}
        failed = False
        for c in [first, *(c for c in remaining if c is not first)]:
            bound = -1 if c is first else 0
            answer = _holds(c, weights, bound, domain, enabled, delta, timeout_ms)
            if answer is True:
                continue
            if isinstance(answer, str):
                return answer
            chooser.add(z3.Sum([ws[i] * d for i, d in answer.items()] or [z3.IntVal(0)]) <= bound)
            failed = True
            break
        if not failed:
            return weights
    return None


__all__ = ["Lasso", "Ranking", "acyclic", "lasso", "ranking", "Unsupported"]
