//! Rung 3, `greedy`: look one move ahead and count material. Every legal move is played, the
//! resulting board is counted (pawn 1, knight 3, bishop 3, rook 5, queen 9; a mate beats all
//! material, a draw is 0), and the best count wins; equal counts are broken at random.
//! Book moves come first while the position is in the book.

use shakmaty::Position;

use crate::core::Bound;
use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Engine, Reporter, ScoredMove, report_final};
use crate::eval::material;
use crate::ladder::{Ctx, Node};

pub struct Greedy {
    rng: Rng,
}

impl Greedy {
    pub fn new(seed: u64) -> Greedy {
        Greedy {
            rng: Rng::new(seed),
        }
    }
}

/// Scores every root move with `score_after` (the side to move's point of view, given the position
/// after the move, or the game's end there) and picks the best, ties broken with `rng`.
/// Shared by `greedy` and `greedy-incremental`, which differ only in how they count.
pub fn one_ply(
    game: &Game,
    limits: &Limits,
    rng: &mut Rng,
    mut count: impl FnMut(shakmaty::Move, &shakmaty::Chess) -> i32,
) -> Analysis {
    let root = game.position();
    let mut ctx = Ctx::new(game, limits);
    let Node::Moves(moves) = ctx.visit(root, 0) else {
        return Analysis::default();
    };
    let mut scored = Vec::with_capacity(moves.len());
    for &m in &moves {
        let child = ctx.play(root, m);
        let score = match ctx.visit(&child, 1) {
            // The child's value is from its side to move: the opponent.
            Node::Over(v) => -v,
            Node::Moves(_) => count(m, &child),
        };
        ctx.back();
        scored.push(ScoredMove::scored(m, score, Bound::Exact));
    }
    let best_score = scored.iter().filter_map(|s| s.score).max().unwrap_or(0);
    let ties: Vec<usize> = (0..scored.len())
        .filter(|&i| scored[i].score == Some(best_score))
        .collect();
    let best = scored[ties[rng.index(ties.len())]].mv;
    let mut analysis = ctx.analysis(scored, 1);
    analysis.best = Some(best);
    analysis.pv = vec![best];
    analysis.score = Some(best_score);
    analysis
}

impl Engine for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis {
        // Count the whole board after each move, from the mover's point of view.
        let mover = game.position().turn();
        let a = one_ply(game, limits, &mut self.rng, |_, child| {
            let white = material::evaluate(child.board());
            if mover == shakmaty::Color::White {
                white
            } else {
                -white
            }
        });
        report_final(a, report)
    }

    fn default_limits(&self) -> Limits {
        Limits::depth(1)
    }
}
