"""The reference engine: games compiled from specs, with OpenSpiel's State API."""
from .game import Game
from .state import CHANCE_PLAYER, TERMINAL_PLAYER, State

__all__ = ["Game", "State", "CHANCE_PLAYER", "TERMINAL_PLAYER"]
