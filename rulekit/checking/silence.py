"""`silent-case` findings: the places that random play reached where the rule does not say what happens
and the language's default decides (an empty deck, a clamped `take`, a tie broken by order, ...).

The sites are known before play (`lower.sites`); the engine built with probes records the sites whose
case came up, and random play keeps the first game that reached each (`sampling.Tally.silent`). Each
reached site is reported once, over every option set, with that game replayed in the engine as its
witness. A site that random play never reached is not reported: it is not known to be absent.
"""
from __future__ import annotations

import re

from .. import model as m
from ..findings import Finding
from ..pipeline import Spec
from ..lower import sites as site_index
from .shared import config_of, location_of, spec_text
from .variants import changed_options
from .witnesses import replayed

# What the default does at each kind of site, for people.
DOES = {
    "skip": "when {case} does not hold, the spec skips the step `{step}`",
    "stop": "the loop stops once {case} no longer holds, although the rest of its condition still holds",
    "nothing-moved": "no card matches, so the spec moves nothing",
    "empty-loop": "there is nothing to go over, so the spec does nothing here",
    "supply-clamp": "the supply holds fewer tokens than asked for, so the spec gives only what is left",
    "cap-clamp": "the player's cap is reached, so the spec gives only up to the cap",
    "short-return": "the player holds fewer tokens than asked for, so the spec returns only those",
    "tie": "more than one candidate qualifies, so the spec takes the first in the domain's order",
    "one-option": "only one choice is legal here, so the player must take it",
}

# Words by which a rulebook sentence deals with the case itself (English and German): a sentence that
# says what happens when nothing is left, or how a tie is broken, handles the case.
_HANDLED = {
    "absent": r"\b(no|none|nothing|empty|run(s)? out|not enough|fewer|without|unless|up to|at most|kein\w*|leer\w*|"
              r"nichts|ohne|nicht genug|weniger|bis zu|höchstens|used up|exhausted|aufgebraucht|verbraucht)\b",
    "tie": r"\b(ties?|tied|equal\w*|same number|gleich\w*|unentschieden)\b",
    "cap": r"\b(cap|limit\w*|maximum|at most|already (has|have)|more than|höchstens|maximal|bereits)\b",
    # a choice the rules force: the sentence says the player must, or may only, take what is left
    "forced": r"\b(must|has to|have to|only|if (you|they|he|she) can|muss\w*|müssen|nur|wenn möglich)\b",
}
_KIND_WORDS = {"tie": ("tie",), "cap-clamp": ("cap", "absent"), "one-option": ("forced", "absent")}
# A few of those words, for the hint that tells a rules editor which quote clears a site.
_HINT_WORDS = {"absent": '"no", "none", "empty", "run out", "fewer" or "up to"',
               "tie": '"tie", "equal" or "same number"', "cap-clamp": '"limit", "at most", "maximum" or "already has"',
               "one-option": '"must", "only" or "if you can"'}


def handled_by_quote(kind: str, quotes) -> bool:
    """Whether one of a site's quotes says what happens in its case."""
    patterns = [_HANDLED[w] for w in _KIND_WORDS.get(kind, ("absent",))]
    return any(re.search(p, text, re.IGNORECASE) for text in quotes for p in patterns)


def findings(spec: Spec, game: m.Game, variants: list[dict], tallies: dict, key_of) -> list[Finding]:
    """One finding per site that random play reached, under the first option set that reached it."""
    out: list[Finding] = []
    done: set[str] = set()
    source = spec.text.splitlines()
    for options in variants:
        tally = tallies[key_of(options)]
        for key, (loaded, history) in tally.silent.items():
            if key in done:
                continue
            done.add(key)
            index = {s.key: i for i, s in enumerate(loaded.probe_sites)}
            if key not in index:
                continue
            site = loaded.probe_sites[index[key]]
            if site.kind not in site_index.KINDS:  # a branch taken (`lower.branches`): no silent case
                continue
            if handled_by_quote(site.kind, site.near if site.kind == "supply-clamp" else (*site.near, *site.extra_quotes)):
                continue
            loaded.probe_hits.clear()
            if site.decision:  # the witness ends at the decision that offers one action
                table = loaded.action_table

                def holds(state, point=site.node.point):
                    return len(state.legal) == 1 and table.owner(state.legal[0])[0] == point
            else:
                def holds(state, i=index[key]):
                    return i in loaded.probe_hits
            steps = replayed(loaded, history, holds, f"the silent case at {location_of(site.span)}")
            out.append(_finding(game, site, options, steps, source, site_id(game, loaded.probe_sites, site)))
    return out


def site_id(game: m.Game, sites: list, site) -> str:
    """The finding id of a site: GAME/silent-case/RULE/KIND-LINE, with .2, .3 for more sites of one line."""
    line = site.span.line if site.span is not None else 0
    same = [s.key for s in sites if (s.owner, s.kind, getattr(s.span, "line", 0)) == (site.owner, site.kind, line)]
    nth = f".{same.index(site.key) + 1}" if same.index(site.key) else ""
    return f"{game.name}/silent-case/{site.owner.replace(' ', '-')}/{site.kind}-{line}{nth}"


def known_ids(spec: Spec, game: m.Game, variants: list[dict]) -> set[str]:
    """The ids of every site of every configuration, reached or not: an `expect` that names one is not
    stale when this run's random play did not reach it (a deeper run may)."""
    out: set[str] = set()
    for options in variants:
        for players in range(game.min_players, game.max_players + 1):
            config = config_of(spec, players, options)
            if config is not None:
                found = site_index.of(config)
                out |= {site_id(game, found, s) for s in found}
    return out


def _finding(game: m.Game, site, options: dict, steps: list, source: list[str], fid: str) -> Finding:
    case = " and ".join(spec_text(part, source) for part in site.case)
    does = DOES[site.kind].format(case=case, step=spec_text(site.step, source))
    statement = spec_text(site.node, source)
    changed = changed_options(options, game)
    return Finding(
        fid, game.name, "silent-case",
        # A decision with one legal action is common and seldom a question for the rulebook: noted, not a problem.
        "info" if site.decision else "warning", "proven", "random-play",
        f"the rulebook is silent here; the spec decides: {does} (`{statement}`, in {site.owner})",
        quotes=list(dict.fromkeys(site.quotes)), location=location_of(site.span), witness=steps, options=changed,
        acknowledged_by=_ambiguity_for(game, site),
        hint=("if the rulebook does say what happens, quote on the statement the sentence that speaks of this "
              f"case (one with words such as {_HINT_WORDS[site.kind if site.kind in _HINT_WORDS else 'absent']}); "
              "if it does not, declare an `ambiguity` (kind silence) with the readings, or acknowledge it with an "
              "`expect`"),
        details={"site": site.kind, "case": case or None, "statement": statement,
                 "rule": site.owner, "reached_with": changed})


def _ambiguity_for(game: m.Game, site) -> str | None:
    """An ambiguity that quotes the rulebook words nearest to the site declares its case."""
    near = set(site.near) | set(site.extra_quotes)
    for a in sorted(game.ambiguities, key=lambda a: a.kind != "silence"):  # a declared silence first
        if near & {q.text for q in a.quotes}:
            return a.name
    return None


__all__ = ["DOES", "findings", "handled_by_quote"]
