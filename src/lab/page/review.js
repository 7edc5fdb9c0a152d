// Rookery Lab: game review. The engine annotates every move (POST /api/review, server-sent events:
// `start`, a `move` as each is judged, `done` with the annotated PGN): the expected score over the
// game as a graph, inaccuracies, mistakes and blunders marked, the better move as an arrow.
"use strict";

const review = { board: null, controller: null, rows: [], start: null, san: [], at: 0, result: null };

function reviewBody() {
  return { pgn: $("review-pgn").value, nodes: parseInt($("review-nodes").value, 10) || 100000 };
}

function reviewPosition(i) {
  // Position after move i (1-based); 0 is the start.
  if (i === 0) return { fen: review.start, legal: [], moves: [] };
  const row = review.rows[i - 1];
  return { fen: row.fen_after, legal: [], moves: [row.uci] };
}

function showReviewAt(i) {
  const max = review.rows.length;
  review.at = Math.max(0, Math.min(max, i));
  if (review.start === null) return;
  review.board.set(reviewPosition(review.at));
  const row = review.at ? review.rows[review.at - 1] : null;
  if (row && row.judgement && row.best) review.board.setArrows([row.best]);
  let text = "the start position";
  if (row) {
    text = `${row.number}${row.color === "white" ? "." : "..."} ${row.san}${row.glyph || ""}  ${fmtScore(row.score_after, row.mate_after)}`;
    text += `  expected score for ${row.color} ${row.expected_before.toFixed(2)} \u2192 ${row.expected_after.toFixed(2)}`;
    if (row.judgement) text += `\n${row.judgement}: ${row.best_san} was better (${row.best_line.join(" ")})`;
    else if (row.best_san && row.best !== row.uci) text += `\nthe engine preferred ${row.best_san}`;
  }
  $("review-move").textContent = text;
  for (const li of document.querySelectorAll("#review-moves .rmove")) li.classList.toggle("at", Number(li.dataset.ply) === review.at);
  drawReviewGraph();
}

function drawReviewGraph() {
  const g = $("review-graph");
  g.textContent = "";
  svg("line", { x1: 0, y1: 80, x2: 400, y2: 80, class: "axis" }, g);
  const total = Math.max(review.san.length, 1);
  const x = (ply) => (ply / total) * 400;
  // White's expected score: 1 at the top, 0 at the bottom.
  const y = (e) => 155 - e * 150;
  const pts = [`0,${y(review.rows.length ? whiteExpected(review.rows[0], true) : 0.5)}`];
  review.rows.forEach((r) => pts.push(`${x(r.ply).toFixed(1)},${y(whiteExpected(r, false)).toFixed(1)}`));
  if (review.rows.length) {
    svg("polygon", { points: `0,155 ${pts.join(" ")} ${x(review.rows[review.rows.length - 1].ply).toFixed(1)},155`, class: "evalarea" }, g);
    svg("polyline", { points: pts.join(" "), class: "evalline" }, g);
  }
  if (review.at) svg("line", { x1: x(review.at), y1: 0, x2: x(review.at), y2: 160, class: "cursor" }, g);
  for (const r of review.rows) {
    if (!r.judgement) continue;
    const c = svg("circle", { cx: x(r.ply), cy: y(whiteExpected(r, false)), r: 4, class: `mark ${r.judgement}`, "data-ply": r.ply }, g);
    svg("title", {}, c).textContent = `${r.number}${r.color === "white" ? "." : "..."} ${r.san}${r.glyph}: ${r.judgement}`;
  }
}

function whiteExpected(r, before) {
  const e = before ? r.expected_before : r.expected_after;
  return r.color === "white" ? e : 1 - e;
}

function addReviewMove(r) {
  review.rows.push(r);
  const list = $("review-moves");
  const li = document.createElement("li");
  li.className = "rmove" + (r.judgement ? ` ${r.judgement}` : "");
  li.dataset.ply = r.ply;
  li.textContent = `${r.color === "white" ? r.number + "." : r.number + "..."} ${r.san}${r.glyph || ""}`;
  li.title = `${fmtScore(r.score_after, r.mate_after)} (White's view)`;
  li.onclick = () => showReviewAt(r.ply);
  list.appendChild(li);
}

async function runReview() {
  stopReview();
  showError("");
  const body = reviewBody();
  review.rows = [];
  review.result = null;
  review.start = null;
  $("review-moves").textContent = "";
  $("review-out").value = "";
  $("review-export").disabled = true;
  $("review-status").textContent = "reviewing...";
  saveState();
  const started = performance.now();
  const events = jobEvents({
    start: (data) => {
      review.start = data.start_fen;
      review.san = data.san;
      showReviewAt(0);
    },
    move: (data) => {
      addReviewMove(data);
      $("review-status").textContent = `reviewing: ${data.ply} of ${review.san.length} moves`;
      showReviewAt(data.ply);
    },
    done: (data) => {
      review.result = data;
      const s = data.summary;
      const side = (x) => `${x.inaccuracies} ?!, ${x.mistakes} ?, ${x.blunders} ??`;
      $("review-status").textContent = `White: ${side(s.white)}; Black: ${side(s.black)} (${num(data.nodes)} nodes a position, ${(data.time_ms / 1000).toFixed(1)} s)` +
        (data.stopped ? ` (stopped: ${data.stopped})` : "");
      $("review-out").value = data.pgn;
      $("review-export").disabled = false;
      const first = review.rows.find((r) => r.judgement === "blunder") || review.rows.find((r) => r.judgement);
      showReviewAt(first ? first.ply : review.rows.length);
      stats.reviewMs = performance.now() - started;
    },
  });
  if (!(await follow(review, "/api/review", events, body))) $("review-status").textContent = "";
}

function stopReview() {
  if (review.controller) review.controller.abort();
  review.controller = null;
}

function initReview() {
  review.board = makeBoard($("review-board"), () => {});
  $("review-run").onclick = runReview;
  $("review-stop").onclick = () => {
    stopReview();
    $("review-status").textContent += " (stopped)";
  };
  $("review-first").onclick = () => showReviewAt(0);
  $("review-prev").onclick = () => showReviewAt(review.at - 1);
  $("review-next").onclick = () => showReviewAt(review.at + 1);
  $("review-last").onclick = () => showReviewAt(review.rows.length);
  $("review-flip").onclick = () => review.board.flip();
  $("review-export").onclick = () => download("rookery-lab-review.pgn", review.result ? review.result.pgn : "", "application/x-chess-pgn");
  $("review-graph").addEventListener("click", (e) => {
    const r = $("review-graph").getBoundingClientRect();
    const ply = Math.round(((e.clientX - r.left) / r.width) * Math.max(review.san.length, 1));
    showReviewAt(ply);
  });
}

// Reviews the game of the Play view.
function reviewPlayGame() {
  const g = play.game;
  if (!g || !g.moves.length) {
    showError("play some moves first: there is nothing to review");
    return;
  }
  $("review-pgn").value = g.pgn;
  switchView("review");
  runReview();
}

const reviewState = {
  save: () => ({ pgn: $("review-pgn").value.length < 1500 ? $("review-pgn").value : "", nodes: $("review-nodes").value }),
  load: (p) => {
    if (p.get("pgn")) $("review-pgn").value = p.get("pgn");
    if (p.has("nodes")) $("review-nodes").value = p.get("nodes");
    if (p.get("pgn")) runReview();
  },
  key: (e) => {
    if (e.key === "ArrowLeft") showReviewAt(review.at - 1);
    else if (e.key === "ArrowRight") showReviewAt(review.at + 1);
    else if (e.key === "Home") showReviewAt(0);
    else if (e.key === "End") showReviewAt(review.rows.length);
    else return false;
    return true;
  },
};
