"""Any rulekit game as an OpenSpiel game (a registered `pyspiel` Python game).

    >>> from rulekit import openspiel
    >>> game = openspiel.load_game("mygame", players=3)      # a pyspiel.Game
    >>> state = game.new_initial_state()                     # a pyspiel.State
    >>> pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)

Importing this module registers every bundled game as `python_rulekit_<game>`, so
`pyspiel.load_game("python_rulekit_mygame(players=4)")` works too; `register(path)`
registers a spec of your own. Everything here is derived from the game's model:

* game type: sequential; explicit stochastic when the spec shuffles or draws at random
  (deterministic otherwise); imperfect information when any zone is hidden or owner-only;
  zero-sum (or constant-sum) only when every possible outcome sums to 0 (or to one
  constant), which with a win/lose payoff means never, so rulekit games are general-sum;
  terminal rewards.
* parameters: `players`, one per ambiguity of the spec (its option names), and the two caps
  below.
* `max_game_length` (default 1000) caps the number of player decisions and
  `max_chance_nodes` (default -1: 4 * max_game_length + 100) the number of chance events,
  since OpenSpiel needs a finite game and a spec may never end (OpenSpiel's
  MaxChanceNodesInHistory is this second cap). A game cut by a
  cap is terminal and *nobody wins*: every player gets the spec's losing payoff, exactly
  what the engine gives when a game ends without a winner. It stays inside
  [min_utility, max_utility], and a cut is never better than playing on: with one winner
  among three or more, a draw at 0 would beat the average result and reward stalling.
  A rules deadlock (not over, nobody can move) ends the game the same way.
* observations: the engine's own strings (`observation_string`, and for games with hidden
  information `information_state_string`, which adds the player's own moves so that it has
  perfect recall), and a fixed-size float32 tensor, see `ObservationEncoder`.
* serialization: the state is its action history; OpenSpiel's serialize/deserialize replays it.

The observation tensor (`rulekit.engine.observation.ObservationEncoder`) needs only numpy: the
PettingZoo adapter uses it too, so this module imports without `pyspiel` (only `load_game` and
friends need it).
"""
from __future__ import annotations

import re
import warnings

try:
    import numpy as np
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('rulekit.openspiel needs numpy and open_spiel: pip install "rulekit[openspiel]"') from exc

from . import model as m
from .engine.observation import ObservationEncoder, encoder_for
from .errors import RulekitError
from .pipeline import Spec
from .resources import bundled_games

try:  # the optional extra: pip install "rulekit[openspiel]"
    import pyspiel
except ImportError:  # pragma: no cover - exercised only without the extra
    pyspiel = None

DEFAULT_MAX_GAME_LENGTH = 1000
CHANCE_NODES_PER_DECISION = 4  # the default chance cap: this many per decision allowed,
CHANCE_NODES_SET_UP = 100       # plus room for the set-up (shuffles and deals before any decision)
_RESERVED = ("players", "max_game_length", "max_chance_nodes")


# ---- what the model says about the game ----------------------------------------------------

def has_chance(model: m.Game) -> bool:
    """Does the spec ever shuffle or draw at random?"""
    return any(isinstance(st, (m.Random, m.Shuffle))
               for proc in (model.flow, *model.procedures) for st in m.walk(proc.body))


def has_hidden_information(model: m.Game) -> bool:
    return any(z.visibility != "public" for z in model.zones) or any(v.visibility not in ("public", "internal") for v in model.vars)


def outcome_sums(model: m.Game, players: int) -> set[float]:
    """The sum of the returns of every possible end: k winners get `win`, the rest `lose`
    (k = 0 is also a game cut by a cap)."""
    win, lose = model.payoff
    return {float(k * win + (players - k) * lose) for k in range(players + 1)}


def _short_name(model: m.Game) -> str:
    return "python_rulekit_" + (re.sub(r"[^a-z0-9_]", "_", model.name.lower()) or "game")


# ---- OpenSpiel classes ---------------------------------------------------------------------

_GameBase = pyspiel.Game if pyspiel is not None else object
_StateBase = pyspiel.State if pyspiel is not None else object


class _Config:
    """One game configuration, shared by every state of it (never copied)."""

    def __init__(self, key: tuple):
        from . import load
        ref, players, options, max_len, max_chance = key
        self.key = key
        self.game = load(ref, players=players, options=dict(options))
        self.players = players
        self.max_len = max_len
        self.max_chance = max_chance
        self.lose = float(self.game.model.payoff[1])
        self.encoder = encoder_for(self.game)
        self.max_outcomes = self.game.max_chance_outcomes()
        self.stepwise = self.encoder.stepwise  # set choices are taken one card at a time
        self.num_actions = self.stepwise.num_actions if self.stepwise else self.game.num_distinct_actions()


_configs: dict[tuple, _Config] = {}


def _config(key: tuple) -> _Config:
    if key not in _configs:
        _configs[key] = _Config(key)
    return _configs[key]


class _Play:
    """A rulekit state and the counts the caps need. OpenSpiel clones a Python state by
    deep-copying its attributes and serializes it by pickling them: this one object is the
    only attribute, copies as an engine clone, and pickles as its action history."""

    __slots__ = ("cfg", "state", "decisions", "chances", "moves", "over", "cut", "partial", "trail")

    def __init__(self, cfg: _Config, state=None, decisions=0, chances=0, moves=None, partial=None, trail=None):
        self.cfg = cfg
        self.state = state if state is not None else cfg.game.new_initial_state()
        self.decisions = decisions
        self.chances = chances
        self.moves = moves if moves is not None else []  # (player, engine action) of each decision
        self.partial = partial if partial is not None else []  # steps of a set choice in progress
        self.trail = trail if trail is not None else []  # every OpenSpiel action, for games with set choices
        self._update()

    def _update(self) -> None:
        s = self.state
        ended = s.is_terminal()
        # cut by a cap (or stuck in a rules deadlock) before the rules ended the game
        self.cut = not ended and (self.decisions >= self.cfg.max_len or self.chances >= self.cfg.max_chance
                                  or s.is_stuck())
        self.over = ended or self.cut

    def __deepcopy__(self, memo):
        return _Play(self.cfg, self.state.clone(), self.decisions, self.chances, self.moves[:], self.partial[:],
                     self.trail[:])

    def __reduce__(self):
        return _replay, (self.cfg.key, self.trail[:] if self.cfg.stepwise else list(self.state.history))

    def legal_actions(self) -> list[int]:
        if self.cfg.stepwise and not self.state.is_chance_node():
            return self.cfg.stepwise.legal(self.state, self.partial)
        return self.state.legal_actions()

    def apply(self, action: int) -> None:
        state = self.state
        if state.is_chance_node():
            state.apply_action(action)
            self.chances += 1
        else:
            player = state.current_player()
            move = action
            if self.cfg.stepwise:
                move = self.cfg.stepwise.push(state, self.partial, action)  # IllegalActionError if not legal
                if move is None:
                    self.partial.append(action)
            if move is not None:
                state.apply_action(move)
                self.partial = []
                self.moves.append((player, move))
            self.decisions += 1
        if self.cfg.stepwise:
            self.trail.append(action)
        self._update()


def _replay(key: tuple, history: list[int]) -> _Play:
    play = _Play(_config(key))
    for action in history:
        play.apply(action)
    return play


class RulekitGame(_GameBase):
    """A rulekit game seen by OpenSpiel; one subclass per registered spec."""

    _ref: str = ""
    _type = None
    _defaults: dict = {}
    _ambiguities: tuple = ()

    def __init__(self, params=None):
        params = {**self._defaults, **(params or {})}
        unknown = set(params) - set(self._defaults)
        if unknown:
            raise ValueError(f"{self._type.short_name} has no parameter(s) {sorted(unknown)}; "
                             f"it has {sorted(self._defaults)}")
        max_len = int(params["max_game_length"])
        max_chance = int(params["max_chance_nodes"])
        if max_len < 1:
            raise ValueError(f"max_game_length must be at least 1, not {max_len}")
        if max_chance < 0:
            max_chance = CHANCE_NODES_PER_DECISION * max_len + CHANCE_NODES_SET_UP
        options = tuple(sorted((a, str(params[a])) for a in self._ambiguities))
        cfg = _config((self._ref, int(params["players"]), options, max_len, max(max_chance, 1)))
        rk = cfg.game
        stochastic = self._type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        sums = outcome_sums(rk.model, rk.num_players())
        general = self._type.utility == pyspiel.GameType.Utility.GENERAL_SUM
        info = pyspiel.GameInfo(
            num_distinct_actions=max(cfg.num_actions, 1),
            max_chance_outcomes=rk.max_chance_outcomes() if stochastic else 0,
            num_players=rk.num_players(),
            min_utility=rk.min_utility(),
            max_utility=rk.max_utility(),
            utility_sum=None if general or len(sums) != 1 else sums.copy().pop(),
            max_game_length=max_len)
        super().__init__(self._type, info, params)
        self.rulekit_config = cfg

    @property
    def rulekit_game(self):
        """The underlying rulekit Game."""
        return self.rulekit_config.game

    def max_chance_nodes_in_history(self) -> int:
        return self.rulekit_config.max_chance

    def new_initial_state(self, *args):
        if args:
            raise ValueError("rulekit games have one initial state (no initial-state parameters)")
        return RulekitState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return RulekitObserver(self.rulekit_config, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class RulekitState(_StateBase):
    """An OpenSpiel state wrapping a rulekit engine state (`rulekit_state`)."""

    def __init__(self, game: RulekitGame):
        super().__init__(game)
        self.rulekit_play = _Play(game.rulekit_config)

    @property
    def rulekit_state(self):
        return self.rulekit_play.state

    @property
    def cut(self) -> bool:
        """True when a cap (or a rules deadlock) ended the game, not its rules."""
        return self.rulekit_play.cut

    def current_player(self) -> int:
        play = self.rulekit_play
        return int(pyspiel.PlayerId.TERMINAL) if play.over else play.state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        play = self.rulekit_play
        return play.legal_actions() if player == play.state.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self.rulekit_play.state.chance_outcomes()
        limit = self.rulekit_play.cfg.max_outcomes
        bad = [a for a, _ in outcomes if not 0 <= a < limit]
        if bad:
            raise RulekitError(f"chance outcome(s) {bad} fall outside 0..{limit - 1} (max_chance_outcomes): "
                               "OpenSpiel cannot number them; random values over a range or a set of numbers "
                               "are not supported by the OpenSpiel adapter")
        return outcomes

    def _apply_action(self, action: int) -> None:
        self.rulekit_play.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        state = self.rulekit_play.state
        if player == int(pyspiel.PlayerId.CHANCE):
            return state.action_to_string(action) if state.is_chance_node() else f"chance: outcome {action}"
        if self.rulekit_play.cfg.stepwise:
            return self.rulekit_play.cfg.stepwise.describe(state, self.rulekit_play.partial, action)
        return state.game.describe_action(action)

    def is_terminal(self) -> bool:
        return self.rulekit_play.over

    def returns(self) -> list[float]:
        play = self.rulekit_play
        if play.cut:
            return [play.cfg.lose] * play.cfg.players
        return play.state.returns()

    def __str__(self) -> str:
        play = self.rulekit_play
        text = str(play.state)
        if play.cut:
            why = ("a rules deadlock: nobody can move" if play.state.is_stuck()
                   else f"cut after {play.decisions} decisions and {play.chances} chance events "
                        f"(max_game_length={play.cfg.max_len}, max_chance_nodes={play.cfg.max_chance})")
            text += f"\n  game over by {why}; nobody wins"
        return text


class RulekitObserver:
    """OpenSpiel's PyObserver for rulekit games: `tensor`, `dict`, `set_from`, `string_from`.

    Supported observation types: public_info with private_info SINGLE_PLAYER (the default
    observation), NONE (public observation) or ALL_PLAYERS (the whole truth), without perfect
    recall (string and tensor); and with perfect recall, SINGLE_PLAYER (the information state:
    a string, no tensor).
    """

    def __init__(self, cfg: _Config, iig_obs_type, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if not iig_obs_type.public_info:
            raise ValueError("observations without public information are not supported")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            self.mode = "player"
        elif private == pyspiel.PrivateInfoType.NONE:
            self.mode = "public"
        else:
            self.mode = "all"
        self.perfect_recall = iig_obs_type.perfect_recall
        if self.perfect_recall and self.mode != "player":
            raise ValueError("perfect-recall observations are supported for a single player only")
        self.rulekit_config = cfg
        self._encoder = cfg.encoder
        if self.perfect_recall:
            self.tensor = None
            self.dict = {}
        else:
            self.tensor = np.zeros(self._encoder.size, np.float32)
            self.dict = self._encoder.views(self.tensor)

    def set_from(self, state: RulekitState, player: int) -> None:
        if self.tensor is not None:
            play = state.rulekit_play
            self._encoder.encode(play.state, player, self.mode, over=play.over, out=self.tensor,
                                 partial=play.partial)

    def string_from(self, state: RulekitState, player: int) -> str:
        play = state.rulekit_play
        if not 0 <= player < play.cfg.players:
            raise ValueError(f"player {player} is not a seat of this {play.cfg.players}-player game")
        if self.perfect_recall:
            game = play.state.game
            own = ", ".join(game.describe_action(a) for p, a in play.moves if p == player) or "-"
            text = play.state.information_state_string(player) + f"\n  your moves: {own}"
        else:
            text = self._encoder.text(play.state, player, self.mode)
        if self.mode == "all" or play.state.current_player() == player:
            text += self._encoder.choosing_text(play.state, play.partial)
        if play.cut:
            text += "\n  game over: cut by a cap or a deadlock; nobody wins"
        return text


# ---- registration --------------------------------------------------------------------------

_registered: dict[str, type] = {}  # short name -> RulekitGame subclass


def _require_pyspiel() -> None:
    if pyspiel is None:
        raise ImportError('the OpenSpiel adapter needs open_spiel: pip install "rulekit[openspiel]"')


def register(name_or_path: str) -> str:
    """Register a game (a bundled game's name, a spec folder or a .rules file) with OpenSpiel;
    returns its OpenSpiel name, `python_rulekit_<game>`. Registering again is a no-op."""
    _require_pyspiel()
    spec = Spec.find(name_or_path)
    model = spec.model
    short = _short_name(model)
    ref = str(name_or_path)
    if short in _registered:
        known = _registered[short]._ref
        if known == ref or Spec.find(known).path.resolve() == spec.path.resolve():
            return short
        raise ValueError(f"{short} is already registered for {known!r}, not {ref!r}")
    clash = [a.name for a in model.ambiguities if a.name in _RESERVED]
    if clash:
        raise ValueError(f"ambiguity name(s) {clash} clash with OpenSpiel parameters {_RESERVED}")
    imperfect = has_hidden_information(model)
    sums = outcome_sums(model, model.max_players) | outcome_sums(model, model.min_players)
    Utility = pyspiel.GameType.Utility
    utility = (Utility.ZERO_SUM if sums == {0.0} else Utility.CONSTANT_SUM if len(sums) == 1
               else Utility.GENERAL_SUM)
    defaults = {"players": model.min_players, "max_game_length": DEFAULT_MAX_GAME_LENGTH, "max_chance_nodes": -1}
    defaults.update(model.default_options())
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"rulekit: {model.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if has_chance(model)
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if imperfect
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=model.max_players,
        min_num_players=model.min_players,
        provides_information_state_string=imperfect,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=defaults)
    cls = type(f"RulekitGame_{short[len('python_rulekit_'):]}", (RulekitGame,),
               {"_ref": ref, "_type": game_type, "_defaults": dict(defaults),
                "_ambiguities": tuple(a.name for a in model.ambiguities)})
    pyspiel.register_game(game_type, cls)
    _registered[short] = cls
    return short


def load_game(name_or_path: str, players: int | None = None, options: dict[str, str] | None = None,
              max_game_length: int | None = None, max_chance_nodes: int | None = None):
    """The pyspiel game for a rulekit game, registering it first if needed.

    `players` defaults to the spec's smallest count; `options` picks ambiguity options;
    `max_game_length` caps player decisions (default 1000) and `max_chance_nodes` chance
    events (default 4 * max_game_length + 100); a game cut by a cap is a loss for everyone.
    """
    _require_pyspiel()
    from . import load
    rk = load(name_or_path, players=players, options=options)  # validates players and options
    short = register(name_or_path)
    params = {"players": rk.num_players(), **{k: v for k, v in rk.options.items()}}
    if max_game_length is not None:
        params["max_game_length"] = int(max_game_length)
    if max_chance_nodes is not None:
        params["max_chance_nodes"] = int(max_chance_nodes)
    return pyspiel.load_game(short, params)


def game_string(name_or_path: str, **params) -> str:
    """The OpenSpiel game string, e.g. `python_rulekit_mygame(players=4)`."""
    short = register(name_or_path)
    inner = ",".join(f"{k}={v}" for k, v in params.items())
    return f"{short}({inner})" if inner else short


def _register_bundled() -> None:
    for name in bundled_games():
        try:
            register(name)
        except RulekitError as exc:  # one broken spec must not hide the others
            warnings.warn(f"rulekit.openspiel: could not register {name!r}: {exc}", stacklevel=2)


if pyspiel is not None:
    _register_bundled()

__all__ = ["ObservationEncoder", "encoder_for", "RulekitGame", "RulekitState", "RulekitObserver", "register",
           "load_game", "game_string", "has_chance", "has_hidden_information", "outcome_sums",
           "DEFAULT_MAX_GAME_LENGTH"]
