//! Builds a Polyglot book from games: every position of the first plies of each game, and the move
//! played there, with how often it was played and how it scored for the side that played it.
//!
//! Weight = 5 x (2 x wins + draws), capped at 65535: a move's points, times ten. So the default
//! minimum weight of 50 asks for moves that scored at least five points in the games.

use std::collections::HashMap;

use shakmaty::{Color, KnownOutcome, Position};

use crate::core::game::hash;
use crate::core::moves::encode_move;
use crate::core::pgn::PgnGame;

#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Plies of each game that go into the book.
    pub max_plies: usize,
    /// Moves played in fewer games than this are left out.
    pub min_games: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_plies: 20,
            min_games: 3,
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    games: u32,
    wins: u32,
    draws: u32,
}

/// What a build did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BuildReport {
    pub games_used: usize,
    pub games_skipped: usize,
    pub entries: usize,
}

/// The book bytes for `games`, and what went into them.
pub fn build(games: &[PgnGame], options: BuildOptions) -> (Vec<u8>, BuildReport) {
    let mut tallies: HashMap<(u64, u16), Tally> = HashMap::new();
    let mut report = BuildReport::default();
    for game in games {
        let outcome = game
            .tag("Result")
            .and_then(|r| r.parse::<KnownOutcome>().ok());
        let Some(outcome) = outcome else {
            report.games_skipped += 1;
            continue;
        };
        report.games_used += 1;
        let mut pos = game.start.clone();
        for &m in game.moves.iter().take(options.max_plies) {
            let mover: Color = pos.turn();
            let t = tallies.entry((hash(&pos), encode_move(m))).or_default();
            t.games += 1;
            match outcome.winner() {
                Some(w) if w == mover => t.wins += 1,
                Some(_) => {}
                None => t.draws += 1,
            }
            pos.play_unchecked(m);
        }
    }
    let mut entries: Vec<(u64, u16, u16)> = tallies
        .into_iter()
        .filter(|(_, t)| t.games >= options.min_games)
        .map(|((key, mv), t)| {
            let weight = (5 * (2 * t.wins + t.draws)).min(u32::from(u16::MAX)) as u16;
            (key, mv, weight)
        })
        .filter(|&(_, _, w)| w > 0)
        .collect();
    // Sorted by key (Polyglot's binary search needs it), heaviest move first within a key.
    entries.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.1.cmp(&b.1)));
    let mut bytes = Vec::with_capacity(entries.len() * 16);
    for (key, mv, weight) in &entries {
        bytes.extend_from_slice(&key.to_be_bytes());
        bytes.extend_from_slice(&mv.to_be_bytes());
        bytes.extend_from_slice(&weight.to_be_bytes());
        bytes.extend_from_slice(&0u32.to_be_bytes());
    }
    report.entries = entries.len();
    (bytes, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::Book;
    use crate::core::pgn::read_games;
    use shakmaty::Chess;

    #[test]
    fn weights_count_points() {
        let pgn = "[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"1/2-1/2\"]\n1. e4 c5 1/2-1/2\n\n\
                   [Result \"0-1\"]\n1. d4 d5 0-1\n\n[Result \"*\"]\n1. c4 *\n";
        let games = read_games(pgn);
        let (bytes, report) = build(
            &games,
            BuildOptions {
                max_plies: 1,
                min_games: 1,
            },
        );
        assert_eq!(report.games_used, 3);
        assert_eq!(report.games_skipped, 1);
        let book = Book::from_bytes(bytes).unwrap();
        let entries = book.entries(&Chess::default());
        // e4: a win and a draw = 3 half-points... 5 x 3 = 15; d4 lost its only game: left out.
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].weight, 15);
    }
}
