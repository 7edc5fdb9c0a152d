"""The Lab in a real browser: Debian's chromium driven by selenium through chromedriver.

Loads the page, plays a move by clicking the board and sees the engine's reply and a live info
line, opens the tree of alphabeta at depth 3 on the tutorial's middlegame position (4,163
positions), runs the ladder, the evaluation and an engine game, and saves a screenshot of each
view (LAB_SCREENSHOTS, default target/lab-screenshots). Also writes the page's load time and the
stream's latency to lab-timings.json there. Run from the repository root:
``python3 -m pytest -q tests/browser`` (needs chromium, chromium-driver and selenium).
"""

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("ROOKERY_BIN", ROOT / "target" / "release" / "rookery"))
SHOTS = Path(os.environ.get("LAB_SCREENSHOTS", ROOT / "target" / "lab-screenshots"))


@pytest.fixture(scope="module")
def server():
    proc = subprocess.Popen([str(BINARY), "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    url = re.search(r"http://\S+/", line).group(0)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1400,1050",
    ]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


def wait(driver, condition, timeout=30):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d))
    except Exception:
        shot(driver, "failure")
        raise AssertionError(f"timed out; the page's error line says: {text(driver, 'error')!r}")


def js(driver, script):
    return driver.execute_script(script)


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def set_value(driver, element_id, value):
    el = driver.find_element(By.ID, element_id)
    el.clear()
    el.send_keys(str(value))


def shot(driver, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def test_the_lab_in_a_browser(server, browser):
    d = browser
    timings = {}
    d.get(server)
    wait(d, lambda d: js(d, "return window.labStats && window.labStats.ready"))
    nav = js(d, "const n = performance.getEntriesByType('navigation')[0]; return [n.domContentLoadedEventEnd, n.loadEventEnd];")
    timings["dom_content_loaded_ms"] = round(nav[0], 1)
    timings["load_event_ms"] = round(nav[1], 1)
    timings["ready_ms"] = round(js(d, "return window.labStats.readyMs"), 1)
    assert text(d, "play-status") == "White to move"

    # Play: a move by clicking the board; the engine answers with a live info line.
    set_value(d, "play-movetime", 1500)
    d.find_element(By.CSS_SELECTOR, '[data-square="e2"]').click()
    targets = d.find_elements(By.CSS_SELECTOR, "circle.target")
    assert len(targets) == 2  # e3 and e4 shown as legal targets
    d.find_element(By.CSS_SELECTOR, '[data-square="e4"]').click()
    wait(d, lambda d: "depth" in text(d, "play-info") and "pv" in text(d, "play-info"))
    timings["move_to_first_info_ms"] = round(js(d, "return window.labStats.moveToInfoMs"), 1)
    timings["search_start_to_first_info_ms"] = round(js(d, "return window.labStats.firstInfoMs"), 1)
    assert d.find_elements(By.CSS_SELECTOR, "line.arrow")  # the principal variation drawn
    shot(d, "play")
    wait(d, lambda d: js(d, "return window.labStats.engineMoves || 0") >= 1)
    moves = text(d, "play-moves")
    assert moves.startswith("e4 ") and len(moves.split()) == 2, moves
    assert text(d, "play-status") == "White to move"
    assert "1. e4" in d.find_element(By.ID, "play-pgn").get_attribute("value")
    # Undo takes back the engine's move and ours.
    d.find_element(By.ID, "play-undo").click()
    wait(d, lambda d: text(d, "play-moves") == "")

    # A broken FEN: a clear error, and the page goes on.
    set_value(d, "play-fen", "this is not a FEN")
    d.find_element(By.ID, "play-load").click()
    wait(d, lambda d: "invalid FEN" in text(d, "error"))
    d.find_element(By.ID, "play-new").click()
    wait(d, lambda d: text(d, "error") == "")

    # The tree of alphabeta at depth 3 on the tutorial's middlegame position, beside minimax.
    d.find_element(By.CSS_SELECTOR, '#tabs [data-view="tree"]').click()
    d.find_element(By.ID, "tree-show").click()
    wait(d, lambda d: d.find_elements(By.ID, "tree-summary-0") and "positions" in text(d, "tree-summary-0"))
    assert text(d, "tree-summary-0").startswith("alphabeta, depth 3: 4,163 positions"), text(d, "tree-summary-0")
    wait(d, lambda d: "%" in text(d, "tree-ratio"))
    assert "5.9% of the positions minimax visited" in text(d, "tree-ratio")
    assert "70,119 positions" in text(d, "tree-summary-1")
    # Open the third root move: Black's first reply already holds White to alpha there, so the
    # other replies are pruned, greyed with their reason.
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 ul.tree > li > ul > li")) == 48)
    d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 ul.tree > li > ul > li > .node-head")[2].click()
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 li.pruned"))
    assert "cut-off" in d.find_element(By.CSS_SELECTOR, "#tree-pane-0 li.pruned .why").text
    shot(d, "tree")

    # The ladder on the same position.
    d.find_element(By.CSS_SELECTOR, '#tabs [data-view="ladder"]').click()
    set_value(d, "ladder-movetime", 100)
    d.find_element(By.ID, "ladder-run").click()
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ladder-table tbody tr")) == 12, timeout=60)
    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#ladder-table tbody tr")]
    assert rows[4].startswith("minimax") and "70,119" in rows[4], rows[4]
    assert rows[5].startswith("alphabeta") and "4,163" in rows[5], rows[5]
    shot(d, "ladder")

    # The evaluation, term by term.
    d.find_element(By.CSS_SELECTOR, '#tabs [data-view="eval"]').click()
    set_value(d, "eval-fen", "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11")
    d.find_element(By.ID, "eval-run").click()
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#eval-table tbody tr")) > 5)
    assert "Final evaluation" in text(d, "eval-status")
    shot(d, "eval")

    # Watch two engines play.
    d.find_element(By.CSS_SELECTOR, '#tabs [data-view="watch"]').click()
    set_value(d, "watch-movetime", 100)
    d.find_element(By.ID, "watch-start").click()
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-table tbody tr")) >= 8, timeout=60)
    d.find_element(By.ID, "watch-stop").click()
    assert d.find_elements(By.CSS_SELECTOR, "#watch-graph polyline")
    shot(d, "watch")

    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "lab-timings.json").write_text(json.dumps(timings, indent=2))
    print("timings:", timings)
    assert timings["move_to_first_info_ms"] < 5_000
