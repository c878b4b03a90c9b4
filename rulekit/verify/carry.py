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
from .explore import changes, fork, state_key
from .termination import Lasso

LOOKAHEAD = 8  # recorded decisions in a row that may be missing here
ROUNDS = 3  # more times round the loop after the recording


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
    leniently in `loaded`, until a state comes back, the recording runs out, or `max_states` states
    were keyed or tried."""
    exact = state_key(loaded, False, termination_only=True)
    out = Carried()
    try:
        state = loaded.replay([])
    except RuleRuntimeError:
        return out
    seen = {exact(state): 0}
    script = list(steps) + list(steps[loop_start:]) * rounds
    j = 0
    while j < len(script) and not state.over and out.states < max_states:
        drawing = state.chance is not None
        names = {state.action_to_string(a): a for a in state.legal}
        recorded_chance, label = script[j]
        action = None
        if recorded_chance == drawing and label in names:
            action, j = names[label], j + 1
        elif recorded_chance and not drawing:  # chance outcomes that do not happen here
            while j < len(script) and script[j][0]:
                j += 1
            continue
        elif not drawing:
            action, j = _skipping(script, j, names)
        if action is None:
            action = _likeliest(state) if drawing else _least(state, out)
            if action is None:
                break
            if recorded_chance == drawing:
                j += 1  # taken in place of the recorded step
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


def _skipping(script: list, j: int, names: dict) -> tuple[int | None, int]:
    """(the action of the first recorded decision after `j`, within LOOKAHEAD decisions in a row, that
    is legal here, and the index after it), or (None, j)."""
    for k in range(j + 1, min(len(script), j + 1 + LOOKAHEAD)):
        drawing, label = script[k]
        if drawing:
            break
        if label in names:
            return names[label], k + 1
    return None, j


def _likeliest(state) -> int:
    return max(state.chance, key=lambda outcome: outcome[1])[0]


def _least(state, out: Carried) -> int | None:
    """The legal move that changes the fewest zones and variables without ending the game (the first
    of those), or None."""
    best = None
    for action in state.legal:
        child = fork(state)
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


__all__ = ["Carried", "LOOKAHEAD", "ROUNDS", "carry", "step_labels"]
