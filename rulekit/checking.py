"""`rulekit check` for one spec: quotes, coverage, claims, ambiguities, and seeded random play.

Random play gives honest, bounded verdicts: an invariant that held in every
state of N games is `bounded` (never `proven`); a reachability target that a
game reached is `proven`, with that game as its witness.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from . import model as m
from . import quotes as q
from .engine import Game
from .errors import RuleRuntimeError
from .findings import Finding, GameReport
from .pipeline import Spec


@dataclass
class PlayBounds:
    games: int = 100  # per player count, under the default options
    variant_games: int = 25  # per player count, under each non-default option
    max_steps: int = 5000  # decisions per game before it counts as not ending
    seed: int = 0


def _loc(span) -> str | None:
    return str(span) if span is not None else None


def _quote_texts(node) -> list[str]:
    return [x.text for x in getattr(node, "quotes", ())]


def check_spec(spec: Spec, bounds: PlayBounds | None = None, progress=None) -> GameReport:
    """All findings for one spec; a spec that does not compile raises SpecError."""
    bounds = bounds or PlayBounds()
    game = spec.model
    report = GameReport(game.name, game.title, spec.display_path,
                        list(range(game.min_players, game.max_players + 1)), game.default_options())
    _static_findings(spec, game, report)
    _random_play(spec, game, report, bounds, progress)
    _acknowledge(game, report)
    return report


def _static_findings(spec: Spec, game: m.Game, report: GameReport) -> None:
    rulebook = spec.rulebook_text
    if rulebook is None:
        report.add(Finding(f"{game.name}/quote/rulebook", game.name, "quote", "error", "refuted", "static",
                           f"the rulebook {game.rulebook!r} is missing beside the spec ({spec.rulebook_path})"))
    else:
        for i, problem in enumerate(q.bad_quotes(game, rulebook)):
            hint = f"; closest rulebook sentence: {problem.suggestion!r}" if problem.suggestion else ""
            report.add(Finding(f"{game.name}/quote/{i}", game.name, "quote", "error", "refuted", "static",
                               f"quote on {problem.use.owner} is not verbatim in the rulebook{hint}",
                               quotes=[problem.use.text], location=_loc(problem.use.where.span)))
        for s in q.uncovered(game, rulebook):
            report.add(Finding(f"{game.name}/coverage/line-{s.line}", game.name, "coverage", "warning", "refuted",
                               "static", f"rulebook line {s.line}: no rule quotes this sentence and it is not "
                               "marked `unmodelled`", quotes=[s.text], location=f"{spec.rulebook_path.name}:{s.line}:1"))
    for a in game.ambiguities:
        options = "; ".join(f"{o.name}: {o.description}" for o in a.options)
        report.add(Finding(f"{game.name}/ambiguity/{a.name}", game.name, "ambiguity", "info", "unknown", "static",
                           f"{a.title} {a.question} Options: {options}. Default: {a.default}, because {a.reason}",
                           quotes=_quote_texts(a), location=_loc(a.span), options={a.name: a.default},
                           acknowledged_by=a.name))
    for players in range(game.min_players, game.max_players + 1):
        try:
            loaded = Game(spec, players, game.default_options())
        except RuleRuntimeError as exc:
            report.add(Finding(f"{game.name}/runtime/setup-{players}", game.name, "runtime", "error", "refuted",
                               "static", f"with {players} players the set-up cannot be built: {exc}",
                               location=_loc(exc.span)))
            continue
        for claim, holds in loaded.claims():
            if not holds:
                report.add(Finding(f"{game.name}/contradiction/{claim.name}/{players}", game.name, "contradiction",
                                   "error", "refuted", "static",
                                   f"claim {claim.name} is false in the set-up with {players} players",
                                   quotes=_quote_texts(claim), location=_loc(claim.span)))


def _variants(game: m.Game) -> list[dict[str, str]]:
    """The default options, then each non-default option on its own (a covering set of single changes)."""
    default = game.default_options()
    out = [default]
    for a in game.ambiguities:
        for o in a.options:
            if o.name != a.default:
                out.append({**default, a.name: o.name})
    return out


def _changed(options: dict, game: m.Game) -> dict:
    default = game.default_options()
    return {k: v for k, v in options.items() if default.get(k) != v}


def witness(state) -> list[dict]:
    """The steps of a game, for people: who did what. Chance outcomes are listed as chance."""
    replay = state.game.new_initial_state(state.seed)
    steps = []
    for i, action in enumerate(state.history):
        who = "chance" if replay.is_chance_node() else state.game.player_name(replay.current_player())
        steps.append({"step": i + 1, "player": who, "action": action, "text": replay.action_to_string(action)})
        replay.apply_action(action)
    return steps


class _Tally:
    def __init__(self, game: m.Game):
        self.game = game
        self.broken: dict[str, Finding] = {}
        self.reached: dict[str, Finding] = {}
        self.unfinished: dict[tuple, int] = {}  # changed options -> games that had not ended
        self.played = 0
        self.steps = 0


def _random_play(spec: Spec, game: m.Game, report: GameReport, bounds: PlayBounds, progress) -> None:
    variants = _variants(game)
    counts = range(game.min_players, game.max_players + 1)
    plan = [(options, players, bounds.games if i == 0 else bounds.variant_games)
            for i, options in enumerate(variants) for players in counts]
    total = sum(n for _, _, n in plan)
    if progress is not None:
        progress.start(game.name, total)
    tally = _Tally(game)
    for options, players, games in plan:
        loaded = Game(spec, players, options)
        for g in range(games):
            _play_one(loaded, options, bounds, bounds.seed + g, tally)
            if progress is not None:
                progress.advance()
    bound = {"games": tally.played, "max_steps": bounds.max_steps, "variants": len(variants)}
    for prop in game.properties:
        if prop.kind == "invariant" and prop.name not in tally.broken:
            report.add(Finding(f"{game.name}/invariant/{prop.name}", game.name, "invariant", "info", "bounded",
                               "random-play", f"{prop.name} held in every state of {tally.played} random games "
                               f"({tally.steps} states)" + (f": {prop.description}" if prop.description else ""),
                               bound=bound, quotes=_quote_texts(prop), location=_loc(prop.span)))
        if prop.kind == "reachable" and prop.name not in tally.reached:
            report.add(Finding(f"{game.name}/reachability/{prop.name}", game.name, "reachability", "warning",
                               "unknown", "random-play", f"{prop.name} was not reached in {tally.played} random games"
                               + (f": {prop.description}" if prop.description else ""), bound=bound,
                               quotes=_quote_texts(prop), location=_loc(prop.span)))
    for f in (*tally.broken.values(), *tally.reached.values()):
        report.add(f)
    for changed, count in sorted(tally.unfinished.items()):
        suffix = "".join(f"/{k}={v}" for k, v in changed)
        where = (" under " + ", ".join(f"{k}={v}" for k, v in changed)) if changed else " under the default options"
        report.add(Finding(f"{game.name}/termination/random-play{suffix}", game.name, "termination", "warning",
                           "unknown", "random-play", f"{count} random game(s){where} had not ended after "
                           f"{bounds.max_steps} decisions", bound=bound, options=dict(changed)))


def _play_one(loaded: Game, options: dict, bounds: PlayBounds, seed: int, tally: _Tally) -> None:
    game = tally.game
    rng = random.Random(seed)
    tally.played += 1
    changed = _changed(options, game)
    suffix = "".join(f"/{k}={v}" for k, v in sorted(changed.items()))
    try:
        state = loaded.new_initial_state(seed=seed, auto_chance=True)
        decisions = 0
        while True:
            tally.steps += 1
            for prop in loaded.violated_invariants(state):
                key = prop.name + suffix
                if key not in tally.broken:
                    tally.broken[key] = Finding(
                        f"{game.name}/invariant/{key}", game.name, "invariant", "error", "refuted", "random-play",
                        f"{prop.name} is false after {len(state.history)} steps with {loaded.num_players()} players"
                        + (f": {prop.description}" if prop.description else ""),
                        quotes=_quote_texts(prop), location=_loc(prop.span), witness=witness(state), options=changed)
                return
            for prop, test in loaded.properties("reachable"):
                if prop.name not in tally.reached and test(state):
                    tally.reached[prop.name] = Finding(
                        f"{game.name}/reachability/{prop.name}", game.name, "reachability", "info", "proven",
                        "random-play", f"{prop.name} is reached, with {loaded.num_players()} players"
                        + (f": {prop.description}" if prop.description else ""),
                        quotes=_quote_texts(prop), location=_loc(prop.span), witness=witness(state), options=changed)
            if state.is_terminal():
                return
            if state.is_stuck():
                key = f"deadlock{suffix}"
                tally.broken.setdefault(key, Finding(
                    f"{game.name}/deadlock/{len(tally.broken)}{suffix}", game.name, "deadlock", "error", "refuted",
                    "random-play", f"the game is not over, yet {loaded.player_name(state.current_player())} has no "
                    f"legal move ({loaded.num_players()} players)", witness=witness(state), options=changed))
                return
            if decisions >= bounds.max_steps:
                key = tuple(sorted(changed.items()))
                tally.unfinished[key] = tally.unfinished.get(key, 0) + 1
                return
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    except RuleRuntimeError as exc:
        key = f"runtime:{exc}{suffix}"
        tally.broken.setdefault(key, Finding(
            f"{game.name}/runtime/{len(tally.broken)}{suffix}", game.name, "runtime", "error", "refuted",
            "random-play", f"a rule could not be carried out ({loaded.num_players()} players): {exc}",
            location=_loc(exc.span), witness=witness(state) if "state" in locals() else None, options=changed))


def _acknowledge(game: m.Game, report: GameReport) -> None:
    """Findings named in the checks file's `expect` lines are reported but do not fail the run."""
    for e in game.expected:
        for f in report.findings:
            if f.id == e.finding or f.id.startswith(e.finding + "/"):
                f.acknowledged_by = f"expect {e.name}"
