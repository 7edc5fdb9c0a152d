//! Rung 7, `negamax`: alpha-beta written once instead of twice. Scores are always from the side
//! to move's point of view, so the best move for either side is the maximum, and a child's value
//! is the negation of what it is for the opponent: `value = -negamax(child, -beta, -alpha)`.
//! Same values, same positions visited, half the code.

use std::sync::Arc;

use shakmaty::{Chess, Move, Position};

use crate::book::{Book, BookPolicy};
use crate::core::score::INFINITY;
use crate::core::trace::{NoTrace, Tracer};
use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Bound, Engine, EngineOptions, ScoredMove};
use crate::eval::material;
use crate::ladder::book::book_move;
use crate::ladder::{Ctx, Node, white_pov};

pub const DEFAULT_DEPTH: u32 = 4;

/// Material from the side to move's point of view.
pub fn material_stm(pos: &Chess) -> i32 {
    white_pov(pos, material::evaluate(pos.board()))
}

/// The value of `pos` for the side to move, within `alpha..beta`. Returns 0 at once if the search
/// has been told to stop (the caller throws such results away).
#[allow(clippy::too_many_arguments)]
pub fn negamax<T: Tracer>(
    pos: &Chess,
    depth: u32,
    ply: u32,
    mut alpha: i32,
    beta: i32,
    ctx: &mut Ctx,
    tracer: &mut T,
) -> i32 {
    if ctx.stop() {
        return 0;
    }
    let moves = match ctx.visit(pos, ply) {
        Node::Over(v) => {
            tracer.leave(white_pov(pos, v));
            return v;
        }
        Node::Moves(moves) => moves,
    };
    if depth == 0 {
        let v = material_stm(pos);
        tracer.leave(white_pov(pos, v));
        return v;
    }
    let mut best = -INFINITY;
    for (i, &m) in moves.iter().enumerate() {
        let child = ctx.play(pos, m);
        tracer.enter(ply + 1, Some(m));
        let v = -negamax(&child, depth - 1, ply + 1, -beta, -alpha, ctx, tracer);
        ctx.back();
        if v > best {
            best = v;
            ctx.pv.update(ply, m);
        }
        alpha = alpha.max(v);
        if alpha >= beta {
            tracer.pruned(&moves[i + 1..]);
            break;
        }
    }
    tracer.leave(white_pov(pos, best));
    best
}

/// The root of a negamax search over `moves` (in the order given) to `depth`. `None` if the search
/// was stopped before it finished.
pub fn root<T: Tracer>(
    root: &Chess,
    moves: &[Move],
    depth: u32,
    score_all_moves: bool,
    ctx: &mut Ctx,
    tracer: &mut T,
) -> Option<Vec<ScoredMove>> {
    let mut alpha = -INFINITY;
    let mut scored = Vec::with_capacity(moves.len());
    for &m in moves {
        let child = ctx.play(root, m);
        tracer.enter(1, Some(m));
        let a = if score_all_moves { -INFINITY } else { alpha };
        let v = -negamax(&child, depth.max(1) - 1, 1, -INFINITY, -a, ctx, tracer);
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
    tracer.leave(white_pov(root, alpha));
    Some(scored)
}

/// Searches the current position of `game` to `depth`.
pub fn search<T: Tracer>(game: &Game, limits: &Limits, depth: u32, tracer: &mut T) -> Analysis {
    let pos = game.position();
    let mut ctx = Ctx::new(game, limits);
    // A fixed-depth search runs to the end.
    ctx.may_stop = false;
    tracer.enter(0, None);
    let moves = match ctx.visit(pos, 0) {
        Node::Over(v) => {
            tracer.leave(white_pov(pos, v));
            return ctx.analysis(Vec::new(), 0);
        }
        Node::Moves(moves) => moves,
    };
    let scored = root(pos, &moves, depth, limits.score_all_moves, &mut ctx, tracer)
        .expect("a search that may not stop finishes");
    ctx.analysis(scored, depth.max(1))
}

pub struct Negamax {
    book: Option<Arc<Book>>,
    policy: BookPolicy,
    rng: Rng,
}

impl Negamax {
    pub fn new(options: &EngineOptions) -> Negamax {
        Negamax {
            book: options.book.clone(),
            policy: options.book_policy,
            rng: Rng::new(options.seed),
        }
    }
}

impl Engine for Negamax {
    fn name(&self) -> &'static str {
        "negamax"
    }

    fn analyse(&mut self, game: &Game, limits: &Limits) -> Analysis {
        if let Some(a) = book_move(game, self.book.as_deref(), self.policy, &mut self.rng) {
            return a;
        }
        search(
            game,
            limits,
            limits.depth.unwrap_or(DEFAULT_DEPTH),
            &mut NoTrace,
        )
    }

    fn default_limits(&self) -> Limits {
        Limits::depth(DEFAULT_DEPTH)
    }
}
