"""scripts/fastchess_check.py on hand-written fastchess output: a clean match passes, and each
kind of fault (a warning, a time forfeit, an illegal move, a missing game) fails it, with the
warnings counted against the engine they name."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fastchess_check.py"


def game(white, black, moves, result, termination="normal"):
    return (
        f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
        f'[Termination "{termination}"]\n\n{moves} {result}\n\n'
    )


MATE = "1. f3 {tl=0.950s} e5 {tl=0.900s} 2. g4 {tl=0.850s} Qh4# {tl=0.400s}"
DRAWN = "1. e4 {tl=0.990s} e5 {tl=0.980s}"


def check(tmp, pgn, log, games):
    (tmp / "m.pgn").write_text(pgn)
    (tmp / "m.log").write_text(log)
    return subprocess.run(
        [sys.executable, SCRIPT, tmp / "m.pgn", tmp / "m.log", str(games)],
        capture_output=True, text=True, timeout=60,
    )


def test_a_clean_match_passes_with_the_least_time_left(tmp_path):
    pgn = game("rookery", "rookery-hce", MATE, "0-1") + game("rookery-hce", "rookery", DRAWN, "1/2-1/2")
    r = check(tmp_path, pgn, "Started game 1 of 2\nFinished game 2\n", 2)
    assert r.returncode == 0, r.stderr
    assert "least time left 0.4 s" in r.stdout
    assert "0 fastchess warnings {'rookery': 0, 'rookery-hce': 0}" in r.stdout


def test_a_warning_fails_and_counts_against_the_engine_it_names(tmp_path):
    pgn = game("rookery", "rookery-hce", MATE, "0-1") + game("rookery-hce", "rookery", DRAWN, "1/2-1/2")
    log = (
        "Warning; Bestmove does not match beginning of last PV - move 12 from rookery-hce\n"
        "Warning; Illegal PV move - move 3 from rookery-hce\n"
        "Warning; Bestmove does not match beginning of last PV - move 40 from rookery\n"
    )
    r = check(tmp_path, pgn, log, 2)
    assert r.returncode == 1
    assert "3 fastchess warnings {'rookery': 1, 'rookery-hce': 2}" in r.stdout
    assert r.stderr.count("problem: fastchess: Warning;") == 3


def test_forfeits_illegal_moves_and_missing_games_fail(tmp_path):
    forfeit = game("rookery", "ethereal", DRAWN, "0-1", termination="time forfeit")
    r = check(tmp_path, forfeit, "", 1)
    assert r.returncode == 1 and "ended by time forfeit" in r.stderr

    illegal = game("rookery", "ethereal", "1. e4 e4", "1-0")
    r = check(tmp_path, illegal, "", 1)
    assert r.returncode == 1 and "does not read back: illegal san" in r.stderr

    r = check(tmp_path, game("rookery", "ethereal", MATE, "0-1"), "", 2)
    assert r.returncode == 1 and "holds 1 games, not 2" in r.stderr
