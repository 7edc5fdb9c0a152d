//! Rung 1, `random`: a uniformly random legal move. The baseline every other idea is measured
//! against; with a seed it plays the same game every time.

use shakmaty::Position;

use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Engine, Reporter, ScoredMove, report_final};

pub struct RandomMover {
    rng: Rng,
}

impl RandomMover {
    pub fn new(seed: u64) -> RandomMover {
        RandomMover {
            rng: Rng::new(seed),
        }
    }
}

impl Engine for RandomMover {
    fn name(&self) -> &'static str {
        "random"
    }

    fn search(&mut self, game: &Game, _limits: &Limits, report: Reporter<'_>) -> Analysis {
        report_final(random_move(game, &mut self.rng), report)
    }
}

/// A uniformly random legal move, as an analysis (empty when the game is over).
pub fn random_move(game: &Game, rng: &mut Rng) -> Analysis {
    let moves = game.position().legal_moves();
    if moves.is_empty() {
        return Analysis::default();
    }
    let best = moves[rng.index(moves.len())];
    Analysis {
        best: Some(best),
        pv: vec![best],
        moves: moves.iter().map(|&m| ScoredMove::unscored(m)).collect(),
        nodes: 1,
        ..Analysis::default()
    }
}
