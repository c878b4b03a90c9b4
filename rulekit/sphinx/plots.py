"""Simulated statistics of a game (random players, seeded) and their plots (matplotlib, Agg, SVG)."""
from __future__ import annotations

import io
import random
from dataclasses import dataclass, field

from .. import phrases
from ..errors import RuleRuntimeError
from ..pipeline import Spec


@dataclass
class SeatStats:
    players: int
    games: int
    lengths: list[int] = field(default_factory=list)  # decisions of each finished game
    wins: list[int] = field(default_factory=list)  # per seat
    no_winner: int = 0  # finished without a winner
    unfinished: int = 0  # cut off at max_steps
    failed: int = 0  # stopped by a rule that could not be carried out (an endless loop, say)

    @property
    def finished(self) -> int:
        return len(self.lengths)

    def mean_length(self) -> float:
        return sum(self.lengths) / len(self.lengths) if self.lengths else 0.0

    def median_length(self) -> int:
        return sorted(self.lengths)[len(self.lengths) // 2] if self.lengths else 0


def simulate(spec: Spec, games: int, max_steps: int = 1000, seed: int = 0,
             options: dict[str, str] | None = None) -> list[SeatStats]:
    """`games` random games at every player count the spec allows, under the default options
    (or `options`); random players choose uniformly among the legal actions."""
    model = spec.model
    chosen = {**model.default_options(), **(options or {})}
    out = []
    for players in range(model.min_players, model.max_players + 1):
        game = spec.engine(players, chosen)
        stats = SeatStats(players, games, wins=[0] * players)
        rng = random.Random(seed * 7919 + players)
        for i in range(games):
            made = 0
            try:
                state = game.new_initial_state(seed=seed * 1_000_003 + players * 10_007 + i, auto_chance=True)
                while not state.is_terminal() and made < max_steps and state.legal:
                    state.apply_action(rng.choice(state.legal))
                    made += 1
            except RuleRuntimeError:  # a fault of the spec, which its check reports: the game is counted apart
                stats.failed += 1
                continue
            if not state.is_terminal():
                stats.unfinished += 1
                continue
            stats.lengths.append(made)
            if not state.winners:
                stats.no_winner += 1
            for p in state.winners:
                stats.wins[p] += 1
        out.append(stats)
    return out


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    return fig


def _svg(fig) -> str:
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "rulekit", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    return buf.getvalue()


def length_plot(stats: list[SeatStats], title: str) -> str:
    """Histogram of the number of decisions per finished game, one panel row per player count."""
    fig = _figure(7.0, 1.0 + 1.5 * len(stats))
    axes = fig.subplots(len(stats), 1, sharex=True, squeeze=False)[:, 0]
    top = max((max(s.lengths) for s in stats if s.lengths), default=1)
    bins = max(10, min(40, top // 5 or 1))
    for ax, s in zip(axes, stats):
        if s.lengths:
            ax.hist(s.lengths, bins=bins, range=(0, top), color="#2563eb", alpha=0.85)
            ax.axvline(s.mean_length(), color="#b91c1c", linewidth=1.2, linestyle="--")
        ax.set_ylabel(phrases.counted(s.players, "player"), rotation=0, ha="right", va="center")
        ax.spines[["top", "right"]].set_visible(False)
        note = f"mean {s.mean_length():.1f}" + (f", {s.unfinished} cut off" if s.unfinished else "")
        ax.text(0.99, 0.85, note, transform=ax.transAxes, ha="right", fontsize=8, color="#b91c1c")
    axes[-1].set_xlabel("decisions in a game (random players)")
    fig.suptitle(title, fontsize=10)
    return _svg(fig)


def outcome_plot(stats: list[SeatStats], title: str) -> str:
    """Share of games won by each seat (P0 moves first), per player count, with the share of
    games that no one won or that were cut off."""
    fig = _figure(7.0, 3.2)
    ax = fig.subplots()
    most = max(s.players for s in stats)
    width = 0.8 / (most + 1)
    palette = ["#2563eb", "#16a34a", "#ea580c", "#9333ea", "#0891b2", "#ca8a04", "#db2777", "#4b5563"]
    for i, s in enumerate(stats):
        total = max(1, s.games)
        for p in range(s.players):
            ax.bar(i + (p - most / 2) * width, s.wins[p] / total, width, color=palette[p % len(palette)],
                   label=phrases.seat(p) if i == [t.players for t in stats].index(max(t.players for t in stats)) else None)
        rest = (s.no_winner + s.unfinished + s.failed) / total
        failing = any(t.failed for t in stats)
        ax.bar(i + (s.players - most / 2) * width, rest, width, color="#9ca3af", hatch="//",
               label=("no winner, cut off or rule error" if failing else "no winner or cut off") if i == 0 else None)
        ax.axhline(0, color="#111827", linewidth=0.5)
    ax.set_xticks(range(len(stats)), [phrases.counted(s.players, "player") for s in stats])
    ax.set_ylabel("share of games won")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=8, ncol=3, frameon=False)
    fig.suptitle(title, fontsize=10)
    return _svg(fig)
