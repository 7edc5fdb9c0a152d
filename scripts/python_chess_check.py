#!/usr/bin/env python3
"""Drives Rookery the way python-chess users do (chess.engine.SimpleEngine.popen_uci): a short
game, a MultiPV analysis, option changes, and every value of the Engine option. Any protocol
error raises, and the script exits non-zero.

Usage: python3 scripts/python_chess_check.py [PATH_TO_ROOKERY]
"""
import sys

import chess
import chess.engine

EXE = sys.argv[1] if len(sys.argv) > 1 else "target/release/rookery"


def check(cond, what):
    if not cond:
        raise SystemExit(f"python-chess check failed: {what}")


def main():
    engine = chess.engine.SimpleEngine.popen_uci([EXE], timeout=30)
    try:
        check(engine.id.get("name", "").startswith("Rookery"), f"id name {engine.id}")
        for name in ["Hash", "Threads", "MultiPV", "Move Overhead", "Ponder", "UCI_Chess960",
                     "UCI_LimitStrength", "UCI_Elo", "UCI_ShowWDL", "OwnBook", "SyzygyPath", "Engine"]:
            check(name in engine.options, f"option {name}")

        # A short game against itself.
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 40:
            result = engine.play(board, chess.engine.Limit(time=0.05))
            check(result.move in board.legal_moves, f"legal move {result.move}")
            board.push(result.move)
        print(f"game: {board.ply()} plies, {board.result(claim_draw=True)}")

        # Analysis with three lines, scores and principal variations.
        infos = engine.analyse(chess.Board(), chess.engine.Limit(depth=6), multipv=3)
        check(len(infos) == 3, f"three lines, got {len(infos)}")
        firsts = {info["pv"][0] for info in infos}
        check(len(firsts) == 3, "three different first moves")
        for info in infos:
            check("score" in info and info.get("depth", 0) >= 6, f"info {info}")
        print("analysis:", [(i["pv"][0].uci(), str(i["score"].white())) for i in infos])

        # Options: hash, threads, overhead, WDL, limited strength.
        engine.configure({"Hash": 32, "Threads": 2, "Move Overhead": 20, "UCI_ShowWDL": True})
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=5))
        check("wdl" in info, f"wdl reported: {info}")
        engine.configure({"Threads": 1, "UCI_LimitStrength": True, "UCI_Elo": 1500})
        result = engine.play(chess.Board(), chess.engine.Limit(time=0.1))
        check(result.move in chess.Board().legal_moves, "limited-strength move")
        engine.configure({"UCI_LimitStrength": False})

        # Mate and stalemate positions.
        mate = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
        info = engine.analyse(mate, chess.engine.Limit(depth=3))
        check(info["score"].relative == chess.engine.Mate(1), f"mate in one: {info['score']}")

        # Every rung of the ladder, through the Engine option.
        combo = engine.options["Engine"].var
        check("rookery" in combo and "random" in combo and len(combo) >= 12, f"Engine values {combo}")
        board = chess.Board()
        board.push_san("e4")
        for name in combo:
            engine.configure({"Engine": name})
            result = engine.play(board, chess.engine.Limit(time=0.2, depth=3))
            check(result.move in board.legal_moves, f"{name} plays a legal move")
            print(f"engine {name}: {board.san(result.move)}")
        engine.configure({"Engine": "rookery"})
    finally:
        engine.quit()
    print("python-chess check passed")


if __name__ == "__main__":
    main()
