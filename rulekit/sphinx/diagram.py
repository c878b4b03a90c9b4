"""The turn structure of a game as a diagram: a networkx graph of the flow, drawn as SVG offline.

Only the structure is drawn: the set-up steps, rounds and turns, rules, decisions and their
actions, conditions that guard structural steps, procedure calls, and where a turn, a round or the
game ends. Loops are drawn as edges back (on the left), jumps to an end (a procedure that may end
the turn) as dashed edges on the right. Every label comes from the model and is XML-escaped.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

from .. import model as m
from .english import English, humanize

STRUCTURAL = (m.Do, m.Choose, m.End, m.Rounds, m.Turns, m.Rule, m.Loop)

STYLE = {  # fill, stroke, text colour
    "start": ("#1f2937", "#1f2937", "#ffffff"),
    "end": ("#1f2937", "#1f2937", "#ffffff"),
    "loop": ("#dbeafe", "#1d4ed8", "#0b1f4d"),
    "mark": ("#e0e7ff", "#4338ca", "#1e1b4b"),
    "rule": ("#ecfdf5", "#047857", "#022c22"),
    "procedure": ("#fef9c3", "#a16207", "#3b2a05"),
    "choice": ("#ffedd5", "#c2410c", "#431407"),
    "action": ("#fff7ed", "#ea580c", "#431407"),
    "condition": ("#f3f4f6", "#4b5563", "#111827"),
    "other": ("#ffffff", "#6b7280", "#111827"),
}


@dataclass
class _Ctx:
    turn_end: str | None = None
    round_end: str | None = None


class FlowGraph:
    """The flow of one game as a directed graph. Node attributes: label, shape. Edge attributes:
    label, style (next, back: a loop, jump: to where an `end` leads)."""

    def __init__(self, game: m.Game):
        self.game = game
        self.english = English(game)
        self.graph = nx.DiGraph()
        self._n = 0
        self._procs = {p.name: p for p in game.procedures}
        self._ends_cache: dict[str, frozenset] = {}
        self.game_over: str | None = None
        start = self.node("Start", "start")
        ctx = _Ctx()
        exits = self.walk(game.flow.body, [(start, "")], ctx)
        if exits:
            self.link(exits, self.over())

    # -- building
    def node(self, label: str, shape: str) -> str:
        self._n += 1
        key = f"n{self._n}"
        self.graph.add_node(key, label=label, shape=shape, order=self._n)
        return key

    def link(self, sources, target: str, style: str = "next") -> None:
        for source, label in sources:
            if source != target or style == "back":
                self.graph.add_edge(source, target, label=label, style=style)

    def over(self) -> str:
        if self.game_over is None:
            self.game_over = self.node("Game over", "end")
        return self.game_over

    def ends(self, proc: str, seen=frozenset()) -> frozenset:
        """What a procedure may end (turn, round, game), following the procedures it calls."""
        if proc in self._ends_cache:
            return self._ends_cache[proc]
        found = set()
        p = self._procs.get(proc)
        if p is not None and proc not in seen:
            for s in _walk(p.body):
                if isinstance(s, m.End):
                    found.add(s.what)
                elif isinstance(s, m.Do):
                    found |= self.ends(s.procedure, seen | {proc})
        self._ends_cache[proc] = frozenset(found)
        return self._ends_cache[proc]

    def jump(self, source: str, what: str, ctx: _Ctx) -> None:
        target = {"turn": ctx.turn_end, "round": ctx.round_end}.get(what)
        if what == "game" or target is None and what in ("turn", "round"):
            target = self.over() if what == "game" else None
        if target is not None:
            self.link([(source, "")], target, "jump")

    def walk(self, stmts, entries, ctx: _Ctx):
        """Add the structural statements of `stmts` after `entries` (node, edge label); return the exits."""
        for s in stmts:
            if not _structural(s):
                continue
            entries = self.statement(s, entries, ctx)
        return entries

    def statement(self, s, entries, ctx: _Ctx):
        e = self.english
        if isinstance(s, m.Do):
            ends = [w for w in ("turn", "round", "game") if w in self.ends(s.procedure)]
            note = f" (may end the {' or the '.join(ends)})" if ends else ""
            node = self.node(humanize(s.procedure) + note, "procedure")
            self.link(entries, node)
            for what in ends:
                self.jump(node, what, ctx)
            return [(node, "")]
        if isinstance(s, m.End):
            if not entries:
                return []
            if s.what == "game":
                self.link(entries, self.over(), "next")
            else:
                target = ctx.turn_end if s.what == "turn" else ctx.round_end
                if target is not None:
                    self.link([(src, label or f"end {s.what}") for src, label in entries], target, "jump")
            return []
        if isinstance(s, m.Rule):
            node = self.node(f"Rule: {s.title or humanize(s.name)}", "rule")
            self.link(entries, node)
            return self.walk(s.body, [(node, "")], ctx)
        if isinstance(s, m.If):
            exits = []
            current = entries
            for cond, body in s.branches:
                node = self.node(_short(e.text(cond) + "?"), "condition")
                self.link(current, node)
                exits += self.walk(body, [(node, "yes")], ctx)
                current = [(node, "no")]
            exits += self.walk(s.orelse, current, ctx) if s.orelse else current
            return exits
        if isinstance(s, m.Loop):
            head_entries = entries
            if s.cond is not None:
                node = self.node(_short("while " + e.text(s.cond)), "condition")
                self.link(entries, node)
                head_entries = [(node, "")]
            before = set(self.graph.nodes)
            exits = self.walk(s.body, head_entries, ctx)
            new = [n for n in self.graph.nodes if n not in before]
            head = node if s.cond is not None else (min(new, key=lambda n: self.graph.nodes[n]["order"]) if new else None)
            if head is not None:
                self.link([(src, f"{label}, again" if label else "again") for src, label in exits], head, "back")
            if s.cond is not None:
                return [(node, "done")]
            breaks = any(isinstance(x, m.Break) for x in _walk(s.body))
            return [(head, "stop")] if breaks and head is not None else []
        if isinstance(s, m.Choose):
            who = e.text(s.by)
            who = who[:1].upper() + who[1:]
            verb = "choose" if who == "You" else "chooses"  # the player to move is "you" in the rules
            acts = s.actions
            if len(acts) == 1 and len(acts[0].binders) == 1 and acts[0].name == acts[0].binders[0].name:
                # the short form `choose x in ... by p`: one decision, no named actions
                node = self.node(_short(f"{who} {verb} {e.text_binder(acts[0].binders[0])}", 80), "choice")
                self.link(entries, node)
                return self.walk(acts[0].body, [(node, "")], ctx)
            node = self.node(f"{who} {verb}", "choice")
            self.link(entries, node)
            exits = []
            for a in s.actions:
                label = humanize(a.name) + (f": {a.label}" if a.label else "")
                act = self.node(_short(label, 60), "action")
                self.link([(node, "")], act)
                exits += self.walk(a.body, [(act, "")], ctx)
            return exits
        if isinstance(s, m.Rounds):
            head = self.node("Round", "loop")
            self.link(entries, head)
            end = self.node("End of the round", "mark")
            inner = _Ctx(ctx.turn_end, end)
            exits = self.walk(s.body, [(head, "")], inner)
            self.link(exits, end)
            self.link([(end, "next round")], head, "back")
            return []
        if isinstance(s, m.Turns):
            start = e.text(s.start)
            order = getattr(self.game, "order", "") or ""
            head = self.node(f"Turn ({humanize(order)})" if order else "Turn", "loop")
            self.graph.nodes[head]["tooltip"] = f"The first turn: {start}"
            self.link(entries, head)
            end = self.node("End of the turn", "mark")
            inner = _Ctx(end, ctx.round_end)
            exits = self.walk(s.body, [(head, "")], inner)
            self.link(exits, end)
            after = self.walk(s.then, [(end, "")], _Ctx(None, ctx.round_end))
            self.link([(src, label or (f"next player ({humanize(order)})" if order else "next player"))
                       for src, label in after], head, "back")
            return []
        # a structural statement this diagram does not know: a plain box, then its nested statements
        node = self.node(_short(e.generic(s)), "other")
        self.link(entries, node)
        return [(node, "")]


_walk = m.walk


def _structural(s) -> bool:
    if isinstance(s, STRUCTURAL):
        return True
    if isinstance(s, m.If):
        return any(isinstance(x, STRUCTURAL) for x in _walk((s,)))
    return False


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# ---- layout and drawing ------------------------------------------------------------------------

FONT = 12
LINE = 15
WRAP = 26
PAD_X, PAD_Y = 10, 7
GAP_X, GAP_Y = 28, 34
CHAR = 6.6  # average width of a character at FONT px in a sans-serif face


def layout(graph: nx.DiGraph) -> dict[str, tuple[float, float, float, float, list[str]]]:
    """Layers by the longest path over forward edges; order in a layer by the mean position of the
    predecessors (one barycentre sweep). Returns node -> (x, y, width, height, lines)."""
    forward = nx.DiGraph((u, v) for u, v, d in graph.edges(data=True) if d["style"] != "back")
    forward.add_nodes_from(graph.nodes)
    layer: dict[str, int] = {}
    for n in nx.topological_sort(forward):
        preds = list(forward.predecessors(n))
        layer[n] = max((layer[p] + 1 for p in preds), default=0)
    rows: dict[int, list[str]] = {}
    for n in sorted(graph.nodes, key=lambda n: graph.nodes[n]["order"]):
        rows.setdefault(layer[n], []).append(n)
    boxes = {}
    for n in graph.nodes:
        lines = textwrap.wrap(graph.nodes[n]["label"], WRAP) or [""]
        width = max(len(x) for x in lines) * CHAR + 2 * PAD_X
        boxes[n] = [0.0, 0.0, max(width, 70.0), len(lines) * LINE + 2 * PAD_Y, lines]
    y = 0.0
    rank: dict[str, float] = {}
    for i in sorted(rows):
        row = rows[i]
        if i:
            row.sort(key=lambda n: (sum(rank[p] for p in forward.predecessors(n)) / max(1, forward.in_degree(n)),
                                    graph.nodes[n]["order"]))
        for j, n in enumerate(row):
            rank[n] = j - (len(row) - 1) / 2
        width = sum(boxes[n][2] for n in row) + GAP_X * (len(row) - 1)
        x = -width / 2
        height = max(boxes[n][3] for n in row)
        for n in row:
            boxes[n][0], boxes[n][1] = x, y + (height - boxes[n][3]) / 2
            x += boxes[n][2] + GAP_X
        y += height + GAP_Y
    return {n: tuple(b) for n, b in boxes.items()}


def render_svg(graph: nx.DiGraph, title: str) -> str:
    """The graph as a standalone SVG document (no scripts, no external references)."""
    boxes = layout(graph)
    min_x = min(b[0] for b in boxes.values())
    max_x = max(b[0] + b[2] for b in boxes.values())
    max_y = max(b[1] + b[3] for b in boxes.values())
    back = [(u, v, d) for u, v, d in graph.edges(data=True) if d["style"] == "back"]
    jumps = [(u, v, d) for u, v, d in graph.edges(data=True)
             if d["style"] != "back" and _spans(boxes, u, v)]
    left_room = 30 + 16 * len(back)
    right_room = 30 + 16 * len(jumps) + 90  # room for the labels of the last lanes
    ox, oy = -min_x + left_room, 20.0
    width = max_x - min_x + left_room + right_room
    height = max_y + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
           f'width="{width:.0f}" height="{height:.0f}" role="img" aria-label={quoteattr(title)} '
           f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{FONT}">',
           f"<title>{escape(title)}</title>",
           '<defs><marker id="rk-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#374151"/></marker></defs>',
           '<rect width="100%" height="100%" fill="#ffffff"/>']

    def box(n):
        x, y, w, h, _ = boxes[n]
        return x + ox, y + oy, w, h

    spans_right = 0
    for u, v, d in graph.edges(data=True):
        ux, uy, uw, uh = box(u)
        vx, vy, vw, vh = box(v)
        dash = ' stroke-dasharray="5,4"' if d["style"] == "jump" else ""
        label = d.get("label") or ""
        if d["style"] == "back" or _spans(boxes, u, v):
            # routed around the nodes: down into the gap below the source, out to a lane beside the
            # graph, along it to the gap above the target, and into the target from above
            if d["style"] == "back":
                i = back.index((u, v, d))
                lane = min_x + ox - 20 - 16 * i
                colour = "#1d4ed8"
            else:
                lane = max_x + ox + 20 + 16 * spans_right
                spans_right += 1
                colour = "#b91c1c" if d["style"] == "jump" else "#374151"
            sx, sy = ux + uw / 2, uy + uh
            tx, ty = vx + vw / 2, vy
            drop = sy + GAP_Y / 2 - 4 + (3 * (i % 3) if d["style"] == "back" else 0)
            rise = ty - GAP_Y / 2 + 4
            path = f"M{sx:.1f},{sy:.1f} V{drop:.1f} H{lane:.1f} V{rise:.1f} H{tx:.1f} V{ty - 1:.1f}"
            out.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.2"{dash} '
                       'marker-end="url(#rk-arrow)"/>')
            if label:
                out.append(_text(sx + 6, drop - 3, label, colour, anchor="start"))
            continue
        sx, sy = ux + uw / 2, uy + uh
        tx, ty = vx + vw / 2, vy
        colour = "#b91c1c" if d["style"] == "jump" else "#374151"
        out.append(f'<path d="M{sx:.1f},{sy:.1f} C{sx:.1f},{sy + 14:.1f} {tx:.1f},{ty - 14:.1f} {tx:.1f},{ty - 1:.1f}" '
                   f'fill="none" stroke="{colour}" stroke-width="1.2"{dash} marker-end="url(#rk-arrow)"/>')
        if label:
            out.append(_text(sx - 5, sy + 12, label, colour, anchor="end"))
    for n, data in graph.nodes(data=True):
        x, y, w, h = box(n)
        fill, stroke, ink = STYLE.get(data["shape"], STYLE["other"])
        shape = data["shape"]
        tip = data.get("tooltip") or data["label"]
        out.append(f'<g class="rk-node rk-{shape}"><title>{escape(tip)}</title>')
        if shape == "condition":
            k = 10
            pts = f"{x + k:.1f},{y:.1f} {x + w - k:.1f},{y:.1f} {x + w:.1f},{y + h / 2:.1f} " \
                  f"{x + w - k:.1f},{y + h:.1f} {x + k:.1f},{y + h:.1f} {x:.1f},{y + h / 2:.1f}"
            out.append(f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="1.3"/>')
        else:
            radius = h / 2 if shape in ("start", "end") else 6 if shape in ("choice", "action", "loop", "mark") else 2
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{radius:.1f}" '
                       f'fill="{fill}" stroke="{stroke}" stroke-width="1.3"/>')
            if shape == "procedure":  # a subroutine: double side bars
                out.append(f'<path d="M{x + 5:.1f},{y:.1f} V{y + h:.1f} M{x + w - 5:.1f},{y:.1f} V{y + h:.1f}" '
                           f'stroke="{stroke}" stroke-width="1"/>')
        lines = boxes[n][4]
        for i, line in enumerate(lines):
            out.append(_text(x + w / 2, y + PAD_Y + LINE * i + FONT - 1, line, ink))
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _spans(boxes, u, v) -> bool:
    """An edge that skips a layer, or goes upwards, is routed around the nodes."""
    return boxes[v][1] <= boxes[u][1] or boxes[v][1] - (boxes[u][1] + boxes[u][3]) > GAP_Y * 1.5 + 40


def _text(x, y, text, colour, anchor="middle", rotate=False) -> str:
    extra = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if rotate else ""
    size = FONT if not rotate and anchor == "middle" else FONT - 2
    return (f'<text x="{x:.1f}" y="{y:.1f}" fill="{colour}" text-anchor="{anchor if not rotate else "middle"}" '
            f'font-size="{size}"{extra}>{escape(text)}</text>')


def turn_structure_svg(game: m.Game) -> str:
    flow = FlowGraph(game)
    return render_svg(flow.graph, f"Turn structure of {game.title}")
