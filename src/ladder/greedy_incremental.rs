//! Rung 4, `greedy-incremental`: the same choices as `greedy`, but the board is counted once at
//! the root; each move's count is the root's plus what the move changes (the value of a capture,
//! the gain of a promotion). Same seed, same game, less work: `cargo bench` shows how much.

use shakmaty::{Color, Position};

use crate::core::{Game, Limits};
use crate::engine::{Analysis, Engine, EngineOptions};
use crate::eval::material;
use crate::ladder::book::Opening;
use crate::ladder::greedy::one_ply;

pub struct GreedyIncremental {
    opening: Opening,
}

impl GreedyIncremental {
    pub fn new(options: &EngineOptions) -> GreedyIncremental {
        GreedyIncremental {
            opening: Opening::new(options),
        }
    }
}

impl Engine for GreedyIncremental {
    fn name(&self) -> &'static str {
        "greedy-incremental"
    }

    fn analyse(&mut self, game: &Game, limits: &Limits) -> Analysis {
        if let Some(a) = self.opening.book_move(game) {
            return a;
        }
        let root = game.position();
        let mover = root.turn();
        let base = material::evaluate(root.board());
        one_ply(game, limits, &mut self.opening.rng, |m, child| {
            let white = base + material::move_delta(m, mover);
            debug_assert_eq!(
                white,
                material::evaluate(child.board()),
                "incremental count"
            );
            if mover == Color::White { white } else { -white }
        })
    }

    fn default_limits(&self) -> Limits {
        Limits::depth(1)
    }
}
