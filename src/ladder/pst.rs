//! Rung 11, `pst`: know where pieces belong. The same search as `quiescence`, but positions are
//! judged by the Simplified Evaluation Function: piece values 100/320/330/500/900 plus a bonus or
//! malus for each piece's square (knights in the centre, rooks on the seventh, the king sheltered
//! in the middlegame and active in the endgame). See `eval::pst`.

use crate::core::{Game, Limits};
use crate::engine::{Analysis, Engine, EngineOptions};
use crate::eval::pst;
use crate::ladder::quiescence::QuiescenceLeaf;
use crate::ladder::tt::TtSearch;

pub struct Pst(TtSearch<QuiescenceLeaf>);

impl Pst {
    pub fn new(options: &EngineOptions) -> Pst {
        Pst(TtSearch::with_leaf(
            options,
            QuiescenceLeaf {
                eval: pst::evaluate,
            },
        ))
    }
}

impl Engine for Pst {
    fn name(&self) -> &'static str {
        "pst"
    }

    fn analyse(&mut self, game: &Game, limits: &Limits) -> Analysis {
        self.0.analyse_with_table(game, limits)
    }

    fn new_game(&mut self) {
        self.0.table.clear();
    }

    fn default_limits(&self) -> Limits {
        Limits::movetime_ms(1000)
    }
}
