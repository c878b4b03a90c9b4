"""A straightforward hand-written Chucky: The Game: the speed baseline for benchmarks/engine.py.

It follows specs/chucky/chucky.rules under its default options (6 Void, 5 Terror, 5 Hiding Place;
one press in six attacks; a peek allowed with four Fear tokens, the peeked card staying face down;
a wound does not stop a stronger attack nor the other players' provocations; the Enraged Chucky
goes in face down and revealing it reorganizes its row and column; the all-weapons reorganization
each time the three weapons have been revealed and resolved since the last one; wounds count
without tokens; a grid with no face-down card is turned face down and reshuffled).

It plays at random with `random.Random`, choosing uniformly among the legal decisions and
counting every decision the spec offers, even one with a single option, as the engine does.
It is not used by rulekit.
"""
from __future__ import annotations

import random

ROWS, COLUMNS = 4, 5
SIZE = ROWS * COLUMNS
VOID, TERROR, HIDING, KNIFE, HAMMER, SCISSORS, CHUCKY, ENRAGED = range(8)
DECK = [VOID] * 6 + [TERROR] * 5 + [HIDING] * 5 + [KNIFE, HAMMER, SCISSORS, CHUCKY]
FEAR_CAP = 5
ATTACK_CHANCE = 1 / 6
LOST, WON = 0, 1

# Positions are row * COLUMNS + column. ADJACENT: the up to 8 neighbours; LINE: the other cards of
# the same row or column; CROSS: the position and its LINE (the cards a reorganization gathers).
ADJACENT = [[r * COLUMNS + c
             for r in range(x // COLUMNS - 1, x // COLUMNS + 2) for c in range(x % COLUMNS - 1, x % COLUMNS + 2)
             if 0 <= r < ROWS and 0 <= c < COLUMNS and r * COLUMNS + c != x] for x in range(SIZE)]
LINE = [[y for y in range(SIZE) if y != x and (y // COLUMNS == x // COLUMNS or y % COLUMNS == x % COLUMNS)]
        for x in range(SIZE)]
CROSS = [[x] + LINE[x] for x in range(SIZE)]

NO_PEEK = TAKE_FEAR = NO_TARGET = ONLY_ONE = -1
STRONGER = -2


class GameOver(Exception):
    """Raised the moment the game ends; carries the outcome code."""


def play(players: int, rng: random.Random) -> tuple[int, int]:
    """One random game; returns (decisions made, 1 if the players won else 0)."""
    choice, rand, shuffle = rng.choice, rng.random, rng.shuffle
    cards = DECK[:]
    shuffle(cards)
    down = [True] * SIZE          # face down?
    fear = [0] * players
    wounds = [0] * players
    resolved = set()              # weapons revealed and resolved
    fired = []                    # the all-weapons reorganization happens once per game
    decisions = 0
    current = 0

    def take_fear(p, n):
        fear[p] = min(FEAR_CAP, fear[p] + n)

    def provoke(p):
        """Press once per Fear token; returns whether Chucky attacked."""
        for _ in range(fear[p]):
            if rand() < ATTACK_CHANCE:
                wounds[p] += 1
                fear[p] = max(0, fear[p] - 2)
                if wounds[p] >= 2:
                    raise GameOver(LOST)
                return True
        return False

    def reorganize(x):
        cross = CROSS[x]
        pile = [cards[y] for y in cross]
        shuffle(pile)
        for y, c in zip(cross, pile):
            cards[y] = c
            down[y] = True

    def attack(y):
        c = cards[y]
        if c == CHUCKY:  # replaced face down by the Enraged Chucky, then its row and column reorganized
            cards[y] = ENRAGED
            reorganize(y)
        elif c == ENRAGED:
            raise GameOver(WON)
        else:
            down[y] = False

    def weapon(x, w):
        nonlocal decisions
        options = [y for y in ADJACENT[x] if down[y]]
        if not options:
            options.append(NO_TARGET)
        if w == SCISSORS:
            strong = True in down
        else:
            strong = any(down[y] for y in LINE[x])
        if strong:
            options.append(STRONGER)
        decisions += 1
        y = choice(options)
        if y >= 0:
            attack(y)
        elif y == STRONGER:
            if fear[current]:
                provoke(current)  # a wound does not stop the attack
            if w == KNIFE:
                decisions += 2  # the card to look at, then attack it or leave it
                y = choice([y for y in LINE[x] if down[y]])
                if rand() < 0.5:
                    attack(y)
            elif w == HAMMER:
                decisions += 1
                attack(choice([y for y in LINE[x] if down[y]]))
                targets = [y for y in LINE[x] if down[y]]
                if targets:
                    targets.append(ONLY_ONE)
                    decisions += 1
                    y = choice(targets)
                    if y >= 0:
                        attack(y)
            else:
                decisions += 1
                attack(choice([y for y in range(SIZE) if down[y]]))
        resolved.add(w)

    def all_weapons_trigger():
        """Checked before a decision; the three flags can only complete at the end of a turn."""
        nonlocal decisions
        if len(resolved) == 3 and not fired:
            decisions += 1
            reorganize(choice([x for x in range(SIZE) if KNIFE <= cards[x] <= SCISSORS]))
            fired.append(True)  # once per game

    try:
        while True:
            # 1. Peek (optional): costs two Fear (clamped at the cap); the card stays face down.
            if fear[current] < FEAR_CAP:
                all_weapons_trigger()
                options = [x for x in range(SIZE) if down[x]]
                options.append(NO_PEEK)
                decisions += 1
                if choice(options) != NO_PEEK:
                    take_fear(current, 2)
            # 2. Reveal.
            if True not in down:  # no face-down card: the whole grid is turned face down and reshuffled
                down[:] = [True] * SIZE
                shuffle(cards)
            all_weapons_trigger()
            decisions += 1
            x = choice([x for x in range(SIZE) if down[x]])
            voids = 0
            while True:  # a Void may chain to an adjacent card
                down[x] = False
                c = cards[x]
                if c == VOID:
                    voids += 1
                    options = [y for y in ADJACENT[x] if down[y]]
                    options.append(TAKE_FEAR)
                    decisions += 1
                    x = choice(options)
                    if x == TAKE_FEAR:
                        take_fear(current, 1)
                        break
                    continue
                if c == TERROR:
                    take_fear(current, 1 + voids)
                    provoke(current)
                elif c == HIDING:
                    fear[current] = max(0, fear[current] - 2)
                elif c == CHUCKY:
                    take_fear(current, 2)
                    provoke(current)
                    reorganize(x)
                elif c == ENRAGED:
                    take_fear(current, 2)
                    for i in range(players):
                        provoke((current + i) % players)
                    reorganize(x)
                else:
                    weapon(x, c)
                break
            current = (current + 1) % players
    except GameOver as end:
        return decisions, end.args[0]


if __name__ == "__main__":
    import sys
    import time

    games = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for players in range(1, 6):
        rng = random.Random(players)
        start = time.perf_counter()
        results = [play(players, rng) for _ in range(games)]
        elapsed = time.perf_counter() - start
        made = [d for d, _ in results]
        mean = sum(made) / games
        sd = (sum((d - mean) ** 2 for d in made) / (games - 1)) ** 0.5
        won = sum(o for _, o in results) / games
        print(f"{players} players: {mean:.2f} decisions/game (sd {sd:.1f}, se {sd / games ** 0.5:.2f}), "
              f"win rate {won:.4f} (se {(won * (1 - won) / games) ** 0.5:.4f}), "
              f"{sum(made) / elapsed:,.0f} decisions/s")
