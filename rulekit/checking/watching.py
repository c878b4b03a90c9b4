"""One random game of the sampled checks, played by the watched whole-game code (`rulekit.engine.watched`)
and added to a tally (`sampling.Tally`) exactly as playing it through `State` would add it.

The watcher sees every state, so counts need nothing more. A witness needs the game's history, which the
whole-game code does not keep: a game that gives the tally a witness it lacks (an invariant broken or a
target reached for the first time, a silent case, a deadlock, a kept trace, two triggers fired by one
action whose order has not been tried), or that the engine must judge (a rule error), is refused here and
played again through `State` from the same seed: the same game, so its counts are added once, there.
"""
from __future__ import annotations

import random

from ..engine.direct import CUT, DEADLOCK, NO_WINNER, WON


def watched_game(loaded, program, max_steps: int, seed: int, tally, traces: int) -> bool:
    """Game `seed` of `loaded` (a build with probes) played by `program` (its `watched_games`) and added
    to `tally`; False, with the tally untouched, when the game must be played through `State` instead."""
    hits = loaded.probe_hits
    known = set(hits)
    played = program.play(seed, max_steps, random.Random(seed))
    if len(hits) > len(known):  # a silent case met for the first time: its witness is the game's history
        hits.intersection_update(known)  # for `State` to meet it again
        return False
    if played is None:
        return False
    watch = program.watch
    players = loaded.num_players()
    if _needs_history(loaded, watch, played.end, players, tally, traces):
        return False
    table = loaded.action_table
    tally.played += 1
    tally.games_by_players[players] = tally.games_by_players.get(players, 0) + 1
    tally.steps += watch.states
    for by_players, names in ((tally.broken_by_players, watch.broken), (tally.reach_by_players, watch.reached)):
        for name in names:
            counts = by_players.setdefault(name, {})
            counts[players] = counts.get(players, 0) + 1
    tally.fired.update(table.owner(action) for action in set(watch.taken))
    if watch.fired:
        names = [t.name for t in loaded.config.game.triggers]
        for at, fired in watch.fired:
            cause = table.owner(watch.taken[at])
            for i in fired:
                tally.causes.setdefault(names[i], set()).add(cause)
    outcome = tally.outcome(players)
    if watch.broken:
        outcome.broken += 1
    if played.end in (WON, NO_WINNER):
        outcome.ends[played.end] += 1
        for p in played.winners:
            outcome.wins[p] += 1
        outcome.lengths.append(played.made)
        tally.lengths.append(played.made)
    elif played.end == CUT:
        tally.unfinished += 1
        outcome.ends["cut off"] += 1
    else:  # a deadlock is refused above: each is kept with its history
        raise AssertionError(f"a watched game ended as {played.end!r}")
    return True


def _needs_history(loaded, watch, end: str, players: int, tally, traces: int) -> bool:
    """Whether the game gives the tally something that only its history can: see the module's docstring."""
    if any(name not in tally.broken for name in watch.broken):
        return True
    if any(name not in tally.reached for name in watch.reached):
        return True
    if end == DEADLOCK:
        return True
    if end in (WON, NO_WINNER) and len(tally.traces.get(players, [])) < traces:
        return True
    if watch.singles and loaded.probe_decisions:
        sites, table = loaded.probe_sites, loaded.action_table
        for action in set(watch.singles):
            site = loaded.probe_decisions.get(table.owner(action)[0])
            if site is not None and sites[site].key not in tally.silent:
                return True
    triggers = loaded.config.game.triggers
    if len(triggers) > 1:
        for _, fired in watch.fired:
            if any((triggers[a].name, triggers[b].name) not in tally.orders for a, b in zip(fired, fired[1:])):
                return True
    return False
