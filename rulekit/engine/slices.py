"""Loops over the seats or positions that read the zone of each: the zones taken as a slice.

A loop `for x in range(N)` whose body reads `s.z[(B+(x))]`, the zone of `x` in a family of N zones
from index B on, reads the same lists by walking `s.z[B:B+N]` beside `x`: one index fewer per read,
and no addition. The body must leave `s.z` as it is (a condition, a listing of options).
"""
from __future__ import annotations

import re

_RANGE = re.compile(r"range\((\d+)\)")
MAX_FAMILIES = 3  # zones of one position read in one loop, walked side by side


def by_slices(var: str, src: str, texts: list[str], families: dict[int, int]) -> tuple[str, str, list[str]] | None:
    """For `for var in src` over the body `texts`: (loop target, iterable, body) reading each zone
    `s.z[(B+(var))]` of a family (`families`: its first index -> its size) from a slice; None when
    the loop is not over `range(N)` or reads no whole family of N zones."""
    found = _RANGE.fullmatch(src)
    if found is None:
        return None
    n = int(found.group(1))
    read = re.compile(r"s\.z\[\((\d+)\+\(?" + re.escape(var) + r"\)?\)\]")
    bases = list(dict.fromkeys(int(b) for text in texts for b in read.findall(text)))
    if not bases or len(bases) > MAX_FAMILIES or any(families.get(b) != n for b in bases):
        return None
    names = {b: f"{var}_z{i}" for i, b in enumerate(bases)}
    body = [read.sub(lambda mt: names[int(mt.group(1))], text) for text in texts]
    if len(bases) == 1:
        (b,) = bases
        return f"{var}, {names[b]}", f"enumerate(s.z[{b}:{b + n}])", body
    zones = ", ".join(f"s.z[{b}:{b + n}]" for b in bases)
    return f"{var}, ({', '.join(names[b] for b in bases)})", f"enumerate(zip({zones}))", body
