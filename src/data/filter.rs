//! Which positions of a data set training reads (`rookery train --max-score`, `--skip-plies`).
//!
//! The generator already keeps only quiet positions (not in check, the move played neither
//! captures nor promotes) below a decided score (5,000); the filters here narrow a set further
//! without generating it again:
//!
//! - `max_score`: leave out positions whose search score is beyond it, either sign (a position a
//!   side is winning by several pawns teaches the net little about balanced play, and its score
//!   is the least exact);
//! - `skip_plies`: leave out each game's positions fewer than this many plies after its first
//!   kept one (the positions just after the random opening plies, still odd and often
//!   lopsided). Plies are only known from a data set's game logs, so this filter needs a data
//!   directory whose chunks have them (what `rookery datagen` writes and `rookery data unpack`
//!   gives back); a file of bare records is refused.

use super::Record;
use super::games::GameLog;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Leave out positions whose score's magnitude is above this (centipawns).
    pub max_score: Option<i32>,
    /// Leave out each game's positions fewer than this many plies after its first kept one.
    pub skip_plies: usize,
}

/// What filtering kept of what it read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filtered {
    pub read: u64,
    pub kept: u64,
}

impl Filter {
    /// True when the filter keeps every position.
    pub fn keeps_all(&self) -> bool {
        self.max_score.is_none() && self.skip_plies == 0
    }

    /// True when the filter needs to know each position's ply (so, the game logs).
    pub fn needs_plies(&self) -> bool {
        self.skip_plies > 0
    }

    /// True when a position scored `score` (side to move's) passes the score filter.
    pub fn keeps_score(&self, score: i32) -> bool {
        self.max_score.is_none_or(|m| score.abs() <= m)
    }

    /// The filter in words, for logs and a net's provenance: "none" when it keeps everything.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = self.max_score {
            parts.push(format!("|score| <= {m}"));
        }
        if self.skip_plies > 0 {
            parts.push(format!(
                "{} plies after each game's first kept position skipped",
                self.skip_plies
            ));
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// Drops from `records` (positions without their plies) those the score filter leaves out.
    /// The ply filter cannot be applied here: callers check `needs_plies` first.
    pub fn retain(&self, records: &mut Vec<Record>, counts: &mut Filtered) {
        counts.read += records.len() as u64;
        if self.max_score.is_some() {
            records.retain(|r| self.keeps_score(i32::from(r.score)));
        }
        counts.kept += records.len() as u64;
    }

    /// The records of `game`'s kept positions that pass the filter, appended to `out`, in order.
    pub fn game_records(&self, game: &GameLog, out: &mut Vec<Record>, counts: &mut Filtered) {
        let first = game.kept.first().map_or(0, |&(ply, _)| ply);
        let records = game.records();
        counts.read += records.len() as u64;
        for (record, &(ply, score)) in records.into_iter().zip(&game.kept) {
            if ply >= first + self.skip_plies && self.keeps_score(score) {
                out.push(record);
                counts.kept += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::{parse_fen, parse_move};
    use shakmaty::{Chess, Position};

    /// A game from the start: 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6, every position after the second ply
    /// kept with the scores given (plies 2..=6).
    fn game(scores: [i32; 5]) -> GameLog {
        let start: Chess =
            parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for m in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"] {
            let mv = parse_move(&pos, m).unwrap();
            pos.play_unchecked(mv);
            moves.push(mv);
        }
        GameLog {
            index: 0,
            result: 2,
            start,
            moves,
            kept: (2..=6).zip(scores).collect(),
        }
    }

    #[test]
    fn no_filter_keeps_a_games_records_as_they_are() {
        let g = game([10, -20, 30, -40, 50]);
        let (mut out, mut counts) = (Vec::new(), Filtered::default());
        let f = Filter::default();
        assert!(f.keeps_all() && !f.needs_plies());
        assert_eq!(f.describe(), "none");
        f.game_records(&g, &mut out, &mut counts);
        assert_eq!(out, g.records());
        assert_eq!(counts, Filtered { read: 5, kept: 5 });
    }

    #[test]
    fn the_ply_filter_counts_from_the_first_kept_position() {
        let g = game([10, -20, 30, -40, 50]);
        let all = g.records();
        let f = Filter {
            skip_plies: 2,
            ..Filter::default()
        };
        assert!(f.needs_plies() && !f.keeps_all());
        let (mut out, mut counts) = (Vec::new(), Filtered::default());
        f.game_records(&g, &mut out, &mut counts);
        // Plies 2 and 3 are within two plies of the first kept one (ply 2): left out.
        assert_eq!(out, all[2..].to_vec());
        assert_eq!(counts, Filtered { read: 5, kept: 3 });
        // Records come one after another from the games: the counts add up.
        f.game_records(&g, &mut out, &mut counts);
        assert_eq!(counts, Filtered { read: 10, kept: 6 });
        let past = Filter {
            skip_plies: 9,
            ..Filter::default()
        };
        let mut none = Vec::new();
        past.game_records(&g, &mut none, &mut Filtered::default());
        assert!(none.is_empty());
    }

    #[test]
    fn the_score_filter_leaves_out_both_signs_beyond_it() {
        let g = game([10, -300, 299, 301, -299]);
        let f = Filter {
            max_score: Some(299),
            ..Filter::default()
        };
        assert!(!f.needs_plies() && !f.keeps_all());
        assert!(f.keeps_score(-299) && f.keeps_score(299) && !f.keeps_score(-300));
        let (mut out, mut counts) = (Vec::new(), Filtered::default());
        f.game_records(&g, &mut out, &mut counts);
        let scores: Vec<i16> = out.iter().map(|r| r.score).collect();
        assert_eq!(scores, vec![10, 299, -299]);
        // The same filter on bare records gives the same positions.
        let mut records = g.records();
        let mut counts2 = Filtered::default();
        f.retain(&mut records, &mut counts2);
        assert_eq!(records, out);
        assert_eq!(counts2, counts);
        assert_eq!(f.describe(), "|score| <= 299");
        let both = Filter {
            max_score: Some(299),
            skip_plies: 3,
        };
        let mut out = Vec::new();
        both.game_records(&g, &mut out, &mut Filtered::default());
        let scores: Vec<i16> = out.iter().map(|r| r.score).collect();
        assert_eq!(
            scores,
            vec![-299],
            "ply 5 (301) fails the score, ply 6 passes both"
        );
        assert!(both.describe().contains("3 plies"));
    }
}
