"""The draws of seeded games computed ahead: the same draws as each seed's own stream."""
from __future__ import annotations

from rulekit.engine.state import splitmix
from rulekit.engine.stream import MAX_FIRST, DrawCounts, SeedStreams


def test_streams_handed_out_in_order_or_not_are_each_seeds_draws():
    ahead = SeedStreams(block=4)
    for seed in [3, 4, 5, 9, 10, 2, 11, 12, 13, 14, 15, 16]:
        stream = ahead.take(seed, 6)
        assert [stream.at(t) for t in range(10)] == [splitmix(seed, t) for t in range(10)]
    assert set(ahead.ahead) == {17, 18, 19}  # in order since 11: blocks from 12 and 16


def test_the_draws_computed_up_front_follow_the_games_lately():
    counts = DrawCounts()
    first = counts.first
    for _ in range(200):
        counts.seen(300)
    assert counts.first >= 300 > first
    for _ in range(200):
        counts.seen(10**6)
    assert counts.first == MAX_FIRST
