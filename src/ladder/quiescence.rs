//! Rung 10, `quiescence`: don't stop counting in the middle of an exchange. At the horizon, instead
//! of counting the board at once, keep searching captures and promotions only (most valuable
//! victim first) until the position is quiet. The side to move may also decline every capture
//! and keep the count as it stands ("stand pat"), so the capture search is a lower bound it can
//! always reach.

use shakmaty::{Board, Chess, MoveList, Position};

use crate::core::moves::mvv_lva;
use crate::core::pv::MAX_PLY;
use crate::eval::material;
use crate::ladder::tt::{Leaf, TtSearch};
use crate::ladder::{Ctx, Node, white_pov};

/// Searches captures and promotions from `pos` within `alpha..beta`, standing pat on `eval`
/// (a White's-point-of-view evaluation).
pub fn qsearch(
    pos: &Chess,
    moves: &MoveList,
    mut alpha: i32,
    beta: i32,
    ply: u32,
    ctx: &mut Ctx,
    eval: fn(&Board) -> i32,
) -> i32 {
    let stand_pat = white_pov(pos, eval(pos.board()));
    if stand_pat >= beta || ply as usize >= MAX_PLY - 1 {
        return stand_pat;
    }
    alpha = alpha.max(stand_pat);
    let mut best = stand_pat;
    let mut noisy: MoveList = moves
        .iter()
        .copied()
        .filter(|m| m.is_capture() || m.is_promotion())
        .collect();
    // Pieces valued by rank (pawn 1 .. king 6): only the order matters here.
    let rank = |r: shakmaty::Role| r as i32;
    noisy.sort_by_key(|&m| std::cmp::Reverse(mvv_lva(m, rank, rank)));
    for m in noisy {
        if ctx.stop() {
            return 0;
        }
        let child = ctx.play(pos, m);
        let v = match ctx.visit(&child, ply + 1) {
            Node::Over(v) => -v,
            Node::Moves(replies) => -qsearch(&child, &replies, -beta, -alpha, ply + 1, ctx, eval),
        };
        ctx.back();
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The capture search as the horizon of the table search, on a given evaluation.
pub struct QuiescenceLeaf {
    pub eval: fn(&Board) -> i32,
}

impl Leaf for QuiescenceLeaf {
    fn value(
        &self,
        pos: &Chess,
        moves: &MoveList,
        alpha: i32,
        beta: i32,
        ply: u32,
        ctx: &mut Ctx,
    ) -> i32 {
        qsearch(pos, moves, alpha, beta, ply, ctx, self.eval)
    }
}

/// The `quiescence` rung: the table search with the capture search on material at its horizon.
pub fn engine() -> TtSearch<QuiescenceLeaf> {
    TtSearch::with_leaf(
        "quiescence",
        QuiescenceLeaf {
            eval: material::evaluate,
        },
    )
}
