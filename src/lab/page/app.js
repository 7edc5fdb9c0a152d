// Rookery Lab: the page. Plain JavaScript, no library: an SVG board, the views, and the calls to
// the server's JSON API (/api/...). Searches stream as server-sent events read with fetch, so a
// search stops when its request is aborted (Stop, a new search, or the tab closing).
"use strict";

const $ = (id) => document.getElementById(id);
const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const SVG_NS = "http://www.w3.org/2000/svg";
const stats = (window.labStats = { searches: 0 });

// ---------------------------------------------------------------- helpers

function showError(message) {
  const el = $("error");
  el.textContent = message;
  el.hidden = !message;
}

async function api(path, body) {
  const response = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: `bad reply (${response.status})` }));
  if (!response.ok) throw new Error(data.error || `request failed (${response.status})`);
  return data;
}

// Reads a server-sent event stream with fetch; calls onEvent(name, data) for each event.
async function stream(url, onEvent, signal) {
  const response = await fetch(url, { signal });
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new Error(data.error || `search refused (${response.status})`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (data) onEvent(name, JSON.parse(data));
    }
  }
}

function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

function fmtScore(score, mate) {
  if (mate !== null && mate !== undefined) return `#${mate}`;
  if (score === null || score === undefined) return "-";
  return (score >= 0 ? "+" : "") + (score / 100).toFixed(2);
}

function fmtBound(v) {
  if (v === null || v === undefined) return "";
  if (v >= 32000) return "+inf";
  if (v <= -32000) return "-inf";
  return fmtScore(v);
}

const num = (n) => Number(n).toLocaleString("en-US");

function engineLimits(prefix) {
  const body = {};
  const depth = parseInt($(`${prefix}-depth`).value, 10);
  const movetime = parseInt($(`${prefix}-movetime`).value, 10);
  if (depth > 0) body.depth = depth;
  if (movetime > 0) body.movetime = movetime;
  const eloInput = $(`${prefix}-elo`);
  if (eloInput) {
    const elo = parseInt(eloInput.value, 10);
    if (elo > 0) body.elo = elo;
  }
  return body;
}

function searchUrl(game, engine, limits) {
  const params = new URLSearchParams();
  params.set("fen", game.start_fen);
  params.set("moves", game.moves.join(" "));
  params.set("engine", engine);
  for (const [k, v] of Object.entries(limits)) params.set(k, v);
  return `/api/search?${params}`;
}

// ---------------------------------------------------------------- the board

function makeBoard(el, onMove) {
  const board = { position: null, flipped: false, selected: null, dragging: false, arrows: [], lastMove: null, movable: () => false };
  const root = svg("svg", { viewBox: "0 0 800 800", class: "board-svg" }, el);
  // Each board its own arrowhead: a marker in a hidden view's SVG would not be drawn.
  const headId = `head-${el.id}`;

  const squareName = (file, rank) => "abcdefgh"[file] + (rank + 1);
  const xy = (sq) => {
    const file = sq.charCodeAt(0) - 97;
    const rank = parseInt(sq[1], 10) - 1;
    return board.flipped ? [(7 - file) * 100, rank * 100] : [file * 100, (7 - rank) * 100];
  };

  function pieces() {
    const map = {};
    const rows = board.position.fen.split(" ")[0].split("/");
    rows.forEach((row, i) => {
      let file = 0;
      for (const ch of row) {
        if (/[1-8]/.test(ch)) file += parseInt(ch, 10);
        else map[squareName(file++, 7 - i)] = ch;
      }
    });
    return map;
  }

  function targets(from) {
    return board.position.legal.filter((m) => m.from === from);
  }

  function render() {
    root.textContent = "";
    if (!board.position) return;
    const map = pieces();
    const tgt = board.selected ? targets(board.selected).map((m) => m.to) : [];
    for (let rank = 0; rank < 8; rank++) {
      for (let file = 0; file < 8; file++) {
        const sq = squareName(file, rank);
        const [x, y] = xy(sq);
        let cls = (file + rank) % 2 ? "light" : "dark";
        if (board.lastMove && (board.lastMove.slice(0, 2) === sq || board.lastMove.slice(2, 4) === sq)) cls += " last";
        if (board.selected === sq) cls += " selected";
        svg("rect", { x, y, width: 100, height: 100, class: `sq ${cls}`, "data-square": sq }, root);
      }
    }
    for (let i = 0; i < 8; i++) {
      const file = board.flipped ? 7 - i : i;
      const rank = board.flipped ? i : 7 - i;
      svg("text", { x: i * 100 + 92, y: 793, class: "coord" }, root).textContent = "abcdefgh"[file];
      svg("text", { x: 4, y: i * 100 + 18, class: "coord" }, root).textContent = String(rank + 1);
    }
    for (const [sq, ch] of Object.entries(map)) {
      const [x, y] = xy(sq);
      const white = ch === ch.toUpperCase();
      const t = svg("text", { x: x + 50, y: y + 52, class: `piece ${white ? "white" : "black"}`, "data-piece": sq }, root);
      t.textContent = GLYPHS[ch.toLowerCase()];
    }
    for (const to of tgt) {
      const [x, y] = xy(to);
      svg("circle", { cx: x + 50, cy: y + 50, r: map[to] ? 46 : 15, class: map[to] ? "target capture" : "target" }, root);
    }
    board.arrows.forEach((uci, i) => {
      const [x1, y1] = xy(uci.slice(0, 2));
      const [x2, y2] = xy(uci.slice(2, 4));
      svg("line", { x1: x1 + 50, y1: y1 + 50, x2: x2 + 50, y2: y2 + 50, class: `arrow arrow${Math.min(i, 2)}`, "marker-end": `url(#${headId})` }, root);
    });
    const defs = svg("defs", {}, root);
    const marker = svg("marker", { id: headId, markerWidth: 4, markerHeight: 4, refX: 2.5, refY: 2, orient: "auto" }, defs);
    svg("path", { d: "M0,0 L4,2 L0,4 z", class: "arrowhead" }, marker);
  }

  function squareAt(event) {
    const target = document.elementFromPoint(event.clientX, event.clientY);
    if (target && target.dataset && target.dataset.square) return target.dataset.square;
    const rect = root.getBoundingClientRect();
    const fx = Math.floor(((event.clientX - rect.left) / rect.width) * 8);
    const fy = Math.floor(((event.clientY - rect.top) / rect.height) * 8);
    if (fx < 0 || fx > 7 || fy < 0 || fy > 7) return null;
    return board.flipped ? squareName(7 - fx, fy) : squareName(fx, 7 - fy);
  }

  function tryMove(from, to) {
    const moves = targets(from).filter((m) => m.to === to);
    if (!moves.length) return false;
    const move = moves.find((m) => !m.promotion || m.promotion === "q") || moves[0];
    board.selected = null;
    render();
    onMove(move.uci);
    return true;
  }

  root.addEventListener("pointerdown", (event) => {
    if (!board.position || !board.movable()) return;
    const sq = squareAt(event);
    if (!sq) return;
    if (board.selected && board.selected !== sq && tryMove(board.selected, sq)) return;
    if (targets(sq).length) {
      board.selected = sq;
      board.dragging = true;
    } else {
      board.selected = null;
    }
    render();
  });
  root.addEventListener("pointerup", (event) => {
    if (!board.dragging) return;
    board.dragging = false;
    const sq = squareAt(event);
    if (sq && board.selected && sq !== board.selected) tryMove(board.selected, sq);
  });

  board.set = (position) => {
    board.position = position;
    board.selected = null;
    board.arrows = [];
    board.lastMove = position.moves.length ? position.moves[position.moves.length - 1] : null;
    render();
  };
  board.setArrows = (pv) => {
    board.arrows = pv.slice(0, 3);
    render();
  };
  board.flip = () => {
    board.flipped = !board.flipped;
    render();
  };
  return board;
}

// ---------------------------------------------------------------- Play

const play = { game: null, board: null, controller: null, engineMovedLast: [] };

function playEngine() {
  return $("play-engine").value;
}

function usersTurn() {
  const side = $("play-side").value;
  return play.game && !play.game.over && (side === "none" || side === play.game.turn);
}

function renderPlay() {
  const g = play.game;
  play.board.set(g);
  const list = $("play-moves");
  list.textContent = "";
  for (let i = 0; i < g.san.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = g.san[i] + (g.san[i + 1] ? "  " + g.san[i + 1] : "");
    list.appendChild(li);
  }
  $("play-pgn").value = g.pgn;
  $("play-fen").value = g.fen;
  $("play-status").textContent = g.over
    ? `Game over: ${g.over.result} (${g.over.reason})`
    : `${g.turn === "white" ? "White" : "Black"} to move${g.check ? ", in check" : ""}`;
}

async function setPlayGame(game) {
  play.game = game;
  renderPlay();
  if (!game.over && !usersTurn() && $("play-side").value !== "none") await engineMove();
}

async function userMove(uci) {
  stopPlaySearch();
  try {
    showError("");
    stats.moveClickedAt = performance.now();
    const game = await api("/api/play", { fen: play.game.start_fen, moves: play.game.moves, move: uci });
    play.engineMovedLast.push(false);
    await setPlayGame(game);
  } catch (e) {
    showError(e.message);
  }
}

function stopPlaySearch() {
  if (play.controller) play.controller.abort();
  play.controller = null;
}

async function engineMove() {
  stopPlaySearch();
  const game = play.game;
  if (game.over) return;
  const controller = new AbortController();
  play.controller = controller;
  const engine = playEngine();
  const started = performance.now();
  let first = true;
  let done = null;
  $("play-info").textContent = `${engine} is thinking...`;
  stats.searches += 1;
  try {
    await stream(
      searchUrl(game, engine, engineLimits("play")),
      (name, data) => {
        if (name === "info" || name === "done") {
          if (first && name === "info") {
            stats.firstInfoMs = performance.now() - started;
            if (stats.moveClickedAt) stats.moveToInfoMs = performance.now() - stats.moveClickedAt;
            first = false;
          }
          $("play-info").textContent =
            `${engine}: depth ${data.depth}  score ${fmtScore(data.score, data.mate)}  nodes ${num(data.nodes)}  nps ${num(data.nps)}  ` +
            `time ${data.time_ms} ms  pv ${data.pv_san.join(" ")}`;
          play.board.setArrows(data.pv);
        }
        if (name === "done") done = data;
      },
      controller.signal
    );
  } catch (e) {
    if (e.name !== "AbortError") showError(e.message);
    return;
  } finally {
    if (play.controller === controller) play.controller = null;
  }
  if (!done || !done.best || play.game !== game) return;
  const next = await api("/api/play", { fen: game.start_fen, moves: game.moves, move: done.best });
  play.engineMovedLast.push(true);
  play.game = next;
  renderPlay();
  play.board.setArrows([]);
  stats.engineMoves = (stats.engineMoves || 0) + 1;
}

async function loadPlay(fen) {
  stopPlaySearch();
  try {
    showError("");
    play.engineMovedLast = [];
    await setPlayGame(await api("/api/position", { fen: fen || null, moves: [] }));
  } catch (e) {
    showError(e.message);
  }
}

async function undo() {
  stopPlaySearch();
  const g = play.game;
  if (!g.moves.length) return;
  let drop = 1;
  if (play.engineMovedLast.length && play.engineMovedLast[play.engineMovedLast.length - 1] && g.moves.length >= 2 && $("play-side").value !== "none") drop = 2;
  play.engineMovedLast.splice(-drop, drop);
  play.game = await api("/api/position", { fen: g.start_fen, moves: g.moves.slice(0, g.moves.length - drop) });
  renderPlay();
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    $("play-info").textContent = `${what} copied`;
  } catch (e) {
    $("play-info").textContent = `${what}: select it below and copy it`;
  }
}

function initPlay() {
  play.board = makeBoard($("play-board"), userMove);
  play.board.movable = usersTurn;
  $("play-undo").onclick = undo;
  $("play-flip").onclick = () => play.board.flip();
  $("play-new").onclick = () => loadPlay(null);
  $("play-load").onclick = () => loadPlay($("play-fen").value.trim());
  $("play-go").onclick = () => engineMove();
  $("play-stop").onclick = () => {
    stopPlaySearch();
    $("play-info").textContent = "stopped";
  };
  $("play-copy-fen").onclick = () => copy(play.game.fen, "FEN");
  $("play-copy-pgn").onclick = () => copy(play.game.pgn, "PGN");
  $("play-side").onchange = () => {
    const side = $("play-side").value;
    if (side !== "none" && side !== play.game.turn && !play.game.over) engineMove();
    if ((side === "black") !== play.board.flipped) play.board.flip();
  };
  $("play-engine").onchange = showIdea;
  return loadPlay(null);
}

// ---------------------------------------------------------------- Watch

const watch = { board: null, controller: null, running: false, rows: [] };

function drawGraph() {
  const g = $("watch-graph");
  g.textContent = "";
  svg("line", { x1: 0, y1: 80, x2: 400, y2: 80, class: "axis" }, g);
  const pts = watch.rows.map((r, i) => {
    // Centipawns, White's view, clipped to +/-6 pawns (a mate at the edge).
    const v = r.mate !== null && r.mate !== undefined ? (r.mate > 0 ? 600 : -600) : Math.max(-600, Math.min(600, r.white || 0));
    const x = watch.rows.length > 1 ? (i / (watch.rows.length - 1)) * 400 : 0;
    return `${x.toFixed(1)},${(80 - (v * 75) / 600).toFixed(1)}`;
  });
  if (pts.length) svg("polyline", { points: pts.join(" "), class: "evalline" }, g);
}

function addWatchRow(r) {
  watch.rows.push(r);
  const tr = document.createElement("tr");
  for (const cell of [watch.rows.length, r.san, r.engine, fmtScore(r.white, r.mate), r.depth, num(r.nodes), r.time_ms]) {
    const td = document.createElement("td");
    td.textContent = cell;
    tr.appendChild(td);
  }
  $("watch-table").querySelector("tbody").appendChild(tr);
  drawGraph();
}

async function runWatch() {
  stopWatch();
  watch.running = true;
  watch.rows = [];
  $("watch-table").querySelector("tbody").textContent = "";
  drawGraph();
  let game;
  try {
    showError("");
    game = await api("/api/position", { fen: $("watch-fen").value.trim() || null, moves: [] });
  } catch (e) {
    showError(e.message);
    return;
  }
  watch.board.set(game);
  while (watch.running && !game.over) {
    const engine = game.turn === "white" ? $("watch-white").value : $("watch-black").value;
    const controller = new AbortController();
    watch.controller = controller;
    let done = null;
    try {
      await stream(
        searchUrl(game, engine, engineLimits("watch")),
        (name, data) => {
          $("watch-info").textContent = `${engine}: depth ${data.depth}  score ${fmtScore(data.score, data.mate)}  nodes ${num(data.nodes)}  pv ${data.pv_san.join(" ")}`;
          watch.board.setArrows(data.pv);
          if (name === "done") done = data;
        },
        controller.signal
      );
    } catch (e) {
      if (e.name !== "AbortError") showError(e.message);
      break;
    }
    if (!watch.running || !done || !done.best) break;
    const white = done.score === null ? null : game.turn === "white" ? done.score : -done.score;
    const mate = done.mate === null ? null : game.turn === "white" ? done.mate : -done.mate;
    game = await api("/api/play", { fen: game.start_fen, moves: game.moves, move: done.best });
    watch.board.set(game);
    addWatchRow({ san: game.san[game.san.length - 1], engine, white, mate, depth: done.depth, nodes: done.nodes, time_ms: done.time_ms });
    $("watch-status").textContent = game.over ? `Game over: ${game.over.result} (${game.over.reason})` : `${game.turn} to move`;
  }
  watch.running = false;
}

function stopWatch() {
  watch.running = false;
  if (watch.controller) watch.controller.abort();
  watch.controller = null;
}

function initWatch() {
  watch.board = makeBoard($("watch-board"), () => {});
  $("watch-start").onclick = runWatch;
  $("watch-stop").onclick = () => {
    stopWatch();
    $("watch-status").textContent = "stopped";
  };
  return api("/api/position", { moves: [] }).then((g) => watch.board.set(g));
}

// ---------------------------------------------------------------- Search tree

function treeRequest(engine, node) {
  const body = { fen: $("tree-fen").value.trim() || null, engine, depth: parseInt($("tree-depth").value, 10) || 1 };
  if (node !== undefined) body.node = node;
  return body;
}

function nodeRow(node, engine, pane) {
  const li = document.createElement("li");
  li.className = node.pruned ? "node pruned" : "node";
  li.dataset.id = node.id;
  const head = document.createElement("div");
  head.className = "node-head";
  const toggle = document.createElement("span");
  toggle.className = "toggle";
  toggle.textContent = node.children ? "\u25B8" : "\u00B7";
  head.appendChild(toggle);
  const text = document.createElement("span");
  if (node.pruned) {
    text.textContent = `${node.san}  pruned`;
    text.title = node.pruned;
    const why = document.createElement("span");
    why.className = "why";
    why.textContent = node.pruned;
    head.appendChild(text);
    head.appendChild(why);
  } else {
    const window_ = node.alpha === null || node.alpha === undefined ? "" : `  window [${fmtBound(node.alpha)}, ${fmtBound(node.beta)}]`;
    text.textContent = `${node.san}  value ${fmtScore(node.value)}${window_}  (${node.children} children)`;
    head.appendChild(text);
  }
  li.appendChild(head);
  if (node.children) {
    head.classList.add("expandable");
    head.onclick = async () => {
      const open = li.querySelector(":scope > ul");
      if (open) {
        open.remove();
        toggle.textContent = "\u25B8";
        return;
      }
      try {
        const data = await api("/api/tree", treeRequest(engine, node.id));
        const ul = document.createElement("ul");
        for (const child of data.children) ul.appendChild(nodeRow(child, engine, pane));
        li.appendChild(ul);
        toggle.textContent = "\u25BE";
      } catch (e) {
        showError(e.message);
      }
    };
  }
  return li;
}

async function showTreePane(engine, index) {
  const pane = document.createElement("div");
  pane.className = "pane";
  pane.id = `tree-pane-${index}`;
  $("tree-panes").appendChild(pane);
  pane.textContent = `${engine}: searching...`;
  const data = await api("/api/tree", treeRequest(engine));
  pane.textContent = "";
  const summary = document.createElement("h3");
  summary.id = `tree-summary-${index}`;
  summary.textContent = `${data.engine}, depth ${data.depth}: ${num(data.positions)} positions, ${num(data.pruned)} moves pruned`;
  pane.appendChild(summary);
  const table = document.createElement("table");
  table.className = "data small";
  table.innerHTML = "<thead><tr><th>depth</th><th>positions</th></tr></thead>";
  const tbody = document.createElement("tbody");
  data.per_depth.forEach((n, d) => {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>${d}</td><td>${num(n)}</td>`;
    tbody.appendChild(tr);
  });
  table.appendChild(tbody);
  pane.appendChild(table);
  const best = document.createElement("p");
  best.textContent = `value ${fmtScore(data.score)}; click a node to open it`;
  pane.appendChild(best);
  const ul = document.createElement("ul");
  ul.className = "tree";
  ul.appendChild(nodeRow(data.node, engine, pane));
  pane.appendChild(ul);
  ul.querySelector(".node-head").click();
  return data;
}

async function showTree() {
  showError("");
  $("tree-panes").textContent = "";
  $("tree-ratio").textContent = "";
  const engine = $("tree-engine").value;
  const other = engine === "minimax" ? "alphabeta" : "minimax";
  try {
    const first = await showTreePane(engine, 0);
    if ($("tree-compare").checked) {
      const second = await showTreePane(other, 1);
      const [ab, mm] = engine === "minimax" ? [second, first] : [first, second];
      $("tree-ratio").textContent =
        `${ab.engine} visited ${((100 * ab.positions) / mm.positions).toFixed(1)}% of the positions minimax visited ` +
        `(${num(ab.positions)} of ${num(mm.positions)}), for the same value ${fmtScore(ab.score)}.`;
    }
  } catch (e) {
    showError(e.message);
  }
}

function initTree() {
  $("tree-show").onclick = showTree;
  $("tree-engine").onchange = () => {
    $("tree-other").textContent = $("tree-engine").value === "minimax" ? "alphabeta" : "minimax";
  };
  $("tree-from-play").onclick = () => ($("tree-fen").value = play.game.fen);
}

// ---------------------------------------------------------------- Ladder

function drawLadderChart(rungs) {
  const chart = $("ladder-chart");
  chart.textContent = "";
  const max = Math.max(...rungs.map((r) => r.nodes), 10);
  const top = Math.ceil(Math.log10(max));
  const scale = (n) => (n > 0 ? (Math.log10(n) / top) * 400 : 0);
  for (let p = 0; p <= top; p++) {
    const x = 150 + (p / top) * 400;
    svg("line", { x1: x, y1: 5, x2: x, y2: 290, class: "grid" }, chart);
    svg("text", { x, y: 298, class: "tick", "text-anchor": "middle" }, chart).textContent = `1e${p}`;
  }
  rungs.forEach((r, i) => {
    const y = 10 + i * 23;
    svg("text", { x: 140, y: y + 14, class: "label", "text-anchor": "end" }, chart).textContent = r.name;
    svg("rect", { x: 150, y, width: Math.max(1, scale(r.nodes)), height: 18, class: "bar" }, chart);
    svg("text", { x: 155 + scale(r.nodes), y: y + 14, class: "value" }, chart).textContent = num(r.nodes);
  });
}

async function runLadder() {
  showError("");
  $("ladder-status").textContent = "every rung is searching...";
  const body = {
    fen: $("ladder-fen").value.trim() || null,
    depth: parseInt($("ladder-depth").value, 10) || 3,
    movetime: parseInt($("ladder-movetime").value, 10) || 200,
  };
  try {
    const data = await api("/api/ladder", body);
    const tbody = $("ladder-table").querySelector("tbody");
    tbody.textContent = "";
    for (const r of data.rungs) {
      const tr = document.createElement("tr");
      for (const cell of [r.name, r.idea, r.limit, r.best_san || "-", fmtScore(r.score, r.mate), r.depth, num(r.nodes), r.time_ms]) {
        const td = document.createElement("td");
        td.textContent = cell;
        tr.appendChild(td);
      }
      tbody.appendChild(tr);
    }
    drawLadderChart(data.rungs);
    $("ladder-status").textContent = `${data.rungs.length} rungs on ${data.fen}; nodes on a log scale below`;
  } catch (e) {
    $("ladder-status").textContent = "";
    showError(e.message);
  }
}

function initLadder() {
  $("ladder-run").onclick = runLadder;
  $("ladder-from-play").onclick = () => ($("ladder-fen").value = play.game.fen);
}

// ---------------------------------------------------------------- Evaluation

async function runEval() {
  showError("");
  try {
    const data = await api("/api/eval", { fen: $("eval-fen").value.trim() || null });
    const tbody = $("eval-table").querySelector("tbody");
    tbody.textContent = "";
    for (const t of data.terms) {
      const tr = document.createElement("tr");
      tr.innerHTML = `<td></td><td>${t.mg}</td><td>${t.eg}</td>`;
      tr.firstChild.textContent = t.name;
      tbody.appendChild(tr);
    }
    $("eval-status").textContent = `Final evaluation: ${fmtScore(data.white)} (White's view); ${fmtScore(data.value)} for the side to move. Terms in centipawns, White's view, blended by the game phase.`;
  } catch (e) {
    showError(e.message);
  }
}

function initEval() {
  $("eval-run").onclick = runEval;
  $("eval-from-play").onclick = () => {
    $("eval-fen").value = play.game.fen;
    runEval();
  };
}

// ---------------------------------------------------------------- start

let ENGINES = [];

function showIdea() {
  const e = ENGINES.find((x) => x.name === playEngine());
  $("play-idea").textContent = e ? e.idea : "";
}

function switchView(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.view === name);
  for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${name}`;
  location.hash = name;
}

async function start() {
  try {
    const info = await api("/api/engines");
    ENGINES = info.engines;
    $("version").textContent = `Rookery ${info.version}`;
    for (const select of document.querySelectorAll(".engine-select")) {
      for (const e of ENGINES) {
        const option = document.createElement("option");
        option.value = e.name;
        option.textContent = e.name;
        select.appendChild(option);
      }
    }
    $("play-engine").value = "rookery";
    $("watch-white").value = "rookery";
    $("watch-black").value = "pst";
    showIdea();
    for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => switchView(b.dataset.view);
    initTree();
    initLadder();
    initEval();
    await Promise.all([initPlay(), initWatch()]);
    const wanted = location.hash.slice(1);
    if (["play", "watch", "tree", "ladder", "eval"].includes(wanted)) switchView(wanted);
    stats.ready = true;
    stats.readyMs = performance.now();
  } catch (e) {
    showError(`the Lab could not start: ${e.message}`);
  }
}

start();
