//! One search thread: iterative deepening with aspiration windows over a principal-variation
//! search and a quiescence search. Everything a thread needs is allocated when it is created;
//! nothing is allocated while it searches (root move lists and PV copies are made once per
//! iteration, not per node).
//!
//! The node search's steps are numbered so each technique can be found; docs/search.md's table
//! of steps gives what each was measured to be worth.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Position};

use super::board::{SearchBoard, gives_check, mates_in_one};
use super::movepick::{
    Context, CorrectionKeys, Histories, NoisyPicker, NoisyScores, Picker, Stage, fill, is_noisy,
    piece_to,
};
use super::noisy::noisy_moves_not_in_check;
use super::see::{see_ge, see_value};
use super::tt::Tt;
use crate::core::Bound;
use crate::core::Game;
use crate::core::PvTable;
use crate::core::TimeManager;
use crate::core::moves::{captured, decode_move};
use crate::core::params::{self, hundredths};
use crate::core::score::{
    DRAW, INFINITY, MATE_BOUND, TB_BOUND, TB_WIN, from_table, is_mate, mate_in, mated_in, to_table,
};
use crate::core::time::{effort_factor, fall_factor};
use crate::engine::{Analysis, Evaluation, PvLine, Report, Reporter, ScoredMove};
use crate::eval::hce::{NoEvalTrace, PawnTable, evaluate};
use crate::nnue::{AccumulatorStack, Network};
use crate::tb::Syzygy;

/// Deepest ply a search reaches.
pub const MAX_SEARCH_PLY: usize = 120;

/// What all threads of one search share.
pub struct Shared<'a> {
    pub tt: &'a Tt,
    /// Raised to stop every thread (by the main thread, or by the caller).
    pub stop: &'a AtomicBool,
    pub external_stop: Option<&'a AtomicBool>,
    /// Nodes searched, one counter per thread, published every `poll_mask + 1` nodes.
    pub nodes: &'a [AtomicU64],
    /// One less than a power of two: every so many nodes a thread publishes its count and
    /// checks the clock, the caller's stop and the node limit (`POLL_NODES` or, for a node
    /// limit shared by several threads, `POLL_NODES_SHARED_LIMIT`).
    pub poll_mask: u64,
    /// The threads in an iteration of each depth (index: the depth), so helpers can leave a
    /// depth that enough threads already search (`Worker::crowded`).
    pub searching: &'a [AtomicU32],
    /// Node limit for the whole search.
    pub node_limit: Option<u64>,
    /// Syzygy tables to probe inside the search.
    pub tb: Option<TbProbe<'a>>,
    /// Tablebase hits, one counter per thread, published with the nodes.
    pub tbhits: &'a [AtomicU64],
}

/// The tables and when to probe them.
#[derive(Clone, Copy)]
pub struct TbProbe<'a> {
    pub tables: &'a Syzygy,
    /// Most pieces (kings included) a probed position may have.
    pub limit: usize,
    /// Least remaining depth at which to probe.
    pub depth: i32,
}

/// How often a thread publishes its node count and checks the limits.
pub const POLL_NODES: u64 = 1024;
/// As often for a node limit that several threads share: each thread's count is published
/// that much sooner, so the whole search ends within a few hundred nodes of the limit.
pub const POLL_NODES_SHARED_LIMIT: u64 = 64;

impl Shared<'_> {
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }

    pub fn total_tbhits(&self) -> u64 {
        self.tbhits.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

/// A root move and what the last iterations learned about it.
#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub previous_score: i32,
    pub bound: Bound,
    pub pv: Vec<Move>,
    /// The line of the last completed iteration (kept with several lines only: an iteration
    /// cut short reports the one before it).
    pub previous_pv: Vec<Move>,
    pub seldepth: usize,
    /// Nodes spent on this move's subtree, over all iterations (for time management).
    pub nodes: u64,
}

#[derive(Clone, Copy, Default)]
struct Frame {
    static_eval: i32,
    /// The move played from this ply (`None`: a null move or nothing yet).
    mv: Option<Move>,
    /// Its piece-to index, for the continuation histories of the plies below.
    piece_to: Option<usize>,
    /// A move left out of this node's search (the singular-extension test).
    excluded: Option<Move>,
    /// Beta cut-offs of the nodes at this ply since their parent began (step 21).
    cutoffs: u32,
    /// Double extensions on the line to this ply (step 18).
    double_exts: i32,
}

/// Late-move reduction table, by depth and move number.
fn lmr_table() -> Box<[[i32; 64]; 64]> {
    let mut t = Box::new([[0; 64]; 64]);
    fill_lmr(&mut t);
    t
}

/// Fills the late-move reduction table from the parameters' current values.
fn fill_lmr(t: &mut [[i32; 64]; 64]) {
    let (base, divisor) = (
        hundredths(params::lmr_base()),
        hundredths(params::lmr_divisor()),
    );
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (n, r) in row.iter_mut().enumerate().skip(1) {
            *r = (base + (d as f64).ln() * (n as f64).ln() / divisor) as i32;
        }
    }
}

pub struct Worker {
    pub id: usize,
    pub nodes: u64,
    pub tbhits: u64,
    pub seldepth: usize,
    pub stopped: bool,
    pub hist: Histories,
    pub pawns: PawnTable,
    pub root_moves: Vec<RootMove>,
    pub completed_depth: i32,
    /// The MultiPV line being searched: root moves before it are excluded.
    pv_index: usize,
    pv: PvTable,
    stack: Vec<Frame>,
    /// Hashes of the game's positions, then of the search path.
    hashes: Vec<u64>,
    /// Index in `hashes` of the root position.
    root_index: usize,
    lmr: Box<[[i32; 64]; 64]>,
    /// Set on the main thread: it watches the clock.
    pub time: Option<TimeManager>,
    /// While a null move's cut-off is being verified: no null moves above this ply.
    nmp_min_ply: usize,
    /// Index in `hashes` of the position after the latest null move on the current path:
    /// positions before it cannot repeat (the null move is no move of the game).
    null_barrier: usize,
    /// The depth of the iteration in progress (extensions stop deep below it).
    root_depth: i32,
    /// The learned evaluation, when it is in use (else the hand-crafted one).
    net: Option<Arc<Network>>,
    /// The net's accumulators along the search path (empty while the hand-crafted evaluation is
    /// in use).
    accs: AccumulatorStack,
}

// Search margins, reductions and time factors: each has a name and one home, the table of
// `core/params.rs` (constants in the release build, UCI options in the tuning build).

impl Worker {
    pub fn new(id: usize) -> Worker {
        Worker {
            id,
            nodes: 0,
            tbhits: 0,
            seldepth: 0,
            stopped: false,
            hist: Histories::new(MAX_SEARCH_PLY),
            pawns: PawnTable::default(),
            root_moves: Vec::new(),
            completed_depth: 0,
            pv_index: 0,
            pv: PvTable::new(),
            stack: vec![Frame::default(); MAX_SEARCH_PLY + 4],
            hashes: Vec::with_capacity(1024),
            root_index: 0,
            lmr: lmr_table(),
            time: None,
            nmp_min_ply: 0,
            null_barrier: 0,
            root_depth: 0,
            net: None,
            accs: AccumulatorStack::default(),
        }
    }

    /// Searches with `eval` from the next search on.
    pub fn set_evaluation(&mut self, eval: &Evaluation) {
        self.net = match eval {
            Evaluation::Hce => None,
            Evaluation::Net(net) => Some(net.clone()),
        };
        if self.net.is_some() && self.accs.is_empty() {
            self.accs = AccumulatorStack::new(MAX_SEARCH_PLY + 4);
        }
    }

    /// A node at `ply` begins: the net's accumulators hear of the move that led there.
    #[inline]
    fn enter(&mut self, b: &SearchBoard, ply: usize) {
        if self.net.is_some() {
            self.accs.push(ply, b.delta);
        }
    }

    /// Forgets the statistics of earlier games.
    pub fn clear(&mut self) {
        self.hist.clear();
        self.pawns = PawnTable::default();
    }

    /// Sets up a search of `game`'s position over `root` moves.
    pub fn prepare(&mut self, game: &Game, root: &[Move]) {
        if params::TUNABLE {
            // A tuning build's reductions follow the values `setoption` gave.
            fill_lmr(&mut self.lmr);
        }
        self.nodes = 0;
        self.tbhits = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.completed_depth = 0;
        self.nmp_min_ply = 0;
        self.null_barrier = 0;
        self.hashes.clear();
        self.hashes.extend_from_slice(game.hashes());
        self.hashes.reserve(MAX_SEARCH_PLY + 4);
        self.root_index = self.hashes.len() - 1;
        self.root_moves = root
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: -INFINITY,
                previous_score: -INFINITY,
                bound: Bound::Upper,
                pv: vec![mv],
                previous_pv: Vec::new(),
                seldepth: 0,
                nodes: 0,
            })
            .collect();
        for k in self.hist.killers.iter_mut() {
            *k = [None; 2];
        }
    }

    fn evaluate(&mut self, b: &SearchBoard, ply: usize) -> i32 {
        let Some(net) = self.net.as_deref() else {
            return evaluate(
                b.pos.board(),
                b.turn(),
                b.psq,
                b.phase,
                &mut self.pawns,
                &mut NoEvalTrace,
            );
        };
        self.accs
            .evaluate(net, ply, b.pos.board(), b.turn())
            .clamp(-TB_BOUND + 1, TB_BOUND - 1)
    }

    /// The position after `m`, with the child's hash-table slot and correction entries asked
    /// of the CPU before the move is made on the board (`SearchBoard::play_with`).
    #[inline]
    fn play(&self, shared: &Shared, b: &SearchBoard, m: Move) -> SearchBoard {
        b.play_with(m, |key, parts| {
            shared.tt.prefetch(key);
            self.hist
                .prefetch_correction(!b.turn(), CorrectionKeys::of(parts));
        })
    }

    /// The static evaluation corrected by the correction histories (step 6), kept clear of the
    /// tablebase and mate range; `-INFINITY` stays as it is (in check).
    fn corrected(&self, b: &SearchBoard, raw_eval: i32, keys: CorrectionKeys) -> i32 {
        if raw_eval == -INFINITY {
            return raw_eval;
        }
        (raw_eval + self.hist.correction(b.turn(), keys)).clamp(-TB_BOUND + 1, TB_BOUND - 1)
    }

    /// The continuation-history context of a node `ply` deep: the moves one and two plies up.
    fn context(&self, ply: usize) -> Context {
        [
            self.stack[ply - 1].piece_to,
            ply.checked_sub(2).and_then(|p| self.stack[p].piece_to),
        ]
    }

    /// Counts a node and says whether the search must stop.
    fn tick(&mut self, shared: &Shared) -> bool {
        self.nodes += 1;
        // A node budget holds once the first iteration is complete: however small the budget,
        // the move played is one the search scored.
        let node_limit = shared.node_limit.filter(|_| self.completed_depth >= 1);
        if let Some(limit) = node_limit
            && shared.nodes.len() == 1
            && self.nodes >= limit
        {
            // One thread: stop exactly at the limit, so `go nodes` repeats exactly.
            shared.stop.store(true, Ordering::Relaxed);
        }
        if self.nodes & shared.poll_mask == 0 {
            shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
            shared.tbhits[self.id].store(self.tbhits, Ordering::Relaxed);
            if shared
                .external_stop
                .is_some_and(|s| s.load(Ordering::Relaxed))
                || node_limit.is_some_and(|l| shared.total_nodes() >= l)
                || self.time.as_mut().is_some_and(|t| t.hard_expired())
            {
                shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Repetition, 50-move rule or insufficient material. A repetition inside the search counts
    /// at once; one of a position from before the root needs a second. No repetition reaches
    /// back past a null move.
    fn is_draw(&self, b: &SearchBoard) -> bool {
        if fifty_move_draw(b) || b.pos.is_insufficient_material() {
            return true;
        }
        let n = self.hashes.len();
        let window = (b.pos.halfmoves() as usize).min(n - 1 - self.null_barrier);
        let mut seen = 0;
        let mut i = 2;
        while i <= window {
            let idx = n - 1 - i;
            if self.hashes[idx] == b.hash {
                if idx >= self.root_index {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
            i += 2;
        }
        false
    }

    /// The principal-variation search. `PV` nodes search with an open window; the rest prove
    /// a bound with a null window.
    #[allow(clippy::too_many_arguments)]
    pub fn search<const PV: bool>(
        &mut self,
        shared: &Shared,
        b: &SearchBoard,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        // Step 1. At the horizon, resolve captures first.
        if depth <= 0 {
            return self.qsearch::<PV>(shared, b, alpha, beta, ply);
        }
        self.enter(b, ply);
        // Step 2. Count the node; stop if told to.
        if self.tick(shared) {
            return 0;
        }
        self.pv.clear(ply as u32);
        self.seldepth = self.seldepth.max(ply);
        let in_check = b.pos.is_check();
        self.stack[ply + 1].cutoffs = 0;
        self.stack[ply + 1].double_exts = self.stack[ply].double_exts;

        // Step 3. Draws: repetition, 50 moves, insufficient material.
        if self.is_draw(b) {
            return DRAW;
        }
        if ply >= MAX_SEARCH_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                self.evaluate(b, ply)
            };
        }
        // Step 4. Mate distance pruning: no line here can beat a mate already found nearer.
        alpha = alpha.max(mated_in(ply as u32));
        beta = beta.min(mate_in(ply as u32 + 1));
        if alpha >= beta {
            return alpha;
        }

        // Step 5. Transposition table: a deep enough result ends the search here (not while a
        // move is excluded: the stored result may rest on that move).
        let excluded = self.stack[ply].excluded;
        let tte = shared.tt.probe(b.hash);
        if !PV
            && excluded.is_none()
            && let Some(e) = tte
            && e.depth >= depth
            && let Some(score) = e.cutoff(ply as u32, alpha, beta)
        {
            return score;
        }

        // The table's move, checked on the board: the moves are generated only if it does not
        // cut off (step 13), and a mate or stalemate is found there.
        let tt_move = tte.and_then(|e| decode_move(&b.pos, e.raw_move));
        // On a principal variation now or once (the mark sticks to the position in the table).
        let tt_pv = PV || tte.is_some_and(|e| e.pv);

        // Step 6. Static evaluation (from the table when stored), corrected by what searches of
        // positions with the same pawns and pieces found (the correction histories, learned at
        // step 28), then by a table bound.
        let raw_eval = if in_check {
            -INFINITY
        } else {
            tte.map_or_else(|| self.evaluate(b, ply), |e| e.eval)
        };
        let keys = CorrectionKeys::of(b.part_keys);
        let static_eval = self.corrected(b, raw_eval, keys);
        let mut eval = static_eval;
        if let Some(e) = tte
            && !in_check
        {
            let s = from_table(e.score, ply as u32);
            if (e.bound == Bound::Lower && s > eval)
                || (e.bound == Bound::Upper && s < eval)
                || e.bound == Bound::Exact
            {
                eval = s;
            }
        }
        self.stack[ply].static_eval = static_eval;

        // Step 7. Tablebases: right after a capture or pawn move (the only time WDL is exact
        // under the 50-move rule), with few enough pieces, the tables know the result.
        if let Some(tb) = shared.tb
            && excluded.is_none()
            && b.pos.halfmoves() == 0
            && depth >= tb.depth
            && tb.tables.covers(&b.pos, tb.limit)
            && let Some(wdl) = tb.tables.probe_wdl_after_zeroing(&b.pos)
        {
            self.tbhits += 1;
            let (score, bound) = match wdl as i32 {
                2 => (TB_WIN - ply as i32, Bound::Lower),
                -2 => (-TB_WIN + ply as i32, Bound::Upper),
                // Cursed wins and blessed losses are draws, a hair better or worse.
                w => (DRAW + w, Bound::Exact),
            };
            if bound == Bound::Exact
                || (bound == Bound::Lower && score >= beta)
                || (bound == Bound::Upper && score <= alpha)
            {
                shared.tt.store(
                    b.hash,
                    None,
                    to_table(score, ply as u32),
                    raw_eval,
                    (depth + 6).min(MAX_SEARCH_PLY as i32 - 1),
                    bound,
                    false,
                );
                return score;
            }
        }

        let improving = !in_check && ply >= 2 && static_eval > self.stack[ply - 2].static_eval;

        if !PV && !in_check && excluded.is_none() {
            // Step 8. Reverse futility pruning: far above beta at low depth, assume it holds.
            if depth <= params::rfp_max_depth()
                && !is_mate(beta)
                && eval - params::rfp_margin() * (depth - i32::from(improving)) >= beta
            {
                return eval;
            }

            // Step 9. Razoring: far below alpha at low depth, only a capture can save the
            // node; if quiescence cannot lift it to alpha, take its word. The margin is wide
            // enough to keep the sacrifices a narrower one cut.
            if depth <= params::razor_max_depth()
                && eval + params::razor_base() + params::razor_per_depth2() * depth * depth < alpha
            {
                let v = self.qsearch::<false>(shared, b, alpha, alpha + 1, ply);
                if self.stopped {
                    return 0;
                }
                if v <= alpha {
                    return v;
                }
            }
            // Step 10. Null move pruning: if passing still beats beta, a real move will too.
            // Not with fewer than two pieces besides pawns, where passing is often the best move
            // (zugzwang: zugzwang.003 and .004 of null-move.epd need this), and verified deep
            // down (step 11).
            let r = params::nmp_base()
                + depth / params::nmp_depth_divisor()
                + ((eval - beta) / params::nmp_eval_divisor()).min(params::nmp_eval_max());
            if depth >= params::nmp_min_depth()
                && eval >= beta
                && ply >= self.nmp_min_ply
                && self.stack[ply - 1].mv.is_some()
                && b.has_two_pieces()
                && !is_mate(beta)
                && let Some(child) = b.play_null()
                // A null search that goes straight to quiescence cannot see a quiet mate in one:
                // where the opponent has one, passing proves nothing (WAC.001's Qh7#, which
                // hid Qg6 until depth 16).
                && !(depth <= r && mates_in_one(&child))
            {
                shared.tt.prefetch(child.hash);
                self.stack[ply].mv = None;
                self.stack[ply].piece_to = None;
                self.hashes.push(child.hash);
                let barrier = std::mem::replace(&mut self.null_barrier, self.hashes.len() - 1);
                let v = -self.search::<false>(
                    shared,
                    &child,
                    -beta,
                    -beta + 1,
                    depth - r,
                    ply + 1,
                    !cut_node,
                );
                self.null_barrier = barrier;
                self.hashes.pop();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    let v = null_cutoff_score(v, beta);
                    if self.nmp_min_ply != 0 || depth < params::nmp_verify_min_depth() {
                        return v;
                    }
                    // Step 11. Verification: deep cut-offs are checked by a search without null
                    // moves for the next plies, which finds zugzwangs that passing hid.
                    self.nmp_min_ply = ply + 3 * (depth - r).max(0) as usize / 4;
                    let w = self.search::<false>(shared, b, beta - 1, beta, depth - r, ply, false);
                    self.nmp_min_ply = 0;
                    if self.stopped {
                        return 0;
                    }
                    if w >= beta {
                        return v;
                    }
                }
            }
        }

        // Step 12. Internal iterative reduction: without a hash move this node was never searched
        // well; search it shallower first.
        if tt_move.is_none() && depth >= params::iir_min_depth() && (PV || cut_node) {
            depth -= 1;
        }

        // Step 13. The moves, best first.
        let side = b.turn();
        let previous = self.stack[ply - 1].mv;
        let context = self.context(ply);
        let counter = self.hist.counter_move(side, previous);
        let mut picker = Picker::new(b, tt_move, self.hist.killers[ply], counter, context);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut searched = 0usize;
        let mut quiets_searched = 0usize;
        // The moves searched without raising alpha enough, for the history malus (no
        // initialisation: an ArrayVec's storage is left as it is).
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures_tried: ArrayVec<Move, 32> = ArrayVec::new();
        let mut skip_quiets = false;
        let mut legal = 0usize;

        while let Some((m, stage)) = picker.next(&self.hist, skip_quiets) {
            legal += 1;
            if Some(m) == excluded {
                continue;
            }
            let quiet = !is_noisy(m);
            if quiet && skip_quiets {
                continue;
            }
            // The histories' word on a quiet move (pruning and reductions use it).
            // A move of the quiet stage was scored by it already (before the searches of the
            // moves before it moved the tables a little); killers and the counter move were not.
            let history = if stage == Stage::Quiet {
                picker.last_score
            } else if quiet {
                self.hist.quiet_score(side, m, context)
            } else {
                0
            };
            if best > -MATE_BOUND {
                // Step 14. History pruning: a quiet move the histories call bad, at low depth.
                if !PV
                    && stage == Stage::Quiet
                    && !in_check
                    && depth <= params::history_pruning_max_depth()
                    && history < -params::history_pruning_margin() * depth
                {
                    continue;
                }
                // Step 15. Late move pruning: at low depth, late quiet moves rarely matter.
                if quiet && !in_check && depth <= params::lmp_max_depth() {
                    let limit = (params::lmp_base() + depth * depth) / (2 - i32::from(improving));
                    if quiets_searched as i32 >= limit {
                        skip_quiets = true;
                        continue;
                    }
                }
                // Step 16. Futility pruning: a quiet move cannot lift a hopeless eval to alpha.
                // Checks are spared, so the later quiet moves are not skipped wholesale: one of
                // them may be the check (skipping them cost tactics).
                if quiet
                    && !in_check
                    && depth <= params::futility_max_depth()
                    && eval + params::futility_base() + params::futility_per_depth() * depth
                        <= alpha
                    && !gives_check(b, m)
                {
                    continue;
                }
                // Step 17. SEE pruning: moves that lose material in the exchange, at low depth.
                // (Captures the picker handed out as good have SEE >= 0 already.)
                if depth <= params::see_max_depth()
                    && !matches!(stage, Stage::HashMove | Stage::GoodNoisy)
                {
                    let margin = if quiet {
                        -params::see_quiet_margin() * depth
                    } else {
                        -params::see_noisy_margin() * depth
                    };
                    if !see_ge(b, m, margin) {
                        continue;
                    }
                }
            }

            // Step 18. Singular extension: when the hash move is much better than every
            // other move (a search without it fails low well below its score), extend it. If
            // even the others beat beta, this node fails high twice over (multi-cut); if the
            // hash move alone was expected to beat beta, it is searched a ply shallower.
            let mut extension = 0;
            if Some(m) == tt_move
                && excluded.is_none()
                && depth >= params::singular_min_depth()
                && (ply as i32) < 2 * self.root_depth
                && let Some(e) = tte
                && e.depth >= depth - 3
                && e.bound != Bound::Upper
                && from_table(e.score, ply as u32).abs() < TB_BOUND
            {
                let tt_score = from_table(e.score, ply as u32);
                let singular_beta = tt_score - params::singular_margin() * depth;
                self.stack[ply].excluded = Some(m);
                let v = self.search::<false>(
                    shared,
                    b,
                    singular_beta - 1,
                    singular_beta,
                    (depth - 1) / 2,
                    ply,
                    cut_node,
                );
                self.stack[ply].excluded = None;
                if self.stopped {
                    return 0;
                }
                if v < singular_beta {
                    // Far below the margin, off a principal variation: two plies, a few times
                    // on a line at most.
                    extension = if !PV
                        && v < singular_beta - params::double_ext_margin()
                        && self.stack[ply].double_exts < params::double_ext_max()
                    {
                        2
                    } else {
                        1
                    };
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if tt_score >= beta {
                    extension = -1;
                }
            }

            let child = self.play(shared, b, m);
            let gives_check = child.pos.is_check();
            self.stack[ply].mv = Some(m);
            self.stack[ply].piece_to = Some(piece_to(side, m));
            self.hashes.push(child.hash);
            self.stack[ply + 1].double_exts =
                self.stack[ply].double_exts + i32::from(extension > 1);
            // Step 19. Check extension (unless the singular test extended or reduced).
            let mut new_depth = depth - 1
                + if extension != 0 {
                    extension
                } else {
                    i32::from(gives_check)
                };

            let mut v;
            if searched == 0 {
                v = -self.search::<PV>(
                    shared,
                    &child,
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    !PV && !cut_node,
                );
            } else {
                // Step 20. Late move reductions: later moves are searched shallower first.
                let mut r = 0;
                if depth >= 3 && searched > usize::from(PV) && (quiet || stage == Stage::BadNoisy) {
                    r = self.lmr[(depth as usize).min(63)][searched.min(63)];
                    r += i32::from(!PV) + i32::from(cut_node);
                    r -= i32::from(improving) + i32::from(gives_check) + i32::from(in_check);
                    if matches!(stage, Stage::Killer | Stage::Counter) {
                        r -= 1;
                    }
                    // Step 21. A position that was on a principal variation is reduced a ply
                    // less; one whose replies keep failing high (its moves failing low: an
                    // all-node) a ply more.
                    if tt_pv && !PV {
                        r -= 1;
                    }
                    if self.stack[ply + 1].cutoffs > 3 {
                        r += 1;
                    }
                    // Step 22. History in LMR: good statistics reduce less, bad more.
                    if quiet {
                        r -= history / params::lmr_history_divisor();
                    } else {
                        // Step 23. A capture that loses the exchange is reduced one ply at
                        // most: sacrifices are where the tactics are.
                        r = r.min(params::bad_noisy_reduction_max());
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                // Step 24. Principal variation search: prove with a null window, re-search
                // at full depth, then with the full window, only when the proof fails.
                let reduced = new_depth - r;
                v = -self.search::<false>(
                    shared,
                    &child,
                    -alpha - 1,
                    -alpha,
                    reduced,
                    ply + 1,
                    true,
                );
                if v > alpha && r > 0 {
                    // Step 25. How far the reduced search beat the best score sets the
                    // re-search's depth: a ply deeper when by much, shallower when barely.
                    new_depth += i32::from(v > best + params::lmr_deeper_margin() + 2 * new_depth)
                        - i32::from(v < best + params::lmr_shallower_margin());
                    if new_depth > reduced {
                        v = -self.search::<false>(
                            shared,
                            &child,
                            -alpha - 1,
                            -alpha,
                            new_depth,
                            ply + 1,
                            !cut_node,
                        );
                    }
                }
                if PV && v > alpha && v < beta {
                    v = -self.search::<true>(
                        shared,
                        &child,
                        -beta,
                        -alpha,
                        new_depth,
                        ply + 1,
                        false,
                    );
                }
            }
            self.hashes.pop();
            if self.stopped {
                return 0;
            }
            searched += 1;
            if quiet {
                quiets_searched += 1;
            }

            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    alpha = v;
                    if PV {
                        self.pv.update(ply as u32, m);
                    }
                    if v >= beta {
                        self.stack[ply].cutoffs += 1;
                        // Step 26. The move that refutes: rewarded in its histories, the moves
                        // tried before it punished; a quiet one becomes a killer and a counter.
                        let bonus =
                            (16 * depth * depth + 32 * depth + 16).min(params::history_bonus_max());
                        if quiet {
                            self.hist.update_quiet(side, m, context, bonus);
                            for &q in &quiets_tried {
                                self.hist.update_quiet(side, q, context, -bonus);
                            }
                            self.hist.add_killer(ply, m);
                            self.hist.set_counter(side, previous, m);
                        } else {
                            self.hist.update_capture(side, m, bonus);
                        }
                        for &c in &captures_tried {
                            self.hist.update_capture(side, c, -bonus);
                        }
                        break;
                    }
                }
            }
            if quiet && best_move != Some(m) {
                let _ = quiets_tried.try_push(m);
            }
            if !quiet && best_move != Some(m) {
                let _ = captures_tried.try_push(m);
            }
        }

        if legal == 0 {
            return if in_check { mated_in(ply as u32) } else { DRAW };
        }
        if searched == 0 {
            // Every move was pruned (or excluded): nothing beat alpha.
            return alpha;
        }
        if excluded.is_some() {
            // A result without the excluded move says nothing about this position.
            return best;
        }

        // Step 27. Store the result.
        let bound = Bound::from_window(best, original_alpha, beta);
        shared.tt.store(
            b.hash,
            best_move,
            to_table(best, ply as u32),
            raw_eval,
            depth,
            bound,
            tt_pv,
        );
        // Step 28. Correction history: learn how far the static evaluation missed, when the
        // result is a quiet one and its bound says which way.
        if !in_check
            && best_move.is_none_or(|m| !is_noisy(m))
            && best.abs() < TB_BOUND
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.hist
                .update_correction(side, keys, best - static_eval, depth);
        }
        best
    }

    /// Quiescence search: captures and promotions until the position is quiet (every evasion when
    /// in check), with stand pat, delta pruning and SEE pruning.
    fn qsearch<const PV: bool>(
        &mut self,
        shared: &Shared,
        b: &SearchBoard,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.enter(b, ply);
        if self.tick(shared) {
            return 0;
        }
        if PV {
            self.pv.clear(ply as u32);
        }
        self.seldepth = self.seldepth.max(ply);
        if fifty_move_draw(b) || b.pos.is_insufficient_material() {
            return DRAW;
        }
        let in_check = b.pos.is_check();
        if ply >= MAX_SEARCH_PLY - 1 {
            return if in_check {
                DRAW
            } else {
                self.evaluate(b, ply)
            };
        }
        let tte = shared.tt.probe(b.hash);
        if !PV
            && let Some(e) = tte
            && let Some(score) = e.cutoff(ply as u32, alpha, beta)
        {
            return score;
        }
        // In check, every evasion (none: mated). Otherwise stand pat first, and only then
        // generate the captures and queen promotions: most nodes here stop at the stand pat, so
        // they never generate a move (a stalemate is not seen here, as in most engines).
        // The list is filled where it stays: moving a `MoveList` copies its whole capacity.
        let mut candidates = MoveList::new();
        if in_check {
            fill(&mut candidates, &b.pos.legal_moves());
            if candidates.is_empty() {
                return mated_in(ply as u32);
            }
        }
        let raw_eval = if in_check {
            -INFINITY
        } else {
            tte.map_or_else(|| self.evaluate(b, ply), |e| e.eval)
        };
        // Stand pat on the corrected evaluation (step 6 of the node search).
        let static_eval = self.corrected(b, raw_eval, CorrectionKeys::of(b.part_keys));
        let mut best = static_eval;
        if !in_check {
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }
        if !in_check {
            noisy_moves_not_in_check(&b.pos, &mut candidates);
        }
        let tt_move = tte.and_then(|e| e.best_move(&candidates));
        let mut scores = NoisyScores::new();
        let picker = NoisyPicker::new(&mut candidates, &mut scores, tt_move);
        let mut best_move = None;
        let original_alpha = alpha;
        for m in picker {
            if !in_check && best > -MATE_BOUND {
                // Delta pruning: even winning the piece outright would not reach alpha.
                let gain = captured(m).map_or(0, see_value)
                    + m.promotion()
                        .map_or(0, |p| see_value(p) - see_value(shakmaty::Role::Pawn));
                if static_eval + gain + params::delta_margin() <= alpha {
                    continue;
                }
                // SEE pruning: captures that lose material.
                if !see_ge(b, m, 0) {
                    continue;
                }
            }
            let child = self.play(shared, b, m);
            self.hashes.push(child.hash);
            let v = -self.qsearch::<PV>(shared, &child, -beta, -alpha, ply + 1);
            self.hashes.pop();
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = Some(m);
                    if PV {
                        self.pv.update(ply as u32, m);
                    }
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let bound = Bound::from_window(best, original_alpha, beta);
        shared.tt.store(
            b.hash,
            best_move,
            to_table(best, ply as u32),
            raw_eval,
            0,
            bound,
            false,
        );
        best
    }
}

/// Cuts `pv` where the game it plays from `root` ends: after the move that makes a threefold
/// repetition (counting `history`, the game's hashes up to and including `root`), before a move
/// played once the 50-move rule has drawn, and at the first illegal move. A line that goes on
/// past the end of the game is one no game can play: clients such as fastchess warn of it. Such
/// lines arise when a move's line from an earlier iteration is kept while its new search ended at
/// once on a draw.
fn end_at_game_end(root: &shakmaty::Chess, history: &[u64], pv: &mut Vec<Move>) {
    let mut pos = root.clone();
    // The hashes of the positions the line passes through, after each of its moves.
    let mut line = [0u64; MAX_SEARCH_PLY + 1];
    for i in 0..pv.len() {
        if pos.halfmoves() >= 100 || !pos.is_legal(pv[i]) || i >= line.len() {
            pv.truncate(i.max(1));
            return;
        }
        pos.play_unchecked(pv[i]);
        let h = crate::core::game::hash(&pos);
        line[i] = h;
        // Earlier positions that can repeat this one: same side to move, no irreversible move
        // since (the last `halfmoves` plies, from the line and then from the game).
        let window = pos.halfmoves() as usize;
        let earlier = line[..i]
            .iter()
            .rev()
            .chain(history.iter().rev())
            .skip(1)
            .step_by(2)
            .take(window / 2)
            .filter(|&&e| e == h)
            .count();
        if earlier >= 2 {
            pv.truncate(i + 1);
            return;
        }
    }
}

/// The 50-move rule: a draw once 100 half-moves passed without a capture or pawn move, unless
/// the last of them mated (checkmate takes precedence).
fn fifty_move_draw(b: &SearchBoard) -> bool {
    b.pos.halfmoves() >= 100 && !(b.pos.is_check() && b.pos.legal_moves().is_empty())
}

/// The score a null-move cut-off returns: the search after a pass proves only that the position
/// is good enough, never a mate or a tablebase win it did not play out, so those become `beta`.
fn null_cutoff_score(v: i32, beta: i32) -> i32 {
    if v >= TB_BOUND { beta } else { v }
}

/// What the iterative deepening loop needs from the limits.
#[derive(Clone, Copy, Debug)]
pub struct IterationLimits {
    pub max_depth: i32,
    pub multipv: usize,
    /// Stop once a mate in this many moves is proven.
    pub mate: Option<u32>,
    /// `searchmoves` chose the root moves: one of them left is not a forced move.
    pub restricted: bool,
    /// No new iteration once the search has visited this many positions.
    pub soft_nodes: Option<u64>,
}

impl Worker {
    /// The root: every root move from the current MultiPV line on, in the order of the last
    /// iteration, with scores and lines recorded for each.
    fn search_root(
        &mut self,
        shared: &Shared,
        b: &SearchBoard,
        mut alpha: i32,
        beta: i32,
        depth: i32,
        report: Reporter<'_>,
    ) -> i32 {
        if self.tick(shared) {
            return 0;
        }
        self.pv.clear(0);
        let in_check = b.pos.is_check();
        self.stack[0].static_eval = if in_check {
            -INFINITY
        } else {
            self.evaluate(b, 0)
        };
        let mut best = -INFINITY;
        let mut best_move = None;
        let original_alpha = alpha;
        for i in self.pv_index..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            if self.id == 0
                && self
                    .time
                    .as_ref()
                    .is_some_and(|t| t.elapsed().as_millis() >= 3000)
            {
                report(Report::CurrentMove {
                    depth: depth as u32,
                    mv: m,
                    number: i + 1,
                });
            }
            let nodes_before = self.nodes;
            let child = b.play(m);
            let gives_check = child.pos.is_check();
            self.stack[0].mv = Some(m);
            self.stack[0].piece_to = Some(piece_to(b.turn(), m));
            self.hashes.push(child.hash);
            let new_depth = depth - 1 + i32::from(gives_check);
            self.seldepth = 0;
            let mut v;
            if i == self.pv_index {
                v = -self.search::<true>(shared, &child, -beta, -alpha, new_depth, 1, false);
            } else {
                let r =
                    i32::from(depth >= 3 && i >= self.pv_index + 4 && !is_noisy(m) && !gives_check);
                v = -self.search::<false>(
                    shared,
                    &child,
                    -alpha - 1,
                    -alpha,
                    new_depth - r,
                    1,
                    true,
                );
                if v > alpha && r > 0 {
                    v = -self.search::<false>(
                        shared,
                        &child,
                        -alpha - 1,
                        -alpha,
                        new_depth,
                        1,
                        true,
                    );
                }
                if v > alpha && v < beta {
                    v = -self.search::<true>(shared, &child, -beta, -alpha, new_depth, 1, false);
                }
            }
            self.hashes.pop();
            self.root_moves[i].nodes += self.nodes - nodes_before;
            if self.stopped {
                return 0;
            }
            let child_pv = self.pv.line(1);
            let seldepth = self.seldepth;
            let rm = &mut self.root_moves[i];
            if i == self.pv_index || v > alpha {
                rm.score = v;
                rm.seldepth = seldepth;
                rm.bound = Bound::from_window(v, alpha, beta);
                // A fail-high re-search may bring back the move alone: keep the line the move
                // had from the last iteration rather than cut it to one move.
                if !child_pv.is_empty() || rm.pv.first() != Some(&m) {
                    rm.pv.clear();
                    rm.pv.push(m);
                    rm.pv.extend_from_slice(child_pv);
                    end_at_game_end(&b.pos, &self.hashes[..=self.root_index], &mut rm.pv);
                }
            } else {
                // Only known to be no better than the best: it sorts after it.
                rm.score = -INFINITY;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    alpha = v;
                    self.pv.update(0, m);
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if self.pv_index == 0 {
            let bound = Bound::from_window(best, original_alpha, beta);
            shared.tt.store(
                b.hash,
                best_move,
                to_table(best, 0),
                self.stack[0].static_eval,
                depth,
                bound,
                true,
            );
        }
        best
    }

    /// Sorts the root moves from `from` on, best first, keeping the order of equals.
    fn sort_root(&mut self, from: usize) {
        self.root_moves[from..].sort_by_key(|r| std::cmp::Reverse(r.score));
    }

    /// Iterative deepening with aspiration windows, each depth once per MultiPV line. The main
    /// thread (id 0) reports each iteration and decides when to stop; helpers search until told
    /// or until they finish the last depth.
    pub fn iterate(
        &mut self,
        shared: &Shared,
        root: &SearchBoard,
        limits: IterationLimits,
        report: Reporter<'_>,
    ) {
        let multipv = limits.multipv.clamp(1, self.root_moves.len().max(1));
        if let Some(net) = self.net.as_deref() {
            self.accs.refresh_root(net, root.pos.board());
        }
        let mut stretch: f64 = 1.0;
        let mut last_best = None;
        let mut last_score: Option<i32> = None;
        let last = limits.max_depth.min(MAX_SEARCH_PLY as i32 - 8);
        // The depth schedule that spreads the threads over depths: odd helpers begin one ply
        // deeper, and a helper passes over a depth that half the threads already search (the
        // main thread searches every depth, as it does alone). The last depth is never passed
        // over: a helper that reaches it still fills the table for the others.
        let first = if self.id % 2 == 1 { 2 } else { 1 };
        for depth in first..=last {
            if self.id > 0 && depth < last && self.crowded(shared, depth) {
                continue;
            }
            shared.searching[depth as usize].fetch_add(1, Ordering::Relaxed);
            self.root_depth = depth;
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                let previous = self.root_moves[pv_index].previous_score;
                let mut delta = params::aspiration_window();
                let (mut alpha, mut beta) =
                    if depth >= 5 && !is_mate(previous) && previous > -INFINITY {
                        (previous - delta, previous + delta)
                    } else {
                        (-INFINITY, INFINITY)
                    };
                loop {
                    let v = self.search_root(shared, root, alpha, beta, depth, report);
                    self.sort_root(pv_index);
                    if self.stopped {
                        break;
                    }
                    if v <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (v - delta).max(-INFINITY);
                    } else if v >= beta {
                        beta = (v + delta).min(INFINITY);
                    } else {
                        break;
                    }
                    delta += delta;
                    if delta > 1000 {
                        alpha = -INFINITY;
                        beta = INFINITY;
                    }
                }
                if self.stopped {
                    break;
                }
            }
            shared.searching[depth as usize].fetch_sub(1, Ordering::Relaxed);
            if self.stopped {
                break;
            }
            self.completed_depth = depth;
            // A later line can score above an earlier one (each has its own window): the lines
            // are reported, and the first played, best first.
            self.root_moves[..multipv].sort_by_key(|r| std::cmp::Reverse(r.score));
            for r in &mut self.root_moves {
                r.previous_score = r.score;
                if multipv > 1 {
                    r.previous_pv.clone_from(&r.pv);
                }
            }
            if self.id != 0 {
                continue;
            }
            let analysis = self.analysis(shared, multipv);
            report(Report::Iteration(&analysis));
            // A best move that keeps changing deserves more time; a stable one less.
            let best = self.root_moves[0].mv;
            stretch = if last_best.is_some_and(|b| b != best) {
                (stretch * hundredths(params::stretch_unstable()))
                    .min(hundredths(params::stretch_max()))
            } else {
                (stretch * hundredths(params::stretch_stable()))
                    .max(hundredths(params::stretch_min()))
            };
            last_best = Some(best);
            let score = self.root_moves[0].score;
            if let Some(n) = limits.mate
                && score >= MATE_BOUND
                && (crate::core::score::MATE - score + 1) / 2 <= n as i32
            {
                break;
            }
            // The best move's share of the effort: one that took most of the nodes is clear,
            // one that took few is in doubt (shallow iterations are too small to say).
            // A score that fell since the last iteration asks for more time too.
            let score_before = last_score.replace(score);
            let scale = if depth >= params::effort_min_depth() {
                let total: u64 = self.root_moves.iter().map(|r| r.nodes).sum();
                debug_assert!(total <= self.nodes);
                effort_factor(self.root_moves[0].nodes, total)
                    * score_before.map_or(1.0, |s| fall_factor(s - score))
            } else {
                1.0
            };
            if self
                .time
                .as_mut()
                .is_some_and(|t| t.soft_expired(stretch * scale))
            {
                break;
            }
            // Past the soft node count: this iteration is the last. One thread counts exactly
            // (its own count), so a search repeats; with helpers the total is an estimate.
            if limits
                .soft_nodes
                .is_some_and(|n| shared.total_nodes().max(self.nodes) >= n)
            {
                break;
            }
            if self.root_moves.len() == 1
                && !limits.restricted
                && self.time.as_ref().is_some_and(|t| t.from_clock())
                && depth >= 4
            {
                // One legal move in a game: no need to spend the clock on it.
                break;
            }
        }
    }

    /// Whether at least half the threads are in an iteration of `depth` already (one other
    /// thread of two, two of three or four, and so on).
    fn crowded(&self, shared: &Shared, depth: i32) -> bool {
        let there = shared.searching[depth as usize].load(Ordering::Relaxed) as usize;
        2 * there >= shared.nodes.len()
    }

    /// The thread's answer after its last completed iteration (the best move of an iteration cut
    /// short, when that found one), for choosing among the threads (`best_thread`).
    pub fn result(&self) -> ThreadResult {
        let best = self.root_moves.first();
        ThreadResult {
            depth: self.completed_depth,
            score: best.map_or(-INFINITY, |r| r.score),
            bound: best.map_or(Bound::Upper, |r| r.bound),
        }
    }

    /// The analysis of this thread after the last completed iteration (the best move of an
    /// iteration cut short, when that found one); the nodes and hits are every thread's.
    pub fn analysis(&self, shared: &Shared, multipv: usize) -> Analysis {
        // Several lines and an iteration cut short: its lines are part searched, some not at
        // all, so the last completed iteration speaks for every line, best first.
        let cut_short_lines: Option<Vec<RootMove>> =
            (multipv > 1 && self.root_depth > self.completed_depth && self.completed_depth > 0)
                .then(|| {
                    let mut done: Vec<RootMove> = self
                        .root_moves
                        .iter()
                        .map(|r| RootMove {
                            mv: r.mv,
                            score: r.previous_score,
                            previous_score: r.previous_score,
                            bound: Bound::Exact,
                            pv: if r.previous_pv.is_empty() {
                                vec![r.mv]
                            } else {
                                r.previous_pv.clone()
                            },
                            previous_pv: Vec::new(),
                            seldepth: r.seldepth,
                            nodes: r.nodes,
                        })
                        .collect();
                    done.sort_by_key(|r| std::cmp::Reverse(r.score));
                    done
                });
        let root_moves = cut_short_lines.as_deref().unwrap_or(&self.root_moves);
        let lines: Vec<PvLine> = root_moves[..multipv.min(root_moves.len())]
            .iter()
            .filter(|r| r.score > -INFINITY)
            .map(|r| PvLine {
                score: r.score,
                bound: r.bound,
                pv: r.pv.clone(),
            })
            .collect();
        let best = root_moves.first();
        Analysis {
            best: best.map(|r| r.mv),
            score: best.map(|r| r.score).filter(|&s| s > -INFINITY),
            pv: best.map(|r| r.pv.clone()).unwrap_or_default(),
            moves: root_moves
                .iter()
                .map(|r| ScoredMove {
                    mv: r.mv,
                    score: (r.score > -INFINITY).then_some(r.score),
                    bound: r.bound,
                    weight: None,
                })
                .collect(),
            depth: self.completed_depth.max(0) as u32,
            seldepth: root_moves.iter().map(|r| r.seldepth).max().unwrap_or(0) as u32,
            nodes: shared.total_nodes().max(self.nodes),
            elapsed: self.time.as_ref().map_or(Duration::ZERO, |t| t.elapsed()),
            from_book: false,
            lines,
            hashfull: shared.tt.hashfull(),
            tbhits: shared.total_tbhits().max(self.tbhits),
        }
    }

    /// Publishes the final node count.
    pub fn publish_nodes(&self, shared: &Shared) {
        shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        shared.tbhits[self.id].store(self.tbhits, Ordering::Relaxed);
    }
}

/// What one thread's search found: the depth of its last completed iteration (0: none) and its
/// best move's score and bound (a bound when an iteration cut short changed it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadResult {
    pub depth: i32,
    pub score: i32,
    pub bound: Bound,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;

    #[test]
    fn noisy_moves_are_the_captures_and_the_queen_promotions_for_either_side() {
        let names = |fen: &str| {
            let mut v: Vec<String> = crate::search::noisy::noisy_moves(&parse_fen(fen).unwrap())
                .iter()
                .map(|m| crate::core::game::uci(*m))
                .collect();
            v.sort();
            v
        };
        // White: b7 promotes quietly (the queen only) or takes on a8 (a capture: every piece).
        assert_eq!(
            names("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1"),
            ["b7a8b", "b7a8n", "b7a8q", "b7a8r", "b7b8q"]
        );
        // Black, on the second rank.
        assert_eq!(names("4k3/8/8/8/8/8/6p1/4K3 b - - 0 1"), ["g2g1q"]);
        // No pawn about to promote: the captures alone.
        assert_eq!(names("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"), ["e4d5"]);
    }

    #[test]
    fn null_move_cutoffs_claim_no_unproven_win() {
        assert_eq!(null_cutoff_score(150, 100), 150);
        assert_eq!(null_cutoff_score(TB_WIN - 10, 100), 100, "a tablebase win");
        assert_eq!(null_cutoff_score(mate_in(7), 100), 100, "a mate");
    }

    /// A line from `fen` after the game's `played` moves, cut where the game it plays ends.
    fn cut_line(fen: &str, played: &[&str], line: &[&str]) -> Vec<String> {
        let mut game = Game::new(parse_fen(fen).unwrap());
        for m in played {
            let mv = crate::core::game::parse_move(game.position(), m).unwrap();
            game.play(mv).unwrap();
        }
        let mut pos = game.position().clone();
        let mut pv = Vec::new();
        for m in line {
            let mv = crate::core::game::parse_move(&pos, m).unwrap();
            pos.play_unchecked(mv);
            pv.push(mv);
        }
        end_at_game_end(game.position(), game.hashes(), &mut pv);
        pv.iter().map(|m| crate::core::game::uci(*m)).collect()
    }

    #[test]
    fn a_line_ends_with_the_move_that_repeats_a_position_a_third_time() {
        let start = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let shuffle = ["Rb1", "Kd8", "Ra1", "Ke8"];
        // The root has occurred twice: the line's fourth move brings it back a third time.
        let cut = cut_line(start, &shuffle, &["Rb1", "Kd8", "Ra1", "Ke8", "Rb1", "Kd8"]);
        assert_eq!(cut, ["a1b1", "e8d8", "b1a1", "d8e8"]);
        // From a root seen for the first time the position comes back a second time (no end)
        // and the line runs on until the root's position comes a third time.
        let line = [
            "Rb1", "Kd8", "Ra1", "Ke8", "Rb1", "Kd8", "Ra1", "Ke8", "Rb1", "Kd8",
        ];
        let cut = cut_line(start, &[], &line);
        assert_eq!(cut.len(), 8, "{cut:?}");
        assert_eq!(cut_line(start, &[], &line[..7]).len(), 7);
        // After a pawn move the count starts again: the position after a3 comes a third time
        // with the line's ninth move.
        let pawn = "4k3/8/8/8/8/8/P7/R3K3 w - - 0 1";
        let line = [
            "a3", "Kd8", "Rb1", "Ke8", "Ra1", "Kd8", "Rb1", "Ke8", "Ra1", "Kd8",
        ];
        let cut = cut_line(pawn, &shuffle, &line);
        assert_eq!(cut.len(), 9, "{cut:?}");
    }

    #[test]
    fn a_line_ends_where_the_fifty_move_rule_draws() {
        let cut = cut_line(
            "4k3/8/8/8/8/8/8/R3K3 w - - 99 80",
            &[],
            &["Rb1", "Kd8", "Ra1"],
        );
        assert_eq!(cut, ["a1b1"]);
    }

    #[test]
    fn repetitions_do_not_reach_back_past_a_null_move() {
        let fen = "4k3/8/8/8/8/8/8/4K2R w K - 20 40";
        let b = SearchBoard::new(parse_fen(fen).unwrap());
        let mut w = Worker::new(0);
        w.prepare(&Game::new(b.pos.clone()), &[]);
        // The path: the root, a null move, a reply, and a position with the root's hash two
        // plies later (side to move and pieces as at the root).
        let root = b.hash;
        w.hashes.extend([root ^ 1, root]);
        assert!(w.is_draw(&b), "without a null move it repeats the root");
        w.null_barrier = w.root_index + 1;
        assert!(!w.is_draw(&b), "the root is behind the null move");
    }
}
