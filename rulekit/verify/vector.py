"""Explicit-state exploration of a configuration in the symbolic fragment, a whole frontier at a time.

The states of a `terms.System` are integers within declared bounds, so each state is one mixed-radix
code (an int64). Breadth first, level by level: the frontier's codes are decoded into one numpy array
per slot; every command's guard, error condition and updates are evaluated on the whole frontier at
once (numpy code generated from the IR); a successor's code is its parent's plus the weighted change of
the slots the command writes; successors are deduplicated with `np.unique` and against the sorted
array of visited codes. Parent pointers and commands are kept per state, so every witness is a
shortest path of engine actions, replayed in the engine by the caller.

Only slots that some command writes are encoded: the others keep their initial value, which is
substituted into every expression before code is generated. A value outside its declared bounds stops
the exploration with `Unsupported` rather than a wrong code (the bounds hold by construction: ranges
are enforced, tokens and cards are conserved).

Symmetry reduction (seats interchangeable, by `explore.seat_symmetry`): each seat's slots form one block
of the code; visited states are keyed by the code with the blocks sorted, so states that differ only by
a renaming of the seats share one key. The frontier keeps the successors as they are, so witnesses
replay as they were found.
"""
from __future__ import annotations

import time

import numpy as np

from .. import model as m
from . import Unsupported
from . import budget, fragment, replay
from . import terms as t
from .explore import Exploration, Limits, seat_symmetry

_LIMIT = 1 << 62


class VectorExploration(Exploration):
    """An `Exploration` whose parents and actions are numpy arrays."""

    def path(self, index: int) -> list[int]:
        out = []
        while index > 0:
            out.append(int(self.via[index]))
            index = int(self.parent[index])
        return out[::-1]


class _Code:
    """How slot values pack into one int64, and back."""

    def __init__(self, system: t.System, changing: list[int], symmetric: bool):
        slots = system.slots
        for i in changing:
            if slots[i].low is None or slots[i].high is None:
                raise Unsupported(f"{slots[i].name} has no declared range, so states have no finite code")
        self.low = {i: slots[i].low for i in changing}
        radix = {i: slots[i].high - slots[i].low + 1 for i in changing}
        n = system.players
        self.symmetric = symmetric and n > 1
        self.mult: dict[int, int] = {}
        if self.symmetric:
            families: dict[tuple, dict[int, int]] = {}
            for i in changing:
                if slots[i].seat is not None:
                    key = slots[i].key
                    families.setdefault((key[0], key[1], *key[3:]) if key[0] != "winner" else ("winner",), {})[slots[i].seat] = i
            order = sorted(families)
            block = 1
            for fam in order:
                for p in range(n):
                    if p not in families[fam]:
                        raise Unsupported("a per-player slot changes for some seats only")
                for p in range(n):
                    self.mult[families[fam][p]] = block  # times block**p, below
                block *= radix[families[fam][0]]
            self.block = block
            for fam in order:
                for p in range(n):
                    self.mult[families[fam][p]] *= block ** p
            base = block ** n
            self.blocks = n
        else:
            base = 1
        for i in changing:
            if i not in self.mult:
                self.mult[i] = base
                base *= radix[i]
        if base >= _LIMIT:
            raise Unsupported(f"the state space ({base:.2e} codes) does not fit a 64-bit code")
        self.space = base
        self.shared_base = self.block ** n if self.symmetric else None
        self.changing = changing
        self.radix = radix

    def encode(self, values: list[int]) -> int:
        return sum((values[i] - self.low[i]) * self.mult[i] for i in self.changing)

    def decode(self, codes: np.ndarray) -> dict:
        return {i: (codes // self.mult[i]) % self.radix[i] + self.low[i] for i in self.changing}

    def canonical(self, codes: np.ndarray) -> np.ndarray:
        if not self.symmetric:
            return codes
        blocks = np.stack([(codes // self.block ** p) % self.block for p in range(self.blocks)])
        blocks.sort(axis=0)
        out = (codes // self.shared_base) * self.shared_base
        for p in range(self.blocks):
            out += blocks[p] * self.block ** p
        return out


def _compile_command(c: t.Command, code: _Code, consts: dict):
    """A function (x, codes) -> (enabled, refused rows, rows taken, successor codes, out of bounds)."""
    guard = t.substitute(c.guard, consts)
    error = t.substitute(c.error, consts)
    updates = {i: t.substitute(e, consts) for i, e in c.updates.items() if i in code.mult}
    used = set()
    for e in updates.values():
        t.slots_of(e, used)
    used |= set(updates)
    lines = ["def run(x, codes):",
             f"    en = np.broadcast_to({t.to_python(guard)}, codes.shape)"]
    if error != t.FALSE:
        lines += [f"    bad = en & np.broadcast_to({t.to_python(error)}, codes.shape)", "    ok = en & ~bad"]
    else:
        lines += ["    bad = None", "    ok = en"]
    lines += ["    idx = np.flatnonzero(ok)", "    y = {}"]
    lines += [f"    y[{i}] = x[{i}][idx]" for i in sorted(used)]
    delta, checks = [], []
    for i, e in sorted(updates.items()):
        lines.append(f"    n{i} = np.broadcast_to({t.to_python(e, 'y')}, idx.shape)")
        delta.append(f"(n{i} - y[{i}]) * {code.mult[i]}")
        checks.append(f"((n{i} < {code.low[i]}) | (n{i} > {code.low[i] + code.radix[i] - 1})).any()")
    lines.append(f"    new = codes[idx]{''.join(' + ' + d for d in delta)}")
    lines.append(f"    out = {' or '.join(checks) if checks else 'False'}")
    lines.append("    return en, bad, idx, new, out")
    namespace = {"np": np}
    exec(compile("\n".join(lines), f"<rulekit command {c.label}>", "exec"), namespace)  # noqa: S102 - from the IR
    return namespace["run"]


def explore_system(system: t.System, game: m.Game, limits: Limits | None = None, actions: list[int] | None = None,
                   symmetry_reason: str | None = None) -> VectorExploration:
    """Breadth-first exploration of a symbolic system; `actions` are the engine ids of its commands."""
    limits = limits or Limits()
    start = time.perf_counter()
    deadline = start + limits.time_limit
    symmetric, why = seat_symmetry(game) if limits.symmetry else (False, "symmetry reduction switched off")
    changing = sorted({i for c in system.commands for i in c.updates})
    code = _Code(system, changing, symmetric)
    for i in changing:
        if not code.low[i] <= system.init[i] < code.low[i] + code.radix[i]:
            raise Unsupported(f"{system.slots[i].name} starts outside its declared bounds")
    # Every state visited is checked to be within bounds, so the simpler commands are exact here.
    system = t.within_bounds(system)
    consts = {i: v for i, v in enumerate(system.init) if i not in code.mult}
    commands = [_compile_command(c, code, consts) for c in system.commands]
    actions = actions if actions is not None else list(range(len(system.commands)))
    action_of = np.array(actions + [-1], dtype=np.int64)
    props = {**{("inv", k): e for k, e in system.invariants.items()}, **{("reach", k): e for k, e in system.targets.items()}}
    prop_fns = {k: replay.evaluator([t.substitute(e, consts)]) for k, e in props.items()}
    over = t.substitute(("s", system.over), consts)
    over_fn = replay.evaluator([over])

    out = VectorExploration(system.players, dict(system.options), symmetry=code.symmetric,
                            symmetry_reason=(symmetry_reason or why) if system.players > 1 else "one player")
    root = np.array([code.encode(system.init)], dtype=np.int64)
    visited = code.canonical(root.copy())
    vis_index = np.zeros(1, dtype=np.int64)
    parents, vias = [np.array([0], dtype=np.int64)], [np.array([len(actions)], dtype=np.int64)]
    edges: list | None = [] if limits.keep_edges else None
    frontier, first = root, 0
    total, level, stopped, transitions = 1, 0, "", 0

    def inspect(codes: np.ndarray, first: int) -> None:
        x = code.decode(codes)
        for (kind, name), fn in prop_fns.items():
            value = np.broadcast_to(fn(x)[0], codes.shape)
            hits = np.flatnonzero(~value if kind == "inv" else value)
            table = out.violated if kind == "inv" else out.reached
            if hits.size and name not in table:
                table[name] = first + int(hits[0])
        ended = np.flatnonzero(np.broadcast_to(over_fn(x)[0], codes.shape))
        out.terminal.extend((first + ended).tolist())

    inspect(root, 0)
    while frontier.size:
        if limits.depth is not None and level >= limits.depth:
            stopped = "depth"
            break
        if time.perf_counter() > deadline:
            stopped = "time"
            break
        if budget.over_memory(limits.memory):
            stopped = "memory"
            break
        if total >= limits.max_states:
            stopped = "states"
            break
        x = code.decode(frontier)
        any_enabled = np.zeros(frontier.shape, dtype=bool)
        cand, cand_parent, cand_cmd = [], [], []
        for ci, run in enumerate(commands):
            en, bad, idx, new, outside = run(x, frontier)
            if outside:
                raise Unsupported(f"a successor by {system.commands[ci].label} leaves the declared bounds of a slot")
            any_enabled |= en
            if bad is not None and bad.any() and len(out.errors) < 5:
                row = int(np.flatnonzero(bad)[0])
                out.errors.append((first + row, actions[ci], "the symbolic error condition holds"))
            if idx.size:
                system_command = system.commands[ci]
                out.fired.add((system_command.point, system_command.action))
                cand.append(new)
                cand_parent.append(idx + first)
                cand_cmd.append(np.full(idx.shape, ci, dtype=np.int64))
        ended = np.broadcast_to(over_fn(x)[0], frontier.shape)
        stuck = np.flatnonzero(~any_enabled & ~ended)
        out.deadlocks.extend((first + stuck).tolist())
        if not cand:
            if edges is not None:
                edges.extend([] for _ in range(frontier.size))
            first += frontier.size
            frontier = frontier[:0]
            break
        cand = np.concatenate(cand)
        cand_parent = np.concatenate(cand_parent)
        cand_cmd = np.concatenate(cand_cmd)
        transitions += cand.size
        keys = code.canonical(cand)
        uniq, where = np.unique(keys, return_index=True)
        pos = np.searchsorted(visited, uniq)
        seen = pos < visited.size
        seen[seen] = visited[pos[seen]] == uniq[seen]
        fresh = np.flatnonzero(~seen)
        room = limits.max_states - total
        if fresh.size > room:
            fresh = fresh[:room]
            stopped = "states"
        chosen = where[fresh]
        new_codes = cand[chosen]
        new_index = np.arange(total, total + fresh.size, dtype=np.int64)
        parents.append(cand_parent[chosen])
        vias.append(cand_cmd[chosen])
        merged = np.concatenate([visited, uniq[fresh]])
        order = np.argsort(merged, kind="stable")
        visited = merged[order]
        vis_index = np.concatenate([vis_index, new_index])[order]
        if edges is not None:
            at = np.searchsorted(visited, keys)
            at = np.minimum(at, visited.size - 1)
            known = visited[at] == keys
            child = np.where(known, vis_index[at], -1)
            succ = [[] for _ in range(frontier.size)]
            for p, c in zip((cand_parent - first).tolist(), child.tolist()):
                if c >= 0:
                    succ[p].append(c)
            edges.extend(succ)
        inspect(new_codes, total)
        first += frontier.size
        total += fresh.size
        frontier = new_codes
        level += 1
        if stopped:
            break
    out.states = total
    out.transitions = transitions
    out.complete = not stopped and frontier.size == 0
    out.stopped_by = "" if out.complete else stopped
    out.depth = level if out.complete else max(0, level - 1)
    out.parent = np.concatenate(parents)
    out.via = action_of[np.concatenate(vias)]
    if edges is not None:
        edges.extend([] for _ in range(total - len(edges)))
    out.edges = edges
    out.seconds = time.perf_counter() - start
    out.method = "vectorized"
    return out


def explore(loaded, limits: Limits | None = None, system: t.System | None = None) -> VectorExploration:
    """Vectorized exploration of a loaded engine game; `Unsupported` when it lies outside the fragment."""
    system = system or fragment.build(loaded.config)
    result = explore_system(system, loaded.model, limits, replay.action_ids(system, loaded))
    result.loaded = loaded
    return result
