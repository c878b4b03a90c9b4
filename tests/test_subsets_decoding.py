"""Sets of cards in the engine: numbers decoded back to the sets (`subsets.from_index` and the remembering
`Decoder`), and a set taken out of a zone (`runtime.take_bag`)."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.engine import runtime, subsets
from rulekit.errors import RuleRuntimeError


def every_bag(copies):
    """Every multiset of kinds that `copies` allows, by brute force."""
    for counts in itertools.product(*(range(c + 1) for c in copies)):
        yield tuple(kind for kind, n in enumerate(counts) for _ in range(n))


@given(copies=st.lists(st.integers(0, 3), min_size=1, max_size=6))
def test_every_number_decodes_to_its_set_kinds_without_copies_included(copies):
    weights = subsets.weights(copies)
    decoder = subsets.Decoder(copies)
    for bag in every_bag(copies):
        number = subsets.index(bag, weights)
        assert subsets.from_index(number, copies) == bag
        assert decoder.bag(number) == bag
        assert decoder.bag(number) == bag, "a number decoded again gives the same set"


def test_a_set_of_the_last_kinds_only_is_decoded_past_the_leading_zero_digits():
    copies = [2, 0, 1, 0, 3]
    weights = subsets.weights(copies)
    assert subsets.from_index(subsets.index((4, 4), weights), copies) == (4, 4)
    assert subsets.from_index(subsets.index((0, 2, 4), weights), copies) == (0, 2, 4)
    assert subsets.from_index(0, copies) == ()


def test_the_decoder_starts_afresh_when_full_and_still_decodes_right(monkeypatch):
    monkeypatch.setattr(subsets, "DECODED_KEPT", 4)
    copies = [3, 3]
    weights = subsets.weights(copies)
    decoder = subsets.Decoder(copies)
    bags = list(every_bag(copies))
    for bag in bags * 2:
        assert decoder.bag(subsets.index(bag, weights)) == bag
    assert len(decoder) <= 4


def zone_state(cards):
    return SimpleNamespace(z=[list(cards), []], lo=[0, 0], hi=[0, 0], kind_names=["ace", "king", "queen"],
                           zone_names=["table", "pile"])


def test_a_set_of_cards_is_taken_whole():
    s = zone_state([0, 0, 1, 2])
    assert runtime.take_bag(s, 0, (0, 0, 2), None) == [0, 0, 2]
    assert s.z[0] == [1]


def test_a_set_of_cards_the_zone_lacks_is_a_rule_error_that_takes_nothing():
    s = zone_state([0, 1, 2])
    with pytest.raises(RuleRuntimeError, match="no ace left in zone 'table' for this set of cards"):
        runtime.take_bag(s, 0, (0, 0, 1), None)
    assert s.z[0] == [0, 1, 2]
