"""How far the exact symbolic relation (`verify.fragment`) reaches into each bundled game: for every
player count at the default options, where building the relation stops; how many slots it lays out
and in how long; and which pieces of the game it translates on their own (each property, each procedure
with its parameters at their first values, and each action of every decision with its binders at
their first values) and in how long (the slowest player
count), the triggers set aside so that the pieces behind them are reached. A piece refused for a
`local` reads a value bound around its decision (a loop over the players, say), which only the whole
flow gives. Run by hand:

    python benchmarks/fragment_reach.py [GAMES]
"""
from __future__ import annotations

import dataclasses
import sys
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from rulekit import model as m
from rulekit import resources
from rulekit.pipeline import Spec
from rulekit.verify import Unsupported, fragment


def _stop(config) -> str:
    try:
        fragment.build(config)
    except Unsupported as exc:
        return str(exc)
    return "builds"


def _construct(reason: str) -> str:
    """What a refusal names, without its place."""
    return reason.split(" at ")[0]


def _pieces(config) -> tuple[int, float, float, int, int, Counter]:
    """(slots, seconds to lay them out, seconds to translate the pieces, pieces translated, pieces in all,
    refusals by construct)."""
    bare = dataclasses.replace(config, game=dataclasses.replace(config.game, triggers=()))
    t = time.perf_counter()
    builder = fragment.Builder(bare)
    layout = time.perf_counter() - t
    state = [("s", i) for i in range(len(builder.slots))]
    refused: Counter = Counter()
    done = total = 0
    work = [("property", p.expr) for p in bare.game.properties]
    work += [("procedure", p) for p in bare.game.procedures]
    work += [("action", a) for body in m.bodies(bare.game) for c in m.walk(body) if isinstance(c, m.Choose)
             for a in c.actions]
    t = time.perf_counter()
    for kind, piece in work:
        total += 1
        try:
            if kind == "property":
                builder.ev(piece, fragment.Store(list(state)), {})
            elif kind == "procedure":
                env = {p.slot: _first_value(builder, p.type) for p in piece.params}
                builder.run(piece.body, fragment.Store(list(state)), env)
            else:
                env: dict = {}
                for b in piece.binders:
                    values = builder.domain(b.iter, fragment.Store(list(state)), env)
                    if not values:
                        raise Unsupported("an empty choice")
                    env[b.slot] = values[0][0]
                builder.run(piece.body, fragment.Store(list(state)), env)
            done += 1
        except Unsupported as exc:
            refused[_construct(str(exc))] += 1
    return len(builder.slots), layout, time.perf_counter() - t, done, total, refused


def _first_value(builder: fragment.Builder, t: m.Type):
    """The first value of a parameter's type, as a term."""
    if t.kind in ("int", "bool", "player", "card", "enum", "pos"):
        return ("b", False) if t.kind == "bool" else ("c", 0)
    raise Unsupported(f"a parameter of type {t}")


def main(games: list[str]) -> None:
    table = Table(title="the exact symbolic relation on the bundled games (default options)")
    for column in ("game", "players", "building stops at", "slots", "layout s", "pieces s", "pieces", "pieces refused for"):
        table.add_column(column, justify="right" if column in ("slots", "layout s", "pieces s", "pieces") else "left")
    for name in games:
        spec = Spec.find(name)
        model = spec.model
        rows: dict = {}  # player counts with the same answers share a row
        for players in range(model.min_players, model.max_players + 1):
            config = spec.config(players)
            stop = _stop(config).split(" (")[0]
            try:
                slots, layout, translate, done, total, refused = _pieces(config)
            except Unsupported as exc:
                rows.setdefault((stop, "-", str(exc)), []).append((players, "-", 0.0, 0.0))
                continue
            why = "; ".join(f"{n} x {what}" for what, n in refused.most_common())
            rows.setdefault((stop, f"{done}/{total}", why), []).append((players, str(slots), layout, translate))
        for (stop, pieces, why), counts in rows.items():
            players = ", ".join(str(p) for p, *_ in counts)
            slots = ", ".join(s for _, s, _, _ in counts)
            layout, translate = max(c[2] for c in counts), max(c[3] for c in counts)
            table.add_row(name, players, stop, slots, f"{layout:.3f}", f"{translate:.2f}", pieces, why)
    Console(width=200).print(table)


if __name__ == "__main__":
    main(sys.argv[1:] or resources.bundled_games())
