"""scripts/fastchess and scripts/openbench take the user's own fastchess binary and OpenBench
checkout and build neither: without them, or with a path that is not one, each says what it
needs in one line and exits 2 before it builds or starts anything."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(script, *args, path="/usr/bin:/bin", extra_env=None):
    env = {k: v for k, v in os.environ.items() if k not in ("FASTCHESS", "OPENBENCH_SRC")}
    env["PATH"] = path
    env.update(extra_env or {})
    return subprocess.run([str(ROOT / "scripts" / script), *args], capture_output=True,
                          text=True, env=env, timeout=60)


def refused(r, *words):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert r.stdout == "", r.stdout


def test_fastchess_without_a_binary_says_what_it_needs(tmp_path):
    refused(run("fastchess"), "--fastchess PATH", "PATH")


def test_fastchess_refuses_a_path_that_is_no_binary(tmp_path):
    text = tmp_path / "fastchess"
    text.write_text("not a program\n")
    for bad in [str(tmp_path), str(text), str(tmp_path / "missing")]:
        refused(run("fastchess", "--fastchess", bad), bad)
    refused(run("fastchess", extra_env={"FASTCHESS": str(tmp_path)}), str(tmp_path))
    refused(run("fastchess", "--fastchess"), "--fastchess needs a value")


def test_fastchess_takes_the_binary_on_path_and_checks_the_engine_next(tmp_path):
    # A fastchess on PATH is found; the engine is checked before anything runs.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "fastchess"
    tool.write_text("#!/bin/sh\necho ran >> \"$0.log\"\n")
    tool.chmod(0o755)
    r = run("fastchess", "--engine", str(tmp_path / "no-engine"),
            path=f"{bin_dir}:/usr/bin:/bin")
    assert r.returncode == 2, r.stderr
    assert f"== fastchess: {tool}" in r.stdout
    assert "no engine at" in r.stderr
    assert not (bin_dir / "fastchess.log").exists(), "fastchess ran before the engine was checked"


def test_fastchess_refuses_odd_game_counts():
    refused(run("fastchess", "--games", "3"), "even")
    refused(run("fastchess", "--games", "many"), "whole number")


def test_openbench_without_a_checkout_or_fastchess_says_what_it_needs(tmp_path):
    refused(run("openbench"), "--ob-src DIR")
    refused(run("openbench", "--ob-src", str(tmp_path)), "no OpenBench checkout")
    checkout = tmp_path / "OpenBench"
    (checkout / "Client").mkdir(parents=True)
    (checkout / "manage.py").write_text("")
    refused(run("openbench", "--ob-src", str(checkout)), "needs a fastchess binary")
    refused(run("openbench", "--ob-src", str(checkout), "--fastchess", str(tmp_path)),
            "no fastchess binary")
    refused(run("openbench", "--games", "lots"), "whole numbers")
