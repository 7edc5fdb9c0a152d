//! The tutorial's engine ladder: each rung is the one before it plus one idea, named at the top of
//! its file. What the searching rungs share lives here: the search context (node count, the hashes
//! of the game and the search path for repetitions, the limits) and the principal-variation table.

pub mod alphabeta;
pub mod book;
pub mod greedy;
pub mod greedy_incremental;
pub mod iterative;
pub mod minimax;
pub mod negamax;
pub mod pst;
pub mod quiescence;
pub mod random;
pub mod tt;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, MoveList, Position};

use crate::core::game::{hash, repetitions};
use crate::core::pv::{MAX_PLY, PvTable};
use crate::core::score::{DRAW, mated_in};
use crate::core::trace::NoTrace;
use crate::core::{Bound, Game, Limits, Stopper};
use crate::engine::{Analysis, Engine, PvLine, Reporter, ScoredMove, report_final};

/// What a visited position turned out to be.
// The move list lives on the stack on purpose: boxing it would allocate at every node.
#[allow(clippy::large_enum_variant)]
pub enum Node {
    /// The game is over here; the value is from the side to move's point of view.
    Over(i32),
    /// The game goes on with these legal moves.
    Moves(MoveList),
}

/// Search state for one `analyse` call: allocated once, before the search starts.
pub struct Ctx {
    /// Positions visited.
    pub nodes: u64,
    /// Deepest ply visited.
    pub seldepth: u32,
    pub stopper: Stopper,
    /// May the search stop before it is done? (Iterative deepening finishes depth 1 regardless.)
    pub may_stop: bool,
    /// Hashes of the game's positions, then of the positions on the current search path.
    path: Vec<u64>,
    pub pv: PvTable,
}

impl Ctx {
    pub fn new(game: &Game, limits: &Limits) -> Ctx {
        let mut path = Vec::with_capacity(game.hashes().len() + MAX_PLY + 2);
        path.extend_from_slice(game.hashes());
        Ctx {
            nodes: 0,
            seldepth: 0,
            stopper: Stopper::new(limits),
            may_stop: true,
            path,
            pv: PvTable::new(),
        }
    }

    /// Counts a visit to `pos` (`ply` deep) and says whether the game is over there: checkmate,
    /// stalemate, insufficient material, the 75-move rule or fivefold repetition, as python-chess's
    /// `outcome()` does. The position's hash must be the last one pushed.
    pub fn visit(&mut self, pos: &Chess, ply: u32) -> Node {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        self.pv.clear(ply);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Node::Over(if pos.is_check() { mated_in(ply) } else { DRAW });
        }
        if pos.is_insufficient_material()
            || pos.halfmoves() >= 150
            || repetitions(&self.path, pos.halfmoves()) >= 5
        {
            return Node::Over(DRAW);
        }
        Node::Moves(moves)
    }

    /// The position after `m`, its hash pushed on the path. Call `back` after searching it.
    pub fn play(&mut self, pos: &Chess, m: Move) -> Chess {
        let mut child = pos.clone();
        child.play_unchecked(m);
        // shakmaty updates the hash incrementally for most moves; the rest are hashed in full.
        let h = pos
            .update_zobrist_hash(Zobrist64(self.current_hash()), m, EnPassantMode::Legal)
            .map_or_else(|| hash(&child), |z| z.0);
        debug_assert_eq!(h, hash(&child), "incremental hash after {m:?}");
        self.path.push(h);
        child
    }

    pub fn back(&mut self) {
        self.path.pop();
    }

    /// The hash of the position being searched (the last one pushed).
    pub fn current_hash(&self) -> u64 {
        *self
            .path
            .last()
            .expect("the root's hash is always on the path")
    }

    /// True if the search must end now (time, nodes or a stop request).
    pub fn stop(&mut self) -> bool {
        self.may_stop && self.stopper.should_stop(self.nodes)
    }

    /// The analysis of a finished search: root moves (sorted here), PV from the table.
    pub fn analysis(&self, mut moves: Vec<ScoredMove>, depth: u32) -> Analysis {
        moves.sort_by_key(|m| std::cmp::Reverse(m.score.unwrap_or(i32::MIN)));
        let pv = self.pv.line(0).to_vec();
        let best = pv.first().copied().or(moves.first().map(|m| m.mv));
        let score = best
            .and_then(|b| moves.iter().find(|m| m.mv == b))
            .and_then(|m| m.score);
        let lines = score
            .map(|score| PvLine {
                score,
                bound: Bound::Exact,
                pv: pv.clone(),
            })
            .into_iter()
            .collect();
        Analysis {
            best,
            score,
            pv,
            moves,
            depth,
            seldepth: self.seldepth,
            nodes: self.nodes,
            elapsed: self.stopper.elapsed(),
            from_book: false,
            lines,
            hashfull: 0,
            tbhits: 0,
        }
    }
}

/// The root of a negamax-form search: every move in the order given, valued by
/// `child_value(ctx, move, child, alpha)`, which searches the child with the window `alpha..+inf`
/// (from the root's side) and returns its value for the side to move at the root. Moves that do not
/// beat the best so far get upper bounds, unless `score_all_moves` asks for exact values (then
/// every move gets the full window). `None` if the search was stopped before it finished.
pub fn search_root(
    ctx: &mut Ctx,
    pos: &Chess,
    moves: &[Move],
    score_all_moves: bool,
    mut child_value: impl FnMut(&mut Ctx, Move, &Chess, i32) -> i32,
) -> Option<Vec<ScoredMove>> {
    let mut alpha = -crate::core::score::INFINITY;
    let mut scored = Vec::with_capacity(moves.len());
    for &m in moves {
        let child = ctx.play(pos, m);
        let window = if score_all_moves {
            -crate::core::score::INFINITY
        } else {
            alpha
        };
        let v = child_value(ctx, m, &child, window);
        ctx.back();
        if ctx.stopper.stopped() {
            return None;
        }
        let bound = if v > alpha || score_all_moves {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if v > alpha {
            alpha = v;
            ctx.pv.update(0, m);
        }
        scored.push(ScoredMove::scored(m, v, bound));
    }
    Some(scored)
}

/// A value from the side to move's point of view turned into White's (the max/min engines' view).
pub fn white_pov(pos: &Chess, stm_value: i32) -> i32 {
    if pos.turn() == Color::White {
        stm_value
    } else {
        -stm_value
    }
}

/// A search to a fixed depth: `minimax`, `alphabeta` and `negamax` differ only in this function.
pub type FixedSearch = fn(&Game, &Limits, u32, &mut NoTrace) -> Analysis;

/// The fixed-depth rungs as engines: their search to the depth asked for (or their default).
/// They finish the depth whatever the clock says.
pub struct FixedDepth {
    name: &'static str,
    default_depth: u32,
    search: FixedSearch,
}

impl FixedDepth {
    pub fn new(name: &'static str, default_depth: u32, search: FixedSearch) -> FixedDepth {
        FixedDepth {
            name,
            default_depth,
            search,
        }
    }
}

impl Engine for FixedDepth {
    fn name(&self) -> &'static str {
        self.name
    }

    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis {
        // Deeper than 64 plies no fixed-depth search ends; the bound also keeps the recursion
        // (a frame per ply, down to the 75-move rule otherwise) within its thread's stack.
        let depth = limits
            .depth_or_mate()
            .unwrap_or(self.default_depth)
            .min(MAX_PLY as u32 / 2);
        report_final((self.search)(game, limits, depth, &mut NoTrace), report)
    }

    fn default_limits(&self) -> Limits {
        Limits::depth(self.default_depth)
    }
}
