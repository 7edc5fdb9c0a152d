#!/usr/bin/env python3
"""A small engine-match runner on python-chess, until `rookery match` exists (issue 4).

Each opening (from a PGN or EPD file, in order) is played twice with colours swapped. The runner
keeps the clocks: an engine that exceeds its time loses on time. Games are adjudicated as wins when
both engines agree on a score beyond 1000 cp for 4 moves in a row, and as draws at 300 plies.

  python3 scripts/match.py --engine "name=new cmd=target/release/rookery" \
      --engine "name=old cmd=/usr/games/phalanx -l- -b- proto=xboard" \
      --tc 10+0.1 --games 200 --concurrency 2 --openings ../shared/data/openings/8moves_v3.pgn

Engine options: option.NAME=VALUE (UCI setoption). Prints W/D/L, score and Elo with a 95% error
bar for the first engine, and time forfeits per engine.
"""
import argparse
import concurrent.futures
import math
import random
import shlex
import threading
import time

import chess
import chess.engine
import chess.pgn


def parse_engine(spec):
    """`name=X cmd=PATH [args...] [proto=uci|xboard] [option.NAME=VALUE ...]`."""
    e = {"options": {}, "proto": "uci", "cmd": []}
    for tok in shlex.split(spec):
        key, eq, val = tok.partition("=")
        if eq and key == "cmd":
            e["cmd"] = shlex.split(val)
        elif eq and key in ("name", "proto"):
            e[key] = val
        elif eq and key.startswith("option."):
            e["options"][key[len("option."):]] = val
        else:
            e["cmd"].append(tok)
    e.setdefault("name", e["cmd"][0])
    return e


def load_openings(path, n, seed):
    boards = []
    if path.endswith(".epd"):
        with open(path) as f:
            for line in f:
                if line.strip():
                    boards.append(chess.Board(" ".join(line.split()[:4])))
                if len(boards) >= n * 4:
                    break
    else:
        with open(path) as f:
            while len(boards) < n * 4:
                g = chess.pgn.read_game(f)
                if g is None:
                    break
                boards.append(g.end().board())
    random.Random(seed).shuffle(boards)
    return boards[:n]


def open_engine(e):
    if e["proto"] == "xboard":
        eng = chess.engine.SimpleEngine.popen_xboard(e["cmd"], timeout=30)
    else:
        eng = chess.engine.SimpleEngine.popen_uci(e["cmd"], timeout=30)
    opts = {}
    for k, v in e["options"].items():
        if v.lower() in ("true", "false"):
            opts[k] = v.lower() == "true"
        else:
            try:
                opts[k] = int(v)
            except ValueError:
                opts[k] = v
    if opts:
        eng.configure(opts)
    return eng


def play_game(engines, white_idx, start, base, inc, margin):
    """Plays one game; returns (result for engines[0] in {1, 0.5, 0}, reason, forfeit_name)."""
    eng = [open_engine(engines[0]), open_engine(engines[1])]
    board = start.copy()
    clocks = {chess.WHITE: base, chess.BLACK: base}
    side_engine = {chess.WHITE: white_idx, chess.BLACK: 1 - white_idx}
    streak = 0
    try:
        while not board.is_game_over(claim_draw=True):
            if board.ply() >= 300:
                return 0.5, "max plies", None
            idx = side_engine[board.turn]
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=inc, black_inc=inc)
            t0 = time.monotonic()
            try:
                res = eng[idx].play(board, limit, info=chess.engine.INFO_SCORE)
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as err:
                winner = 1 - idx
                return (1.0 if winner == 0 else 0.0), f"engine error: {err}", None
            used = time.monotonic() - t0
            clocks[board.turn] -= used
            if clocks[board.turn] < -margin:
                winner = 1 - idx
                print(f"flag: {engines[idx]['name']} at ply {board.ply()} used {used * 1000:.0f} ms "
                      f"with {(clocks[board.turn] + used) * 1000:.0f} ms on its clock", flush=True)
                return (1.0 if winner == 0 else 0.0), "time forfeit", engines[idx]["name"]
            clocks[board.turn] += inc
            if res.move is None or res.move not in board.legal_moves:
                winner = 1 - idx
                return (1.0 if winner == 0 else 0.0), f"illegal move {res.move}", None
            score = res.info.get("score")
            if score is not None and not score.is_mate() and abs(score.relative.score()) >= 1000:
                streak += 1
            elif score is not None and score.is_mate():
                streak += 1
            else:
                streak = 0
            board.push(res.move)
            if streak >= 8:  # both engines, four moves each
                white_wins = score.white().score(mate_score=100000) > 0
                winner_color = chess.WHITE if white_wins else chess.BLACK
                return (1.0 if side_engine[winner_color] == 0 else 0.0), "adjudicated", None
        outcome = board.outcome(claim_draw=True)
        if outcome.winner is None:
            return 0.5, outcome.termination.name.lower(), None
        return (1.0 if side_engine[outcome.winner] == 0 else 0.0), outcome.termination.name.lower(), None
    finally:
        for e in eng:
            try:
                e.quit()
            except Exception:
                pass


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def summary(results):
    n = len(results)
    w = sum(1 for r in results if r == 1.0)
    d = sum(1 for r in results if r == 0.5)
    l = n - w - d
    s = (w + d / 2) / n
    var = sum((r - s) ** 2 for r in results) / n
    se = math.sqrt(var / n)
    lo, hi = elo(s - 1.96 * se), elo(s + 1.96 * se)
    e = elo(s)
    return n, w, d, l, s, e, (hi - lo) / 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", action="append", required=True)
    ap.add_argument("--tc", default="10+0.1")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--openings", default="../shared/data/openings/8moves_v3.pgn")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--margin", type=float, default=0.0, help="seconds past zero before a flag falls")
    args = ap.parse_args()
    engines = [parse_engine(s) for s in args.engine]
    base, inc = (float(x) for x in args.tc.split("+"))
    openings = load_openings(args.openings, (args.games + 1) // 2, args.seed)
    jobs = []
    for i, b in enumerate(openings):
        jobs.append((i, 0, b))
        jobs.append((i, 1, b))
    jobs = jobs[: args.games]
    results, forfeits, reasons = [], {}, {}
    lock = threading.Lock()

    def run(job):
        i, white_idx, b = job
        return play_game(engines, white_idx, b, base, inc, args.margin)

    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        for r, reason, forfeit in pool.map(run, jobs):
            with lock:
                results.append(r)
                reasons[reason] = reasons.get(reason, 0) + 1
                if forfeit:
                    forfeits[forfeit] = forfeits.get(forfeit, 0) + 1
                if len(results) % 10 == 0 or len(results) == len(jobs):
                    n, w, d, l, s, e, err = summary(results)
                    print(f"{n} games: +{w} ={d} -{l} score {s:.3f} Elo {e:+.1f} +/- {err:.1f}", flush=True)
    n, w, d, l, s, e, err = summary(results)
    print(f"Result for {engines[0]['name']} vs {engines[1]['name']} at {args.tc}: {n} games, "
          f"+{w} ={d} -{l}, score {s:.3f}, Elo {e:+.1f} +/- {err:.1f} (95%)")
    print(f"Endings: {reasons}")
    print(f"Time forfeits: {forfeits or 'none'}")


if __name__ == "__main__":
    main()
