//! Rung 8, `iterative`: search depth 1, then 2, then 3, ... until the time is up, and play the
//! result of the deepest search that finished. A fixed depth is either too shallow or too slow;
//! deepening adapts to the clock, and each iteration's best move, searched first in the next,
//! makes alpha-beta cut sooner.

use shakmaty::{Chess, Move};

use crate::core::pv::MAX_PLY;
use crate::core::trace::NoTrace;
use crate::core::{Game, Limits};
use crate::engine::{Analysis, Engine, Report, Reporter, ScoredMove};
use crate::ladder::{Ctx, Node, negamax};

/// Deepest iteration when only time bounds the search.
pub const MAX_DEPTH: u32 = 64;

/// Iterative deepening around any root search. `root_search(ctx, pos, moves, depth)` searches the
/// root moves in the order given and returns their scores, or `None` if it was stopped. Depth 1
/// always finishes, so there is always a move to play.
pub fn deepen(
    game: &Game,
    limits: &Limits,
    report: Reporter<'_>,
    mut root_search: impl FnMut(&mut Ctx, &Chess, &[Move], u32) -> Option<Vec<ScoredMove>>,
) -> Analysis {
    let pos = game.position();
    let mut ctx = Ctx::new(game, limits);
    ctx.may_stop = false;
    let moves = match ctx.visit(pos, 0) {
        Node::Over(_) => return ctx.analysis(Vec::new(), 0),
        Node::Moves(moves) => moves,
    };
    let max_depth = limits
        .depth_or_mate()
        .unwrap_or(MAX_DEPTH)
        .clamp(1, MAX_PLY as u32 / 2);
    let mut order: Vec<Move> = moves.to_vec();
    let mut result = Analysis::default();
    for depth in 1..=max_depth {
        ctx.may_stop = depth > 1;
        let Some(scored) = root_search(&mut ctx, pos, &order, depth) else {
            break;
        };
        result = ctx.analysis(scored, depth);
        report(Report::Iteration(&result));
        // Best first next time: the sort in `analysis` is stable, so ties keep their order.
        order = result.moves.iter().map(|s| s.mv).collect();
        if ctx.stopper.no_new_iteration() {
            // The next iteration would not finish in the time left.
            break;
        }
    }
    result.nodes = ctx.nodes;
    result.seldepth = ctx.seldepth;
    result.elapsed = ctx.stopper.elapsed();
    result
}

/// Negamax inside iterative deepening.
pub struct Iterative;

impl Engine for Iterative {
    fn name(&self) -> &'static str {
        "iterative"
    }

    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis {
        let all = limits.score_all_moves;
        deepen(game, limits, report, |ctx, pos, moves, depth| {
            negamax::root(pos, moves, depth, all, ctx, &mut NoTrace)
        })
    }

    fn default_limits(&self) -> Limits {
        Limits::movetime_ms(1000)
    }
}
