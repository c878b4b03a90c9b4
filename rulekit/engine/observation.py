"""The observation tensor: what one player may see of a state, as a fixed-size float32 vector.

Built from the engine's public layout (zones, variables, components), so the same encoder serves
the OpenSpiel and PettingZoo adapters and any agent; it needs only numpy.
"""
from __future__ import annotations

try:
    import numpy as np
except ImportError as exc:  # pragma: no cover - exercised only without numpy
    raise ImportError('the observation tensor needs numpy: pip install "rulekit[openspiel]"') from exc

from ..errors import InternalError
from .knowledge import NO_SEAT, knowledge
from .stepwise import Stepwise

class ObservationEncoder:
    """A fixed-size float32 encoding of what one player sees, derived from the game's model.

    Pieces, in order (Z zone instances, e.g. hand[0]..hand[n-1] and deck; K component kinds;
    S the stack zones among the Z; V the variable and token slots):

    ==========  ======  =================================================================
    observer    (n,)    one-hot: the observing seat
    turn        (n,)    one-hot: whose turn it is
    to_move     (n,)    one-hot: who must decide now (all 0 at chance and terminal nodes)
    status      (2,)    [chance node, game over]
    zones       (Z, K)  per zone, copies of each kind the observer can see (0 if hidden)
    sizes       (Z,)    per zone, how many cards it holds (always public)
    top         (S, K)  per stack zone, one-hot of its top card when the observer sees it
                        (all 0 while the top is still undetermined after a shuffle)
    known       (Z, K)  per zone the observer cannot see, copies of each kind they know are in it
                        (shown to them by a reveal, or seen going in, and not gone since:
                        the "known to you" part of the observation)
    vars        (V,)    every variable and token count the observer can see, raw values
                        (0 for a variable declared `owner` or `hidden` that is not theirs)
    choosing    (1+P*K) only for games whose decisions pick sets of cards, taken step by step
                        (rulekit.engine.stepwise; P is the most set parameters of one action):
                        the head step taken plus 1 (0 when none), then per set parameter the
                        copies of each kind chosen so far; shown to the deciding player only
    ==========  ======  =================================================================

    `mode` picks whose secrets are shown: "player" (exactly the engine's
    `observation(player)`: public zones, the player's own owner-only zones, reveals to them),
    "public" (public zones and reveals to everyone only) or "all" (the whole truth).
    """

    def __init__(self, game):
        self.game = game
        self.n = n = game.num_players()
        self.kinds = list(game.component_counts)
        self.kind_index = {name: i for i, name in enumerate(self.kinds)}
        self.total = max(sum(game.component_counts.values()), 1)
        instances = game.zone_instances()
        base = {}
        for i, (_, decl, _) in enumerate(instances):
            base.setdefault(decl.name, i)
        self.zones = [(decl, i - base[decl.name] if decl.indexed else None) for i, (_, decl, _) in enumerate(instances)]
        first = game.new_initial_state().observation(0)
        self.zone_names = list(first["zones"])
        self.var_names = list(first["vars"])
        self.var_slots = [i for i in range(game.layout.nvars) if not game.variable_internal(i)]
        if len(self.zone_names) != len(self.zones):
            raise InternalError(f"{game.name}: the engine shows {len(self.zone_names)} zones, the model declares "
                               f"{len(self.zones)}")
        self.stacks = [i for i, (z, _) in enumerate(self.zones) if z.shape == "stack"]
        self.stepwise = Stepwise(game) if Stepwise.needed(game) else None
        K, Z, S, V = len(self.kinds), len(self.zones), len(self.stacks), len(self.var_names)
        P = self.stepwise.set_parameters if self.stepwise else 0
        shapes = [("observer", (n,)), ("turn", (n,)), ("to_move", (n,)), ("status", (2,)),
                  ("zones", (Z, K)), ("sizes", (Z,)), ("top", (S, K)), ("known", (Z, K)), ("vars", (V,)),
                  ("choosing", (1 + P * K,) if P else (0,))]
        self.pieces = [(name, shape) for name, shape in shapes if int(np.prod(shape)) > 0]
        self.size = sum(int(np.prod(shape)) for _, shape in self.pieces)

    def views(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views (no copies) of a flat tensor of this encoding."""
        out, at = {}, 0
        for name, shape in self.pieces:
            size = int(np.prod(shape))
            out[name] = flat[at:at + size].reshape(shape)
            at += size
        return out

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lowest and highest value of each entry (variables are unbounded)."""
        low = np.zeros(self.size, np.float32)
        high = np.full(self.size, float(self.total), np.float32)
        lv, hv = self.views(low), self.views(high)
        for name in ("observer", "turn", "to_move", "status", "top"):
            if name in hv:
                hv[name][...] = 1
        if "vars" in lv:
            lv["vars"][...] = -np.inf
            hv["vars"][...] = np.inf
        if "choosing" in hv:
            hv["choosing"][0] = float(self.stepwise.heads.size)
        return low, high

    def _contents(self, state, player: int, mode: str, obs: dict) -> list:
        """Per zone: the list of card names the observer sees, or just the count."""
        contents = list(obs["zones"].values())
        if mode == "public":
            return [len(c) if isinstance(c, list) and z.visibility != "public" else c
                    for c, (z, _) in zip(contents, self.zones)]
        if mode == "all":
            return [state.zone(z.name, p) for z, p in self.zones]
        return contents

    def _known(self, state, player: int, mode: str) -> dict:
        """Per hidden zone, the kinds known there: to `player`, or to the whole table ("public")."""
        return knowledge(self.game, state, NO_SEAT if mode == "public" else player)

    def encode(self, state, player: int, mode: str = "player", over: bool | None = None,
               out: np.ndarray | None = None, partial: list[int] | None = None) -> np.ndarray:
        """The tensor of `state` (a rulekit State) seen by `player`; `over` overrides game over
        (for a game cut by a cap); `out` is filled in place when given; `partial`: the steps of a
        set choice taken so far (games with set choices only)."""
        if not 0 <= player < self.n:
            raise ValueError(f"player {player} is not a seat of this {self.n}-player game")
        if out is None:
            out = np.zeros(self.size, np.float32)
        else:
            out.fill(0)
        d = self.views(out)
        obs = state.observation(player)
        over = state.is_terminal() if over is None else over
        d["observer"][player] = 1
        if 0 <= obs["turn"] < self.n:
            d["turn"][obs["turn"]] = 1
        if not over and 0 <= obs["to_move"] < self.n:
            d["to_move"][obs["to_move"]] = 1
        d["status"][0] = float(not over and state.is_chance_node())
        d["status"][1] = float(over)
        index = self.kind_index
        contents = self._contents(state, player, mode, obs)
        zones, sizes = d.get("zones"), d.get("sizes")
        for i, c in enumerate(contents):
            if isinstance(c, list):
                if zones is not None:
                    row = zones[i]
                    for name in c:
                        row[index[name]] += 1
                sizes[i] = len(c)
            else:
                sizes[i] = c
        lo, hi = state.lo, state.hi
        for j, i in enumerate(self.stacks):
            c = contents[i]
            # a shuffled stack keeps an undetermined block [lo, hi): its top is not known yet
            if isinstance(c, list) and c and not (hi[i] > lo[i] and hi[i] == len(c)):
                d["top"][j, index[c[-1]]] = 1
        if "known" in d:
            for zone, cards in self._known(state, player, mode).items():
                for k, copies in cards.items():
                    d["known"][zone, k] = copies
        if "vars" in d:
            d["vars"][:] = self._vars(state, player, mode, obs)
        if partial and "choosing" in d and (mode == "all" or obs["to_move"] == player):
            choosing = d["choosing"]
            choosing[0] = partial[0] + 1
            K = len(self.kinds)
            for i, kinds in enumerate(self.stepwise.chosen(partial)):
                for k in kinds:
                    choosing[1 + i * K + k] += 1
        return out

    def _vars(self, state, player: int, mode: str, obs: dict) -> list:
        v, game = state.v, self.game
        if mode == "all":
            return [v[i] for i in self.var_slots]
        if mode == "public":
            return [v[i] if game.variable_public(i) else 0 for i in self.var_slots]
        return [v[i] if game.variable_visible(i, player) else 0 for i in self.var_slots]

    def choosing_text(self, state, partial: list[int] | None) -> str:
        """The set choice in progress, for the deciding player's observation string."""
        if not partial or self.stepwise is None:
            return ""
        head = self.stepwise.describe(state, [], partial[0]).split(" ", 1)[0]
        sets = ["{" + ", ".join(self.kinds[k] for k in kinds) + "}" for kinds in self.stepwise.chosen(partial)]
        return f"\n  choosing: {head}, cards so far: {' then '.join(sets)}"

    def text(self, state, player: int, mode: str = "player") -> str:
        """A readable observation; for "player" mode, the engine's own `observation_string`."""
        if mode == "player":
            return state.observation_string(player)
        obs = state.observation(player)
        game = self.game
        lines = [f"{'full' if mode == 'all' else 'public'} view for {game.player_name(player)}; "
                 f"turn of {game.player_name(obs['turn'])}"]
        for name, c in zip(self.zone_names, self._contents(state, player, mode, obs)):
            shown = (", ".join(c) or "-") if isinstance(c, list) else f"{c} hidden card(s)"
            lines.append(f"  {name}: {shown}")
        shown = self._vars(state, player, mode, obs) if mode == "all" else obs["vars"].values()
        lines.append("  " + ", ".join(f"{k}={'?' if v is None or (mode == 'public' and not self.game.variable_public(i)) else v}"
                                      for i, k, v in zip(self.var_slots, obs["vars"], shown)))
        for zone, cards in sorted(self._known(state, player, mode).items()):
            lines.append(f"  known: {self.zone_names[zone]}: " + ", ".join(self.kinds[k] for k in sorted(cards.elements())))
        return "\n".join(lines)


_encoders: dict[tuple, ObservationEncoder] = {}


def encoder_for(game) -> ObservationEncoder:
    """The (cached) observation encoder of a loaded rulekit game."""
    if game.key not in _encoders:
        _encoders[game.key] = ObservationEncoder(game)
    return _encoders[game.key]


__all__ = ["ObservationEncoder", "encoder_for"]
