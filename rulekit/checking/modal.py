"""`modal` findings: the rulebook's modal verb against the construct that formalizes it, and a choice
the rulebook says is made in secret that the spec shows to everyone.

A decision that can be declined (a choice with a pass: an action with no parameters that only ends
the turn or leaves a loop, or does nothing) formalizes a sentence that says the player *may*; a step
that happens without any decision formalizes one that says the player *must* (or simply states it).
This module reads the nearest quotes of each decision and step (its own, else those of the innermost
rule around it) and reports a declinable decision whose words say only "must", and a forced step whose
own words say only "may". To keep false alarms rare, a sentence with a negation ("may not", "darf
nicht", "cannot") or with both kinds of verb says nothing here, nor does a possibility ("can be", "may
tie", "only a card of the led suit can win").
"""
from __future__ import annotations

import re

from .. import model as m
from ..findings import Finding
from .shared import location_of, quote_texts

MUST = re.compile(r"\b(must|has to|have to|is required to|are required to|muss|musst|müssen|müsst|hat zu|haben zu)\b",
                  re.IGNORECASE)
MAY = re.compile(r"\b(may|can|could|is allowed to|are allowed to|is free to|optional(ly)?|darf|darfst|dürfen|dürft|"
                 r"kann|kannst|können|könnt|freiwillig|wahlweise)\b(?!\s+(also\s+|even\s+|still\s+)?(be|become|show|happen|occur|"
                 r"contain|come|lead|result|win|lose|tie|sein|werden|vorkommen|passieren|gewinnen|verlieren)\b)",
                 re.IGNORECASE)
SECRET = re.compile(r"\b(secret(ly)?|in private|privately|without (showing|revealing)|heimlich|geheim|insgeheim)\b",
                    re.IGNORECASE)
# Who a sentence shows something to: one player (the owner, a neighbour, the player themselves looking at
# it) or everyone (all players, the others, face up on the table).
TO_ONE = re.compile(r"\b(to|with) (the|that|this|his|her|their|your|its|one) "
                    r"(owner|player|opponent|neighbou?r|partner)\b"
                    r"|\bto (him|her)\b|\b(looks?|peeks?) at\b|\b(dem|seinem|ihrem|einem) (Besitzer\w*|Spieler|"
                    r"Mitspieler|Nachbarn?)\b|\b(sieht|schaut|schauen) sich\b", re.IGNORECASE)
TO_ALL = re.compile(r"\b(all|every|each|the other|other) (players?|opponents)\b|\b(everyone|everybody)\b|\bto all\b"
                    r"|\bface[- ]?up\b|\bturn(s|ing|ed)? (it |them )?over\b|\ballen\b|\balle (Spieler|Mitspieler)\w*"
                    r"|\baufgedeckt\w*|\boffen\b", re.IGNORECASE)
NEGATION = re.compile(r"\b(not|never|cannot|nicht|nie|niemals|kein\w*)\b|n't\b", re.IGNORECASE)


def sentence_modality(text: str) -> str | None:
    """'must', 'may', or None (no modal verb, a negation, or both kinds)."""
    if NEGATION.search(text):
        return None
    must, may = bool(MUST.search(text)), bool(MAY.search(text))
    if must == may:
        return None
    return "must" if must else "may"


def modality(quotes) -> str | None:
    """What a group of quotes says as a whole: 'must' or 'may' when every sentence with a modal verb
    agrees, else None."""
    said = {sentence_modality(s) for s in _sentences(quotes)} - {None}
    return said.pop() if len(said) == 1 else None


def says_secret(quotes) -> bool:
    """Whether a group of quotes says a choice is made in secret, in a sentence without a negation."""
    return any(SECRET.search(x) and not NEGATION.search(x)
               for x in _sentences(quotes))


def audience(quotes) -> str | None:
    """Who a group of quotes says sees what is shown: 'one' player or 'all', when every sentence that says
    it agrees (and has no negation), else None."""
    said = set()
    for x in _sentences(quotes):
        one, everyone = bool(TO_ONE.search(x)), bool(TO_ALL.search(x))
        if one != everyone and not NEGATION.search(x):
            said.add("one" if one else "all")
    return said.pop() if len(said) == 1 else None


def _sentences(quotes):
    """The sentences (and clauses after a colon or semicolon) of a group of quotes, one by one."""
    for text in quotes:
        yield from re.split(r"(?<=[.!?;:])\s+", text)


def is_pass(action: m.Action) -> bool:
    """An action that declines: no parameters, and it only ends the turn or round, leaves a loop, or does nothing."""
    return not action.binders and all(isinstance(st, (m.End, m.Break)) and getattr(st, "what", "turn") != "game"
                                      for st in m.walk(action.body))


def declinable(choose: m.Choose) -> bool:
    return len(choose.actions) > 1 and any(is_pass(a) for a in choose.actions)


def findings(game: m.Game) -> list[Finding]:
    out: list[Finding] = []
    seen: set = set()

    def report(node, owner, quotes, says, construct):
        line = node.span.line if node.span is not None else 0
        fid = f"{game.name}/modal/{owner.replace(' ', '-')}/{line}" + (
            "/secret" if says == "secret" else "/audience" if says in ("one", "all") else "")
        if fid in seen:
            return
        seen.add(fid)
        if says == "must":
            message = (f"the quote says the player must, but the spec lets them decline: {construct}")
        elif says == "secret":
            message = f"the quote says the choice is made in secret, but the spec shows it to every player: {construct}"
        elif says in ("one", "all"):
            message = (f"the quote shows it to {'one player' if says == 'one' else 'every player'}, but the spec "
                       f"shows it to {'every player' if says == 'one' else 'one player only'}: {construct}")
        else:
            message = f"the quote says the player may, but the spec makes the step happen without a decision: {construct}"
        out.append(Finding(fid, game.name, "modal", "warning", "refuted", "static", message,
                           quotes=list(quotes), location=location_of(node.span), acknowledged_by=_ambiguity_for(game, quotes),
                           hint=HINTS[says],
                           details={"says": says, "construct": CONSTRUCTS[says], "rule": owner}))

    def visit(stmts, owner: str, near: tuple, optional: bool):
        for st in stmts:
            own = tuple(quote_texts(st))
            here = own or near
            if isinstance(st, m.Rule):
                inner_optional = optional or any(isinstance(x, m.Choose) and len(x.actions) > 1
                                                 for x in m.walk(st.body))
                if own and not inner_optional and not any(isinstance(x, m.Choose) for x in m.walk(st.body)) \
                        and modality(own) == "may":
                    report(st, st.name, own, "may", f"rule {st.name} has no decision")
                visit(st.body, st.name, here, optional)
                continue
            if isinstance(st, m.Choose):
                if declinable(st) and modality(here) == "must":
                    passes = ", ".join(a.name for a in st.actions if is_pass(a))
                    report(st, owner, here, "must", f"the decision offers {passes}")
                many = len(st.actions) > 1
                shown = [a for a in st.actions if not a.secret and not a.secret_params
                         and says_secret(tuple(quote_texts(a)) or here)]
                if shown:
                    said = tuple(dict.fromkeys(q for a in shown for q in (tuple(quote_texts(a)) or here)))
                    names = ", ".join(a.name for a in shown)
                    report(st, owner, said, "secret", f"{'action' if len(shown) == 1 else 'actions'} {names} "
                           f"{'is' if len(shown) == 1 else 'are'} not `secret`")
                for a in st.actions:
                    visit(a.body, owner, tuple(quote_texts(a)) or here, optional or many)
                continue
            if isinstance(st, m.Reveal):
                said = audience(here)
                if said is not None and (said == "one") == (st.to is None):
                    report(st, owner, here, said, f"`{m.keyword(st)}` is to "
                           + ("all" if st.to is None else "one player"))
            if own and not optional and not isinstance(st, (m.If, m.Loop, m.For, m.Turns, m.Rounds)) \
                    and modality(own) == "may":
                report(st, owner, own, "may", f"`{m.keyword(st)}` runs whenever it is reached")
            for name in ("body", "then", "orelse"):
                inner = getattr(st, name, None)
                if isinstance(inner, tuple):
                    visit(inner, owner, here, optional)
            for _, body in getattr(st, "branches", ()) or ():
                visit(body, owner, here, optional)

    visit(game.flow.body, "flow", (), False)
    for p in game.procedures:
        visit(p.body, p.name, tuple(quote_texts(p)), _called_optionally(game, p.name))
    for t in game.triggers:
        visit(t.body, f"trigger {t.name}", tuple(quote_texts(t)), False)
    return out


_VERB_HINT = ("if the rulebook's verb is right, change the construct (add or remove the option to decline); if the "
              "spec is right, declare an ambiguity or acknowledge it with an `expect`")
HINTS = {
    "must": _VERB_HINT,
    "may": _VERB_HINT,
    "secret": "mark the action `secret` (or its hidden parameters `secret`) and `announce` what is shown later; if the "
              "choice is open after all, acknowledge it with an `expect`",
    "one": "reveal it to the player the rulebook names (`reveal ... to owner`, `to current`); if it is shown to "
           "everyone after all, acknowledge it with an `expect`",
    "all": "reveal it to everyone (`reveal ... to all`); if only one player sees it after all, acknowledge it with "
           "an `expect`",
}
CONSTRUCTS = {"must": "declinable decision", "may": "forced step", "secret": "public decision",
              "one": "reveal to every player", "all": "reveal to one player"}


def _called_optionally(game: m.Game, name: str) -> bool:
    """Whether every call of a procedure is inside an action of a decision with alternatives (or in
    another such procedure): its steps are then chosen, not forced."""
    calls = []

    def visit(stmts, optional: bool, where: str):
        for st in stmts:
            if isinstance(st, m.Do) and st.procedure == name:
                calls.append((optional, where))
            if isinstance(st, m.Choose):
                for a in st.actions:
                    visit(a.body, optional or len(st.actions) > 1, where)
                continue
            for attr in ("body", "then", "orelse"):
                inner = getattr(st, attr, None)
                if isinstance(inner, tuple):
                    visit(inner, optional, where)
            for _, body in getattr(st, "branches", ()) or ():
                visit(body, optional, where)

    visit(game.flow.body, False, "flow")
    for p in game.procedures:
        if p.name != name:
            visit(p.body, False, p.name)
    for t in game.triggers:
        visit(t.body, False, t.name)
    if not calls:
        return False
    return all(optional or (where != "flow" and where != name and _called_optionally_cached(game, where))
               for optional, where in calls)


_OPTIONAL: dict = {}


def _called_optionally_cached(game: m.Game, name: str) -> bool:
    key = (id(game), name)
    if key not in _OPTIONAL or _OPTIONAL[key][0] is not game:
        _OPTIONAL[key] = (game, False)  # a recursive call counts as forced
        _OPTIONAL[key] = (game, _called_optionally(game, name))
    return _OPTIONAL[key][1]


def _ambiguity_for(game: m.Game, quotes) -> str | None:
    wanted = set(quotes)
    for a in game.ambiguities:
        if wanted & set(quote_texts(a)):
            return a.name
    return None


__all__ = ["findings", "modality", "sentence_modality", "is_pass", "declinable"]
