"""A test that is one `exists` over a domain, written as a loop that stops at the first value found.

`if any(True for x in D if C):` makes and runs a generator, which on Python 3.11 costs more than the
few values of D it looks at; the same test as a `for` loop over D that breaks at the first x passing
C is cheaper, and evaluates D, then C for each value in turn, exactly as the generator does.
"""
from __future__ import annotations

import ast
import re

FOUND = "_ex"  # the local the loop sets when it finds a value
_IF = re.compile(r"(\s*)if (.+):")


def looped(lines: list[str]) -> list[str]:
    """`lines` with each `if` whose whole test is `any(True for x in D if C)` (or `not` of it, with
    or without `if C`) as the loop that finds x, then the `if` on what it found."""
    out = []
    for line in lines:
        found = _IF.fullmatch(line) if "any(True for " in line else None
        test = _exists(found.group(2)) if found else None
        if test is None:
            out.append(line)
            continue
        pad, (negated, target, domain, cond) = found.group(1), test
        hit = [f"{pad}        {FOUND} = True", f"{pad}        break"]
        out += [f"{pad}{FOUND} = False", f"{pad}for {target} in {domain}:",
                *([f"{pad}    if {cond}:", *hit] if cond is not None else [h[4:] for h in hit]),
                f"{pad}if {'not ' if negated else ''}{FOUND}:"]
    return out


def _exists(code: str) -> tuple[bool, str, str, str | None] | None:
    """(negated, x, D, C or None) of a test `any(True for x in D if C)` or `not` of it; else None."""
    try:
        tree = ast.parse(code, mode="eval").body
    except SyntaxError:
        return None
    negated = isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not)
    if negated:
        tree = tree.operand
    if not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "any"
            and len(tree.args) == 1 and not tree.keywords and isinstance(tree.args[0], ast.GeneratorExp)):
        return None
    gen = tree.args[0]
    if len(gen.generators) != 1 or not (isinstance(gen.elt, ast.Constant) and gen.elt.value is True):
        return None
    loop = gen.generators[0]
    if loop.is_async or len(loop.ifs) > 1:
        return None
    return negated, ast.unparse(loop.target), ast.unparse(loop.iter), ast.unparse(loop.ifs[0]) if loop.ifs else None
