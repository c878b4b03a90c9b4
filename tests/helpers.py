"""Shared helpers for the tests: playing games at random and small specs written inline."""
from __future__ import annotations

import random
from pathlib import Path

import rulekit
from rulekit.errors import RuleRuntimeError
from rulekit.pipeline import Spec
from rulekit.verify import budget, control, replay

TINY_RULEBOOK = "Tiny Game.\nEach player draws one card.\nThe player with the Ace wins.\n"

# A complete spec of that rulebook: every sentence accounted for, a draw, a winner.
TINY_SPEC = """
game tiny "Tiny"
rulebook "rulebook.txt" source "tiny.txt"
players 2 to 3
unmodelled "Tiny Game." because "Title."
zone box: set, public, initial
zone hand per player: set, owner
card Ace x 1 quote "The player with the Ace wins."
card Two x 2
var drawn: int 0..3 = 0
flow {
  shuffle box
  for p in players {
    random c in box quote "Each player draws one card."
    move c from box to hand(p)
    add 1 to drawn
  }
  for p in players { if exists(c in hand(p) where c == Ace) { win p } }
  end game quote "The player with the Ace wins."
}
"""


def play_random(game, seed: int, max_decisions: int = 5000, on_state=None, auto_chance: bool = True):
    """One seeded random game; `on_state(state)` is called on every state reached."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed, auto_chance=auto_chance)
    decisions = 0
    while True:
        if on_state is not None:
            on_state(state)
        if state.is_terminal() or decisions >= max_decisions:
            return state
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
            continue
        state.apply_action(rng.choice(state.legal_actions()))
        decisions += 1


def play_in_lockstep(state, reference, seed: int, seen) -> None:
    """Play `state` and `reference` with the same seeded random actions (chance drawn by the caller from
    `chance_outcomes`) until `reference` ends, asserting at every step that `seen(state) == seen(reference)`."""
    rng = random.Random(seed)
    while not reference.is_terminal() and reference.legal_actions():
        assert seen(state) == seen(reference)
        if reference.is_chance_node():
            outcomes = reference.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            action = rng.choice(reference.legal_actions())
        state.apply_action(action)
        reference.apply_action(action)


def play_explicit(game, seed: int, choices: int, cap: int, on_state):
    """One random game with chance drawn by the caller from `chance_outcomes` (as OpenSpiel does),
    `on_state(state)` on every state and no deadlock allowed; returns the last state."""
    rng = random.Random(choices)
    state = game.new_initial_state(seed=seed)
    for _ in range(cap):
        on_state(state)
        if state.is_terminal():
            break
        assert state.legal_actions(), "no deadlock"
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    on_state(state)
    return state


def write_spec(tmp_path: Path, text: str, name: str = "tiny", rulebook: str = TINY_RULEBOOK,
               checks: str | None = None) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "rulebook.txt").write_text(rulebook, encoding="utf-8")
    path = folder / f"{name}.rules"
    path.write_text(text, encoding="utf-8")
    if checks is not None:
        path.with_suffix(".checks").write_text(checks, encoding="utf-8")
    return path


def load_text(tmp_path: Path, text: str, **kw):
    return rulekit.load(str(write_spec(tmp_path, text)), **kw)


def compile_text(text: str):
    return Spec(Path("inline.rules"), text=text).model


def option_variants(game: str) -> list[dict[str, str]]:
    """The default options ({}), then each non-default option of each ambiguity on its own."""
    model = Spec.find(game).model
    out: list[dict[str, str]] = [{}]
    for a in model.ambiguities:
        out += [{a.name: o.name} for o in a.options if o.name != a.default]
    return out


def chance(state, text: str) -> None:
    """Take the chance outcome that reads `chance: TEXT`."""
    assert state.is_chance_node(), [state.action_to_string(a) for a in state.legal_actions()]
    action = next((a for a, _ in state.chance_outcomes() if state.action_to_string(a) == f"chance: {text}"), None)
    assert action is not None, (text, [state.action_to_string(a) for a, _ in state.chance_outcomes()])
    state.apply_action(action)


def act(state, text: str) -> None:
    """Take the legal decision that reads `TEXT`."""
    assert not state.is_chance_node()
    names = {state.action_to_string(a): a for a in state.legal_actions()}
    assert text in names, (text, sorted(names))
    state.apply_action(names[text])


def configure(model, players: int, options: dict[str, str] | None = None):
    """The core IR of a model for one configuration, the unchosen ambiguities at their defaults."""
    from rulekit.lower import instantiate

    return instantiate(model, players, {**model.default_options(), **(options or {})})


def one_state_proofs(path, options: dict | None = None) -> dict:
    """The counts abstraction's one-state proofs (`segments.state_proofs`) of the spec at `path`, at
    every player count, under its default options changed by `options`."""
    from rulekit.verify import budget, segments

    spec = Spec.find(str(path))
    game = spec.model
    configs = [spec.config(p, {**game.default_options(), **(options or {})})
               for p in range(game.min_players, game.max_players + 1)]
    with budget.fresh_context():
        return segments.state_proofs(configs)


def whole_relations(text: str, folder):
    """(players, whole-language relation, spec) of a random game's `text` (`random_specs`), written to
    `folder`, at each player count its relation fits."""
    spec = Spec.find(str(write_spec(folder, text, name="fz", rulebook=TINY_RULEBOOK)))
    for players in range(spec.model.min_players, spec.model.max_players + 1):
        try:
            system = control.build(spec.config(players))
        except budget.TooLarge:
            continue
        yield players, system, spec


def random_game(loaded, seed: int, decisions: int, stop_at_rule_error: bool = False) -> tuple[list[int], int]:
    """(history, decisions made) of a game played at random from `seed`: each chance outcome by its
    weight, each decision uniform, until the end, a deadlock, `decisions` decisions or, with
    `stop_at_rule_error`, a rule error (which is raised otherwise)."""
    rng = random.Random(seed)
    state = loaded.new_initial_state(seed)
    made = 0
    while not state.is_terminal() and made < decisions and state.legal_actions():
        decision = not state.is_chance_node()
        if decision:
            action = rng.choice(state.legal_actions())
        else:
            outcomes, weights = zip(*state.chance_outcomes())
            action = rng.choices(outcomes, weights)[0]
        try:
            state.apply_action(action)
        except RuleRuntimeError:
            if not stop_at_rule_error:
                raise
            break
        made += decision
    return list(state.history), made


def follow_random_games(spec: Spec, players: int, seeds: range, decisions: int,
                         command_limit: int | None = None) -> tuple[int, int]:
    """(decisions followed, games followed to the end or to the step limit) over random engine games, each
    walked through the whole-language relation (`replay.follow`), which must agree with it at every step."""
    system = control.build(spec.config(players), command_limit=command_limit)
    loaded = spec.engine(players)
    followed = whole = 0
    for seed in seeds:
        history, steps = random_game(loaded, seed, decisions)
        problems, n = replay.follow(system, loaded, history)
        assert not problems, (seed, problems)
        followed += n
        whole += n == steps
    return followed, whole
