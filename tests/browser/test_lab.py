"""The Lab in a real browser: Debian's chromium driven by selenium through chromedriver.

Loads the page, plays a move by clicking the board and sees the engine's reply and a live info
line; draws the tree of alphabeta at depth 3 on the tutorial's middlegame position, opens it
fully and counts its drawn positions (4,163) against the API's; steps the alpha-beta walk to its
first cut-off and reads the window; runs a two-rung tournament of four games and reads the
crosstable; shows a heatmap; reviews a short game with a known blunder and finds it marked; runs
the ladder and an engine game; trains a small net in the Train view, sees its loss fall and its
piece values change between epochs, downloads it and plays it against greedy; opens a link that
carries a view's settings; loads the page at a phone's size (390 x 844). Saves a screenshot of each view (LAB_SCREENSHOTS, default
target/lab-screenshots) and writes the page's load time, the stream's latency and the tournament's
games a second to lab-timings.json there. Run from the repository root:
``python3 -m pytest -q tests/browser`` (needs chromium, chromium-driver and selenium).
"""

import json
import os
import re
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("ROOKERY_BIN", ROOT / "target" / "release" / "rookery"))
SHOTS = Path(os.environ.get("LAB_SCREENSHOTS", ROOT / "target" / "lab-screenshots"))
MIDDLEGAME = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11"
TIMINGS = {}


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


@pytest.fixture(scope="module")
def d(server, browser):
    browser.get(server)
    wait(browser, lambda d: js(d, "return window.labStats && window.labStats.ready"))
    return browser


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


def tab(driver, view):
    driver.find_element(By.CSS_SELECTOR, f'#tabs [data-view="{view}"]').click()


def shot(driver, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def test_load_and_play(d):
    nav = js(d, "const n = performance.getEntriesByType('navigation')[0]; return [n.domContentLoadedEventEnd, n.loadEventEnd];")
    TIMINGS["dom_content_loaded_ms"] = round(nav[0], 1)
    TIMINGS["load_event_ms"] = round(nav[1], 1)
    TIMINGS["ready_ms"] = round(js(d, "return window.labStats.readyMs"), 1)
    assert text(d, "play-status") == "White to move"

    # Play: a move by clicking the board; the engine answers with a live info line.
    set_value(d, "play-movetime", 1500)
    d.find_element(By.CSS_SELECTOR, '[data-square="e2"]').click()
    targets = d.find_elements(By.CSS_SELECTOR, "circle.target")
    assert len(targets) == 2  # e3 and e4 shown as legal targets
    d.find_element(By.CSS_SELECTOR, '[data-square="e4"]').click()
    wait(d, lambda d: "depth" in text(d, "play-info") and "pv" in text(d, "play-info"))
    TIMINGS["move_to_first_info_ms"] = round(js(d, "return window.labStats.moveToInfoMs"), 1)
    TIMINGS["search_start_to_first_info_ms"] = round(js(d, "return window.labStats.firstInfoMs"), 1)
    assert d.find_elements(By.CSS_SELECTOR, "line.arrow")  # the principal variation drawn
    shot(d, "play")
    wait(d, lambda d: js(d, "return window.labStats.engineMoves || 0") >= 1)
    moves = text(d, "play-moves")
    assert moves.startswith("e4 ") and len(moves.split()) == 2, moves
    assert text(d, "play-status") == "White to move"
    assert "1. e4" in d.find_element(By.ID, "play-pgn").get_attribute("value")
    # The game is in the page's URL.
    assert "moves=e2e4" in js(d, "return location.hash").replace("+", " ").replace("%20", " ")
    # The left arrow shows the position before the last move, the right one comes back.
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait(d, lambda d: "after 1 of 2" in text(d, "play-status"))
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait(d, lambda d: text(d, "play-status") == "White to move")
    # Undo takes back the engine's move and ours.
    d.find_element(By.ID, "play-undo").click()
    wait(d, lambda d: text(d, "play-moves") == "")

    # A broken FEN: a clear error, and the page goes on.
    set_value(d, "play-fen", "this is not a FEN")
    d.find_element(By.ID, "play-load").click()
    wait(d, lambda d: "invalid FEN" in text(d, "error"))
    d.find_element(By.ID, "play-new").click()
    wait(d, lambda d: text(d, "error") == "")


def test_the_drawn_tree_opens_fully_with_the_apis_count(d):
    tab(d, "tree")
    d.find_element(By.ID, "tree-show").click()
    wait(d, lambda d: d.find_elements(By.ID, "tree-summary-0") and "positions" in text(d, "tree-summary-0"))
    summary = text(d, "tree-summary-0")
    assert summary.startswith("alphabeta, depth 3: 4,163 positions"), summary
    wait(d, lambda d: "%" in text(d, "tree-ratio"), timeout=60)
    assert "5.9% of the positions minimax visited" in text(d, "tree-ratio")
    assert "70,119 positions" in text(d, "tree-summary-1")
    # Drawn: the root's 48 moves, the principal variation opened and highlighted.
    assert len(d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 .tnode")) > 48
    assert d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 path.tedge.pv")
    # Open the third root move: Black's first reply already holds White to alpha there, so the
    # other replies are pruned, dashed and grey with their reason.
    third = js(d, "return treeView.panes[0].nodes.get(0).kids[2]")
    # (It may lie outside the pane's view: clicked by script, as a pan would bring it in.)
    js(d, f"document.querySelector('#tree-pane-0 .tnode[data-id=\"{third}\"] text').dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 .tnode.pruned"))
    pruned = d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 .tnode.pruned")
    assert "cut-off" in pruned[0].find_element(By.TAG_NAME, "title").get_attribute("textContent")
    assert d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 path.tedge.pruned")
    # Hover shows a node's window.
    js(d, "document.querySelector('#tree-pane-0 .tnode:not(.pruned)[data-id=\"0\"]').dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))")
    assert "window [-inf, +inf]" in text(d, "tree-hover-0")
    shot(d, "tree")
    # Keys: the arrows walk the tree.
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 .tnode.selected"))
    # Opened fully, the drawing has every position the API counts, and every pruned move.
    positions = int(js(d, "return treeView.panes[0].summary.positions"))
    pruned_count = int(js(d, "return treeView.panes[0].summary.pruned"))
    d.find_element(By.ID, "tree-open-all-0").click()
    wait(d, lambda d: "positions drawn" in text(d, "tree-status-0"), timeout=90)
    drawn = len(d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 .tnode:not(.pruned)"))
    assert drawn == positions == 4163, (drawn, positions)
    assert len(d.find_elements(By.CSS_SELECTOR, "#tree-pane-0 .tnode.pruned")) == pruned_count
    TIMINGS["tree_drawn_positions"] = drawn
    TIMINGS["tree_open_all_ms"] = round(js(d, "return window.labStats.openAllMs"), 1)
    shot(d, "tree-open")


def test_alphabeta_step_by_step_to_its_first_cutoff(d):
    tab(d, "steps")
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#steps-svg-ab .snode")) == 13)
    for _ in range(40):
        if "cut-off" in text(d, "steps-status"):
            break
        d.find_element(By.ID, "steps-step").click()
    status = text(d, "steps-status")
    assert "cut-off at B" in status, status
    assert text(d, "steps-window").startswith("at B: \u03b1 = 3, \u03b2 = 2"), text(d, "steps-window")
    assert "2 positions never visited" in text(d, "steps-say")
    assert len(d.find_elements(By.CSS_SELECTOR, "#steps-svg-ab .snode.skipped")) == 2
    assert not d.find_elements(By.CSS_SELECTOR, "#steps-svg-mm .snode.skipped")
    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#steps-orders tbody tr")]
    assert rows[1].startswith("best move first 9"), rows
    shot(d, "steps")
    # The arrow keys step back and forth.
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait(d, lambda d: "cut-off" not in text(d, "steps-status"))
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait(d, lambda d: "cut-off at B" in text(d, "steps-status"))


def test_a_two_rung_tournament_of_four_games(d):
    tab(d, "tournament")
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tour-reference tbody tr")) == 12)
    checked = [c.get_attribute("value") for c in d.find_elements(By.CSS_SELECTOR, "#tour-rungs-pick input:checked")]
    assert checked == ["greedy", "alphabeta"], checked
    set_value(d, "tour-games", 4)
    set_value(d, "tour-nodes", 500)
    d.find_element(By.ID, "tour-run").click()
    wait(d, lambda d: text(d, "tour-status").startswith("4 of 4 games in"), timeout=120)
    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#tour-cross tbody tr")]
    assert rows[0].startswith("greedy") and rows[1].startswith("alphabeta"), rows
    cell = d.find_elements(By.CSS_SELECTOR, "#tour-cross tbody tr")[1].find_elements(By.TAG_NAME, "td")[1].text
    w, dr, l = (int(x) for x in cell.split()[0].split("-"))
    assert w + dr + l == 4, cell
    assert len(d.find_elements(By.CSS_SELECTOR, "#tour-games-list li")) == 4
    assert d.find_elements(By.CSS_SELECTOR, "#tour-chart rect.bar, #tour-chart .whisker")
    assert not d.find_element(By.ID, "tour-pgn").get_attribute("disabled")
    TIMINGS["tournament_games_per_second"] = round(js(d, "return window.labStats.tournamentGamesPerSecond"), 2)
    # Four neighbouring rungs, two games a pairing: three pairings match the reference's.
    for c in d.find_elements(By.CSS_SELECTOR, "#tour-rungs-pick input"):
        if c.is_selected() != (c.get_attribute("value") in ["alphabeta", "negamax", "iterative", "tt"]):
            c.click()
    set_value(d, "tour-games", 2)
    set_value(d, "tour-nodes", 5000)
    d.find_element(By.ID, "tour-run").click()
    wait(d, lambda d: text(d, "tour-status").startswith("12 of 12 games in"), timeout=120)
    assert len(d.find_elements(By.CSS_SELECTOR, "#tour-chart path.refmark")) == 3
    TIMINGS["tournament_4_rungs_games_per_second"] = round(js(d, "return window.labStats.tournamentGamesPerSecond"), 2)
    shot(d, "tournament")


def test_a_heatmap_on_the_board(d):
    tab(d, "eval")
    set_value(d, "eval-fen", MIDDLEGAME)
    d.find_element(By.ID, "eval-run").click()
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#eval-board rect.heat")) == 30)
    assert "Final evaluation" in text(d, "eval-status")
    assert "The learned net" in text(d, "eval-status")
    assert len(d.find_elements(By.CSS_SELECTOR, "#eval-table tbody tr")) > 5
    Select(d.find_element(By.ID, "heat-layer")).select_by_value("contribution")
    wait(d, lambda d: "contribution" in text(d, "heat-about"))
    titles = js(d, "return [...document.querySelectorAll('#eval-board rect.heat title')].map(t => t.textContent)")
    assert any(t.startswith("c2 Q: +") for t in titles), titles
    assert any("kings are not removed" in t for t in titles), titles
    assert "layer=contribution" in js(d, "return location.hash")
    shot(d, "eval")


def test_a_review_marks_the_blunder(d):
    tab(d, "review")
    pgn = d.find_element(By.ID, "review-pgn")
    pgn.clear()
    pgn.send_keys("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#")
    Select(d.find_element(By.ID, "review-nodes")).select_by_value("20000")
    d.find_element(By.ID, "review-run").click()
    wait(d, lambda d: text(d, "review-status").startswith("White:"), timeout=60)
    blunders = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#review-moves li.blunder")]
    assert blunders == ["3... Nf6??"], blunders
    assert "blunder" in text(d, "review-move")
    assert d.find_elements(By.CSS_SELECTOR, "#review-board line.arrow")  # the better move
    assert d.find_elements(By.CSS_SELECTOR, "#review-graph circle.mark.blunder")
    assert "$4" in d.find_element(By.ID, "review-out").get_attribute("value")
    shot(d, "review")


def test_ladder_and_watch(d):
    tab(d, "ladder")
    set_value(d, "ladder-movetime", 100)
    d.find_element(By.ID, "ladder-run").click()
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ladder-table tbody tr")) == 13, timeout=60)
    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#ladder-table tbody tr")]
    assert rows[4].startswith("minimax") and "70,119" in rows[4], rows[4]
    assert rows[5].startswith("alphabeta") and "4,163" in rows[5], rows[5]
    shot(d, "ladder")

    tab(d, "watch")
    set_value(d, "watch-movetime", 100)
    d.find_element(By.ID, "watch-start").click()
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-table tbody tr")) >= 8, timeout=60)
    d.find_element(By.ID, "watch-stop").click()
    assert d.find_elements(By.CSS_SELECTOR, "#watch-graph polyline")
    shot(d, "watch")


def net_values(driver):
    return js(driver, "return [...document.querySelectorAll('#train-net-board text.value-num')].map(t => t.dataset.square + '=' + t.textContent)")


def test_train_a_net_and_play_it_in_a_tournament(d):
    tab(d, "train")
    wait(d, lambda d: len(Select(d.find_element(By.ID, "train-set")).options) > 0)
    Select(d.find_element(By.ID, "train-set")).select_by_value("gen6-b")
    set_value(d, "train-positions", 200000)
    set_value(d, "train-hidden", 32)
    set_value(d, "train-epochs", 8)
    d.find_element(By.ID, "train-start").click()
    wait(d, lambda d: text(d, "train-status").startswith("Done"), timeout=180)
    assert "8 epochs" in text(d, "train-status"), text(d, "train-status")
    # The loss fell: the untrained net's against the last epoch's, on the positions kept apart,
    # and the training loss from the first epoch to the last.
    rows = d.find_elements(By.CSS_SELECTOR, "#train-table tbody tr")
    assert [r.get_attribute("data-epoch") for r in rows] == [str(e) for e in range(9)]
    untrained = float(rows[0].find_elements(By.TAG_NAME, "td")[2].text)
    validation = [float(r.get_attribute("data-validation")) for r in rows[1:]]
    training = [float(r.get_attribute("data-train")) for r in rows[1:]]
    assert validation[-1] < untrained, (untrained, validation)
    assert training[-1] < training[0], training
    assert len(d.find_elements(By.CSS_SELECTOR, "#train-chart circle.loss-validation")) == 9
    assert len(d.find_elements(By.CSS_SELECTOR, "#train-chart circle.loss-train")) == 8
    assert d.find_elements(By.CSS_SELECTOR, "#train-chart polyline.loss-running")
    # The heatmap: the last epoch's net beside the hand-crafted evaluation, a knight on each of
    # the 56 free squares; the first epoch's net, on the slider, values them otherwise. By the
    # last epoch the net has learned that a knight is worth something, more in the centre.
    assert text(d, "train-net-title") == "net after epoch 8"
    last = net_values(d)
    assert len(last) == 56, last
    hce = dict(v.split("=") for v in js(d, "return [...document.querySelectorAll('#train-hce-board text.value-num')].map(t => t.dataset.square + '=' + t.textContent)"))
    assert int(hce["d4"]) > int(hce["a1"]), "the hand-crafted knight likes the centre"
    net = dict(v.split("=") for v in last)
    assert int(net["d4"]) > int(net["a1"]) > 50, net
    slider = d.find_element(By.ID, "train-epoch-pick")
    slider.send_keys(Keys.HOME)
    wait(d, lambda d: text(d, "train-net-title") == "net after epoch 1")
    first = net_values(d)
    assert len(first) == 56 and first != last
    slider.send_keys(Keys.END)
    wait(d, lambda d: text(d, "train-net-title") == "net after epoch 8")
    assert net_values(d) == last
    d.find_element(By.CSS_SELECTOR, '#train-piece input[value="Q"]').click()
    wait(d, lambda d: "queen" in text(d, "train-heat-caption"))
    assert net_values(d) != last
    d.find_element(By.CSS_SELECTOR, '#train-piece input[value="N"]').click()
    wait(d, lambda d: net_values(d) == last)
    shot(d, "train")
    # The net is kept: named, given as a file, in Play's engines.
    name = text(d, "train-name")
    assert name == "trained-1", name
    href = d.find_element(By.ID, "train-download").get_attribute("href")
    with urllib.request.urlopen(href, timeout=10) as reply:
        assert reply.status == 200
        assert f"{name}.nnue" in reply.headers["Content-Disposition"]
        assert len(reply.read()) > 1000
    d.find_element(By.ID, "train-play").click()
    wait(d, lambda d: d.find_element(By.ID, "view-play").is_displayed())
    assert Select(d.find_element(By.ID, "play-engine")).first_selected_option.get_attribute("value") == name
    assert "trained here" in text(d, "play-idea")
    assert name in [o.get_attribute("value") for o in Select(d.find_element(By.ID, "watch-black")).options]
    # A short match against greedy from the Train view's button.
    tab(d, "train")
    Select(d.find_element(By.ID, "train-rival")).select_by_value("greedy")
    d.find_element(By.ID, "train-tour").click()
    wait(d, lambda d: d.find_element(By.ID, "view-tournament").is_displayed())
    checked = [c.get_attribute("value") for c in d.find_elements(By.CSS_SELECTOR, "#tour-rungs-pick input:checked")]
    assert checked == ["greedy", name], checked
    set_value(d, "tour-games", 2)
    set_value(d, "tour-nodes", 300)
    d.find_element(By.ID, "tour-run").click()
    wait(d, lambda d: text(d, "tour-status").startswith("2 of 2 games in"), timeout=120)
    rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#tour-cross tbody tr")]
    assert rows[0].startswith("greedy") and rows[1].startswith(name), rows
    assert len(d.find_elements(By.CSS_SELECTOR, "#tour-games-list li")) == 2


def test_a_net_with_a_paired_deep_head_buckets_and_mirrored_inputs_is_trained_from_the_page(d):
    tab(d, "train")
    Select(d.find_element(By.ID, "train-set")).select_by_value("gen6-b")
    set_value(d, "train-positions", 20000)
    set_value(d, "train-hidden", 16)
    set_value(d, "train-epochs", 2)
    Select(d.find_element(By.ID, "train-layers")).select_by_value("8,32,paired")
    Select(d.find_element(By.ID, "train-inputs")).select_by_value("mirror")
    Select(d.find_element(By.ID, "train-buckets")).select_by_value("2")
    d.find_element(By.ID, "train-start").click()
    wait(d, lambda d: text(d, "train-status").startswith("Done") and text(d, "train-name") != "trained-1", timeout=120)
    assert "2 epochs" in text(d, "train-status"), text(d, "train-status")
    about = text(d, "train-about")
    assert "x 2 -> 16 paired -> 8 -> 32 -> 1 x 2 buckets" in about and "inputs mirror" in about, about
    Select(d.find_element(By.ID, "train-layers")).select_by_value("")
    Select(d.find_element(By.ID, "train-inputs")).select_by_value("plain")
    Select(d.find_element(By.ID, "train-buckets")).select_by_value("1")


def test_a_link_keeps_the_view_and_its_settings(d, server):
    link = server + "#tree?" + urllib.parse.urlencode({"fen": MIDDLEGAME, "engine": "alphabeta", "depth": 2, "compare": 0})
    d.get("about:blank")
    d.get(link)
    wait(d, lambda d: js(d, "return window.labStats && window.labStats.ready"))
    wait(d, lambda d: d.find_elements(By.ID, "tree-summary-0") and "positions" in text(d, "tree-summary-0"))
    assert text(d, "tree-summary-0").startswith("alphabeta, depth 2:"), text(d, "tree-summary-0")
    assert not d.find_elements(By.ID, "tree-pane-1")
    assert d.find_element(By.CSS_SELECTOR, '#tabs [data-view="tree"]').get_attribute("class") == "active"
    link = server + "#steps?" + urllib.parse.urlencode({"source": "abstract", "tree": "[[5, 1], [2, 8]]", "order": "given", "step": 6})
    d.get("about:blank")
    d.get(link)
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#steps-svg-ab .snode")) == 7)
    assert text(d, "steps-status").startswith("Step 6 of"), text(d, "steps-status")


def test_a_phone_sized_screen(d, server):
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    try:
        d.get("about:blank")
        d.get(server)
        wait(d, lambda d: js(d, "return window.labStats && window.labStats.ready"))
        assert js(d, "return window.innerWidth") == 390
        # Nothing wider than the screen: no sideways scrolling of the page.
        assert js(d, "return document.documentElement.scrollWidth") <= 390
        board = d.find_element(By.ID, "play-board").rect
        assert 300 <= board["width"] <= 390, board
        shot(d, "phone")
        for view in ["tree", "steps", "tournament", "ladder", "eval", "train", "review", "watch"]:
            tab(d, view)
            assert js(d, "return document.documentElement.scrollWidth") <= 390, view
        shot(d, "phone-watch")
        tab(d, "train")
        shot(d, "phone-train")
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "lab-timings.json").write_text(json.dumps(TIMINGS, indent=2))
    print("timings:", TIMINGS)
    assert TIMINGS["move_to_first_info_ms"] < 5_000
