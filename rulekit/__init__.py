"""rulekit: tabletop rulebooks made formal, executable and checked.

    >>> import rulekit
    >>> game = rulekit.load("mygame", players=4)  # a bundled game, a spec folder or a .rules file
    >>> state = game.new_initial_state(seed=7)
"""
from __future__ import annotations

import difflib

from .engine import CHANCE_PLAYER, TERMINAL_PLAYER, Game, State
from .errors import (GameNotFoundError, IllegalActionError, OptionError, RuleRuntimeError, RulekitError,
                     SpecError, StateFormatError)
from .pipeline import Spec
from .simulation import simulate

__version__ = "0.1.0"

_games: dict[tuple, Game] = {}


def load(name_or_path: str, players: int | None = None, options: dict[str, str] | None = None) -> Game:
    """Load a game: a bundled game's name, a spec folder, or a .rules file.

    `players` defaults to the smallest count the rulebook allows; `options`
    picks options of the spec's ambiguity declarations (the rest keep their defaults).
    """
    spec = Spec.find(name_or_path)
    model = spec.model
    if players is None:
        players = model.min_players
    if not isinstance(players, int) or not model.min_players <= players <= model.max_players:
        raise OptionError(f"{model.name} is for {model.min_players} to {model.max_players} players, not {players!r}")
    chosen = model.default_options()
    for name, value in (options or {}).items():
        if name not in chosen:
            close = difflib.get_close_matches(name, list(chosen), n=1)
            raise OptionError(f"{model.name} has no ambiguity {name!r}"
                              + (f"; did you mean {close[0]!r}?" if close else f"; it has: {', '.join(chosen) or 'none'}"))
        allowed = model.ambiguity(name).option_names()
        if value not in allowed:
            raise OptionError(f"ambiguity {name!r} has no option {value!r}; its options are: {', '.join(allowed)}")
        chosen[name] = value
    key = (str(spec.path.resolve()), spec.digest, players, tuple(sorted(chosen.items())))
    if key not in _games:
        _games[key] = Game(spec, players, chosen)
    return _games[key]


__all__ = ["load", "simulate", "Game", "State", "Spec", "CHANCE_PLAYER", "TERMINAL_PLAYER", "RulekitError", "SpecError",
           "IllegalActionError", "StateFormatError", "GameNotFoundError", "OptionError", "RuleRuntimeError",
           "__version__"]
