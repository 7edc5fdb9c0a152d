//! Distance-to-mate tables as a source of known moves: `WithDtm` is a rung of the ladder that
//! plays the endgames the tables cover perfectly, as the tutorial's alpha-beta did with Gaviota.

use std::sync::Arc;

use shakmaty::Position;

use super::first::{First, MoveSource};
use crate::core::{Bound, Game, Limits};
use crate::engine::{Analysis, Engine, ScoredMove};
use crate::tb::dtm::{DtmTables, rank_moves};

pub struct DtmMoves {
    tables: Arc<dyn DtmTables>,
}

impl MoveSource for DtmMoves {
    fn known_move(&mut self, game: &Game, _: &Limits) -> Option<Analysis> {
        let pos = game.position();
        if pos.board().occupied().count() > 5 || !pos.castles().is_empty() {
            return None;
        }
        let moves: Vec<ScoredMove> = rank_moves(self.tables.as_ref(), pos)?
            .into_iter()
            .map(|(mv, score)| ScoredMove::scored(mv, score, Bound::Exact))
            .collect();
        let best = moves.first()?;
        Some(Analysis {
            best: Some(best.mv),
            score: best.score,
            pv: vec![best.mv],
            moves,
            ..Analysis::default()
        })
    }
}

pub type WithDtm = First<DtmMoves>;

/// `inner` playing from the distance-to-mate `tables` where they cover the position.
pub fn with_dtm(inner: Box<dyn Engine>, tables: Arc<dyn DtmTables>) -> WithDtm {
    First::new(DtmMoves { tables }, inner)
}
