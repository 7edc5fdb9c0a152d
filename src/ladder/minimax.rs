//! Rung 5, `minimax`: look `depth` moves ahead. White picks the move with the highest material
//! count, Black the lowest, each assuming the other does the same, down to a fixed depth where
//! the board is counted. Every position of the tree is visited: at depth 3 on a middlegame
//! position that is about 70,000 positions, at depth 4 over two million.

use shakmaty::{Chess, Color, Position};

use crate::core::Bound;
use crate::core::score::INFINITY;
use crate::core::trace::Tracer;
use crate::core::{Game, Limits};
use crate::engine::{Analysis, ScoredMove};
use crate::eval::material;
use crate::ladder::{Ctx, Node, white_pov};

pub const DEFAULT_DEPTH: u32 = 3;

/// The minimax value of `pos` (White's point of view), `depth` plies deep.
pub fn minimax<T: Tracer>(pos: &Chess, depth: u32, ply: u32, ctx: &mut Ctx, tracer: &mut T) -> i32 {
    // Told to stop (UCI `stop`, a time limit): the caller throws this value away.
    if ctx.stop() {
        return 0;
    }
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
    for &m in &moves {
        let child = ctx.play(pos, m);
        tracer.enter(ply + 1, Some(m));
        let v = minimax(&child, depth - 1, ply + 1, ctx, tracer);
        ctx.back();
        if (maximizing && v > best) || (!maximizing && v < best) {
            best = v;
            ctx.pv.update(ply, m);
        }
    }
    tracer.leave(best);
    best
}

/// Searches the current position of `game` to `depth` and reports every root move's value.
pub fn search<T: Tracer>(game: &Game, limits: &Limits, depth: u32, tracer: &mut T) -> Analysis {
    let root = game.position();
    let mut ctx = Ctx::new(game, limits);
    tracer.enter(0, None);
    let moves = match ctx.visit(root, 0) {
        Node::Over(v) => {
            tracer.leave(white_pov(root, v));
            return ctx.analysis(Vec::new(), 0);
        }
        Node::Moves(moves) => moves,
    };
    let maximizing = root.turn() == Color::White;
    let mut best = if maximizing { -INFINITY } else { INFINITY };
    let mut scored = Vec::with_capacity(moves.len());
    for &m in &moves {
        let child = ctx.play(root, m);
        tracer.enter(1, Some(m));
        let v = minimax(&child, depth.max(1) - 1, 1, &mut ctx, tracer);
        ctx.back();
        if ctx.stopper.stopped() {
            // Keep what the finished moves showed.
            break;
        }
        if (maximizing && v > best) || (!maximizing && v < best) {
            best = v;
            ctx.pv.update(0, m);
        }
        scored.push(ScoredMove::scored(m, white_pov(root, v), Bound::Exact));
    }
    tracer.leave(best);
    ctx.analysis(scored, depth.max(1))
}
