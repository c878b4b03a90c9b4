"""Endless play deep in a game, where an exploration from the start does not reach.

An exploration from the start stops after a few steps on a real game, long before the loops that
can keep a game going (a hen knocked down again and again only exists once hens have climbed). So
random games are played from the start, and around points spread over each game:

- the game's own path is watched for a state that comes back (then the steps between are a loop);
- a small breadth-first exploration (`explore.explore` with the game's actions as its prefix) looks
  for a cycle among the states near that point;
- a steered walk from that point (`steered_walk`) steers back towards it: the players do as little as
  the rules allow, and both they and chance take the moves whose next states are nearest the point's
  state, so a loop that needs chance to repeat a long run of outcomes (cards dealt back into the same
  places) is closed in one walk, where random games would wait for luck and a breadth-first
  exploration would have to see every arrangement first.

Every state seen is reachable (the random game's prefix leads to it), so any cycle found is a real
one; it is replayed in the engine as a lasso (`termination.lasso`) before it counts.

`stall_probe` is the cheapest look: one lazy game alone, for an option set that no search covers.

`kept_going` then tells a loop that needs luck from one the players can keep up: the largest set of
explored, unfinished states from which, at every decision, some action stays in the set, and at
every chance event, every outcome does. It is worked out over each exploration, and, once a loop
that needs luck is found, over a `lazy_closure` from where it starts: the states reached when every
player does as little as the rules allow, at every chance outcome. From such a state the players' decisions alone can keep play
going forever, whatever chance does. A loop outside it repeats only while chance repeats its
outcomes, which it does forever with probability zero.

Every key here leaves out the variables play never reads (`inert`): a turn counter would make
every state new, and hide the loops the players can keep going.

The budgets are counts of states, not seconds, so the same spec gives the same verdict on any
machine; a wall-clock limit is only a safety net.
"""
from __future__ import annotations

import random
import time
from array import array
from collections import deque
from dataclasses import dataclass

from ..errors import IllegalActionError, RuleRuntimeError
from .explore import CHANCE, EXPANDED, Distance, Exploration, Limits, changes, explore, state_key
from .successors import Successors
from .termination import Lasso, lasso


@dataclass
class Search:
    """What a search for endless play tried, and what it found."""
    games: int = 0  # random games played
    points: int = 0  # points of those games explored around
    walks: int = 0  # walks steered back towards those points
    states: int = 0  # states keyed or explored
    found: Lasso | None = None
    kept: bool = False  # the players' decisions alone can keep the loop going, whatever chance does
    probability: float = 1.0  # of chance repeating the loop's outcomes once round (1.0 without chance)
    timed_out: bool = False
    probe: bool = False  # one lazy game only (`stall_probe`)

    def text(self) -> str:
        if self.probe:
            return (f"one game of players who do as little as the rules allow, watched for a repeated state "
                    f"({self.states:,} states)")
        return (f"{self.games} random game(s) watched for a repeated state, {self.points} point(s) of them "
                f"explored around and {self.walks} walk(s) steered back towards them ({self.states:,} states)"
                + (" before the safety-net time limit" if self.timed_out else ""))


CHANCE_IN_A_ROW = 10_000  # chance events the walk follows before a decision; chance alone may go on for ever

def kept_going(exploration: Exploration) -> set[int]:
    """The explored states from which decisions can keep play from ending whatever chance does: the
    greatest set of expanded, unfinished states in which every decision has a successor in the set
    and every chance event has all its outcomes in it."""
    edges, kinds = exploration.edges, exploration.kinds
    if edges is None or len(kinds) != len(edges):  # an explorer that does not say which states are chance
        return set()
    graph = edges if isinstance(edges, Successors) else Successors.of(edges)
    n = len(graph)
    inside = bytearray(n)  # flat arrays, not sets: a complete exploration may have millions of states
    for i in range(n):
        if kinds[i] & EXPANDED and graph[i]:
            inside[i] = 1
    for i in exploration.terminal:
        inside[i] = 0
    for i, _, _ in exploration.errors:  # a chance outcome that failed is not in the graph
        if kinds[i] & CHANCE:
            inside[i] = 0
    preds = graph.reverse()
    staying = array("q", bytes(8 * n))  # per decision state inside: its distinct successors inside
    dropped = []
    for i in range(n):
        if not inside[i]:
            continue
        succ = set(graph[i])
        if kinds[i] & CHANCE:
            if not all(inside[j] for j in succ):
                dropped.append(i)
        else:
            staying[i] = sum(inside[j] for j in succ)
            if staying[i] == 0:
                dropped.append(i)
    for i in dropped:
        inside[i] = 0
    while dropped:
        j = dropped.pop()
        for i in set(preds[j]):
            if not inside[i]:
                continue
            if kinds[i] & CHANCE:
                inside[i] = 0
                dropped.append(i)
            else:
                staying[i] -= 1
                if staying[i] == 0:
                    inside[i] = 0
                    dropped.append(i)
    return {i for i in range(n) if inside[i]}


# States each search for a way the players alone keep a loop going (`players_keep`) may spend.
KEEP_STATES = 400


def search(loaded, symmetric: bool, states: int, seed: int = 0, max_steps: int = 5000, points: int = 8,
           near: int = 100, time_limit: float = 30.0) -> Search:
    """Random games of `loaded`, and at `points` points of each a steered walk back towards the point
    and an exploration of `near` states around it, until `states` states have been keyed or explored.
    Stops at the first lasso that replays. Many small neighbourhoods find more loops than a few large
    ones: a loop is a few turns long, and a breadth-first exploration of a branching game spends a
    large budget on its first steps."""
    rng = random.Random(seed)
    exact = state_key(loaded, False, termination_only=True)
    key = state_key(loaded, symmetric, termination_only=True)
    out = Search()
    deadline = time.perf_counter() + time_limit
    while out.states < states and out.found is None:
        if time.perf_counter() > deadline:
            out.timed_out = True
            break
        path = _watched_game(loaded, rng, seed + out.games, max_steps, exact, out,
                             out.states + max(1, (states - out.states) // 2), lazy=out.games % 2 == 0)
        out.games += 1
        repeated, out.found = out.found, None
        # Around the state that came back first: the players may be able to keep that loop up.
        cuts = [len(repeated.prefix)] if repeated else [len(path) * k // (points + 1) for k in range(1, points + 1)]
        # The state at each cut: the game played on from the last cut, not replayed from its start each time.
        cursor, at = loaded.replay([]), 0
        for cut in cuts:
            for action in path[at:cut]:
                cursor.apply_action(action)
            at = max(at, cut)
            if time.perf_counter() > deadline:
                out.timed_out = True
                break
            if out.states >= states and not repeated:
                break
            walked = None
            if not repeated:
                walked, spent = steered_walk(loaded, path[:cut], exact,
                                             max(1, (states - out.states) // WALK_SHARE), rng, deadline=deadline,
                                             played=cursor)
                out.walks += 1
                out.states += spent
                if walked is not None and not walked.chance:
                    out.found = walked
                    break
                if time.perf_counter() > deadline:
                    out.timed_out, out.found = True, walked
                    break
            # A loop that needs luck is kept until the exploration here has had its chance to find one
            # the players can keep up.
            x = explore(loaded, Limits(max_states=max(1, min(near, states - out.states)), time_limit=time_limit,
                                       symmetry=symmetric, termination_only=True), prefix=path[:cut], played=cursor)
            x.loaded = loaded
            out.points += 1
            out.states += x.states
            keep = kept_going(x)
            found = lasso(x, key, exact, within=keep) if keep else None
            if found is not None:
                out.found, out.kept = found, True
                break
            found = lasso(x, key, exact) or walked
            if found is not None:
                out.found = found
                break
        if out.found is None:
            out.found = repeated
    return _judged(loaded, out, symmetric)


def _judged(loaded, out: Search, symmetric: bool) -> Search:
    """`out`, its lasso judged: one that needs luck gets a look for a way the players alone keep it
    going (`players_keep`), and each one the probability that chance repeats its outcomes."""
    if out.found is not None and out.found.chance and not out.kept:
        kept, spent = players_keep(loaded, out.found, symmetric, KEEP_STATES)
        out.states += spent
        if kept is not None:
            out.found, out.kept = kept, True
    if out.found is not None:
        out.probability = loop_probability(loaded, out.found)
    return out


def stall_probe(loaded, symmetric: bool, states: int, seed: int = 0, max_steps: int = 5000) -> Search:
    """One lazy game of `loaded` (see `_watched_game`), keyed for a state that comes back, within
    `states` states: the cheapest look for endless play. Players who do as little as the rules allow
    are the ones who keep a game from ending, so rules that let them (a card laid down where one had
    to be played, a turn passed) go round in that one game, while rules that force play on end it
    within a few hundred steps, for a few hundred states. A loop it closes is judged as the search's
    are: one that needs chance gets a look for a way the players alone keep it going."""
    exact = state_key(loaded, False, termination_only=True)
    out = Search(games=1, probe=True)
    _watched_game(loaded, random.Random(seed), seed, max_steps, exact, out, states, lazy=True)
    return _judged(loaded, out, symmetric)


def players_keep(loaded, found: Lasso, symmetric: bool, max_states: int) -> tuple[Lasso | None, int]:
    """(a lasso from where `found` starts that the players' decisions alone keep going, whatever
    chance does, or None; states spent): `found` needs luck, but the players, doing as little as they
    may, may not. Looked for in a `lazy_closure` and a `staying` search of up to `max_states` states
    each."""
    key, exact = state_key(loaded, symmetric, termination_only=True), state_key(loaded, False, termination_only=True)
    spent = 0
    for look in (lazy_closure, staying):
        graph = look(loaded, found.prefix, symmetric, max_states)
        spent += graph.states
        keep = kept_going(graph)
        kept = lasso(graph, key, exact, within=keep) if keep else None
        if kept is not None:
            return kept, spent
    return None, spent


def replayed(loaded, found: Lasso) -> Lasso | None:
    """`found`, a lasso of the same game under other options, when it is a lasso of `loaded` too:
    every step of it legal here and the loop back at the very state it left. Options usually change
    a few rules, and a loop that none of them touches is still a loop; checking costs one replay."""
    run = lasso_run(loaded, found.prefix, found.loop)
    if run.failed is not None or run.start.is_terminal() or run.end.is_terminal():
        return None
    exact = state_key(loaded, False, termination_only=True)
    if exact(run.end) != exact(run.start):
        return None
    return Lasso(list(found.prefix), list(found.loop), run.chance)


WALK_STEPS = 1000  # steps of a steered walk: enough for a few passes through a deck, turn by turn
WALK_LEG = 250  # steps after which the walk steers towards its next decision instead (see steered_walk)
WALK_SHARE = 2  # a steered walk may key half the states left: it is the search that goes deepest


def steered_walk(loaded, prefix: list[int], exact, states: int, rng, steps: int = WALK_STEPS,
                 leg: int = WALK_LEG, deadline: float | None = None, played=None) -> tuple:
    """(a lasso, or None; states keyed). A walk from the first decision at or after the state `prefix`
    leads to (chance taking its likeliest outcomes) that steers back towards that decision's state:

    - at a decision it does as little as the rules allow (the actions that change the fewest zones and
      variables: players who keep a game from ending), and among those takes the one whose next state
      is nearest the target (`explore.Distance`);
    - at a chance event it takes the outcome whose next state is nearest the target: chance is steered
      too, so cards are dealt back into the places they came from;
    - ties are broken at random, and a move that ends the game is never taken;
    - every `leg` steps the target becomes the walk's next decision: what happened before (a hero
      lost, a role shown) may never come back, while play from here on may settle into a round that
      does.

    The first state the walk meets again (the start or one of its own) closes a lasso: the prefix up to
    that state's first visit, and the walk's steps from there. Up to `steps` steps and `states` states,
    and (a safety net) until the clock passes `deadline`. `played`, when given, is the state `prefix`
    leads to, already played (it is not changed)."""
    state = (loaded.replay(prefix) if played is None else played).fork()
    prefix = list(prefix)
    for _ in range(CHANCE_IN_A_ROW):  # play comes back to decisions, not to the middle of a deal
        if state.chance is None:
            break
        outcome = max(state.chance, key=lambda o: o[1])[0]
        try:
            state.apply_action(outcome)
        except Exception:  # noqa: BLE001 - a rule that fails there ends the walk; the other checks report it
            return None, 0
        prefix.append(outcome)
    if state.over or state.chance is not None:
        return None, 0
    distance = Distance(state)
    retarget = leg
    walk: list[int] = []
    seen = {exact(state): 0}
    spent = 0
    while len(walk) < steps and spent < states:
        if deadline is not None and time.perf_counter() > deadline:
            break
        if len(walk) >= retarget and state.chance is None:
            distance, retarget = Distance(state), len(walk) + leg
        chance = state.chance is not None
        best = None
        # each option is measured on what its step changed, when there are enough to pay for the set-up
        measure = distance.around(state) if len(state.legal) > 2 else distance
        for action in state.legal:
            child = state.fork()
            try:
                child.apply_action(action)
            except Exception:  # noqa: BLE001 - a refused move is not taken
                continue
            spent += 1
            if child.over:
                continue
            start = seen.get(exact(child))
            if start is not None:
                full = prefix + walk + [action]
                cut = len(prefix) + start
                return Lasso(full[:cut], full[cut:], _has_chance(loaded, full[:cut], full[cut:])), spent
            rank = (0 if chance else changes(state, child), measure(child), rng.random())
            if best is None or rank < best[0]:
                best = (rank, action, child)
        if best is None:
            break
        _, action, state = best
        walk.append(action)
        seen[exact(state)] = len(walk)
    return None, spent


class _Graph:
    """The states a search near a game met, numbered as it meets them, written into `out` at the end."""

    def __init__(self, out: Exploration, key):
        self.out, self.key = out, key
        self.index: dict = {}
        self.parent: list[int] = []
        self.via: list[int] = []
        self.edges: list[list[int]] = []
        self.kinds = bytearray()

    def node(self, state, source: int, action: int) -> tuple[int, bool]:
        """The number of `state` (reached from state `source` by `action`), and whether it is new."""
        k = self.key(state)
        i = self.index.get(k)
        if i is not None:
            return i, False
        i = self.index[k] = len(self.parent)
        self.parent.append(source)
        self.via.append(action)
        self.edges.append([])
        self.kinds.append(CHANCE if state.chance is not None else 0)
        if state.over:
            self.out.terminal.append(i)
        return i, True

    def expanded(self, i: int, successors: list[int]) -> None:
        self.edges[i] = successors
        self.kinds[i] |= EXPANDED

    def finish(self, loaded, complete: bool = False) -> Exploration:
        out = self.out
        out.parent, out.via, out.edges, out.kinds = self.parent, self.via, self.edges, self.kinds
        out.states, out.complete, out.loaded = len(self.parent), complete, loaded
        return out


def lazy_closure(loaded, prefix: list[int], symmetric: bool, max_states: int) -> Exploration:
    """The states reachable from the end of `prefix` when every player does as little as the rules
    allow: at a decision, only the actions that change the fewest zones and variables; at a chance
    event, every outcome. Its `kept_going` set is sound for the whole game, since a decision there
    needs one way to stay and every outcome of a chance event is followed. Breadth first, up to
    `max_states` states."""
    out = Exploration(loaded.num_players(), dict(loaded.options), prefix=list(prefix), symmetry=symmetric)
    graph = _Graph(out, state_key(loaded, symmetric, termination_only=True))
    root = loaded.replay(prefix).fork()
    graph.node(root, 0, -1)
    queue = deque([(root, 0)])
    while queue and len(graph.parent) < max_states:
        state, index = queue.popleft()
        if state.over:
            continue
        children = _successors(state, index, out)
        fewest = min((c for _, _, c in children), default=0)
        succ = []
        for action, child, changed in children:
            if changed > fewest:
                continue
            j, new = graph.node(child, index, action)
            if new:
                queue.append((child, j))
            succ.append(j)
        graph.expanded(index, succ)
    return graph.finish(loaded, complete=not queue)


def staying(loaded, prefix: list[int], symmetric: bool, max_states: int, max_depth: int = 200) -> Exploration:
    """A depth-first search for a way to keep play going from the end of `prefix`: at a decision, one
    action that can stay away from the ends (first one that returns to a state of the search, then
    the ones that change the least); at a chance event, every outcome. The search only guides which
    states are expanded: the states it records go to `kept_going`, which alone decides, so a state
    the search assumed or gave up on never makes a wrong claim."""
    out = Exploration(loaded.num_players(), dict(loaded.options), prefix=list(prefix), symmetry=symmetric)
    graph = _Graph(out, state_key(loaded, symmetric, termination_only=True))
    failed, good, onpath = set(), set(), set()

    def visit(state, i: int, depth: int) -> bool:
        if i in failed:
            return False
        if i in onpath or i in good:
            return True
        if state.over or depth >= max_depth or len(graph.parent) >= max_states:
            if state.over:
                failed.add(i)
            return False
        chance = state.chance is not None
        children = [(changed, action, child, graph.node(child, i, action)[0])
                    for action, child, changed in _successors(state, i, out)]
        graph.expanded(i, [j for _, _, _, j in children])
        if not chance:
            children.sort(key=lambda c: (c[3] not in onpath and c[3] not in good, c[0]))
        onpath.add(i)
        ok = chance and not any(e[0] == i for e in out.errors)
        for _, _, child, j in children:
            stays = visit(child, j, depth + 1)
            if chance and not stays:
                ok = False
                break
            if not chance and stays:
                ok = True
                break
        onpath.discard(i)
        (good if ok else failed).add(i)
        return ok

    root = loaded.replay(prefix).fork()
    visit(root, graph.node(root, 0, -1)[0], 0)
    return graph.finish(loaded)


def _successors(state, index: int, out: Exploration) -> list[tuple]:
    """(action, next state, zones and variables it changed: 0 at a chance event) for each legal
    action of `state`; one that fails is recorded in `out.errors`, which `kept_going` reads."""
    children = []
    for action in state.legal:
        child = state.fork()
        try:
            child.apply_action(action)
        except Exception as exc:  # noqa: BLE001 - a failing outcome is not followed; kept_going knows
            out.errors.append((index, action, str(exc)))
            continue
        children.append((action, child, 0 if state.chance is not None else changes(state, child)))
    return children


def _watched_game(loaded, rng, seed: int, max_steps: int, exact, out: Search, budget: int,
                  lazy: bool) -> list[int]:
    """One random game, keying every state: a state that comes back closes a lasso. At a decision,
    an action that leads back to a state of this game is taken at once (so a loop the players can
    close is closed when play passes it); otherwise decisions are uniform, or, in a `lazy` game,
    among the actions that change the fewest zones and variables (players who do as little as the
    rules allow are the ones who keep a game from ending). Chance goes by its probabilities.
    Returns the game's actions."""
    state = loaded.new_initial_state(seed=seed)
    seen = {exact(state): 0}
    path: list[int] = []
    while not state.is_terminal() and len(path) < max_steps and out.states < budget:
        if state.chance is not None:
            outcomes, weights = zip(*state.chance)
            action = rng.choices(outcomes, weights)[0]
        elif len(state.legal) > 1:
            action, least = _closing(state, seen, exact, out, loaded.action_table if lazy else None)
            if action is None:
                action = rng.choice(least if lazy else state.legal)
        elif state.legal:
            action = state.legal[0]
        else:
            break
        try:
            state.apply_action(action)
        except Exception:  # noqa: BLE001 - a rule that fails ends the game; the other checks report it
            break
        path.append(action)
        out.states += 1
        k = exact(state)
        if k in seen:
            start = seen[k]
            if not state.is_terminal():
                out.found = Lasso(path[:start], path[start:], _has_chance(loaded, path[:start], path[start:]))
            break
        seen[k] = len(path)
    return path


# Past this many options, a lazy game tries one option of each action (see `_closing`).
TRIED_EACH = 64


def _closing(state, seen: dict, exact, out: Search, table=None) -> tuple[int | None, list[int]]:
    """(a legal action whose next state is one this game has already been in, or None; the legal
    actions that change the fewest zones and variables). With the game's action `table` and more than
    TRIED_EACH options, only the first option of each action (a choice point's action, whatever its
    parameters) is tried, and the fewest changes it makes stand for all of that action's options: a
    decision of hundreds of options (every subset of the cards on a table that makes a sum) would
    otherwise spend the search's budget of states on one step of a lazy game."""
    by_action: dict = {}
    if table is not None and len(state.legal) > TRIED_EACH:
        for action in state.legal:
            by_action.setdefault(table.owner(action), []).append(action)
        tried = [options[0] for options in by_action.values()]
    else:
        tried = list(state.legal)
    least: list[int] = []
    fewest = None
    for action in tried:
        child = state.fork()
        try:
            child.apply_action(action)
        except Exception:  # noqa: BLE001 - a refused action closes nothing
            continue
        out.states += 1
        if exact(child) in seen:
            return action, [action]
        changed = changes(state, child)
        if fewest is None or changed < fewest:
            fewest, least = changed, [action]
        elif changed == fewest:
            least.append(action)
    if by_action:
        least = [option for action in least for option in by_action[table.owner(action)]]
    return None, least or list(state.legal)


@dataclass
class LassoRun:
    """A lasso played once in a game, and what the checks ask of it. A lasso through states of many
    options (every subset of a crowded table) costs seconds to replay, and a found loop is asked
    about several times (its chance steps, their probability, the records it changes)."""
    loaded: object
    prefix: tuple
    loop: tuple
    start: object = None  # the state where the loop starts (None when the replay failed)
    end: object = None  # the state one time round the loop later
    chance: bool = False  # a chance event on the loop
    probability: float = 1.0  # of chance repeating the loop's outcomes once round
    failed: Exception | None = None  # a step refused or a rule that failed on the way


_RUNS: list[LassoRun] = []  # the lassos played lately, the latest last
RUNS_KEPT = 4


def lasso_run(loaded, prefix, loop) -> LassoRun:
    """The lasso `prefix` then `loop` played in `loaded` (remembered for the few lassos played last)."""
    prefix, loop = tuple(prefix), tuple(loop)
    for run in _RUNS:
        if run.loaded is loaded and run.prefix == prefix and run.loop == loop:
            return run
    run = LassoRun(loaded, prefix, loop)
    try:
        state = loaded.replay(list(prefix))
        run.start = state.fork()
        for action in loop:
            if state.chance is not None:
                run.chance = True
                run.probability *= dict(state.chance).get(action, 0.0)
            state.apply_action(action)
        run.end = state
    except (IllegalActionError, RuleRuntimeError) as exc:  # a step these rules refuse or cannot carry out
        run.failed = exc
    _RUNS.append(run)
    del _RUNS[:-RUNS_KEPT]
    return run


def _has_chance(loaded, prefix: list[int], loop: list[int]) -> bool:
    return _played(loaded, prefix, loop).chance


def loop_probability(loaded, found: Lasso) -> float:
    """The chance that chance repeats the loop's outcomes once round (1.0 when the loop has none)."""
    return _played(loaded, found.prefix, found.loop).probability


def _played(loaded, prefix, loop) -> LassoRun:
    """The run of a lasso this search found, which plays by the rules: a failure is a rulekit bug."""
    run = lasso_run(loaded, prefix, loop)
    if run.failed is not None:
        raise run.failed
    return run


__all__ = ["KEEP_STATES", "LassoRun", "Search", "kept_going", "lasso_run", "loop_probability", "players_keep", "replayed", "search", "steered_walk"]
