"""The lists of a played game's state read through locals of each generated function.

The whole-game code reads `s.z[...]`, `s.v[...]` and the like many times per decision. These
attributes of the game state are bound once, when it is made, and are changed in place only, so a
function may read each through a local bound at its start: a local is read faster than an
attribute. An attribute read once in a function is left as it is (binding it would cost more).
"""
from __future__ import annotations

import io
import tokenize

# The attributes of `direct.Playout` that keep the same object for the whole game.
FIXED = ("z", "v", "lo", "hi", "u", "h")
LOCAL = "_S{}"  # the local of attribute `{}`
MIN_READS = 2  # reads of an attribute in a function for it to get a local


def localized(lines: list[str]) -> list[str]:
    """The lines of a generated function (`def NAME(s...):` first, its body indented by four spaces)
    with each attribute of FIXED read at least MIN_READS times read through a local."""
    lines = "\n".join(lines).split("\n")
    text = "\n".join(lines) + "\n"
    reads: dict[str, list[tuple[int, int, int]]] = {}  # attribute -> (row, start col, end col) of each read
    bound = set()  # attributes the function binds anew: read where they are, to be safe
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for i in range(len(tokens) - 3):
        a, dot, name, after = tokens[i:i + 4]
        if (a.type == tokenize.NAME and a.string == "s" and dot.string == "." and name.string in FIXED
                and not (i and tokens[i - 1].string == ".")):
            if after.type == tokenize.OP and after.string.endswith("=") and after.string != "==":
                bound.add(name.string)
            reads.setdefault(name.string, []).append((a.start[0], a.start[1], name.end[1]))
    kept = {attr: spots for attr, spots in reads.items() if len(spots) >= MIN_READS and attr not in bound}
    if not kept:
        return lines
    out = list(lines)
    edits = sorted((spot for spots in kept.values() for spot in spots), reverse=True)
    for row, start, end in edits:
        line = out[row - 1]
        attr = line[start + 2:end]
        out[row - 1] = line[:start] + LOCAL.format(attr) + line[end:]
    head = [f"    {LOCAL.format(attr)} = s.{attr}" for attr in FIXED if attr in kept]
    return [out[0], *head, *out[1:]]
