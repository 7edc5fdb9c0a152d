"""Reads back a fastchess match: its PGN with python-chess and its console log.

Usage: python3 scripts/fastchess_check.py MATCH.pgn MATCH.log GAMES

Fails (exit 1, one line a problem) unless the PGN holds GAMES games, each replayed legally from
its start to a result, none ended by a time forfeit, an illegal move, a disconnect or a stall
("abandoned"), none unterminated, and the log has no warning from fastchess about an engine's
output (a PV that does not start with the best move, an illegal PV move, a mate PV that does not
mate...). Prints the results, the least time left on any move, and how the games ended.
"""

import collections
import re
import sys

import chess
import chess.pgn

BAD_TERMINATIONS = {"time forfeit", "illegal move", "abandoned", "unterminated"}


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    pgn_path, log_path, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
    problems = []
    results = collections.Counter()
    endings = collections.Counter()
    scores = collections.Counter()
    least_left = None
    games = 0
    names = set()
    with open(pgn_path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            games += 1
            label = f"game {games} ({game.headers.get('White')} - {game.headers.get('Black')})"
            names.update(game.headers.get(side, "?") for side in ("White", "Black"))
            if game.errors:
                problems.append(f"{label}: the PGN does not read back: {game.errors[0]}")
                continue
            result = game.headers.get("Result", "*")
            termination = game.headers.get("Termination", "")
            results[result] += 1
            endings[termination] += 1
            if result not in ("1-0", "0-1", "1/2-1/2"):
                problems.append(f"{label}: no result ({result})")
            if termination in BAD_TERMINATIONS:
                problems.append(f"{label}: ended by {termination}")
            board = game.board()
            for node in game.mainline():
                if node.move not in board.legal_moves:
                    problems.append(f"{label}: illegal move {node.move.uci()} in {board.fen()}")
                    break
                board.push(node.move)
                left = re.search(r"tl=([0-9.]+)s", node.comment or "")
                if left:
                    value = float(left.group(1))
                    least_left = value if least_left is None else min(least_left, value)
            if result != "*":
                winner = {"1-0": game.headers.get("White"), "0-1": game.headers.get("Black")}
                scores[winner.get(result, "draw")] += 1
    if games != want:
        problems.append(f"the PGN holds {games} games, not {want}")
    with open(log_path, encoding="utf-8", errors="replace") as f:
        warnings = [line.strip() for line in f if "Warning;" in line]
    for line in warnings[:20]:
        problems.append(f"fastchess: {line}")
    if len(warnings) > 20:
        problems.append(f"... and {len(warnings) - 20} more fastchess warnings")
    # Each warning counted against the engine it names (the longest name that fits, so that
    # `rookery` does not take `rookery-hce`'s).
    by_engine = collections.Counter({name: 0 for name in names})
    for line in warnings:
        named = [name for name in names if name in line]
        by_engine[max(named, key=len) if named else "?"] += 1
    print(
        f"{games} games: {dict(scores)}; endings {dict(endings)}; "
        f"least time left {least_left if least_left is not None else '?'} s; "
        f"{len(warnings)} fastchess warnings {dict(sorted(by_engine.items()))}"
    )
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
