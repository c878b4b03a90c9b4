"""A straightforward hand-written Chocobo's Crystal Hunt: the speed baseline for benchmarks/engine.py.

It follows the spec's default options and plays at random with `random.Random`,
shuffling with random.shuffle and choosing uniformly among the legal decisions,
as a developer writing one game by hand would. It is not used by rulekit.
"""
from __future__ import annotations

import random

CRYSTALS = ("fire", "water", "wind", "earth")
DECK = (["chocobo"] * 14 + ["fat"] * 5 + [c for c in CRYSTALS for _ in range(4)] + ["bomb"] * 4 + ["ahriman"] * 4)


def _objective(hand) -> bool:
    crystals = [c for c in hand if c in CRYSTALS]
    return len(crystals) >= 6 or all(c in crystals for c in CRYSTALS)


def play(players: int, rng: random.Random) -> tuple[int, int]:
    """One random game; returns (decision steps, winner)."""
    markers = ["fire", "water", "wind"] + (["earth"] if players >= 4 else []) + (["chocobo"] if players == 5 else [])
    rng.shuffle(markers)
    wins = [0] * players
    decisions = 0
    while True:
        pool = list(DECK)
        hands = [[] for _ in range(players)]
        for p in range(players):
            if markers[p] != "chocobo":
                pool.remove(markers[p])
                hands[p].append(markers[p])
            pool.remove("fat")
            hands[p].append("fat")
        pool = [c for c in pool if c != "fat"]
        rng.shuffle(pool)
        deck = pool
        for p in range(players):
            while len(hands[p]) < 3:
                hands[p].append(deck.pop())
        discard = []
        cur = markers.index("fire")
        first = True
        round_over = False
        while not round_over:
            hand = hands[cur]
            if not first and deck:
                hand.append(deck.pop())
            first = False
            while True:
                options = [None]
                hunters = sorted({c for c in hand if c in ("chocobo", "fat")})
                targets = [t for t in range(players) if t != cur and hands[t]]
                options += [(h, t) for h in hunters for t in targets]
                decisions += 1
                choice = rng.choice(options)
                if choice is None:
                    break
                h, t = choice
                hand.remove(h)
                victim = hands[t]
                x = victim.pop(rng.randrange(len(victim)))
                if x in CRYSTALS:
                    hand.append(x)
                    hand.append(h)
                    if h == "fat":
                        break
                    continue
                if x in ("chocobo", "fat"):
                    victim.append(x)
                    if h == "fat":
                        hand.append(h)
                        break
                    discard.append(h)
                    continue
                if x == "bomb" and hand:
                    decisions += 1
                    deck.insert(0, hand.pop(rng.randrange(len(hand))))
                if h == "fat":
                    hand.append(h)
                else:
                    discard.append(h)
                discard.append(x)
                if deck:
                    victim.append(deck.pop())
                break
            if _objective(hand):
                wins[cur] += 1
                if wins[cur] >= 2:
                    return decisions, cur
                markers = markers[-1:] + markers[:-1]
                round_over = True
            else:
                cur = (cur + 1) % players
