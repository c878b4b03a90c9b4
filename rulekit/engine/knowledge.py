"""What a player knows about the zones they cannot see, read from the move log.

A reveal to a player tells them a zone's cards (or one card of it); a card they see going into a
hidden zone is known to be there. Both stay known for as long as they stay true: a card that leaves the zone is
forgotten (when the player does not see which card left, one copy of every kind they knew there
is forgotten, the most that can have gone). Knowledge is a multiset per zone, never an order.
"""
from __future__ import annotations

from collections import Counter

NO_SEAT = -2  # an observer who sits at no seat: what the whole table knows


def knowledge(game, state, player: int) -> dict[int, Counter]:
    """Per zone instance `player` cannot see, the cards they know are in it (only non-empty ones).

    A state's log only grows, so what was read of it is kept in the state (`knowledge_memo`) and only
    the new entries are read at the next call: an observation at every step then costs the step, not
    the whole game so far."""
    memo = getattr(state, "knowledge_memo", None)
    start, known = memo.get(player, (0, {})) if memo is not None else (0, {})
    if start > len(state.log):
        start, known = 0, {}
    known = {zone: Counter(cards) for zone, cards in known.items()}
    _read(game, state.log, start, player, known)
    if memo is not None:
        memo[player] = (len(state.log), {zone: Counter(cards) for zone, cards in known.items()})
    return known


def _read(game, log: list, start: int, player: int, known: dict[int, Counter]) -> None:
    """Updates `known` with the entries of `log` from `start` on."""
    visible = game.zone_visible
    for index in range(start, len(log)):
        entry = log[index]
        tag = entry[0]
        if tag == "reveal":
            _, zone, cards, to = entry
            if (to == -1 or to == player) and not visible(zone, player):
                known[zone] = Counter(cards)
        elif tag == "show":  # one card shown: at least one copy of it is there
            _, zone, kind, to = entry
            if (to == -1 or to == player) and not visible(zone, player):
                there = known.setdefault(zone, Counter())
                there[kind] = max(there[kind], 1)
        elif tag == "rotate":
            _, base, count, shift = entry
            moved = {base + (p + shift) % count: known.pop(base + p) for p in range(count) if base + p in known}
            known.update(moved)
        elif type(tag) is int:
            src, dst, kind = entry
            seen = visible(src, player) or visible(dst, player)
            there = known.get(src)
            if there:
                if seen:
                    if there[kind]:
                        there[kind] -= 1
                else:
                    for k in there:
                        there[k] -= 1
                there += Counter()  # drops the kinds no longer known
                if not there:
                    del known[src]
            if seen and not visible(dst, player):
                known.setdefault(dst, Counter())[kind] += 1


def revealed_to(state, player: int, since: int = 0) -> list[tuple[int, tuple]]:
    """Every reveal `player` was shown from log position `since` on: (zone instance, its cards then)."""
    return [(e[1], e[2]) for e in state.log[since:] if e[0] == "reveal" and e[3] in (-1, player)]
