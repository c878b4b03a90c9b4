"""`conflict` findings: triggers whose results depend on the order they run in, and what sets each off.

Order: when one decision makes two triggers fire, random play (`sampling`) runs the decision again
from the state before it with the two triggers in the other order, and compares the two states the
engine reaches next (the next decision, chance event or end). A trigger can also keep another from
firing (it undoes what set both off, and is re-armed at once, so that neither shows as fired): along
the random games kept whole, every pair of triggers armed before a decision is tried in the other
order too (`passed_over`). A difference is reported with the game that shows it. Causes: for each
trigger, the actions that can make its condition true (those whose effects, through the procedures
they call, change a zone, variable or token its condition reads), and among them the ones random play
saw set it off, listed beside its quote, each marked by whether the quote names it, so that a cause
the rulebook sentence does not mention stands out.
"""
from __future__ import annotations

import re
from collections import Counter

from .. import model as m
from ..findings import Finding
from .shared import location_of, quote_texts
from .variants import changed_options
from .witnesses import replayed


def order_matters(before, action: int, a: int, b: int) -> bool:
    """Whether running triggers a and b in the other order, after `action` from state `before`, leads
    to another state at the next point where the engine waits."""
    return _outcome(before, action, None) != _outcome(before, action, (a, b))


def _outcome(before, action: int, swap) -> tuple:
    state = before.clone()
    if swap is not None:
        order = list(range(len(state.triggers)))
        a, b = swap
        order[a], order[b] = order[b], order[a]
        state.triggers = tuple(state.triggers[i] for i in order)
        state.armed = [state.armed[i] for i in order]
    state.apply_action(action)
    return ([sorted(z) for z in state.z], list(state.v), sorted(state.winners), state.over, state.cur,
            state.current_player(), sorted(state.legal), state.chance)


PASSED_OVER_TRIES = 1000  # tries of the other order per player count (each plays a decision twice)


def passed_over(spec, options: dict, tally, known) -> dict:
    """Conflicts the random games' own check cannot see: a trigger that keeps another from firing (it
    undoes what set both off and is re-armed at once, so that neither shows as fired). Along the kept
    games of `tally` (its traces), every pair of triggers armed before a decision is tried in the other
    order, up to PASSED_OVER_TRIES tries per player count, as each plays the decision twice. (trigger,
    trigger) -> (game, history, None) for those whose order changes the result, but for `known`."""
    found: dict = {}
    for players, histories in sorted(tally.traces.items()):
        loaded = spec.engine(players, options)
        names = [t.name for t in loaded.config.game.triggers]
        if len(names) < 2:  # the same rules at every count: no pair anywhere
            return found
        tries = Counter()
        for history in histories:
            state = loaded.replay([])
            for action in history:
                if state.chance is None and not state.over and tries["all"] < PASSED_OVER_TRIES:
                    _try_pairs(state, action, names, tries, found, known)
                state.apply_action(action)
    return found


def _try_pairs(state, action: int, names: list, tries: Counter, found: dict, known) -> None:
    ready = [i for i, armed in enumerate(state.armed) if armed]
    for x, a in enumerate(ready):
        for b in ready[x + 1:]:
            pair = (names[a], names[b])
            if pair in found or pair in known:
                continue
            tries["all"] += 1
            if order_matters(state, action, a, b):
                found[pair] = (state.game, [*state.history, action], None)


def findings(spec, game: m.Game, variants: list[dict], tallies: dict, key_of) -> list[Finding]:
    out: list[Finding] = []
    reported: set = set()
    for options in variants:
        orders = tallies[key_of(options)].orders
        for (first, second), (loaded, history, seed) in {**passed_over(spec, options, tallies[key_of(options)], orders),
                                                          **orders}.items():
            if (first, second) in reported:
                continue
            reported.add((first, second))
            names = [t.name for t in loaded.config.game.triggers]
            a, b = names.index(first), names.index(second)
            *path, action = history

            def shows(state, path=path, action=action, a=a, b=b, seed=seed):
                # the game drew its chance from its seed: what follows the action (the triggers may fire
                # only after a card is drawn) is drawn so again, not left waiting at a chance event
                played = loaded.replay(path, seed, auto_chance=True) if seed is not None else state
                return order_matters(played, action, a, b)
            replayed(loaded, path, shows, f"the order of triggers {first} and {second}")
            steps = replayed(loaded, history, lambda state: True, "the decision that sets off both triggers")
            t1, t2 = (next(t for t in game.triggers if t.name == n) for n in (first, second))
            out.append(Finding(
                f"{game.name}/conflict/order/{first}+{second}", game.name, "conflict", "warning", "proven",
                "random-play", f"triggers {first} and {second} are set off at the same moment, and the result "
                f"depends on their order (one may even keep the other from firing): the spec runs {first} first "
                "(the order of the declarations); the rulebook does not say which comes first", quotes=list(dict.fromkeys(quote_texts(t1) + quote_texts(t2))),
                location=location_of(t1.span), witness=steps, options=changed_options(options, game),
                hint="state the order the rulebook gives (declare the triggers in it, or merge them into one), "
                     "or declare an ambiguity with both orders",
                details={"triggers": [first, second], "after": steps[-1]["text"] if steps else None}))
    seen: dict = {}
    for options in variants:
        for name, fired in tallies[key_of(options)].causes.items():
            seen.setdefault(name, set()).update(fired)  # (choice point, action index)
    for trigger in game.triggers:
        out.append(_causes(game, trigger, seen.get(trigger.name, set())))
    return out


def _causes(game: m.Game, trigger: m.Trigger, seen: set) -> Finding:
    reads = _reads(game, trigger.cond)
    quotes = quote_texts(trigger)
    causes = []
    for key, action, writes in _actions(game):
        if writes & reads or key in seen:
            causes.append({"action": _shown(action), "changes": sorted(writes & reads), "seen": key in seen,
                           "named_by_quote": _named(action, quotes)})
    unnamed = [c["action"] for c in causes if not c["named_by_quote"]]
    listed = "; ".join(f"{c['action']}{' (seen)' if c['seen'] else ''}" for c in causes) or "none"
    return Finding(
        f"{game.name}/conflict/causes/{trigger.name}", game.name, "conflict", "info",
        "bounded" if causes else "unknown", "static",
        f"trigger {trigger.name} (“{quotes[0] if quotes else 'no quote'}”) can be set off by: {listed} "
        "(seen: set it off in random play)"
        + (f"; not named by its quote: {', '.join(unnamed)}" if unnamed else ""),
        quotes=quotes, location=location_of(trigger.span),
        details={"trigger": trigger.name, "reads": sorted(reads), "causes": causes})


def _named(action: m.Action, quotes: list[str]) -> bool:
    """Whether a quote uses a word of the action's name (words of four letters or more, compared by
    their first five letters, so that "attack" names "attacked" and "Angriff" names "angreifen" not)."""
    words = [w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{4,}", action.name.replace("_", " "))]
    said = [w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{4,}", " ".join(quotes))]
    return any(q.startswith(w[:5]) or w.startswith(q[:5]) for w in words for q in said)


def _shown(action: m.Action) -> str:
    """An action as the causes list shows it: a decision that only picks a value reads as choosing it."""
    if len(action.binders) == 1 and action.binders[0].name == action.name:
        return f"choosing {action.name} (line {action.span.line})" if action.span is not None else f"choosing {action.name}"
    return action.name


def _actions(game: m.Game):
    """Every action of every decision, with the zones, variables and tokens its effects change."""
    procs = {p.name: p for p in game.procedures}
    for body in m.bodies(game):
        for st in m.walk(body):
            if isinstance(st, m.Choose):
                for i, a in enumerate(st.actions):
                    yield (st.point, i), a, _writes(a.body, procs, set())


def _writes(stmts, procs: dict, visiting: set) -> set:
    out: set = set()
    for st in m.walk(stmts):
        if isinstance(st, m.Move):
            out |= {f"zone {e.zone}" for e in (st.source, st.dest) if isinstance(e, m.ZoneRef)}
        elif isinstance(st, (m.Shuffle,)) and isinstance(st.zone, m.ZoneRef):
            out.add(f"zone {st.zone.zone}")
        elif isinstance(st, m.Rotate):
            out.add(f"zone {st.zone}")
        elif isinstance(st, m.Assign):
            out.add(f"var {st.var}")
        elif isinstance(st, m.TokenMove):
            out.add(f"token {st.token}")
        elif isinstance(st, m.Do) and st.procedure not in visiting and st.procedure in procs:
            out |= _writes(procs[st.procedure].body, procs, visiting | {st.procedure})
    return out


def _reads(game: m.Game, e, visiting: frozenset = frozenset()) -> set:
    out: set = set()
    if isinstance(e, m.ZoneRef):
        out.add(f"zone {e.zone}")
    elif isinstance(e, m.VarRef):
        out.add(f"var {e.var}")
    elif isinstance(e, m.Builtin) and e.token:
        out.add(f"token {e.token}")
    elif isinstance(e, m.Iter) and e.every:
        out.add(f"zone {e.every}")
    elif isinstance(e, m.DefineCall) and e.define not in visiting:
        d = next((d for d in game.defines if d.name == e.define), None)
        if d is not None:
            out |= _reads(game, d.body, visiting | {e.define})
    for child in m.children(e) if e is not None and not isinstance(e, (str, int)) else ():
        out |= _reads(game, child, visiting)
    return out


__all__ = ["findings", "order_matters"]
