"""Every invariant and reachability target of a configuration tested on one state by one generated function.

Random play tests them all at every state it passes through. Compiled one by one (`PROP<i>` of the engine),
each is a call, and each works out again what the others worked out (a definition several of them read).
Here they are compiled together, as the whole-game code compiles a test (`direct.DirectCodegen`: a
quantifier over a few values unrolled into one test per value), with one memo of the parts they share:

    broken, reached_now = tests(state, reached)

`broken`: the names of the invariants the state breaks, in the spec's order; `reached_now`: the names
of the targets the state meets that are not yet in `reached` (which the caller updates). A state that
breaks an invariant is tested for the targets too: it is a state the rules reach. The state is a `State` or
anything with the same zones and variables (`direct.Playout`).
"""
from __future__ import annotations

from .direct import DirectCodegen, Unsupported, compiled, program_namespace


class StateTestsCodegen(DirectCodegen):
    def source(self) -> str:
        g = self.g
        invariants = [p for p in g.properties if p.kind == "invariant"]
        targets = [p for p in g.properties if p.kind == "reachable"]

        def body() -> list[str]:
            lines = ["broken = []"]
            lines += [f"if not ({self.whole(p.expr)}): broken.append({p.name!r})" for p in invariants]
            lines += ["new = []"]
            lines += [f"if {p.name!r} not in reached and ({self.whole(p.expr)}): new.append({p.name!r})" for p in targets]
            return lines + ["return broken, new"]

        self.env = {}
        return "\n".join(["def STATE_TESTS(s, reached):", *self.indent(self.on_one_state(body))]) + "\n"


def state_tests(game):
    """The function `tests(state, reached)` of the module docstring, for a loaded game: compiled as one,
    or, where Python refuses its source, `one_by_one`."""
    try:
        codegen, _, code = compiled(lambda: StateTestsCodegen(game.config, game.program.ns),
                                    f"<rulekit:{game.model.name}:{game.num_players()}:tests>")
    except Unsupported:
        return one_by_one(game)
    namespace = program_namespace(game, codegen.consts)
    exec(code, namespace)  # noqa: S102
    return namespace["STATE_TESTS"]


def one_by_one(game):
    """The same function over the engine's own tests, one call each: nothing to compile, for a sample
    too short for the compilation (tens of milliseconds on a large spec) to pay."""
    invariants, targets = game.properties("invariant"), game.properties("reachable")

    def tests(s, reached):
        broken = [p.name for p, test in invariants if not test(s)]
        return broken, [p.name for p, test in targets if p.name not in reached and test(s)]

    return tests
