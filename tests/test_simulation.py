"""Simulation at scale: the same seed gives the same summary in this process, on local processes and on
a Dask LocalCluster; a dying worker loses nothing; `rulekit check --dask` reports what one process reports;
and `rulekit simulate --stat/--stat-each-round/--plot/--json`."""
from __future__ import annotations

import json
import os
import sys

import pytest

import rulekit
from rulekit import executors
from rulekit.checking import PlayBounds, check_spec
from rulekit.cli import main
from rulekit.errors import SpecError
from rulekit.expressions import compile_expression
from rulekit.pipeline import Spec
from rulekit.simulation import SimulationConfig, chunks, merge, play_chunk, simulate
from tests.helpers import TINY_SPEC as TINY, write_spec

distributed = pytest.importorskip("distributed")

STATS = {"deck": "size(deck)", "played": "rounds_played", "long_hand": "exists(p in players where size(hand(p)) > 3)"}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- same seed, same answer --------------------------------------------------------------------------------

def test_the_summary_is_identical_in_process_on_local_processes_and_on_dask(client):
    kw = dict(games=48, seed=5, players=4, stats=STATS, each_round=True)
    here = simulate("chocobo", jobs=1, chunk_games=48, **kw)
    processes = simulate("chocobo", jobs=2, chunk_games=5, **kw)
    on_dask = simulate("chocobo", client=client, chunk_games=7, **kw)
    assert here.summary == processes.summary == on_dask.summary
    assert here.to_dict() == processes.to_dict() == on_dask.to_dict()
    assert (here.chunks, processes.chunks, on_dask.chunks) == (1, 10, 7)
    assert here.summary.games == 48 and sum(here.summary.ends.values()) == 48


def test_another_seed_gives_another_summary_and_chunks_do_not_matter():
    config = SimulationConfig("chocobo", 3, tuple(sorted(rulekit.load("chocobo", 3).options.items())), stats=(("d", "size(deck)"),))
    whole = play_chunk(config, 1, 0, 30)
    assert merge([play_chunk(config, 1, a, b) for a, b in chunks(30, 4)], 3) == whole
    assert merge(reversed([play_chunk(config, 1, a, b) for a, b in chunks(30, 7)]), 3) == whole
    assert play_chunk(config, 2, 0, 30) != whole


def test_without_statistics_the_engine_plays_the_chunk_and_counts_the_same():
    options = tuple(sorted(rulekit.load("chocobo", 4).options.items()))
    bare = play_chunk(SimulationConfig("chocobo", 4, options, max_steps=60), 3, 0, 25)  # Game.playouts
    stepped = play_chunk(SimulationConfig("chocobo", 4, options, max_steps=60, stats=(("d", "size(deck)"),)), 3, 0, 25)
    for field in ("games", "ends", "wins", "length", "decisions", "rounds", "first_error"):
        assert getattr(bare, field) == getattr(stepped, field), field
    assert bare.ends["cut off"] and bare.ends["won"]  # both ends are compared


@pytest.mark.parametrize("name,players", [("chocobo", 4), ("chucky", 3), ("chicken", 2), ("chuche", 3), ("cranky", 5)])
def test_end_statistics_measured_on_the_playouts_last_states_are_those_of_the_state_api(name, players, monkeypatch):
    """Statistics at the end of each game are measured on the batch playouts' last states (the whole-game
    code's own, most of them): the summary is the one of every game played through State."""
    from rulekit import simulation

    from rulekit.errors import SpecError
    from rulekit.expressions import compile_expression

    game = rulekit.load(name, players)
    model = game.model
    candidates = [(z.name, f"size({z.name}(seat(0)))" if z.per_player else f"size({z.name})") for z in model.zones]
    candidates += [(v.name, f"{v.name}(seat(0))" if v.per_player else v.name) for v in model.vars]
    stats = []
    for stat, text in candidates:
        try:
            compile_expression(game, text)
        except SpecError:  # a board's spaces, a variable holding a seat: no number to measure
            continue
        stats.append((stat, text))
    stats = stats[:10] + [("broken", f"10 / ({stats[0][1]} - {stats[0][1]})")]
    config = SimulationConfig(name, players, tuple(sorted(rulekit.load(name, players).options.items())), max_steps=400,
                              stats=tuple(stats))
    measured = []
    real = simulation.measured_playouts
    monkeypatch.setattr(simulation, "measured_playouts", lambda *args: measured.append(real(*args)) or measured[-1])
    fast = play_chunk(config, 4, 0, 20)
    assert measured and measured[0] is not None  # the playouts measured them: the State API was not needed
    monkeypatch.setattr(simulation, "measured_playouts", lambda *args: None)
    assert play_chunk(config, 4, 0, 20) == fast
    assert fast.stat_errors["broken"][0] == fast.ends["won"] + fast.ends["no winner"] > 0


def chunk_that_kills_its_worker_once(marker: str, *args):
    """A chunk whose first run kills the worker process running it (as a crash or an OOM kill would)."""
    if not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        os._exit(1)
    return play_chunk(*args)


def test_a_worker_that_dies_mid_run_loses_no_results(client, tmp_path):
    from rulekit.dask_executor import DaskExecutor

    game = rulekit.load("chocobo", 3)
    config = SimulationConfig("chocobo", 3, tuple(sorted(game.options.items())), stats=(("d", "size(deck)"),))
    marker = str(tmp_path / "killed")
    tasks = [(marker if i == 2 else str(tmp_path / "never"), config, 9, a, b) for i, (a, b) in enumerate(chunks(40, 5))]
    open(tmp_path / "never", "w").close()
    results = executors.run(DaskExecutor(client=client), chunk_that_kills_its_worker_once, tasks, "dying", False)
    assert os.path.exists(marker), "the worker was killed"
    assert merge(results, 3) == play_chunk(config, 9, 0, 40)


# ---- check --dask ----------------------------------------------------------------------------------------------

def test_check_on_dask_reports_what_one_process_reports(client, tmp_path):
    from rulekit.dask_executor import DaskExecutor

    checks = ('checks tiny\ninvariant nobody_draws "Nobody has drawn": drawn == 0\n'
              'reachable three "Three cards drawn": drawn == 3\n')
    spec = Spec.find(str(write_spec(tmp_path, TINY, checks=checks)))
    bounds = PlayBounds(games=6, variant_games=2, max_states=0, symbolic_time_limit=0)
    here = check_spec(spec, bounds)
    there = check_spec(spec, bounds, executor=DaskExecutor(client=client))

    def shown(report):
        return [(f.id, f.verdict, f.method, f.message, f.witness) for f in report.findings]
    assert shown(here) == shown(there)
    broken = next(f for f in there.findings if f.id == "tiny/invariant/nobody_draws")
    assert broken.verdict == "refuted" and broken.witness


# ---- expressions ----------------------------------------------------------------------------------------------

def test_an_expression_compiles_against_the_games_names():
    game = rulekit.load("chocobo", 4)
    state = game.new_initial_state(seed=3, auto_chance=True)
    assert compile_expression(game, "size(deck)")(state) == len(state.zone("deck"))
    assert compile_expression(game, "sum(p in players: size(hand(p)))")(state) == sum(
        len(state.zone("hand", p)) for p in range(4))
    assert compile_expression(game, "player_count == 4")(state) == 1


@pytest.mark.parametrize("text, where, message", [
    ("size(dek)", "1:6: E201", "unknown name 'dek'"),
    ("1 +", "1:3: E106", "incomplete"),
    ("hand(current)", "1:1: E202", "a statistic is a number or a condition, not a zone"),
])
def test_a_bad_expression_says_where(text, where, message):
    with pytest.raises(SpecError) as info:
        compile_expression(rulekit.load("chocobo", 3), text, "--stat x")
    rendered = info.value.render()
    assert f"--stat x:{where}" in rendered and message in rendered and "^" in rendered


def test_the_engines_rounds_are_the_specs_own_count_of_rounds():
    sim = simulate("chocobo", games=30, seed=2, jobs=1, stats={"played": "rounds_played"}, each_round=True)
    data = sim.to_dict()
    assert data["rounds"]["histogram"] == data["stats"]["played"]["per_game"]["histogram"]
    per_round = data["stats"]["played"]["per_round"]
    assert per_round["count"] == sum(int(k) * v for k, v in data["rounds"]["histogram"].items())
    assert per_round["min"] == 1


# ---- the command line -----------------------------------------------------------------------------------------

def test_simulate_json_has_every_statistic(capsys):
    code, out, _ = run(capsys, "simulate", "chocobo", "--games", "20", "--jobs", "1", "--json",
                       "--stat", "deck=size(deck)", "--stat", "long_hand=exists(p in players where size(hand(p)) > 3)",
                       "--stat-each-round")
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 20 and sum(data["ends"].values()) == 20 and len(data["wins_per_seat"]) == 3
    deck = data["stats"]["deck"]
    assert deck["expression"] == "size(deck)"
    for entry in (deck["per_game"], deck["per_round"]):
        assert set(entry) == {"count", "mean", "std", "min", "median", "max", "histogram"}
        assert sum(entry["histogram"].values()) == entry["count"]
        assert entry["min"] <= entry["median"] <= entry["max"]
    assert deck["per_game"]["count"] == data["finished"]
    assert set(data["stats"]["long_hand"]["per_game"]["histogram"]) <= {"0", "1"}


def test_simulate_on_a_dask_scheduler_gives_the_local_answer(capsys, client):
    argv = ("simulate", "chocobo", "--games", "24", "--seed", "4", "--stat", "deck=size(deck)", "--json")
    here = run(capsys, *argv, "--jobs", "1")
    there = run(capsys, *argv, "--dask", client.scheduler.address)
    assert here[0] == there[0] == 0 and json.loads(here[1]) == json.loads(there[1])


def test_simulate_text_shows_a_histogram_per_statistic(capsys):
    code, out, _ = run(capsys, "simulate", "chocobo", "--games", "10", "--jobs", "1", "--stat", "deck=size(deck)")
    assert code == 0 and "deck (end of game)" in out and "deck = size(deck), at the end of each game" in out


@pytest.mark.parametrize("stat, expected", [
    ("deck", "--stat takes NAME=EXPR"),
    ("two words=size(deck)", "--stat takes NAME=EXPR"),
    ("deck=size(dek)", "--stat deck:1:6: E201 unknown name 'dek'"),
    ("deck=size(deck) +", "--stat deck:1:"),
    ("deck=deck", "not a zone"),
])
def test_simulate_bad_stat_exits_2_without_a_traceback(capsys, stat, expected):
    code, out, err = run(capsys, "simulate", "chocobo", "--games", "2", "--jobs", "1", "--stat", stat)
    assert code == 2 and expected in err and "Traceback" not in err and not out


def test_simulate_the_same_stat_twice_is_refused(capsys):
    code, _, err = run(capsys, "simulate", "chocobo", "--jobs", "1", "--stat", "a=1", "--stat", "a=2")
    assert code == 2 and "--stat a is given twice" in err


def test_simulate_each_round_in_a_game_without_rounds_says_so(capsys, tmp_path):
    path = write_spec(tmp_path, TINY)
    code, out, err = run(capsys, "simulate", str(path), "--games", "5", "--jobs", "1", "--json",
                         "--stat", "drawn=drawn", "--stat-each-round")
    assert code == 0 and "has no `rounds`" in err
    data = json.loads(out)
    assert "per_round" not in data["stats"]["drawn"] and data["stats"]["drawn"]["per_game"]["histogram"] == {"2": 5}


def test_simulate_plot_writes_a_png(capsys, tmp_path):
    target = tmp_path / "stats.png"
    code, _, err = run(capsys, "simulate", "chocobo", "--games", "10", "--jobs", "1", "--stat", "deck=size(deck)",
                       "--stat-each-round", "--plot", str(target))
    assert code == 0, err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_plot_without_matplotlib_says_what_to_install(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run(capsys, "simulate", "chocobo", "--games", "2", "--jobs", "1", "--plot", str(tmp_path / "x.png"))
    assert code == 2 and "--plot needs matplotlib" in err and "Traceback" not in err


def test_simulate_from_python_with_a_loaded_game(client):
    game = rulekit.load("chocobo", 3)
    sim = rulekit.simulate(game, games=12, seed=1, client=client)
    assert sim.summary == rulekit.simulate("chocobo", games=12, seed=1, jobs=1).summary
    assert sim.executor.startswith("Dask")


def test_a_statistic_that_fails_in_play_is_reported_and_the_games_go_on(capsys):
    code, out, _ = run(capsys, "simulate", "chocobo", "--games", "6", "--jobs", "1", "--json",
                       "--stat", "broken=10 / (size(deck) - size(deck))", "--stat", "deck=size(deck)")
    data = json.loads(out)
    assert code == 0 and data["finished"] == 6 and data["stats"]["deck"]["per_game"]["count"] == 6
    errors = data["stats"]["broken"]["errors"]
    assert errors["count"] == 6 and errors["first_game"] == 0 and "zero" in errors["first_message"]
    assert data["stats"]["broken"]["per_game"]["count"] == 0


def test_an_unreachable_scheduler_is_a_clear_error(capsys):
    code, _, err = run(capsys, "simulate", "chocobo", "--games", "2", "--dask", "not-an-address")
    assert code == 2 and "no Dask scheduler answers at not-an-address" in err and "Traceback" not in err


def test_text_histograms_bin_values_that_come_in_steps_by_whole_steps():
    from rulekit.simulation_report import BINS, bins
    fives = bins({str(k): 1 for k in range(0, 101, 5)})
    assert len(fives) <= BINS and [count for _, count in fives[:-1]] == [2] * (len(fives) - 1), fives
    ones = bins({str(k): 1 for k in range(3, 40)})
    assert len(ones) <= BINS and sum(count for _, count in ones) == 37
    assert bins({"1": 4, "2": 3}) == [("1", 4), ("2", 3)]


def test_the_seat_table_says_when_shared_wins_make_the_rates_add_up_to_more(tmp_path, capsys):
    shared = TINY.replace("  for p in players { if exists(c in hand(p) where c == Ace) { win p } }",
                               "  for p in players { win p }")
    assert main(["simulate", str(write_spec(tmp_path, shared)), "--games", "5", "--jobs", "1"]) == 0
    assert "counts for each of them" in capsys.readouterr().out
