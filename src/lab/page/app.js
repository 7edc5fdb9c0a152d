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

// Reads the stream at `url` (see `stream`) for `owner`, a view's state, whose `controller` stops
// it while it runs. A failure is shown, a stop is not; returns true when the stream ran to its
// end.
async function follow(owner, url, onEvent, body) {
  const controller = new AbortController();
  owner.controller = controller;
  try {
    await stream(url, onEvent, controller.signal, body);
    return true;
  } catch (e) {
    if (e.name !== "AbortError") showError(e.message);
    return false;
  } finally {
    if (owner.controller === controller) owner.controller = null;
  }
}

// An event handler for a long job's stream (a review, a tournament): `handlers[name](data)` for
// each event it names, and an `error` event shown.
function jobEvents(handlers) {
  return (name, data) => {
    if (name === "error") showError(data.error);
    else if (handlers[name]) handlers[name](data);
  };
}

// Reads a server-sent event stream with fetch (a GET, or a POST of `body` as JSON); calls
// onEvent(name, data) for each event.
async function stream(url, onEvent, signal, body) {
  const init = { signal };
  if (body !== undefined) {
    init.method = "POST";
    init.headers = { "Content-Type": "application/json", Accept: "text/event-stream" };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
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

// The heatmaps' colour scale: a square's fill opacity for `value` when `scale` is the strongest
// value shown (blue for a gain, red for a loss, stronger for more).
function heatOpacity(value, scale) {
  return Math.min(1, Math.abs(value) / (scale || 100)) * 0.75;
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
  const board = { position: null, flipped: false, selected: null, dragging: false, arrows: [], lastMove: null, heat: null, movable: () => false };
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
    if (board.heat) {
      // Heatmap: a colour per square, blue for White's gain, red for Black's, stronger for more.
      for (const [sq, h] of Object.entries(board.heat)) {
        const [x, y] = xy(sq);
        const a = heatOpacity(h.value, board.heatScale);
        const r = svg("rect", { x, y, width: 100, height: 100, class: `heat ${h.value >= 0 ? "pos" : "neg"}`, "fill-opacity": a.toFixed(3), "data-heat": sq }, root);
        svg("title", {}, r).textContent = h.title;
        if (h.label !== null && h.label !== undefined) {
          svg("text", { x: x + 96, y: y + 17, class: "heat-label", "text-anchor": "end" }, root).textContent = h.label;
        }
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
  board.setHeat = (heat, scale) => {
    board.heat = heat;
    board.heatScale = scale || 100;
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

const play = { game: null, board: null, controller: null, engineMovedLast: [], cursor: null };

function playEngine() {
  return $("play-engine").value;
}

function usersTurn() {
  const side = $("play-side").value;
  return play.game && play.cursor === null && !play.game.over && (side === "none" || side === play.game.turn);
}

function renderPlay() {
  const g = play.game;
  play.cursor = null;
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
  saveState();
}

// Arrow keys: look at earlier positions of the game (the board is read-only meanwhile).
async function browsePlay(delta) {
  const g = play.game;
  if (!g) return false;
  const from = play.cursor === null ? g.moves.length : play.cursor;
  const c = Math.max(0, Math.min(g.moves.length, from + delta));
  if (c === g.moves.length) {
    if (play.cursor !== null) renderPlay();
    return true;
  }
  play.cursor = c;
  const pos = await api("/api/position", { fen: g.start_fen, moves: g.moves.slice(0, c) });
  if (play.cursor !== c || play.game !== g) return true;
  play.board.set(pos);
  $("play-status").textContent = `The position after ${c} of ${g.moves.length} half-moves (\u2192 back to the game)`;
  return true;
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
  const engine = playEngine();
  const started = performance.now();
  let first = true;
  let done = null;
  $("play-info").textContent = `${engine} is thinking...`;
  stats.searches += 1;
  const ended = await follow(play, searchUrl(game, engine, engineLimits("play")), (name, data) => {
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
  });
  if (!ended) return;
  if (!done || !done.best || play.game !== game) return;
  const next = await api("/api/play", { fen: game.start_fen, moves: game.moves, move: done.best });
  play.engineMovedLast.push(true);
  play.game = next;
  renderPlay();
  play.board.setArrows([]);
  stats.engineMoves = (stats.engineMoves || 0) + 1;
}

async function loadPlay(fen, moves) {
  stopPlaySearch();
  try {
    showError("");
    play.engineMovedLast = [];
    await setPlayGame(await api("/api/position", { fen: fen || null, moves: moves || [] }));
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
  $("play-review").onclick = reviewPlayGame;
  $("play-side").onchange = () => {
    const side = $("play-side").value;
    if (side !== "none" && side !== play.game.turn && !play.game.over) engineMove();
    if ((side === "black") !== play.board.flipped) play.board.flip();
  };
  $("play-engine").onchange = () => {
    showIdea();
    saveState();
  };
  return loadPlay(null);
}

const playState = {
  save: () => {
    const g = play.game;
    const p = { engine: playEngine(), side: $("play-side").value };
    if (g && g.start_fen !== START_FEN) p.fen = g.start_fen;
    if (g && g.moves.length) p.moves = g.moves.join(" ");
    return p;
  },
  load: (p) => {
    if (p.has("engine")) $("play-engine").value = p.get("engine");
    if (p.has("side")) $("play-side").value = p.get("side");
    showIdea();
    if ((p.get("side") === "black") !== play.board.flipped) play.board.flip();
    if (p.has("fen") || p.has("moves")) return loadPlay(p.get("fen"), (p.get("moves") || "").split(" ").filter(Boolean));
  },
  key: (e) => {
    if (e.key === "ArrowLeft") browsePlay(-1);
    else if (e.key === "ArrowRight") browsePlay(1);
    else return false;
    return true;
  },
};

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
    let done = null;
    const ended = await follow(watch, searchUrl(game, engine, engineLimits("watch")), (name, data) => {
      $("watch-info").textContent = `${engine}: depth ${data.depth}  score ${fmtScore(data.score, data.mate)}  nodes ${num(data.nodes)}  pv ${data.pv_san.join(" ")}`;
      watch.board.setArrows(data.pv);
      if (name === "done") done = data;
    });
    if (!ended) break;
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

const watchState = {
  save: () => ({ white: $("watch-white").value, black: $("watch-black").value, movetime: $("watch-movetime").value, depth: $("watch-depth").value, fen: $("watch-fen").value.trim() }),
  load: (p) => {
    for (const k of ["white", "black", "movetime", "depth", "fen"]) if (p.has(k)) $(`watch-${k}`).value = p.get(k);
  },
};

function initWatch() {
  watch.board = makeBoard($("watch-board"), () => {});
  $("watch-start").onclick = runWatch;
  $("watch-stop").onclick = () => {
    stopWatch();
    $("watch-status").textContent = "stopped";
  };
  return api("/api/position", { moves: [] }).then((g) => watch.board.set(g));
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

const ladderState = {
  save: () => ({ fen: $("ladder-fen").value.trim(), depth: $("ladder-depth").value, movetime: $("ladder-movetime").value }),
  load: (p) => {
    for (const k of ["fen", "depth", "movetime"]) if (p.has(k)) $(`ladder-${k}`).value = p.get(k);
  },
};

function initLadder() {
  $("ladder-run").onclick = runLadder;
  $("ladder-from-play").onclick = () => ($("ladder-fen").value = play.game.fen);
}

// ---------------------------------------------------------------- Evaluation and heatmap

const heat = { board: null, data: null };

function drawHeat() {
  const data = heat.data;
  if (!data) return;
  const layer = $("heat-layer").value || "table";
  const info = data.layers.find((l) => l.id === layer) || data.layers[0];
  const cells = {};
  let scale = 1;
  for (const q of data.squares) {
    const v = q.values[info.id];
    if (v === null || v === undefined) continue;
    scale = Math.max(scale, Math.abs(v));
  }
  for (const q of data.squares) {
    const v = q.values[info.id];
    const has = v !== null && v !== undefined;
    cells[q.square] = {
      value: has ? v : 0,
      label: has ? (v > 0 ? "+" : "") + v : "\u2013",
      title: `${q.square} ${q.piece}: ` + (has ? `${v > 0 ? "+" : ""}${v} cp, ${info.name} (White's view)` : q.skipped),
    };
  }
  heat.board.setHeat(cells, scale);
  $("heat-about").textContent = `${info.name}: ${info.about}. Blue helps White, red helps Black; numbers in centipawns; the strongest square is ${scale} cp.`;
  $("heat-legend").innerHTML = `<span class="swatch pos"></span> good for White <span class="swatch neg"></span> good for Black`;
  saveState();
}

async function runEval() {
  showError("");
  const fen = $("eval-fen").value.trim() || null;
  try {
    const [data, map] = await Promise.all([
      api("/api/eval", { fen }),
      api("/api/heatmap", { fen, eval: $("heat-eval").value }),
    ]);
    const tbody = $("eval-table").querySelector("tbody");
    tbody.textContent = "";
    for (const t of data.terms) {
      const tr = document.createElement("tr");
      tr.innerHTML = `<td></td><td>${t.mg}</td><td>${t.eg}</td>`;
      tr.firstChild.textContent = t.name;
      tbody.appendChild(tr);
    }
    $("eval-status").textContent = `Final evaluation: ${fmtScore(data.white)} (White's view); ${fmtScore(data.value)} for the side to move. Terms in centipawns, White's view, blended by the game phase. The learned net (built in, ${data.net.architecture}) says ${fmtScore(data.net.white)} (White's view), with no terms to show: its knowledge is in its weights.`;
    heat.data = map;
    heat.board.set({ fen: map.fen, legal: [], moves: [] });
    // The evaluations the server offers: the hand-crafted one and the built-in net.
    const evals = $("heat-eval");
    if ([...evals.options].map((o) => o.value).join() !== map.evals.join()) {
      const names = { hce: "hand-crafted", net: "learned (the built-in net)" };
      evals.textContent = "";
      for (const e of map.evals) {
        const o = document.createElement("option");
        o.value = e;
        o.textContent = names[e] || e;
        evals.appendChild(o);
      }
      evals.value = map.eval;
    }
    const select = $("heat-layer");
    const wanted = select.value || "table";
    select.textContent = "";
    for (const l of map.layers) {
      const o = document.createElement("option");
      o.value = l.id;
      o.textContent = l.name;
      select.appendChild(o);
    }
    select.value = map.layers.some((l) => l.id === wanted) ? wanted : "table";
    drawHeat();
    stats.heatmaps = (stats.heatmaps || 0) + 1;
  } catch (e) {
    showError(e.message);
  }
}

function initEval() {
  heat.board = makeBoard($("eval-board"), () => {});
  $("eval-run").onclick = runEval;
  $("heat-layer").onchange = drawHeat;
  $("heat-eval").onchange = runEval;
  $("eval-from-play").onclick = () => {
    $("eval-fen").value = play.game.fen;
    runEval();
  };
  $("eval-board").addEventListener("mouseover", (e) => {
    const sq = e.target.dataset && e.target.dataset.heat;
    if (!sq || !heat.board.heat) return;
    $("heat-hover").textContent = heat.board.heat[sq].title;
  });
}

const evalState = {
  save: () => ({ fen: $("eval-fen").value.trim(), layer: $("heat-layer").value || "table" }),
  load: (p) => {
    if (p.has("fen")) $("eval-fen").value = p.get("fen");
    if (p.has("layer")) {
      const o = document.createElement("option");
      o.value = p.get("layer");
      $("heat-layer").appendChild(o);
      $("heat-layer").value = p.get("layer");
    }
    return runEval();
  },
  show: () => {
    if (!heat.data) runEval();
  },
};

// ---------------------------------------------------------------- start

let ENGINES = [];

function showIdea() {
  const e = ENGINES.find((x) => x.name === playEngine());
  $("play-idea").textContent = e ? e.idea : "";
}

// Each view's settings in the page's URL (#view?key=value...), so a link brings them back.
const VIEWS = {
  play: playState,
  watch: watchState,
  tree: treeState,
  steps: stepsState,
  tournament: tournamentState,
  ladder: ladderState,
  eval: evalState,
  train: trainState,
  review: reviewState,
};
let currentView = "play";
let writtenHash = "";

function saveState() {
  if (!stats.ready) return;
  const state = VIEWS[currentView];
  const params = new URLSearchParams();
  if (state && state.save) {
    for (const [k, v] of Object.entries(state.save())) if (v !== "" && v !== null && v !== undefined) params.set(k, v);
  }
  const q = params.toString();
  writtenHash = `#${currentView}${q ? "?" + q : ""}`;
  history.replaceState(null, "", writtenHash);
}

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) {
    b.classList.toggle("active", b.dataset.view === name);
    // On a narrow screen the tabs scroll: keep the chosen one in sight.
    if (b.dataset.view === name && b.scrollIntoView) b.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
  for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${name}`;
}

function switchView(name) {
  if (!VIEWS[name]) name = "play";
  currentView = name;
  showTab(name);
  const state = VIEWS[name];
  if (state.show) state.show();
  saveState();
}

async function applyHash() {
  const hash = location.hash.slice(1);
  if (!hash) return;
  const cut = hash.indexOf("?");
  const name = cut < 0 ? hash : hash.slice(0, cut);
  const params = new URLSearchParams(cut < 0 ? "" : hash.slice(cut + 1));
  if (!VIEWS[name]) return;
  currentView = name;
  showTab(name);
  const state = VIEWS[name];
  if ([...params.keys()].length && state.load) await state.load(params);
  else if (state.show) state.show();
}

function onKey(e) {
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const state = VIEWS[currentView];
  if (state && state.key && state.key(e)) e.preventDefault();
}

async function copyLink() {
  saveState();
  const button = $("copy-link");
  try {
    await navigator.clipboard.writeText(location.href);
    button.textContent = "Link copied";
  } catch (e) {
    button.textContent = "Copy the address bar";
  }
  setTimeout(() => (button.textContent = "Copy link"), 2000);
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
    $("copy-link").onclick = copyLink;
    document.addEventListener("keydown", onKey);
    initTree();
    initSteps();
    initLadder();
    initEval();
    initReview();
    await Promise.all([initPlay(), initWatch(), initTournament(), initTrain()]);
    const hash = location.hash;
    await applyHash();
    stats.ready = true;
    stats.readyMs = performance.now();
    if (hash) saveState();
    window.addEventListener("hashchange", () => {
      if (location.hash !== writtenHash) applyHash().then(saveState);
    });
  } catch (e) {
    showError(`the Lab could not start: ${e.message}`);
  }
}

start();
