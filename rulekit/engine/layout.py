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
    zone_owner: list[int]  # per zone instance; -1 when shared
    var_base: dict[str, int]
    var_names: list[str]
    supply_slot: dict[str, int]
    held_base: dict[str, int]
    nvars: int

    @classmethod
    def of(cls, game: m.Game, players: int) -> Layout:
        zone_base, zone_names, zone_decl, zone_owner = {}, [], [], []
        for z in game.zones:
            zone_base[z.name] = len(zone_names)
            for p in range(players if z.per_player else 1):
                zone_names.append(f"{z.name}[{p}]" if z.per_player else z.name)
                zone_decl.append(z)
                zone_owner.append(p if z.per_player else -1)
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
        return cls(players, zone_base, zone_names, zone_decl, zone_owner, var_base, var_names,
                   supply_slot, held_base, len(var_names))
