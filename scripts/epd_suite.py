#!/usr/bin/env python3
"""Runs an EPD test suite (bm / am) through a UCI engine at a fixed time per position, until
`rookery epd` exists (issue 4). Prints solved/total and the unsolved ids.

  python3 scripts/epd_suite.py ../shared/data/epd/wac.epd --time 1 [--engine target/release/rookery] [--jobs 2]
"""
import argparse
import concurrent.futures

import chess
import chess.engine


def parse(line):
    board, ops = chess.Board.from_epd(line)
    return board, ops


def solve(args, line):
    board, ops = parse(line)
    engine = chess.engine.SimpleEngine.popen_uci([args.engine])
    try:
        result = engine.play(board, chess.engine.Limit(time=args.time))
    finally:
        engine.quit()
    bm, am = ops.get("bm", []), ops.get("am", [])
    ok = (not bm or result.move in bm) and (result.move not in am)
    return ops.get("id", "?"), ok, board.san(result.move)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite")
    ap.add_argument("--time", type=float, default=1.0)
    ap.add_argument("--engine", default="target/release/rookery")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    lines = [l for l in open(args.suite) if l.strip() and not l.startswith("#")]
    unsolved = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda l: solve(args, l), lines))
    for id_, ok, played in results:
        if not ok:
            unsolved.append(f"{id_} ({played})")
    print(f"solved {len(lines) - len(unsolved)}/{len(lines)} at {args.time} s per position")
    print("unsolved: " + ", ".join(unsolved))


if __name__ == "__main__":
    main()
