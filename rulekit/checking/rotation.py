"""`rotation` findings: a role that goes round the table and never reaches some seat.

A variable that names a player (the dealer, the player who leads) and changes again and again in play is
a role that goes round. When, at some player count, the random games kept as traces hand it round many
times and never to some seat, the rotation is usually a slip in the spec: `next(next(dealer))` where
`next(dealer)` was meant (with 4 players the deal then goes P0, P2, P0, ...), a role that is reset to
the same seat, a seat left out of a `for`. A rulebook that does skip a seat is acknowledged with an
`expect`.

The kept games (`sampling.Tally.traces`, the first few of each player count under the default options)
are replayed in the engine and the variable read after every step. Only the games in which the role
changed hands at least once fewer times than there are seats count (so often that handing it on to the
next seat would have reached every seat); a role given out once or twice a game (a winner, the first to
reach a score) says nothing. A seat is skipped when none of those games gave it the role. The verdict
is a sample's, `bounded`.
"""
from __future__ import annotations

from .. import model as m
from ..findings import Finding
from ..phrases import and_list
from ..pipeline import Spec
from .shared import location_of, players_phrase, quote_texts


def findings(spec: Spec, game: m.Game, tally) -> list[Finding]:
    """One warning per player-valued variable that skipped a seat at some player count."""
    roles = [v for v in game.vars if v.type == m.PLAYER and not v.per_player and v.visibility != "internal"]
    if not roles or not tally.traces:
        return []
    out = []
    for v in roles:
        skipped, covered = {}, []
        for players, histories in sorted(tally.traces.items()):
            loaded = spec.engine(players, game.default_options())
            # a game in which the role changed hands often enough to have gone once round the table
            round_games = [(held, changes) for held, changes in (_held(loaded, h, v.name) for h in histories)
                           if changes >= players - 1]
            if not round_games:
                continue
            held = set().union(*(h for h, _ in round_games))
            if len(held) < players:
                skipped[players] = (held, min(c for _, c in round_games), len(round_games))
            else:
                covered.append(players)
        if skipped:
            out.append(_finding(game, v, skipped, covered))
    return out


def _held(loaded, history: list, name: str) -> tuple[set, int]:
    """The seats a variable held along one game, and how many times it changed."""
    state = loaded.replay([])
    value = state.value(name)
    held, changes = {value}, 0
    for action in history:
        state.apply_action(action)
        now = state.value(name)
        if now != value:
            changes += 1
            held.add(now)
            value = now
    return {s for s in held if s >= 0}, changes


def _finding(game: m.Game, var: m.VarDecl, skipped: dict, covered: list) -> Finding:
    role = f"{var.phrase} (`{var.name}`)" if var.phrase else f"`{var.name}`"
    parts = []
    for n, (held, changes, games) in sorted(skipped.items()):
        never = [f"P{s}" for s in range(n) if s not in held]
        only = and_list([f"P{s}" for s in sorted(held)]) or "no seat"
        parts.append(f"with {players_phrase([n])}, never {and_list(never, 'or')} in {games} random game(s), though it "
                     f"changed hands at least {changes:,} times in each (only {only})")
    rest = f"; with {players_phrase(sorted(covered))} it reached every seat" if covered else ""
    lines = _set_at(game, var.name)
    if lines:
        rest += f"; it is set at line{'s' if len(lines) > 1 else ''} {and_list([str(n) for n in lines])}"
    return Finding(
        f"{game.name}/rotation/{var.name}", game.name, "rotation", "warning", "bounded", "random-play",
        f"{role} goes round the table but skips a seat: {'; '.join(parts)}{rest}",
        quotes=quote_texts(var), location=location_of(var.span),
        bound={"games_by_players": {n: games for n, (_, _, games) in skipped.items()}},
        hint="a rotation such as `next(next(dealer))` where `next(dealer)` was meant skips seats at some player "
             "counts; if the rulebook does give the role to some seats only, acknowledge it with an `expect`",
        details={"variable": var.name,
                 "skipped": {n: {"never": [f"P{s}" for s in range(n) if s not in held],
                                 "held": [f"P{s}" for s in sorted(held)], "changes": changes, "games": games}
                             for n, (held, changes, games) in sorted(skipped.items())},
                 "every_seat_with": sorted(covered)})


def _set_at(game: m.Game, name: str) -> list[int]:
    """The lines of the rules that set the variable."""
    return sorted({st.span.line for body in m.bodies(game) for st in m.walk(body)
                   if isinstance(st, m.Assign) and st.var == name and st.span is not None})


__all__ = ["findings"]
