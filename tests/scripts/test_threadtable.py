"""scripts/threadtable on the release binary: a row for each thread count with the nodes a second
and the time to depth of real searches (every search reached the depth asked), the first row the
base of the speed-ups, and bad arguments refused with one line.

Needs the release binary (`cargo build --release`, or ROOKERY_BIN)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "threadtable"
BINARY = Path(os.environ.get("ROOKERY_BIN", ROOT / "target" / "release" / "rookery"))


def run(*args):
    return subprocess.run(
        [sys.executable, SCRIPT, "--engine", BINARY, *args],
        capture_output=True, text=True, timeout=120,
    )


def test_a_row_for_each_thread_count_from_real_searches(tmp_path):
    out = tmp_path / "t.json"
    r = run("--threads", "1,2", "--depth", "7", "--positions", "3", "--hash", "8", "--json", str(out))
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [row.split("|")[1].strip() for row in rows] == ["1", "2"]
    # The first count is the base of both speed-ups.
    assert rows[0].split("|")[3].strip() == "1.00" and rows[0].split("|")[5].strip() == "1.00"
    info = json.loads(out.read_text())
    assert info["depth"] == 7 and info["positions"] == 3
    for row in info["rows"]:
        assert len(row["searches"]) == 3
        for s in row["searches"]:
            assert s["depth"] >= 7 and s["nodes"] > 0 and s["seconds"] > 0
        assert row["nps"] > 0 and row["ttd"] > 0
    # The positions are the bench set's, in its order.
    assert info["rows"][0]["searches"][0]["fen"].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP")


def test_latency_adds_the_median_answer_of_go_depth_1(tmp_path):
    out = tmp_path / "t.json"
    r = run("--threads", "1,3", "--depth", "2", "--positions", "1", "--hash", "8", "--latency", "20",
            "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "`go depth 1` (median)" in r.stdout
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == 2 and all(row.rstrip().endswith("ms |") for row in rows)
    info = json.loads(out.read_text())
    assert info["latency_searches"] == 20
    for row in info["rows"]:
        assert len(row["answers"]) == 20 and all(0 < a < 5 for a in row["answers"])
        assert min(row["answers"]) <= row["latency"] <= max(row["answers"])


def test_bad_arguments_are_refused_with_one_line():
    for args in (["--threads", "one,two"], ["--threads", "0"], ["--depth", "0"], ["--latency", "-1"],
                 ["--engine", "/nonexistent"]):
        r = run(*args)
        assert r.returncode != 0
        assert r.stderr.strip().startswith("threadtable:"), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
