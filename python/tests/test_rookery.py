"""Tests of the Python package: every function, every error, GIL release, Ctrl-C and
``python -m rookery`` driven by python-chess. Run from the repository root:
``python -m pytest python/tests``."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import chess.engine
import pytest

import rookery
from interrupt import interrupt

ROOT = Path(__file__).resolve().parents[2]
SYZYGY = ROOT / "tests" / "data" / "syzygy"
# The tutorial's middlegame position.
MIDDLEGAME = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
STALEMATE = "7k/8/8/8/8/8/5q2/7K w - - 0 1"


def test_engines_lists_the_ladder_in_order():
    names = [e.name for e in rookery.engines()]
    assert names[0] == "random" and names[-2:] == ["rookery-hce", "rookery"]
    assert {"minimax", "alphabeta", "negamax", "tt", "quiescence", "pst"} <= set(names)
    assert all(e.idea for e in rookery.engines())


@pytest.mark.parametrize("name", [e.name for e in rookery.engines()])
def test_every_engine_plays_a_legal_move_on_a_board_and_a_fen(name):
    board = chess.Board(MIDDLEGAME)
    engine = rookery.Engine(name, depth=2)
    assert engine.name == name and engine.idea
    move = engine.play(board)
    assert move in board.legal_moves
    assert engine.play(MIDDLEGAME) in board.legal_moves


def test_searching_engines_find_the_mate_in_one():
    board = chess.Board(MATE_IN_ONE)
    for name in ["alphabeta", "negamax", "tt", "quiescence", "pst", "rookery"]:
        analysis = rookery.Engine(name, depth=3).analyse(board)
        assert board.san(analysis.best) == "Rd8#", name
        assert analysis.pv[0] == analysis.best
    assert rookery.Engine("rookery").analyse(board, depth=4).mate == 1


def test_analyse_scores_every_move_best_first_with_nodes_and_time():
    board = chess.Board(MIDDLEGAME)
    plain = rookery.Engine("alphabeta").analyse(board, depth=2)
    assert len(plain.moves) == board.legal_moves.count()
    assert plain.moves[0].move == plain.best and plain.moves[0].bound == "exact"
    assert any(m.bound == "upper" for m in plain.moves)
    exact = rookery.Engine("alphabeta").analyse(board, depth=2, all_moves=True)
    full = rookery.Engine("minimax").analyse(board, depth=2)
    assert {m.move: m.score for m in exact.moves} == {m.move: m.score for m in full.moves}
    scores = [m.score for m in exact.moves]
    assert scores == sorted(scores, reverse=True)
    # The tutorial's node counts.
    assert rookery.Engine("minimax", depth=3).analyse(board).nodes == 70_119
    assert full.nodes > 0 and full.time >= 0 and full.depth == 2
    assert plain.nps > 0


def test_move_stack_counts_for_repetitions():
    # Shuffling knights: after the third repetition is possible the engine must see it.
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]:
        board.push_uci(uci)
    analysis = rookery.Engine("rookery").analyse(board, depth=3, all_moves=True)
    draw = next(m for m in analysis.moves if m.move == chess.Move.from_uci("f6g8"))
    assert draw.score == 0


def test_limits_movetime_and_nodes():
    engine = rookery.Engine("rookery")
    start = time.perf_counter()
    analysis = engine.analyse(chess.Board(), movetime=0.2)
    assert time.perf_counter() - start < 2.0
    assert analysis.best is not None
    by_nodes = engine.analyse(chess.Board(), nodes=5_000)
    assert by_nodes.nodes <= 6_000
    assert "movetime=0.2" in repr(rookery.Engine("rookery", movetime=0.2))


def test_seeded_random_mover_replays():
    board = chess.Board()
    a = [rookery.Engine("random", seed=7).play(board) for _ in range(3)]
    assert len(set(a)) == 1


def test_elo_option_and_new_game():
    engine = rookery.Engine("rookery", elo=1500, depth=3)
    assert engine.play(chess.Board()) in chess.Board().legal_moves
    engine.new_game()


def test_evaluate_plain_and_by_terms():
    board = chess.Board()
    assert abs(rookery.evaluate(board)) < 50
    e = rookery.evaluate(board, terms=True)
    assert e.value == e.white and "tempo" in e.terms
    # A queen up: far ahead, for White and from Black's side to move.
    up = chess.Board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")
    assert rookery.evaluate(up) < -500
    assert rookery.evaluate(up, terms=True).white > 500


def test_perft_and_divide():
    assert rookery.perft(chess.Board(), 4) == 197_281
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    assert rookery.perft(kiwipete, 3) == 97_862
    divided = rookery.perft(chess.Board(), 3, divide=True)
    assert len(divided) == 20 and sum(divided.values()) == 8_902
    assert divided[chess.Move.from_uci("e2e4")] == 600


def test_tree_has_moves_values_windows_and_pruned_reasons():
    t = rookery.tree(MIDDLEGAME, "alphabeta", depth=3)
    assert t.positions == 4_163
    assert len(t) == t.positions + t.pruned
    assert t.root.move is None and t.root.san == "root"
    assert t.root.value == max(c.value for c in t.root.children if c.value is not None)
    assert t.best == rookery.Engine("alphabeta").analyse(MIDDLEGAME, depth=3).best
    pruned = [n for n in t if n.is_pruned]
    assert pruned and all(n.pruned.startswith("cut-off") and n.value is None for n in pruned)
    searched = [n for n in t if not n.is_pruned]
    assert all(n.alpha < n.beta for n in searched)
    assert t.per_depth == rookery.tree_size(MIDDLEGAME, "alphabeta", 3)
    minimax = rookery.tree(MIDDLEGAME, "minimax", depth=3)
    assert minimax.positions == 70_119 and minimax.pruned == 0
    assert minimax.root.alpha is None
    # Alpha-beta visits 5.9% of minimax's positions here.
    assert round(100 * t.positions / minimax.positions, 1) == 5.9
    negamax = rookery.tree(MIDDLEGAME, "negamax", depth=3)
    assert negamax.positions == t.positions and negamax.root.value == t.root.value


def test_tree_export():
    networkx = pytest.importorskip("networkx")
    t = rookery.tree(chess.Board(), "alphabeta", depth=2)
    g = t.to_networkx()
    assert isinstance(g, networkx.DiGraph)
    assert g.number_of_nodes() == len(t) and g.number_of_edges() == len(t) - 1
    assert g.nodes[0]["san"] == "root"
    dot = t.to_dot()
    assert dot.startswith("digraph tree {") and "pruned" in dot and dot.count("->") == len(t) - 1


def test_tree_follows_the_move_stack():
    board = chess.Board()
    board.push_san("e4")
    t = rookery.tree(board, "minimax", depth=1)
    assert t.fen == board.fen() and len(t.root.children) == 20


def test_match_counts_games_and_elo():
    r = rookery.match("alphabeta", "random", games=6, depth=2, max_moves=100)
    assert r.wins + r.draws + r.losses == 6 == len(r.games)
    assert r.wins >= 4 and r.score > 0.5 and r.elo > 0 and r.elo_error > 0
    assert {g.white for g in r.games} == {"alphabeta", "random"}
    assert all(g.pgn.startswith("[Event") for g in r.games)
    assert "alphabeta vs random" in str(r)
    same = rookery.match("greedy", "greedy", games=2, depth=1, max_moves=20)
    assert same.names == ("greedy", "greedy (2)")
    custom = rookery.match(
        "negamax", "random", games=2, nodes=500, openings=[chess.Board(), MIDDLEGAME], max_moves=30
    )
    assert len(custom.games) == 2


def test_tablebase_probes():
    tb = rookery.Tablebase(SYZYGY)
    assert tb.max_pieces == 4 and tb.files > 0
    kqk = "8/8/8/8/8/2k5/8/4K2Q w - - 0 1"
    assert tb.wdl(kqk) == 2 and tb.dtz(kqk) > 0
    assert tb.wdl(chess.Board("8/8/8/8/8/2k5/8/4K2Q b - - 0 1")) == -2
    moves = tb.moves(kqk)
    assert moves[0].wdl == 2 and tb.best_move(kqk) == moves[0].move
    assert len(moves) == chess.Board(kqk).legal_moves.count()
    assert tb.wdl(chess.Board()) is None and tb.moves(chess.Board()) is None
    engine = rookery.Engine("rookery", depth=4, syzygy=str(SYZYGY))
    assert engine.play(kqk) in chess.Board(kqk).legal_moves


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rookery.Engine("nope"), "unknown engine 'nope'"),
        (lambda: rookery.evaluate("not a fen"), "invalid FEN"),
        (lambda: rookery.perft("8/8/8/8/8/8/8/8 w - - 0 1", 1), "invalid FEN"),
        (lambda: rookery.Engine("alphabeta").analyse(chess.Board(), depth=0), "depth"),
        (lambda: rookery.Engine("alphabeta", depth=-1), "depth"),
        (lambda: rookery.Engine("alphabeta").analyse(chess.Board(), movetime=0), "movetime"),
        (lambda: rookery.Engine("alphabeta").analyse(chess.Board(), depth=99), "at most 64"),
        (lambda: rookery.Engine("greedy").play(STALEMATE), "game is over"),
        (lambda: rookery.Engine("rookery", hash=0), "hash must be 1 to 32768 MB"),
        (lambda: rookery.Engine("rookery", hash=-5), "hash must be 1 to 32768 MB"),
        (lambda: rookery.Engine("rookery", hash=10**30), "hash must be 1 to 32768 MB"),
        (lambda: rookery.Engine("rookery", threads=0), "threads must be 1 to 256"),
        (lambda: rookery.Engine("rookery", threads=10**6), "threads must be 1 to 256"),
        (lambda: rookery.Engine("rookery", elo=500), "elo must be 1000 to 3000"),
        (lambda: rookery.evaluate(chess.Board(), eval="neural"), "unknown evaluation"),
        (lambda: rookery.evaluate(chess.Board(), eval="net", terms=True), "a net has no terms"),
        (lambda: rookery.evaluate(chess.Board(), eval="hce", net="x.nnue"), "needs eval='net'"),
        (lambda: rookery.evaluate(chess.Board(), eval="net", net="/no/such.nnue"), "/no/such.nnue"),
        (lambda: rookery.net_info("/dev/zero"), "not a regular file"),
        (lambda: rookery.Engine("rookery", elo=10**30), "elo must be 1000 to 3000"),
        (lambda: rookery.Engine("alphabeta", book="/no/such/book.bin"), "/no/such/book.bin"),
        (lambda: rookery.tree(chess.Board(), "pst", 2), "no search tree for engine 'pst'"),
        (lambda: rookery.tree(MIDDLEGAME, "minimax", 4, max_nodes=100_000), "depth 3"),
        (lambda: rookery.tree(chess.Board(), "minimax", 0), "depth"),
        (lambda: rookery.tree_size(chess.Board(), "minimax", 9), "depth"),
        (lambda: rookery.Tablebase("/nonexistent"), "/nonexistent"),
        (lambda: rookery.match("alphabeta", "random"), "one of depth"),
        (lambda: rookery.match("alphabeta", "random", depth=1, movetime=1), "one of depth"),
        (lambda: rookery.match("alphabeta", "nope", depth=1), "unknown engine 'nope'"),
        (lambda: rookery.match("alphabeta", "random", games=0, depth=1), "games"),
        (lambda: rookery.match("alphabeta", "random", depth=1, openings=[]), "openings"),
        (lambda: rookery.match("alphabeta", "random", depth=1, openings=["bad fen"]), "invalid FEN"),
        (lambda: rookery.perft(chess.Board(), -1), "depth"),
        (lambda: rookery.perft(chess.Board(), 13), "depth"),
    ],
)
def test_bad_input_raises_value_error_with_the_cli_message(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert message in str(err.value)


def test_an_illegal_move_in_the_stack_is_a_value_error():
    with pytest.raises(ValueError, match="move 'e2e5'"):
        rookery.Engine("alphabeta").analyse(rookery_board_with_illegal_stack(), depth=1)


def rookery_board_with_illegal_stack():
    board = chess.Board()
    board.push(chess.Move.from_uci("e2e5"))  # python-chess pushes without checking legality
    return board


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError):
        rookery.evaluate(42)


def test_searches_release_the_gil():
    # While a long search runs on another Python thread, this one keeps counting.
    counter = 0
    done = threading.Event()

    def search():
        rookery.Engine("minimax").analyse(MIDDLEGAME, depth=4)
        done.set()

    worker = threading.Thread(target=search)
    worker.start()
    time.sleep(0.05)
    while not done.is_set():
        counter += 1
    worker.join()
    assert counter > 10_000, counter


def test_ctrl_c_stops_a_search_with_keyboard_interrupt():
    out = interrupt(f'rookery.Engine("minimax").analyse("{MIDDLEGAME}", depth=6)', wait=0.5, timeout=20)
    assert out.startswith("interrupted after"), out
    assert float(out.split()[2]) < 5.0


def test_python_m_rookery_speaks_uci_to_python_chess():
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "rookery"])
    try:
        assert engine.id["name"].startswith("Rookery")
        board = chess.Board(MATE_IN_ONE)
        result = engine.play(board, chess.engine.Limit(depth=4))
        assert board.san(result.move) == "Rd8#"
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=6))
        assert info["depth"] >= 6 and "pv" in info
    finally:
        engine.quit()


def test_docstring_examples_run():
    import doctest

    result = doctest.testmod(rookery, extraglobs={"rookery": rookery, "chess": chess})
    assert result.attempted > 10 and result.failed == 0


def test_a_hash_the_memory_cannot_hold_is_a_value_error_and_nothing_is_lost():
    # In a process whose address space is limited to 2 GB (as `prlimit --as` does), a 4 GB
    # table is refused before it is allocated; the process goes on and a smaller one works.
    code = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import chess, rookery
try:
    rookery.Engine("rookery", hash=4096)
except ValueError as e:
    print("ValueError:", e)
engine = rookery.Engine("rookery", hash=64, depth=3)
print("move", engine.play(chess.Board()))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "ValueError: a hash table of 4096 MB does not fit" in done.stdout, done.stdout
    assert "move " in done.stdout


def test_the_nets_static_evaluation_sees_both_sides_alike():
    # A perspective net scores a position for the side to move from that side's own view, so a
    # position and its colour-flipped mirror (the other side to move) score exactly alike.
    fens = [
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 b - - 0 40",
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
    ]
    for fen in fens:
        board = chess.Board(fen)
        net = rookery.evaluate(board, eval="net")
        assert rookery.evaluate(board.mirror(), eval="net") == net, fen
        assert rookery.evaluate(board.mirror()) == rookery.evaluate(board), fen
    queen_up = chess.Board(fens[2])
    assert rookery.evaluate(queen_up, eval="net") > 500
    assert rookery.evaluate(queen_up.mirror(), eval="net") > 500
    info = rookery.net_info()
    assert info.hidden >= 128 and info.buckets >= 1 and "768" in info.architecture
    assert info.provenance


def test_the_evaluation_is_chosen_by_eval_and_net(tmp_path):
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    default = rookery.Engine("rookery", depth=6).analyse(board)
    net = rookery.Engine("rookery", depth=6, eval="net").analyse(board)
    hce = rookery.Engine("rookery", depth=6, eval="hce").analyse(board)
    rung = rookery.Engine("rookery-hce", depth=6).analyse(board)
    assert hce.best in board.legal_moves and rung.best in board.legal_moves
    # The default is the net; the same search on another evaluation visits other positions;
    # the rung is the engine on the hand-crafted evaluation, whatever eval= says.
    assert default.nodes == net.nodes
    assert net.nodes != hce.nodes
    assert rung.nodes == hce.nodes
    assert rookery.Engine("rookery-hce", depth=6, eval="net").analyse(board).nodes == hce.nodes
    assert "rookery-hce" in [e.name for e in rookery.engines()]
    with pytest.raises(ValueError, match="unknown evaluation"):
        rookery.Engine("rookery", eval="neural")
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(b"RKNN\x01")
    with pytest.raises(ValueError, match="cut short"):
        rookery.Engine("rookery", eval="net", net=str(bad))
    # eval= defaults to the net, so net= alone names the net; with eval="hce" it is refused.
    with pytest.raises(ValueError, match="cut short"):
        rookery.Engine("rookery", net=str(bad))
    with pytest.raises(ValueError, match="needs eval='net'"):
        rookery.Engine("rookery", eval="hce", net=str(bad))
