"""Cards, zones and moves the rules never use: a component that never leaves the zone every component
starts in, a zone no card can ever reach, a move whose source can never hold a card it takes.

Read off where each card kind can be (`verify.kindflow`), at every player count: under the default
options such a thing is usually a slip in the spec (a move's condition that leaves a kind out, a zone
misnamed), or a rulebook that lists material its rules never mention; under another option, often what
the option means. The analysis over-approximates play, so "never" is proven; something unused at one
player count only (the colours a small game leaves in the box) is not reported.
"""
from __future__ import annotations

from .. import model as m
from ..findings import Finding
from ..pipeline import Spec
from .shared import PlayBounds, build_limit, config_of, location_of, players_phrase
from .variants import changed_options, option_sets, options_suffix


def findings(spec: Spec, game: m.Game, bounds: PlayBounds) -> list[Finding]:
    """Warnings under the default options; then, under each other option on its own, what it newly
    leaves unused, as notes: an option that takes material out of the game usually means to (a card
    text read as absent), and the note says what it does."""
    default = game.default_options()
    out = under_options(spec, game, bounds, default, slip=True)
    seen = {f.id for f in out}
    for options in option_sets(game)[1:]:
        suffix, changed = options_suffix(options, game), changed_options(options, game)
        for f in under_options(spec, game, bounds, options, slip=False):
            if f.id not in seen:
                f.id, f.options, f.severity, f.hint = f.id + suffix, changed, "info", None
                out.append(f)
    return out


def under_options(spec: Spec, game: m.Game, bounds: PlayBounds, options: dict, slip: bool) -> list[Finding]:
    """What `options` leave unused; with `slip`, each component's message says it is usually a slip."""
    from ..verify import Unsupported, budget, segments

    counts, flows = [], []
    for players in range(game.min_players, game.max_players + 1):
        config = config_of(spec, players, options)
        if config is None:
            continue
        try:
            with budget.time_box(build_limit(bounds), "where each card kind can be"):
                flow = segments.kind_flow(config)
        except (Unsupported, budget.TooLarge):
            flow = None
        if flow is None:
            return []  # the moves cannot be read at some count: nothing is claimed
        counts.append(players)
        flows.append((config, flow))
    if not flows:
        return []
    where = players_phrase(counts)
    names = [c.name for c in game.components]
    out = []
    start = flows[0][1].start
    if start is not None:
        for k, component in enumerate(game.components):
            used = [any(k in kinds for zone, kinds in flow.where.items() if zone != flow.start)
                    for config, flow in flows if config.component_counts[k] > 0]
            if used and not any(used):
                out.append(Finding(f"{game.name}/dead-rule/component/{component.name}", game.name, "dead-rule",
                                   "warning", "proven", "static",
                                   f"{component.name} never leaves {start}: no move of the rules takes it out, with "
                                   f"{where}" + ("; a component the rules never use is usually a slip in the spec (a "
                                                 "move's condition that leaves it out)" if slip else ""),
                                   location=location_of(component.span),
                                   hint=f"check the conditions of the moves out of {start}; material the rulebook "
                                   "lists but no rule uses is acknowledged with `expect` and a `because`",
                                   details={"component": component.name, "zone": start, "players": counts}))
    for zone in game.zones:
        if zone.name != start and all(not flow.where.get(zone.name) for _, flow in flows):
            out.append(Finding(f"{game.name}/dead-rule/zone/{zone.name}", game.name, "dead-rule", "warning",
                               "proven", "static", f"{zone.name} never holds a card: no move of the rules carries "
                               f"one there, with {where}", location=location_of(zone.span),
                               hint="check the zones the moves name; a zone no rule fills can go",
                               details={"zone": zone.name, "players": counts}))
    carried: dict = {}  # the span of a move -> (the move, the kinds it takes, whether it carries a card somewhere)
    for _, flow in flows:
        for move, taken, kinds in flow.moves:
            key = str(move.span)
            _, before, moved = carried.get(key, (move, frozenset(), False))
            carried[key] = (move, taken | before, moved or bool(kinds))
    dead = [(key, move, taken) for key, (move, taken, carries) in carried.items() if not carries and move.span]
    lines = [move.span.line for _, move, _ in dead]
    for key, move, taken in dead:
        # by its line; by line and column where two moves of one line never move a card
        at = f"{move.span.line}" if lines.count(move.span.line) == 1 else f"{move.span.line}-{move.span.column}"
        source = getattr(move.source, "zone", "its source")
        out.append(Finding(f"{game.name}/dead-rule/move/{at}", game.name, "dead-rule", "warning",
                           "proven", "static", f"this move never moves a card: {source} never holds "
                           f"{_kinds_phrase(taken, names)}, with {where}", location=key,
                           hint="check the move's condition, and where the rules put the cards it should take",
                           details={"source": source, "takes": [names[k] for k in sorted(taken)], "players": counts}))
    return out


def _kinds_phrase(taken: frozenset, names: list[str]) -> str:
    """The cards a move can take, for people: "any card", "a Ruby or a Pearl"."""
    if len(taken) == len(names):
        return "any card"
    listed = [names[k] for k in sorted(taken)]
    if not listed:
        return "a card it takes"
    if len(listed) > 4:
        return "a " + ", a ".join(listed[:4]) + " or another of the kinds it takes"
    return "a " + " or a ".join(listed) if len(listed) <= 2 else "a " + ", a ".join(listed[:-1]) + " or a " + listed[-1]
