"""Whole games with a watcher at every state a player would see: the sampled checks' fast path.

`rulekit check` tests the invariants and targets at every state of its random games, and notes the
actions taken, the triggers fired after them, the decisions with one option and the silent-case sites
reached. The engine's `State` (built with probes) does all that one call at a time. Here the whole-game
code of `rulekit.engine.direct` is compiled once more, with the silent-case probes and with a call of
`watch(s, options)` at each decision (once the triggers due have fired, before the pick) and once at the
end, so a game runs as fast as a playout and still shows the watcher every state the caller of the State
API would test. The game is the one the engine plays from the same seed with the same picks
(`rulekit.engine.playouts`); what the watcher does not know how to record (a witness's history, a rule
error) the checks get by playing that game again through `State`.
"""
from __future__ import annotations

from .direct import (CUT, DEADLOCK, NO_WINNER, WON, Cut, Deadlock, DirectCodegen, GameOver, Playout, Unsupported,
                     compiled, program_namespace)
from .stream import Stream


class WatchedCodegen(DirectCodegen):
    """`DirectCodegen` with the probes, each action taken noted, and `watch(s, _o)` called at each decision:
    the invariants and targets tested by the game's `state_tests` (see `rulekit.engine.statetests`)."""

    def decision_lines(self, st) -> list[str]:
        return ["watch(s, _o)", *super().decision_lines(st), "TAKEN.append(_a)"]

    def source(self) -> str:
        return super().source() + "\n".join(self.watch_lines()) + "\n"

    def watch_lines(self) -> list[str]:
        # play goes on past a broken invariant, as the checks' random play does
        return ["def watch(s, _o):", "    w = WATCHER", "    w.states += 1",
                *(["    w.note_triggers(s)"] if self.g.triggers else []),
                "    broken, new = STATE_TESTS(s, w.reached)", "    if broken:", "        w.note_broken(broken)",
                "    w.reached.update(new)",
                "    if len(_o) == 1 and s.made < s.max_steps:", "        w.singles.append(_o[0])"]


class Watch:
    """What one game showed the watcher: states seen, invariants broken (each once, in the order first
    broken), targets reached, decisions with one option (their action ids), triggers fired after each action."""

    __slots__ = ("trigger_count", "states", "broken", "reached", "singles", "fired", "armed", "taken")

    def __init__(self, trigger_count: int, taken: list):
        self.trigger_count = trigger_count
        self.taken = taken  # the action ids picked, in order (the generated code appends to it)
        self.reset()

    def reset(self) -> None:
        self.states = 0
        self.broken: list[str] = []
        self.reached: set[str] = set()
        self.singles: list[int] = []  # the one option of each decision that had one
        self.fired: list[tuple[int, list[int]]] = []  # (index in `taken` of the action, triggers fired after it)
        self.armed = [True] * self.trigger_count
        self.taken.clear()

    def note_broken(self, names) -> None:
        broken = self.broken
        broken.extend(name for name in names if name not in broken)

    def note_triggers(self, s) -> None:
        """The triggers that fired since the last state seen: after the action taken there."""
        now, before = s.armed, self.armed
        fired = [i for i, was in enumerate(before) if was and not now[i]]
        if fired and self.taken:
            self.fired.append((len(self.taken) - 1, fired))
        self.armed = list(now)


class WatchedProgram:
    """The watched whole-game code of one loaded game (built with probes: see `Game(probes=True)`). Its
    silent-case probes record in the game's `probe_hits`, as the engine's functions it calls do."""

    def __init__(self, game):
        codegen, self.source, code = compiled(
            lambda: WatchedCodegen(game.config, game.program.ns, game.probe_sites),
            f"<rulekit:{game.model.name}:{game.num_players()}:watched>")
        self.taken: list[int] = []
        self.watch = Watch(len(game.config.game.triggers), self.taken)
        namespace = program_namespace(game, codegen.consts)
        namespace.update(HITS=game.probe_hits, WATCHER=self.watch, TAKEN=self.taken, STATE_TESTS=game.state_tests)
        exec(code, namespace)  # noqa: S102
        self.flow = namespace["FLOW"]
        self.watch_state = namespace["watch"]
        self.game = game

    def play(self, seed: int, max_steps: int, rng) -> Playout | None:
        """One game as `DirectProgram.play` plays it, watched: the watcher (`self.watch`) holds what it
        saw; None when the engine must play it instead (a rule error, or a loop it alone can judge)."""
        self.watch.reset()
        s = Playout(self.game, seed, max_steps, rng, Stream(seed))
        try:
            self.flow(s)
            s.over = True
        except GameOver:
            s.over = True
        except Deadlock:
            s.end = DEADLOCK
        except Cut:
            s.end = CUT
        except Exception:  # noqa: BLE001 - a rule error, an `end turn` outside turns, ...: the engine's to say
            return None
        if s.over:
            s.end = WON if s.winners else NO_WINNER
            try:
                self.watch_state(s, ())
            except Exception:  # noqa: BLE001 - a test that fails on the end state: the engine's to say
                return None
        return s


def watched_program(game) -> WatchedProgram | None:
    """The watched whole-game code of a game built with probes, or None where the whole-game compiler
    does not cover its rules."""
    try:
        return WatchedProgram(game)
    except Unsupported:
        return None
