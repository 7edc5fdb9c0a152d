//! Rung 4, `greedy-incremental`: the same choices as `greedy`, but the board is counted once at
//! the root; each move's count is the root's plus what the move changes (the value of a capture,
//! the gain of a promotion). Same seed, same game, less work: `cargo bench` shows how much.

use shakmaty::{Color, Position};

use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Engine, Reporter, report_final};
use crate::eval::material;
use crate::ladder::greedy::one_ply;

pub struct GreedyIncremental {
    rng: Rng,
}

impl GreedyIncremental {
    pub fn new(seed: u64) -> GreedyIncremental {
        GreedyIncremental {
            rng: Rng::new(seed),
        }
    }
}

impl Engine for GreedyIncremental {
    fn name(&self) -> &'static str {
        "greedy-incremental"
    }

    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis {
        let root = game.position();
        let mover = root.turn();
        let base = material::evaluate(root.board());
        let a = one_ply(game, limits, &mut self.rng, |m, child| {
            let white = base + material::move_delta(m, mover);
            debug_assert_eq!(
                white,
                material::evaluate(child.board()),
                "incremental count"
            );
            if mover == Color::White { white } else { -white }
        });
        report_final(a, report)
    }

    fn default_limits(&self) -> Limits {
        Limits::depth(1)
    }
}
