"""scripts/clockrun's clocks: increments, sudden death and repeating controls (`40/10`), the
moves to go it tells the engine and the time each side gets back, and the forms it refuses."""

import subprocess
import sys
import importlib.util
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_loader = SourceFileLoader("clockrun", str(ROOT / "scripts" / "clockrun"))
_spec = importlib.util.spec_from_loader("clockrun", _loader)
clockrun = importlib.util.module_from_spec(_spec)
_loader.exec_module(clockrun)


def test_an_increment_comes_back_after_every_move_and_no_moves_to_go_are_sent():
    tc = clockrun.TimeControl("5+0.05")
    assert (tc.moves, tc.base, tc.inc) == (None, 5.0, 0.05)
    assert tc.moves_to_go(0) is None and tc.moves_to_go(57) is None
    assert tc.after_move(1.0, 1) == pytest.approx(1.05)
    assert str(tc) == "5+0.05"


def test_sudden_death_gives_nothing_back():
    for text in ("10", "10+0"):
        tc = clockrun.TimeControl(text)
        assert (tc.moves, tc.base, tc.inc) == (None, 10.0, 0.0)
        assert tc.after_move(3.25, 40) == 3.25
        assert str(tc) == "10+0"


def test_a_repeating_control_counts_down_the_moves_and_refills_the_clock():
    tc = clockrun.TimeControl("40/10")
    assert (tc.moves, tc.base, tc.inc) == (40, 10.0, 0.0)
    # Before a side's first move 40 moves are to go; before its 40th, one; then 40 again.
    assert [tc.moves_to_go(m) for m in (0, 1, 38, 39, 40, 79, 80)] == [40, 39, 2, 1, 40, 1, 40]
    # The 40th move (the period's last) brings the base back; the 39th and 41st do not.
    assert tc.after_move(0.5, 39) == 0.5
    assert tc.after_move(0.5, 40) == 10.5
    assert tc.after_move(0.5, 41) == 0.5
    assert str(tc) == "40/10"
    tc = clockrun.TimeControl("40/60+0.5")
    assert tc.after_move(1.0, 80) == pytest.approx(61.5)
    assert str(tc) == "40/60+0.5"


@pytest.mark.parametrize("text", ["", "abc", "0", "-5+1", "5+-1", "0/10", "x/10", "40/", "40/0"])
def test_a_malformed_clock_is_refused_in_one_line(text):
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "clockrun"), f"--tc={text}",
                        "--engine", "/bin/true"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad --tc" in lines[0], r.stderr
