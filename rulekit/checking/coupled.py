"""Coupled play: random games of one option set replayed step by step under another, to the first
position where the two differ (the legal moves, the chance outcomes and their odds, or the end)."""
from __future__ import annotations

from .. import phrases
from ..errors import RuleRuntimeError, SpecError
from .sampling import Tally
from .witnesses import witness

def coupled_replay(spec, base: Tally, default: dict, options: dict, replays: dict | None = None) -> dict | None:
    """The first state, along the default options' kept random games replayed under `options`, whose
    legal moves, chance outcomes or end differ; None when every kept game replays alike. `replays`
    keeps each default game's positions, for the next option set."""
    replays = {} if replays is None else replays
    games = {}
    for players in sorted(base.traces):
        try:
            games[players] = spec.engine(players, default), spec.engine(players, options)
        except (RuleRuntimeError, SpecError):
            continue
    # the first game of every player count first: an option that changes play shows it soonest
    for i in range(max((len(h) for h in base.traces.values()), default=0)):
        for players, (a_game, b_game) in games.items():
            if i >= len(base.traces[players]):
                continue
            history = base.traces[players][i]
            key = ("positions", players, i)
            if key not in replays:
                replays[key] = positions(a_game, history)
            found = first_difference(a_game, b_game, history, replays[key])
            if found is not None:
                return {"players": players, **found}
    return None


def positions(game, history: list[int]) -> list[tuple]:
    """The position before each step of `history`, and after the last, with the name of each step."""
    state, names, out = game.new_initial_state(), _Names(), []
    for action in history:
        out.append((_position(state, names), names(state, action)))
        state.apply_action(action)
    out.append((_position(state, names), None))
    return out


def first_difference(a_game, b_game, history: list[int], known: list[tuple] | None = None) -> dict | None:
    """Replays `history` (the first game's action ids) in both games, matching actions by name;
    `known`: the first game's positions along it (see `positions`)."""
    known = known if known is not None else positions(a_game, history)
    b = b_game.new_initial_state()
    names_b = _Names()
    for step, (here, name) in enumerate(known):
        there = _position(b, names_b)
        if here != there:
            return {"step": step, "default": _shown(here), "option": _shown(there),
                    "text": f"{_when(step)} with {_players(a_game.num_players())}, {_difference(here, there)}",
                    "steps": witness(b) if step else []}
        if name is None:
            return None
        try:
            b.apply_action(next(x for x in b.legal if names_b(b, x) == name))
        except RuleRuntimeError as exc:
            return {"step": step + 1, "default": "the rules go on", "option": str(exc),
                    "text": f"after {step + 1} steps with {_players(a_game.num_players())}, the rules go on under the "
                            f"default options but fail under this one ({exc})", "steps": witness(b)}
    return None


def _players(n: int) -> str:
    return f"{n} player{'s' if n != 1 else ''}"


def _when(step: int) -> str:
    return "at the start" if step == 0 else f"after {step} step{'s' if step > 1 else ''}"


class _Names:
    """A decision's name depends on its id alone (the game's action table): each is worked out once."""

    def __init__(self):
        self.known: dict[int, str] = {}

    def __call__(self, state, action: int) -> str:
        if state.chance is not None:
            return state.action_to_string(action)
        name = self.known.get(action)
        if name is None:
            name = self.known[action] = state.action_to_string(action)
        return name


def _position(s, names: _Names) -> tuple:
    if s.is_terminal():
        return ("over", tuple(sorted(s.winners)))
    if s.chance is not None:
        return ("chance", tuple(sorted((s.action_to_string(x), round(p, 9)) for x, p in s.chance)))
    if not s.legal:
        return ("stuck",)
    return ("decide", s.current_player(), tuple(sorted(names(s, x) for x in s.legal)))


def _shown(position: tuple):
    kind = position[0]
    if kind == "over":
        return {"over": True, "winners": list(position[1])}
    if kind == "chance":
        return {"chance": {name: p for name, p in position[1]}}
    if kind == "stuck":
        return {"stuck": True}
    return {"player": position[1], "legal": list(position[2])}


def _difference(here: tuple, there: tuple) -> str:
    if here[0] == there[0] == "decide":
        extra = sorted(set(there[2]) - set(here[2]))
        gone = sorted(set(here[2]) - set(there[2]))
        parts = ([f"{', '.join(extra[:3])} become{'s' if len(extra) == 1 else ''} legal" if extra else ""]
                 + [f"{', '.join(gone[:3])} {'is' if len(gone) == 1 else 'are'} no longer legal" if gone else ""])
        if here[1] != there[1]:
            parts.append(f"{phrases.seat(there[1])} decides instead of {phrases.seat(here[1])}")
        return "; ".join(p for p in parts if p)
    if here[0] == there[0] == "chance":
        return "the chance outcomes or their odds differ"
    if here[0] == there[0] == "over":
        return "the game ends with other winners"
    words = {"over": "the game is over", "chance": "chance decides", "stuck": "no one can move",
             "decide": "a player decides"}
    if here[0] == "over":
        return f"the game goes on ({words[there[0]]}) where under the default options it is over"
    if there[0] == "over":
        return f"the game is over where under the default options it goes on ({words[here[0]]})"
    return f"{words[there[0]]} where under the default options {words[here[0]]}"
