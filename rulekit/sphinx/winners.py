"""Whether a game can have more than one winner, read from the shape of its rules.

The summary says "One player wins." only when that is certain: every `win` of a player is followed,
before anything else can win, by the end of the game. A `win` in a loop (every player who reached
the target), two `win`s in a row, or a `win` after which play may go on, can each name another
winner. A syntactic test, so it errs one way only: where it cannot tell, more than one may win.
"""
from __future__ import annotations

from .. import model as m


def several_may_win(game: m.Game) -> bool:
    winning = _winning_procedures(game)
    # The flow's end is the game's end; a procedure or trigger returns to rules that may go on.
    bodies = [(game.flow.body, True)] + [(p.body, False) for p in game.procedures] + \
        [(t.body, False) for t in game.triggers]
    return any(not final for body, exit_ends in bodies for final in _wins(body, exit_ends, winning))


def _winning_procedures(game: m.Game) -> set[str]:
    """The procedures that may declare a winner, themselves or through those they carry out."""
    winning: set[str] = set()
    while True:
        more = {p.name for p in game.procedures if p.name not in winning and _may_win(p.body, winning)}
        if not more:
            return winning
        winning |= more


def _may_win(stmts, winning: set[str]) -> bool:
    return any((isinstance(s, m.Win) and s.player is not None) or (isinstance(s, m.Do) and s.procedure in winning)
               for s in m.walk(stmts, True))


def _wins(stmts, exit_ends: bool, winning: set[str]):
    """For each `win` of a player in `stmts`, whether the game surely ends before anything else wins;
    `exit_ends` says whether it does once `stmts` are done."""
    stmts = list(stmts)
    for i, s in enumerate(stmts):
        after = _ends_first(stmts[i + 1:], exit_ends, winning)
        if isinstance(s, m.Win) and s.player is not None:
            yield after
        elif isinstance(s, m.If):
            for _, body in s.branches:
                yield from _wins(body, after, winning)
            yield from _wins(s.orelse, after, winning)
        elif isinstance(s, m.Choose):
            for a in s.actions:
                yield from _wins(a.body, after, winning)
        elif isinstance(s, m.Rule):
            yield from _wins(s.body, after, winning)
        elif isinstance(s, m.Turns):
            yield from _wins(s.body, False, winning)
            yield from _wins(s.then, False, winning)
        elif isinstance(getattr(s, "body", None), tuple):  # a loop, or a block not known here: it may repeat
            yield from _wins(s.body, False, winning)


def _ends_first(rest, exit_ends: bool, winning: set[str]) -> bool:
    """Whether the statements after a `win` end the game before any of them may win."""
    for s in rest:
        if isinstance(s, m.End) and s.what == "game":
            return True
        if _may_win([s], winning) or _may_leave(s):
            return False
    return exit_ends


def _may_leave(s) -> bool:
    """Whether a statement may jump out of its block (the turn or round ends, a loop stops, a function
    returns), so that what comes after it here may not run."""
    return any((isinstance(x, m.End) and x.what != "game") or isinstance(x, (m.Break, m.Return))
               for x in m.walk([s], True))
