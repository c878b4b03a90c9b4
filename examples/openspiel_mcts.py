"""OpenSpiel's MCTS against random players, on a rulekit game.

    pip install ".[openspiel]"
    python examples/openspiel_mcts.py [--games 10] [--simulations 40] [--seed 1]

Seat 0 is open_spiel's MCTSBot (UCT with random rollouts); the other seats are uniform
random bots. Note that plain MCTS searches the true state, so it sees the other players'
hidden hands (not the deck order, which rulekit leaves undetermined until a card is drawn);
OpenSpiel's ISMCTS (open_spiel.python.algorithms.ismcts) is the fair choice for play.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from rulekit import openspiel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="chocobo")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--simulations", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    game = openspiel.load_game(args.game, players=args.players)
    rng = np.random.RandomState(args.seed)
    bots = [mcts.MCTSBot(game, uct_c=2.0, max_simulations=args.simulations,
                         evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                         random_state=rng, solve=False)]
    bots += [pyspiel.make_uniform_random_bot(p, args.seed + p) for p in range(1, args.players)]

    start = time.time()
    totals = np.zeros(args.players)
    wins = np.zeros(args.players, int)
    for _ in range(args.games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
            else:
                state.apply_action(bots[state.current_player()].step(state))
        returns = np.array(state.returns())
        totals += returns
        wins += returns == game.max_utility()
    print(f"{game.get_type().short_name}, {args.players} players, {args.games} games, "
          f"MCTS ({args.simulations} simulations/move) in seat 0, random bots elsewhere")
    for p in range(args.players):
        who = "MCTS  " if p == 0 else "random"
        print(f"  seat {p} {who}: {wins[p]} wins, mean return {totals[p] / args.games:+.2f}")
    print(f"  ({time.time() - start:.1f} s)")


if __name__ == "__main__":
    main()
