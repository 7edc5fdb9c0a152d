"""scripts/generation end to end on a tiny recipe: data, training, a screen and both clock
matches, stopped part way and run again, with the recipe held fixed between runs.

Needs the release binary (`cargo build --release`, or ROOKERY_BIN).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("ROOKERY_BIN", ROOT / "target" / "release" / "rookery"))
SCRIPT = ROOT / "scripts" / "generation"

TINY = [
    "--positions", "400", "--nodes", "300", "--threads", "2", "--hidden", "8",
    "--epochs", "2", "--train-options", "--wdl 0.0 --seed 1 --batch 256",
    "--screen-games", "4", "--screen-nodes", "400", "--stc-games", "2", "--stc", "1+0.02",
    "--ltc-games", "2", "--ltc", "1+0.02", "--keep-going",
]


def run(tmp, *args):
    env = dict(os.environ, ROOKERY_DATA=str(tmp))
    return subprocess.run([sys.executable, SCRIPT, "tiny", "--bin", BINARY, *TINY, *args],
                          capture_output=True, text=True, env=env, timeout=600)


def test_a_generation_stops_goes_on_and_keeps_its_recipe(tmp_path):
    work = tmp_path / "generations" / "tiny"

    # Stopped after the data: the set holds the positions, nothing is trained.
    first = run(tmp_path, "--until", "data")
    assert first.returncode == 0, first.stdout + first.stderr
    state = json.loads((work / "state.json").read_text())
    assert state["done"] == ["build", "data"]
    assert state["results"]["data"]["positions"] >= 400
    assert (tmp_path / "tiny" / "manifest.json").exists()
    assert not (work / "tiny.nnue").exists()
    assert "stopped after data" in first.stdout

    # Another recipe under the same name is refused with what differs.
    other = run(tmp_path, "--hidden", "16")
    assert other.returncode == 1
    assert "--hidden (8, now 16)" in other.stderr, other.stderr
    # The openings are verified, as the project's own sets are.
    manifest = json.loads((tmp_path / "tiny" / "manifest.json").read_text())
    assert all("verify 1000 cp" in r["games"] for r in manifest["runs"]), manifest["runs"]
    # A generation started before --verify existed ran without it, and says so.
    config_path = work / "config.json"
    config = json.loads(config_path.read_text())
    older = {k: v for k, v in config.items() if k != "verify"}
    config_path.write_text(json.dumps(older))
    before = run(tmp_path)
    assert before.returncode == 1
    assert "--verify (0, now 1000)" in before.stderr, before.stderr
    config_path.write_text(json.dumps(config))

    # Run again: the data step is done, the rest follows.
    second = run(tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "going on from game" not in second.stdout
    state = json.loads((work / "state.json").read_text())
    assert state["done"] == ["build", "data", "train", "screen", "stc", "ltc"]
    net = work / "tiny.nnue"
    assert net.exists() and state["results"]["train"]["validation_loss"] > 0
    # Scored on the held-out games beside the net in force: the tiny net fits them worse.
    held = state["results"]["train"]["held_out"]
    assert held["data"].endswith("gen6-b"), held
    assert 0 < held["in_force"] < held["candidate"] < 0.25, held
    assert f"net in force {held['in_force']:.6f}" in second.stdout
    for step, games in [("screen", 4), ("stc", 2), ("ltc", 2)]:
        m = state["results"][step]
        assert m["games"] == games and m["wins"] + m["losses"] + m["draws"] == games, m
        assert m["faults"] == 0, m
        assert (work / f"{step}-1.pgn").read_text().count("[Result ") == games
    assert "screen (nodes=400): 4 games" in second.stdout
    # The candidate loads in the engine.
    bench = subprocess.run([BINARY, "bench", "2", "--net", net], capture_output=True, text=True)
    assert bench.returncode == 0 and bench.stdout.rstrip().endswith("nps"), bench.stderr

    # A match step whose blocks are played already is not played again.
    state["done"].remove("stc")
    (work / "state.json").write_text(json.dumps(state))
    log_before = (work / "stc.log").stat().st_size
    third = run(tmp_path, "--until", "stc")
    assert third.returncode == 0, third.stdout + third.stderr
    assert (work / "stc.log").stat().st_size == log_before
    assert json.loads((work / "state.json").read_text())["results"]["stc"] == \
        state["results"]["stc"]


def test_bad_options_are_refused_in_one_line(tmp_path):
    env = dict(os.environ, ROOKERY_DATA=str(tmp_path))
    for args in [["bad/name"], ["x", "--screen-games", "3"], ["x", "--hidden", "0"]]:
        r = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                           env=env)
        assert r.returncode == 2, args
        assert r.stderr.strip().splitlines()[-1].startswith("scripts/generation: error:"), r.stderr
    missing = subprocess.run([sys.executable, SCRIPT, "x", "--bin", tmp_path / "none"],
                             capture_output=True, text=True, env=env)
    assert missing.returncode == 1
    assert "not an executable file" in missing.stderr
