"""Tests of ``rookery.train`` and what a trained net goes into: its losses, its file, a search, a
match, the piece-square values, the time limit, the progress it tells and the errors. Each run
trains a small net on the first positions of the repository's held-out data set, in a few
seconds."""

import dataclasses
import math
import os
import pathlib
import time

import chess
import pytest

import rookery
from interrupt import interrupt

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "selfplay" / "gen6-b"
SMALL = dict(hidden=12, epochs=3, positions=20_000, threads=1, batch=512)


@pytest.fixture(scope="module")
def trained():
    return rookery.train(DATA, **SMALL)


def test_a_run_reports_each_epoch_and_learns(trained):
    assert len(trained.history) == SMALL["epochs"]
    assert all(t > 0 and v > 0 for t, v in trained.history)
    assert trained.history[-1][1] < trained.initial_loss
    assert trained.validation_loss == trained.history[-1][1]
    assert trained.halted is None
    # About a twentieth kept apart, in whole games.
    assert trained.train_positions + trained.validation_positions <= SMALL["positions"]
    assert 0 < trained.validation_positions < trained.train_positions / 5
    assert trained.positions_seen == SMALL["epochs"] * trained.train_positions
    assert trained.seconds > 0
    assert "3 epochs" in repr(trained)


def test_the_net_is_a_file_that_loads_and_saves(trained, tmp_path):
    assert os.path.isfile(trained.path) and os.fspath(trained) == trained.path
    info = trained.info
    assert info.hidden == SMALL["hidden"] and info.buckets == 1
    assert "trained live" in info.provenance and "gen6-b" in info.provenance
    out = tmp_path / "mine.nnue"
    trained.save(out)
    assert rookery.net_info(out) == info
    assert rookery.net_info(str(out)) == info
    assert out.read_bytes() == pathlib.Path(trained.path).read_bytes()
    # The temporary file goes with the object.
    other = rookery.train(DATA, **dict(SMALL, epochs=1))
    path = other.path
    del other
    assert not os.path.exists(path) and not os.path.exists(os.path.dirname(path))


def test_a_trained_net_searches_and_evaluates(trained):
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    engine = rookery.Engine("rookery", net=trained, depth=3)
    assert engine.play(board) in board.legal_moves
    queen_up = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    assert rookery.evaluate(queen_up, net=trained) > 0
    assert rookery.evaluate(queen_up, net=pathlib.Path(trained.path)) == rookery.evaluate(
        queen_up, net=trained
    )


def test_a_trained_net_plays_a_match(trained):
    r = rookery.match(trained, "greedy", games=2, nodes=500, max_moves=80)
    name = os.path.basename(trained.path)
    assert name == "trained-h12.nnue"
    assert r.names == (f"rookery (net: {name})", "greedy")
    assert r.wins + r.draws + r.losses == 2
    assert r.games[0].white == r.names[0] and r.games[1].black == r.names[0]
    # A net path as os.PathLike, against the same net: the second one is told apart.
    r = rookery.match(pathlib.Path(trained.path), trained, games=2, depth=1, max_moves=40)
    assert r.names == (f"rookery (net: {name})", f"rookery (net: {name}) (2)")
    with pytest.raises(ValueError, match="no/such"):
        rookery.match(pathlib.Path("/no/such/net.nnue"), "random", games=2, depth=1)
    with pytest.raises(TypeError):
        rookery.match(3, "random", games=2, depth=1)


def _values(grid):
    return [v for row in grid for v in row if v is not None]


def test_piece_square_tables_have_a_board_shape_and_rank_the_pieces(trained):
    for table in [trained.piece_square(), rookery.piece_square("hce"), rookery.piece_square(None)]:
        assert list(table) == ["P", "N", "B", "R", "Q"]
        for piece, grid in table.items():
            assert len(grid) == 8 and all(len(row) == 8 for row in grid)
            # Rank 8 first: g1 (the White king) is grid[7][6], g8 (the Black king) grid[0][6],
            # f7 (a Black pawn) grid[1][5].
            assert grid[7][6] is None and grid[0][6] is None and grid[1][5] is None
            assert grid[4][3] is not None, piece
        assert table["P"][0] == [None] * 8 and table["P"][7] == [None] * 8
    hce = rookery.piece_square("hce")
    mean = {p: sum(_values(g)) / len(_values(g)) for p, g in hce.items()}
    assert mean["Q"] > mean["R"] > mean["B"] > mean["P"] and mean["N"] > mean["P"] > 0
    assert rookery.piece_square("net") == rookery.piece_square(None)
    assert rookery.piece_square(trained) == trained.piece_square()
    assert rookery.piece_square(pathlib.Path(trained.path)) == trained.piece_square()
    assert rookery.piece_square("hce") != rookery.piece_square("net")


def test_a_time_limit_ends_the_run_early():
    net = rookery.train(DATA, hidden=8, epochs=100_000, positions=20_000, threads=1, batch=64, seconds=0.5)
    assert net.halted == "time"
    assert 0 < len(net.history) < 100_000
    assert 0.5 <= net.seconds < 10
    assert net.info.hidden == 8


def test_progress_is_told_the_load_the_batches_and_each_epoch():
    events = []
    net = rookery.train(DATA, **dict(SMALL, hidden=8), progress=events.append)
    assert all(isinstance(e, rookery.TrainProgress) for e in events)
    loaded = events[0]
    assert loaded.kind == "loaded" and [e.kind for e in events].count("loaded") == 1
    assert (loaded.train_positions, loaded.validation_positions) == (
        net.train_positions,
        net.validation_positions,
    )
    assert loaded.validation_loss == net.initial_loss and loaded.train_loss is None
    assert loaded.epoch == 0 and loaded.positions == 0 and loaded.seconds > 0
    epochs = [e for e in events if e.kind == "epoch"]
    assert [e.epoch for e in epochs] == [1, 2, 3]
    assert [(e.train_loss, e.validation_loss) for e in epochs] == net.history
    assert [e.positions for e in epochs] == [n * net.train_positions for n in (1, 2, 3)]
    assert epochs[-1].positions == net.positions_seen and events[-1] is epochs[-1]
    batches = [e for e in events if e.kind == "batch"]
    # The first batch of each epoch is told, then about twice a second, and the last.
    assert {e.epoch for e in batches} == {1, 2, 3}
    for e in batches:
        done = (e.epoch - 1) * net.train_positions
        assert done < e.positions <= done + net.train_positions
        assert math.isfinite(e.train_loss) and e.train_loss > 0 and e.validation_loss is None
        assert e.positions_per_second > 0
    # Each epoch's batches come before its end.
    for b in batches:
        assert events.index(b) < events.index(epochs[b.epoch - 1])
    assert all(str(e) for e in events) and str(epochs[0]).startswith("epoch 1 done: ")
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded.epoch = 5


class Enough(Exception):
    pass


@pytest.mark.parametrize("kind", ["loaded", "batch", "epoch"])
def test_an_exception_in_progress_stops_the_run_and_is_raised(kind):
    told = []
    raised = Enough("no more")

    def progress(p):
        told.append(p.kind)
        if p.kind == kind:
            raise raised

    start = time.perf_counter()
    # Without the exception the run would go on for its 30 seconds.
    with pytest.raises(Enough) as caught:
        rookery.train(
            DATA, hidden=8, epochs=100_000, positions=20_000, threads=1, batch=64, seconds=30,
            progress=progress,
        )
    assert caught.value is raised
    assert time.perf_counter() - start < 10
    # Not called again once it raised.
    assert told[-1] == kind and told.count(kind) == 1


@pytest.mark.parametrize("progress", [3, "print", [print]])
def test_a_progress_that_is_not_callable_is_a_value_error(progress):
    with pytest.raises(ValueError, match="progress must be a callable"):
        rookery.train(DATA, hidden=8, positions=20_000, progress=progress)
    with pytest.raises(ValueError, match="progress must be a callable"):
        rookery._native.train([str(DATA)], hidden=8, positions=20_000, progress=progress)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(hidden=0), "hidden must be 1 to 1024"),
        (dict(hidden=-1), "hidden"),
        (dict(lr=-1), "lr must be above 0"),
        (dict(epochs=0), "epochs"),
        (dict(positions=10), "positions"),
        (dict(seconds=0), "seconds"),
        (dict(threads=0), "threads"),
        (dict(hidden="big"), "hidden"),
        (dict(hidden=16, layers=(12, 8)), "layers 12,8"),
        (dict(hidden=12, layers=(8, 8)), "multiple of 8"),
        (dict(hidden=16, layers=8), "layers must be a pair"),
        (dict(hidden=16, layers="8,8"), "layers must be a pair"),
        (dict(hidden=16, layers=(8, -1)), "layers"),
        (dict(hidden=16, paired=True), "paired needs a deep head"),
        (dict(hidden=16, layers=(8, 4), paired=1), "paired must be True or False"),
        (dict(buckets=3), "buckets must be 1, 2, 4 or 8"),
        (dict(buckets=0), "buckets"),
        (dict(inputs="sideways"), "inputs must be one of plain, mirror"),
        (dict(inputs=3), "inputs must be a layout"),
    ],
)
def test_bad_numbers_are_value_errors(kwargs, words):
    with pytest.raises(ValueError, match=words):
        rookery.train(DATA, **kwargs)


def test_a_deep_head_trains_and_its_net_plays():
    net = rookery.train(DATA, **dict(SMALL, hidden=16, layers=(8, 4)))
    assert net.history[-1][1] < net.initial_loss
    assert "-> 8 -> 4 -> 1" in net.info.architecture
    assert net.info.buckets == 1
    assert "deep layers 8,4" in net.info.provenance
    board = chess.Board()
    assert isinstance(rookery.evaluate(board, net=net), int)
    assert rookery.Engine("rookery", net=net, depth=3).play(board) in board.legal_moves


def test_a_paired_deep_head_trains_and_its_net_plays():
    net = rookery.train(DATA, **dict(SMALL, hidden=16, layers=(8, 4), paired=True))
    assert net.history[-1][1] < net.initial_loss
    assert "-> 16 paired -> 8 -> 4 -> 1" in net.info.architecture
    assert "deep layers 8,4 paired" in net.info.provenance
    board = chess.Board()
    assert rookery.Engine("rookery", net=net, depth=3).play(board) in board.legal_moves


def test_output_buckets_and_mirrored_inputs_train_as_the_built_in_net_is_shaped():
    net = rookery.train(DATA, **dict(SMALL, buckets=8, inputs="mirror"))
    assert net.history[-1][1] < net.initial_loss
    assert net.info.buckets == 8
    assert "inputs mirror" in net.info.architecture, net.info.architecture
    assert "8 output buckets" in net.info.provenance and "inputs mirror" in net.info.provenance
    board = chess.Board()
    assert rookery.Engine("rookery", net=net, depth=2).play(board) in board.legal_moves


def test_bad_data_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="name a data set"):
        rookery.train([])
    with pytest.raises(ValueError, match="does/not/exist"):
        rookery.train("/does/not/exist", positions=20_000)
    with pytest.raises(ValueError, match="does/not/exist"):
        rookery.train([DATA, "/does/not/exist"], positions=20_000_000, hidden=4, epochs=1)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a record file")
    with pytest.raises(ValueError):
        rookery.train(junk, positions=20_000)


@pytest.mark.parametrize("progress", ["", ", progress=lambda p: None"])
def test_ctrl_c_stops_a_run_and_raises_keyboard_interrupt(progress):
    # Past the loading (about a second), into the epochs.
    call = f"rookery.train({str(DATA)!r}, hidden=8, epochs=100_000, positions=50_000, threads=1{progress})"
    out = interrupt(call, wait=3, timeout=30)
    assert out.startswith("interrupted after"), out
    assert float(out.split()[2]) < 8.0
