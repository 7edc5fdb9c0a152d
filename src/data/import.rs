//! Training records from games other programs played: PGN as fastchess writes it (and so
//! OpenBench, whose games fastchess plays), where each engine move's comment starts with the
//! mover's score and depth, `{+0.33/14 0.080s, ...}` (`core::pgn::engine_score` reads it).
//!
//! Each move with a score gives the record of the position before it: that position, the score
//! (the mover's, so the side to move's, as records keep it) and the game's result from its
//! `Result` tag. As with self-play, some positions are left out, each counted under the first of
//! these reasons that holds: the move has no score (a book move, `{book}`); the position comes
//! before `min_ply`; the side to move is in check; the move captures or promotes; the score is
//! decided (|score| at least `max_score`: mates, won endings). Games without a result (`*`) are
//! left out whole, and so is a game that cannot be replayed (a bad FEN, an illegal move).

use shakmaty::Position;

use super::Record;
use crate::core::pgn::{PgnGame, engine_score, games};
use crate::data::DECIDED;

/// Which positions to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// Keep positions whose side to move is in check.
    pub keep_checks: bool,
    /// Keep positions whose move captures or promotes.
    pub keep_noisy: bool,
    /// Leave out the positions before this ply of each game (0: its start position).
    pub min_ply: usize,
    /// Leave out positions scored this much or more either way.
    pub max_score: i32,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            keep_checks: false,
            keep_noisy: false,
            min_ply: 0,
            max_score: DECIDED,
        }
    }
}

/// What an import read, kept and left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportCounts {
    /// Games read, in all.
    pub games: u64,
    /// Games whose positions were looked at: replayed whole, with a result.
    pub used: u64,
    /// Games without a result (`*`, or no `Result` tag).
    pub unfinished: u64,
    /// Games that could not be replayed.
    pub bad: u64,
    /// Records written.
    pub positions: u64,
    /// Positions left out, by reason.
    pub no_score: u64,
    pub early: u64,
    pub in_check: u64,
    pub noisy: u64,
    pub decided: u64,
}

impl ImportCounts {
    /// The summary `rookery data import` prints: games, positions, and the positions left out.
    pub fn summary(&self, out: &str, opts: &ImportOptions) -> String {
        format!(
            "games: {} read, {} used, {} without a result, {} bad\n\
             positions: {} written to {out}\n\
             left out: {} without a score (book moves), {} before ply {}, {} in check, \
             {} captures or promotions, {} with |score| >= {}\n",
            self.games,
            self.used,
            self.unfinished,
            self.bad,
            self.positions,
            self.no_score,
            self.early,
            opts.min_ply,
            self.in_check,
            self.noisy,
            self.decided,
            opts.max_score
        )
    }
}

/// The game's result for White (1, 0.5 or 0), `None` for any other `Result` than `1-0`, `0-1`
/// and `1/2-1/2`.
fn white_result(game: &PgnGame) -> Option<f64> {
    match game.tag("Result")?.trim() {
        "1-0" => Some(1.0),
        "0-1" => Some(0.0),
        "1/2-1/2" => Some(0.5),
        _ => None,
    }
}

/// Appends the records of the games of PGN `text` to `out` and counts what was read in `counts`.
/// A game that cannot be replayed is left out and counted; `bad` is told its number in `text`
/// (1 first) and its problem.
pub fn import_pgn(
    text: &str,
    opts: &ImportOptions,
    counts: &mut ImportCounts,
    out: &mut Vec<Record>,
    mut bad: impl FnMut(u64, String),
) {
    for (i, game) in games(text).enumerate() {
        counts.games += 1;
        if let Some(problem) = &game.error {
            counts.bad += 1;
            let at = if game.moves.is_empty() && game.tag("FEN").is_some() {
                String::new()
            } else {
                format!(", ply {}", game.moves.len() + 1)
            };
            bad(i as u64 + 1, format!("{problem}{at}"));
            continue;
        }
        let Some(result) = white_result(&game) else {
            counts.unfinished += 1;
            continue;
        };
        counts.used += 1;
        let mut pos = game.start.clone();
        for (ply, &m) in game.moves.iter().enumerate() {
            let reason = match game.comment(ply).and_then(engine_score) {
                None => Some(&mut counts.no_score),
                Some(_) if ply < opts.min_ply => Some(&mut counts.early),
                Some(_) if !opts.keep_checks && pos.is_check() => Some(&mut counts.in_check),
                Some(_) if !opts.keep_noisy && (m.is_capture() || m.is_promotion()) => {
                    Some(&mut counts.noisy)
                }
                Some(s) if s.score.abs() >= opts.max_score => Some(&mut counts.decided),
                Some(s) => {
                    out.push(Record::new(&pos, s.score, result));
                    counts.positions += 1;
                    None
                }
            };
            if let Some(count) = reason {
                *count += 1;
            }
            pos.play_unchecked(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use crate::core::score::MATE;

    /// Scholar's mate as fastchess writes it: two book moves, scores for both sides, a mate
    /// score and a mating capture.
    const SCHOLAR: &str = "[Event \"Fastchess Tournament\"]\n[Round \"1\"]\n[Result \"1-0\"]\n\n\
        1. e4 {book} e5 {book} 2. Qh5 {+0.31/12 0.102s, tl=9.898s, latency=0.002s}\n\
        Nc6 {-0.45/11 0.095s, tl=9.905s} 3. Bc4 {+0.80/13 0.110s, tl=9.790s}\n\
        Nf6 {-M2/18 0.020s, tl=9.885s} 4. Qxf7# {+M1/245 0.001s, tl=9.789s, White mates} 1-0\n";

    fn import(text: &str, opts: &ImportOptions) -> (Vec<Record>, ImportCounts, Vec<u64>) {
        let (mut records, mut counts, mut bad) = (Vec::new(), ImportCounts::default(), Vec::new());
        import_pgn(text, opts, &mut counts, &mut records, |n, _| bad.push(n));
        (records, counts, bad)
    }

    #[test]
    fn scores_are_the_movers_and_results_the_side_to_moves() {
        let (records, counts, bad) = import(SCHOLAR, &ImportOptions::default());
        let before =
            |fen: &str, score, result| Record::new(&parse_fen(fen).unwrap(), score, result);
        assert_eq!(
            records,
            vec![
                before(
                    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                    31,
                    1.0
                ),
                before(
                    "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2",
                    -45,
                    1.0
                ),
                before(
                    "r1bqkbnr/pppp1ppp/2n5/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 3",
                    80,
                    1.0
                ),
            ]
        );
        // Black to move: its own score and its own result (a loss).
        assert_eq!((records[1].score, records[1].result), (-45, 0));
        assert_eq!((records[0].score, records[0].result), (31, 2));
        assert!(bad.is_empty());
        assert_eq!(
            counts,
            ImportCounts {
                games: 1,
                used: 1,
                positions: 3,
                no_score: 2,
                noisy: 1,
                decided: 1,
                ..ImportCounts::default()
            }
        );
        // With the cap above the mates, Black's mated score is kept as Rookery's search keeps
        // one: mated in two plies.
        let keep_all = ImportOptions {
            max_score: 32_000,
            keep_noisy: true,
            ..ImportOptions::default()
        };
        let (records, counts, _) = import(SCHOLAR, &keep_all);
        assert_eq!(counts.positions, 5);
        assert_eq!(i32::from(records[3].score), -(MATE - 2));
        assert_eq!(
            (i32::from(records[4].score), records[4].result),
            (MATE - 1, 2)
        );
    }

    #[test]
    fn games_without_a_result_or_that_cannot_be_replayed_are_counted_and_left_out() {
        let unfinished = SCHOLAR.replace("[Result \"1-0\"]", "[Result \"*\"]");
        let illegal = "[Result \"1-0\"]\n\n1. e4 {book} e5 {book} 2. Ke3 {+0.10/3 0.1s} 1-0\n";
        let text = format!("{unfinished}\n{illegal}\n{SCHOLAR}");
        let opts = ImportOptions {
            min_ply: 3,
            ..ImportOptions::default()
        };
        let (records, counts, bad) = import(&text, &opts);
        assert_eq!(bad, vec![2]);
        assert_eq!(
            (counts.games, counts.used, counts.unfinished, counts.bad),
            (3, 1, 1, 1)
        );
        // Qh5's position comes before ply 3; Nc6's and Bc4's are kept.
        assert_eq!((counts.early, counts.positions), (1, 2));
        assert_eq!(records[0].score, -45);
        let summary = counts.summary("x.bin", &opts);
        assert!(
            summary.starts_with("games: 3 read, 1 used, 1 without a result, 1 bad\n"),
            "{summary}"
        );
        assert!(summary.contains("1 before ply 3"), "{summary}");
        let mut message = String::new();
        import_pgn(
            illegal,
            &opts,
            &mut ImportCounts::default(),
            &mut Vec::new(),
            |_, m| message = m,
        );
        assert_eq!(message, "move 'Ke3': illegal in this position, ply 3");
    }
}
