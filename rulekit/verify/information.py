"""Information flow: can a player tell apart two deals they were never shown?

Noninterference, checked by determinization. During seeded random play, at some decisions, the
cards one seat cannot see are re-dealt consistently with what that seat knows: the cards of the
zones hidden from it are permuted among the hidden places, except those it knows to be where they
are (shown to it, or seen going in); a shuffled stack whose order is not decided yet stays
undecided, so its draws are redrawn by chance. The re-dealt state then follows the same decisions
and chance outcomes as the real one for a few steps. Wherever the seat sees a difference, in who is
to move, in its own legal actions or the strings it is shown for them, or in its observation, the
rules have told it something about the hidden cards: a leak. Some leaks are the rulebook's own
(a rule that makes a player reveal something by what they may do); a spec acknowledges those with
`expect`.

Hidden and owner-only variables are not re-dealt: only cards are.
"""
from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from dataclasses import dataclass, field

from .. import model as m
from .. import phrases
from ..engine.knowledge import knowledge
from ..errors import RuleRuntimeError

WHAT = {"game-over": "whether the game is over", "to-move": "who is to move", "legal-actions": "its legal actions",
        "action-strings": "the strings of its legal actions", "observation": "its observation"}
PLURAL = frozenset({"legal-actions", "action-strings"})  # the entries of WHAT that take a plural verb


@dataclass
class Bounds:
    games: int = 4  # random games per configuration
    comparisons: int = 30  # re-deals per configuration
    variant_games: int = 1  # under each non-default option
    variant_comparisons: int = 8
    horizon: int = 12  # decisions a re-dealt state follows the real one
    max_steps: int = 400  # decisions per game
    seed: int = 0

    @classmethod
    def for_check(cls, seed: int, deep: bool) -> Bounds:
        """The bounds `rulekit check` uses: its seed, and ten times more with --deep-information."""
        bounds = cls(seed=seed)
        return bounds.deeper() if deep else bounds

    def deeper(self) -> Bounds:
        """`rulekit check --deep-information`: ten times the games and re-deals, followed longer."""
        return dataclasses.replace(self, games=self.games * 10, comparisons=self.comparisons * 10,
                                   variant_games=self.variant_games * 10, variant_comparisons=self.variant_comparisons * 10,
                                   horizon=self.horizon * 3)


@dataclass
class Leak:
    what: str  # a key of WHAT
    seat: int
    place: str  # the rule, procedure or trigger where the difference shows
    point: int  # the choice point
    history: list[int]  # the real game up to the difference
    real: list[str]  # what the seat is shown in the real game
    redealt: list[str]  # and in the re-dealt one
    deal: dict[str, list[str]]  # the re-dealt hidden zones (those that changed)
    elsewhere: str = ""  # where the re-dealt game stands, when that is another choice than the real game's
    players: int = 0
    options: dict = field(default_factory=dict)


def redeal(state, seat: int, rng: random.Random):
    """A state `seat` cannot tell from `state`: the cards hidden from it swapped among the hidden
    places, the ones it knows kept in place; None when there is nothing to swap.

    A card only goes where its kind is found now (in any zone of the same declaration), so that a
    hand never receives a secret role, nor a role slot an action card."""
    game = state.game
    known = knowledge(game, state, seat)
    decls = game.layout.zone_decl
    families: dict[str, set] = {}
    for i, cards in enumerate(state.z):
        families.setdefault(decls[i].name, set()).update(cards)
    free = []  # (zone, position) of every hidden card the seat does not know to be there
    for i, cards in enumerate(state.z):
        if not cards or game.zone_visible(i, seat):
            continue
        left = Counter(known.get(i, ()))
        for at, card in enumerate(cards):
            if left[card] > 0:
                left[card] -= 1
            else:
                free.append((i, at))
    if len(free) < 2:
        return None
    for _ in range(4):  # a shuffle that changes nothing is no test
        other = state.clone()
        z = other.z
        for n in range(len(free) - 1, 0, -1):  # Fisher-Yates, each swap only where both kinds may go
            (a, i), (b, j) = free[n], free[rng.randrange(n + 1)]
            x, y = z[a][i], z[b][j]
            if x != y and x in families[decls[b].name] and y in families[decls[a].name]:
                z[a][i], z[b][j] = y, x
        for i in {zone for zone, _ in free}:
            if game.zone_is_set[i]:
                z[i].sort()
        if z != state.z:
            break
    else:
        return None
    try:
        other.redo()
    except RuleRuntimeError:
        return None
    return other


def places(game: m.Game) -> dict[int, tuple[str, m.Choose, tuple]]:
    """Per choice point: the innermost rule, procedure or trigger around it, the choice, and quotes."""
    out: dict[int, tuple[str, m.Choose, tuple]] = {}

    def walk(node, name: str, quotes: tuple) -> None:
        if isinstance(node, (m.Rule, m.Procedure, m.Trigger)):
            name, quotes = node.name, tuple(node.quotes) or quotes
        if isinstance(node, m.Choose):
            out.setdefault(node.point, (name, node, tuple(node.quotes) + quotes))
        if isinstance(node, (list, tuple)):
            for child in node:
                walk(child, name, quotes)
        elif isinstance(node, (m.Stmt, m.Action, m.Procedure, m.Trigger)):
            for f in dataclasses.fields(node):
                value = getattr(node, f.name)
                if isinstance(value, (list, tuple, m.Stmt, m.Action)):
                    walk(value, name, quotes)

    for proc in (game.flow, *game.procedures, *game.triggers):
        walk(proc, proc.name, tuple(proc.quotes))
    return out


class _Shadow:
    __slots__ = ("state", "seat", "steps", "deal", "since")

    def __init__(self, state, seat: int, steps: int, deal: dict, since: int):
        self.state, self.seat, self.steps, self.deal, self.since = state, seat, steps, deal, since


def _point(state) -> int | None:
    if state.chance is not None or state.over or not state.legal:
        return None
    return state.game.action_table.owner(state.legal[0])[0]


def _anonymous(game):
    names = sorted(game.kind_names, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b") if names else None
    return (lambda text: pattern.sub("*", text)) if pattern else (lambda text: text)


def _difference(real, other, seat: int, since: int, check_observation: bool, anonymous):
    """What `seat` sees differ between two states it should not tell apart: (what, real, other);
    ("diverged", ...) when the rules since showed it different cards (a fair way to learn them)."""
    seen, seen_other = real.events(seat, since), other.events(seat, since)
    if seen != seen_other:
        first = next((i for i, (x, y) in enumerate(zip(seen, seen_other)) if x != y), min(len(seen), len(seen_other)))
        if first < min(len(seen), len(seen_other)) and anonymous(seen[first]) == anonymous(seen_other[first]):
            return "diverged", seen, seen_other  # shown another card: what follows is its consequence
    if real.over != other.over:
        return "game-over", ["game over" if real.over else "the game goes on"], \
            ["game over" if other.over else "the game goes on"]
    if seen != seen_other:
        return "observation", seen[first:first + 4], seen_other[first:first + 4]
    if real.to_move != other.to_move:
        show = real.game.player_name

        def who(s):
            return ["chance" if s.chance is not None else "game over" if s.over else show(s.to_move) + " to move"]
        return "to-move", who(real), who(other)
    if real.to_move == seat and real.chance is None:
        a = sorted(real.action_to_string(x, seat) for x in real.legal)
        b = sorted(other.action_to_string(x, seat) for x in other.legal)
        if a != b:
            return "legal-actions", a, b
    if check_observation:
        a, b = real.observation_string(seat), other.observation_string(seat)
        if a != b:
            one, two = a.splitlines(), b.splitlines()
            return "observation", [x for x in one if x not in two], [x for x in two if x not in one]
    return None


def _catch_up(sh: _Shadow, outcomes: list[tuple[str, int]], rng: random.Random) -> bool:
    """Resolve the re-dealt game's chance events like the real game's, in order: the same random
    values (or it is another game: False), the same cards drawn from undecided stacks where it can
    (else another, at random). False too when the rules fail on the re-dealt cards."""
    queue = list(outcomes)
    other = sh.state
    for _ in range(10_000):
        if other.chance is None:
            return True
        kind = other.chance_kind
        at = next((i for i, (k, _) in enumerate(queue) if k == kind), None)
        if at is None and kind == "random":
            return False
        action = queue.pop(at)[1] if at is not None else None
        if action not in other.pending:
            if kind == "random":
                return False
            choices, weights = zip(*other.chance)
            action = rng.choices(choices, weights)[0]
        try:
            other.apply_action(action)
        except RuleRuntimeError:
            return False
    return False


def check(engine, bounds: Bounds | None = None) -> tuple[list[Leak], int]:
    """Leaks found in one configuration, and how many re-deals were compared."""
    bounds = bounds or Bounds()
    spots = places(engine.model)
    anonymous = _anonymous(engine)
    leaks: dict[tuple, Leak] = {}
    compared = 0
    n = engine.num_players()
    tried: set = set()
    for g in range(bounds.games):
        rng = random.Random(bounds.seed * 7919 + g)
        try:
            state = engine.new_initial_state(seed=bounds.seed + g)
        except RuleRuntimeError:  # a set-up that fails is a rule error, which random play reports
            continue
        shadows: list[_Shadow] = []
        decisions = 0
        # spread the re-deals of this game over its first max_steps decisions
        share = max(1, bounds.comparisons // bounds.games)
        stride = max(1, bounds.max_steps // (share * 4))
        def record(found, real, sh) -> None:
            what, seen, other = found
            point = _point(real) if _point(real) is not None else _point(sh.state)
            place = "end" if what == "game-over" else spots[point][0] if point in spots else "the flow"
            there = _point(sh.state)
            elsewhere = spots[there][0] if there in spots and there != point and spots[there][0] != place else ""
            leaks.setdefault((what, place), Leak(what, sh.seat, place, point if point is not None else -1,
                                                 list(real.history), seen, other, sh.deal, elsewhere))

        outcomes_since: list[tuple[str, int]] = []  # the real game's chance events since its last decision
        events = 0  # chance events too: a game can go on for ever by chance alone, with no decision
        while not state.is_terminal() and decisions < bounds.max_steps and (shadows or compared < bounds.comparisons):
            events += 1
            if events > bounds.max_steps * CHANCE_PER_DECISION:
                break
            if state.chance is not None:
                outcomes, weights = zip(*state.chance)
                action = rng.choices(outcomes, weights)[0]
                outcomes_since.append((state.chance_kind, action))
                try:
                    state.apply_action(action)
                except RuleRuntimeError:
                    break
                continue
            # Chance is the engine's way to draw from a stack whose order is not decided yet: how many
            # draws it takes depends on the cards, so the two games are compared at decisions only.
            for sh in list(shadows):
                if not _catch_up(sh, outcomes_since, rng):
                    shadows.remove(sh)
                    continue
                at_decision = state.to_move == sh.seat
                found = _difference(state, sh.state, sh.seat, sh.since, at_decision or sh.steps <= 0, anonymous)
                if found is not None:
                    if found[0] != "diverged":
                        record(found, state, sh)
                    shadows.remove(sh)
                elif sh.steps <= 0:
                    shadows.remove(sh)
            outcomes_since = []
            if not state.legal:
                break
            point = _point(state)
            # every choice point is tried once as soon as it is met (rare ones are where leaks hide)
            if (point not in tried or decisions % stride == 0) and compared < bounds.comparisons:
                tried.add(point)
                seat = rng.randrange(n)
                other = redeal(state, seat, rng)
                if other is not None:
                    compared += 1
                    names = engine.layout.zone_names
                    deal = {names[i]: [engine.kind_names[k] for k in other.z[i]]
                            for i in range(len(state.z)) if other.z[i] != state.z[i]}
                    sh = _Shadow(other, seat, bounds.horizon, deal, state.log_size)
                    found = _difference(state, other, seat, state.log_size, True, anonymous) \
                        if other.chance is None else None
                    if found is not None and found[0] != "diverged":
                        record(found, state, sh)
                    elif found is None:
                        shadows.append(sh)
            action = rng.choice(state.legal)
            decisions += 1
            try:
                state.apply_action(action)
            except RuleRuntimeError:
                break
            for sh in list(shadows):
                sh.steps -= 1
                if action not in sh.state.pending or sh.state.chance is not None:
                    shadows.remove(sh)  # the real game went where the re-dealt one cannot follow
                    continue
                try:
                    sh.state.apply_action(action)
                except RuleRuntimeError:
                    shadows.remove(sh)
    out = list(leaks.values())
    for leak in out:
        leak.players, leak.options = n, dict(engine.options)
    return out, compared


# ---- findings for `rulekit check` ----------------------------------------------------------------

def _witness(spec, leak: Leak) -> list[dict]:
    """The real game's steps (as every witness lists them), then the difference the seat sees: what
    it is shown in the real game and in the re-dealt one, and the re-dealt hidden zones."""
    engine = spec.engine(leak.players, leak.options)
    replay = engine.new_initial_state()
    steps = []
    for i, action in enumerate(leak.history):
        who = "chance" if replay.is_chance_node() else engine.player_name(replay.current_player())
        steps.append({"step": i + 1, "player": who, "action": action, "text": replay.action_to_string(action)})
        replay.apply_action(action)
    steps.append({"step": len(steps) + 1, "player": engine.player_name(leak.seat), "action": None,
                  "text": f"{engine.player_name(leak.seat)} sees {WHAT[leak.what]} differ after a re-deal",
                  "real": leak.real, "redealt": leak.redealt, "redealt_zones": leak.deal})
    return steps


CHANCE_PER_DECISION = 50  # chance events a game may take per decision allowed before it is cut


SEVERITY = {"game-over": "warning", "to-move": "error", "legal-actions": "error", "action-strings": "error", "observation": "warning"}


def _seats_by_players(leaks: list[Leak]) -> str:
    """The seats that learn something, per player count: "P1 with 3 players; P1 and P3 with 4"."""
    by: dict[int, set] = {}
    for x in leaks:
        by.setdefault(x.players, set()).add(x.seat)
    if len(by) == 1:
        return ", ".join(phrases.seat(p) for p in sorted(next(iter(by.values()))))
    return "; ".join(f"{', '.join(phrases.seat(p) for p in sorted(seats))} with {players} player{'' if players == 1 else 's'}"
                     for players, seats in sorted(by.items()))


def findings(spec, variants: list[dict], bounds: Bounds, make_finding) -> list:
    """The `information-flow` findings of a spec over its configurations (every player count under
    each option set in `variants`); `make_finding(**fields)` builds one."""
    game = spec.model
    spots = places(game)
    grouped: dict[str, list[Leak]] = {}
    compared = configurations = 0
    default = game.default_options()
    for i, options in enumerate(variants):
        share = bounds if i == 0 else dataclasses.replace(bounds, games=bounds.variant_games,
                                                          comparisons=bounds.variant_comparisons)
        for players in range(game.min_players, game.max_players + 1):
            try:
                engine = spec.engine(players, options)
            except Exception:  # noqa: BLE001 - a set-up that cannot be built is reported by the other checks
                continue
            leaks, n = check(engine, share)
            compared += n
            configurations += 1
            for leak in leaks:
                grouped.setdefault(f"{game.name}/information-flow/{leak.what}/{leak.place}", []).append(leak)
    out = []
    for fid, leaks in grouped.items():
        first = leaks[0]
        game_player = phrases.seat(first.seat)
        _, choose, quotes = spots.get(first.point, ("", None, ()))
        seats = _seats_by_players(leaks)
        at = first.place + (f" (in the re-dealt game: {first.elsewhere})" if first.elsewhere else "")
        where = sorted({(x.players, tuple(sorted((k, v) for k, v in x.options.items() if default.get(k) != v)))
                        for x in leaks})
        out.append(make_finding(
            id=fid, kind="information-flow", severity=SEVERITY[first.what], verdict="refuted", method="random-play",
            message=(f"{game_player} can tell apart two deals of the cards hidden from them: {WHAT[first.what]} "
                     f"{'differ' if first.what in PLURAL else 'differs'} at {at} ({', '.join(first.real[:3]) or 'nothing'} against "
                     f"{', '.join(first.redealt[:3]) or 'nothing'}); seats that learn something: {seats}; "
                     f"seen in {len(where)} configuration(s), first with {first.players} player{'' if first.players == 1 else 's'}"),
            quotes=[q.text for q in quotes], location=str(choose.span) if choose is not None and choose.span else None,
            witness=_witness(spec, first),
            options={k: v for k, v in first.options.items() if default.get(k) != v},
            bound={"re-deals": compared, "configurations": configurations, "horizon": bounds.horizon}))
    if not grouped:
        out.append(make_finding(
            id=f"{game.name}/information-flow", kind="information-flow", severity="info",
            verdict="bounded" if compared else "unknown", method="random-play",
            message=(f"no leak found in {compared} re-deals of hidden cards over {configurations} configuration(s)"
                     if compared else "nothing hidden to re-deal was met in random play"),
            bound={"re-deals": compared, "configurations": configurations, "horizon": bounds.horizon}))
    return out
