"""Generated Python, compiled once per distinct function.

`rulekit check` builds an engine for every option set at every player count, and the builds of one spec
share most of their generated functions: an option changes a few of them and leaves the rest as they
were (about nine characters in ten are the same in every build). Compiling is the dearest part of a
build, so the module is compiled one top-level statement at a time and each statement's code object is
kept, keyed by its text: a function that an earlier build already had costs nothing to compile again.
A code object does not depend on the namespace it runs in, so sharing it between builds is exact.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from types import CodeType

KEPT = 8192  # distinct top-level statements kept; a spec's builds together have about a thousand

_TOP_LEVEL = re.compile(r"\n(?=\S)")  # a line that starts at column 0 starts a statement
_kept: OrderedDict[str, CodeType] = OrderedDict()


def run(source: str, filename: str, namespace: dict) -> None:
    """Execute the generated module `source` in `namespace`, as `exec(compile(source, filename, "exec"))`
    would: a SyntaxError is Python's own, raised for the module as a whole."""
    statements = _TOP_LEVEL.split(source)
    try:
        codes = [_code(text, filename) for text in statements if text.strip()]
    except SyntaxError:  # a statement split inside itself, or a real error: let the whole module say which
        codes = [compile(source, filename, "exec")]
    for code in codes:
        exec(code, namespace)  # noqa: S102 - generated from the spec's core IR


def _code(text: str, filename: str) -> CodeType:
    code = _kept.get(text)
    if code is None:
        code = _kept[text] = compile(text, filename, "exec")
        if len(_kept) > KEPT:
            _kept.popitem(last=False)
    else:
        _kept.move_to_end(text)
    return code
