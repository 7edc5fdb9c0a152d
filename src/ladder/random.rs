//! Rung 1, `random`: a uniformly random legal move. The baseline every other idea is measured
//! against; with a seed it plays the same game every time.

use shakmaty::Position;

use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Engine, EngineOptions, ScoredMove};

pub struct RandomMover {
    rng: Rng,
}

impl RandomMover {
    pub fn new(options: &EngineOptions) -> RandomMover {
        RandomMover {
            rng: Rng::new(options.seed),
        }
    }
}

impl Engine for RandomMover {
    fn name(&self) -> &'static str {
        "random"
    }

    fn analyse(&mut self, game: &Game, _limits: &Limits) -> Analysis {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            return Analysis::default();
        }
        let best = moves[self.rng.index(moves.len())];
        Analysis {
            best: Some(best),
            pv: vec![best],
            moves: moves.iter().map(|&m| ScoredMove::unscored(m)).collect(),
            nodes: 1,
            ..Analysis::default()
        }
    }
}
