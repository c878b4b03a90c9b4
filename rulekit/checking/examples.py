"""Rulebook examples as checks: each `example` replayed exactly in the engine, step by step from the start."""
from __future__ import annotations

from .. import model as m
from ..errors import RuleRuntimeError, SpecError
from ..findings import Finding
from ..pipeline import Spec
from .shared import location_of, quote_texts, setup_error
from .witnesses import witness
from ..phrases import counted

SHOWN_MOVES = 8  # legal moves named when a step cannot occur


def example_findings(spec: Spec, game: m.Game) -> list[Finding]:
    return [_check(spec, game, example) for example in game.examples]


def _check(spec: Spec, game: m.Game, example: m.Example) -> Finding:
    fid = f"{game.name}/example/{example.name}"
    under = dict(example.under)
    common = dict(quotes=quote_texts(example), options=under,
                  bound={"players": example.players, "steps": len(example.steps)})

    def failed(message: str, location, state=None) -> Finding:
        return Finding(fid, game.name, "example", "error", "refuted", "replay", f"example {example.name}: {message}",
                       location=location_of(location), witness=witness(state) if state is not None and state.history
                       else None, **common)

    try:
        loaded = spec.engine(example.players, {**game.default_options(), **under})
        state = loaded.new_initial_state()
    except (RuleRuntimeError, SpecError) as exc:
        message, _ = setup_error(exc)
        return failed(f"the game cannot be set up ({message})", example.span)
    for number, (text, span) in enumerate(example.steps, 1):
        if state.is_terminal():
            return failed(f"step {number} \"{text}\" cannot occur: the game is already over", span, state)
        names = {state.action_to_string(a): a for a in state.legal}
        if text not in names:
            who = "chance" if state.is_chance_node() else loaded.player_name(state.current_player())
            shown = sorted(names)[:SHOWN_MOVES]
            more = f", and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
            legal = ", ".join(f'"{n}"' for n in shown) + more if names else "none (no one can move)"
            return failed(f"step {number} \"{text}\" cannot occur here; what {who} can do: {legal}", span, state)
        try:
            state.apply_action(names[text])
        except RuleRuntimeError as exc:
            return failed(f"step {number} \"{text}\": a rule could not be carried out ({exc})", span, state)
    test = loaded.compile_expression(example.expr)
    try:
        holds = bool(test(state))
    except RuleRuntimeError as exc:
        return failed(f"its expectation cannot be evaluated at the end ({exc})", example.expr.span, state)
    if not holds:
        return failed(f"after its {len(example.steps)} steps the game does not end as the rulebook says: the "
                      "expectation is false", example.expr.span, state)
    players = f"{example.players} player{'s' if example.players != 1 else ''}"
    return Finding(fid, game.name, "example", "info", "proven", "replay",
                   f"example {example.name} plays out as the rulebook says, in {counted(len(example.steps), 'step')} with "
                   f"{players}" + (f": {example.description}" if example.description else ""),
                   location=location_of(example.span), witness=witness(state) if state.history else None, **common)
