//! Distance-to-mate tables for the tutorial's engines: with tables that know the distance to mate
//! (Gaviota), a rung plays the endgames they cover perfectly, the fastest mate when winning and
//! the longest resistance when losing, as the tutorial's alpha-beta did.

use std::sync::Arc;

use shakmaty::{Chess, Position};

use crate::core::score::{mate_in, mated_in};
use crate::core::{Game, Limits};
use crate::engine::{Analysis, Engine, Report, ScoredMove, Settings};

/// Tables that give the distance to mate of a position.
pub trait DtmTables: Send + Sync + std::fmt::Debug {
    /// Plies to mate from the side to move: positive when it mates, negative when it is mated,
    /// 0 for a draw; `None` when the tables do not cover the position.
    fn probe_dtm(&self, pos: &Chess) -> Option<i32>;
}

/// Every legal move with the score the tables give it (mate scores from the mover's side), best
/// first; `None` unless every move's result is known.
pub fn rank_moves(tables: &dyn DtmTables, pos: &Chess) -> Option<Vec<ScoredMove>> {
    let mut out = Vec::new();
    for m in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let score = if after.is_checkmate() {
            mate_in(1)
        } else if after.legal_moves().is_empty() || after.is_insufficient_material() {
            0
        } else {
            // The opponent's distance, one ply further from here.
            match -tables.probe_dtm(&after)? {
                0 => 0,
                d if d > 0 => mate_in(d as u32 + 1),
                d => mated_in((-d) as u32 + 1),
            }
        };
        out.push(ScoredMove {
            mv: m,
            score: Some(score),
            bound: crate::engine::Bound::Exact,
            weight: None,
        });
    }
    out.sort_by_key(|m| std::cmp::Reverse(m.score));
    Some(out)
}

/// A rung of the ladder that consults distance-to-mate tables first.
pub struct WithDtm {
    inner: Box<dyn Engine>,
    tables: Arc<dyn DtmTables>,
}

impl WithDtm {
    pub fn new(inner: Box<dyn Engine>, tables: Arc<dyn DtmTables>) -> WithDtm {
        WithDtm { inner, tables }
    }

    fn table_move(&self, game: &Game) -> Option<Analysis> {
        let pos = game.position();
        if pos.board().occupied().count() > 5 || !pos.castles().is_empty() {
            return None;
        }
        let moves = rank_moves(self.tables.as_ref(), pos)?;
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

impl Engine for WithDtm {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn analyse(&mut self, game: &Game, limits: &Limits) -> Analysis {
        self.table_move(game)
            .unwrap_or_else(|| self.inner.analyse(game, limits))
    }

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        report: &mut dyn FnMut(Report<'_>),
    ) -> Analysis {
        match self.table_move(game) {
            Some(a) => {
                report(Report::Iteration(&a));
                a
            }
            None => self.inner.search(game, limits, report),
        }
    }

    fn configure(&mut self, settings: &Settings) {
        self.inner.configure(settings)
    }

    fn new_game(&mut self) {
        self.inner.new_game()
    }

    fn default_limits(&self) -> Limits {
        self.inner.default_limits()
    }
}
