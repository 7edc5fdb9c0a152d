//! Rung 6, `alphabeta`: minimax that skips what cannot matter. `alpha` is the value White is
//! already sure of, `beta` the value Black is already sure of; once a position is shown to be
//! worse for the side choosing there than an alternative it already has (`alpha >= beta`), its
//! remaining moves are not searched. Same value as minimax, a fraction of the positions.

use shakmaty::{Chess, Color, Position};

use crate::core::Bound;
use crate::core::score::INFINITY;
use crate::core::trace::Tracer;
use crate::core::{Game, Limits};
use crate::engine::{Analysis, ScoredMove};
use crate::eval::material;
use crate::ladder::{Ctx, Node, white_pov};

pub const DEFAULT_DEPTH: u32 = 4;

/// The value of `pos` (White's point of view) within the window `alpha..beta`, max/min form.
pub fn alphabeta<T: Tracer>(
    pos: &Chess,
    depth: u32,
    ply: u32,
    mut alpha: i32,
    mut beta: i32,
    ctx: &mut Ctx,
    tracer: &mut T,
) -> i32 {
    if ctx.stop() {
        return 0;
    }
    tracer.window(alpha, beta);
    let moves = match ctx.visit(pos, ply) {
        Node::Over(v) => {
            let v = white_pov(pos, v);
            tracer.leave(v);
            return v;
        }
        Node::Moves(moves) => moves,
    };
    if depth == 0 {
        let v = material::evaluate(pos.board());
        tracer.leave(v);
        return v;
    }
    let maximizing = pos.turn() == Color::White;
    let mut best = if maximizing { -INFINITY } else { INFINITY };
    for (i, &m) in moves.iter().enumerate() {
        let child = ctx.play(pos, m);
        tracer.enter(ply + 1, Some(m));
        let v = alphabeta(&child, depth - 1, ply + 1, alpha, beta, ctx, tracer);
        ctx.back();
        if maximizing {
            if v > best {
                best = v;
                ctx.pv.update(ply, m);
            }
            alpha = alpha.max(v);
        } else {
            if v < best {
                best = v;
                ctx.pv.update(ply, m);
            }
            beta = beta.min(v);
        }
        if alpha >= beta {
            // The side choosing above will never let the game reach this position.
            tracer.pruned(&moves[i + 1..]);
            break;
        }
    }
    tracer.leave(best);
    best
}

/// Searches the current position of `game` to `depth`. Root moves after the best get upper bounds
/// unless `limits.score_all_moves` asks for an exact score for each.
pub fn search<T: Tracer>(game: &Game, limits: &Limits, depth: u32, tracer: &mut T) -> Analysis {
    let root = game.position();
    let mut ctx = Ctx::new(game, limits);
    tracer.enter(0, None);
    tracer.window(-INFINITY, INFINITY);
    let moves = match ctx.visit(root, 0) {
        Node::Over(v) => {
            tracer.leave(white_pov(root, v));
            return ctx.analysis(Vec::new(), 0);
        }
        Node::Moves(moves) => moves,
    };
    let maximizing = root.turn() == Color::White;
    let (mut alpha, mut beta) = (-INFINITY, INFINITY);
    let mut best = if maximizing { -INFINITY } else { INFINITY };
    let mut scored = Vec::with_capacity(moves.len());
    for &m in &moves {
        let child = ctx.play(root, m);
        tracer.enter(1, Some(m));
        let (a, b) = if limits.score_all_moves {
            (-INFINITY, INFINITY)
        } else {
            (alpha, beta)
        };
        let v = alphabeta(&child, depth.max(1) - 1, 1, a, b, &mut ctx, tracer);
        ctx.back();
        if ctx.stopper.stopped() {
            break;
        }
        let improved = if maximizing { v > best } else { v < best };
        // A move that does not beat the best so far was searched against it: its value is only
        // known to be no better (unless its window was full).
        let bound = if improved || limits.score_all_moves {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if improved {
            best = v;
            ctx.pv.update(0, m);
        }
        if maximizing {
            alpha = alpha.max(v);
        } else {
            beta = beta.min(v);
        }
        scored.push(ScoredMove::scored(m, white_pov(root, v), bound));
    }
    tracer.leave(best);
    ctx.analysis(scored, depth.max(1))
}
