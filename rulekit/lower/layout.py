"""Where each zone, variable and token lives in a state, for one player count."""
from __future__ import annotations

from dataclasses import dataclass

from .. import model as m


@dataclass
class Layout:
    players: int
    zone_base: dict[str, int]
    zone_names: list[str]  # per zone instance, e.g. "hand[2]"
    zone_decl: list[m.ZoneDecl]  # per zone instance
    zone_owner: list[int]  # per zone instance; -1 when shared or per position
    zone_count: dict[str, int]  # instances of each declared zone
    var_base: dict[str, int]
    var_names: list[str]
    supply_slot: dict[str, int]
    held_base: dict[str, int]
    nvars: int
    order_slot: int | None = None  # the direction of play (+1 clockwise, -1 counterclockwise) when it can change

    @classmethod
    def of(cls, game: m.Game, players: int, board_sizes: dict[str, tuple[int, int]]) -> Layout:
        zone_base, zone_names, zone_decl, zone_owner, zone_count = {}, [], [], [], {}
        for z in game.zones:
            zone_base[z.name] = len(zone_names)
            if z.per_player:
                names, owners = [f"{z.name}[{p}]" for p in range(players)], list(range(players))
            elif z.per_board is not None:
                rows, columns = board_sizes[z.per_board]
                names = [f"{z.name}[{r + 1},{c + 1}]" for r in range(rows) for c in range(columns)]
                owners = [-1] * len(names)
            else:
                names, owners = [z.name], [-1]
            zone_names += names
            zone_owner += owners
            zone_decl += [z] * len(names)
            zone_count[z.name] = len(names)
        var_base, var_names = {}, []
        for v in game.vars:
            var_base[v.name] = len(var_names)
            var_names.extend(f"{v.name}[{p}]" for p in range(players)) if v.per_player else var_names.append(v.name)
        supply_slot, held_base = {}, {}
        for t in game.tokens:
            supply_slot[t.name] = len(var_names)
            var_names.append(f"supply({t.name})")
            held_base[t.name] = len(var_names)
            var_names.extend(f"{t.name}[{p}]" for p in range(players))
        order_slot = None
        if m.reverses_order(game):  # `order` is a keyword, so no variable has that name
            order_slot = len(var_names)
            var_names.append("order")
        return cls(players, zone_base, zone_names, zone_decl, zone_owner, zone_count, var_base, var_names,
                   supply_slot, held_base, len(var_names), order_slot)
