// Rookery Lab: train a small net and watch it learn. The server trains on the first positions of
// one of its data sets (POST /api/train, server-sent events: `start` with the split, the untrained
// net's loss and the hand-crafted evaluation's piece values; `progress` about twice a second;
// `epoch` with the losses and the net's piece values after each; `done` with the name the net is
// kept under). The page draws the loss as it falls, a table of the epochs, and, for any epoch
// chosen on a slider, what the net thinks a piece is worth on each square beside what the
// hand-crafted evaluation thinks. A kept net plays in Play and Watch and in the tournament.
"use strict";

const PIECE_NAMES = { P: "pawn", N: "knight", B: "bishop", R: "rook", Q: "queen" };

const train = {
  controller: null,
  running: false,
  sets: [],
  defaults: null,
  bounds: null,
  // The run shown: its start event, each epoch's event, the running loss and the end.
  start: null,
  epochs: [],
  runningLoss: [],
  progress: null,
  done: null,
  // The epoch the heatmap shows (1-based), or 0 to follow the newest.
  shown: 0,
};

function trainRequest() {
  const n = (id) => Number($(id).value);
  const body = { set: $("train-set").value };
  for (const [key, id] of [["positions", "train-positions"], ["hidden", "train-hidden"], ["epochs", "train-epochs"], ["threads", "train-threads"], ["seconds", "train-seconds"]]) {
    if ($(id).value.trim() !== "") body[key] = Math.round(n(id));
  }
  if ($("train-lr").value.trim() !== "") body.lr = n("train-lr");
  if ($("train-layers").value !== "") {
    const [l1, l2, paired] = $("train-layers").value.split(",");
    body.layers = [Number(l1), Number(l2)];
    if (paired === "paired") body.paired = true;
  }
  if ($("train-buckets").value !== "1") body.buckets = Number($("train-buckets").value);
  if ($("train-inputs").value !== "plain") body.inputs = $("train-inputs").value;
  return body;
}

const fmtLoss = (x) => (x === null || x === undefined ? "-" : Number(x).toFixed(5));

// ---------------------------------------------------------------- the loss chart

// The loss over the epochs: the validation loss (the untrained net's at 0), the training loss
// of each epoch, and the running mean of the epoch under way, drawn by hand in the SVG.
function drawTrainChart() {
  const chart = $("train-chart");
  chart.textContent = "";
  const s = train.start;
  const [x0, x1, yTop, yBottom] = [70, 620, 20, 260];
  const planned = s ? s.epochs : Number($("train-epochs").value) || 5;
  const last = Math.max(planned, train.epochs.length, 1);
  const validation = s ? [[0, s.initial_loss], ...train.epochs.map((e) => [e.epoch, e.validation_loss])] : [];
  const training = train.epochs.map((e) => [e.epoch, e.train_loss]);
  const running = train.runningLoss;
  const values = [...validation, ...training, ...running].map((p) => p[1]).filter((v) => Number.isFinite(v));
  let lo = values.length ? Math.min(...values) : 0;
  let hi = values.length ? Math.max(...values) : 0.1;
  if (hi - lo < 1e-6) {
    lo -= 0.005;
    hi += 0.005;
  }
  const pad = (hi - lo) * 0.08;
  lo = Math.max(0, lo - pad);
  hi += pad;
  const x = (epoch) => x0 + (epoch / last) * (x1 - x0);
  const y = (v) => yBottom - ((v - lo) / (hi - lo)) * (yBottom - yTop);
  // The grid: five loss levels, a tick at each epoch (every fifth on a long run).
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    svg("line", { x1: x0, y1: y(v), x2: x1, y2: y(v), class: "grid" }, chart);
    svg("text", { x: x0 - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, chart).textContent = v.toFixed(4);
  }
  const every = last > 20 ? 5 : 1;
  for (let e = 0; e <= last; e += every) {
    svg("line", { x1: x(e), y1: yBottom, x2: x(e), y2: yBottom + 5, class: "axis" }, chart);
    svg("text", { x: x(e), y: yBottom + 18, class: "tick", "text-anchor": "middle" }, chart).textContent = String(e);
  }
  svg("line", { x1: x0, y1: yBottom, x2: x1, y2: yBottom, class: "axis" }, chart);
  svg("line", { x1: x0, y1: yTop, x2: x0, y2: yBottom, class: "axis" }, chart);
  svg("text", { x: (x0 + x1) / 2, y: yBottom + 34, class: "label", "text-anchor": "middle" }, chart).textContent = "epoch";
  const line = (points, cls) => {
    if (points.length > 1) svg("polyline", { points: points.map(([e, v]) => `${x(e).toFixed(1)},${y(v).toFixed(1)}`).join(" "), class: cls }, chart);
  };
  const dots = (points, cls, what) => {
    for (const [e, v] of points) {
      const c = svg("circle", { cx: x(e), cy: y(v), r: 4, class: cls }, chart);
      svg("title", {}, c).textContent = `${what}, epoch ${e}: ${fmtLoss(v)}`;
    }
  };
  line(running, "loss-running");
  line(training, "loss-train");
  line(validation, "loss-validation");
  dots(training, "loss-train", "training loss");
  dots(validation, "loss-validation", "validation loss");
  // The legend.
  const legend = [
    ["loss-validation", "validation loss (positions kept apart)"],
    ["loss-train", "training loss (mean over the epoch)"],
    ["loss-running", "running mean of the epoch under way"],
  ];
  legend.forEach(([cls, label], i) => {
    const ly = yTop + 4 + i * 16;
    svg("line", { x1: x1 - 250, y1: ly, x2: x1 - 228, y2: ly, class: cls }, chart);
    svg("text", { x: x1 - 222, y: ly + 4, class: "tick" }, chart).textContent = label;
  });
}

// ---------------------------------------------------------------- the piece-value boards

// An 8 x 8 board of one piece's values by square (`values`: {square: centipawns}), coloured as the
// Evaluation view colours its heatmap, the number on each square; the context position's pieces
// where they stand.
function drawValueBoard(el, values, opts) {
  el.textContent = "";
  const pieces = {};
  const rows = (train.start ? train.start.context : "6k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1").split(" ")[0].split("/");
  rows.forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) file += parseInt(ch, 10);
      else pieces["abcdefgh"[file++] + (8 - i)] = ch;
    }
  });
  for (let rank = 0; rank < 8; rank++) {
    for (let file = 0; file < 8; file++) {
      const sq = "abcdefgh"[file] + (rank + 1);
      const x = file * 100;
      const y = (7 - rank) * 100;
      svg("rect", { x, y, width: 100, height: 100, class: `vsq ${(file + rank) % 2 ? "light" : "dark"}` }, el);
      const v = values ? values[sq] : undefined;
      if (v !== undefined && v !== null) {
        const shade = opts.relative ? v - opts.mean : v;
        const r = svg("rect", { x, y, width: 100, height: 100, class: `heat ${shade >= 0 ? "pos" : "neg"}`, "fill-opacity": heatOpacity(shade, opts.scale).toFixed(3), "data-value-square": sq }, el);
        svg("title", {}, r).textContent = `a White ${opts.piece} on ${sq}: ${v > 0 ? "+" : ""}${v} cp (${opts.what})`;
        const t = svg("text", { x: x + 50, y: y + 52, class: "value-num", "data-square": sq }, el);
        t.textContent = String(v);
      }
      if (pieces[sq]) {
        const white = pieces[sq] === pieces[sq].toUpperCase();
        svg("text", { x: x + 50, y: y + 52, class: `piece ${white ? "white" : "black"}` }, el).textContent = GLYPHS[pieces[sq].toLowerCase()];
      }
    }
  }
  for (let i = 0; i < 8; i++) {
    svg("text", { x: i * 100 + 92, y: 793, class: "coord" }, el).textContent = "abcdefgh"[i];
    svg("text", { x: 4, y: i * 100 + 18, class: "coord" }, el).textContent = String(8 - i);
  }
}

function average(values) {
  const v = Object.values(values || {});
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0;
}

function pickedPiece() {
  const c = document.querySelector('#train-piece input:checked');
  return c ? c.value : "N";
}

// The epoch whose net the heatmap shows.
function shownEpoch() {
  const n = train.epochs.length;
  return train.shown && train.shown <= n ? train.shown : n;
}

function drawTrainHeat() {
  const piece = pickedPiece();
  const name = PIECE_NAMES[piece];
  const n = train.epochs.length;
  const at = shownEpoch();
  const slider = $("train-epoch-pick");
  slider.max = Math.max(1, n);
  slider.value = Math.max(1, at);
  slider.disabled = n < 2;
  $("train-epoch-shown").textContent = n ? `${at} of ${n}` : "-";
  const net = at ? train.epochs[at - 1].net[piece] : null;
  const hce = train.start ? train.start.hce[piece] : null;
  const relative = $("train-colour").value === "relative";
  const means = [average(net), average(hce)];
  // One scale for both boards, so a colour means the same on each.
  let scale = 1;
  [net, hce].forEach((vals, i) => {
    for (const v of Object.values(vals || {})) scale = Math.max(scale, Math.abs(relative ? v - means[i] : v));
  });
  $("train-net-title").textContent = at ? `net after epoch ${at}` : "the net (after its first epoch)";
  $("train-net-mean").textContent = net ? `a ${name} is worth ${Math.round(means[0])} cp on average` : "";
  $("train-hce-mean").textContent = hce ? `a ${name} is worth ${Math.round(means[1])} cp on average` : "";
  drawValueBoard($("train-net-board"), net, { piece: name, relative, mean: means[0], scale, what: `the net after epoch ${at}` });
  drawValueBoard($("train-hce-board"), hce, { piece: name, relative, mean: means[1], scale, what: "the hand-crafted evaluation" });
  $("train-net-board").dataset.epoch = at;
  $("train-heat-caption").textContent =
    `Each number is what a White ${name} adds on that square, in centipawns, to the evaluation of the position drawn ` +
    `(the kings and three pawns each, Black to move): the score with the ${name} there less the score without it. ` +
    (relative
      ? `Blue: more than the ${name}'s average square, red: less (the same scale on both boards).`
      : "Blue: a gain for White, red: a loss, stronger for more (as in the Evaluation view).");
}

// ---------------------------------------------------------------- a run

function renderEpochTable() {
  const tbody = $("train-table").querySelector("tbody");
  tbody.textContent = "";
  const row = (cells, epoch) => {
    const tr = document.createElement("tr");
    for (const c of cells) cell(tr, c);
    tr.dataset.epoch = epoch;
    tbody.appendChild(tr);
    return tr;
  };
  if (train.start) row(["untrained", "-", fmtLoss(train.start.initial_loss), "-", "-"], 0);
  for (const e of train.epochs) {
    const tr = row([String(e.epoch), fmtLoss(e.train_loss), fmtLoss(e.validation_loss), e.seconds.toFixed(1), num(e.positions_per_second)], e.epoch);
    tr.dataset.train = e.train_loss;
    tr.dataset.validation = e.validation_loss;
    tr.onclick = () => {
      train.shown = e.epoch;
      drawTrainHeat();
    };
  }
}

function showProgress() {
  const p = train.progress;
  const s = train.start;
  if (!p || !s) return;
  const done = (p.epoch - 1 + p.batch / p.batches) / s.epochs;
  $("train-bar").value = Math.min(1, done);
  $("train-progress").textContent =
    `epoch ${p.epoch} of ${s.epochs}, batch ${p.batch} of ${p.batches}  running loss ${fmtLoss(p.loss)}  ` +
    `${num(p.positions_per_second)} positions a second`;
}

function setRunning(running) {
  train.running = running;
  $("train-start").disabled = running;
  $("train-stop").disabled = !running;
  for (const el of document.querySelectorAll("#train-form input, #train-form select")) el.disabled = running;
}

async function runTraining() {
  if (train.running) return;
  showError("");
  saveState();
  const body = trainRequest();
  train.start = null;
  train.epochs = [];
  train.runningLoss = [];
  train.progress = null;
  train.done = null;
  train.shown = 0;
  $("train-result").hidden = true;
  $("train-bar").value = 0;
  $("train-progress").textContent = "";
  $("train-status").textContent = `reading ${body.set}...`;
  renderEpochTable();
  drawTrainChart();
  drawTrainHeat();
  setRunning(true);
  stats.trainEpochs = 0;
  const events = jobEvents({
    start: (data) => {
      train.start = data;
      $("train-status").textContent =
        `${num(data.train)} positions to train on, ${num(data.validation)} kept apart to check on (read in ${data.load_seconds} s); ` +
        `the untrained net's loss ${fmtLoss(data.initial_loss)}`;
      renderEpochTable();
      drawTrainChart();
      drawTrainHeat();
    },
    progress: (data) => {
      train.progress = data;
      train.runningLoss.push([data.epoch - 1 + data.batch / data.batches, data.loss]);
      showProgress();
      drawTrainChart();
    },
    epoch: (data) => {
      train.epochs.push(data);
      stats.trainEpochs = train.epochs.length;
      $("train-status").textContent = `epoch ${data.epoch} of ${train.start.epochs}: validation loss ${fmtLoss(data.validation_loss)} (untrained ${fmtLoss(train.start.initial_loss)})`;
      renderEpochTable();
      drawTrainChart();
      drawTrainHeat();
    },
    done: (data) => {
      train.done = data;
      showTrained(data);
    },
  });
  try {
    await follow(train, "/api/train", events, body);
  } finally {
    setRunning(false);
    // Refused, failed or cut off: say so (the error line says why).
    if (!train.done) $("train-status").textContent = train.start ? `${$("train-status").textContent} (the training ended early)` : "";
  }
  await refreshTrainedNets();
}

function showTrained(data) {
  const last = data.history.length ? data.history[data.history.length - 1][1] : null;
  const why = data.halted === "stopped" ? ", stopped" : data.halted === "time" ? ", its time ran out" : "";
  $("train-status").textContent =
    `Done${why}: ${data.history.length} epochs in ${data.seconds.toFixed(1)} s, ` +
    `validation loss ${fmtLoss(data.initial_loss)} untrained, ${fmtLoss(last)} now`;
  $("train-bar").value = 1;
  if (!data.name) {
    $("train-result").hidden = true;
    $("train-progress").textContent = "stopped before its first epoch ended: no net kept";
    return;
  }
  const a = data.about;
  $("train-name").textContent = data.name;
  $("train-about").textContent = `${a.set}, ${num(a.positions)} positions, ${a.hidden} hidden neurons, ${a.epochs} epochs (${a.architecture})`;
  const link = $("train-download");
  link.href = `/api/train/net/${data.name}`;
  link.setAttribute("download", `${data.name}.nnue`);
  $("train-result").hidden = false;
  stats.trainedNet = data.name;
}

// ---------------------------------------------------------------- the kept nets elsewhere

// Adds each kept net to the engine choices of Play and Watch and to the tournament's rungs.
function addTrainedNets(nets) {
  for (const n of nets) {
    const idea = `rookery's search on a net trained here: ${n.set}, ${n.hidden} hidden neurons, ${n.epochs} epochs, validation loss ${fmtLoss(n.validation_loss)}`;
    const known = ENGINES.find((e) => e.name === n.name);
    if (known) known.idea = idea;
    else ENGINES.push({ name: n.name, idea, trained: true });
    for (const select of document.querySelectorAll(".engine-select")) {
      let o = [...select.options].find((x) => x.value === n.name);
      if (!o) {
        o = document.createElement("option");
        o.value = n.name;
        select.appendChild(o);
      }
      o.textContent = `${n.name} (trained here)`;
      o.title = idea;
    }
    let box = document.querySelector(`#tour-rungs-pick input[value="${n.name}"]`);
    if (!box) {
      const label = document.createElement("label");
      box = document.createElement("input");
      box.type = "checkbox";
      box.value = n.name;
      label.appendChild(box);
      label.appendChild(document.createTextNode(` ${n.name}`));
      $("tour-rungs-pick").appendChild(label);
    }
    box.parentElement.title = idea;
  }
  showIdea();
}

async function refreshTrainedNets() {
  try {
    addTrainedNets((await api("/api/train/nets")).nets);
  } catch (e) {
    showError(e.message);
  }
}

function playTrained() {
  const name = train.done && train.done.name;
  if (!name) return;
  $("play-engine").value = name;
  showIdea();
  switchView("play");
}

function tournamentWithTrained() {
  const name = train.done && train.done.name;
  if (!name) return;
  const rival = $("train-rival").value;
  for (const c of document.querySelectorAll("#tour-rungs-pick input")) c.checked = c.value === name || c.value === rival;
  switchView("tournament");
  $("tour-status").textContent = `${name} against ${rival}: press Run the tournament`;
}

// ---------------------------------------------------------------- start

async function initTrain() {
  $("train-start").onclick = runTraining;
  $("train-stop").onclick = async () => {
    try {
      await api("/api/train/stop", {});
      $("train-status").textContent += " (stopping at the end of the batch...)";
    } catch (e) {
      showError(e.message);
    }
  };
  $("train-stop").disabled = true;
  for (const input of document.querySelectorAll("#train-piece input")) {
    input.onchange = () => {
      drawTrainHeat();
      saveState();
    };
  }
  $("train-colour").onchange = drawTrainHeat;
  $("train-epoch-pick").oninput = () => {
    const v = Number($("train-epoch-pick").value);
    // At the newest epoch the heatmap follows the run; back from it, it stays.
    train.shown = v >= train.epochs.length ? 0 : v;
    drawTrainHeat();
  };
  $("train-play").onclick = playTrained;
  $("train-tour").onclick = tournamentWithTrained;
  $("train-set").onchange = () => {
    const set = train.sets.find((s) => s.name === $("train-set").value);
    if (set && train.bounds) $("train-positions").max = Math.min(set.positions, train.bounds.positions[1]);
  };
  for (const e of ENGINES) {
    const o = document.createElement("option");
    o.value = e.name;
    o.textContent = e.name;
    $("train-rival").appendChild(o);
  }
  $("train-rival").value = "greedy";
  drawTrainChart();
  drawTrainHeat();
  try {
    const [info, nets] = await Promise.all([api("/api/train/sets"), api("/api/train/nets")]);
    train.sets = info.sets;
    train.defaults = info.defaults;
    train.bounds = info.bounds;
    const select = $("train-set");
    for (const s of info.sets) {
      const o = document.createElement("option");
      o.value = s.name;
      o.textContent = `${s.name} (${num(s.positions)} positions)`;
      select.appendChild(o);
    }
    const d = info.defaults;
    const b = info.bounds;
    for (const [key, id] of [["positions", "train-positions"], ["hidden", "train-hidden"], ["epochs", "train-epochs"], ["lr", "train-lr"], ["threads", "train-threads"], ["seconds", "train-seconds"]]) {
      $(id).value = key === "lr" ? Number(d.lr.toPrecision(4)) : d[key];
      $(id).min = b[key][0];
      $(id).max = b[key][1];
    }
    if (info.sets.some((s) => s.name === "gen6-b")) select.value = "gen6-b";
    select.onchange();
    $("train-bounds").textContent =
      `Bounds: ${num(b.positions[0])} to ${num(b.positions[1])} positions, 1 to ${b.hidden[1]} hidden neurons, ` +
      `1 to ${b.epochs[1]} epochs, a learning rate of ${b.lr[0]} to ${b.lr[1]}, 1 to ${b.threads[1]} threads, ` +
      `${b.seconds[1]} s at most. One training at a time on this server.`;
    $("train-status").textContent = "Choose a data set and the net's size, then Start training.";
    if (!info.sets.length) $("train-status").textContent = "this server has no data sets to train on (rookery serve --train-data DIR)";
    else if (info.busy) $("train-status").textContent = "a net is being trained already (from another page): one training at a time";
    addTrainedNets(nets.nets);
  } catch (e) {
    showError(e.message);
  }
}

const trainState = {
  save: () => ({
    set: $("train-set").value,
    positions: $("train-positions").value,
    hidden: $("train-hidden").value,
    layers: $("train-layers").value,
    buckets: $("train-buckets").value,
    inputs: $("train-inputs").value,
    epochs: $("train-epochs").value,
    lr: $("train-lr").value,
    threads: $("train-threads").value,
    seconds: $("train-seconds").value,
    piece: pickedPiece(),
  }),
  load: (p) => {
    for (const k of ["set", "positions", "hidden", "layers", "buckets", "inputs", "epochs", "lr", "threads", "seconds"]) if (p.has(k)) $(`train-${k}`).value = p.get(k);
    $("train-set").onchange();
    if (p.has("piece")) {
      const c = document.querySelector(`#train-piece input[value="${p.get("piece")}"]`);
      if (c) c.checked = true;
    }
    drawTrainHeat();
  },
};
