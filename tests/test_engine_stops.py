"""The chance stops of stepped states: remembered events are the events worked out anew."""
from __future__ import annotations

import random

from rulekit.engine import stepping


def test_a_remembered_card_event_is_the_event_of_those_cards(monkeypatch):
    monkeypatch.setattr(stepping, "CARD_EVENTS_KEPT", 16)  # forgotten and worked out again, too
    events = stepping.CardEvents()
    rng = random.Random(4)
    for _ in range(300):
        cards = rng.choices(range(rng.randint(1, 12)), k=rng.randint(1, 40))  # few cards and many, in any order
        event = events.event(cards)
        assert event == stepping.counted_event(cards)
        if event is not None:
            _, counts, outcomes, chances = event
            assert outcomes == sorted(set(cards)) and counts == {k: cards.count(k) for k in outcomes}
            assert chances == [(k, cards.count(k) / len(cards)) for k in outcomes]
        assert len(events.events) <= 16


def test_events_met_again_seldom_are_no_longer_remembered(monkeypatch):
    monkeypatch.setattr(stepping, "CARD_EVENTS_KEPT", 8)
    often, seldom = stepping.CardEvents(), stepping.CardEvents()
    for i in range(40):
        often.event([1, 2, i % 2])  # two hands, met again and again
        seldom.event([1, 2, 3 + i])  # never the same twice
    assert often.on and not seldom.on
    assert seldom.event([1, 2]) == stepping.counted_event([1, 2]) and not seldom.events


def test_a_deal_from_a_shuffled_block_offers_each_kind_at_its_share_of_the_block():
    """The engine counts a few cards one scan per kind and many with a `Counter`: both give each kind's copies."""
    from rulekit import load
    from rulekit.engine.runtime import SCANNED_CARDS

    kinds_seen = set()
    for name, players in [("chocobo", 3), ("chucky", 3), ("chuche", 3), ("cranky", 5)]:
        game = load(name, players=players)
        rng = random.Random(5)
        for seed in range(3):
            state = game.new_initial_state(seed=seed).fork()
            for _ in range(150):
                if state.over:
                    break
                if state.chance is not None and state.resume[0] == "fix":
                    zone = state.resume[1]
                    block = state.z[zone][state.lo[zone]:state.hi[zone]]
                    kinds = sorted(set(block))
                    assert state.legal == kinds
                    assert state.chance == [(k, block.count(k) / len(block)) for k in kinds]
                    kinds_seen.add(len(block) > SCANNED_CARDS)
                state.apply_action(rng.choice(state.legal))
    assert kinds_seen == {True, False}  # both ways of counting were met
