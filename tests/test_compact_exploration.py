"""What lets the explorer hold millions of states: packed states, flat successor arrays, fingerprints."""
from __future__ import annotations

import random

import pytest

from rulekit import load
from rulekit.verify import graphs, termination
from rulekit.verify.endless import kept_going
from rulekit.verify.explore import Limits, explore, state_key
from rulekit.verify.successors import Successors, cyclic_core
from tests.helpers import load_text

# Play can go round for ever: count up to three, start again, until someone stops.
COUNTER_GAME = """
game counter "Counter"
rulebook "rulebook.txt" source "counter.txt"
players 2 to 2
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
zone box: set, public, initial
var n: int 0..3 = 0
flow {
  loop {
    choose by current {
      action up when n < 3 "Count up." { add 1 to n }
      action again when n == 3 "Start again." { set n = 0 }
      action stop "Stop." { win current  end game }
    }
  }
}
"""


@pytest.mark.parametrize("name, players", [("chocobo", 3), ("chucky", 3), ("chicken", 2), ("chuche", 3), ("cranky", 5)])
def test_a_packed_state_plays_on_exactly_as_the_state_it_was_packed_from(name, players):
    game = load(name, players=players)
    exact = state_key(game)
    rng = random.Random(7)
    state = game.new_initial_state(seed=0).fork()
    for _ in range(120):
        if state.over:
            break
        again = state.unpack(state.pack())
        assert exact(again) == exact(state)
        assert again.legal == state.legal and again.to_move == state.to_move and again.chance == state.chance
        action = rng.choice(state.legal)
        state.apply_action(action)
        again.apply_action(action)
        assert exact(again) == exact(state)


def test_a_packed_state_with_a_value_marshal_refuses_still_comes_back():
    game = load("chocobo", players=3)
    state = game.new_initial_state(seed=0).fork()
    state.fr[-1].append(Opaque(3))  # a value of a kind the language may grow, which marshal refuses
    packed = state.pack()
    assert packed[:1] == b"p"
    assert state.unpack(packed).fr[-1][-1] == Opaque(3)


class Opaque:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return isinstance(other, Opaque) and other.n == self.n


def test_successors_read_like_lists_and_refuse_to_be_written_out_of_order():
    s = Successors()
    s.expand(0, [1, 2])
    s.skip(1)
    s.expand(2, [2, 0])
    s.states = 5
    assert [list(x) for x in s] == [[1, 2], [], [2, 0], [], []]
    assert list(s[2]) == [2, 0] and not s[4] and len(s) == 5 and s.count == 4
    with pytest.raises(ValueError, match="out of order"):
        s.expand(4, [0])
    with pytest.raises(IndexError):
        s[5]


def test_the_flat_exploration_finds_what_lists_of_states_found():
    """The counts and shortest paths of a complete exploration, and its graph, read back from the arrays."""
    r = explore(load("benchmarks/tokens/tokens.rules", players=3), Limits(symmetry=False))
    assert r.complete and r.states == 216 and len(r.edges) == 216
    assert sum(len(e) for e in r.edges) == r.edges.count
    for i in range(1, r.states):
        assert i in r.edges[r.parent[i]]
    assert r.fingerprint_bits == 128 and 0 < r.collision_bound < 1e-30


def test_the_cyclic_core_keeps_every_cycle_and_nothing_that_cannot_lie_on_one():
    # 0 -> 1 -> 2 -> 1 (a cycle), 2 -> 3 (an end), 0 -> 4 -> 4 (a self-loop), 5 -> 0 (a lead-in)
    lists = [[1, 4], [2], [1, 3], [], [4], [0]]
    assert cyclic_core(lists) == [1, 2, 4]
    assert cyclic_core(lists, leave_out={4}) == [1, 2]
    assert cyclic_core([[1], [2], []]) == []
    assert [list(x) for x in Successors.of(lists).reverse()] == [[5], [0, 2], [1], [2], [0, 4], []]


def test_termination_and_kept_going_read_the_flat_graph(tmp_path):
    """A game that can go round for ever: the lasso and the states where the players keep it going are
    found from the arrays; no state is trapped, since stopping is always allowed."""
    game = load_text(tmp_path, COUNTER_GAME, players=2)
    r = explore(game, Limits())
    r.loaded = game  # as `check` sets it, for the lasso's replay
    assert r.complete and isinstance(r.edges, Successors)
    assert not termination.acyclic(r)
    found = termination.lasso(r, state_key(game), state_key(game))
    assert found is not None and found.loop
    assert graphs.trapped(r) is None
    assert kept_going(r) == {i for i in range(r.states) if i not in r.terminal}


def test_actions_of_any_size_are_kept_on_the_paths():
    """A choice of cards is numbered by its subset, so the ids of the actions after it pass 64 bits:
    the paths keep them whole (an exploration from a state of a random game, as the loop search does)."""
    game = load("chuche", players=3)
    rng = random.Random(0)
    state = game.new_initial_state(seed=0)
    while not any(a >= 2 ** 63 for a in state.legal):
        state.apply_action(rng.choice(state.legal))
    r = explore(game, Limits(max_states=50), prefix=list(state.history))
    big = [i for i in range(r.states) if r.via[i] >= 2 ** 63]
    assert big
    game.replay(r.path(big[0]))


def test_equal_states_get_one_key_however_their_values_are_shared():
    """A value met twice may be one object or two equal ones: the key must not tell them apart."""
    game = load("chocobo", players=3)
    key = state_key(game)
    a, b = game.new_initial_state(seed=0).fork(), game.new_initial_state(seed=0).fork()
    shared = int("1000001")
    a.v[0] = a.v[1] = shared
    b.v[0], b.v[1] = int("1000001"), int("1000001")
    assert a.v == b.v and a.v[0] is a.v[1] and b.v[0] is not b.v[1]
    assert key(a) == key(b)
