"""`seat` findings: a seat that never wins while the others win often.

Random play gives every seat the same chances of picking well, so in a game whose seats differ only in
where they sit, each wins some share of the games. A seat that wins none of many finished games, while
every other seat wins a large share, usually has a slip in the rules about it: a set-up that leaves it
without material, a turn order or a rotation that skips it, a win condition that names seats. A
rulebook that does give a seat no chance (a banker who cannot win) is acknowledged with an `expect`.

Judged per player count under the default options, from the finished random games: a seat is reported
when even the upper end of its win rate's one-sided bound (no win in N games) lies below the lower end
of the interval of the seat that won least among the others, at the check's confidence. The verdict is
a sample's, `bounded`.
"""
from __future__ import annotations

from .. import model as m
from .. import statistics
from ..findings import Finding
from .shared import location_of, players_phrase


def findings(game: m.Game, tally, confidence: float) -> list[Finding]:
    """One warning naming, per player count, the seats that never won while every other seat won often."""
    cases = []  # (players, seat, finished games, least wins of another seat, seat's bound, others' bound)
    for players, outcome in sorted(tally.outcomes.items()):
        finished, wins = outcome.finished, outcome.wins
        if not finished or players < 2:
            continue
        for seat, won in enumerate(wins):
            if won:
                continue
            least = min(w for s, w in enumerate(wins) if s != seat)
            below = statistics.upper_bound(0, finished, confidence)
            above = statistics.interval(least, finished, confidence)[0]
            if below < above:
                cases.append((players, seat, finished, least, below, above))
    if not cases:
        return []
    parts = [f"P{seat} with {players_phrase([players])}: none of {finished:,} finished random games, while every "
             f"other seat won at least {least:,} (a win rate below {statistics.percent(below, up=True)} against "
             f"above {statistics.percent(above)})" for players, seat, finished, least, below, above in cases]
    return [Finding(
        f"{game.name}/seat/never-wins", game.name, "seat", "warning", "bounded", "random-play",
        f"a seat never wins: {'; '.join(parts)}; rates at {statistics.percent(confidence)} confidence",
        location=location_of(game.flow.span),
        bound={"games_by_players": {players: finished for players, _, finished, *_ in cases},
               "confidence": confidence},
        hint="a seat that cannot win usually has a slip in the rules about it: a set-up that leaves it without "
             "material, a turn order or rotation that skips it, a win condition that names seats; if the rulebook "
             "gives this seat no chance, acknowledge it with an `expect`",
        details={"seats": [{"players": players, "seat": f"P{seat}", "finished": finished, "least_other_wins": least,
                            "win_rate_below": below, "others_above": above}
                           for players, seat, finished, least, below, above in cases]})]


__all__ = ["findings"]
