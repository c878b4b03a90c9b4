"""The link between a symbolic system and the engine: an engine state's slot values, the engine's
action id of each command, and one command or property evaluated on one state (numpy reading)."""
from __future__ import annotations

from .terms import System, to_python

def abstract(system: System, loaded, state) -> list[int]:
    """The slot values of an engine state."""
    out = []
    for slot in system.slots:
        key = slot.key
        if key[0] == "var":
            out.append(int(state.v[loaded.var_index(key[1], key[2])]))
        elif key[0] == "supply":
            out.append(state.v[loaded.var_index(key[1])])
        elif key[0] == "held":
            out.append(state.v[loaded.var_index(key[1], key[2])])
        elif key[0] == "zone":  # key[2]: the seat or the position, as the engine indexes the zone
            out.append(state.z[loaded.zone_index(key[1], key[2])].count(key[3]))
        elif key[0] == "over":
            out.append(int(state.over))
        else:
            out.append(int(key[1] in state.winners))
    return out


def action_ids(system: System, loaded) -> list[int]:
    """The engine's action id of each command."""
    table = {(point, ai, tuple(combo)): i for i, (point, ai, combo, _) in enumerate(loaded.action_table)}
    return [table[(c.point, c.action, c.combo)] for c in system.commands]


def evaluator(exprs: list, name: str = "x"):
    """One Python function computing every expression of `exprs` over numpy slot arrays."""
    import numpy as np

    body = ", ".join(to_python(e, name) for e in exprs)
    source = f"def f({name}):\n    return ({body}{',' if len(exprs) == 1 else ''})\n"
    namespace = {"np": np}
    exec(compile(source, "<rulekit symbolic>", "exec"), namespace)  # noqa: S102 - generated from the IR
    return namespace["f"]


def step(system: System, values: list[int], command: int) -> tuple[bool, bool, list[int]]:
    """(enabled, refused, successor) of one command on one state, by the numpy reading of the IR."""
    import numpy as np

    x = [np.array([v], dtype=np.int64) for v in values]
    c = system.commands[command]
    order = sorted(c.updates)
    key = ("step", command)
    if key not in system.compiled:
        system.compiled[key] = evaluator([c.guard, c.error, *(c.updates[i] for i in order)])
    out = system.compiled[key](x)
    after = list(values)
    for i, v in zip(order, out[2:]):
        after[i] = int(np.broadcast_to(v, (1,))[0])
    return bool(np.broadcast_to(out[0], (1,))[0]), bool(np.broadcast_to(out[1], (1,))[0]), after


def holds(system: System, expr, values: list[int]) -> bool:
    import numpy as np

    x = [np.array([v], dtype=np.int64) for v in values]
    key = ("holds", id(expr))
    if key not in system.compiled:
        system.compiled[key] = (expr, evaluator([expr]))  # the expression kept, so its id stays its own
    return bool(np.broadcast_to(system.compiled[key][1](x)[0], (1,))[0])


__all__ = ["abstract", "action_ids", "evaluator", "step", "holds"]
