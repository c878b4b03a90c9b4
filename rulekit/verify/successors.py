"""The successors of each explored state, packed into two flat arrays.

An explorer that numbers its states breadth first also expands them in that order, so the successor
lists can be laid end to end: `targets` holds every list in turn, and `starts[i]` says where state
`i`'s list begins. Ten million states with a few successors each then take tens of megabytes, where
a Python list per state would take gigabytes.
"""
from __future__ import annotations

from array import array


class Successors:
    """Reads like a list of lists of state numbers: `len`, indexing, iteration. States past the last
    one expanded (the frontier an exploration stopped with) have no successors."""

    def __init__(self, states: int = 1):
        self.starts = array("q", [0])
        self.targets = array("q")
        self.states = states  # how many states are numbered, expanded or not

    def expand(self, index: int, successors) -> None:
        """Record the successors of state `index`, which must be the next state to expand."""
        if index != len(self.starts) - 1:
            raise ValueError(f"successors of state {index} recorded out of order "
                             f"(expected {len(self.starts) - 1})")
        self.targets.extend(successors)
        self.starts.append(len(self.targets))

    @classmethod
    def of(cls, lists) -> Successors:
        """The same successors, from a list of lists."""
        out = cls(len(lists))
        for i, succ in enumerate(lists):
            out.expand(i, succ)
        return out

    def skip(self, index: int) -> None:
        """State `index` is left unexpanded (a depth limit): it has no successors."""
        self.expand(index, ())

    def __len__(self) -> int:
        return self.states

    def __getitem__(self, index: int):
        if index < 0:
            index += self.states
        if not 0 <= index < self.states:
            raise IndexError(index)
        if index + 1 >= len(self.starts):
            return self.targets[0:0]
        return self.targets[self.starts[index]:self.starts[index + 1]]

    def __iter__(self):
        starts, targets = self.starts, self.targets
        expanded = len(starts) - 1
        for i in range(expanded):
            yield targets[starts[i]:starts[i + 1]]
        for _ in range(expanded, self.states):
            yield targets[0:0]

    @property
    def count(self) -> int:
        """How many transitions are recorded."""
        return len(self.targets)

    def reverse(self) -> Successors:
        """The predecessors of each state, laid out the same way."""
        n = self.states
        counts = array("q", bytes(8 * (n + 1)))
        for j in self.targets:
            counts[j + 1] += 1
        for i in range(n):
            counts[i + 1] += counts[i]
        place = array("q", counts)
        sources = array("q", bytes(8 * len(self.targets)))
        starts = self.starts
        for i in range(len(starts) - 1):
            for p in range(starts[i], starts[i + 1]):
                j = self.targets[p]
                sources[place[j]] = i
                place[j] += 1
        out = Successors(n)
        out.starts, out.targets = counts, sources
        return out


def cyclic_core(edges, leave_out=()) -> list[int]:
    """The states that can lie on a cycle, the states in `leave_out` aside: what is left after taking
    away, again and again, every state with no successor or no predecessor among those left. Every
    cycle lies in it, so a graph search for cycles needs only these states (none: no cycle)."""
    graph = edges if isinstance(edges, Successors) else Successors.of(edges)
    n = len(graph)
    back = graph.reverse()
    alive = bytearray(b"\x01") * n
    for i in leave_out:
        alive[i] = 0
    ins, outs = array("q", bytes(8 * n)), array("q", bytes(8 * n))
    for i in range(n):
        if alive[i]:
            outs[i] = sum(alive[j] for j in graph[i])
            ins[i] = sum(alive[j] for j in back[i])
    gone = [i for i in range(n) if alive[i] and (ins[i] == 0 or outs[i] == 0)]
    for i in gone:
        alive[i] = 0
    while gone:
        i = gone.pop()
        for j in graph[i]:
            if alive[j]:
                ins[j] -= 1
                if ins[j] == 0:
                    alive[j] = 0
                    gone.append(j)
        for j in back[i]:
            if alive[j]:
                outs[j] -= 1
                if outs[j] == 0:
                    alive[j] = 0
                    gone.append(j)
    return [i for i in range(n) if alive[i]]
