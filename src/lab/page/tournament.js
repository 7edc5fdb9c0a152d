// Rookery Lab: the ladder's tournament. The server plays a round robin between the chosen rungs
// (POST /api/tournament, server-sent events: `start`, a `game` after each game with the standings,
// `done`); the page keeps a live crosstable, each rung's Elo with its 95% interval, and the chart
// of what each technique buys (Elo against the rung below) beside the ladder's reference results
// (GET /api/tournament/reference). The results download as PGN and JSON.
"use strict";

const tour = { controller: null, result: null, pgn: "", reference: null, started: 0 };

function tourRequest() {
  const rungs = [...document.querySelectorAll("#tour-rungs-pick input:checked")].map((c) => c.value);
  const body = {
    rungs,
    games: parseInt($("tour-games").value, 10) || 2,
    depth: parseInt($("tour-depth").value, 10) || 2,
    nodes: parseInt($("tour-nodes").value, 10) || 5000,
    movetime: parseInt($("tour-movetime").value, 10) || 500,
    max_plies: parseInt($("tour-plies").value, 10) || 200,
  };
  const openings = $("tour-openings").value;
  if (openings === "custom") {
    body.openings = $("tour-custom").value.split("\n").map((l) => l.trim()).filter(Boolean).map((fen) => ({ fen }));
  } else {
    body.openings = openings;
  }
  return body;
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

function wdlText(r) {
  return r && r.games ? `${r.wins}-${r.draws}-${r.losses}` : "-";
}

function referenceFor(name, below) {
  if (!tour.reference) return null;
  return tour.reference.rows.find((r) => r.rung === name && r.below === below) || null;
}

function renderStandings(standings, limits) {
  const names = standings.rungs.map((r) => r.name);
  const thead = $("tour-cross").querySelector("thead");
  thead.textContent = "";
  const hr = document.createElement("tr");
  cell(hr, "");
  for (const n of names) cell(hr, n);
  hr.querySelectorAll("td").forEach((td) => td.classList.add("head"));
  thead.appendChild(hr);
  const tbody = $("tour-cross").querySelector("tbody");
  tbody.textContent = "";
  standings.crosstable.forEach((row, i) => {
    const tr = document.createElement("tr");
    cell(tr, names[i], "head");
    row.forEach((c, j) => {
      if (i === j) return cell(tr, "\u00B7", "diag");
      const td = cell(tr, c.games ? wdlText(c) : "-");
      if (c.games) {
        const small = document.createElement("small");
        small.textContent = c.text;
        td.appendChild(document.createElement("br"));
        td.appendChild(small);
      }
      td.title = c.games ? `${names[i]} against ${names[j]}: ${c.games} games, score ${(100 * c.score).toFixed(0)}%` : "";
      if (c.games) td.classList.add(c.score > 0.5 ? "win" : c.score < 0.5 ? "loss" : "even");
      return td;
    });
    tbody.appendChild(tr);
  });
  const body = $("tour-table").querySelector("tbody");
  body.textContent = "";
  standings.rungs.forEach((r) => {
    const tr = document.createElement("tr");
    cell(tr, r.name);
    cell(tr, (limits && limits[r.name]) || "");
    cell(tr, wdlText(r.field));
    cell(tr, r.field.games ? `${(100 * r.field.score).toFixed(0)}%` : "-");
    cell(tr, r.field.text);
    cell(tr, r.below ? `${r.below.rung}: ${wdlText(r.below)}  ${r.below.text}` : "-");
    const ref = r.below ? referenceFor(r.name, r.below.rung) : null;
    cell(tr, ref ? `${wdlText(ref)}  ${ref.text}` : "-");
    body.appendChild(tr);
  });
  drawTourChart(standings);
}

// Elo against the rung below, per rung, with the 95% interval; reference diamonds.
function drawTourChart(standings) {
  const chart = $("tour-chart");
  chart.textContent = "";
  const rows = standings.rungs.filter((r) => r.below);
  const top = 800;
  const y = (e) => 160 - (Math.max(-top, Math.min(top, e)) / top) * 140;
  svg("line", { x1: 60, y1: y(0), x2: 630, y2: y(0), class: "axis" }, chart);
  for (const e of [-800, -400, 400, 800]) {
    svg("line", { x1: 60, y1: y(e), x2: 630, y2: y(e), class: "grid" }, chart);
  }
  for (const e of [-800, -400, 0, 400, 800]) {
    svg("text", { x: 55, y: y(e) + 4, class: "tick", "text-anchor": "end" }, chart).textContent = (e > 0 ? "+" : "") + e;
  }
  if (!rows.length) return;
  const step = 570 / rows.length;
  rows.forEach((r, i) => {
    const cx = 60 + step * (i + 0.5);
    const b = r.below;
    const w = Math.min(40, step * 0.5);
    if (b.games) {
      if (b.elo === null) {
        // Only a bound (a pairing won or lost every time): the interval from the bound on, open
        // in the direction of the result, no bar.
        const up = b.score >= 1;
        const y1 = y(up ? b.low : b.high);
        const tip = up ? y(top) + 4 : y(-top) - 4;
        svg("line", { x1: cx - w / 2, y1, x2: cx + w / 2, y2: y1, class: "whisker open" }, chart);
        svg("line", { x1: cx, y1, x2: cx, y2: tip, class: "whisker open" }, chart);
        svg("path", { d: up ? `M${cx - 6},${tip + 8} L${cx},${tip} L${cx + 6},${tip + 8}` : `M${cx - 6},${tip - 8} L${cx},${tip} L${cx + 6},${tip - 8}`, class: "whisker open" }, chart);
      } else {
        const y0 = y(0);
        const y1 = y(b.elo);
        svg("rect", { x: cx - w / 2, y: Math.min(y0, y1), width: w, height: Math.max(1, Math.abs(y1 - y0)), class: "bar" }, chart);
      }
      if (b.elo !== null && b.low !== null && b.high !== null) {
        svg("line", { x1: cx, y1: y(b.low), x2: cx, y2: y(b.high), class: "whisker" }, chart);
        svg("line", { x1: cx - 6, y1: y(b.low), x2: cx + 6, y2: y(b.low), class: "whisker" }, chart);
        svg("line", { x1: cx - 6, y1: y(b.high), x2: cx + 6, y2: y(b.high), class: "whisker" }, chart);
      }
      svg("text", { x: cx, y: 12, class: "value", "text-anchor": "middle" }, chart).textContent = b.text.split(" (")[0];
    }
    const ref = referenceFor(r.name, b.rung);
    if (ref) {
      const rv = ref.elo !== null ? ref.elo : ref.score >= 1 ? ref.low : ref.high;
      const ry = y(rv);
      svg("path", { d: `M${cx + w / 2 + 8},${ry - 6} l6,6 l-6,6 l-6,-6 z`, class: "refmark" }, chart);
    }
    const label = svg("text", { x: cx, y: 312, class: "label", "text-anchor": "middle" }, chart);
    label.textContent = r.name.length > 10 ? r.name.slice(0, 9) + "\u2026" : r.name;
    svg("title", {}, label).textContent = `${r.name} against ${b.rung}`;
  });
}

function renderReference() {
  const r = tour.reference;
  if (!r) return;
  $("tour-ref-source").textContent = `${r.source}: ${r.settings}.`;
  const tbody = $("tour-reference").querySelector("tbody");
  tbody.textContent = "";
  for (const row of r.rows) {
    const tr = document.createElement("tr");
    cell(tr, row.rung);
    cell(tr, row.below);
    cell(tr, wdlText(row));
    cell(tr, row.text);
    tbody.appendChild(tr);
  }
}

function addTourGame(g) {
  const li = document.createElement("li");
  li.textContent = `${g.white} - ${g.black}  ${g.result}  (${g.reason}; ${g.opening}; ${g.plies} half-moves)`;
  const list = $("tour-games-list");
  list.insertBefore(li, list.firstChild);
  while (list.children.length > 12) list.removeChild(list.lastChild);
}

async function runTournament() {
  stopTournament();
  showError("");
  const body = tourRequest();
  saveState();
  tour.pgn = "";
  tour.result = null;
  $("tour-pgn").disabled = true;
  $("tour-json").disabled = true;
  $("tour-games-list").textContent = "";
  $("tour-status").textContent = "starting...";
  let limits = {};
  tour.started = performance.now();
  const events = jobEvents({
    start: (data) => {
      limits = Object.fromEntries(data.rungs.map((r) => [r.name, r.limit]));
      $("tour-status").textContent = `0 of ${data.games_total} games`;
      renderStandings({ rungs: data.rungs.map((r, i) => ({ name: r.name, field: { games: 0, text: "-" }, below: i ? { rung: data.rungs[i - 1].name, games: 0, text: "-" } : null })), crosstable: data.rungs.map((_, i) => data.rungs.map((__, j) => (i === j ? null : { games: 0 }))) }, limits);
    },
    game: (data) => {
      tour.pgn += data.pgn;
      addTourGame(data.game);
      renderStandings(data.standings, limits);
      $("tour-status").textContent = `${data.played} of ${data.games_total} games, ${data.games_per_second.toFixed(2)} games a second`;
      stats.tournamentGames = data.played;
    },
    done: (data) => {
      tour.result = data;
      renderStandings(data.standings, limits);
      $("tour-status").textContent =
        `${data.played} of ${data.games_total} games in ${(data.time_ms / 1000).toFixed(1)} s, ${data.games_per_second.toFixed(2)} games a second` +
        (data.stopped ? ` (stopped: ${data.stopped})` : "");
      stats.tournamentGamesPerSecond = data.games_per_second;
      $("tour-pgn").disabled = false;
      $("tour-json").disabled = false;
    },
  });
  await follow(tour, "/api/tournament", events, body);
}

function stopTournament() {
  if (tour.controller) {
    tour.controller.abort();
    $("tour-status").textContent += " (stopped)";
    if (tour.pgn) $("tour-pgn").disabled = false;
  }
  tour.controller = null;
}

function download(name, text, type) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}

async function initTournament() {
  const pick = $("tour-rungs-pick");
  for (const e of ENGINES) {
    const label = document.createElement("label");
    label.title = e.idea;
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = e.name;
    box.checked = e.name === "greedy" || e.name === "alphabeta";
    label.appendChild(box);
    label.appendChild(document.createTextNode(` ${e.name}`));
    pick.appendChild(label);
  }
  $("tour-run").onclick = runTournament;
  $("tour-stop").onclick = stopTournament;
  $("tour-openings").onchange = () => ($("tour-custom-row").hidden = $("tour-openings").value !== "custom");
  $("tour-pgn").onclick = () => download("rookery-lab-tournament.pgn", tour.pgn, "application/x-chess-pgn");
  $("tour-json").onclick = () => download("rookery-lab-tournament.json", JSON.stringify(tour.result, null, 2), "application/json");
  try {
    tour.reference = await api("/api/tournament/reference");
    renderReference();
  } catch (e) {
    showError(e.message);
  }
}

const tournamentState = {
  save: () => ({
    rungs: [...document.querySelectorAll("#tour-rungs-pick input:checked")].map((c) => c.value).join(","),
    games: $("tour-games").value,
    depth: $("tour-depth").value,
    nodes: $("tour-nodes").value,
    movetime: $("tour-movetime").value,
    plies: $("tour-plies").value,
    openings: $("tour-openings").value,
  }),
  load: (p) => {
    if (p.has("rungs")) {
      const want = p.get("rungs").split(",");
      for (const c of document.querySelectorAll("#tour-rungs-pick input")) c.checked = want.includes(c.value);
    }
    for (const k of ["games", "depth", "nodes", "movetime", "plies"]) if (p.has(k)) $(`tour-${k}`).value = p.get(k);
    if (p.has("openings")) $("tour-openings").value = p.get("openings");
    $("tour-openings").onchange();
  },
};
