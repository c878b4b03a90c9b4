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
reach a score) says nothing. A seat is skipped when none of those games gave it the role. Where the
games are too short for that, a role that in every hand-over of them (at least 3) moved by one fixed
step, not to a neighbour (two seats on each time, with 5 or 6 players), skips seats too: a role handed
on by a rule keeps to its step, one that follows play (a trick's winner) keeps to none. The verdict is
a sample's, `bounded`.
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
        skipped, stepped, covered = {}, {}, []
        for players, histories in sorted(tally.traces.items()):
            loaded = spec.engine(players, game.default_options())
            holders = [_holders(loaded, h, v.name) for h in histories]
            # a game in which the role changed hands often enough to have gone once round the table
            round_games = [seq for seq in holders if len(seq) - 1 >= players - 1]
            held = set().union(*({s for s in seq if s >= 0} for seq in round_games)) if round_games else set()
            if round_games and len(held) < players:
                skipped[players] = (held, min(len(seq) - 1 for seq in round_games), len(round_games))
            elif round_games:
                covered.append(players)
            step = _fixed_step(holders, players)
            if step is not None and players not in skipped:
                stepped[players] = (step, max(holders, key=len), len(holders))
        if skipped or stepped:
            out.append(_finding(game, v, skipped, stepped, covered))
    return out


def _holders(loaded, history: list, name: str) -> list[int]:
    """The values a variable took along one game, in order, each change once (-1: no player)."""
    state = loaded.replay([])
    seq = [state.value(name)]
    for action in history:
        state.apply_action(action)
        now = state.value(name)
        if now != seq[-1]:
            seq.append(now)
    return seq


FIXED_STEP_MOVES = 3  # hand-overs from seat to seat, all by one step, that show a role moves by that step


def _fixed_step(holders: list[list[int]], players: int) -> int | None:
    """The one step (seats on, modulo the player count) by which the role went from seat to seat in
    every hand-over of these games, when that is not to a neighbour and there were enough of them;
    else None. A role handed on by a rule moves by one step; one that follows play (a trick's winner)
    does not keep to any."""
    steps = [(b - a) % players for seq in holders for a, b in zip(seq, seq[1:]) if a >= 0 and b >= 0]
    if len(steps) < FIXED_STEP_MOVES or len(set(steps)) != 1 or steps[0] in (1, players - 1):
        return None
    return steps[0]


def _finding(game: m.Game, var: m.VarDecl, skipped: dict, stepped: dict, covered: list) -> Finding:
    role = f"{var.phrase} (`{var.name}`)" if var.phrase else f"`{var.name}`"
    parts = []
    for n in sorted({*skipped, *stepped}):
        if n in skipped:
            held, changes, games = skipped[n]
            never = [f"P{s}" for s in range(n) if s not in held]
            only = and_list([f"P{s}" for s in sorted(held)]) or "no seat"
            parts.append(f"with {players_phrase([n])}, never {and_list(never, 'or')} in {games} random game(s), "
                         f"though it changed hands at least {changes:,} times in each (only {only})")
        else:
            step, example, games = stepped[n]
            seats = [f"P{s}" for s in example if s >= 0]
            seats = ", ".join(seats[:n + 1]) + (", ..." if len(seats) > n + 1 else "")
            parts.append(f"with {players_phrase([n])}, it always moves {min(step, n - step)} seats at a time, never to "
                         f"a neighbour, in {games} random game(s) ({seats} in one)")
    rest = f"; with {players_phrase(sorted(covered))} it reached every seat" if covered else ""
    lines = _set_at(game, var.name)
    if lines:
        rest += f"; it is set at line{'s' if len(lines) > 1 else ''} {and_list([str(n) for n in lines])}"
    return Finding(
        f"{game.name}/rotation/{var.name}", game.name, "rotation", "warning", "bounded", "random-play",
        f"{role} goes round the table but skips a seat: {'; '.join(parts)}{rest}",
        quotes=quote_texts(var), location=location_of(var.span),
        bound={"games_by_players": {**{n: games for n, (_, _, games) in skipped.items()},
                                    **{n: games for n, (_, _, games) in stepped.items()}}},
        hint="a rotation such as `next(next(dealer))` where `next(dealer)` was meant skips seats at some player "
             "counts; if the rulebook does give the role to some seats only, acknowledge it with an `expect`",
        details={"variable": var.name,
                 "skipped": {n: {"never": [f"P{s}" for s in range(n) if s not in held],
                                 "held": [f"P{s}" for s in sorted(held)], "changes": changes, "games": games}
                             for n, (held, changes, games) in sorted(skipped.items())},
                 "stepped": {n: {"seats_at_a_time": min(step, n - step),
                                 "example": [f"P{s}" for s in example if s >= 0], "games": games}
                             for n, (step, example, games) in sorted(stepped.items())},
                 "every_seat_with": sorted(covered)})


def _set_at(game: m.Game, name: str) -> list[int]:
    """The lines of the rules that set the variable."""
    return sorted({st.span.line for body in m.bodies(game) for st in m.walk(body)
                   if isinstance(st, m.Assign) and st.var == name and st.span is not None})


__all__ = ["findings"]
