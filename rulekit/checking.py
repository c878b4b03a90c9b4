"""`rulekit check` for one spec: every method, and one finding per question with its strongest honest verdict.

Methods, cheapest first:

- static: quotes verbatim in the rulebook, coverage, declared ambiguities;
- Z3 (`verify.smt`): the facts, counts and claims are consistent for every player count, or a minimal
  unsat core mapped back to its quotes; invariants and dead conditions over the sound abstraction
  "counts per card kind per zone";
- seeded random play (a fast pass over every player count and every option), and, when a run of it
  breaks something, Hypothesis (`verify.strategies`) to shrink the failure to a minimal witness;
- explicit-state exploration (`verify.explore`), breadth first, so its witnesses are shortest; it
  decides invariants, deadlocks, reachability and dead actions exactly when it completes, and gives
  `bounded` verdicts when the state budget, time limit or depth stops it;
- networkx (`verify.graphs`): play that can go on forever (states from which no end is reachable) in
  the explored state graph, and the turn-structure graph.

Verdicts: `proven` only from a complete exploration, a Z3 proof, or a witness (a reachability target
met; a witness is replayed in the engine before it is reported); `refuted` with a witness; `bounded`
when only a bounded search supports the claim; `unknown` otherwise.
"""
from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field
from pathlib import PurePath

from . import model as m
from . import quotes as q
from . import statistics
from .engine import Game
from .errors import RuleRuntimeError, SpecError, WitnessError
from .findings import Finding, GameReport
from .pipeline import Spec
from .report import wording
from .verify import information


@dataclass
class PlayBounds:
    games: int = 100  # per player count, under the default options
    variant_games: int = 25  # per player count, under each non-default option
    max_steps: int = 5000  # decisions per game before it counts as not ending
    seed: int = 0
    max_states: int = 20_000  # explorer: states per configuration
    time_limit: float = 3.0  # explorer: seconds per configuration
    depth: int | None = None  # explorer: steps from the start
    all_options: bool = False  # explore (and prove) under every option, and compare the verdicts
    solver_timeout: float = 5.0  # seconds per Z3 query
    shrink: bool = True  # shrink random-play failures with Hypothesis
    play_budget: int = 8000  # decisions per player count under the default options: long games play fewer
    variant_budget: int = 800  # decisions per player count under each non-default option
    explore_budget: float = 3.0  # explorer: seconds per spec and option set, shared by the player counts
    bmc_depth: int = 20  # Z3 bounded model checking: steps from the start
    max_k: int = 3  # Z3 k-induction: the largest k tried
    symbolic_time_limit: float = 5.0  # Z3 over the transition relation: seconds per configuration
    confidence: float = statistics.DEFAULT_CONFIDENCE  # of the bounds stated for sampled verdicts
    max_violation_rate: float | None = None  # stop random play once every invariant's bound is below it
    deep_information: bool = False  # information-flow check: ten times the re-deals of hidden cards


CheckBounds = PlayBounds


def _loc(span) -> str | None:
    return str(span) if span is not None else None


def setup_error(exc: RuleRuntimeError | SpecError) -> tuple[str, object]:
    """What stops a configuration from being built, in one line, and where."""
    if isinstance(exc, SpecError):
        first = exc.diagnostics[0]
        return f"{first.code} {first.message}", first.span
    return str(exc), exc.span


def _config(spec: Spec, players: int, options: dict):
    """The core IR of one configuration, or None when it cannot be built (random play reports why)."""
    try:
        return spec.config(players, options)
    except SpecError:
        return None


def _quote_texts(node) -> list[str]:
    return [x.text for x in getattr(node, "quotes", ())]


def _desc(prop) -> str:
    return f": {prop.description}" if getattr(prop, "description", None) else ""


def check_spec(spec: Spec, bounds: PlayBounds | None = None, progress=None, timings: dict | None = None,
               executor=None) -> GameReport:
    """All findings for one spec; a spec that does not compile raises SpecError. `executor`
    (`rulekit.executors`) runs the random play; by default, this process does."""
    bounds = bounds or PlayBounds()
    game = spec.model
    report = GameReport(game.name, game.title, spec.display_path,
                        list(range(game.min_players, game.max_players + 1)), game.default_options())
    timings = timings if timings is not None else {}
    clock = _Clock(timings, progress, game.name)
    with clock("static"):
        _static_findings(spec, game, report)
    with clock("z3-unsat-core"):
        _consistency(spec, game, report, bounds)
    variants = _variants(game)
    explored_variants = variants if bounds.all_options else variants[:1]
    with clock("z3-abstraction"):
        proofs = {_key(o): _abstraction(spec, game, o, bounds) for o in variants}
    with clock("random-play"):
        tallies = _random_play(spec, game, variants, bounds, progress, executor)
    with clock("explicit-state"):
        explorations = {_key(o): _explore(spec, game, o, bounds) for o in explored_variants}
    with clock("z3-symbolic"):
        symbolic = {_key(o): _symbolic(spec, game, o, bounds) for o in explored_variants}
    verdicts = {}
    fired_by: dict = {}
    for options in variants:
        for action in tallies[_key(options)].fired:
            fired_by.setdefault(action, []).append(_changed(options, game))
    dead_by_default: set[str] = set()
    for options in variants:
        k = _key(options)
        with clock("graph"):
            found = _judge(spec, game, options, tallies[k], explorations.get(k), proofs.get(k), bounds, fired_by)
        found += symbolic.get(k, [])
        verdicts[k] = found
        default = options == variants[0]
        if default:
            dead_by_default = {f.id for f in found if f.kind == "dead-rule"}
        suffix = _suffix(options, game)
        for f in found:
            # Under another option, report what breaks; not what a few games merely did not reach, nor
            # an action that is never taken under the default options either (that finding says it once).
            if f.kind == "dead-rule" and not default and f.id.removesuffix(suffix) in dead_by_default:
                continue
            if default or (f.severity != "info" and f.verdict != "unknown") or f.kind == "termination":
                report.add(f)
    if bounds.all_options:
        _variant_analysis(game, variants, verdicts, report)
    with clock("information-flow"):
        for f in information.findings(spec, variants, information.Bounds.for_check(bounds.seed, bounds.deep_information), lambda **k: Finding(game=game.name, **k)):
            report.add(f)
    with clock("graph"):
        _turn_structure(game, report)
    _acknowledge(game, report)
    _locate(spec, report)
    report.stats = {**report.stats, "timings": dict(timings), "explored": [
        {"players": x.players, "options": _changed(x.options, game), "states": x.states, "transitions": x.transitions,
         "complete": x.complete, "stopped_by": x.stopped_by, "depth": x.depth, "seconds": round(x.seconds, 3),
         "symmetry": x.symmetry, "method": getattr(x, "method", "engine")} for xs in explorations.values() for x in xs]}
    return report


METHOD_NAMES = {"static": "quotes and coverage", "z3-unsat-core": "Z3: the declared numbers",
                "z3-abstraction": "Z3: the counts abstraction", "random-play": "random play",
                "explicit-state": "exploring the states", "z3-symbolic": "Z3: BMC and k-induction",
                "graph": "judging the verdicts"}


class _Clock:
    """Times each method; tells the progress display (when there is one) which method is running."""

    def __init__(self, timings: dict, progress=None, game: str = ""):
        self.timings = timings
        self.progress = progress if hasattr(progress, "describe") else None
        self.game = game

    def __call__(self, name: str):
        clock = self

        class _Span:
            def __enter__(self):
                if clock.progress is not None:
                    clock.progress.describe(f"{clock.game}: {METHOD_NAMES.get(name, name)}")
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                clock.timings[name] = clock.timings.get(name, 0.0) + time.perf_counter() - self.t
        return _Span()


def _key(options: dict) -> tuple:
    return tuple(sorted(options.items()))


# ---- static ------------------------------------------------------------------------------

def _static_findings(spec: Spec, game: m.Game, report: GameReport) -> None:
    rulebook = spec.rulebook_text
    if rulebook is None:
        report.add(Finding(f"{game.name}/quote/rulebook", game.name, "quote", "error", "refuted", "static",
                           f"the rulebook {game.rulebook!r} is missing beside the spec ({spec.rulebook_path})"))
    else:
        shown = str(PurePath(spec.display_path).parent / spec.rulebook_path.name)
        bad = q.bad_quotes(game, rulebook)
        for i, problem in enumerate(bad):
            hint = f"; closest rulebook sentence: {problem.suggestion!r}" if problem.suggestion else ""
            report.add(Finding(f"{game.name}/quote/{i}", game.name, "quote", "error", "refuted", "static",
                               f"quote on {problem.use.owner} is not verbatim in the rulebook{hint}",
                               quotes=[problem.use.text], location=_loc(problem.use.where.span),
                               hint=f"the closest rulebook sentence is “{problem.suggestion}”" if problem.suggestion
                               else None))
        uncovered = q.uncovered(game, rulebook)
        on_line: dict[int, int] = {}
        for s in uncovered:
            on_line[s.line] = on_line.get(s.line, 0) + 1  # a second sentence of one line gets its own id
            nth = f".{on_line[s.line]}" if on_line[s.line] > 1 else ""
            report.add(Finding(f"{game.name}/coverage/line-{s.line}{nth}", game.name, "coverage", "warning", "refuted",
                               "static", f"rulebook line {s.line}: no rule quotes this sentence and it is not "
                               "marked `unmodelled`", quotes=[s.text], location=f"{shown}:{s.line}:1"))
        uses = q.quote_uses(game)
        report.stats["rulebook"] = {"file": shown, "sentences": len(q.sentences(rulebook)),
                                    "unaccounted": len(uncovered), "quotes": len(uses), "not_verbatim": len(bad)}
    for a in game.ambiguities:
        options = "; ".join(f"{o.name}: {o.description}" for o in a.options)
        report.add(Finding(f"{game.name}/ambiguity/{a.name}", game.name, "ambiguity", "info", "unknown", "static",
                           f"{a.title} {a.question} Options: {options}. Default: {a.default}, because {a.reason}",
                           quotes=_quote_texts(a), location=_loc(a.span), options={a.name: a.default},
                           acknowledged_by=a.name))


def _consistency(spec: Spec, game: m.Game, report: GameReport, bounds: PlayBounds) -> None:
    """Z3: the facts, component counts, token supplies and claims together, per player count."""
    from .verify import smt

    options = game.default_options()
    counts = list(range(game.min_players, game.max_players + 1))
    consistent, unknown = [], []
    cores: dict = {}  # the labels of one minimal unsat core -> (the core, player counts where it is found)
    for players in counts:
        left_out: set = set()
        # Every false claim, not just the first: leave out the claims of each core found and ask again.
        for _ in range(len(game.claims) + 1):
            result = smt.consistency(game, players, options, int(bounds.solver_timeout * 1000), frozenset(left_out))
            if result.result != "unsat":
                break
            key = tuple(t.label for t in result.core)
            cores.setdefault(key, (result, []))[1].append(players)
            claims = {t.name for t in result.core if t.what == "claim"}
            if not claims:
                break
            left_out |= claims
        if left_out or result.result == "unsat":
            continue
        if result.result == "sat":
            consistent.append(players)
            _claims_in_engine(spec, game, report, players, cross_check=True)
        else:
            unknown.append((players, result.reason))
            _claims_in_engine(spec, game, report, players, cross_check=False)
    for result, where in cores.values():
        # A core found with every player count is one finding, not one per count.
        names = ", ".join(t.label for t in result.core)
        quotes = [text for t in result.core for text in t.quotes]
        claims = [t for t in result.core if t.what == "claim"]
        decl = claims[0].decl if claims else result.core[0].decl
        ack = _ambiguity_for(game, quotes)
        suffix = "" if where == counts else "/" + ",".join(map(str, where))
        report.add(Finding(
            f"{game.name}/contradiction/{'+'.join(t.name for t in claims) or 'facts'}{suffix}", game.name,
            "contradiction", "error", "refuted", "z3-unsat-core",
            f"with {_players(where) if _contiguous(where) else ', '.join(map(str, where))} players these "
            f"declarations cannot all hold (minimal unsat core of {len(result.core)} of {result.assertions}): {names}",
            bound={"players": where}, quotes=list(dict.fromkeys(quotes)), location=_loc(getattr(decl, "span", None)),
            acknowledged_by=ack))
    if consistent and game.facts + game.claims:
        report.add(Finding(f"{game.name}/contradiction/consistent", game.name, "contradiction", "info", "proven",
                           "z3-unsat-core", f"the {len(game.facts)} facts, component counts, token supplies and "
                           f"{len(game.claims)} claims are consistent (Z3) with {_players(consistent)} players",
                           bound={"players": consistent}))
    for players, reason in unknown:
        report.add(Finding(f"{game.name}/contradiction/unknown/{players}", game.name, "contradiction", "info",
                           "unknown", "z3-unsat-core", f"Z3 could not decide the declared numbers with {players} "
                           f"players ({reason}); the claims were evaluated in the engine instead",
                           bound={"players": players}))


def _claims_in_engine(spec: Spec, game: m.Game, report: GameReport, players: int, cross_check: bool) -> None:
    try:
        loaded = spec.engine(players, game.default_options())
    except (RuleRuntimeError, SpecError) as exc:
        message, span = setup_error(exc)
        report.add(Finding(f"{game.name}/runtime/setup-{players}", game.name, "runtime", "error", "refuted",
                           "static", f"with {players} players the set-up cannot be built: {message}",
                           location=_loc(span)))
        return
    for claim, holds in loaded.claims():
        if holds:
            continue
        if cross_check:  # Z3 found the claims satisfiable together, the engine says one is false
            raise AssertionError(f"rulekit bug: Z3 and the engine disagree on claim {claim.name} "
                                 f"with {players} players")
        report.add(Finding(f"{game.name}/contradiction/{claim.name}/{players}", game.name, "contradiction",
                           "error", "refuted", "static", f"claim {claim.name} is false in the set-up with {players} "
                           "players", quotes=_quote_texts(claim), location=_loc(claim.span)))


def _ambiguity_for(game: m.Game, quotes: list[str]) -> str | None:
    """The ambiguity declaration that resolves a contradiction: one that quotes the same rulebook text."""
    wanted = set(quotes)
    for a in game.ambiguities:
        if a.kind == "contradiction" and wanted & set(_quote_texts(a)):
            return a.name
    return None


def _contiguous(counts: list[int]) -> bool:
    return counts == list(range(counts[0], counts[-1] + 1))


def _players(counts: list[int]) -> str:
    return f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"


# ---- variants --------------------------------------------------------------------------------

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


def _suffix(options: dict, game: m.Game) -> str:
    return "".join(f"/{k}={v}" for k, v in sorted(_changed(options, game).items()))


# ---- witnesses -----------------------------------------------------------------------------------

def witness(state) -> list[dict]:
    """The steps of a game, for people: who did what, under which rule (with its span and quote), and
    what changed. Chance outcomes are listed as chance."""
    loaded = state.game
    replay = loaded.new_initial_state(state.seed)
    rules = _rule_of_actions(loaded.model)
    names = ([z[0] for z in loaded.zone_instances()], loaded.variable_names())
    steps = []
    before = _snapshot(replay)
    for i, action in enumerate(state.history):
        chance = replay.is_chance_node()
        who = "chance" if chance else loaded.player_name(replay.current_player())
        step = {"step": i + 1, "player": who, "action": action, "text": replay.action_to_string(action)}
        if not chance:
            act, _ = loaded.action_parts(action)
            rule = rules.get(id(act))
            quotes = [*act.quotes, *(rule.quotes if rule is not None else ())]
            step.update(rule=rule.name if rule is not None else None, at=_loc(act.span),
                        quote=quotes[0].text if quotes else None)
        replay.apply_action(action)
        after = _snapshot(replay)
        step["changed"] = _changes(loaded, names, before, after)
        before = after
        steps.append(step)
    return steps


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
    out += [f"{name} {a}→{b}" for name, a, b in zip(names[1], before[1], after[1]) if a != b]
    return "; ".join(out)


_RULES: dict = {}


def _rule_at(game: m.Game, where: str | None) -> str | None:
    """The innermost rule, action, procedure or trigger whose text holds a location, for messages."""
    parts = (where or "").rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    file, line = parts[0], int(parts[1])
    best = None
    candidates = [(f"procedure {p.name}", p.span) for p in game.procedures]
    candidates += [(f"trigger {t.name}", t.span) for t in game.triggers]
    rules = _rule_of_actions(game)
    for body in (game.flow.body, *(p.body for p in game.procedures), *(t.body for t in game.triggers)):
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
    for body in (game.flow.body, *(p.body for p in game.procedures), *(t.body for t in game.triggers)):
        visit(body)
    return out


def _rule_of_actions(game: m.Game) -> dict:
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
    for body in (game.flow.body, *(p.body for p in game.procedures), *(t.body for t in game.triggers)):
        visit(body, None)
    _RULES[id(game)] = (game, out)
    return out


def replayed(loaded: Game, path: list[int], holds, what: str) -> list[dict]:
    """Replay a witness in the engine and check that it shows what it claims; the steps for people."""
    try:
        state = loaded.replay(path)
    except Exception as exc:  # noqa: BLE001 - any failure here is a rulekit bug
        raise WitnessError(f"rulekit bug: the witness for {what} does not replay: {exc}") from exc
    if not holds(state):
        raise WitnessError(f"rulekit bug: the witness for {what} replays, but does not show it")
    return witness(state)


# ---- random play -------------------------------------------------------------------------------

@dataclass
class _Tally:
    """What seeded random play saw under one choice of options, over every player count."""

    broken: dict = field(default_factory=dict)  # invariant name -> (loaded, history)
    reached: dict = field(default_factory=dict)  # target name -> (loaded, history)
    deadlocks: list = field(default_factory=list)  # (loaded, history)
    errors: dict = field(default_factory=dict)  # message -> (loaded, history, span)
    unfinished: int = 0
    played: int = 0
    steps: int = 0
    fired: set = field(default_factory=set)
    games_by_players: dict = field(default_factory=dict)  # players -> games played
    reach_by_players: dict = field(default_factory=dict)  # target name -> {players: games that reached it}

    def sample(self, target: str | None, confidence: float) -> statistics.Sample:
        """The games per player count, and (for a target) in how many it was reached."""
        return statistics.Sample(dict(self.games_by_players), dict(self.reach_by_players.get(target, {})), confidence)


def _random_play(spec: Spec, game: m.Game, variants: list[dict], bounds: PlayBounds, progress, executor=None) -> dict:
    """Per choice of options, what seeded random play saw: one task per option set and player count,
    run by `executor` (`rulekit.executors`; default: this process) and merged in plan order, so the
    tallies are the same whatever ran the tasks."""
    from . import executors

    counts = range(game.min_players, game.max_players + 1)
    plan = [(options, players, bounds.games if i == 0 else bounds.variant_games,
             bounds.play_budget if i == 0 else bounds.variant_budget)
            for i, options in enumerate(variants) for players in counts]
    local = executor is None or isinstance(executor, executors.InProcess)
    where = spec if local else str(spec.path.resolve())  # a worker loads the spec from its path
    tasks = [(where, players, options, games, budget, bounds.max_steps, bounds.seed, bounds.confidence,
              bounds.max_violation_rate) for options, players, games, budget in plan]
    if hasattr(progress, "describe"):
        progress.describe(f"{game.name}: random play, {len(plan)} configuration(s)")
    results = executors.run(executor or executors.InProcess(), play_sample, tasks, game.name,
                            progress if progress is not None else False)
    tallies = {_key(o): _Tally() for o in variants}
    for (options, players, _, _), part in zip(plan, results):
        tally = tallies[_key(options)]
        loaded = (lambda p=players, o=options: spec.engine(p, o))  # noqa: E731 - the game a witness replays in
        for name, (_, history) in part.broken.items():
            tally.broken.setdefault(name, (loaded(), history))
        for name, (_, history) in part.reached.items():
            tally.reached.setdefault(name, (loaded(), history))
        tally.deadlocks += [(loaded(), history) for _, history in part.deadlocks]
        for message, (had, history, span) in part.errors.items():
            tally.errors.setdefault(message, (loaded() if had else None, history, span))
        tally.unfinished += part.unfinished
        tally.played += part.played
        tally.steps += part.steps
        tally.fired |= part.fired
        for n, games in part.games_by_players.items():
            tally.games_by_players[n] = tally.games_by_players.get(n, 0) + games
        for target, by_players in part.reach_by_players.items():
            into = tally.reach_by_players.setdefault(target, {})
            for n, games in by_players.items():
                into[n] = into.get(n, 0) + games
    return tallies


def play_sample(spec: Spec | str, players: int, options: dict, games: int, budget: int, max_steps: int,
                seed: int, confidence: float = 0.95, max_violation_rate: float | None = None) -> _Tally:
    """Seeded random games of one configuration, until `games` or `budget` decisions (or, with
    `max_violation_rate`, until the sample is enough: see `_enough_games`); what they saw, with each
    witness as (True, history) instead of the game it replays in, so the tally travels."""
    spec = Spec.find(spec) if isinstance(spec, str) else spec
    tally = _Tally()
    try:
        loaded = spec.engine(players, options)
    except (RuleRuntimeError, SpecError) as exc:
        message, span = setup_error(exc)
        tally.errors[f"the set-up cannot be built with {players} players: {message}"] = (None, [], span)
        return tally
    bounds = PlayBounds(max_steps=max_steps, confidence=confidence, max_violation_rate=max_violation_rate)
    enough = _enough_games(spec.model, bounds)
    for g in range(games):
        if g and (tally.steps >= budget or enough(tally, g)):  # the games so far are the bound the verdicts state
            break
        _play_one(loaded, bounds, seed + g, tally)
    tally.broken = {k: (True, h) for k, (_, h) in tally.broken.items()}
    tally.reached = {k: (True, h) for k, (_, h) in tally.reached.items()}
    tally.deadlocks = [(True, h) for _, h in tally.deadlocks]
    tally.errors = {k: (v[0] is not None, v[1], v[2]) for k, v in tally.errors.items()}
    return tally


def _enough_games(game: m.Game, bounds: PlayBounds):
    """Sequential stopping: with `max_violation_rate` set, a player count needs no more games once every
    target has been reached and the bound on every invariant not yet broken is below that rate."""
    if not bounds.max_violation_rate:
        return lambda tally, played: False
    needed = statistics.trials_needed(bounds.max_violation_rate, bounds.confidence)
    targets = [p.name for p in game.properties if p.kind == "reachable"]
    return lambda tally, played: played >= needed and all(t in tally.reached for t in targets)


def _play_one(loaded: Game, bounds: PlayBounds, seed: int, tally: _Tally) -> None:
    rng = random.Random(seed)
    tally.played += 1
    players = loaded.num_players()
    tally.games_by_players[players] = tally.games_by_players.get(players, 0) + 1
    reached_here: set = set()
    table = loaded.action_table
    invariants, targets = loaded.properties("invariant"), loaded.properties("reachable")
    decisions = 0
    state = None
    try:
        state = loaded.new_initial_state(seed=seed, auto_chance=True)
        while True:
            tally.steps += 1
            for prop, test in invariants:
                if not test(state):
                    tally.broken.setdefault(prop.name, (loaded, list(state.history)))
                    return
            for prop, test in targets:
                if prop.name not in reached_here and test(state):
                    reached_here.add(prop.name)
                    counts = tally.reach_by_players.setdefault(prop.name, {})
                    counts[players] = counts.get(players, 0) + 1
                    tally.reached.setdefault(prop.name, (loaded, list(state.history)))
            if state.is_terminal():
                return
            if state.is_stuck():
                tally.deadlocks.append((loaded, list(state.history)))
                return
            if decisions >= bounds.max_steps:
                tally.unfinished += 1
                return
            action = rng.choice(state.legal)
            tally.fired.add(table[action][:2])
            state.apply_action(action)
            decisions += 1
    except RuleRuntimeError as exc:  # the set-up itself may fail: then the history is empty
        tally.errors.setdefault(str(exc), (loaded, list(state.history) if state is not None else [], exc.span))


def _shrunk(loaded: Game, history: list[int], fails, bounds: PlayBounds) -> tuple[list[int], str]:
    """A shorter history that still fails, by Hypothesis when it is installed; with the method used."""
    if not bounds.shrink:
        return history, "random-play"
    try:
        from .verify import strategies
    except ImportError:
        return history, "random-play"
    shorter = strategies.shrink(loaded, history, fails)
    return (shorter, "hypothesis") if shorter is not None else (history, "random-play")


# ---- exploration ------------------------------------------------------------------------------------

def _explore(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> list:
    """Per player count: the vectorized explorer where the configuration lies in the symbolic fragment,
    the engine's explorer otherwise."""
    from .verify import Unsupported, vector
    from .verify.explore import Limits, explore

    counts = range(game.min_players, game.max_players + 1)
    share = bounds.explore_budget / len(counts) if bounds.explore_budget > 0 else bounds.time_limit
    limits = Limits(max_states=bounds.max_states, time_limit=min(bounds.time_limit, share), depth=bounds.depth)
    out = []
    if bounds.max_states <= 0:
        return out
    for players in counts:
        try:
            loaded = spec.engine(players, options)
        except (RuleRuntimeError, SpecError):
            continue
        try:
            result = vector.explore(loaded, limits)
            _engine_errors(result)
        except Unsupported:
            try:
                result = explore(loaded, limits)
            except RuleRuntimeError:
                continue
        except RuleRuntimeError:
            continue
        result.loaded = loaded
        out.append(result)
    return out


def _engine_errors(x) -> None:
    """The engine's own message for each rule the vectorized explorer found refused; it must refuse it."""
    errors = []
    for index, action, _ in x.errors:
        try:
            x.loaded.replay(x.path(index) + [action])
        except RuleRuntimeError as exc:
            errors.append((index, action, str(exc)))
            continue
        raise WitnessError(f"rulekit bug: the symbolic relation refuses action {action}, the engine does not")
    x.errors = errors


# ---- Z3 over the symbolic transition relation ----------------------------------------------------------

def _symbolic(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> list[Finding]:
    """BMC, k-induction and the parametric proof, for each player count, when the configuration lies in
    the symbolic fragment (`verify.fragment`); one `unknown` finding naming the construct otherwise."""
    from .verify import Unsupported, fragment, parametric, symbolic
    from .lower import every_count
    from .verify.replay import action_ids

    suffix, changed = _suffix(options, game), _changed(options, game)
    counts = list(range(game.min_players, game.max_players + 1))
    timeout = int(bounds.solver_timeout * 1000)
    results = {}
    try:
        for players in counts:
            config = _config(spec, players, options)
            if config is None:
                continue
            system = fragment.build(config)
            results[players] = (system, symbolic.verify(system, bounds.bmc_depth, bounds.max_k, timeout,
                                                         bounds.symbolic_time_limit))
    except Unsupported as exc:
        if not game.properties:
            return []
        return [Finding(f"{game.name}/invariant/z3-symbolic{suffix}", game.name, "invariant", "info", "unknown",
                        "z3-bmc", f"Z3 (BMC, k-induction) left out: the exact symbolic transition relation does not "
                        f"cover this game (unsupported: {exc}); its ends and deadlocks are judged by exploration and "
                        "random play, its invariants also by Z3 over the counts abstraction", options=changed),
                *_segment_findings(spec, game, options, bounds)]
    except z3_errors() as exc:
        return [Finding(f"{game.name}/invariant/z3-symbolic{suffix}", game.name, "invariant", "info", "unknown",
                        "z3-bmc", f"Z3 failed on the symbolic transition relation ({exc})", options=changed)]
    if not results:
        return []
    where = _players(counts)
    found: list[Finding] = []
    loaded_cache: dict = {}

    def replay(players, path, holds, what):
        if players not in loaded_cache:
            loaded_cache[players] = spec.engine(players, options)
        loaded = loaded_cache[players]
        ids = action_ids(results[players][0], loaded)
        return replayed(loaded, [ids[c] for c in path], holds, what)

    depth = min(v.depth for _, v in results.values())
    bound = {"players": counts, "bmc_depth": depth, "max_k": bounds.max_k}
    for prop in game.properties:
        key = (prop.kind, prop.name)
        answers = {p: v.answers.get(key) for p, (_, v) in results.items()}
        test = _test(prop)
        common = dict(quotes=_quote_texts(prop), location=_loc(prop.span), options=changed)
        if prop.kind == "invariant":
            fid = f"{game.name}/invariant/{prop.name}/z3{suffix}"
            bad = sorted((a.depth, p) for p, a in answers.items() if a is not None and a.status == "refuted")
            ks = {p: v.proven.get(prop.name) for p, (_, v) in results.items()}
            if bad:
                d, p = bad[0]
                steps = replay(p, answers[p].path, lambda s, t=test: not t(s), f"invariant {prop.name}")
                found.append(Finding(fid, game.name, "invariant", "error", "refuted", "z3-bmc",
                                     f"{prop.name} is false {d} steps from the start with {p} players (Z3 BMC, a "
                                     f"shortest witness){_desc(prop)}", bound=bound, witness=steps, **common))
            elif all(ks.values()):
                k = max(k for k, _ in ks.values())
                lemmas = max(n for _, n in ks.values())
                found.append(Finding(fid, game.name, "invariant", "info", "proven", "z3-k-induction",
                                     f"{prop.name} holds in every reachable state with {where} players: Z3 proves it "
                                     f"{k}-inductive (with {lemmas} lemma(s) proven alongside){_desc(prop)}",
                                     bound={**bound, "k": k}, **common))
            else:
                unknown = sorted(p for p, a in answers.items() if a is not None and a.status == "unknown")
                proven = sorted(p for p, k in ks.items() if k)
                text = f"{prop.name} holds in every state within {depth} steps of the start (Z3 BMC, {where} players)"
                if proven:
                    text += f"; proven by k-induction with {_players(proven)} players"
                if unknown:
                    text += "; undecided with " + ", ".join(map(str, unknown)) + " players (" + \
                        answers[unknown[0]].reason + ")"
                found.append(Finding(fid, game.name, "invariant", "info", "unknown" if unknown and not proven else
                                     "bounded", "z3-bmc", text + _desc(prop), bound=bound, **common))
        else:
            fid = f"{game.name}/reachability/{prop.name}/z3{suffix}"
            hits = sorted((a.depth, p) for p, a in answers.items() if a is not None and a.status == "reached")
            never = [p for p, (_, v) in results.items() if prop.name in v.unreachable]
            if hits:
                d, p = hits[0]
                steps = replay(p, answers[p].path, lambda s, t=test: t(s), f"target {prop.name}")
                found.append(Finding(fid, game.name, "reachability", "info", "proven", "z3-bmc",
                                     f"{prop.name} is reached in {d} steps with {p} players (Z3 BMC, a shortest "
                                     f"witness){_desc(prop)}", bound=bound, witness=steps, **common))
            elif len(never) == len(counts):
                found.append(Finding(fid, game.name, "reachability", "warning", "refuted", "z3-k-induction",
                                     f"{prop.name} can never be reached with {where} players: its negation is "
                                     f"inductive (Z3){_desc(prop)}", bound=bound, **common))
            else:
                text = f"{prop.name} is not reached within {depth} steps (Z3 BMC, {where} players)"
                if never:
                    text += f"; it can never be reached with {_players(sorted(never))} players (Z3 induction)"
                found.append(Finding(fid, game.name, "reachability", "warning", "unknown", "z3-bmc",
                                     text + _desc(prop), bound=bound, **common))
    stuck = sorted((a.depth, p) for p, (_, v) in results.items()
                   if (a := v.answers.get(("deadlock",))) is not None and a.status == "found")
    fid = f"{game.name}/deadlock/z3{suffix}"
    if stuck:
        d, p = stuck[0]
        steps = replay(p, results[p][1].answers[("deadlock",)].path, lambda s: s.is_stuck(), "a deadlock")
        found.append(Finding(fid, game.name, "deadlock", "error", "refuted", "z3-bmc",
                             f"the game is not over, yet no one has a legal move, {d} steps from the start with "
                             f"{p} players (Z3 BMC, a shortest witness)", bound=bound, witness=steps, options=changed))
    elif all(v.stuck_free for _, v in results.values()):
        k = max(v.stuck_free for _, v in results.values())
        found.append(Finding(fid, game.name, "deadlock", "info", "proven", "z3-k-induction",
                             f"no reachable state is stuck with {where} players: Z3 proves \"over, or some action "
                             f"is legal\" {k}-inductive", bound={**bound, "k": k}, options=changed))
    else:
        found.append(Finding(fid, game.name, "deadlock", "info", "bounded", "z3-bmc",
                             f"no stuck state within {depth} steps of the start (Z3 BMC, {where} players)",
                             bound=bound, options=changed))
    try:
        proofs = parametric.prove(every_count(game, options), timeout)
    except (Unsupported, *z3_errors()):
        proofs = {}
    for prop in game.properties:
        if prop.name in proofs and proofs[prop.name][0]:
            found.append(Finding(f"{game.name}/invariant/{prop.name}/z3-parametric{suffix}", game.name, "invariant",
                                 "info", "proven", "z3-k-induction", f"{prop.name}: {proofs[prop.name][1]}{_desc(prop)}",
                                 bound={"players": f">= {game.min_players}", "k": 1}, quotes=_quote_texts(prop),
                                 location=_loc(prop.span), options=changed))
    return found


def _segment_findings(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> list[Finding]:
    """Each invariant over the counts abstraction (`verify.segments`): proven by k-induction, bounded
    by BMC (in segments), or unknown with the reason; never refuted, as its traces are not the engine's."""
    import time

    from .verify import Unsupported, segments

    suffix, changed = _suffix(options, game), _changed(options, game)
    invariants = [p for p in game.properties if p.kind == "invariant"]
    counts = list(range(game.min_players, game.max_players + 1))
    timeout = max(1, int(min(bounds.solver_timeout, 1.0) * 1000))
    results: dict = {}
    try:
        for players in counts:
            config = _config(spec, players, options)
            if config is None:
                continue
            system = segments.build(config)
            # A fifth of the symbolic step's time per configuration: what the abstraction decides it
            # decides in a fraction of a second, and `rulekit check` must stay fast.
            deadline = time.perf_counter() + bounds.symbolic_time_limit / 5
            # Small cones first, each invariant with its share of what is left of the configuration's
            # time, so that what one leaves unused goes to the harder ones after it.
            order = segments.by_cost(system)
            for i, name in enumerate(order):
                share = (deadline - time.perf_counter()) / (len(order) - i)
                results.setdefault(name, {})[players] = segments.decide(
                    system, name, min(bounds.bmc_depth, 8), bounds.max_k, timeout, time.perf_counter() + share)
    except Unsupported as exc:
        return [Finding(f"{game.name}/invariant/z3-counts{suffix}", game.name, "invariant", "info", "unknown",
                        "z3-bmc", f"Z3 over the counts abstraction left out (unsupported: {exc})", options=changed)]
    except z3_errors() as exc:
        return [Finding(f"{game.name}/invariant/z3-counts{suffix}", game.name, "invariant", "info", "unknown",
                        "z3-bmc", f"Z3 failed on the counts abstraction ({exc})", options=changed)]
    where = _players(counts)
    how = ("over the counts abstraction (cards as counts per kind per zone, the control flow forgotten, what the "
           "state does not record left unknown, cut to the invariant's cone of influence)")
    found = []
    for prop in invariants:
        per = results[prop.name]
        fid = f"{game.name}/invariant/{prop.name}/z3{suffix}"
        common = dict(quotes=_quote_texts(prop), location=_loc(prop.span), options=changed)
        if all(v[0] == "proven" for v in per.values()):
            k = max(v[1] for v in per.values())
            found.append(Finding(fid, game.name, "invariant", "info", "proven", "z3-k-induction",
                                 f"{prop.name} holds in every reachable state with {where} players: Z3 proves it "
                                 f"{k}-inductive {how}{_desc(prop)}",
                                 bound={"players": counts, "k": k, "abstraction": "counts"}, **common))
            continue
        undecided = sorted(p for p, v in per.items() if v[0] == "unknown")
        if not undecided:
            depth = min(v[1] for v in per.values())
            proven = sorted(p for p, v in per.items() if v[0] == "proven")
            text = (f"{prop.name} holds in every state reached through at most {depth} rule segments (Z3 BMC {how}, "
                    f"{where} players)")
            if proven:
                text += f"; proven by k-induction with {_players(proven)} players"
            found.append(Finding(fid, game.name, "invariant", "info", "bounded", "z3-bmc", text + _desc(prop),
                                 bound={"players": counts, "bmc_depth": depth, "abstraction": "counts"}, **common))
            continue
        reason = per[undecided[0]][2]
        found.append(Finding(fid, game.name, "invariant", "info", "unknown", "z3-bmc",
                             f"{prop.name}: Z3 {how} could not decide it with {_players(undecided)} players: "
                             f"{reason}{_desc(prop)}", bound={"players": counts, "abstraction": "counts"}, **common))
    return found


def z3_errors() -> tuple:
    import z3

    return (z3.Z3Exception,)


_ABSTRACTION_CACHE: dict = {}


def _abstraction(spec: Spec, game: m.Game, options: dict, bounds: PlayBounds) -> dict:
    """Z3 over the counts abstraction; the answer depends only on the options that the declarations,
    definitions and properties read, so variants that differ elsewhere share one computation."""
    from .verify import segments

    read = set()
    stack = [*game.facts, *game.components, *game.tokens, *game.vars, *game.defines, *game.properties]
    while stack:
        node = stack.pop()
        if isinstance(node, m.OptionIs):
            read.add(node.ambiguity)
        stack.extend(m.children(node))
    key = (id(game), bounds.solver_timeout, tuple(sorted((k, v) for k, v in options.items() if k in read)))
    cached = _ABSTRACTION_CACHE.get(key)
    if cached is None or cached[0] is not game:
        if len(_ABSTRACTION_CACHE) > 256:
            _ABSTRACTION_CACHE.clear()
        configs = [_config(spec, players, options) for players in range(game.min_players, game.max_players + 1)]
        proofs = {} if None in configs else segments.state_proofs(configs, int(bounds.solver_timeout * 1000))
        cached = _ABSTRACTION_CACHE[key] = (game, proofs)
    return cached[1]


# ---- judging: one finding per question, the strongest verdict the evidence supports -------------------

def _judge(spec, game: m.Game, options: dict, tally: _Tally, explored: list | None, proofs: dict | None,
           bounds: PlayBounds, fired_by: dict | None = None) -> list[Finding]:
    """`fired_by`: for each action, the option changes under which random play took it."""
    explored = explored or []
    fired_by = fired_by or {}
    proofs = proofs or {}
    suffix = _suffix(options, game)
    changed = _changed(options, game)
    complete = bool(explored) and all(x.complete for x in explored) and \
        len(explored) == game.max_players - game.min_players + 1
    states = sum(x.states for x in explored)
    search = (f"{tally.played} random games ({tally.steps} states)" +
              (f" and {states} explored states ({_explored_text(explored)})" if explored else ""))
    bound = {"games": tally.played, "states": tally.steps, "max_steps": bounds.max_steps}
    if explored:
        bound["explored"] = {"states": states, "complete": complete, "depth": min(x.depth for x in explored),
                             "stopped_by": sorted({x.stopped_by for x in explored if x.stopped_by})}
    exhaustive = {"complete": True, "states": states, "configurations": [
        {"players": x.players, "options": changed, "states": x.states} for x in explored]} if complete else {}
    confidence = bounds.confidence
    sampled = tally.sample(None, confidence)
    also = f"; and in {states} explored states ({_explored_text(explored)})" if explored else ""
    found: list[Finding] = []
    by_name = {p.name: p for p in game.properties}

    for prop in game.properties:
        fid = f"{game.name}/{'invariant' if prop.kind == 'invariant' else 'reachability'}/{prop.name}{suffix}"
        if prop.kind == "invariant":
            hit = next(((x, x.violated[prop.name]) for x in explored if prop.name in x.violated), None)
            test = _test(prop)
            if hit is not None:
                x, index = hit
                steps = replayed(x.loaded, x.path(index), lambda s, t=test: not t(s), f"invariant {prop.name}")
                found.append(Finding(fid, game.name, "invariant", "error", "refuted", "explicit-state",
                                     f"{prop.name} is false in a state {len(steps)} steps from the start, with "
                                     f"{x.players} players (a shortest witness){_desc(prop)}", bound=bound,
                                     quotes=_quote_texts(prop), location=_loc(prop.span), witness=steps, options=changed))
            elif prop.name in tally.broken:
                loaded, history = tally.broken[prop.name]
                fails = (lambda s, t=test: not t(s))
                history, method = _shrunk(loaded, history, fails, bounds)
                steps = replayed(loaded, history, fails, f"invariant {prop.name}")
                found.append(Finding(fid, game.name, "invariant", "error", "refuted", method,
                                     f"{prop.name} is false after {len(steps)} steps with {loaded.num_players()} "
                                     f"players{_desc(prop)}", bound=bound, quotes=_quote_texts(prop),
                                     location=_loc(prop.span), witness=steps, options=changed))
            elif complete:
                found.append(Finding(fid, game.name, "invariant", "info", "proven", "explicit-state",
                                     f"{prop.name} holds in every reachable state ({_explored_text(explored)}){_desc(prop)}",
                                     bound={**bound, **exhaustive}, quotes=_quote_texts(prop), location=_loc(prop.span), options=changed))
            elif prop.name in proofs and proofs[prop.name][0] == "proven":
                found.append(Finding(fid, game.name, "invariant", "info", "proven", proofs[prop.name][2],
                                     f"{prop.name} holds in every reachable state: {proofs[prop.name][1]}{_desc(prop)}",
                                     bound={**bound, **proofs[prop.name][3]}, quotes=_quote_texts(prop),
                                     location=_loc(prop.span), options=changed))
            else:
                found.append(Finding(fid, game.name, "invariant", "info", "bounded", "random-play" if not explored
                                     else "explicit-state",
                                     f"{prop.name}: {wording.sampled_invariant(sampled, tally.steps)}{also}{_desc(prop)}",
                                     bound={**bound, **wording.sampled_bound(sampled, tally.steps)}, quotes=_quote_texts(prop), location=_loc(prop.span), options=changed))
        elif prop.kind == "reachable":
            hit = min(((x.path(x.reached[prop.name]), x) for x in explored if prop.name in x.reached),
                      key=lambda t: len(t[0]), default=None)
            test = _test(prop)
            reach = tally.sample(prop.name, confidence)
            frequency = f"; {wording.reach_frequency(reach)}" if reach.total else ""
            reach_bound = {**bound, **(wording.reach_bound(reach) if reach.total else {})}
            if hit is not None:
                path, x = hit
                steps = replayed(x.loaded, path, lambda s, t=test: t(s), f"target {prop.name}")
                found.append(Finding(fid, game.name, "reachability", "info", "proven", "explicit-state",
                                     f"{prop.name} is reached in {len(steps)} steps with {x.players} players "
                                     f"(a shortest witness){frequency}{_desc(prop)}", bound=reach_bound, quotes=_quote_texts(prop),
                                     location=_loc(prop.span), witness=steps, options=changed))
            elif prop.name in tally.reached:
                loaded, history = tally.reached[prop.name]
                steps = replayed(loaded, history, lambda s, t=test: t(s), f"target {prop.name}")
                found.append(Finding(fid, game.name, "reachability", "info", "proven", "random-play",
                                     f"{prop.name} is reached, with {loaded.num_players()} players{frequency}{_desc(prop)}",
                                     bound=reach_bound, quotes=_quote_texts(prop), location=_loc(prop.span), witness=steps,
                                     options=changed))
            elif complete or (prop.name in proofs and proofs[prop.name][0] == "refuted"):
                how = (f"no reachable state meets it ({_explored_text(explored)})" if complete
                       else proofs[prop.name][1])
                found.append(Finding(fid, game.name, "reachability", "warning", "refuted",
                                     "explicit-state" if complete else proofs[prop.name][2],
                                     f"{prop.name} can never be reached: {how}{_desc(prop)}",
                                     bound={**bound, **exhaustive} if complete else bound,
                                     quotes=_quote_texts(prop), location=_loc(prop.span), options=changed))
            else:
                found.append(Finding(fid, game.name, "reachability", "warning", "unknown",
                                     "explicit-state" if explored else "random-play",
                                     f"{prop.name} was {wording.not_reached(reach)}{also}{_desc(prop)}",
                                     bound={**bound, **wording.sampled_bound(reach, tally.steps)},
                                     quotes=_quote_texts(prop), location=_loc(prop.span), options=changed))

    # deadlocks
    stuck = next(((x, i) for x in explored for i in x.deadlocks[:1]), None)
    if stuck is not None:
        x, index = stuck
        steps = replayed(x.loaded, x.path(index), lambda s: s.is_stuck(), "a deadlock")
        state = x.loaded.replay(x.path(index))
        who = x.loaded.player_name(max(0, state.current_player()))
        span, rule = state.waiting_at()
        found.append(Finding(f"{game.name}/deadlock/{x.players}{suffix}", game.name, "deadlock", "error", "refuted",
                             "explicit-state", f"the game is not over, yet {who} has no legal move, {len(steps)} steps "
                             f"from the start with {x.players} players (a shortest witness)"
                             + (f", in rule {rule}" if rule and rule != "flow" else ""), bound=bound,
                             location=_loc(span), witness=steps, options=changed))
    elif tally.deadlocks:
        loaded, history = tally.deadlocks[0]
        history, method = _shrunk(loaded, history, lambda s: s.is_stuck(), bounds)
        steps = replayed(loaded, history, lambda s: s.is_stuck(), "a deadlock")
        span, rule = loaded.replay(history).waiting_at()
        found.append(Finding(f"{game.name}/deadlock/{loaded.num_players()}{suffix}", game.name, "deadlock", "error",
                             "refuted", method, f"the game is not over, yet no one has a legal move "
                             f"({loaded.num_players()} players)" + (f", in rule {rule}" if rule and rule != "flow" else ""),
                             bound=bound, location=_loc(span), witness=steps, options=changed))
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
        where = _loc(span) or _located(msg)
        rule = _rule_at(game, where)
        found.append(Finding(f"{game.name}/runtime/{i}{suffix}", game.name, "runtime", "error", "refuted",
                             "random-play", f"{rule or 'a rule'} could not be carried out: {text}",
                             location=where, witness=steps, options=changed))

    # termination
    if tally.unfinished:
        where = (" under " + ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))) if changed else \
            " under the default options"
        found.append(Finding(f"{game.name}/termination/random-play{suffix}", game.name, "termination", "warning",
                             "unknown", "random-play", f"{tally.unfinished} random game(s){where} had not ended after "
                             f"{bounds.max_steps} decisions", bound=bound, options=changed))
    for x in explored:
        if not x.complete or x.edges is None:
            continue
        from .verify import graphs

        trapped = graphs.trapped(x)
        if trapped is None:
            continue
        index, cycle_states, scc_count = trapped
        steps = replayed(x.loaded, x.path(index), lambda s: not s.is_terminal(), "endless play")
        found.append(Finding(f"{game.name}/termination/graph/{x.players}{suffix}", game.name, "termination",
                             "warning", "refuted", "graph",
                             f"with {x.players} players play can go on forever: {cycle_states} reachable states "
                             f"({scc_count} strongly connected component(s) with a cycle) have no way out to an end; "
                             f"the witness leads into one", bound=bound, witness=steps, options=changed))

    # dead actions: never enabled and taken by random play or the explorer
    fired = set(tally.fired).union(*(x.fired for x in explored)) if explored else set(tally.fired)
    for point, choose in sorted(_chooses(game).items()):
        for ai, action in enumerate(choose.actions):
            if (point, ai) in fired:
                continue
            elsewhere = [o for o in fired_by.get((point, ai), []) if o != changed]
            if elsewhere and not complete:  # an option switches it on: not a dead rule, a variant's rule
                under = "; ".join(", ".join(f"{k}={v}" for k, v in o.items()) or "the default options"
                                  for o in elsewhere)
                found.append(Finding(f"{game.name}/dead-rule/{action.name}{suffix}", game.name, "dead-rule", "info",
                                     "bounded", "random-play", f"action {action.name} was never legal in {search}; "
                                     f"it is taken under {under}", bound=bound, quotes=_quote_texts(action),
                                     location=_loc(action.span), options=changed))
                continue
            verdict = "proven" if complete else "bounded"
            found.append(Finding(f"{game.name}/dead-rule/{action.name}{suffix}", game.name, "dead-rule", "warning",
                                 verdict, "explicit-state" if complete else "random-play",
                                 f"action {action.name} is never taken: "
                                 + (f"it is not legal in any reachable state ({_explored_text(explored)})" if complete
                                    else f"it was never legal in {search}"),
                                 bound=bound, quotes=_quote_texts(action), location=_loc(action.span), options=changed))
    for name, (verdict, text, method, extra) in sorted(proofs.items()):
        if name in by_name:
            continue
        if verdict == "dead":
            define = next((d for d in game.defines if d.name == name), None)
            found.append(Finding(f"{game.name}/dead-rule/{name}{suffix}", game.name, "dead-rule", "warning", "proven",
                                 method, text, bound=extra, options=changed,
                                 quotes=_quote_texts(define) if define is not None else [],
                                 location=_loc(getattr(define, "span", None))))
    return found


_LOCATED = re.compile(r"^(.+?:\d+:\d+): ")


def _bare(message: str) -> str:
    """A rule's error without the `file:line:col: ` the engine puts before it (the finding locates it)."""
    return _LOCATED.sub("", message, count=1)


def _located(message: str) -> str | None:
    found = _LOCATED.match(message)
    return found.group(1) if found else None


def _test(prop):
    """The compiled test of a property, looked up lazily by name in the state's own game."""
    def test(state):
        for p, t in state.game.properties(prop.kind):
            if p.name == prop.name:
                return t(state)
        raise KeyError(prop.name)
    return test


def _explored_text(explored: list) -> str:
    parts = []
    for x in explored:
        how = "complete" if x.complete else f"stopped by the {x.stopped_by} limit at depth {x.depth}"
        sym = ", up to renaming the players" if x.symmetry else ""
        parts.append(f"{x.players} players: {x.states} states{sym}, {how}")
    return "; ".join(parts)


def _chooses(game: m.Game) -> dict:
    return {c.point: c for p in (game.flow, *game.procedures) for c in m.walk(p.body) if isinstance(c, m.Choose)}


def _variant_analysis(game: m.Game, variants: list[dict], verdicts: dict, report: GameReport) -> None:
    """Which options change which verdicts, relative to the default options."""
    def table(findings):
        out = {}
        for f in findings:
            base = f.id
            for k, v in sorted(f.options.items()):
                base = base.replace(f"/{k}={v}", "")
            out[base] = f.verdict
        return out

    default = table(verdicts[_key(variants[0])])
    for options in variants[1:]:
        changed = _changed(options, game)
        mine = table(verdicts[_key(options)])
        diffs = [(k, default.get(k, "absent"), mine.get(k, "absent")) for k in sorted(set(default) | set(mine))
                 if default.get(k) != mine.get(k)]
        label = ", ".join(f"{k}={v}" for k, v in changed.items())
        if diffs:
            text = "; ".join(f"{k.split('/', 1)[1]}: {a} -> {b}" for k, a, b in diffs)
            message = f"under {label}: {len(diffs)} verdict(s) change: {text}"
        else:
            message = f"under {label}: no verdict changes"
        report.add(Finding(f"{game.name}/ambiguity/{'/'.join(f'{k}={v}' for k, v in changed.items())}/variant",
                           game.name, "ambiguity", "info" if not diffs else "warning", "proven" if not diffs else "refuted",
                           "static", message, options=changed, acknowledged_by=next(iter(changed), None),
                           bound={"changes": [{"finding": k, "default": a, "option": b} for k, a, b in diffs]}))


def _turn_structure(game: m.Game, report: GameReport) -> None:
    try:
        from .verify import graphs
    except ImportError:
        return
    info = graphs.turn_structure(game)
    report.add(Finding(f"{game.name}/dead-rule/turn-structure", game.name, "dead-rule", "info", "proven", "graph",
                       f"turn structure: {info['nodes']} steps, actions and procedures, {info['edges']} links; "
                       f"{len(info['unreachable'])} never reached from the flow"
                       + (": " + ", ".join(info["unreachable"]) if info["unreachable"] else ""),
                       bound={"nodes": info["nodes"], "edges": info["edges"]}))
    for name in info["unreachable"]:
        report.add(Finding(f"{game.name}/dead-rule/{name}", game.name, "dead-rule", "warning", "proven", "graph",
                           f"{name} is never called from the flow, so it can never fire"))


def _acknowledge(game: m.Game, report: GameReport) -> None:
    """Findings named in the checks file's `expect` lines are reported but do not fail the run; an
    `expect` that names no finding of this run is itself reported, so that expectations do not rot."""
    for e in game.expected:
        matched = False
        for f in report.findings:
            if f.id == e.finding or f.id.startswith(e.finding + "/"):
                f.acknowledged_by = f"expect {e.name}"
                matched = True
        if not matched:
            report.add(Finding(f"{game.name}/stale-expect/{e.name}", game.name, "stale-expect", "warning", "refuted",
                               "static", f"expect {e.name} acknowledges {e.finding!r}, but no finding of this run has "
                               "that id (or starts with it)", location=_loc(e.span),
                               hint="remove the `expect`, or correct the finding id it names (the ids are in "
                                    "`--format json`); a finding that only deeper bounds produce needs them to match"))


def _locate(spec: Spec, report: GameReport) -> None:
    """Where each finding's quotes stand in the rulebook, and where the files it names are on disk."""
    rulebook = spec.rulebook_text
    files = {spec.display_path: spec.path}
    for f in report.findings:
        name = (f.location or "").rsplit(":", 2)[0]
        if spec.checks_path is not None and name.endswith(".checks"):
            files[name] = spec.checks_path
    if rulebook is not None:
        shown = str(PurePath(spec.display_path).parent / spec.rulebook_path.name)
        files[shown] = spec.rulebook_path
        lines = {}
        for f in report.findings:
            for text in f.quotes:
                if text not in lines:
                    lines[text] = q.locate(rulebook, text)
                if lines[text] is not None:
                    f.related.append(f"{shown}:{lines[text][0]}:{lines[text][1]}")
    report.sources = {name: str(path) for name, path in files.items()}
