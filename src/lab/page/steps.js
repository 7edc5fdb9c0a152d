// Rookery Lab: alpha-beta step by step. /api/steps walks a small tree (the textbook's tree of leaf
// values, which the user can edit, or a chess position a few plies deep) and answers with every
// event of alpha-beta's search and of minimax's; the page replays them one at a time, side by
// side: the current node, the window as it narrows, the values coming back, each cut-off and what
// it saves. The same tree searched in the three move orders is summed up below.
"use strict";

const steps = { data: null, at: 0, timer: null, lastKey: "" };

function stepsVal(v) {
  if (!steps.data) return String(v);
  return steps.data.kind === "chess" ? fmtScore(v) : String(v);
}

function stepsBound(v, low) {
  if (v === null || v === undefined) return low ? "\u2212\u221E" : "+\u221E";
  return stepsVal(v);
}

function stepsName(id) {
  const n = steps.data.nodes[id];
  return n.parent === null ? "the root" : n.label;
}

function stepsRequest() {
  const body = { order: $("steps-order").value };
  if ($("steps-source").value === "abstract") {
    let tree;
    try {
      tree = JSON.parse($("steps-tree").value);
    } catch (e) {
      throw new Error("the tree must be nested lists of numbers, e.g. [[3, 12, 8], [2, 4, 6]]");
    }
    body.tree = tree;
  } else {
    body.fen = $("steps-fen").value.trim() || null;
    body.depth = parseInt($("steps-depth").value, 10) || 2;
    body.width = parseInt($("steps-width").value, 10) || 3;
  }
  return body;
}

async function buildSteps(at) {
  stopStepsPlay();
  showError("");
  try {
    const data = await api("/api/steps", stepsRequest());
    steps.data = data;
    steps.at = Math.min(at || 0, data.alphabeta.length);
    const tbody = $("steps-orders").querySelector("tbody");
    tbody.textContent = "";
    const names = { given: "as given", "best-first": "best move first", "best-last": "best move last" };
    for (const o of data.orders) {
      const tr = document.createElement("tr");
      if (o.order === data.order) tr.className = "current";
      for (const cell of [names[o.order], o.alphabeta, o.cutoffs, o.minimax]) {
        const td = document.createElement("td");
        td.textContent = cell;
        tr.appendChild(td);
      }
      tbody.appendChild(tr);
    }
    renderSteps();
    saveState();
  } catch (e) {
    showError(e.message);
  }
}

// The state of one walk after its first `k` events.
function replaySteps(events, k) {
  const st = { visited: new Set(), done: new Map(), best: new Map(), window: new Map(), stack: [], skipped: new Set(), cuts: [], last: null };
  const skip = (id) => {
    st.skipped.add(id);
    for (const c of steps.data.nodes[id].children) skip(c);
  };
  for (let i = 0; i < Math.min(k, events.length); i++) {
    const e = events[i];
    st.last = e;
    switch (e.kind) {
      case "enter":
        st.visited.add(e.node);
        st.stack.push(e.node);
        st.window.set(e.node, [e.alpha, e.beta]);
        break;
      case "leaf":
        st.done.set(e.node, e.value);
        break;
      case "back":
        st.best.set(e.node, e.best);
        st.window.set(e.node, [e.alpha, e.beta]);
        break;
      case "cut":
        st.cuts.push(e);
        for (const s of e.skipped) skip(s);
        break;
      case "leave":
        st.done.set(e.node, e.value);
        st.stack.pop();
        break;
    }
  }
  return st;
}

function stepsLayout(data) {
  const pos = [];
  let leaf = 0;
  const place = (id) => {
    const n = data.nodes[id];
    if (!n.children.length) {
      pos[id] = { x: leaf * 56 + 30, y: n.ply * 84 + 34 };
      leaf += 1;
      return pos[id].x;
    }
    const xs = n.children.map(place);
    pos[id] = { x: (xs[0] + xs[xs.length - 1]) / 2, y: n.ply * 84 + 34 };
    return pos[id].x;
  };
  place(0);
  const depth = Math.max(...data.nodes.map((n) => n.ply));
  return { pos, width: leaf * 56 + 20, height: depth * 84 + 80 };
}

function drawStepsTree(el, st, withWindow) {
  const data = steps.data;
  const { pos, width, height } = stepsLayout(data);
  el.textContent = "";
  el.setAttribute("viewBox", `0 0 ${width} ${height}`);
  el.style.width = `${Math.max(width, 300)}px`;
  el.style.maxWidth = width > 700 ? "none" : "100%";
  const current = st.stack.length ? st.stack[st.stack.length - 1] : null;
  for (const n of data.nodes) {
    if (n.parent === null) continue;
    const a = pos[n.parent];
    const b = pos[n.id];
    let cls = "sedge";
    if (st.skipped.has(n.id)) cls += " skipped";
    else if (st.visited.has(n.id)) cls += " visited";
    svg("line", { x1: a.x, y1: a.y + 12, x2: b.x, y2: b.y - 12, class: cls }, el);
  }
  for (const n of data.nodes) {
    const p = pos[n.id];
    let cls = "snode";
    if (st.skipped.has(n.id)) cls += " skipped";
    else if (st.done.has(n.id)) cls += " done";
    else if (st.visited.has(n.id)) cls += " visited";
    if (n.id === current) cls += " current";
    if (st.stack.includes(n.id) && n.id !== current) cls += " onpath";
    const g = svg("g", { class: cls, "data-id": n.id, transform: `translate(${p.x},${p.y})` }, el);
    if (!n.children.length) {
      svg("rect", { x: -14, y: -12, width: 28, height: 24, rx: 3 }, g);
    } else if (n.max) {
      svg("polygon", { points: "0,-15 16,12 -16,12" }, g);
    } else {
      svg("polygon", { points: "0,15 16,-12 -16,-12" }, g);
    }
    // The value: a leaf's always (grey until it is looked at); an inner node's once known, or its
    // best so far as a bound while it is searched.
    let text = "";
    if (st.done.has(n.id)) text = stepsVal(st.done.get(n.id));
    else if (n.leaf !== null && n.leaf !== undefined) text = stepsVal(n.leaf);
    else if (st.best.has(n.id)) text = (n.max ? "\u2265" : "\u2264") + stepsVal(st.best.get(n.id));
    const t = svg("text", { y: n.children.length ? (n.max ? 8 : -2) : 5, class: "sval" }, g);
    t.textContent = text;
    // Leaves are labelled below, inner nodes to their left (clear of the edges).
    const label = n.children.length && n.parent !== null
      ? svg("text", { x: -19, y: n.max ? 9 : -1, class: "slabel", "text-anchor": "end" }, g)
      : svg("text", { x: 0, y: n.children.length ? -20 : 26, class: "slabel", "text-anchor": "middle" }, g);
    label.textContent = n.parent === null ? (data.kind === "chess" ? "root" : "Max") : n.label;
    if (withWindow && st.stack.includes(n.id) && n.children.length) {
      const w = st.window.get(n.id);
      const wt = svg("text", { x: 20, y: -4, class: "swindow" }, g);
      wt.textContent = `[${stepsBound(w[0], true)}, ${stepsBound(w[1], false)}]`;
    }
    svg("title", {}, g).textContent = `${n.parent === null ? "root" : n.label}: ${n.max ? "Max" : "Min"} chooses here; minimax value ${stepsVal(n.value)}`;
  }
}

function stepsSay(e, st) {
  if (!e) return "Press Step (or \u2192) to start the search at the root.";
  const side = (id) => (steps.data.nodes[id].max ? "Max" : "Min");
  switch (e.kind) {
    case "enter":
      return e.alpha === null && e.beta === null && steps.data.nodes[e.node].parent !== null
        ? `Alpha-beta enters ${stepsName(e.node)} (${side(e.node)} to choose) with the full window: nothing is sure yet.`
        : `Alpha-beta enters ${stepsName(e.node)} (${side(e.node)} to choose) with the window [${stepsBound(e.alpha, true)}, ${stepsBound(e.beta, false)}].`;
    case "leaf":
      return `${stepsName(e.node)} is a leaf: its value is ${stepsVal(e.value)}.`;
    case "back": {
      const n = steps.data.nodes[e.node];
      const moved = n.max ? `\u03B1 = ${stepsBound(e.alpha, true)}` : `\u03B2 = ${stepsBound(e.beta, false)}`;
      return `${stepsName(e.child)} gives ${stepsName(e.node)} ${stepsVal(e.value)}; its best so far is ${stepsVal(e.best)}, so ${moved}.`;
    }
    case "cut": {
      const n = steps.data.nodes[e.node];
      const why = n.max
        ? `Max already has ${stepsBound(e.alpha, true)} here, at least the ${stepsBound(e.beta, false)} Min is sure of elsewhere`
        : `Min already holds Max to ${stepsBound(e.beta, false)} here, at most the ${stepsBound(e.alpha, true)} Max is sure of elsewhere`;
      return `Cut-off at ${stepsName(e.node)}: \u03B1 ${stepsBound(e.alpha, true)} \u2265 \u03B2 ${stepsBound(e.beta, false)}. ${why}, so the side above never lets the game come here. ` +
        `${e.skipped.length} ${e.skipped.length === 1 ? "move is" : "moves are"} skipped (${e.skipped.map(stepsName).join(", ")}): ${e.saved} ${e.saved === 1 ? "position" : "positions"} never visited.`;
    }
    case "leave":
      return `${stepsName(e.node)} is done: ${stepsVal(e.value)}.` + (e.node === 0 ? " The search is over." : "");
    default:
      return "";
  }
}

function renderSteps() {
  const data = steps.data;
  if (!data) return;
  const k = steps.at;
  const ab = replaySteps(data.alphabeta, k);
  const mm = replaySteps(data.minimax, k);
  drawStepsTree($("steps-svg-ab"), ab, true);
  drawStepsTree($("steps-svg-mm"), mm, false);
  $("steps-count-ab").textContent = `${ab.visited.size} of ${data.nodes.length} positions` + (k >= data.alphabeta.length ? ", done" : "");
  $("steps-count-mm").textContent = `${mm.visited.size} of ${data.nodes.length} positions` + (k >= data.minimax.length ? ", done" : "");
  const e = ab.last;
  const total = Math.max(data.alphabeta.length, data.minimax.length);
  let status = `Step ${k} of ${total}`;
  if (e && e.kind === "cut") status += `: cut-off at ${stepsName(e.node)}`;
  else if (k >= data.alphabeta.length) status += `: alpha-beta is done (value ${stepsVal(data.value)}, ${data.visited.alphabeta} of ${data.visited.minimax} positions)`;
  $("steps-status").textContent = status;
  const current = ab.stack.length ? ab.stack[ab.stack.length - 1] : e && e.kind === "leave" ? e.node : null;
  if (current !== null && ab.window.has(current)) {
    const w = e && e.kind === "cut" ? [e.alpha, e.beta] : ab.window.get(current);
    $("steps-window").textContent = `at ${stepsName(current)}: \u03B1 = ${stepsBound(w[0], true)}, \u03B2 = ${stepsBound(w[1], false)}` +
      (ab.cuts.length ? `; ${ab.cuts.length} cut-off${ab.cuts.length === 1 ? "" : "s"} so far, ${ab.cuts.reduce((s, c) => s + c.saved, 0)} positions saved` : "");
  } else {
    $("steps-window").textContent = `units: ${data.units}`;
  }
  $("steps-say").textContent = stepsSay(e, ab);
}

function stepSteps(delta) {
  if (!steps.data) return false;
  const total = Math.max(steps.data.alphabeta.length, steps.data.minimax.length);
  const next = Math.max(0, Math.min(total, steps.at + delta));
  if (next === steps.at) return false;
  steps.at = next;
  renderSteps();
  saveState();
  return true;
}

function stopStepsPlay() {
  if (steps.timer) clearInterval(steps.timer);
  steps.timer = null;
  $("steps-play").textContent = "Play";
}

function playSteps() {
  if (steps.timer) return stopStepsPlay();
  $("steps-play").textContent = "Pause";
  steps.timer = setInterval(() => {
    if (!stepSteps(1)) stopStepsPlay();
  }, parseInt($("steps-speed").value, 10) || 450);
}

function toNextCut() {
  if (!steps.data) return;
  stopStepsPlay();
  const events = steps.data.alphabeta;
  for (let i = steps.at; i < events.length; i++) {
    if (events[i].kind === "cut") {
      steps.at = i + 1;
      renderSteps();
      saveState();
      return;
    }
  }
  steps.at = events.length;
  renderSteps();
}

function showStepsSource() {
  const chess = $("steps-source").value === "chess";
  $("steps-chess-row").hidden = !chess;
  $("steps-abstract-row").hidden = chess;
}

function initSteps() {
  $("steps-source").onchange = () => {
    showStepsSource();
    buildSteps(0);
  };
  $("steps-order").onchange = () => buildSteps(0);
  $("steps-build").onclick = () => buildSteps(0);
  $("steps-step").onclick = () => stepSteps(1);
  $("steps-back").onclick = () => stepSteps(-1);
  $("steps-reset").onclick = () => {
    stopStepsPlay();
    steps.at = 0;
    renderSteps();
    saveState();
  };
  $("steps-play").onclick = playSteps;
  $("steps-to-cut").onclick = toNextCut;
  showStepsSource();
}

const stepsState = {
  save: () => {
    const p = { source: $("steps-source").value, order: $("steps-order").value, step: String(steps.at) };
    if (p.source === "abstract") p.tree = $("steps-tree").value;
    else Object.assign(p, { fen: $("steps-fen").value.trim(), depth: $("steps-depth").value, width: $("steps-width").value });
    return p;
  },
  load: (p) => {
    if (p.has("source")) $("steps-source").value = p.get("source");
    if (p.has("tree")) $("steps-tree").value = p.get("tree");
    if (p.has("fen")) $("steps-fen").value = p.get("fen");
    if (p.has("depth")) $("steps-depth").value = p.get("depth");
    if (p.has("width")) $("steps-width").value = p.get("width");
    if (p.has("order")) $("steps-order").value = p.get("order");
    showStepsSource();
    return buildSteps(parseInt(p.get("step"), 10) || 0);
  },
  show: () => {
    if (!steps.data) buildSteps(0);
  },
  key: (e) => {
    if (e.key === "ArrowRight") return stepSteps(1) || true;
    if (e.key === "ArrowLeft") return stepSteps(-1) || true;
    if (e.key === " ") {
      playSteps();
      return true;
    }
    if (e.key === "Home") {
      steps.at = 0;
      renderSteps();
      return true;
    }
    return false;
  },
};
