"""A game told to a player: a "How to play" summary (set-up, a turn, how the game ends) generated
from the spec, and every rule as plain English text, section by section (what the golden files of
the English hold, and what a reader reads without Sphinx)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import model as m
from ..phrases import counted
from .english import English, Line, Part, Ref, plain
from .stable import noted_name, unchanged
from .winners import several_may_win
from .wording import lower_first


@dataclass
class Summary:
    """The "How to play" paragraphs: each a heading and its sentences (each a list of parts)."""

    setup: list[list[Part]]
    turn: list[list[Part]]
    end: list[list[Part]]
    intro: list[list[Part]]
    words: list[list[Part]] = None

    def sections(self):
        return [("The game", self.intro), ("Set-up", self.setup), ("A turn", self.turn),
                ("How the game ends", self.end), ("What the words mean", self.words or [])]

    def text(self) -> str:
        out = []
        for title, sentences in self.sections():
            if sentences:
                out += [f"### {title}", *(plain(s) for s in sentences)]
        return "\n".join(out) + "\n"


def lines_text(lines: list[Line], depth: int = 0) -> list[str]:
    out = []
    for line in lines:
        out.append("  " * depth + line.text)
        out += lines_text(line.children, depth + 1)
    return out


def rules_text(game: m.Game) -> str:
    """Every rule of the game in English: the summary, the flow, each procedure, trigger, definition."""
    english = English(game)
    out = [f"# {game.title}", "", "## How to play", how_to_play(game, english).text().rstrip("\n"), "",
           "## How a game goes", *lines_text(english.block(game.flow.body))]
    for p in game.procedures:
        if not getattr(p, "bookkeeping", False):
            out += ["", f"## {english.procedure_title(p)}", *lines_text(english.procedure(p))]
    for t in game.triggers:
        out += ["", "## As soon as " + plain(english.cond(t.cond)), *lines_text(english.block(t.body))]
    if game.defines:
        out += ["", "## Definitions", *(english.define(d).text for d in game.defines)]
    return "\n".join(out) + "\n"


# ---- the summary ------------------------------------------------------------------------------

def how_to_play(game: m.Game, english: English | None = None) -> Summary:
    english = english or English(game)
    summary = Summary(setup=_setup(game, english), turn=_turn(game, english), end=_ends(game, english),
                      intro=_intro(game, english))
    said = [line.parts for line in _all(english.block(game.flow.body))]
    summary.words = _words(game, english, [*summary.setup, *summary.turn, *summary.end, *said])
    return summary


def _all(lines: list[Line]):
    for line in lines:
        yield line
        yield from _all(line.children)


def _words(game: m.Game, english: English, sentences, limit: int = 5) -> list[list[Part]]:
    """The definitions the summary uses, and those they use in turn, so that the summary stands alone."""
    defines = {d.name: d for d in game.defines}
    wanted: list[str] = []

    def collect(parts):
        for p in parts:
            if isinstance(p, Ref) and p.target[0] == "define" and p.target[1] in defines \
                    and p.target[1] not in wanted:
                wanted.append(p.target[1])

    for sentence in sentences:
        collect(sentence)
    out = []
    i = 0
    while i < len(wanted) and len(out) < limit:
        line = english.define(defines[wanted[i]])
        out.append(line.parts)
        collect(line.parts)
        i += 1
    return out


def _intro(game: m.Game, english: English) -> list[list[Part]]:
    players = f"{game.min_players} to {game.max_players} players" if game.min_players != game.max_players \
        else counted(game.min_players, "player")
    if _cooperative(game):
        goal = "Everyone wins or loses together."
    else:
        goal = "One or more players win." if several_may_win(game) else "One player wins."
    return [[f"A game for {players}. {goal}"]]


def _cooperative(game: m.Game) -> bool:
    return any(isinstance(s, m.Win) and s.player is None for body in m.bodies(game) for s in m.walk(body, True))


def _first(english: English, before: list, start) -> list[Part]:
    """Who starts, named as the set-up named them: a player picked at random there is "the first
    player" (its name), not "the player"."""
    saved = english.scoped()
    try:
        for s in before:
            if isinstance(s, m.Random):
                english.bind(s.binder.slot, s.binder.name, s.binder.iter.element)
        return english.expr(start)
    finally:
        english.env = saved


def _before_turns(stmts):
    """The statements of a block before its turns (or rounds) begin, and the block holding the turns."""
    before = []
    for s in stmts:
        if isinstance(s, m.Rounds):
            inner, _, turns = _before_turns(s.body)
            return before, inner, turns
        if isinstance(s, m.Turns):
            return before, [], s
        before.append(s)
    return before, [], None


_DOING = ("Choose", "Action", "Do", "Move", "TokenMove", "End", "Win", "Shuffle", "Reveal", "Random", "For", "Assign",
          "Announce", "Rotate", "Loop")


def _gist(line: Line, limit: int = 4) -> str:
    """What a rule makes a player do, in one sentence: the first things it does at the shallowest level
    where it does something, each after the condition that leads there."""
    level = [(c, "") for c in line.children]
    while level:
        doing = [(c, cond) for c, cond in level if c.kind in _DOING or (c.kind == "If" and not c.children)]
        if doing:
            groups: list[tuple[str, list[str]]] = []
            for c, cond in doing[:limit]:
                if groups and groups[-1][0] == cond:
                    groups[-1][1].append(_said(c))
                else:
                    groups.append((cond, [_said(c)]))
            return "; ".join(cond + _then(said) for cond, said in groups)
        deeper = []
        for c, cond in level:
            head = _lower(c.text).rstrip(":")
            prefix = cond + (head + ", " if c.kind == "If" else "")
            deeper += [(g, prefix) for g in c.children]
        level = deeper
    return ""


def _then(said: list[str]) -> str:
    out = said[0] if said else ""
    for item in said[1:]:
        out += ("; " if item.startswith("otherwise") else ", then ") + item
    return out


def _said(line: Line) -> str:
    """One line for a summary: a choice with its options, a loop with what it does."""
    if line.kind in ("For", "Loop", "If", "Rule") and line.children:
        inner = _gist(line, limit=3)
        glue = ": " if line.kind in ("Loop", "Rule") else ", "
        return _lower(line.text).rstrip(".:") + (glue + inner if inner else "")
    return _choice(line)


def _choice(line: Line) -> str:
    """A choice with its options named: "you must choose one: A, B or C"."""
    text = _lower(line.text).rstrip(".:")
    if line.kind == "Choose" and line.children and text.endswith("choose one"):
        options = _conditions_if_short([_lower(c.text).rstrip(".:") for c in line.children[:6]])
        more = ", and more" if len(line.children) > 6 else ""
        return text + ": " + "; ".join(options[:-1]) + (" or " if len(options) > 1 else "") + options[-1] + more
    return text


def _conditions_if_short(options: list[str], words: int = 10) -> list[str]:
    """The options of a choice with the conditions under which each may be taken, unless one is too
    long for a summary: then none, since an option said without its condition beside others said
    with theirs would read as allowed at any time."""
    conditions = [o.split(" (only if ", 1)[1] for o in options if " (only if " in o]
    if all(len(c.split()) <= words for c in conditions):
        return options
    return [o.split(" (only if ", 1)[0] for o in options]


def _sentences(lines: list[Line], limit: int = 6) -> list[list[Part]]:
    """The sentences of a few lines: "Title: what it makes you do." for a rule; a loop of several
    steps, its steps (see :func:`_steps`)."""
    out = []
    for line in lines[:limit]:
        loop = _loop_of(line)
        if loop is not None:
            out += _steps(line, loop)
        elif line.children and line.text.endswith(":"):
            gist = _gist(line)
            if gist and line.kind == "Rule":
                out.append([*line.parts[:-1], ": ", gist + "."])
            elif gist:
                out.append([_said(line)[:1].upper() + _said(line)[1:] + "."])
        else:
            out.append(list(line.parts))
    return out


def _loop_of(line: Line) -> Line | None:
    """The loop of several steps that a line is, or that is all a rule does."""
    if line.kind == "Rule" and len(line.children) == 1:
        return _loop_of(line.children[0])
    several = line.kind == "Loop" and len(line.children) > 1
    return line if several and isinstance(line.parts[-1], str) and line.parts[-1].endswith("epeat:") else None


def _steps(line: Line, loop: Line, limit: int = 8) -> list[list[Part]]:
    """A loop, one numbered sentence per step, with every option of its choices: what a turn that
    repeats is. Its gist in one sentence cuts it short, and the steps cut are often how it ends (a
    bust, a bank)."""
    steps = loop.children
    head = list(loop.parts)
    if line is not loop:  # a rule that is a loop: "Title: repeat ..."
        head = [*line.parts[:-1], ": ", *lower_first(head, ())]
    out: list[list[Part]] = [[*head[:-1], head[-1][:-1] + f" these {len(steps)} steps:"]]
    for i, step in enumerate(steps[:limit], 1):
        if step.children:
            text = _said(step)
            out.append([f"{i}. {text[:1].upper()}{text[1:]}."])
        else:
            out.append([f"{i}. ", *step.parts])
    if len(steps) > limit:
        out.append([f"Steps {limit + 1} to {len(steps)}: see the rules."])
    return out


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _procedures_said(game: m.Game, english: English, stmts, limit: int = 3) -> list[list[Part]]:
    """For the procedures that `stmts` carry out (not those of the turns), what each does, briefly."""
    procs = {p.name: p for p in game.procedures}
    called = []
    for s in m.walk(stmts, True):
        if isinstance(s, m.Turns):
            break
        if isinstance(s, m.Do) and s.procedure in procs and s.procedure not in called:
            called.append(s.procedure)
    out = []
    for name in called[:limit]:
        p = procs[name]
        if getattr(p, "bookkeeping", False):
            continue
        said = "; ".join(_said(line) if line.children else _lower(line.text).rstrip(".")
                         for line in english.procedure(p)[:6])
        saved, english.env = english.env, {}
        try:
            title = english.procedure_title(p)
        finally:
            english.env = saved
        out.append([Ref(title, ("procedure", name)), ": " + said + "."])
    return out


def _setup(game: m.Game, english: English) -> list[list[Part]]:
    before, each_round, _ = _before_turns(game.flow.body)
    out = _sentences(english.block(before))
    if each_round:
        lines = english.block(each_round)
        said = "; ".join(_lower(plain(p)).rstrip(".") for p in _sentences(lines, 4))
        if said:
            out.append([f"At the start of each round: {said}."])
    out += _procedures_said(game, english, [*before, *each_round])
    return out


def _turn(game: m.Game, english: English) -> list[list[Part]]:
    before, each_round, turns = _before_turns(game.flow.body)
    if turns is None:
        return []
    out: list[list[Part]] = [["Players take turns", f" {english.phrases_order()}" if game.order else "",
                              ", starting with ", *_first(english, [*before, *each_round], turns.start), "."]]
    body = english.block(turns.body)
    out.append(["On your turn:"])
    out += _sentences(body, limit=6)
    out += _what_happens(game, english, turns)
    if turns.then:
        then = english.block(turns.then)
        if then:
            out.append(["At the end of your turn: ", *_flat(then)])
    return out


def _what_happens(game: m.Game, english: English, turns: m.Turns, limit: int = 2) -> list[list[Part]]:
    """For the procedures a turn carries out that decide between cases (what a revealed card does,
    what a hunt finds), one sentence each: the cases and what each makes you do."""
    procs = {p.name: p for p in game.procedures}
    called = []
    for s in m.walk(turns.body, True):
        if isinstance(s, m.Do) and s.procedure in procs and s.procedure not in called:
            called.append(s.procedure)
    out = []
    for name in called:
        p = procs[name]
        if getattr(p, "bookkeeping", False):
            continue
        lines = english.procedure(p)
        cases = [line for line in lines if line.kind == "If"]
        if len(cases) < 3:
            continue
        said = [_said(line) if line.children else _lower(line.text).rstrip(".") for line in cases[:7]]
        saved, english.env = english.env, {}
        try:
            title = english.procedure_title(p)
        finally:
            english.env = saved
        out.append([Ref(title, ("procedure", name)), ": " + "; ".join(said) + "."])
        if len(out) >= limit:
            break
    return out


def _flat(lines: list[Line]) -> list[Part]:
    text = "; ".join(_lower(plain(line.parts)).rstrip(".:") + (": " + "; ".join(
        _lower(c.text).rstrip(".:") for c in line.children[:3]) if line.children else "") for line in lines[:3])
    return [text + "."]


def _ends(game: m.Game, english: English) -> list[list[Part]]:
    """Every place where the game ends, with the conditions that lead there and who wins."""
    out: list[list[Part]] = []
    together = _cooperative(game)
    owners = [(None, game.flow)] + [(p, p) for p in game.procedures]
    for owner, decl in owners:
        saved = dict(english.env)
        try:
            for param in getattr(decl, "params", ()):
                english.bind(param.slot, param.name, param.type)
            _walk_ends(decl.body, [], owner, english, out, together)
        finally:
            english.env = saved
    for t in game.triggers:
        saved = dict(english.env)
        try:
            _walk_ends(t.body, [], None, english, out, together, when=["as soon as ", *english.cond(t.cond)])
        finally:
            english.env = saved
    return out


def _walk_ends(stmts, conds, owner, english: English, out, together: bool, when=()) -> None:
    stmts = list(stmts)
    for i, s in enumerate(stmts):
        if isinstance(s, m.Let):
            english.env[s.slot] = (english.expr(s.value) if unchanged(s, stmts[i + 1:], english.defines)
                                   else [noted_name(s.name)])
        elif isinstance(s, m.End) and s.what == "game":
            wins = [x for x in stmts[:i] if any(isinstance(w, m.Win) for w in m.walk([x]))]
            out.append(_end_sentence(conds, owner, wins, english, together, when))
        elif isinstance(s, m.If):
            earlier = []
            for cond, body in s.branches:
                said = _Reading(english.cond(cond)) if isinstance(cond, m.OptionIs) else english.cond(cond)
                _walk_ends(body, [*conds, *_otherwise(earlier, english, cond), said], owner, english, out, together,
                           when)
                earlier.append(cond)
            _walk_ends(s.orelse, [*conds, *_otherwise(earlier, english)], owner, english, out, together, when)
        elif isinstance(s, m.Choose):
            for a in s.actions:
                if any(isinstance(x, m.End) and x.what == "game" for x in m.walk(a.body, True)):
                    saved = dict(english.env)
                    try:
                        for b in a.binders:
                            english.bind(b.slot, b.name, b.iter.element)
                        _walk_ends(a.body, conds, owner, english, out, together, when)
                    finally:
                        english.env = saved
        elif isinstance(s, (m.Rule, m.Rounds, m.Loop)):
            _walk_ends(s.body, conds, owner, english, out, together, when)
        elif isinstance(s, m.Turns):
            _walk_ends(s.body, conds, owner, english, out, together, when)
            _walk_ends(s.then, conds, owner, english, out, together, when)
        elif isinstance(s, m.For) and any(isinstance(x, m.End) and x.what == "game" for x in m.walk(s.body)):
            saved = dict(english.env)
            try:
                english.bind(s.binder.slot, s.binder.name, s.binder.iter.element)
                _walk_ends(s.body, conds, owner, english, out, together, when)
            finally:
                english.env = saved


class _Reading(list):
    """The parts of a condition that is an ambiguity's reading ("under the reading X"): said after the
    other conditions, as the rules say it ("X (under the reading Y)")."""


def _otherwise(earlier: list, english: English, then=None) -> list[list[Part]]:
    """What holds in a branch after `earlier` tests failed, beyond what its own test `then` says: a
    test of an ambiguity's options leaves its other readings; any other test is negated ("none of the
    above holds" past two)."""
    tested: dict[str, list[str]] = {}
    others = []
    for cond in earlier:
        if isinstance(cond, m.OptionIs):
            if not (isinstance(then, m.OptionIs) and then.ambiguity == cond.ambiguity):
                tested.setdefault(cond.ambiguity, []).append(cond.option)
        elif not _excluded_by(then, cond):
            others.append(cond)
    out: list[list[Part]] = [english.negate(c) for c in others] if len(others) <= 2 else [["none of the above holds"]]
    for name, options in tested.items():
        left = [o.name for o in english.game.ambiguity(name).options if o.name not in options]
        if left:
            readings = [[english.reading(m.OptionIs(name, o))] for o in left]
            out.append(_Reading(["under the reading ", *english.listing(readings, "or")]))
    return out


def _excluded_by(then, cond) -> bool:
    """Whether a branch's own test already rules out an earlier one: `x == B` after `x == A`."""
    return all(isinstance(e, m.Binary) and e.op == "==" and isinstance(e.right, m.Const) for e in (then, cond)) \
        and then.left == cond.left and then.right != cond.right


def _end_sentence(conds, owner, wins, english: English, together: bool, when=()) -> list[Part]:
    parts: list[Part] = ["The game ends"]
    if when:
        parts += [" ", *when]
    tests = [c for c in conds if not isinstance(c, _Reading)]
    readings = [c for c in conds if isinstance(c, _Reading)]
    if tests:
        parts.append(" if ")
        for j, c in enumerate(tests):
            if j:
                parts.append(" and ")
            parts += c
    for j, r in enumerate(readings):
        parts += [" (", *r, ")"] if tests or j else [" ", *r]
    if owner is not None:
        saved, english.env = english.env, {}
        try:
            title = english.procedure_title(owner)
        finally:
            english.env = saved
        parts += [" (see ", Ref(title, ("procedure", owner.name)), ")"]
    if wins:
        said = "; ".join(_lower(line.text).rstrip(".") for line in english.block(wins))
        parts.append(f": {said}.")
    else:
        parts.append(": everyone loses." if together else ": nobody wins.")
    return parts
