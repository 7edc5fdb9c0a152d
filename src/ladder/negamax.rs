//! Rung 7, `negamax`: alpha-beta written once instead of twice. Scores are always from the side
//! to move's point of view, so the best move for either side is the maximum, and a child's value
//! is the negation of what it is for the opponent: `value = -negamax(child, -beta, -alpha)`.
//! Same values, same positions visited, half the code.

use shakmaty::{Chess, Color, Move, Position};

use crate::core::score::INFINITY;
use crate::core::trace::Tracer;
use crate::core::{Game, Limits};
use crate::engine::{Analysis, ScoredMove};
use crate::eval::material;
use crate::ladder::{Ctx, Node, search_root, white_pov};

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
    if pos.turn() == Color::White {
        tracer.window(alpha, beta);
    } else {
        tracer.window(-beta, -alpha);
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
    pos: &Chess,
    moves: &[Move],
    depth: u32,
    score_all_moves: bool,
    ctx: &mut Ctx,
    tracer: &mut T,
) -> Option<Vec<ScoredMove>> {
    let scored = search_root(ctx, pos, moves, score_all_moves, |ctx, m, child, alpha| {
        tracer.enter(1, Some(m));
        -negamax(child, depth.max(1) - 1, 1, -INFINITY, -alpha, ctx, tracer)
    })?;
    let best = scored
        .iter()
        .filter_map(|s| s.score)
        .max()
        .unwrap_or(-INFINITY);
    tracer.leave(white_pov(pos, best));
    Some(scored)
}

/// Searches the current position of `game` to `depth`.
pub fn search<T: Tracer>(game: &Game, limits: &Limits, depth: u32, tracer: &mut T) -> Analysis {
    let pos = game.position();
    let mut ctx = Ctx::new(game, limits);
    tracer.enter(0, None);
    tracer.window(-INFINITY, INFINITY);
    let moves = match ctx.visit(pos, 0) {
        Node::Over(v) => {
            tracer.leave(white_pov(pos, v));
            return ctx.analysis(Vec::new(), 0);
        }
        Node::Moves(moves) => moves,
    };
    // Stopped before the end (UCI `stop`, a time limit): no root move has a trusted value.
    let scored =
        root(pos, &moves, depth, limits.score_all_moves, &mut ctx, tracer).unwrap_or_default();
    ctx.analysis(scored, depth.max(1))
}
