"""The uniform draws of a seeded game, `splitmix(seed, t)` for t = 0, 1, 2, ..., computed many at a time.

A game's chance event number `t` draws `splitmix(seed, t)` (see `rulekit.engine.state`). One call
of that function is a few big-integer operations in Python; a game asks for dozens of them. Here
they are computed with numpy's wrapping 64-bit arithmetic, a chunk at a time: bit for bit the same
floats (every step is exact: the products wrap modulo 2**64 as the masks do, and the final 53-bit
integer converts to a float exactly), a test holds the two to that.
"""
from __future__ import annotations

import numpy as np

MASK = 0xFFFFFFFFFFFFFFFF
CHUNK = 64  # draws computed at once when a game needs more (at first twice that, then as many as it has)

_GOLDEN, _MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31, _S11 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(11)


def uniforms(seeds, start: int, count: int) -> np.ndarray:
    """`splitmix(seed, t)` for each seed (rows) and t in [start, start + count) (columns)."""
    base = np.array([(seed * 0x9E3779B97F4A7C15) & MASK for seed in seeds], dtype=np.uint64)[:, None]
    steps = np.arange(start + 1, start + count + 1, dtype=np.uint64)[None, :]
    z = base + steps * _MIX1  # arrays wrap silently modulo 2**64
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return ((z ^ (z >> _S31)) >> _S11).astype(np.float64) * 1.1102230246251565e-16


class Stream(list):
    """The draws of one seed, as a list that grows on demand: `stream.at(t)` is `splitmix(seed, t)`.

    Compiled code reads `stream[t]` directly and calls `more()` only when the index runs past the
    end. Every copy of a state may share one stream: it only ever grows, with the same values.
    """

    __slots__ = ("seed",)

    def __init__(self, seed: int, first: list[float] | None = None):
        super().__init__(first or ())
        self.seed = seed

    def more(self) -> None:
        """Append the next chunk of draws: the stream doubles, since a numpy call costs most of its time
        whatever its length, and a game that has needed many draws is likely to need as many again."""
        self.extend(uniforms((self.seed,), len(self), max(2 * CHUNK, len(self)))[0].tolist())

    def at(self, t: int) -> float:
        while t >= len(self):
            self.more()
        return self[t]


def streams(seeds, count: int = CHUNK) -> list[Stream]:
    """One stream per seed, each with its first `count` draws computed in a single numpy pass."""
    seeds = list(seeds)
    if not seeds:
        return []
    rows = uniforms(seeds, 0, count).tolist()
    return [Stream(seed, row) for seed, row in zip(seeds, rows)]


MAX_FIRST = 4096  # draws computed up front for one game, at most


class DrawCounts:
    """How many draws the games of one program have needed lately, so that the draws of the next
    game are computed up front in one numpy pass that covers most games (a longer game computes more
    as it goes): twice a running average of the draws per game."""

    __slots__ = ("average",)

    def __init__(self):
        self.average = float(CHUNK)

    @property
    def first(self) -> int:
        return min(MAX_FIRST, max(CHUNK, 2 * int(self.average) + 16))

    def seen(self, draws: int) -> None:
        self.average += (draws - self.average) / 16


class SeedStreams:
    """The streams of the games a program starts one by one: when the seeds come in order (0, 1, 2,
    ..., as a simulation or a benchmark asks for them), those of the next `block` seeds are computed
    in the same numpy pass as the one asked for, and handed out as they are asked for."""

    __slots__ = ("ahead", "block", "last")

    def __init__(self, block: int = 32):
        self.ahead: dict[int, Stream] = {}
        self.last: int | None = None
        self.block = block

    def take(self, seed: int, count: int) -> Stream:
        stream = self.ahead.pop(seed, None)
        if stream is None:
            in_order = self.last is not None and seed == self.last + 1
            self.ahead = {s.seed: s for s in streams(range(seed, seed + self.block) if in_order else (seed,), count)}
            stream = self.ahead.pop(seed)
        self.last = seed
        return stream
