// Rookery Lab: the search tree, drawn. Each pane is an SVG of one recorded tree, laid out left to
// right (the root at the left, one column per ply, one row per visible leaf); nodes open and close
// on click, their children fetched from /api/tree, so minimax's 70,119-node tree stays explorable.
// Values at the nodes (White's view), the alpha-beta window on hover, moves a cut-off skipped
// dashed and grey with the reason, the principal variation in blue. Zoom with the wheel or the
// buttons, pan by dragging.
"use strict";

const TREE_COL = 175;
// Room for a node's label ("exd5 +0.35 \u25B848") before its edges start.
const TREE_LABEL = 118;
const TREE_ROW = 22;
// Opening everything is refused above this many drawn nodes (the page would crawl).
const TREE_MAX_DRAWN = 25000;

const treeView = { panes: [], selected: null };

function makeTreePane(index, engine, summary) {
  const pane = {
    index,
    engine,
    summary,
    nodes: new Map(),
    transform: { x: 20, y: 20, k: 1 },
    el: null,
    svg: null,
    g: null,
    hover: null,
    selected: null,
  };
  return pane;
}

function treeNodeFrom(data, parent) {
  return {
    id: data.id,
    san: data.san,
    value: data.value,
    alpha: data.alpha,
    beta: data.beta,
    pruned: data.pruned,
    count: data.children,
    ply: data.ply,
    parent,
    kids: null,
    open: false,
    pv: false,
  };
}

async function fetchTreeChildren(pane, node) {
  if (node.kids) return;
  const data = await api("/api/tree", treeRequest(pane.engine, node.id));
  node.kids = data.children.map((c) => {
    const n = treeNodeFrom(c, node.id);
    pane.nodes.set(n.id, n);
    return n.id;
  });
  markTreePv(pane);
}

// The principal variation: from the root, the first searched child whose value is its parent's.
function markTreePv(pane) {
  for (const n of pane.nodes.values()) n.pv = false;
  let n = pane.nodes.get(0);
  while (n) {
    n.pv = true;
    if (!n.kids) break;
    const next = n.kids.map((id) => pane.nodes.get(id)).find((c) => !c.pruned && c.value === n.value);
    n = next;
  }
}

function treeLabel(n) {
  if (n.pruned) return `${n.san} \u2702`;
  return `${n.san} ${fmtScore(n.value)}`;
}

function treeWindowText(n) {
  if (n.pruned) return `${n.san}: never searched. ${n.pruned}`;
  const w = n.alpha === null || n.alpha === undefined ? "no window (minimax looks at everything)" : `window [${fmtBound(n.alpha)}, ${fmtBound(n.beta)}]`;
  const kids = n.count ? `${n.count} children` : "a leaf";
  return `${n.san}: value ${fmtScore(n.value)}, ${w}, ${kids}`;
}

// Positions of the visible nodes: x by ply, y by the rows of the leaves below; a parent sits on
// the row of its first child, so the first line searched (often the principal variation) reads
// across the top from the root.
function layoutTree(pane) {
  const pos = new Map();
  let row = 0;
  const place = (n) => {
    if (n.open && n.kids && n.kids.length) {
      const ys = n.kids.map((id) => place(pane.nodes.get(id)));
      const y = ys[0];
      pos.set(n.id, { x: n.ply * TREE_COL, y });
      return y;
    }
    const y = row * TREE_ROW;
    row += 1;
    pos.set(n.id, { x: n.ply * TREE_COL, y });
    return y;
  };
  place(pane.nodes.get(0));
  pane.rows = row;
  return pos;
}

function applyTreeTransform(pane) {
  const t = pane.transform;
  pane.g.setAttribute("transform", `translate(${t.x},${t.y}) scale(${t.k})`);
}

function renderTree(pane, keep) {
  const before = keep && pane.layout ? pane.layout.get(keep) : null;
  const layout = layoutTree(pane);
  pane.layout = layout;
  if (before) {
    // Keep the clicked node where it was on the screen.
    const after = layout.get(keep);
    pane.transform.y += (before.y - after.y) * pane.transform.k;
  }
  const g = pane.g;
  g.textContent = "";
  const edges = svg("g", { class: "tedges" }, g);
  const nodes = svg("g", { class: "tnodes" }, g);
  for (const [id, p] of layout) {
    const n = pane.nodes.get(id);
    if (n.parent !== null && n.parent !== undefined) {
      const q = layout.get(n.parent);
      if (q) {
        // From the end of the parent's label, fanning out to the child.
        const from = q.x + TREE_LABEL;
        const mid = (from + p.x) / 2;
        let cls = "tedge";
        if (n.pruned) cls += " pruned";
        if (n.pv) cls += " pv";
        svg("path", { d: `M${from},${q.y} C${mid},${q.y} ${mid},${p.y} ${p.x - 7},${p.y}`, class: cls }, edges);
      }
    }
    let cls = "tnode";
    if (n.pruned) cls += " pruned";
    if (n.pv) cls += " pv";
    if (n.count) cls += n.open ? " open" : " closed";
    if (pane.selected === id) cls += " selected";
    const node = svg("g", { class: cls, transform: `translate(${p.x},${p.y})`, "data-id": id }, nodes);
    // White to move at even plies: the node's marker is the colour of the side that chooses there.
    svg("circle", { r: n.count ? 6 : 4, class: n.ply % 2 === 0 ? "side-white" : "side-black" }, node);
    const t = svg("text", { x: 9, y: 4 }, node);
    t.textContent = treeLabel(n) + (n.count && !n.open ? ` \u25B8${n.count}` : "");
    svg("title", {}, node).textContent = treeWindowText(n);
  }
  applyTreeTransform(pane);
}

function treeSetHover(pane, n) {
  const el = $(`tree-hover-${pane.index}`);
  if (el) el.textContent = n ? treeWindowText(n) : "";
}

async function toggleTreeNode(pane, id) {
  const n = pane.nodes.get(id);
  if (!n || !n.count) return;
  try {
    if (!n.open) await fetchTreeChildren(pane, n);
    n.open = !n.open;
    renderTree(pane, id);
  } catch (e) {
    showError(e.message);
  }
}

async function openTreePath(pane) {
  // The root and the principal variation, opened.
  let n = pane.nodes.get(0);
  while (n && n.count) {
    await fetchTreeChildren(pane, n);
    n.open = true;
    n = n.kids.map((id) => pane.nodes.get(id)).find((c) => !c.pruned && c.value === n.value && c.count);
  }
  markTreePv(pane);
}

async function openWholeTree(pane) {
  const total = pane.summary.positions + pane.summary.pruned;
  if (total > TREE_MAX_DRAWN) {
    showError(`${num(total)} nodes are too many to draw at once (at most ${num(TREE_MAX_DRAWN)}): open subtrees by clicking, or lower the depth`);
    return;
  }
  const status = $(`tree-status-${pane.index}`);
  status.textContent = "opening every node...";
  const started = performance.now();
  let queue = [...pane.nodes.values()].filter((n) => n.count);
  const workers = 4;
  while (queue.length) {
    const batch = queue.splice(0, workers);
    await Promise.all(batch.map((n) => fetchTreeChildren(pane, n)));
    for (const n of batch) {
      n.open = true;
      for (const id of n.kids) {
        const c = pane.nodes.get(id);
        if (c.count) queue.push(c);
      }
    }
  }
  markTreePv(pane);
  renderTree(pane);
  fitTreeWidth(pane);
  status.textContent = `${num(pane.el.querySelectorAll(".tnode:not(.pruned)").length)} positions drawn`;
  stats.openAllMs = performance.now() - started;
}

function closeWholeTree(pane) {
  for (const n of pane.nodes.values()) n.open = n.id === 0;
  renderTree(pane);
  fitTreeWidth(pane);
}

function fitTree(pane) {
  const box = pane.svg.getBoundingClientRect();
  const width = (Math.max(...[...pane.layout.values()].map((p) => p.x)) + TREE_COL) || 1;
  const height = pane.rows * TREE_ROW + 20;
  const k = Math.max(0.02, Math.min(1.5, (box.width - 30) / width, (box.height - 30) / height));
  pane.transform = { x: 15, y: 15 + (TREE_ROW / 2) * k, k };
  applyTreeTransform(pane);
}

// Readable at first: the drawing's width fits the pane (no larger than life), the root at the top.
function fitTreeWidth(pane) {
  const box = pane.svg.getBoundingClientRect();
  const width = (Math.max(...[...pane.layout.values()].map((p) => p.x)) + TREE_COL) || 1;
  const k = Math.max(0.5, Math.min(1, (box.width - 30) / width));
  const root = pane.layout.get(0);
  pane.transform = { x: 15, y: 20 - root.y * k, k };
  applyTreeTransform(pane);
}

function zoomTree(pane, factor, cx, cy) {
  const t = pane.transform;
  const k = Math.max(0.02, Math.min(4, t.k * factor));
  const f = k / t.k;
  t.x = cx - (cx - t.x) * f;
  t.y = cy - (cy - t.y) * f;
  t.k = k;
  applyTreeTransform(pane);
}

function bindTreePane(pane) {
  const root = pane.svg;
  let drag = null;
  root.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = root.getBoundingClientRect();
    zoomTree(pane, e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  root.addEventListener("pointerdown", (e) => {
    const node = e.target.closest ? e.target.closest(".tnode") : null;
    if (node) return;
    drag = { x: e.clientX, y: e.clientY, tx: pane.transform.x, ty: pane.transform.y };
    root.setPointerCapture(e.pointerId);
  });
  root.addEventListener("pointermove", (e) => {
    if (!drag) return;
    pane.transform.x = drag.tx + e.clientX - drag.x;
    pane.transform.y = drag.ty + e.clientY - drag.y;
    applyTreeTransform(pane);
  });
  root.addEventListener("pointerup", () => (drag = null));
  root.addEventListener("click", (e) => {
    const node = e.target.closest ? e.target.closest(".tnode") : null;
    if (!node) return;
    const id = Number(node.dataset.id);
    selectTreeNode(pane, id);
    toggleTreeNode(pane, id);
  });
  root.addEventListener("mouseover", (e) => {
    const node = e.target.closest ? e.target.closest(".tnode") : null;
    if (node) treeSetHover(pane, pane.nodes.get(Number(node.dataset.id)));
  });
}

function selectTreeNode(pane, id) {
  treeView.selected = { pane: pane.index, id };
  for (const p of treeView.panes) p.selected = p === pane ? id : null;
  for (const p of treeView.panes) {
    for (const el of p.el.querySelectorAll(".tnode.selected")) el.classList.remove("selected");
  }
  const el = pane.el.querySelector(`.tnode[data-id="${id}"]`);
  if (el) el.classList.add("selected");
  treeSetHover(pane, pane.nodes.get(id));
}

// Keys: up and down move between siblings, left to the parent, right to the first child
// (opening the node), Enter opens or closes.
function treeKey(e) {
  if (!treeView.selected) {
    if (treeView.panes.length && ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"].includes(e.key)) {
      selectTreeNode(treeView.panes[0], 0);
      return true;
    }
    return false;
  }
  const pane = treeView.panes[treeView.selected.pane];
  const n = pane && pane.nodes.get(treeView.selected.id);
  if (!n) return false;
  const siblings = n.parent === null || n.parent === undefined ? [n.id] : pane.nodes.get(n.parent).kids;
  const at = siblings.indexOf(n.id);
  switch (e.key) {
    case "ArrowUp":
      if (at > 0) selectTreeNode(pane, siblings[at - 1]);
      return true;
    case "ArrowDown":
      if (at < siblings.length - 1) selectTreeNode(pane, siblings[at + 1]);
      return true;
    case "ArrowLeft":
      if (n.parent !== null && n.parent !== undefined) selectTreeNode(pane, n.parent);
      return true;
    case "ArrowRight":
      if (n.count) {
        (async () => {
          if (!n.open) await toggleTreeNode(pane, n.id);
          selectTreeNode(pane, n.kids[0]);
        })();
      }
      return true;
    case "Enter":
      toggleTreeNode(pane, n.id).then(() => selectTreeNode(pane, n.id));
      return true;
    default:
      return false;
  }
}

function treeRequest(engine, node) {
  const body = { fen: $("tree-fen").value.trim() || null, engine, depth: parseInt($("tree-depth").value, 10) || 1 };
  if (node !== undefined) body.node = node;
  return body;
}

async function showTreePane(engine, index) {
  const el = document.createElement("div");
  el.className = "pane tree-pane";
  el.id = `tree-pane-${index}`;
  $("tree-panes").appendChild(el);
  el.textContent = `${engine}: searching...`;
  const data = await api("/api/tree", treeRequest(engine));
  el.textContent = "";
  const pane = makeTreePane(index, engine, data);
  pane.el = el;
  treeView.panes[index] = pane;
  const head = document.createElement("h3");
  head.id = `tree-summary-${index}`;
  head.textContent = `${data.engine}, depth ${data.depth}: ${num(data.positions)} positions, ${num(data.pruned)} moves pruned`;
  el.appendChild(head);
  const perDepth = document.createElement("p");
  perDepth.className = "hint";
  perDepth.textContent = `positions per depth: ${data.per_depth.map(num).join(", ")}; value ${fmtScore(data.score)}`;
  el.appendChild(perDepth);
  const tools = document.createElement("div");
  tools.className = "row";
  const button = (label, title, onclick, id) => {
    const b = document.createElement("button");
    b.textContent = label;
    b.title = title;
    if (id) b.id = id;
    b.onclick = onclick;
    tools.appendChild(b);
  };
  button("+", "zoom in", () => zoomTree(pane, 1.4, pane.svg.clientWidth / 2, pane.svg.clientHeight / 2));
  button("\u2212", "zoom out", () => zoomTree(pane, 1 / 1.4, pane.svg.clientWidth / 2, pane.svg.clientHeight / 2));
  button("Fit", "the whole drawing in view", () => fitTree(pane));
  button("Open all", "open every node (small trees only)", () => openWholeTree(pane).catch((e) => showError(e.message)), `tree-open-all-${index}`);
  button("Close all", "back to the root's children", () => closeWholeTree(pane));
  const status = document.createElement("span");
  status.className = "hint";
  status.id = `tree-status-${index}`;
  tools.appendChild(status);
  el.appendChild(tools);
  const hover = document.createElement("p");
  hover.className = "info tree-hover";
  hover.id = `tree-hover-${index}`;
  hover.textContent = "hover over a node for its window";
  el.appendChild(hover);
  pane.svg = svg("svg", { class: "tree-svg" }, el);
  pane.g = svg("g", {}, pane.svg);
  bindTreePane(pane);
  pane.nodes.set(0, treeNodeFrom(data.node, null));
  await openTreePath(pane);
  renderTree(pane);
  fitTreeWidth(pane);
  return data;
}

async function showTree() {
  showError("");
  $("tree-panes").textContent = "";
  $("tree-ratio").textContent = "";
  treeView.panes = [];
  treeView.selected = null;
  const engine = $("tree-engine").value;
  const other = engine === "minimax" ? "alphabeta" : "minimax";
  saveState();
  try {
    const first = await showTreePane(engine, 0);
    if ($("tree-compare").checked) {
      const second = await showTreePane(other, 1);
      const [ab, mm] = engine === "minimax" ? [second, first] : [first, second];
      $("tree-ratio").textContent =
        `${ab.engine} visited ${((100 * ab.positions) / mm.positions).toFixed(1)}% of the positions minimax visited ` +
        `(${num(ab.positions)} of ${num(mm.positions)}), for the same value ${fmtScore(ab.score)}.`;
    }
    stats.treeShown = (stats.treeShown || 0) + 1;
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

const treeState = {
  save: () => ({ fen: $("tree-fen").value.trim(), engine: $("tree-engine").value, depth: $("tree-depth").value, compare: $("tree-compare").checked ? "1" : "0" }),
  load: (p) => {
    if (p.has("fen")) $("tree-fen").value = p.get("fen");
    if (p.has("engine")) $("tree-engine").value = p.get("engine");
    if (p.has("depth")) $("tree-depth").value = p.get("depth");
    if (p.has("compare")) $("tree-compare").checked = p.get("compare") !== "0";
    $("tree-engine").onchange();
    if (p.has("fen") || p.has("depth")) showTree();
  },
  key: treeKey,
};
