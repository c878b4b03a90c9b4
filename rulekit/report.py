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


def to_sarif(reports: list[GameReport], version: str) -> str:
    """SARIF 2.1.0, for code-scanning tools: one result per finding of error or warning severity."""
    rules, results = {}, []
    level = {"error": "error", "warning": "warning", "info": "note"}
    for r in reports:
        for f in r.findings:
            if f.severity == "info":
                continue
            rule = f"{f.kind}/{f.method}"
            rules.setdefault(rule, {"id": rule, "name": f.kind, "shortDescription": {"text": f"{f.kind} ({f.method})"}})
            result = {"ruleId": rule, "level": level[f.severity], "message": {"text": f.message},
                      "properties": {"id": f.id, "game": f.game, "verdict": f.verdict, "options": f.options,
                                     "acknowledged_by": f.acknowledged_by}}
            if f.acknowledged_by:
                result["suppressions"] = [{"kind": "inSource", "justification": f.acknowledged_by}]
            loc = _sarif_location(f.location or r.spec)
            if loc:
                result["locations"] = [loc]
            results.append(result)
    run = {"tool": {"driver": {"name": "rulekit", "version": version, "informationUri": "https://github.com/",
                               "rules": list(rules.values())}}, "results": results}
    return json.dumps({"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]},
                      indent=2, ensure_ascii=False)


def _sarif_location(where: str) -> dict | None:
    parts = where.rsplit(":", 2)
    region = {}
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        where, region = parts[0], {"startLine": int(parts[1]), "startColumn": max(1, int(parts[2]))}
    loc = {"physicalLocation": {"artifactLocation": {"uri": where}}}
    if region:
        loc["physicalLocation"]["region"] = region
    return loc


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
