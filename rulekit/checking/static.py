"""What the check decides without playing: quotes, coverage, ambiguities, the declared numbers (Z3), the
turn structure, the `expect` lines, and where findings stand in the files.
"""
from __future__ import annotations

from pathlib import PurePath

from .. import model as m
from .. import quotes as q
from ..errors import RuleRuntimeError, SpecError
from ..findings import Finding, GameReport
from ..pipeline import Spec
from .shared import build_limit, PlayBounds, location_of, players_phrase, quote_texts, setup_error


def static_findings(spec: Spec, game: m.Game, report: GameReport) -> None:
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
                               quotes=[problem.use.text], location=location_of(problem.use.where.span),
                               hint=f"the closest rulebook sentence is “{problem.suggestion}”" if problem.suggestion
                               else None))
        uncovered = q.uncovered(game, rulebook)
        on_line: dict[int, int] = {}
        for s in uncovered:
            on_line[s.line] = on_line.get(s.line, 0) + 1  # a second sentence of one line gets its own id
            nth = f".{on_line[s.line]}" if on_line[s.line] > 1 else ""
            report.add(Finding(f"{game.name}/coverage/line-{s.line}{nth}", game.name, "coverage", "warning", "refuted",
                               "static", f"rulebook line {s.line}: no rule quotes this sentence and it is not "
                               "marked `unmodelled`", quotes=[s.text],
                               location=f"{shown}:{s.line}:{q.column(rulebook, s)}"))
        uses = q.quote_uses(game)
        report.stats["rulebook"] = {"file": shown, "sentences": len(q.sentences(rulebook)),
                                    "unaccounted": len(uncovered), "quotes": len(uses), "not_verbatim": len(bad)}
    for a in game.ambiguities:
        options = "; ".join(f"{o.name}: {o.description.rstrip('.')}" for o in a.options)
        report.add(Finding(f"{game.name}/ambiguity/{a.name}", game.name, "ambiguity", "info", "unknown", "static",
                           f"{a.title} {a.question} Options: {options}. Default: {a.default}, because {a.reason}",
                           quotes=quote_texts(a), location=location_of(a.span), options={a.name: a.default},
                           acknowledged_by=a.name))


def consistency(spec: Spec, game: m.Game, report: GameReport, bounds: PlayBounds) -> None:
    """Z3: the facts, component counts, token supplies and claims together, per player count."""
    from ..verify import budget, smt

    options = game.default_options()
    counts = list(range(game.min_players, game.max_players + 1))
    consistent, unknown = [], []
    cores: dict = {}  # the labels of one minimal unsat core -> (the core, player counts where it is found)
    for players in counts:
        with budget.fresh_context():
            left_out: set = set()
            # Every false claim, not just the first: leave out the claims of each core found and ask again.
            for _ in range(len(game.claims) + 1):
                with budget.time_box(build_limit(bounds), "the declared numbers' encoding"):
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
            claims_in_engine(spec, game, report, players, cross_check=True)
        else:
            unknown.append((players, result.reason))
            claims_in_engine(spec, game, report, players, cross_check=False)
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
            f"with {players_phrase(where)} these "
            f"declarations cannot all hold (minimal unsat core of {len(result.core)} of {result.assertions}): {names}",
            bound={"players": where}, quotes=list(dict.fromkeys(quotes)), location=location_of(getattr(decl, "span", None)),
            acknowledged_by=ack))
    if consistent and game.facts + game.claims:
        report.add(Finding(f"{game.name}/contradiction/consistent", game.name, "contradiction", "info", "proven",
                           "z3-unsat-core", f"the {len(game.facts)} facts, component counts, token supplies and "
                           f"{len(game.claims)} claims are consistent (Z3) with {players_phrase(consistent)}",
                           bound={"players": consistent}))
    for players, reason in unknown:
        report.add(Finding(f"{game.name}/contradiction/unknown/{players}", game.name, "contradiction", "info",
                           "unknown", "z3-unsat-core", f"Z3 could not decide the declared numbers with {players} "
                           f"players ({reason}); the claims were evaluated in the engine instead",
                           bound={"players": players}))


def claims_in_engine(spec: Spec, game: m.Game, report: GameReport, players: int, cross_check: bool) -> None:
    try:
        loaded = spec.engine(players, game.default_options(), probes=True)  # the build random play uses next
    except (RuleRuntimeError, SpecError) as exc:
        message, span = setup_error(exc)
        report.add(Finding(f"{game.name}/runtime/setup-{players}", game.name, "runtime", "error", "refuted",
                           "static", f"with {players_phrase([players])} the set-up cannot be built: {message}",
                           location=location_of(span)))
        return
    for claim, holds in loaded.claims():
        if holds:
            continue
        if cross_check:  # Z3 found the claims satisfiable together, the engine says one is false
            raise AssertionError(f"rulekit bug: Z3 and the engine disagree on claim {claim.name} "
                                 f"with {players_phrase([players])}")
        report.add(Finding(f"{game.name}/contradiction/{claim.name}/{players}", game.name, "contradiction",
                           "error", "refuted", "static", f"claim {claim.name} is false in the set-up with "
                           f"{players_phrase([players])}", quotes=quote_texts(claim), location=location_of(claim.span)))


def _ambiguity_for(game: m.Game, quotes: list[str]) -> str | None:
    """The ambiguity declaration that resolves a contradiction: one that quotes the same rulebook text."""
    wanted = set(quotes)
    for a in game.ambiguities:
        if a.kind == "contradiction" and wanted & set(quote_texts(a)):
            return a.name
    return None


def turn_structure(game: m.Game, report: GameReport) -> None:
    try:
        from ..verify import graphs
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


# Kinds whose findings only random games find, each a family of ids (`GAME/KIND/...`): one not met is not stale.
SAMPLED_FAMILIES = ("information-flow", "conflict")


def acknowledge(game: m.Game, report: GameReport, unconfirmed: set | frozenset = frozenset()) -> None:
    """Findings named in the checks file's `expect` lines are reported but do not fail the run; an
    `expect` that names no finding of this run is itself reported, so that expectations do not rot: as a
    note when what it names was only not met at these bounds (see `_not_met`), else as a warning."""
    for e in game.expected:
        matched = False
        wanted = _finding_id(game, e.finding)
        for f in report.findings:
            if f.id == wanted or f.id.startswith(wanted + "/"):
                f.acknowledged_by = f"expect {e.name}"
                matched = True
        if matched:
            continue
        not_met = _not_met(game, wanted, report, unconfirmed)
        if not_met is not None:
            why, hint = not_met
            report.add(Finding(f"{game.name}/stale-expect/{e.name}", game.name, "stale-expect", "info", "unknown",
                               "static", f"expect {e.name} acknowledges {e.finding!r}, which this run did not meet: "
                               f"{why}", location=location_of(e.span), hint=hint))
            continue
        report.add(Finding(f"{game.name}/stale-expect/{e.name}", game.name, "stale-expect", "warning", "refuted",
                           "static", f"expect {e.name} acknowledges {e.finding!r}, but no finding of this run has "
                           "that id (or starts with it)", location=location_of(e.span),
                           hint="remove the `expect`, or correct the finding id it names (the ids are in "
                                "`--format json`); a finding that only deeper bounds produce needs them to match"))


def _not_met(game: m.Game, wanted: str, report: GameReport, unconfirmed) -> tuple[str, str] | None:
    """(why, hint) when the finding an `expect` names exists but this run's sample did not meet it: one of
    `unconfirmed` (a silent case the spec has, that random play did not reach); one under a finding whose
    sample met nothing (verdict `bounded`, such as `information-flow` when no re-deal showed a leak); or
    one of a sampled family whose sample met others. None when nothing explains it: then it is stale."""
    if any(u == wanted or u.startswith(wanted + "/") for u in unconfirmed):
        return ("the spec has that case, and random play did not reach it",
                "more random games look further (--games, --variant-games)")
    deeper = "deeper bounds look further (the options that raise them are in `rulekit check --help`)"
    family = next((f for f in report.findings if f.verdict == "bounded" and wanted.startswith(f.id + "/")), None)
    if family is not None:
        return family.message, deeper
    sampled = next((f for f in report.findings if f.method == "random-play" and f.verdict == "refuted"
                    and f.kind in SAMPLED_FAMILIES and wanted.startswith(f"{game.name}/{f.kind}/")), None)
    if sampled is not None:
        return f"its search samples random games, and this run's met other {sampled.kind} findings, not this one", deeper
    return None


def _finding_id(game: m.Game, named: str) -> str:
    """The finding id an `expect` names. The ids of information-flow findings once lacked the game's
    name (`information-flow/observation/...`); an `expect` written then still names its finding."""
    if named == "information-flow" or named.startswith("information-flow/"):
        return f"{game.name}/{named}"
    return named


def locate(spec: Spec, report: GameReport) -> None:
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
