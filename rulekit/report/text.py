"""The check report for people: problems first, in a compiler's style; then one table of passes per
game; then a summary line per game and one for the run.

On a terminal the table is a rich table; piped, it is plain aligned text that reads the same in a file,
a CI log or a golden file."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..findings import Finding, GameReport
from . import wording as w
from ..phrases import counted

STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
VERDICT_STYLE = {"proven": "green", "exhaustive": "green", "reached": "green", "refuted": "red",
                 "unreachable": "red", "sampled": "blue", "bounded": "blue", "unknown": "magenta",
                 "not reached": "magenta"}
WITNESS_STEPS = 12  # steps shown in the text report; the full trace is in --format json


def render_text(reports: list[GameReport], console: Console, verbose: bool = False,
                seconds: float | None = None, broken: int = 0) -> None:
    """Each game's report, then one line for the run; `broken` specs did not compile (their errors are
    on stderr), and the run is not clean while any is."""
    for r in reports:
        _game(r, console, verbose)
    console.print(run_summary(reports, seconds, broken))


def _game(r: GameReport, out: Console, verbose: bool) -> None:
    out.print(f"[bold]{escape(r.title)}[/] ({escape(r.game)}, {escape(r.spec)}, {_players(r.players)})")
    problems = sorted((f for f in r.findings if w.is_problem(f)), key=w.problem_sort_key)
    open_ = [f for f in problems if f.acknowledged_by is None]
    known = [f for f in problems if f.acknowledged_by is not None]
    for title, group in _groups(open_):
        out.print(f"\n  [bold]{escape(title)}[/]")
        for f, same in _folded(group):
            _problem(f, r, out)
            _same_under(f, same, out, "      ")
    if known:
        out.print("\n  [bold]acknowledged[/] (by an ambiguity or an `expect`; they do not fail the run)")
        for title, group in _groups(known):
            out.print(f"    [dim]{escape(title)}[/]")
            for f, same in _folded(group):
                if verbose:
                    _problem(f, r, out, indent="    ")
                else:
                    out.print(f"      {escape(_headline(f))} [dim](acknowledged by {escape(f.acknowledged_by)})[/]")
                _same_under(f, same, out, "        ")
    _passes(r, out, verbose)
    _state_space(r, out, verbose)
    out.print(f"  {escape(game_summary(r))}\n")


def _groups(findings: list[Finding]) -> list[tuple[str, list[Finding]]]:
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        title = w.PROBLEM_TITLES[f.kind]
        if f.kind == "reachability" and f.verdict == "refuted":
            title = "targets that can never be reached"
        elif f.kind == "quote" and "/quote/number/" in f.id:
            title = "numbers their own quotes write otherwise"
        groups.setdefault(title, []).append(f)
    return list(groups.items())


def _folded(group: list[Finding]) -> list[tuple[Finding, list[Finding]]]:
    """Each finding of `group` with the findings that repeat it under other options (`same_as`, the
    same severity): a reader is told a thing once, and where else it holds."""
    by_id = {f.id: f for f in group}
    repeats: dict[str, list[Finding]] = {}
    first_refuting: dict[tuple, Finding] = {}
    for f in group:
        same = by_id.get(f.details.get("same_as", "")) or _repeated(f, by_id)
        if same is None and f.subject is not None and f.verdict == "refuted":
            # the same property refuted by another method, under the same options: one problem, told once
            key = (f.kind, f.subject, tuple(sorted(f.options.items())))
            same = first_refuting.setdefault(key, f)
        if same is not None and same is not f and same.severity == f.severity:
            repeats.setdefault(same.id, []).append(f)
    folded = {id(f) for fs in repeats.values() for f in fs}
    return [(f, repeats.get(f.id, [])) for f in group if id(f) not in folded]


def told(findings: list[Finding]) -> list[Finding]:
    """The problems the report tells, each once (see `_folded`): what its counts count."""
    problems = sorted((f for f in findings if w.is_problem(f)), key=w.problem_sort_key)
    out = []
    for acknowledged in (False, True):  # told apart, as the report tells them
        side = [f for f in problems if (f.acknowledged_by is not None) == acknowledged]
        out += [f for _, group in _groups(side) for f, _ in _folded(group)]
    return out


def _repeated(f: Finding, by_id: dict) -> Finding | None:
    """The finding under the default options that `f`, a finding under other options, says again (its id
    is the default one's with the options added): the same verdict at the same place, with the same
    witness, or word for word where there is none; for a property refuted, the same property broken."""
    if not f.options:
        return None
    base = by_id.get(f.id.rsplit("/", 1)[0])
    if base is None or base.options or (base.kind, base.verdict, base.location) != (f.kind, f.verdict, f.location):
        return None
    if f.subject is not None and f.verdict == "refuted":
        return base  # the same property broken there too, each option set by its own game (in --format json)
    if base.witness or f.witness:
        return base if _actions(base.witness) == _actions(f.witness) else None
    return base if base.message == f.message else None


def _actions(witness) -> list:
    return [step.get("action") for step in witness or ()]


def _same_under(first: Finding, same: list[Finding], out: Console, pad: str) -> None:
    methods = [f for f in same if f.options == first.options]
    others = [f for f in same if f.options != first.options]
    if methods:
        found = "; ".join(f"{f.method}" + (f" (a witness of {len(f.witness)} steps)" if f.witness else "")
                          for f in methods)
        out.print(f"{pad}[dim]also found by {escape(found)}[/]")
    if others:
        under = "; ".join(w.options_text(f.options) for f in others)
        out.print(f"{pad}[dim]the same under {len(others)} other option set(s): {escape(under)}[/]")


def _headline(f: Finding) -> str:
    where = f"{f.location}: " if f.location else ""
    under = f" [under {w.options_text(f.options)}]" if f.options and f.kind != "ambiguity" else ""
    return f"{where}{f.severity}[{f.kind}]: {f.message}{under}"


def _problem(f: Finding, r: GameReport, out: Console, indent: str = "") -> None:
    style = STYLE[f.severity]
    where = f"{escape(f.location)}: " if f.location else ""
    under = f" [dim]\\[under {escape(w.options_text(f.options))}][/]" if f.options and f.kind != "ambiguity" else ""
    out.print(f"{indent}    {where}[{style}]{f.severity}\\[{f.kind}][/]: {escape(f.message)}{under}")
    pad = indent + "      "
    source = _source_line(f.location, r)
    if source is not None:
        number, text, column = source
        gutter = " " * len(str(number))
        out.print(f"{pad}{number} | {escape(text)}", highlight=False)
        out.print(f"{pad}{gutter} | {' ' * (column - 1)}[{style}]^[/]")
    for i, quote in enumerate(f.quotes[:2]):
        at = f" ({f.related[i]})" if i < len(f.related) else ""
        # a quote finding's quote is the spec's, not the rulebook's: the line above shows it already
        if f.kind != "quote":
            out.print(f"{pad}rulebook{escape(at)}: [italic]“{escape(quote)}”[/]")
    hint = f.hint or w.HINTS.get(f.kind)
    if hint:
        out.print(f"{pad}[dim]hint:[/] {escape(hint)}")
    if f.witness:
        _witness(f.witness, out, pad)


def _source_line(location: str | None, r: GameReport) -> tuple[int, str, int] | None:
    if not location:
        return None
    parts = location.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    path = r.sources.get(parts[0], parts[0])
    try:
        with open(path, encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    line = int(parts[1])
    if not 0 < line <= len(lines):
        return None
    return line, lines[line - 1], max(1, int(parts[2]))


def _witness(steps: list[dict], out: Console, pad: str) -> None:
    decisions = sum(1 for s in steps if s.get("player") != "chance")
    shown = steps[-WITNESS_STEPS:]
    head = f"witness: {counted(len(steps), 'step')} ({counted(decisions, 'decision')})"
    if len(shown) < len(steps):
        head += f", the last {len(shown)} shown; the full trace is in --format json"
    out.print(f"{pad}{head}")
    rows = [("#", "who", "action", "rule and quote", "what changed")]
    for s in shown:
        rule = s.get("rule") or ""
        if s.get("quote"):
            rule = (rule + " " if rule else "") + f"“{_cut(s['quote'], 40)}”"
        rows.append((str(s.get("step", "")), str(s.get("player", "")), _cut(str(s.get("text", "")), 36),
                     rule, _cut(s.get("changed") or "", 60)))
    for line in _aligned(rows):
        out.print(f"{pad}  {escape(line)}", highlight=False)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]


def _state_space(r: GameReport, out: Console, verbose: bool) -> None:
    """How large each explored configuration's state space is: a table, its estimates explained once
    below it; -v gives each configuration's account in full instead."""
    if verbose:
        for line in w.state_space(r):
            out.print(f"  [dim]{escape(line)}[/]")
        return
    rows, notes = w.state_space_table(r)
    if not rows:
        return
    out.print("\n  [bold]state space[/] (per configuration explored; -v says it in full)")
    if out.is_terminal:
        table = Table(*w.STATE_SPACE_HEADER, box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, show_edge=False)
        for row in rows:
            table.add_row(*map(escape, row))
        out.print(table)
    else:
        for line in _aligned([w.STATE_SPACE_HEADER, *rows]):
            out.print(f"    {escape(line)}", highlight=False)
    for note in notes:
        out.print(f"    [dim]{escape(note)}[/]")


# ---- passes ----------------------------------------------------------------------------------------

def pass_rows(r: GameReport) -> list[tuple[str, Finding, list[Finding]]]:
    """One row per property under the default options: (name, strongest finding, the other findings)."""
    rows: dict[str, list[Finding]] = {}
    only_under: dict[str, list[Finding]] = {}  # a property claimed only under other options (`under`)
    for f in r.findings:
        if f.options and f.kind != "ambiguity":
            if f.subject is not None and f.kind in ("invariant", "reachability"):
                only_under.setdefault(f.subject, []).append(f)
            continue
        if f.subject is not None:
            rows.setdefault(f.subject, []).append(f)
        elif f.kind == "deadlock":
            rows.setdefault("no deadlock", []).append(f)
        elif f.kind == "termination":
            rows.setdefault("every play ends", []).append(f)
        elif f.kind == "contradiction" and f.verdict == "proven":
            rows.setdefault("facts consistent", []).append(f)
    for subject, group in only_under.items():
        if subject not in rows:
            rows[f"{subject} (under {w.options_text(group[0].options)})"] = group
    out = []
    for name, group in rows.items():
        best = w.strongest(group)
        out.append((name, best, [f for f in group if f is not best]))
    return out


def _passes(r: GameReport, out: Console, verbose: bool) -> None:
    rows = pass_rows(r)
    if not rows:
        return
    out.print("\n  [bold]what holds[/] (the strongest verdict per property; -v shows every method's)")
    header = ("property", "verdict", "method", "what it rests on")
    body = []
    for name, best, others in rows:
        word = w.verdict_word(best)
        if w.is_problem(best):
            word += " (above)"
        body.append((name, word, best.method, w.rests_on(best), others))
    if out.is_terminal:
        table = Table(*header, box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, show_edge=False)
        for name, word, method, rests, others in body:
            style = VERDICT_STYLE.get(word.split(" (")[0], "")
            table.add_row(escape(name), f"[{style}]{escape(word)}[/]" if style else escape(word), method,
                          escape(rests))
            if verbose:
                for f in others:
                    table.add_row("", f"[dim]{escape(w.verdict_word(f))}[/]", f"[dim]{f.method}[/]",
                                  f"[dim]{escape(f.message)}[/]")
        out.print(table)
    else:
        lines = [header]
        for name, word, method, rests, others in body:
            lines.append((name, word, method, rests))
            if verbose:
                lines += [("", f"  {w.verdict_word(f)}", f.method, f.message) for f in others]
        for line in _aligned(lines):
            out.print(f"    {escape(line)}", highlight=False)
    if verbose:
        rest = [f for f in r.findings if not w.is_problem(f) and f.subject is None
                and f.kind not in ("deadlock",) and not (f.kind == "contradiction" and f.verdict == "proven")]
        if rest:
            out.print("\n  [bold]notes[/]")
            for f in rest:
                under = f" [under {w.options_text(f.options)}]" if f.options and f.kind != "ambiguity" else ""
                out.print(f"    [dim]{f.kind}, {f.verdict}, {f.method}:[/] {escape(f.message + under)}")


# ---- summaries -------------------------------------------------------------------------------------

def game_summary(r: GameReport) -> str:
    """What was checked, in one line."""
    parts = []
    book = r.stats.get("rulebook")
    if book:
        parts.append(f"{book['sentences'] - book['unaccounted']} of {book['sentences']} rulebook sentences "
                     f"accounted for")
        parts.append(f"{book['quotes'] - book['not_verbatim']} of {book['quotes']} quotes verbatim")
    default = [f for f in r.findings if not (f.options and f.kind != "ambiguity")]
    contradictions = [f for f in default if f.kind == "contradiction" and f.verdict == "refuted"]
    consistent = [f for f in default if f.kind == "contradiction" and f.verdict == "proven"]
    if contradictions:
        parts.append(f"{len(contradictions)} contradiction(s) in the declared numbers")
    elif consistent:
        parts.append("facts consistent")
    rows = pass_rows(r)
    invariants = [best for _, best, _ in rows if best.kind == "invariant"]
    if invariants:
        words = [w.verdict_word(f) for f in invariants]
        parts.append("invariants " + " / ".join(f"{words.count(k)} {k}" for k in
                                                ("proven", "exhaustive", "sampled", "refuted"))
                     + (f" / {words.count('unknown') + words.count('bounded')} undecided"
                        if words.count("unknown") + words.count("bounded") else ""))
    targets = [best for _, best, _ in rows if best.kind == "reachability"]
    if targets:
        parts.append(f"{sum(1 for f in targets if f.verdict == 'proven')} of {len(targets)} targets reached")
    examples = [f for f in r.findings if f.kind == "example"]
    if examples:
        parts.append(f"{sum(1 for f in examples if f.verdict == 'proven')} of {len(examples)} rulebook examples "
                     "play out")
    ambiguities = [f for f in r.findings if f.kind == "ambiguity" and f.id.count("/") == 2]
    parts.append(f"{len(ambiguities)} {'ambiguity' if len(ambiguities) == 1 else 'ambiguities'} declared")
    errors, warnings, known = _counts(r)
    parts.append(f"{errors} error(s), {warnings} warning(s)" + (f", {known} acknowledged" if known else ""))
    seconds = sum(r.stats.get("timings", {}).values())
    if seconds:
        parts.append(f"{seconds:.1f} s")
    return "summary: " + "; ".join(parts)


def _counts(r: GameReport) -> tuple[int, int, int]:
    """Unacknowledged errors and warnings, and acknowledged problems, as the report tells them (each once)."""
    shown = told(r.findings)
    return (sum(1 for f in shown if f.fails),
            sum(1 for f in shown if f.severity == "warning" and f.acknowledged_by is None),
            sum(1 for f in shown if f.acknowledged_by is not None))


def run_summary(reports: list[GameReport], seconds: float | None, broken: int = 0) -> str:
    errors, warnings, known = (sum(c) for c in zip(*(_counts(r) for r in reports))) if reports else (0, 0, 0)
    took = f" in {seconds:.1f} s" if seconds is not None else ""
    verdict = "clean" if not errors and not broken else "failed"
    unchecked = f"{broken} spec(s) could not be checked (see the errors above); " if broken else ""
    return (f"{len(reports)} spec(s) checked{took}: {verdict}; {unchecked}{errors} unacknowledged error(s), "
            f"{warnings} warning(s), {known} acknowledged")


def _players(counts: list[int]) -> str:
    if counts[0] == counts[-1]:
        return f"{counts[0]} player{'' if counts[0] == 1 else 's'}"
    return f"{counts[0]}-{counts[-1]} players"
