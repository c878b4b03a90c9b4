"""The free names of a generated Python expression: what its value depends on besides constants."""
from __future__ import annotations

import ast
from functools import lru_cache

_COMPREHENSIONS = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


@lru_cache(maxsize=4096)
def free_names(code: str) -> frozenset[str]:
    """The names an expression reads that it does not bind itself (in a comprehension or a lambda)."""
    free: set[str] = set()

    def visit(node, bound: frozenset) -> None:
        if isinstance(node, ast.Name):
            if node.id not in bound:
                free.add(node.id)
            return
        if isinstance(node, _COMPREHENSIONS):
            inner = bound
            for gen in node.generators:
                visit(gen.iter, inner)
                inner = inner | {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
                for cond in gen.ifs:
                    visit(cond, inner)
            for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
                visit(part, inner)
            return
        if isinstance(node, ast.Lambda):
            args = node.args
            names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
            for default in (*args.defaults, *args.kw_defaults):
                if default is not None:
                    visit(default, bound)
            visit(node.body, bound | names)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, bound)

    visit(ast.parse(code, mode="eval"), frozenset())
    return frozenset(free)
