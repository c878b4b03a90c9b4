"""A simulation's results for people: tables and text histograms (rich), and histogram plots (matplotlib)."""
from __future__ import annotations

import math
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .errors import RulekitError
from .phrases import counted
from .simulation import Simulation

BINS = 12  # rows of a text histogram, when the values are more than that
BAR = 40  # characters of the longest bar


def render_text(sim: Simulation, out: Console) -> None:
    data, game = sim.to_dict(), sim.game
    out.print(f"[bold]{game.model.title}[/], {counted(data['players'], 'player')}, {counted(data['games'], 'game')}, "
              f"seed {data['seed']}")
    table = Table("measure", "games", "mean", "std", "min", "median", "max")
    rows = [("steps (with chance)", data["length"]), ("decisions", data["decisions"])]
    if "rounds" in data:
        rows.append(("rounds", data["rounds"]))
    for name, entry in data["stats"].items():
        rows.append((f"{name} (end of game)", entry["per_game"]))
        if "per_round" in entry:
            rows.append((f"{name} (end of round)", entry["per_round"]))
    for label, s in rows:
        table.add_row(label, str(s["count"]), *(_number(s[k]) for k in ("mean", "std", "min", "median", "max")))
    out.print(table)
    seats = Table("seat", "wins", "win rate")
    for p, (wins, rate) in enumerate(zip(data["wins_per_seat"], data["win_rate_per_seat"])):
        seats.add_row(game.player_name(p), str(wins), f"{rate:.1%}")
    won = sum(data["wins_per_seat"])
    if won > data["ends"].get("won", won):
        seats.caption = "a win shared by several seats counts for each of them, so the rates add up to more than 100 %"
    out.print(seats)
    ends = Table("end", "games", "share")
    for end, count in data["ends"].items():
        if count:
            ends.add_row(end, str(count), f"{count / data['games']:.1%}")
    out.print(ends)
    for name, entry in data["stats"].items():
        for key, when in (("per_game", "at the end of each game"), ("per_round", "at the end of each round")):
            if key in entry and entry[key]["count"]:
                out.print(histogram_table(f"{name} = {entry['expression']}, {when}", entry[key]["histogram"]))
        if "errors" in entry:
            e = entry["errors"]
            out.print(f"[yellow]{name} could not be evaluated {e['count']} time(s); first, in game {e['first_game']}: "
                      f"{e['first_message']}[/]", markup=True)
    if data["ends"]["cut off"]:
        out.print(f"[yellow]{data['ends']['cut off']} game(s) had not ended after {data['max_steps']} decisions[/]")
    if "first_rule_error" in data:
        e = data["first_rule_error"]
        out.print(f"[red]a rule could not be carried out in {data['ends']['rule error']} game(s); first, in game "
                  f"{e['game']}: {e['message']}[/]", markup=True)


def _number(x) -> str:
    if x is None:
        return "-"
    return f"{x:.2f}" if isinstance(x, float) and not x.is_integer() else str(int(x))


def bins(histogram: dict[str, int]) -> list[tuple[str, int]]:
    """(label, count) rows: one per value, or at most BINS ranges of equal width when there are more
    values. Values that come in steps (scores in fives) are binned in whole steps, so that every range
    holds as many of the values that can occur: ranges of 9 over multiples of 5 would hold one or two."""
    values = sorted((int(k), v) for k, v in histogram.items())
    if len(values) <= BINS:
        return [(str(k), v) for k, v in values]
    low, high = values[0][0], values[-1][0]
    step = math.gcd(*(k - low for k, _ in values))
    width = step * -(-((high - low) // step + 1) // BINS)
    rows = []
    for start in range(low, high + 1, width):
        end = min(high, start + width - step)
        rows.append((f"{start}-{end}" if end > start else str(start), sum(v for k, v in values if start <= k <= end)))
    return rows


def histogram_table(title: str, histogram: dict[str, int]) -> Table:
    rows = bins(histogram)
    total = sum(v for _, v in rows) or 1
    most = max((v for _, v in rows), default=1) or 1
    table = Table("value", "count", "share", "", title=title, title_justify="left")
    for label, count in rows:
        table.add_row(label, str(count), f"{count / total:.1%}", "█" * max(1 if count else 0, round(BAR * count / most)))
    return table


def plot(sim: Simulation, path: str) -> None:
    """Histograms of the game length and of every statistic, in one PNG (matplotlib, Agg)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise RulekitError("--plot needs matplotlib: pip install \"rulekit[docs]\" (or pip install matplotlib)") from None
    data = sim.to_dict()
    panels = [("decisions per game", data["decisions"]["histogram"], "games")]
    for name, entry in data["stats"].items():
        panels.append((f"{name} = {entry['expression']}\n(end of game)", entry["per_game"]["histogram"], "games"))
        if "per_round" in entry:
            panels.append((f"{name} = {entry['expression']}\n(end of round)", entry["per_round"]["histogram"], "rounds"))
    columns = min(3, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
    for ax, (title, histogram, unit) in zip(axes.flat, panels):
        values = sorted((int(k), v) for k, v in histogram.items())
        if values:
            ax.bar([k for k, _ in values], [v for _, v in values], width=1.0 if len(values) > 1 else 0.8,
                   color="#3b6ea5", edgecolor="white", linewidth=0.3)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel(unit, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(f"{sim.game.model.title}: {counted(data['games'], 'random game')}, {counted(data['players'], 'player')}, seed {data['seed']}",
                 fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(Path(path), format="png", dpi=110)
    except OSError as exc:
        raise RulekitError(f"--plot: cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
