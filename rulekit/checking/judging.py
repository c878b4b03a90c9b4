"""One finding per question, with the strongest verdict that the evidence of every method supports."""
from __future__ import annotations

import contextlib
import re

from .. import model as m
from ..engine import Game
from ..errors import RuleRuntimeError
from ..findings import Finding
from ..report import wording
from .shared import PlayBounds, described, location_of, players_phrase, property_test, quote_texts
from .variants import changed_options, options_suffix
from .witnesses import PendingWitness, first_break, replayed, rule_at, witness
from .sampling import Tally
from .ending import KnownLoops, never_ended, termination
from ..phrases import counted


def judge(spec, game: m.Game, options: dict, tally: Tally, explored: list | None, proofs: dict | None,
          bounds: PlayBounds, fired_by: dict | None = None, known: KnownLoops | None = None,
          clock=None) -> list[Finding]:
    """`fired_by`: for each action, the option changes under which random play took it; `known`: the
    loops found under the default options, which the other option sets replay (see `ending`); `clock`:
    `clock(name)` times a method (the termination search, here) and shows it in the progress display."""
    explored = explored or []
    fired_by = fired_by or {}
    proofs = proofs or {}
    suffix = options_suffix(options, game)
    changed = changed_options(options, game)
    complete = bool(explored) and all(x.complete for x in explored) and \
        len(explored) == game.max_players - game.min_players + 1
    states = sum(x.states for x in explored)
    search = (f"{tally.played:,} random games ({tally.steps:,} states)" +
              (f" and {states:,} explored states ({explored_text(explored)})" if explored else ""))
    bound = {"games": tally.played, "states": tally.steps, "max_steps": bounds.max_steps}
    if explored:
        bound["explored"] = {"states": states, "complete": complete, "depth": min(x.depth for x in explored),
                             "stopped_by": sorted({x.stopped_by for x in explored if x.stopped_by})}
    exhaustive = {"complete": True, "states": states, "configurations": [
        {"players": x.players, "options": changed, "states": x.states} for x in explored]} if complete else {}
    collision = sum(getattr(x, "collision_bound", 0.0) for x in explored)
    if exhaustive and collision:  # visited states were remembered by fingerprints: a merge was that unlikely
        exhaustive["collision_at_most"] = float(f"{collision:.2g}")
    confidence = bounds.confidence
    sampled = tally.sample(None, confidence)
    also = f"; and in {states:,} explored states ({explored_text(explored)})" if explored else ""
    found: list[Finding] = []
    by_name = {p.name: p for p in game.properties}

    for prop in (p for p in game.properties if p.applies(options)):
        fid = f"{game.name}/{'invariant' if prop.kind == 'invariant' else 'reachability'}/{prop.name}{suffix}"
        if prop.kind == "invariant":
            hit = next(((x, x.violated[prop.name]) for x in explored if prop.name in x.violated), None)
            test = property_test(prop)
            if hit is not None:
                x, index = hit
                steps = replayed(x.loaded, x.path(index), lambda s, t=test: not t(s), f"invariant {prop.name}")
                found.append(Finding(fid, game.name, "invariant", "error", "refuted", "explicit-state",
                                     f"{prop.name} is false in a state {counted(len(steps), 'step')} from the start, with "
                                     f"{players_phrase([x.players])} (a shortest witness){described(prop)}", bound=bound,
                                     quotes=quote_texts(prop), location=location_of(prop.span), witness=steps, options=changed))
            elif prop.name in tally.broken:
                loaded, history = tally.broken[prop.name]
                fails = (lambda s, t=test: not t(s))
                history, method = _shrunk(loaded, history, fails, bounds)
                steps = replayed(loaded, first_break(loaded, history, fails), fails, f"invariant {prop.name}")
                found.append(Finding(fid, game.name, "invariant", "error", "refuted", method,
                                     f"{prop.name} is false after {counted(len(steps), 'step')} with "
                                     f"{players_phrase([loaded.num_players()])}{described(prop)}", bound=bound, quotes=quote_texts(prop),
                                     location=location_of(prop.span), witness=steps, options=changed))
            elif complete:
                found.append(Finding(fid, game.name, "invariant", "info", "proven", "explicit-state",
                                     f"{prop.name} holds in every reachable state ({explored_text(explored)}){described(prop)}",
                                     bound={**bound, **exhaustive}, quotes=quote_texts(prop), location=location_of(prop.span), options=changed))
            elif prop.name in proofs and proofs[prop.name][0] == "proven":
                found.append(Finding(fid, game.name, "invariant", "info", "proven", proofs[prop.name][2],
                                     f"{prop.name} holds in every reachable state: {proofs[prop.name][1]}{described(prop)}",
                                     bound={**bound, **proofs[prop.name][3]}, quotes=quote_texts(prop),
                                     location=location_of(prop.span), options=changed))
            else:
                found.append(Finding(fid, game.name, "invariant", "info", "bounded", "random-play" if not explored
                                     else "explicit-state",
                                     f"{prop.name}: {wording.sampled_invariant(sampled, tally.steps)}{also}{described(prop)}",
                                     bound={**bound, **wording.sampled_bound(sampled, tally.steps)}, quotes=quote_texts(prop), location=location_of(prop.span), options=changed))
        elif prop.kind == "reachable":
            hit = min(((x.path(x.reached[prop.name]), x) for x in explored if prop.name in x.reached),
                      key=lambda t: len(t[0]), default=None)
            test = property_test(prop)
            reach = tally.sample(prop.name, confidence)
            frequency = f"; {wording.reach_frequency(reach)}" if reach.total else ""
            reach_bound = {**bound, **(wording.reach_bound(reach) if reach.total else {})}
            if hit is not None:
                path, x = hit
                steps = PendingWitness(x.loaded, path, lambda s, t=test: t(s), f"target {prop.name}")
                found.append(Finding(fid, game.name, "reachability", "info", "proven", "explicit-state",
                                     f"{prop.name} is reached in {counted(len(path), 'step')} with {players_phrase([x.players])} "
                                     f"(a shortest witness){frequency}{described(prop)}", bound=reach_bound, quotes=quote_texts(prop),
                                     location=location_of(prop.span), witness=steps, options=changed))
            elif prop.name in tally.reached:
                loaded, history = tally.reached[prop.name]
                steps = PendingWitness(loaded, history, lambda s, t=test: t(s), f"target {prop.name}")
                found.append(Finding(fid, game.name, "reachability", "info", "proven", "random-play",
                                     f"{prop.name} is reached, with {players_phrase([loaded.num_players()])}{frequency}{described(prop)}",
                                     bound=reach_bound, quotes=quote_texts(prop), location=location_of(prop.span), witness=steps,
                                     options=changed))
            elif complete or (prop.name in proofs and proofs[prop.name][0] == "refuted"):
                how = (f"no reachable state meets it ({explored_text(explored)})" if complete
                       else proofs[prop.name][1])
                found.append(Finding(fid, game.name, "reachability", "warning", "refuted",
                                     "explicit-state" if complete else proofs[prop.name][2],
                                     f"{prop.name} can never be reached: {how}{described(prop)}",
                                     bound={**bound, **exhaustive} if complete else bound,
                                     quotes=quote_texts(prop), location=location_of(prop.span), options=changed))
            else:
                found.append(Finding(fid, game.name, "reachability", "warning", "unknown",
                                     "explicit-state" if explored else "random-play",
                                     f"{prop.name} was {wording.not_reached(reach)}{also}{described(prop)}",
                                     bound={**bound, **wording.sampled_bound(reach, tally.steps)},
                                     quotes=quote_texts(prop), location=location_of(prop.span), options=changed))

    # deadlocks
    stuck = next(((x, i) for x in explored for i in x.deadlocks[:1]), None)
    if stuck is not None:
        x, index = stuck
        steps = replayed(x.loaded, x.path(index), lambda s: s.is_stuck(), "a deadlock")
        state = x.loaded.replay(x.path(index))
        who = x.loaded.player_name(max(0, state.current_player()))
        span, rule = state.waiting_at()
        found.append(Finding(f"{game.name}/deadlock/{x.players}{suffix}", game.name, "deadlock", "error", "refuted",
                             "explicit-state", f"the game is not over, yet {who} has no legal move, {counted(len(steps), 'step')} "
                             f"from the start with {players_phrase([x.players])} (a shortest witness)"
                             + (f", in rule {rule}" if rule and rule != "flow" else ""), bound=bound,
                             location=location_of(span), witness=steps, options=changed))
    elif tally.deadlocks:
        loaded, history = tally.deadlocks[0]
        history, method = _shrunk(loaded, history, lambda s: s.is_stuck(), bounds)
        steps = replayed(loaded, history, lambda s: s.is_stuck(), "a deadlock")
        span, rule = loaded.replay(history).waiting_at()
        found.append(Finding(f"{game.name}/deadlock/{loaded.num_players()}{suffix}", game.name, "deadlock", "error",
                             "refuted", method, f"the game is not over, yet no one has a legal move "
                             f"({players_phrase([loaded.num_players()])})" + (f", in rule {rule}" if rule and rule != "flow" else ""),
                             bound=bound, location=location_of(span), witness=steps, options=changed))
    else:
        found.append(Finding(f"{game.name}/deadlock/none{suffix}", game.name, "deadlock", "info",
                             "proven" if complete else "bounded", "explicit-state" if explored else "random-play",
                             ("no reachable state is stuck" if complete else
                              wording.sampled_absence("stuck state", sampled, tally.steps) + also),
                             bound={**bound, **exhaustive} if complete else
                             {**bound, **wording.sampled_bound(sampled, tally.steps)}, options=changed))

    # runtime errors
    errors = [(msg, v) for msg, v in tally.errors.items()]
    errors += [(msg, (x.loaded, x.path(i) + [a], None)) for x in explored for i, a, msg in x.errors[:1]]
    # One finding per failure: the same message met by several searches, or with the loop caught at
    # another of its lines, is said once, at a spec line where there is one.
    by_text: dict = {}
    for msg, (loaded, history, span) in errors:
        text = _bare(msg)
        if text not in by_text or (by_text[text][3] is None and span is not None):
            by_text[text] = (text, loaded, history, span)
    for i, (text, loaded, history, span) in enumerate(list(by_text.values())[:5]):
        steps = None
        if loaded is not None and history:
            try:
                steps = witness(loaded.replay(history[:-1]))
            except RuleRuntimeError:
                steps = None
        where = location_of(span) or _located(msg)
        rule = rule_at(game, where)
        players = f" with {players_phrase([loaded.num_players()])}" if loaded is not None else ""
        found.append(Finding(f"{game.name}/runtime/{i}{suffix}", game.name, "runtime", "error", "refuted",
                             "random-play", f"{rule or 'a rule'} could not be carried out{players}: {text}",
                             location=where, witness=steps, options=changed,
                             hint=None if history else "the rule at this line failed while the game was set up, "
                                                       "before any step there is to show"))

    # termination: one finding per option set (`ending`), timed on its own
    with clock("termination") if clock is not None else contextlib.nullcontext():
        ending = termination(spec, game, options, tally, explored, bounds, known)
        found.append(ending)
        no_end = never_ended(game, options, tally, explored, bounds, ending)
        if no_end is not None:
            found.append(no_end)

    # dead actions: never enabled and taken by random play or the explorer
    fired = set(tally.fired).union(*(x.fired for x in explored)) if explored else set(tally.fired)
    for point, choose in sorted(chooses(game).items()):
        for ai, action in enumerate(choose.actions):
            if (point, ai) in fired:
                continue
            elsewhere = [o for o in fired_by.get((point, ai), []) if o != changed]
            if elsewhere and not complete:  # an option switches it on: not a dead rule, a variant's rule
                under = "; ".join(", ".join(f"{k}={v}" for k, v in o.items()) or "the default options"
                                  for o in elsewhere)
                found.append(Finding(f"{game.name}/dead-rule/{action.name}{suffix}", game.name, "dead-rule", "info",
                                     "bounded", "random-play", f"action {action.name} was never legal in {search}; "
                                     f"it is taken under {under}", bound=bound, quotes=quote_texts(action),
                                     location=location_of(action.span), options=changed))
                continue
            verdict = "proven" if complete else "bounded"
            found.append(Finding(f"{game.name}/dead-rule/{action.name}{suffix}", game.name, "dead-rule", "warning",
                                 verdict, "explicit-state" if complete else "random-play",
                                 f"action {action.name} is never taken: "
                                 + (f"it is not legal in any reachable state ({explored_text(explored)})" if complete
                                    else f"it was never legal in {search}"),
                                 bound=bound, quotes=quote_texts(action), location=location_of(action.span), options=changed))
    for name, (verdict, text, method, extra) in sorted(proofs.items()):
        if name in by_name:
            continue
        if verdict == "dead":
            define = next((d for d in game.defines if d.name == name), None)
            found.append(Finding(f"{game.name}/dead-rule/{name}{suffix}", game.name, "dead-rule", "warning", "proven",
                                 method, text, bound=extra, options=changed,
                                 quotes=quote_texts(define) if define is not None else [],
                                 location=location_of(getattr(define, "span", None))))
    return found


def _shrunk(loaded: Game, history: list[int], fails, bounds: PlayBounds) -> tuple[list[int], str]:
    """A shorter history that still fails, by Hypothesis when it is installed; with the method used."""
    if not bounds.shrink:
        return history, "random-play"
    try:
        from ..verify import strategies
    except ImportError:
        return history, "random-play"
    shorter = strategies.shrink(loaded, history, fails)
    return (shorter, "hypothesis") if shorter is not None else (history, "random-play")


_LOCATED = re.compile(r"^(.+?:\d+:\d+): ")


def _bare(message: str) -> str:
    """A rule's error without the `file:line:col: ` the engine puts before it (the finding locates it)."""
    return _LOCATED.sub("", message, count=1)


def _located(message: str) -> str | None:
    found = _LOCATED.match(message)
    return found.group(1) if found else None


def explored_text(explored: list) -> str:
    parts = []
    for x in explored:
        how = "complete" if x.complete else f"stopped by the {x.stopped_by} limit at depth {x.depth}"
        sym = ", up to renaming the players" if x.symmetry else ""
        parts.append(f"{players_phrase([x.players])}: {x.states:,} states{sym}, {how}")
    return "; ".join(parts)


def chooses(game: m.Game) -> dict:
    return {c.point: c for p in (game.flow, *game.procedures) for c in m.walk(p.body) if isinstance(c, m.Choose)}
