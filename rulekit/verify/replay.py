"""The link between a symbolic system and the engine: an engine state's slot values, the engine's
action id of each command, and one command or property evaluated on one state (numpy reading)."""
from __future__ import annotations

from .terms import STACK_END_REREAD, System, evaluate, slots_of, to_python

DATA = ("var", "supply", "held", "zone", "over", "winner")  # the slots an engine state determines by itself


def abstract(system: System, loaded, state) -> list[int]:
    """The slot values of an engine state; a slot of control or an input (which only the relation
    knows) is None."""
    boards: dict = {}
    for i, (_, decl, _) in enumerate(loaded.zone_instances()):
        if decl.per_board is not None:
            boards.setdefault(decl.name, []).append(i)
    out = []
    for slot in system.slots:
        key = slot.key
        if key[0] not in DATA:
            out.append(None)
        elif key[0] == "var":
            out.append(int(state.v[loaded.var_index(key[1], key[2])]))
        elif key[0] == "supply":
            out.append(state.v[loaded.var_index(key[1])])
        elif key[0] == "held":
            out.append(state.v[loaded.var_index(key[1], key[2])])
        elif key[0] == "zone" and key[2] is None and key[1] in boards:
            # the counts abstraction pools a family laid out on a board (`segments`): all its positions
            out.append(sum(state.z[i].count(key[3]) for i in boards[key[1]]))
        elif key[0] == "zone":  # key[2]: the seat or the position, as the engine indexes the zone
            out.append(state.z[loaded.zone_index(key[1], key[2])].count(key[3]))
        elif key[0] == "over":
            out.append(int(state.over))
        else:
            out.append(int(key[1] in state.winners))
    return out


def action_ids(system: System, loaded) -> list:
    """Per command, the engine's action id it stands for: an id; a dict {id: the values of its binder
    slots} for a command of every assignment of its binders (see `Command.chosen`); or None for one that
    is no player's action (the set-up, or the rules going on from a silent location)."""
    table = {(point, ai, tuple(combo)): i for i, (point, ai, combo, _) in enumerate(loaded.action_table)}
    out: list = []
    for c in system.commands:
        if c.point < 0:
            out.append(None)
        elif c.chosen:
            out.append({table[(c.point, c.action, combo)]: values for values, combo in c.chosen[1].items()})
        else:
            out.append(table[(c.point, c.action, c.combo)])
    return out


def _action_taken(ids: list, c: int, system: System, values: list[int]) -> int | None:
    """The engine's action id of command `c` taken in a state (its inputs included)."""
    if not isinstance(ids[c], dict):
        return ids[c]
    taken = tuple(values[x] for x in system.commands[c].chosen[0])
    return next(i for i, v in ids[c].items() if v == taken)


def history(system: System, loaded, path: list[int], states: list[list[int]]) -> list[int]:
    """The engine's history (actions and chance outcomes, in order) of a path of commands, given the
    state before each step (inputs included): each chance event that happens and that the engine shows
    (it skips one of a single outcome) gives its outcome, after the action that led to it."""
    ids = action_ids(system, loaded)
    out = []
    for c, values in zip(path, states):
        if ids[c] is not None:
            out.append(_action_taken(ids, c, system, values))
        for event in system.commands[c].events:
            if not holds(system, event.active, values) or not holds(system, event.shown, values):
                continue
            live = [v for v, w in event.outcomes if value(system, w, values) > 0]
            if len(live) > 1:
                out.append(values[event.slot])
    return out


def follow(system: System, loaded, engine_history: list[int]) -> tuple[list[str], int]:
    """Walk the relation along a game the engine played (its history from the initial state): each
    stretch (the set-up, or an action) must be the command of the engine's action, then the silent
    commands, fed the engine's chance outcomes in order; it must be enabled and assume nothing the engine
    did not do; and the state it leads to must agree with the engine's at the next decision.
    (what disagrees, for people; how many decisions were followed). The walk stops early, with no
    disagreement, where the relation over-approximates (the top of a stack whose order it forgot)."""
    ids = action_ids(system, loaded)
    silent = [c for c, i in enumerate(ids) if i is None]
    inputs = {i for i, s in enumerate(system.slots) if s.key[0] == "input"}
    state = loaded.new_initial_state(None)
    values = list(system.init)
    pending = list(engine_history)
    action, followed = None, 0
    while True:
        feed = []
        if action is not None:
            state.apply_action(action)
        while pending and state.is_chance_node():
            feed.append(pending.pop(0))
            state.apply_action(feed[-1])
        if state.is_chance_node():
            return [], followed  # the history stops inside a stretch
        first = action is not None
        while True:
            pool = ([c for c, i in enumerate(ids) if i == action or isinstance(i, dict) and action in i] if first
                    else silent)
            for c in pool:
                if isinstance(ids[c], dict):  # the binders take the values of the engine's action
                    for slot, v in zip(system.commands[c].chosen[0], ids[c][action]):
                        values[slot] = v
            if any(slots_of(system.commands[c].guard) & inputs for c in pool):
                return [], followed  # a guard that reads the end of a stack whose order the relation forgot
            enabled = [c for c in pool if holds(system, system.commands[c].guard, values)]
            if not enabled:
                if first:
                    return [f"decision {followed}: no command of action {action} is enabled"], followed
                break
            first, cmd = False, system.commands[enabled[0]]
            for event in cmd.events:
                if not holds(system, event.active, values):
                    continue
                live = [v for v, w in event.outcomes if value(system, w, values) > 0]
                if len(live) > 1 and not holds(system, event.shown, values):
                    return [], followed  # the engine knows this card; the relation does not
                if len(live) > 1:
                    if not feed and STACK_END_REREAD in system.inexact:
                        return [], followed  # a card the engine decided at an earlier reading, drawn again here
                    if not feed:
                        return [f"decision {followed}: {cmd.label} meets a chance event the engine did not"], followed
                    values[event.slot] = feed.pop(0)
                else:
                    values[event.slot] = live[0] if live else 0
            if holds(system, cmd.error, values) or not holds(system, cmd.assume, values):
                return [f"decision {followed}: {cmd.label} is refused, or takes a chance outcome for granted"], followed
            values = step(system, values, enabled[0])[2]
        if feed:
            return [f"decision {followed}: the engine drew chance outcomes {feed} that the relation did not"], followed
        problems = [f"decision {followed}: {slot.name} is {mine} in the relation, {theirs} in the engine"
                    for slot, mine, theirs in zip(system.slots, values, abstract(system, loaded, state))
                    if theirs is not None and mine != theirs]
        if problems or not pending or state.is_terminal():
            return problems, followed
        action = pending.pop(0)
        followed += 1


def evaluator(exprs: list, name: str = "x"):
    """One Python function computing every expression of `exprs` over numpy slot arrays."""
    import numpy as np

    body = ", ".join(to_python(e, name) for e in exprs)
    source = f"def f({name}):\n    return ({body}{',' if len(exprs) == 1 else ''})\n"
    namespace = {"np": np}
    exec(compile(source, "<rulekit symbolic>", "exec"), namespace)  # noqa: S102 - generated from the IR
    return namespace["f"]


def step(system: System, values: list[int], command: int) -> tuple[bool, bool, list[int]]:
    """(enabled, refused, successor) of one command on one state."""
    c = system.commands[command]
    memo: dict = {}
    after = list(values)
    for i, x in c.updates.items():
        after[i] = int(evaluate(x, values, memo))
    return bool(evaluate(c.guard, values, memo)), bool(evaluate(c.error, values, memo)), after


def value(system: System, expr, values: list[int]) -> int:
    """One integer term evaluated on one state."""
    return int(evaluate(expr, values))


def holds(system: System, expr, values: list[int]) -> bool:
    """One condition evaluated on one state."""
    return bool(evaluate(expr, values))


__all__ = ["DATA", "abstract", "action_ids", "evaluator", "follow", "history", "holds", "step", "value"]
