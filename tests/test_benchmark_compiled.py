"""benchmarks/compiled.py: the check that a compiled flow plays the same games as the Python one."""
from __future__ import annotations

import sys
from pathlib import Path

import rulekit

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import compiled as bench  # noqa: E402


def test_the_same_flow_plays_the_same_games_and_a_changed_one_does_not():
    game = rulekit.load("chucky", players=2)
    batch, stepping = game.whole_games, game.stepping
    flow, step_flow = batch.flow, stepping.flow

    def longer(s):  # one decision more counted in every game
        try:
            flow(s)
        finally:
            s.made += 1

    def other_choices(s):  # the caller's first answer ignored: another legal action taken
        gen = step_flow(s)
        player, options = gen.send(None)
        answer = yield player, options
        options = list(options)
        stopped = gen.send(options[(options.index(answer) + 1) % len(options)])
        while True:
            answer = yield stopped
            stopped = gen.send(answer)

    try:
        assert bench.same_batch(game, batch, (flow, flow))
        assert not bench.same_batch(game, batch, (flow, longer))
        assert bench.same_steps(game, stepping, (step_flow, step_flow))
        assert not bench.same_steps(game, stepping, (step_flow, other_choices))
    finally:
        batch.flow, stepping.flow = flow, step_flow
