"""rulekit: tabletop rulebooks made formal, executable and checked.

    >>> import rulekit
    >>> game = rulekit.load("mygame", players=4)  # a bundled game, a spec folder or a .rules file
    >>> state = game.new_initial_state(seed=7)
"""
from __future__ import annotations

from .engine import CHANCE_PLAYER, TERMINAL_PLAYER, Game, State
from .errors import (GameNotFoundError, IllegalActionError, OptionError, RuleRuntimeError, RulekitError,
                     SeatError, SpecError, StateFormatError)
from .pipeline import Spec
from .simulation import simulate

__version__ = "0.1.0"


def load(name_or_path: str, players: int | None = None, options: dict[str, str] | None = None) -> Game:
    """Load a game: a bundled game's name, a spec folder, or a .rules file.

    `players` defaults to the smallest count the rulebook allows; `options`
    picks options of the spec's ambiguity declarations (the rest keep their defaults).
    Each configuration is compiled once and cached.
    """
    return Spec.find(name_or_path).engine(players, options)


__all__ = ["load", "simulate", "Game", "State", "Spec", "CHANCE_PLAYER", "TERMINAL_PLAYER", "RulekitError", "SpecError",
           "IllegalActionError", "SeatError", "StateFormatError", "GameNotFoundError", "OptionError", "RuleRuntimeError",
           "__version__"]
