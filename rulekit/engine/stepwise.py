"""Decisions that pick sets of cards, taken one card at a time.

An action with a `subsets(zone)` parameter has an id for every set the zone could ever hold:
stable, but far too many for a flat action space (OpenSpiel's `num_distinct_actions`, PettingZoo's
action masks). Agent frameworks split such choices into steps, as OpenSpiel's own card games do, and
`Stepwise` does this for any game:

1. a *head* token names the action and its other parameters (the set parameters left out);
2. then, for each set parameter in turn, one token per card kind added (kinds in increasing order,
   a kind once per copy) and a *done* token (`kinds`) that closes the set.

Only tokens that lead to at least one legal action are legal, so every completed sequence is a
legal action of the engine, which then applies it as one move. Tokens are numbered from 0 to
`num_actions - 1`; their meaning depends on the step, as it may in OpenSpiel.
"""
from __future__ import annotations

from ..errors import IllegalActionError
from . import subsets
from ..lower import ActionTable, core


class Stepwise:
    def __init__(self, game):
        self.game = game
        self.copies = [max(0, c) for c in game.component_count_list]
        self.done = len(self.copies)  # the token that closes a set
        self.heads = ActionTable()  # the actions with their set parameters left out
        self._head: dict[tuple[int, int], tuple[int, list[int], list[int]]] = {}  # offset, scalars, sizes
        self.set_parameters = 0  # the most set parameters of one action
        for point, choose in sorted(game.choices.items()):
            for ai, action in enumerate(choose.actions):
                scalars = [i for i, b in enumerate(action.binders) if not isinstance(b.iter, core.SubsetsOf)]
                self.set_parameters = max(self.set_parameters, len(action.binders) - len(scalars))
                all_sizes = game.action_table.sizes[(point, ai)]
                sizes = [all_sizes[i] for i in scalars]
                self._head[(point, ai)] = (self.heads.add(point, ai, sizes, [None] * len(sizes)), scalars, sizes)
        self.num_actions = max(self.heads.size, self.done + 1)

    @staticmethod
    def needed(game) -> bool:
        """Does some decision of the game pick a set of cards?"""
        return any(isinstance(b.iter, core.SubsetsOf) for c in game.choices.values() for a in c.actions for b in a.binders)

    def tokens(self, action: int) -> list[int]:
        """The token sequence of a (full) engine action."""
        point, ai, combo, _ = self.game.action_table[action]
        offset, scalars, sizes = self._head[(point, ai)]
        head = 0
        for i, size in zip(scalars, sizes):
            head = head * size + combo[i]
        out = [offset + head]
        binders = self.game.choices[point].actions[ai].binders
        for b, index in zip(binders, combo):
            if isinstance(b.iter, core.SubsetsOf):
                out += [*subsets.from_index(index, self.copies), self.done]
        return out

    def legal(self, state, partial: list[int]) -> list[int]:
        """The tokens that continue `partial` towards a legal action of `state`."""
        n = len(partial)
        found = set()
        for action in state.legal_actions():
            seq = self.tokens(action)
            if seq[:n] == partial and len(seq) > n:
                found.add(seq[n])
        return sorted(found)

    def push(self, state, partial: list[int], token: int) -> int | None:
        """Check `token` after `partial`; the engine action once the sequence is complete, else None."""
        n = len(partial)
        wanted = [*partial, token]
        match = None
        for action in state.legal_actions():
            seq = self.tokens(action)
            if seq[:n + 1] == wanted:
                if len(seq) == n + 1:
                    return action
                match = action
        if match is None:
            raise IllegalActionError(token, self.legal(state, partial), lambda t: self.describe(state, partial, t))
        return None

    def describe(self, state, partial: list[int], token: int) -> str:
        """How a token reads after `partial`."""
        if not partial:
            for action in state.legal_actions():
                if self.tokens(action)[0] == token:
                    act, parts = self.game.action_parts(action)
                    fixed = [p for p, b in zip(parts, act.binders) if not isinstance(b.iter, core.SubsetsOf)]
                    sets = [b.name for b in act.binders if isinstance(b.iter, core.SubsetsOf)]
                    chosen = f", then choose {' and '.join(sets)}" if sets else ""
                    return f"{act.name}({', '.join(fixed)}{chosen})" if fixed or sets else act.name
            return f"<step {token}>"
        if token == self.done:
            return "done"
        if 0 <= token < self.done:
            return f"add {self.game.kind_names[token]}"
        return f"<step {token}>"

    def chosen(self, partial: list[int]) -> list[list[int]]:
        """Per set parameter, the kinds chosen so far (for observations)."""
        sets: list[list[int]] = []
        current: list[int] = []
        for token in partial[1:]:
            if token == self.done:
                sets.append(current)
                current = []
            else:
                current.append(token)
        if partial:
            sets.append(current)
        return sets
