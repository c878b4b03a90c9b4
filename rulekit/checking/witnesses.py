"""Witnesses for people: the steps of a game with their rules, quotes and changes, replayed in the engine."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import model as m
from ..engine import Game
from ..errors import WitnessError
from .shared import location_of


def witness(state) -> list[dict]:
    """The steps of a game, for people: who did what, under which rule (with its span and quote), and
    what changed. Chance outcomes are listed as chance."""
    return _steps(state.game, state.history, state.seed)[0]


def _steps(loaded: Game, history, seed) -> tuple[list[dict], object]:
    """The steps of `history` for people, and the state they lead to, in one replay."""
    replay = loaded.new_initial_state(seed)
    rules = rule_of_actions(loaded.model)
    names = ([z[0] for z in loaded.zone_instances()], loaded.variable_names())
    steps = []
    before = _snapshot(replay)
    for i, action in enumerate(history):
        chance = replay.is_chance_node()
        who = "chance" if chance else loaded.player_name(replay.current_player())
        step = {"step": i + 1, "player": who, "action": action, "text": replay.action_to_string(action)}
        if not chance:
            act, _ = loaded.action_parts(action)
            rule = rules.get(id(act))
            quotes = [*act.quotes, *(rule.quotes if rule is not None else ())]
            step.update(rule=rule.name if rule is not None else None, at=location_of(act.span),
                        quote=quotes[0].text if quotes else None)
        replay.apply_action(action)
        after = _snapshot(replay)
        step["changed"] = _changes(loaded, names, before, after)
        before = after
        steps.append(step)
    return steps, replay


def _snapshot(state) -> tuple:
    return [list(z) for z in state.z], list(state.v)


def _changes(loaded, names: tuple, before: tuple, after: tuple) -> str:
    """What a step changed: cards into (+) and out of (-) each zone, and each variable's old and new value."""
    out = []
    for name, old, new in zip(names[0], before[0], after[0]):
        if old == new:
            continue
        gone, came = list(old), []
        for card in new:
            if card in gone:
                gone.remove(card)
            else:
                came.append(card)
        parts = ([f"+{loaded.describe_value('card', c)}" for c in came]
                 + [f"-{loaded.describe_value('card', c)}" for c in gone]) or ["reordered"]
        out.append(f"{name} {' '.join(parts)}")
    out += [f"{name} {loaded.variable_text(i, a)}→{loaded.variable_text(i, b)}"
            for i, (name, a, b) in enumerate(zip(names[1], before[1], after[1])) if a != b]
    return "; ".join(out)


_RULES: dict = {}


def rule_at(game: m.Game, where: str | None) -> str | None:
    """The innermost rule, action, procedure or trigger whose text holds a location (else the flow, when it
    holds it), for messages."""
    parts = (where or "").rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    file, line = parts[0], int(parts[1])
    best = None
    candidates = [("the flow", game.flow.span)]  # what holds the rest, outside any rule
    candidates += [(f"procedure {p.name}", p.span) for p in game.procedures]
    candidates += [(f"trigger {t.name}", t.span) for t in game.triggers]
    rules = rule_of_actions(game)
    for body in m.bodies(game):
        for st in m.walk(body, actions=True):
            if isinstance(st, m.Action):
                candidates.append((f"action {st.name}", st.span))
    candidates += [(f"rule {r.name}", r.span) for r in {id(r): r for r in rules.values() if r is not None}.values()]
    candidates += [(f"rule {r.name}", r.span) for r in _all_rules(game)]
    for name, span in candidates:
        if span is None or span.file != file or not span.line <= line <= max(span.end_line, span.line):
            continue
        if best is None or span.line > best[1].line or (span.line == best[1].line and span.column > best[1].column):
            best = (name, span)
    return best[0] if best else None


def _all_rules(game: m.Game) -> list:
    out = []

    def visit(stmts):
        for st in stmts:
            if isinstance(st, m.Rule):
                out.append(st)
            for name in ("body", "then", "orelse"):
                inner = getattr(st, name, None)
                if isinstance(inner, tuple):
                    visit(inner)
            for _, body in getattr(st, "branches", ()) or ():
                visit(body)
            for a in getattr(st, "actions", ()) or ():
                visit(a.body)
    for body in m.bodies(game):
        visit(body)
    return out


def rule_of_actions(game: m.Game) -> dict:
    """id of each action -> the innermost rule around its decision (None outside rules)."""
    cached = _RULES.get(id(game))
    if cached is not None and cached[0] is game:
        return cached[1]
    out: dict = {}

    def visit(stmts, rule):
        for st in stmts:
            if isinstance(st, m.Rule):
                visit(st.body, st)
            elif isinstance(st, m.Choose):
                for a in st.actions:
                    out[id(a)] = rule
                    visit(a.body, rule)
            elif isinstance(st, m.If):
                for _, body in st.branches:
                    visit(body, rule)
                visit(st.orelse, rule)
            else:
                for name in ("body", "then"):
                    inner = getattr(st, name, None)
                    if isinstance(inner, tuple):
                        visit(inner, rule)
    for body in m.bodies(game):
        visit(body, None)
    _RULES[id(game)] = (game, out)
    return out


def first_break(loaded: Game, path: list[int], fails) -> list[int]:
    """The shortest start of `path` that leads to a state where `fails` holds: random play tests at its
    decisions, and the chance drawn on the way there (a deal) may break an invariant some steps before."""
    state = loaded.replay([])
    for i, action in enumerate(path):
        if fails(state):
            return path[:i]
        state.apply_action(action)
    return path


def replayed(loaded: Game, path: list[int], holds, what: str) -> list[dict]:
    """Replay a witness in the engine and check that it shows what it claims; the steps for people."""
    try:
        steps, state = _steps(loaded, path, None)
    except Exception as exc:  # noqa: BLE001 - any failure here is a rulekit bug
        raise WitnessError(f"rulekit bug: the witness for {what} does not replay: {exc}") from exc
    if not holds(state):
        raise WitnessError(f"rulekit bug: the witness for {what} replays, but does not show it")
    return steps


@dataclass
class PendingWitness:
    """A witness whose replay is put off until its finding is reported. Under a non-default option most
    findings are dropped (they say again what the default options said), and replaying a long random game
    step by step, for people, is among the dearest steps of a check."""

    loaded: Game
    path: list[int]
    holds: Callable
    what: str

    def resolve(self) -> list[dict]:
        return replayed(self.loaded, self.path, self.holds, self.what)


def resolved(finding):
    """The finding with its witness replayed, if it was put off."""
    if isinstance(finding.witness, PendingWitness):
        finding.witness = finding.witness.resolve()
    return finding
