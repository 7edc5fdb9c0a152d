"""Type stubs of the native module (Rust, PyO3). Use the ``rookery`` package above it: it takes
python-chess boards and returns objects; this layer takes FENs and UCI strings."""

from typing import Any, Callable, Dict, List, Optional, Tuple

def version() -> str: ...
def engines() -> List[Tuple[str, str]]: ...
def evaluate(fen: str) -> Tuple[int, int, List[Tuple[str, int, int]]]: ...
def evaluate_net(fen: str, net: Optional[str] = ...) -> Tuple[int, int]: ...
def net_info(net: Optional[str] = ...) -> Tuple[str, int, int, str]: ...
def train(
    data: List[str],
    hidden: int = ...,
    epochs: int = ...,
    positions: int = ...,
    lr: float = ...,
    threads: Optional[int] = ...,
    seed: int = ...,
    seconds: Optional[float] = ...,
    batch: Optional[int] = ...,
    progress: Optional[Callable[[Dict[str, Any]], Any]] = ...,
    layers: Optional[Tuple[int, int]] = ...,
    buckets: int = ...,
    inputs: str = ...,
    paired: bool = ...,
) -> Dict[str, Any]: ...
def piece_square(eval: str = ..., net: Optional[str] = ...) -> List[List[Optional[int]]]: ...
def perft(fen: str, depth: int) -> int: ...
def divide(fen: str, depth: int) -> List[Tuple[str, int]]: ...
def search_tree(
    fen: str, moves: List[str], engine: str, depth: int, max_nodes: int = ...
) -> Dict[str, Any]: ...
def tree_size(fen: str, moves: List[str], engine: str, depth: int) -> Tuple[List[int], int]: ...
def play_match(
    white: str,
    black: str,
    games: int,
    depth: Optional[int] = ...,
    movetime_ms: Optional[int] = ...,
    nodes: Optional[int] = ...,
    openings: Optional[List[Tuple[str, List[str]]]] = ...,
    seed: int = ...,
    concurrency: int = ...,
    max_moves: Optional[int] = ...,
    white_net: Optional[str] = ...,
    black_net: Optional[str] = ...,
) -> Dict[str, Any]: ...
def uci_loop() -> None: ...

HASH_MAX_MB: int

class NativeEngine:
    name: str
    def __init__(
        self,
        name: str,
        seed: int = ...,
        book: Optional[str] = ...,
        hash_mb: int = ...,
        threads: int = ...,
        elo: Optional[int] = ...,
        syzygy: Optional[str] = ...,
        eval: Optional[str] = ...,
        net: Optional[str] = ...,
    ) -> None: ...
    def new_game(self) -> None: ...
    def search(
        self,
        fen: str,
        moves: List[str],
        depth: Optional[int] = ...,
        movetime_ms: Optional[int] = ...,
        nodes: Optional[int] = ...,
        all_moves: bool = ...,
    ) -> Dict[str, Any]: ...

class NativeSyzygy:
    max_pieces: int
    files: int
    def __init__(self, path: str) -> None: ...
    def wdl(self, fen: str) -> Optional[int]: ...
    def dtz(self, fen: str) -> Optional[int]: ...
    def moves(self, fen: str) -> Optional[List[Tuple[str, str, int, int]]]: ...
