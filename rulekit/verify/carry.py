"""A loop found under one option set, carried over to another one where it does not replay step for step.

An option changes a few rules, and the loop it breaks is usually still there, a little changed: a
step it took is gone (a decision that an option forbids), another one comes in its place (the
attacker chooses where the defender did), or a chance outcome can no longer happen (a card that an
option takes out of the deck). Engine actions are numbered per configuration, so the loop is played
by the labels of its steps (`action_to_string`), and leniently, a step at a time:

- a recorded step whose label is legal here is taken;
- at a decision, recorded decisions that have no label here are skipped (up to LOOKAHEAD of them in
  a row) when a later one has;
- where the rules wait for a decision and the loop recorded chance outcomes, those outcomes are
  skipped (no chance event happens here); where the rules draw and the loop recorded a decision,
  chance gets its likeliest outcome and the recorded decision waits;
- otherwise the step is replaced: chance by its likeliest outcome, a player by the move that changes
  the fewest zones and variables (players who keep a game from ending do as little as they may),
  never one that ends the game.

The loop part is played ROUNDS more times after the recording, since a loop that a change of rules
lengthened needs more than one time round to come back. Every state is keyed; the first one that
comes back closes a lasso. Its steps are legal moves from the start, so it is a lasso of these
rules, which the caller replays in the engine (`endless.replayed`) like any other before it counts.
The replay is held to a number of states, counted as the loop search counts them (`endless.search`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import IllegalActionError, RuleRuntimeError
from .explore import changes, state_key
from .termination import Lasso

LOOKAHEAD = 8  # recorded decisions in a row that may be missing here
ROUNDS = 3  # more times round the loop after the recording
INDEXED_ACTIONS = 10_000  # see `_Names`


@dataclass
class Carried:
    """What carrying a loop over found: the lasso (or None), the steps it took here, the states it spent."""
    found: Lasso | None = None
    path: list[int] = field(default_factory=list)
    states: int = 0


def step_labels(loaded, found: Lasso) -> list[tuple[bool, str]]:
    """Each step of a lasso of `loaded`, the prefix first: (a chance outcome?, its label)."""
    state = loaded.replay([])
    out = []
    for action in (*found.prefix, *found.loop):
        out.append((state.chance is not None, state.action_to_string(action)))
        state.apply_action(action)
    return out


def carry(loaded, steps: list[tuple[bool, str]], loop_start: int, max_states: int, rounds: int = ROUNDS) -> Carried:
    """The loop whose steps are `steps` (the loop from `loop_start` on, see `step_labels`) played
    leniently in `loaded`, until a state comes back, the recording runs out, no move may be played,
    a rule fails, or `max_states` states were keyed or tried."""
    exact = state_key(loaded, False, termination_only=True)
    out = Carried()
    try:
        state = loaded.replay([])
    except RuleRuntimeError:
        return out
    seen = {exact(state): 0}
    names = _Names(loaded)
    script = list(steps) + list(steps[loop_start:]) * rounds
    j = 0
    while j < len(script) and not state.over and out.states < max_states:
        action, j = _scripted(state, script, j, names, out)
        if action is _SKIPPED:
            continue
        if action is None:
            break
        try:
            state.apply_action(action)
        except (IllegalActionError, RuleRuntimeError):  # a rule that fails here ends the replay
            break
        out.path.append(action)
        out.states += 1
        key = exact(state)
        start = seen.get(key)
        if start is not None and not state.over:
            out.found = Lasso(out.path[:start], out.path[start:], True)  # the caller's replay says if chance is on it
            break
        seen[key] = len(out.path)
    return out


_SKIPPED = object()  # recorded chance outcomes passed over where the rules wait for a decision


def _scripted(state, script: list, j: int, names: _Names, out: Carried) -> tuple:
    """(the action that plays recorded step `j` here, the index of the next step): the step itself,
    a later decision where the ones before it are missing, or a replacement; (_SKIPPED, index) past
    recorded chance outcomes where the rules wait for a decision; None for the action where no move
    may be played (none is legal, or each one ends the game)."""
    drawing = state.chance is not None
    recorded_chance, label = script[j]
    if recorded_chance == drawing:
        action = names.legal(state, label)
        if action is not None:
            return action, j + 1
    if recorded_chance and not drawing:
        while j < len(script) and script[j][0]:
            j += 1
        return _SKIPPED, j
    if not drawing:
        for k in range(j + 1, min(len(script), j + 1 + LOOKAHEAD)):
            if script[k][0]:
                break
            action = names.legal(state, script[k][1])
            if action is not None:
                return action, k + 1  # the recorded decisions before it are missing here
        return _least(state, out), j + 1  # a decision in place of the recorded one
    return _likeliest(state), j + (1 if recorded_chance else 0)  # an outcome in place, or a chance event of its own


class _Names:
    """The legal step of a label at a state. A decision's label depends on its action alone, so a
    game of at most INDEXED_ACTIONS actions has them indexed by label once (a state offers dozens of
    options, read at every step); a larger game's (one action per subset of a table, say), like a
    chance outcome's, is read off the state's options."""

    def __init__(self, loaded):
        self.loaded = loaded
        self.actions: dict[str, list[int]] | None = None
        self.indexed = loaded.num_distinct_actions() <= INDEXED_ACTIONS

    def legal(self, state, label: str) -> int | None:
        if state.chance is not None or not self.indexed:
            return next((a for a in state.legal if state.action_to_string(a) == label), None)
        if self.actions is None:
            self.actions = {}
            for action in range(self.loaded.num_distinct_actions()):
                self.actions.setdefault(self.loaded.describe_action(action), []).append(action)
        legal = state.pending  # the legal actions as a dict: a test of each is a lookup
        return next((a for a in self.actions.get(label, ()) if a in legal), None)


def _likeliest(state) -> int:
    return max(state.chance, key=lambda outcome: outcome[1])[0]


def _least(state, out: Carried) -> int | None:
    """The legal move that changes the fewest zones and variables without ending the game (the first
    of those), or None."""
    best = None
    for action in state.legal:
        child = state.fork()
        try:
            child.apply_action(action)
        except (IllegalActionError, RuleRuntimeError):
            continue
        out.states += 1
        if child.over:
            continue
        changed = changes(state, child)
        if best is None or changed < best[0]:
            best = (changed, action)
    return best[1] if best is not None else None


__all__ = ["Carried", "INDEXED_ACTIONS", "LOOKAHEAD", "ROUNDS", "carry", "step_labels"]
