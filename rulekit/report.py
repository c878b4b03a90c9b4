"""Findings for people (grouped, coloured on a terminal) and for machines (JSON)."""
from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from .findings import KINDS, GameReport

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_VERDICT_STYLE = {"proven": "green", "refuted": "red", "bounded": "blue", "unknown": "magenta"}


def to_json(reports: list[GameReport], version: str) -> str:
    return json.dumps({"rulekit": version, "games": [r.to_json() for r in reports]}, indent=2, ensure_ascii=False)


def render_text(reports: list[GameReport], console: Console, verbose: bool = False) -> None:
    for r in reports:
        console.print(f"[bold]{escape(r.title)}[/] ({escape(r.game)}, {escape(r.spec)}, "
                      f"{r.players[0]}-{r.players[-1]} players)")
        for kind in KINDS:
            group = [f for f in r.findings if f.kind == kind]
            if not group:
                continue
            console.print(f"  [bold]{kind}[/] ({len(group)})")
            for f in sorted(group, key=lambda f: ("error", "warning", "info").index(f.severity)):
                if f.severity == "info" and not verbose and kind not in ("invariant", "reachability"):
                    continue
                ack = f" [dim](acknowledged: {escape(f.acknowledged_by)})[/]" if f.acknowledged_by and f.severity != "info" else ""
                options = "".join(f" [dim]{escape(k)}={escape(v)}[/]" for k, v in f.options.items()) if f.kind != "ambiguity" else ""
                console.print(f"    [{_STYLE[f.severity]}]{f.severity:7}[/] [{_VERDICT_STYLE[f.verdict]}]{f.verdict:8}[/] "
                              f"[dim]{f.method}[/] {escape(f.message)}{options}{ack}")
                if f.location and (f.severity != "info" or verbose):
                    console.print(f"             [dim]at {escape(f.location)}[/]")
                if f.quotes and f.severity != "info":
                    for quote in f.quotes[:2]:
                        console.print(f"             [dim]“{escape(quote)}”[/]")
                if f.witness and (f.severity != "info" or verbose):
                    decisions = [w for w in f.witness if w["player"] != "chance"]
                    console.print(f"             [dim]witness: {len(f.witness)} steps ({len(decisions)} decisions); "
                                  "full trace in --format json[/]")
        counts = {s: sum(1 for f in r.findings if f.severity == s) for s in ("error", "warning", "info")}
        failing = sum(1 for f in r.findings if f.fails)
        console.print(f"  [bold]{counts['error']} error(s)[/] ({failing} unacknowledged), "
                      f"{counts['warning']} warning(s), {counts['info']} note(s)\n")
