"""The directives: a game's overview, rules, ambiguity register, check verdicts, turn structure and
statistics, each rendered from the game's model; and an index of the ambiguities of many games.

Every piece of text that comes from a spec or a rulebook enters the document as a docutils Text
node, never as markup, so that the writers escape it.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .. import model as m
from .. import resources
from ..checking import PlayBounds, check_spec
from ..errors import RulekitError, SpecError
from ..pipeline import Spec
from ..report import text as report_text
from ..report import wording
from .bounds import bound_lines
from .diagram import turn_structure_svg
from .english import English, Line, Ref, humanize, language, translation
from .playbook import how_to_play
from .nodes import rulekit_details, rulekit_svg
from .plots import length_plot, outcome_plot, simulate
from .wording import lower_first, upper_first, walk_expr
from ..phrases import counted

logger = logging.getLogger(__name__)

SECTIONS = ("howto", "overview", "turns", "rules", "ambiguities", "checks", "statistics")

_CACHE: dict[tuple, object] = {}


def _cached(key: tuple, make):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


# ---- small builders ----------------------------------------------------------------------------

def text(value) -> nodes.Text:
    return nodes.Text(str(value))


NO_SMARTQUOTES = {"support_smartquotes": False}  # quotes are verbatim: no typographic quote marks


def para(*children, classes=()) -> nodes.paragraph:
    p = nodes.paragraph(classes=list(classes), **NO_SMARTQUOTES)
    for c in children:
        p += text(c) if isinstance(c, str) else c
    return p


def strong(value: str) -> nodes.strong:
    return nodes.strong(text=str(value))


def literal(value: str) -> nodes.literal:
    return nodes.literal(text=str(value))


def table(headers: list[str], rows: list[list], classes=(), widths=None) -> nodes.table:
    """A table; each cell is a string, a node, or a list of nodes."""
    tbl = nodes.table(classes=["rulekit-table", *classes], **NO_SMARTQUOTES)
    group = nodes.tgroup(cols=len(headers))
    tbl += group
    for w in widths or [1] * len(headers):
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    row = nodes.row()
    for h in headers:
        row += nodes.entry("", para(h))
    head += row
    group += head
    body = nodes.tbody()
    for r in rows:
        row = nodes.row(classes=list(r.classes) if hasattr(r, "classes") else [])
        for cell in r:
            entry = nodes.entry()
            if isinstance(cell, list):
                for c in cell:
                    entry += c
            elif isinstance(cell, nodes.Node):
                entry += cell if not isinstance(cell, nodes.TextElement) or isinstance(cell, nodes.paragraph) \
                    else para(cell)
            else:
                entry += para(cell)
            row += entry
        body += row
    group += body
    return tbl


class _Row(list):
    classes: tuple = ()


def row(cells, classes=()) -> _Row:
    r = _Row(cells)
    r.classes = tuple(classes)
    return r


def details(summary: str, *children) -> rulekit_details:
    d = rulekit_details(summary=summary, **NO_SMARTQUOTES)
    for c in children:
        d += c
    return d


def quote_nodes(quotes) -> list[nodes.Node]:
    """Each quote as a block quote of verbatim rulebook text, with its translation when it has one."""
    out = []
    for q in quotes or ():
        quote_text = getattr(q, "text", q)
        lang = language(q)
        block = nodes.block_quote(classes=["rulekit-quote", *([f"lang-{lang}"] if lang else [])], **NO_SMARTQUOTES)
        block += para(str(quote_text), classes=["rulekit-quote-text"])
        shown = translation(q)
        if shown:
            block += para(strong("Our translation: "), shown, classes=["rulekit-translation"])
        out.append(block)
    return out


def slug(*parts: str) -> str:
    return nodes.make_id("-".join(["rk", *parts]))


# ---- the game on a page --------------------------------------------------------------------------

class GamePage:
    """What the directives of one game share: the spec, its model, anchors and expensive results."""

    def __init__(self, directive: SphinxDirective, name: str):
        self.directive = directive
        self.env = directive.env
        self.config = directive.config
        self.spec = _find(directive, name)
        self.model: m.Game = self.spec.model  # raises SpecError
        self.english = English(self.model)
        for path in (self.spec.path, self.spec.checks_path, self.spec.rulebook_path):
            if path is not None and Path(path).is_file():
                self.env.note_dependency(str(Path(path).resolve()))

    # anchors
    def anchor(self, kind: str, name: str = "") -> str:
        return slug(self.model.name, kind, name) if name else slug(self.model.name, kind)

    def section(self, title: str, kind: str, name: str = "") -> nodes.section:
        sec = nodes.section(ids=[self.anchor(kind, name)], **NO_SMARTQUOTES)
        sec += nodes.title(text=title)
        return sec

    def label(self, kind: str, name: str, title: str, node_id: str) -> None:
        std = self.env.get_domain("std")
        std.note_hyperlink_target(f"rulekit-{self.model.name}-{kind}-{name}".lower(), self.env.docname,
                                  node_id, title)

    # inline parts
    def parts(self, parts) -> list[nodes.Node]:
        out = []
        for p in parts:
            if isinstance(p, Ref):
                kind, name = p.target
                if kind in ("procedure", "define", "ambiguity"):
                    ref = nodes.reference("", "", internal=True, refid=self.anchor(kind, name),
                                          classes=[f"rulekit-{kind}-ref"])
                    ref += text(p.text)
                    out.append(ref)
                elif kind == "reading":  # an option of an ambiguity: emphasized, linked to its entry
                    ref = nodes.reference("", "", internal=True, refid=self.anchor("ambiguity", name),
                                          classes=["rulekit-reading-ref"])
                    ref += nodes.emphasis(text=p.text)
                    out.append(ref)
                else:
                    out.append(nodes.emphasis(text=p.text))
            else:
                out.append(text(p))
        return out

    # expensive results, cached per spec version and settings
    def report(self):
        bounds = check_bounds(self.config.rulekit_check_bounds)
        key = ("check", str(self.spec.path.resolve()), self.spec.digest, tuple(sorted(dataclasses.asdict(bounds).items())))
        return _cached(key, lambda: check_spec(self.spec, bounds)), bounds

    def statistics(self):
        c = self.config
        key = self._stats_key()
        return _cached(key, lambda: simulate(self.spec, c.rulekit_simulation_games, c.rulekit_simulation_max_steps,
                                             c.rulekit_simulation_seed))

    def _stats_key(self) -> tuple:
        c = self.config
        return ("simulate", str(self.spec.path.resolve()), self.spec.digest, c.rulekit_simulation_games,
               c.rulekit_simulation_max_steps, c.rulekit_simulation_seed)

    def source_excerpt(self, node) -> nodes.Node | None:
        """The spec's own text of a declaration, highlighted, in a block the reader can open."""
        span = getattr(node, "span", None)
        if span is None or not getattr(span, "end_line", 0):
            return None
        lines = self.spec.text.splitlines()[span.line - 1: span.end_line]
        if not lines:
            return None
        block = nodes.literal_block("\n".join(lines), "\n".join(lines), language="rulekit",
                                    classes=["rulekit-source"])
        return details(f"Spec source ({self.spec_name}, line {span.line})", block)

    @property
    def spec_name(self) -> str:
        """The spec as a reader knows it: its path relative to the folder of specs, never the machine's."""
        return spec_name(self.spec)

    def local(self, text: str) -> str:
        """A message with the machine's paths of the spec and its files replaced by their names."""
        for path in (self.spec.path, self.spec.checks_path, self.spec.rulebook_path):
            if path is None:
                continue
            name = f"{Path(path).parent.name}/{Path(path).name}"
            for shown in sorted({str(path), str(Path(path).resolve()), _relative(path)}, key=len, reverse=True):
                text = text.replace(shown, name)
        text = text.replace(str(self.spec.display_path), self.spec_name)
        return _ABSOLUTE.sub(lambda found: "/".join(found.group(0).split("/")[-2:]), text)

    # ---- how to play
    def how_to_play(self) -> list[nodes.Node]:
        summary = how_to_play(self.model, self.english)
        out: list[nodes.Node] = [para("A summary generated from the spec; every rule, beside the rulebook's words, "
                                      "is under Rules below.", classes=["rulekit-muted"])]
        for title, sentences in summary.sections():
            if not sentences:
                continue
            out.append(para(strong(title)))
            items = nodes.bullet_list(classes=["rulekit-howto"])
            for sentence in sentences:
                li = nodes.list_item()
                li += para(*self.parts(sentence))
                items += li
            out.append(items)
        return out

    # ---- overview
    def overview(self) -> list[nodes.Node]:
        g = self.model
        out: list[nodes.Node] = []
        win, lose = g.payoff
        players = str(g.min_players) if g.min_players == g.max_players else f"{g.min_players} to {g.max_players}"
        out.append(para(strong("Players: "), f"{players}. ",
                        strong("Turn order: "), f"{humanize(g.order)}"
                        f"{' at the start (the rules can reverse it)' if m.reverses_order(g) else ''}. ",
                        strong("Result: "), f"a winner scores {win:+d}, every other player {lose:+d}. ",
                        strong("Rulebook: "), f"{g.rulebook} (quoted verbatim in the spec ",
                        literal(self.spec_name), ")."))
        out += quote_nodes(g.quotes)
        counts = self._component_counts()
        rows = []
        players = list(range(g.min_players, g.max_players + 1))
        for c in g.components:
            per = [counts.get(p, {}).get(c.name) for p in players]
            if len(set(per)) == 1:
                count = str(per[0]) if per[0] is not None else self.english.text(c.count)
            else:
                count = ", ".join(f"{n} with {counted(p, 'player')}" for p, n in zip(players, per))
            attrs = ", ".join(f"{humanize(k)}: {self.english.text(v)}" for k, v in c.attrs)
            rows.append([c.display, c.category, count, attrs, quote_nodes(c.quotes)])
        if rows:
            total = [counts.get(p) for p in players]
            out.append(table(["Component", "Kind", "Count", "Attributes", "Rulebook"], rows,
                             classes=["rulekit-components"], widths=[3, 1, 2, 4, 5]))
            sums = {p: sum(v.values()) for p, v in counts.items() if v}
            if sums:
                shown = ", ".join(f"{counted(n, 'component')} with {counted(p, 'player')}" for p, n in sums.items()) \
                    if len(set(sums.values())) > 1 else counted(next(iter(sums.values())), "component")
                out.append(para(f"In all: {shown}." if total else ""))
        if g.tokens:
            out.append(table(["Token", "Count", "Cap", "Rulebook"],
                             [[t.display, self.english.text(t.count),
                               self.english.text(t.cap) if t.cap is not None else "none", quote_nodes(t.quotes)]
                              for t in g.tokens], classes=["rulekit-tokens"], widths=[3, 3, 1, 5]))
        if g.facts:
            out.append(table(["Number", "Value", "Rulebook"],
                             [[getattr(f, "phrase", None) or humanize(f.name), self.english.text(f.value),
                               quote_nodes(f.quotes)] for f in g.facts],
                             classes=["rulekit-facts"], widths=[3, 2, 6]))
        if g.zones:
            visible = {"hidden": "nobody", "owner": "its owner", "public": "everyone"}
            out.append(table(["Zone", "Each player has one", "Kind", "Seen by", "Rulebook"],
                             [[self.english.zone_title(z), "yes" if z.per_player else "no",
                               "a stack (ordered)" if z.shape == "stack" else "a set (unordered)",
                               visible.get(z.visibility, z.visibility), quote_nodes(z.quotes)] for z in g.zones],
                             classes=["rulekit-zones"], widths=[2, 1, 2, 2, 5]))
        for b in getattr(g, "boards", ()) or ():
            said = self.english.board_phrase(b)
            out.append(para(strong("Board: "), f"{upper_first(said)}, {self.english.text(b.rows)} rows by "
                            f"{self.english.text(b.columns)} columns; its places are called spaces."))
            out += quote_nodes(b.quotes)
        others = self._other_declarations()
        if others:
            out.append(para(strong("Other declarations: ")))
            items = nodes.bullet_list()
            for label, item in others:
                li = nodes.list_item()
                shown = self.english.generic(item)
                li += para(strong(f"{label.replace(' decl', '')} {getattr(item, 'name', '')}".strip() + ": "),
                           shown.split(" (", 1)[1].rstrip(")") if " (" in shown else shown)
                li += quote_nodes(getattr(item, "quotes", ()))
                items += li
            out.append(items)
        setup = self.setup_lines()
        if setup:
            sec = self.section("Set-up", "setup")
            sec += para("What happens before the first turn, from the spec's flow (each procedure it carries out "
                        "is spelled out under it):")
            sec += self.rule_table(setup)
            out.append(sec)
        return out

    def _component_counts(self) -> dict[int, dict[str, int]]:
        out = {}
        for p in range(self.model.min_players, self.model.max_players + 1):
            try:
                out[p] = _cached(("counts", str(self.spec.path.resolve()), self.spec.digest, p),
                                 lambda p=p: self.spec.engine(p).component_counts)
            except RulekitError:
                out[p] = {}
        return out

    def _other_declarations(self):
        """Declarations of kinds this page does not lay out yet (the language grows): listed generically."""
        known = {"enums", "attrs", "components", "facts", "claims", "tokens", "zones", "vars", "defines", "boards",
                 "procedures", "ambiguities", "unmodelled", "properties", "expected", "examples", "quotes",
                 "triggers"}
        out = []
        for f in dataclasses.fields(self.model):
            value = getattr(self.model, f.name)
            if f.name in known or not isinstance(value, tuple):
                continue
            for item in value:
                if dataclasses.is_dataclass(item):
                    out.append((humanize(type(item).__name__).lower(), item))
        return out

    def setup_lines(self) -> list[Line]:
        steps = []
        for s in self.model.flow.body:
            if isinstance(s, (m.Rounds, m.Turns)):
                break
            steps.append(s)
        lines = self.english.block(steps)
        procs = {p.name: p for p in self.model.procedures}

        def expand(ls, depth=0):
            for line in ls:
                expand(line.children, depth)
                target = next((p.target[1] for p in line.parts if isinstance(p, Ref) and p.target[0] == "procedure"),
                              None)
                if target in procs and depth < 3 and not line.children:
                    line.children = self.english.procedure(procs[target])
                    line.quotes = tuple(line.quotes) + tuple(procs[target].quotes)
                    expand(line.children, depth + 1)
        expand(lines)
        return lines

    # ---- rules
    def rule_table(self, lines: list[Line], lead_quotes=()) -> nodes.table:
        rows = []
        if lead_quotes:
            rows.append(row([para(nodes.emphasis(text="(all of the steps below)")), quote_nodes(lead_quotes)]))

        def add(ls, depth):
            for line in ls:
                cell = para(*self.parts(line.parts), classes=[f"rulekit-depth-{min(depth, 8)}"])
                rows.append(row([cell, quote_nodes(line.quotes)],
                                classes=["rulekit-quoted"] if line.quotes else ()))
                add(line.children, depth + 1)
        add(lines, 0)
        return table(["Rule, as the spec has it", "Rulebook"], rows, classes=["rulekit-rules"], widths=[11, 9])

    def rules(self) -> list[nodes.Node]:
        g = self.model
        out: list[nodes.Node] = [para(
            "The rules below are generated from the spec, statement by statement; beside each is the rulebook "
            "text it formalizes, verbatim. Underlined names link to the procedure or definition they use; ",
            nodes.emphasis(text="under the reading X"),
            " marks a step that depends on how an ambiguity is read; it links to the ambiguity in the register. "
            "Bookkeeping that the spec keeps for the engine is left out.")]
        flow = self.section("How a game goes", "flow")
        flow += self.rule_table(self.english.block(g.flow.body), g.flow.quotes)
        excerpt = self.source_excerpt(g.flow)
        if excerpt is not None:
            flow += excerpt
        out.append(flow)
        for p in g.procedures:
            if getattr(p, "bookkeeping", False):
                continue  # kept for the engine; a player need not read it
            sec = self.section(self.english.procedure_title(p), "procedure", p.name)
            sec += self.rule_table(self.english.procedure(p), p.quotes)
            excerpt = self.source_excerpt(p)
            if excerpt is not None:
                sec += excerpt
            out.append(sec)
        for t in getattr(g, "triggers", ()) or ():
            sec = self.section(f"Trigger: {humanize(getattr(t, 'name', 'trigger'))}", "trigger",
                               getattr(t, "name", ""))
            head = [("Once in a game, as" if getattr(t, "once", False) else "As"), " soon as ",
                    *self.english.cond(getattr(t, "cond", None)), ":"]
            line = Line(head, tuple(getattr(t, "quotes", ())), self.english.block(getattr(t, "body", ())))
            if getattr(t, "description", None):
                sec += para(t.description)
            sec += self.rule_table([line])
            out.append(sec)
        if g.defines:
            sec = self.section("Definitions", "definitions")
            for d in g.defines:
                item = nodes.container(ids=[self.anchor("define", d.name)], classes=["rulekit-define"])
                item += para(*self.parts(self.english.define(d).parts))
                item += quote_nodes(d.quotes)
                sec += item
            out.append(sec)
        if g.claims:
            sec = self.section("Claims about the set-up", "claims")
            sec += table(["Claim", "Says", "Rulebook"],
                         [[humanize(c.name), para(*self.parts(self.english.expr(c.expr))), quote_nodes(c.quotes)]
                          for c in g.claims], classes=["rulekit-claims"], widths=[2, 5, 5])
            out.append(sec)
        if g.examples:
            out.append(self.examples())
        if g.unmodelled:
            sec = self.section("Rulebook text the spec leaves out", "unmodelled")
            sec += table(["Rulebook", "Why it is not a rule"],
                         [[quote_nodes(u.quotes), u.reason] for u in g.unmodelled],
                         classes=["rulekit-unmodelled"], widths=[6, 4])
            out.append(sec)
        return out

    def examples(self) -> nodes.section:
        """The rulebook's examples the checks replay: what each shows, from which steps, to which end."""
        sec = self.section("Examples from the rulebook", "examples")
        sec += para("Each example is replayed by the checks from the start of a game, step by step (the steps "
                    "as the engine names them), and must end where the rulebook says.")
        sec += table(["Example", "Played", "Ends with", "Rulebook"],
                     [[[para(strong(upper_first(humanize(x.name)))), para(x.description or "")], self.example_play(x),
                       para(*self.parts(self.english.cond(x.expr))), quote_nodes(x.quotes)]
                      for x in self.model.examples], classes=["rulekit-examples"], widths=[3, 4, 4, 4])
        return sec

    def example_play(self, x: m.Example) -> list[nodes.Node]:
        under = [self.english.reading(m.OptionIs(a, o)) for a, o in x.under]
        head = para(f"With {counted(x.players, 'player')}", *([" under the reading "] if under else []),
                    *self.parts(self.english.listing([[r] for r in under], "and")), ".")
        steps = nodes.enumerated_list(classes=["rulekit-example-steps"])
        for step in x.steps:
            item = nodes.list_item()
            item += para(literal(step[0] if isinstance(step, tuple) else step))
            steps += item
        return [head, details(counted(len(x.steps), "step"), steps)]

    # ---- ambiguities
    def ambiguities(self, with_analysis: bool = True) -> list[nodes.Node]:
        g = self.model
        if not g.ambiguities:
            return [para("The spec declares no ambiguity.")]
        report = self.report()[0] if with_analysis else None
        uses = self._option_uses()
        out: list[nodes.Node] = [para(
            f"{counted(len(g.ambiguities), 'place')} where the rulebook is ambiguous, contradictory or silent. Each is a real "
            "switch: the game can be loaded, simulated and checked under any option.")]
        for a in g.ambiguities:
            sec = self.section(a.title or humanize(a.name), "ambiguity", a.name)
            self.label("ambiguity", a.name, a.title or a.name, sec["ids"][0])
            fields = nodes.field_list(classes=["rulekit-ambiguity-fields"])
            for name, value in (("Name", literal(a.name)), ("Kind", a.kind), ("Question", a.question)):
                f = nodes.field()
                f += nodes.field_name(text=name)
                body = nodes.field_body()
                body += para(value)
                f += body
                fields += f
            sec += fields
            sec += para(strong("The rulebook says:"))
            sec += quote_nodes(a.quotes)
            rows = []
            for o in a.options:
                marker = "default" if o.name == a.default else ""
                changes = self._option_findings(report, a, o) if report is not None else [para("not checked")]
                rows.append(row([para(literal(o.name)), o.description, marker, changes],
                                classes=["rulekit-default"] if marker else ()))
            sec += table(["Option", "Reading", "", "What the checks report under it"], rows,
                         classes=["rulekit-options"], widths=[2, 5, 1, 5])
            sec += para(strong("Default: "), literal(a.default), ", because ",
                        *lower_first([a.reason], self.english.names()))
            where = uses.get(a.name)
            if where:
                sec += para(strong("Where the spec depends on it: "), ", ".join(sorted(where)) + ".")
            out.append(sec)
        return out

    def _option_uses(self) -> dict[str, set]:
        """For each ambiguity, the procedures and definitions whose rules test its option."""
        found: dict[str, set] = {}
        g = self.model
        owners = [(f"“{self.english.procedure_title(p)}”", p) for p in g.procedures] + [("the flow", g.flow)]
        owners += [(f"the definition of “{self.english.define_title(d)}”", d) for d in g.defines]
        owners += [(f"trigger {humanize(getattr(t, 'name', ''))}", t) for t in getattr(g, "triggers", ()) or ()]
        for label, node in owners:
            for sub in walk_expr(node):
                if isinstance(sub, m.OptionIs):
                    found.setdefault(sub.ambiguity, set()).add(label)
        return found

    def _option_findings(self, report, a: m.Ambiguity, o: m.Option) -> list[nodes.Node]:
        shown = []
        for f in report.findings:
            if f.kind == "ambiguity":
                continue
            if f.options.get(a.name) == o.name and (o.name != a.default or len(f.options) == 1):
                shown.append(f)
        if not shown:
            if o.name == a.default:
                return [para("The verdicts in Checks are under the defaults.")]
            return [para("No finding specific to this option in the checks run (see the bounds under Checks).",
                         classes=["rulekit-muted"])]
        items = nodes.bullet_list()
        for f in shown:
            li = nodes.list_item()
            li += para(strong(f"{f.kind}, {wording.verdict_word(f)}: "), f.message)
            items += li
        return [items]

    # ---- checks
    def checks(self) -> list[nodes.Node]:
        report, bounds = self.report()
        findings = [f for f in report.findings if f.kind != "ambiguity"]
        out: list[nodes.Node] = [para(
            "The verdicts of ", literal(f"rulekit check {self.model.name}"), " with small bounds for this page: ",
            f"{counted(bounds.games, 'random game')} per player count under the default options, "
            f"{bounds.variant_games} under each other option, at most {counted(bounds.max_steps, 'decision')} a game, "
            f"seed {bounds.seed}. "
            "Sampled and bounded mean that it held in every game played, not that it is proven: a sampled "
            "verdict states how unlikely a breaking game is at its confidence; exhaustive means every reachable "
            "state of the named configuration was explored.")]
        if not findings:
            out.append(para("No findings."))
            return out
        out.append(para(report_text.game_summary(report).removeprefix("summary: ").capitalize() + "."))
        passes = [row([para(name), [para(nodes.inline("", wording.verdict_word(best),
                                                      classes=[f"rulekit-verdict-{best.verdict}"])),
                                    para(best.method, classes=["rulekit-muted"])], para(wording.rests_on(best))])
                  for name, best, _ in report_text.pass_rows(report)]
        if passes:
            out.append(table(["Property", "Strongest verdict and method", "What it rests on"], passes,
                             classes=["rulekit-checks"], widths=[3, 2, 7]))
        rows = []
        for f in findings:
            finding = [para(self.local(f.message))]
            if f.bound:
                finding += [para(strong(f"{label}: "), said, classes=["rulekit-muted"])
                            for label, said in bound_lines(f.bound)]
            if f.options:
                finding.append(para(strong("Options: "), ", ".join(f"{k}={v}" for k, v in f.options.items()),
                                    classes=["rulekit-muted"]))
            if f.acknowledged_by:
                finding.append(para(strong("Acknowledged by "), f.acknowledged_by, classes=["rulekit-muted"]))
            if f.location:
                finding.append(para("at ", literal(self.local(f.location)), classes=["rulekit-muted"]))
            finding += quote_nodes(f.quotes)
            cells = [[para(strong(f.kind)), para(f.severity, classes=["rulekit-muted"])],
                     [para(nodes.inline("", wording.verdict_word(f), classes=[f"rulekit-verdict-{f.verdict}"])),
                      para(f.method, classes=["rulekit-muted"])],
                     finding]
            rows.append(row(cells, classes=[f"rulekit-severity-{f.severity}"]))
        out.append(table(["Check", "Verdict and method", "Finding, bound and rulebook"], rows,
                         classes=["rulekit-checks"], widths=[2, 2, 8]))
        for f in findings:
            if f.witness:
                out.append(self.witness(f))
        return out

    def witness(self, f) -> nodes.Node:
        steps = f.witness or []
        decisions = sum(1 for s in steps if s.get("player") != "chance")
        rows = [row([str(s.get("step", i + 1)), str(s.get("player", "")), str(s.get("text", s.get("action", "")))],
                    classes=["rulekit-chance"] if s.get("player") == "chance" else ())
                for i, s in enumerate(steps)]
        body = table(["Step", "Who", "Action"], rows, classes=["rulekit-witness"], widths=[1, 2, 8])
        return details(f"Witness for {f.id}: {counted(len(steps), 'step')} ({counted(decisions, 'decision')}, the rest chance)", body)

    # ---- turn structure
    def turns(self) -> list[nodes.Node]:
        svg = _cached(("turns", str(self.spec.path.resolve()), self.spec.digest),
                      lambda: turn_structure_svg(self.model))
        return [para("Generated from the spec's flow: rounds and turns, rules, decisions and their actions, the "
                     "procedures carried out, and where a turn, a round or the game ends. Blue edges loop back; "
                     "dashed red edges are the ends a procedure may cause."),
                rulekit_svg(svg=svg, alt=f"Turn structure of {self.model.title}", prefix="turns",
                            classes=["rulekit-diagram"], caption="")]

    # ---- statistics
    def statistics_nodes(self) -> list[nodes.Node]:
        stats = self.statistics()
        c = self.config
        out: list[nodes.Node] = [para(
            f"{counted(c.rulekit_simulation_games, 'random game')} per player count under the default options: "
            f"every player picks uniformly among the legal actions (seed {c.rulekit_simulation_seed}; a game is cut "
            f"off after {counted(c.rulekit_simulation_max_steps, 'decision')}). Random players say how the rules "
            "behave, not how people play.")]
        most = max(s.players for s in stats)
        failing = any(s.failed for s in stats)  # a column of its own only where the spec has the fault
        if failing:
            out.append(para("Some games stopped on a rule that could not be carried out (column \u201cRule "
                             "error\u201d): the check's findings say which rule and how."))
        rows = []
        for s in stats:
            shares = [f"{s.wins[p] / s.games:.0%}" if p < s.players else "" for p in range(most)]
            rows.append([str(s.players), str(s.games), f"{s.mean_length():.1f}", str(s.median_length()),
                         str(s.no_winner), str(s.unfinished), *([str(s.failed)] if failing else []), *shares])
        out.append(table(["Players", "Games", "Mean decisions", "Median", "No winner", "Cut off",
                          *(["Rule error"] if failing else []), *(f"Seat {p} won" for p in range(most))], rows,
                         classes=["rulekit-stats"]))
        title = self.model.title
        out.append(rulekit_svg(svg=_cached(("plot-len", *self._stats_key()), lambda: length_plot(stats, f"{title}: game length")),
                               alt=f"Histogram of game length in decisions, per player count, for {title}",
                               prefix="length", classes=["rulekit-plot"], caption="Game length"))
        out.append(rulekit_svg(svg=_cached(("plot-win", *self._stats_key()), lambda: outcome_plot(stats, f"{title}: outcomes per seat")),
                               alt=f"Share of games won per seat and player count for {title}",
                               prefix="outcomes", classes=["rulekit-plot"], caption="Outcomes per seat"))
        return out


def check_bounds(settings: dict) -> PlayBounds:
    """PlayBounds from the conf.py setting; names this version of rulekit's PlayBounds does not have are
    left out, so that one conf.py serves versions with more or fewer bounds."""
    known = {f.name for f in dataclasses.fields(PlayBounds)}
    return PlayBounds(**{k: v for k, v in (settings or {}).items() if k in known})


_ABSOLUTE = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?(?:/[^\s/:()'\"]+){2,}")  # a path from the root of a machine


def _relative(path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def spec_name(spec: Spec) -> str:
    """A spec named by its folder and file (`mygame/mygame.rules`): the folder is the game's."""
    path = Path(spec.path)
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name


def _find(directive: SphinxDirective, name: str) -> Spec:
    """A bundled game's name, or a path relative to the document (or to the source folder)."""
    candidates = [name]
    if not resources.spec_file(name):
        doc_dir = Path(directive.env.doc2path(directive.env.docname)).parent
        candidates = [str(doc_dir / name), str(Path(directive.env.srcdir) / name), name]
    for c in candidates:
        if resources.spec_file(c):
            return Spec.find(c)
    return Spec.find(name)  # raises GameNotFoundError with the list of games


# ---- directives ----------------------------------------------------------------------------------

class _GameDirective(SphinxDirective):
    required_arguments = 1
    optional_arguments = 0
    has_content = False

    def run(self) -> list[nodes.Node]:
        try:
            page = GamePage(self, self.arguments[0])
            return self.render(page)
        except SpecError as exc:
            return self._fail(f"the spec {self.arguments[0]!r} does not compile:\n{exc.render()}")
        except RulekitError as exc:
            return self._fail(str(exc))

    def _fail(self, message: str) -> list[nodes.Node]:
        logger.warning(f"rulekit: {message}", location=self.get_location(), type="rulekit", subtype="spec")
        return []

    def render(self, page: GamePage) -> list[nodes.Node]:
        raise NotImplementedError


class OverviewDirective(_GameDirective):
    """``.. rulekit-overview:: GAME``: players, components with counts, zones, set-up."""

    def render(self, page):
        return page.overview()


class RulesDirective(_GameDirective):
    """``.. rulekit-rules:: GAME``: the rules in English beside the rulebook quotes."""

    def render(self, page):
        return page.rules()


class AmbiguitiesDirective(_GameDirective):
    """``.. rulekit-ambiguities:: GAME``: the ambiguity register, with what the checks report per option."""

    option_spec = {"no-analysis": directives.flag}

    def render(self, page):
        return page.ambiguities(with_analysis="no-analysis" not in self.options)


class ChecksDirective(_GameDirective):
    """``.. rulekit-checks:: GAME``: verdicts with method and bound, witnesses step by step."""

    def render(self, page):
        return page.checks()


class TurnsDirective(_GameDirective):
    """``.. rulekit-turns:: GAME``: the turn structure as a diagram."""

    def render(self, page):
        return page.turns()


class StatisticsDirective(_GameDirective):
    """``.. rulekit-statistics:: GAME``: simulated game length and outcomes per seat, with plots."""

    def render(self, page):
        return page.statistics_nodes()


class GameDirective(_GameDirective):
    """``.. rulekit-game:: GAME``: a whole page: the title and every section (``:sections:`` picks some)."""

    option_spec = {"sections": directives.unchanged}

    def render(self, page):
        wanted = [s.strip() for s in self.options.get("sections", ",".join(SECTIONS)).split(",") if s.strip()]
        unknown = [s for s in wanted if s not in SECTIONS]
        if unknown:
            return self._fail(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
        g = page.model
        top = page.section(g.title, "game")
        page.label("game", "page", g.title, top["ids"][0])
        top += para("Generated by rulekit from the spec ", literal(page.spec_name),
                    f": {counted(len(g.procedures), 'procedure')}, {counted(len(g.ambiguities), 'ambiguity')}, "
                    f"{counted(len(g.properties), 'property')} claimed in the checks.")
        makers = {"howto": ("How to play", page.how_to_play), "overview": ("Overview", page.overview), "turns": ("Turn structure", page.turns),
                  "rules": ("Rules", page.rules), "ambiguities": ("Ambiguity register", page.ambiguities),
                  "checks": ("Checks", page.checks), "statistics": ("Simulated statistics", page.statistics_nodes)}
        for key in wanted:
            title, make = makers[key]
            sec = page.section(title, key)
            sec += make()
            top += sec
        return [top]


class AmbiguityIndexDirective(SphinxDirective):
    """``.. rulekit-ambiguity-index::`` (every bundled game) or with game names: one table of every
    ambiguity, linked to the game pages (which must be in the same project)."""

    optional_arguments = 100
    has_content = False
    option_spec = {"no-links": directives.flag}

    def run(self):
        names = self.arguments or resources.bundled_games()
        out: list[nodes.Node] = []
        total = 0
        for name in names:
            try:
                spec = _find(self, name)
                g = spec.model
            except SpecError as exc:
                logger.warning(f"rulekit: the spec {name!r} does not compile:\n{exc.render()}",
                               location=self.get_location())
                continue
            except RulekitError as exc:
                logger.warning(f"rulekit: {exc}", location=self.get_location())
                continue
            self.env.note_dependency(str(spec.path.resolve()))
            links = "no-links" not in self.options
            sec = nodes.section(ids=[slug("index", g.name)], **NO_SMARTQUOTES)
            title = nodes.title()
            title += self._link(g.title, f"rulekit-{g.name}-game-page") if links else text(g.title)
            sec += title
            rows = []
            for a in g.ambiguities:
                head = para()
                head += self._link(a.title or a.name, f"rulekit-{g.name}-ambiguity-{a.name}".lower()) if links \
                    else text(a.title or a.name)
                rows.append([[head, para(a.kind, classes=["rulekit-muted"])], a.question,
                             [para(literal(a.default)), para(a.reason, classes=["rulekit-muted"])],
                             quote_nodes(a.quotes)])
            total += len(rows)
            if rows:
                sec += table(["Ambiguity", "Question", "Default and why", "Rulebook"], rows,
                             classes=["rulekit-ambiguity-index"], widths=[3, 4, 4, 5])
            else:
                sec += para("No ambiguities are declared.")
            out.append(sec)
        return [para(f"{counted(total, 'ambiguity')} in {counted(len(out), 'game')}."), *out]

    @staticmethod
    def _link(label: str, target: str) -> nodes.Node:
        ref = addnodes.pending_xref("", refdomain="std", reftype="ref", refexplicit=True, reftarget=target.lower())
        ref += nodes.inline("", label)
        return ref


DIRECTIVES = {
    "rulekit-game": GameDirective,
    "rulekit-overview": OverviewDirective,
    "rulekit-rules": RulesDirective,
    "rulekit-ambiguities": AmbiguitiesDirective,
    "rulekit-checks": ChecksDirective,
    "rulekit-turns": TurnsDirective,
    "rulekit-statistics": StatisticsDirective,
    "rulekit-ambiguity-index": AmbiguityIndexDirective,
}


class CliDirective(SphinxDirective):
    """``.. rulekit-cli::``: the help of ``rulekit`` and of each subcommand, from the parser itself."""

    has_content = False

    def run(self):
        import os

        from .. import cli

        old = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = "100"
        try:
            main_help, commands = cli.help_texts()
            out: list[nodes.Node] = [_help_block(main_help)]
            for name, text in commands.items():
                sec = nodes.section(ids=[slug("cli", name)])
                sec += nodes.title(text=f"rulekit {name}")
                sec += _help_block(text)
                out.append(sec)
            return out
        finally:
            if old is None:
                os.environ.pop("COLUMNS", None)
            else:
                os.environ["COLUMNS"] = old


def _help_block(help_text: str) -> nodes.literal_block:
    return nodes.literal_block(help_text, help_text, language="text", classes=["rulekit-cli-help"])


DIRECTIVES["rulekit-cli"] = CliDirective
