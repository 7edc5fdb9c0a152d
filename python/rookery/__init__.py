"""Rookery in Python: the tutorial's engine ladder and the strong engine, on python-chess boards.

Every function takes a ``chess.Board`` (its move stack counts: repetitions are seen) or a FEN
string, and gives python-chess moves back. Searches run in Rust without the GIL and stop on Ctrl-C.

>>> import chess, rookery
>>> board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
>>> rookery.Engine("alphabeta", depth=3).play(board)
Move.from_uci('d1d8')
"""

from __future__ import annotations

import math
import os
import tempfile
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import chess

from . import _rookery as _native

__all__ = [
    "Analysis",
    "Engine",
    "EngineInfo",
    "Evaluation",
    "GameRecord",
    "MatchResult",
    "NetInfo",
    "ScoredMove",
    "Tablebase",
    "TablebaseMove",
    "TrainProgress",
    "TrainedNet",
    "Tree",
    "TreeNode",
    "engines",
    "net_info",
    "evaluate",
    "match",
    "perft",
    "piece_square",
    "train",
    "tree",
    "tree_size",
    "__version__",
]

__version__: str = _native.version()

BoardLike = Union[chess.Board, str]
#: A net file: a path (``str`` or ``os.PathLike``), or a ``TrainedNet``.
NetLike = Union[str, "os.PathLike[str]"]


def _net_path(net: Optional[NetLike]) -> Optional[str]:
    return None if net is None else os.fspath(net)


def _fen_and_moves(board: BoardLike) -> Tuple[str, List[str]]:
    """The starting FEN and the UCI moves that lead to ``board``'s position."""
    if isinstance(board, chess.Board):
        root = board.root()
        return root.fen(), [m.uci() for m in board.move_stack]
    if isinstance(board, str):
        return board.strip(), []
    raise TypeError(f"expected a chess.Board or a FEN string, got {type(board).__name__}")


def _fen(board: BoardLike) -> str:
    if isinstance(board, chess.Board):
        return board.fen()
    if isinstance(board, str):
        return board.strip()
    raise TypeError(f"expected a chess.Board or a FEN string, got {type(board).__name__}")


def _board(board: BoardLike) -> chess.Board:
    if isinstance(board, chess.Board):
        return board
    return chess.Board(board)


_from_uci = chess.Move.from_uci


def _move(uci: Optional[str]) -> Optional[chess.Move]:
    return None if uci is None else _from_uci(uci)


def _limits(depth: Optional[int], movetime: Optional[float], nodes: Optional[int]) -> Dict[str, Any]:
    for name, value in (("depth", depth), ("nodes", nodes)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    if movetime is not None and not (movetime > 0):
        raise ValueError(f"movetime must be a positive number of seconds, got {movetime!r}")
    return {
        "depth": depth,
        "movetime_ms": None if movetime is None else max(1, round(movetime * 1000)),
        "nodes": nodes,
    }


class EngineInfo(NamedTuple):
    """A rung of the ladder: its name and the idea it adds."""

    name: str
    idea: str


def engines() -> List[EngineInfo]:
    """Every engine, in ladder order, with the idea each one adds.

    >>> [e.name for e in rookery.engines()][:3]
    ['random', 'book', 'greedy']
    """
    return [EngineInfo(n, i) for n, i in _native.engines()]


class ScoredMove(NamedTuple):
    """A root move and its score (centipawns, side to move's view). ``bound`` is ``"exact"``, or
    ``"upper"`` when a cut-off only showed the move is no better than that."""

    move: chess.Move
    score: Optional[int]
    bound: str
    weight: Optional[int] = None


@dataclass(frozen=True)
class Analysis:
    """What an engine found: the move to play, its score (centipawns, side to move's view; ``mate``
    in moves when it is a mate), the principal variation, every root move scored, best first,
    and what it cost.

    >>> a = rookery.Engine("negamax", depth=2).analyse(chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"))
    >>> a.mate, len(a.moves) == len(a.pv) or a.best == a.pv[0]
    (1, True)
    """

    best: Optional[chess.Move]
    score: Optional[int]
    mate: Optional[int]
    pv: List[chess.Move]
    moves: List[ScoredMove]
    depth: int
    seldepth: int
    nodes: int
    time: float
    from_book: bool

    @property
    def nps(self) -> float:
        """Positions per second."""
        return self.nodes / self.time if self.time > 0 else float("nan")


class Engine:
    """An engine of the ladder (``random`` ... ``pst``) or the strong engine ``rookery``, by name.

    ``rookery`` searches with the learned evaluation (the built-in net, or the file ``net``
    names: a path or a ``TrainedNet``); ``eval="hce"`` gives it the hand-crafted one, which the rung ``rookery-hce`` always
    uses.

    Limits given here are the defaults of every search; ``analyse`` and ``play`` can override
    them. With none at all each engine uses its own (a depth that answers in about a second).

    >>> engine = rookery.Engine("alphabeta", depth=3)
    >>> engine.analyse(chess.Board()).nodes > 0
    True
    """

    def __init__(
        self,
        name: str,
        *,
        depth: Optional[int] = None,
        movetime: Optional[float] = None,
        nodes: Optional[int] = None,
        seed: int = 0,
        book: Optional[str] = None,
        hash: int = 16,
        threads: int = 1,
        elo: Optional[int] = None,
        syzygy: Optional[str] = None,
        eval: str = "net",
        net: Optional[NetLike] = None,
    ) -> None:
        self._limits = _limits(depth, movetime, nodes)
        # Checked here, so any int (negative, or beyond what the native layer reads) is a
        # ValueError; a size the memory cannot hold is one from the native layer.
        if not isinstance(hash, int) or not 1 <= hash <= _native.HASH_MAX_MB:
            raise ValueError(f"hash must be 1 to {_native.HASH_MAX_MB} MB, got {hash!r}")
        if not isinstance(threads, int) or not 1 <= threads <= 256:
            raise ValueError(f"threads must be 1 to 256, got {threads!r}")
        # The Lab's range: 1000 to 3000 (the UCI option stops at 2200, its fitted scale).
        if elo is not None and (not isinstance(elo, int) or not 1000 <= elo <= 3000):
            raise ValueError(f"elo must be 1000 to 3000, got {elo!r}")
        self._native = _native.NativeEngine(
            name,
            seed=seed,
            book=book,
            hash_mb=hash,
            threads=threads,
            elo=elo,
            syzygy=syzygy,
            eval=eval,
            net=_net_path(net),
        )
        self.name: str = self._native.name
        self.idea: str = next(e.idea for e in engines() if e.name == self.name)

    def __repr__(self) -> str:
        shown = {
            "depth": self._limits["depth"],
            "movetime": None if self._limits["movetime_ms"] is None else self._limits["movetime_ms"] / 1000,
            "nodes": self._limits["nodes"],
        }
        limits = ", ".join(f"{k}={v}" for k, v in shown.items() if v is not None)
        return f"Engine({self.name!r}{', ' + limits if limits else ''})"

    def analyse(
        self,
        board: BoardLike,
        *,
        depth: Optional[int] = None,
        movetime: Optional[float] = None,
        nodes: Optional[int] = None,
        all_moves: bool = False,
    ) -> Analysis:
        """Searches ``board`` and returns every scored root move, best first, with nodes and time.
        ``movetime`` is in seconds. ``all_moves=True`` gives every root move an exact score (a
        full window for each), as the tutorial's tables show them.

        >>> a = rookery.Engine("minimax").analyse(chess.Board(), depth=2)
        >>> a.nodes
        421
        """
        fen, moves = _fen_and_moves(board)
        limits = dict(self._limits)
        if depth is not None or movetime is not None or nodes is not None:
            limits = _limits(depth, movetime, nodes)
        raw = self._native.search(fen, moves, all_moves=all_moves, **limits)
        return Analysis(
            best=_move(raw["best"]),
            score=raw["score"],
            mate=raw["mate"],
            pv=[chess.Move.from_uci(m) for m in raw["pv"]],
            moves=[ScoredMove(_from_uci(m), s, b, w) for m, s, b, w in raw["moves"]],
            depth=raw["depth"],
            seldepth=raw["seldepth"],
            nodes=raw["nodes"],
            time=raw["time"],
            from_book=raw["from_book"],
        )

    def play(
        self,
        board: BoardLike,
        *,
        depth: Optional[int] = None,
        movetime: Optional[float] = None,
        nodes: Optional[int] = None,
    ) -> chess.Move:
        """The move the engine plays in ``board``. Raises ``ValueError`` when the game is over.

        >>> rookery.Engine("greedy").play(chess.Board("k7/8/8/8/8/8/1q6/1Q5K w - - 0 1"))
        Move.from_uci('b1b2')
        """
        best = self.analyse(board, depth=depth, movetime=movetime, nodes=nodes).best
        if best is None:
            raise ValueError("the game is over: no legal move")
        return best

    def new_game(self) -> None:
        """Forgets what earlier searches learned (hash table, histories).

        >>> engine = rookery.Engine("tt", depth=4)
        >>> first = engine.analyse(chess.Board()).nodes
        >>> engine.new_game(); engine.analyse(chess.Board()).nodes == first
        True
        """
        self._native.new_game()


@dataclass(frozen=True)
class Evaluation:
    """The hand-crafted evaluation (``rookery-hce``'s): ``value`` for the side to move, ``white`` from
    White's view (centipawns), and each term's (middlegame, endgame) part from White's view."""

    value: int
    white: int
    terms: Dict[str, Tuple[int, int]]


def evaluate(
    board: BoardLike, terms: bool = False, eval: Optional[str] = None, net: Optional[NetLike] = None
) -> Union[int, Evaluation]:
    """The static evaluation of ``board`` in centipawns for the side to move: the hand-crafted
    one by default (``eval="hce"``), or with ``eval="net"`` the learned net's (the built-in net,
    or the net file ``net``, a path or a ``TrainedNet``; ``net=`` alone means ``eval="net"``). With ``terms=True``, the hand-crafted evaluation as an
    ``Evaluation`` with every term, as UCI ``eval`` prints it (a net has no terms).

    >>> rookery.evaluate(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800
    True
    >>> rookery.evaluate(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1"), eval="net") > 800
    True
    >>> "passed pawns" in rookery.evaluate(chess.Board(), terms=True).terms
    True
    """
    if eval is None:
        eval = "hce" if net is None else "net"
    if eval == "net":
        if terms:
            raise ValueError("terms=True is the hand-crafted evaluation's: a net has no terms")
        return _native.evaluate_net(_fen(board), _net_path(net))[0]
    if eval != "hce":
        raise ValueError(f"unknown evaluation '{eval}' (hce or net)")
    if net is not None:
        raise ValueError("net needs eval='net'")
    stm, white, parts = _native.evaluate(_fen(board))
    if not terms:
        return stm
    return Evaluation(stm, white, {name: (mg, eg) for name, mg, eg in parts})


class NetInfo(NamedTuple):
    """A learned net: its ``architecture`` in words, its ``hidden`` neurons (each perspective), its
    output ``buckets``, and its ``provenance`` (the data, command and commit it came from)."""

    architecture: str
    hidden: int
    buckets: int
    provenance: str


def net_info(net: Optional[NetLike] = None) -> NetInfo:
    """The built-in net's shape and origin, or those of the net file ``net`` (a path or a
    ``TrainedNet``).

    >>> info = rookery.net_info()
    >>> info.hidden >= 128, info.architecture.startswith("(768")
    (True, True)
    """
    return NetInfo(*_native.net_info(_net_path(net)))


# The pieces of piece_square's tables, in order.
_PIECES = ("P", "N", "B", "R", "Q")


def _grids(rows: Sequence[Sequence[Optional[int]]]) -> Dict[str, List[List[Optional[int]]]]:
    """Rows of 64 values in a1, b1, ..., h8 order as 8x8 grids drawn as a board is: rank 8
    first, the a-file on the left."""
    return {
        piece: [list(row[8 * rank : 8 * rank + 8]) for rank in range(7, -1, -1)]
        for piece, row in zip(_PIECES, rows)
    }


def piece_square(eval: Optional[NetLike] = "hce") -> Dict[str, List[List[Optional[int]]]]:
    """What an evaluation thinks each White piece is worth on each square, in centipawns:
    ``{"P": grid, "N": ..., "B": ..., "R": ..., "Q": ...}``, each grid 8 lists of 8 drawn as a
    board is (``grid[0]`` is rank 8, ``grid[7][0]`` is a1). Each value is the evaluation
    (White's view) of a fixed position, both kings castled short behind three pawns with Black
    to move, with the piece added, less that of the position alone; ``None`` where the square
    is taken or a pawn cannot stand.

    ``eval="hce"`` is the hand-crafted evaluation; ``"net"`` or ``None`` the built-in net; a
    path or a ``TrainedNet`` that net.

    >>> hce = rookery.piece_square("hce")
    >>> sorted(hce), len(hce["N"]), len(hce["N"][0]), hce["P"][0][0], hce["N"][7][6]
    (['B', 'N', 'P', 'Q', 'R'], 8, 8, None, None)
    >>> hce["Q"][4][3] > hce["R"][4][3] > hce["N"][4][3] > hce["P"][4][3] > 0
    True
    """
    if isinstance(eval, str) and eval in ("hce", "net"):
        return _grids(_native.piece_square(eval, None))
    return _grids(_native.piece_square("net", _net_path(eval)))


def _whole(name: str, value: Any) -> int:
    """A count for the native layer: a whole number it can read; its range is checked there,
    with the engine's own sentence."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    return value


class TrainedNet:
    """A net ``train`` trained, with what the run measured.

    ``history`` is the (training loss, validation loss) after each epoch; ``initial_loss`` the
    validation loss before the first; ``train_positions`` and ``validation_positions`` how the
    positions read were split (validation positions come from games none of the training
    positions came from); ``positions_seen`` the positions trained on over all epochs;
    ``seconds`` the time of the training (loading the data not counted); ``halted`` ``None``
    when every epoch ran, ``"time"`` when ``seconds=`` ran out, ``"stopped"`` when it was
    stopped.

    The net is written to a temporary file, ``path``, removed when the object goes (or the
    program ends); a ``TrainedNet`` is an ``os.PathLike`` of that file, so it goes wherever a
    net file does: ``Engine("rookery", net=trained)``, ``evaluate(board, net=trained)``,
    ``match(trained, "rookery-hce", ...)``. ``save(path)`` keeps a copy.
    """

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._bytes: bytes = bytes(raw["net"])
        self.history: List[Tuple[float, float]] = [(float(t), float(v)) for t, v in raw["history"]]
        self.initial_loss: float = float(raw["initial_loss"])
        self.train_positions: int = raw["train_positions"]
        self.validation_positions: int = raw["validation_positions"]
        self.positions_seen: int = raw["positions_seen"]
        self.seconds: float = raw["seconds"]
        self.halted: Optional[str] = raw["halted"]
        # A folder of its own, so the file can have a plain name (a match names it).
        folder = tempfile.mkdtemp(prefix="rookery-net-")
        path = os.path.join(folder, f"trained-h{raw['hidden']}.nnue")
        with open(path, "wb") as f:
            f.write(self._bytes)
        self.path: str = path
        self._remove = weakref.finalize(self, _remove_file, path)

    def __fspath__(self) -> str:
        return self.path

    def save(self, path: NetLike) -> None:
        """Writes the net file to ``path`` (the format ``rookery`` loads: UCI ``EvalFile``,
        ``--net``, ``Engine(net=...)``)."""
        with open(os.fspath(path), "wb") as f:
            f.write(self._bytes)

    @property
    def info(self) -> NetInfo:
        """The net's shape and provenance, as ``net_info`` gives them."""
        return net_info(self.path)

    def piece_square(self) -> Dict[str, List[List[Optional[int]]]]:
        """What this net thinks each White piece is worth on each square (see ``piece_square``)."""
        return piece_square(self)

    @property
    def validation_loss(self) -> float:
        """The validation loss after the last epoch (the initial one when none ran)."""
        return self.history[-1][1] if self.history else self.initial_loss

    def __repr__(self) -> str:
        halted = f", halted: {self.halted}" if self.halted else ""
        return (
            f"TrainedNet({self.info.hidden} hidden, {len(self.history)} epochs, validation loss "
            f"{self.initial_loss:.5f} -> {self.validation_loss:.5f}{halted})"
        )


@dataclass(frozen=True)
class TrainProgress:
    """What a ``train`` run tells its ``progress`` callback, one for each event; ``kind`` says which:

    - ``"loaded"``: the data is read and split; ``validation_loss`` is the untrained net's (the
      run's ``initial_loss``), ``seconds`` the time the data took to read, ``epoch`` and
      ``positions`` 0.
    - ``"batch"``: part of epoch ``epoch`` (counted from 1) is done, told after its first batch,
      then about twice a second; ``train_loss`` is the epoch's running training loss,
      ``positions_per_second`` the epoch's speed.
    - ``"epoch"``: epoch ``epoch`` is done; ``train_loss`` and ``validation_loss`` are those
      ``history`` keeps for it.

    ``positions`` counts the positions trained on so far over all epochs, ``seconds`` (but for
    ``"loaded"``) the training time so far; ``train_positions`` and ``validation_positions`` are
    the split. A loss a kind does not measure is ``None``. ``str()`` gives a progress line.

    >>> str(rookery.TrainProgress("epoch", 2, 38_000, 0.0213, 0.0231, None, 1.5, 19_000, 1_000))
    'epoch 2 done: 38,000 positions, training loss 0.02130, validation loss 0.02310, 1.5 s'
    """

    kind: str
    epoch: int
    positions: int
    train_loss: Optional[float]
    validation_loss: Optional[float]
    positions_per_second: Optional[float]
    seconds: float
    train_positions: int
    validation_positions: int

    def __str__(self) -> str:
        if self.kind == "loaded":
            return (
                f"loaded: {self.train_positions:,} training positions, "
                f"{self.validation_positions:,} validation, untrained validation loss "
                f"{self.validation_loss:.5f}, {self.seconds:.1f} s"
            )
        if self.kind == "batch":
            return (
                f"epoch {self.epoch}: {self.positions:,} positions, training loss "
                f"{self.train_loss:.5f}, {self.positions_per_second:,.0f} positions/s"
            )
        return (
            f"epoch {self.epoch} done: {self.positions:,} positions, training loss "
            f"{self.train_loss:.5f}, validation loss {self.validation_loss:.5f}, {self.seconds:.1f} s"
        )


def _remove_file(path: str) -> None:
    try:
        os.remove(path)
        os.rmdir(os.path.dirname(path))
    except OSError:
        pass


def train(
    data: Union[NetLike, Sequence[NetLike]],
    hidden: int = 32,
    epochs: int = 3,
    *,
    positions: int = 500_000,
    lr: float = 0.002,
    threads: Optional[int] = None,
    seed: int = 1,
    seconds: Optional[float] = None,
    batch: Optional[int] = None,
    progress: Optional[Callable[[TrainProgress], Any]] = None,
    layers: Optional[Tuple[int, int]] = None,
    buckets: int = 1,
    inputs: str = "plain",
    paired: bool = False,
) -> TrainedNet:
    """Trains a small net, as ``rookery train`` does with millions of positions: on the first
    ``positions`` positions of ``data`` (a data directory such as ``data/selfplay/gen6-b``, or a
    record file, or a list of them, read in order), ``hidden`` neurons each side, ``epochs``
    passes over them with mini-batches of ``batch`` positions (by default a 128th of them, from
    1,024 to 16,384), the learning rate ``lr`` falling along a cosine. A twentieth of the positions, in runs of whole games, is kept apart to
    measure the validation loss. ``threads=None`` uses every core; ``seconds`` caps the training
    time (the run then ends when it is up, in the middle of an epoch if need be).

    ``layers=(l1, l2)`` puts a deep head after the hidden layer, as ``rookery train --layers``
    does: ``(768 -> hidden) x 2 -> l1 -> l2 -> 1``, ``l1`` 8, 16, 24 or 32, ``l2`` 1 to 64,
    ``hidden`` then a multiple of 8. ``None`` (the default) trains the single output the
    built-in net has; with it, ``paired=True`` feeds the head pairs' products (each side's
    hidden layer, its first half times its second: ``hidden`` inputs instead of twice that), as
    ``rookery train --paired`` does. ``buckets`` output layers (1, 2, 4 or 8) are chosen by the number of
    pieces on the board, and ``inputs`` names the input layout (``"plain"``, ``"mirror"``,
    ``"mirror-kb4"`` or ``"mirror-kb8"``), as ``rookery train --buckets`` and ``--inputs`` do:
    the built-in net is ``hidden=512, buckets=8, inputs="mirror-kb4", layers=(8, 32)`` on tens
    of millions of positions.

    ``progress``, a callable, is called with a ``TrainProgress`` for each event of the run: once
    the data is loaded (the split and the untrained net's loss), about twice a second during
    each epoch (positions trained on, running training loss, positions a second), and after
    each epoch (its training and validation loss). It runs in the calling thread, the training
    going on meanwhile; an exception it raises stops the training and is raised by ``train``
    as it is. ``progress=print`` prints a line for each.

    Ctrl-C stops it and raises ``KeyboardInterrupt``. A bad number, data that cannot be read, or
    a ``progress`` that is not callable raises ``ValueError``.

    >>> net = rookery.train("data/selfplay/gen6-b", hidden=8, positions=20_000)  # doctest: +SKIP
    >>> len(net.history), net.validation_loss < net.initial_loss               # doctest: +SKIP
    (3, True)
    >>> rookery.train([], hidden=8)
    Traceback (most recent call last):
    ...
    ValueError: name a data set to train on
    """
    if isinstance(data, (str, os.PathLike)):
        paths = [os.fspath(data)]
    else:
        paths = [os.fspath(d) for d in data]
    if not isinstance(lr, (int, float)) or isinstance(lr, bool):
        raise ValueError(f"lr must be a number, got {lr!r}")
    if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)):
        raise ValueError(f"seconds must be a number, got {seconds!r}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable (or None), got {progress!r}")
    if layers is not None:
        if isinstance(layers, (str, bytes)) or not isinstance(layers, Sequence) or len(layers) != 2:
            raise ValueError(f"layers must be a pair (l1, l2) or None, got {layers!r}")
        layers = (_whole("layers", layers[0]), _whole("layers", layers[1]))
    if not isinstance(inputs, str):
        raise ValueError(f"inputs must be a layout's name, got {inputs!r}")
    if not isinstance(paired, bool):
        raise ValueError(f"paired must be True or False, got {paired!r}")
    tell = None if progress is None else (lambda raw: progress(TrainProgress(**raw)))
    raw = _native.train(
        paths,
        hidden=_whole("hidden", hidden),
        epochs=_whole("epochs", epochs),
        positions=_whole("positions", positions),
        lr=float(lr),
        threads=None if threads is None else _whole("threads", threads),
        seed=_whole("seed", seed),
        seconds=None if seconds is None else float(seconds),
        batch=None if batch is None else _whole("batch", batch),
        progress=tell,
        layers=layers,
        buckets=_whole("buckets", buckets),
        inputs=inputs,
        paired=paired,
    )
    return TrainedNet(raw)


def perft(board: BoardLike, depth: int, divide: bool = False) -> Union[int, Dict[chess.Move, int]]:
    """The number of leaf positions ``depth`` plies below ``board``; with ``divide=True``, that
    number below each legal move.

    >>> rookery.perft(chess.Board(), 4)
    197281
    """
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be a whole number of at least 0, got {depth!r}")
    fen = _fen(board)
    if divide:
        return {chess.Move.from_uci(m): n for m, n in _native.divide(fen, depth)}
    return _native.perft(fen, depth)


class TreeNode:
    """A position of a search tree: the ``move`` that leads to it (``None`` at the root), its
    ``san``, its ``value`` (centipawns, White's view), the alpha-beta window (``alpha``, ``beta``,
    White's view; ``None`` for minimax) it was searched with, and its ``children``. A move that a
    cut-off skipped is a node with ``pruned`` set to the reason, and no value.

    >>> root = rookery.tree(chess.Board(), "alphabeta", depth=2).root
    >>> second = root.children[1]
    >>> second.san, second.value, (second.alpha, second.beta), second.children[1].pruned[:7]
    ('b3', 0, (0, 32000), 'cut-off')
    """

    __slots__ = ("index", "move", "san", "ply", "value", "alpha", "beta", "pruned", "children", "parent")

    def __init__(self, index: int, row: Sequence[Any], parent: Optional["TreeNode"]) -> None:
        _, uci, san, ply, value, alpha, beta, pruned = row
        self.index: int = index
        self.move: Optional[chess.Move] = _move(uci)
        self.san: str = san
        self.ply: int = ply
        self.value: Optional[int] = value
        self.alpha: Optional[int] = alpha
        self.beta: Optional[int] = beta
        self.pruned: Optional[str] = pruned
        self.children: List[TreeNode] = []
        self.parent: Optional[TreeNode] = parent

    @property
    def is_pruned(self) -> bool:
        return self.pruned is not None

    def __repr__(self) -> str:
        what = f"pruned: {self.pruned}" if self.pruned else f"value {self.value}"
        return f"TreeNode({self.san}, ply {self.ply}, {what}, {len(self.children)} children)"


class Tree:
    """The search tree of ``minimax``, ``alphabeta`` or ``negamax`` (see ``tree``): ``root``,
    ``nodes`` (root first), ``per_depth`` counts, ``pruned`` moves, the ``best`` move and ``score``.

    >>> t = rookery.tree(chess.Board(), "minimax", depth=2)
    >>> t.per_depth, t.positions, len(t.root.children), t
    ([1, 20, 400], 421, 20, Tree(minimax, depth 2: 421 positions, 0 moves pruned))
    """

    def __init__(self, raw: Dict[str, Any]) -> None:
        self.engine: str = raw["engine"]
        self.depth: int = raw["depth"]
        self.fen: str = raw["fen"]
        self.per_depth: List[int] = list(raw["per_depth"])
        self.pruned: int = raw["pruned"]
        self.best: Optional[chess.Move] = _move(raw["best"])
        self.score: Optional[int] = raw["score"]
        self.nodes: List[TreeNode] = []
        for i, row in enumerate(raw["nodes"]):
            parent = self.nodes[row[0]] if row[0] >= 0 else None
            node = TreeNode(i, row, parent)
            if parent is not None:
                parent.children.append(node)
            self.nodes.append(node)
        self.root: TreeNode = self.nodes[0]

    @property
    def positions(self) -> int:
        """Positions visited: the engine's node count."""
        return sum(self.per_depth)

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[TreeNode]:
        return iter(self.nodes)

    def __repr__(self) -> str:
        return (
            f"Tree({self.engine}, depth {self.depth}: {self.positions} positions, "
            f"{self.pruned} moves pruned)"
        )

    def to_networkx(self) -> Any:
        """The tree as a ``networkx.DiGraph`` (needs networkx): nodes numbered from the root (0),
        with the attributes ``san``, ``move``, ``ply``, ``value``, ``alpha``, ``beta``, ``pruned``.

        >>> g = rookery.tree(chess.Board(), "alphabeta", depth=2).to_networkx()
        >>> g.nodes[0]["san"], g.number_of_nodes() - 1 == g.number_of_edges()
        ('root', True)
        """
        try:
            import networkx as nx
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("to_networkx needs networkx: pip install networkx") from e
        g = nx.DiGraph(engine=self.engine, depth=self.depth, fen=self.fen)
        for n in self.nodes:
            g.add_node(
                n.index,
                san=n.san,
                move=None if n.move is None else n.move.uci(),
                ply=n.ply,
                value=n.value,
                alpha=n.alpha,
                beta=n.beta,
                pruned=n.pruned,
            )
            if n.parent is not None:
                g.add_edge(n.parent.index, n.index)
        return g

    def to_dot(self) -> str:
        """The tree in Graphviz DOT, as ``rookery tree --dot`` writes it: moves and values (White's
        view, in pawns), pruned moves dashed and grey.

        >>> print(rookery.tree(chess.Board(), "minimax", depth=1).to_dot().splitlines()[3])
          n0 [label="root\\n+0.00"];
        """
        lines = [
            "digraph tree {",
            f'  label="{self.engine}, depth {self.depth}: {self.positions} positions"; labelloc=t;',
            '  node [shape=box, fontname="Helvetica", fontsize=10];',
        ]
        for n in self.nodes:
            if n.pruned is not None:
                lines.append(
                    f'  n{n.index} [label="{n.san}\\npruned", style=dashed, color=gray, fontcolor=gray];'
                )
            else:
                lines.append(f'  n{n.index} [label="{n.san}\\n{_pawns(n.value)}"];')
            if n.parent is not None:
                style = " [style=dashed, color=gray]" if n.pruned is not None else ""
                lines.append(f"  n{n.parent.index} -> n{n.index}{style};")
        lines.append("}")
        return "\n".join(lines) + "\n"


def _pawns(value: Optional[int]) -> str:
    if value is None:
        return "?"
    if abs(value) >= 29_000:
        plies = 30_000 - abs(value)
        moves = (plies + 1) // 2
        return f"#{moves}" if value > 0 else f"#-{moves}"
    return f"{value / 100:+.2f}"


def tree(board: BoardLike, engine: str = "alphabeta", depth: int = 3, max_nodes: int = 1_000_000) -> Tree:
    """The whole search tree of ``minimax``, ``alphabeta`` or ``negamax`` on ``board`` at
    ``depth``: each node with its move, value, window and children, each move a cut-off skipped
    marked with the reason. Trees over ``max_nodes`` nodes (pruned moves included) are refused
    with ``ValueError`` naming a depth that fits; ``tree_size`` counts without keeping.

    >>> t = rookery.tree(chess.Board(), "alphabeta", depth=2)
    >>> t.positions, t.root.children[0].san
    (60, 'a3')
    """
    if not isinstance(depth, int):
        raise ValueError(f"depth must be a whole number, got {depth!r}")
    fen, moves = _fen_and_moves(board)
    return Tree(_native.search_tree(fen, moves, engine, depth, max_nodes))


def tree_size(board: BoardLike, engine: str = "minimax", depth: int = 3) -> List[int]:
    """Positions per depth of the search tree (depth 0 is the root), counted without keeping it.

    >>> rookery.tree_size(chess.Board(), "minimax", 2)
    [1, 20, 400]
    """
    if not isinstance(depth, int):
        raise ValueError(f"depth must be a whole number, got {depth!r}")
    fen, moves = _fen_and_moves(board)
    per_depth, _ = _native.tree_size(fen, moves, engine, depth)
    return list(per_depth)


class GameRecord(NamedTuple):
    """One game of a match: who had White and Black, the result, how it ended, its length in
    half-moves and its PGN."""

    white: str
    black: str
    result: str
    ending: str
    plies: int
    pgn: str


@dataclass(frozen=True)
class MatchResult:
    """A match seen from the first engine: wins, draws and losses, the score (0..1), the Elo
    difference it means with its 95% error bar, and every game.

    >>> r = rookery.match("greedy", "random", games=2, depth=1, max_moves=60)
    >>> str(r).startswith("greedy vs random: +"), len(r.games), r.games[0].pgn[:6]
    (True, 2, '[Event')
    """

    names: Tuple[str, str]
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_error: float
    games: List[GameRecord] = field(repr=False)

    def __str__(self) -> str:
        elo = f"{self.elo:+.0f}" if math.isfinite(self.elo) else ("+inf" if self.elo > 0 else "-inf")
        err = f"{self.elo_error:.0f}" if math.isfinite(self.elo_error) else "inf"
        return (
            f"{self.names[0]} vs {self.names[1]}: +{self.wins} ={self.draws} -{self.losses} "
            f"({100 * self.score:.1f}%), Elo {elo} +/- {err}"
        )


def _player(who: Any, which: str) -> Tuple[str, Optional[str]]:
    """An engine name, or ``rookery`` and the net file to search with."""
    if isinstance(who, str):
        return who, None
    if isinstance(who, os.PathLike):
        return "rookery", os.fspath(who)
    what = type(who).__name__
    raise TypeError(f"{which} must be an engine name, a TrainedNet or a net path, got {what}")


def match(
    first: Union[str, "os.PathLike[str]"],
    second: Union[str, "os.PathLike[str]"],
    games: int = 10,
    *,
    depth: Optional[int] = None,
    movetime: Optional[float] = None,
    nodes: Optional[int] = None,
    openings: Optional[Sequence[BoardLike]] = None,
    seed: int = 0,
    concurrency: int = 1,
    max_moves: Optional[int] = None,
) -> MatchResult:
    """Plays ``games`` games between two engines, colours alternating, two games (one each way)
    from each opening; by default balanced two-move openings shuffled by ``seed``. Give one limit
    per move: ``depth``, ``movetime`` (seconds) or ``nodes``. ``max_moves`` adjudicates a draw
    after that many moves. The result is seen from ``first``.

    ``first`` and ``second`` are engine names, or nets for ``rookery`` to search with: a
    ``TrainedNet`` or an ``os.PathLike`` of a net file (``pathlib.Path("net.nnue")``; a plain
    string is an engine name). Such a player is named after the file, ``rookery (net: NAME)``.

    >>> r = rookery.match("alphabeta", "random", games=4, depth=2)
    >>> r.wins + r.draws + r.losses
    4
    """
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a whole number of at least 1, got {games!r}")
    limits = _limits(depth, movetime, nodes)
    if sum(v is not None for v in limits.values()) != 1:
        raise ValueError("give exactly one of depth, movetime or nodes")
    starts = None if openings is None else [_fen_and_moves(b) for b in openings]
    if starts is not None and not starts:
        raise ValueError("openings is empty")
    first_name, first_net = _player(first, "first")
    second_name, second_net = _player(second, "second")
    raw = _native.play_match(
        first_name,
        second_name,
        games,
        white_net=first_net,
        black_net=second_net,
        openings=starts,
        seed=seed,
        concurrency=concurrency,
        max_moves=max_moves,
        **limits,
    )
    return MatchResult(
        names=tuple(raw["names"]),
        wins=raw["wins"],
        draws=raw["draws"],
        losses=raw["losses"],
        score=raw["score"],
        elo=raw["elo"],
        elo_error=raw["elo_error"],
        games=[GameRecord(*g) for g in raw["games"]],
    )


class TablebaseMove(NamedTuple):
    """A legal move and the tables' verdict after it, from the mover's view: ``wdl`` 2 win,
    1 cursed win, 0 draw, -1 blessed loss, -2 loss; ``dtz`` plies to the next zeroing move."""

    move: chess.Move
    san: str
    wdl: int
    dtz: int


class Tablebase:
    """Syzygy endgame tables from a directory (several separated by ``:``).

    >>> tb = rookery.Tablebase("tests/data/syzygy")            # doctest: +SKIP
    >>> tb.wdl(chess.Board("8/8/8/8/8/8/6k1/4K2Q w - - 0 1"))   # doctest: +SKIP
    2
    """

    def __init__(self, path: str) -> None:
        self._native = _native.NativeSyzygy(str(path))

    @property
    def max_pieces(self) -> int:
        """The most pieces (kings included) of any table opened."""
        return self._native.max_pieces

    @property
    def files(self) -> int:
        return self._native.files

    def wdl(self, board: BoardLike) -> Optional[int]:
        """Win/draw/loss for the side to move (2 win ... -2 loss, counting the 50-move rule), or
        ``None`` when no table has the position."""
        return self._native.wdl(_fen(board))

    def dtz(self, board: BoardLike) -> Optional[int]:
        """Signed plies to the next capture or pawn move of the best line (0 for a draw)."""
        return self._native.dtz(_fen(board))

    def moves(self, board: BoardLike) -> Optional[List[TablebaseMove]]:
        """Every legal move with its verdict, best first; ``None`` when the tables lack it."""
        ranked = self._native.moves(_fen(board))
        if ranked is None:
            return None
        return [TablebaseMove(chess.Move.from_uci(u), s, w, d) for u, s, w, d in ranked]

    def best_move(self, board: BoardLike) -> Optional[chess.Move]:
        """The move that keeps the best result by the shortest (or longest, when lost) way."""
        ranked = self.moves(board)
        return ranked[0].move if ranked else None
