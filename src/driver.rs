//! One game-driving core for every place a game is played: the terminal game (`rookery play`),
//! engine games (`rookery game`, `play_out`) and the match runner. The rules they share live
//! here once: when the laws of chess end a game and how that is said, the result, and the PGN
//! record with its roster and Termination tag.

use shakmaty::{Color, KnownOutcome, Position};

use crate::core::{Game, Limits, Termination, pgn};
use crate::engine::{Analysis, Engine};
use crate::error::Error;

/// The result of a game, as PGN writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
    /// Stopped before the end (`*`).
    Unfinished,
}

impl Outcome {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::Unfinished => "*",
        }
    }

    /// White's points (1, 0.5 or 0); `None` for an unfinished game.
    pub fn white_score(self) -> Option<f64> {
        match self {
            Outcome::WhiteWins => Some(1.0),
            Outcome::BlackWins => Some(0.0),
            Outcome::Draw => Some(0.5),
            Outcome::Unfinished => None,
        }
    }

    /// The outcome for White's points (more than half a point wins).
    pub fn from_white_score(score: f64) -> Outcome {
        if score > 0.5 {
            Outcome::WhiteWins
        } else if score < 0.5 {
            Outcome::BlackWins
        } else {
            Outcome::Draw
        }
    }

    /// `side` loses.
    pub fn loss_for(side: Color) -> Outcome {
        match side {
            Color::White => Outcome::BlackWins,
            Color::Black => Outcome::WhiteWins,
        }
    }

    fn from_known(outcome: KnownOutcome) -> Outcome {
        match outcome.winner() {
            Some(Color::White) => Outcome::WhiteWins,
            Some(Color::Black) => Outcome::BlackWins,
            None => Outcome::Draw,
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub outcome: Outcome,
    pub termination: Termination,
    /// A sentence for people: "White mates", "draw by stalemate", "Black resigns".
    pub reason: String,
}

impl GameEnd {
    /// The value of PGN's Termination tag: `normal` when the laws of chess (or a resignation)
    /// ended it, `unterminated` when it was stopped.
    pub fn pgn_termination(&self) -> &'static str {
        match self.termination {
            Termination::MaxPlies | Termination::Unfinished => "unterminated",
            _ => "normal",
        }
    }

    /// The game stopped unfinished, for `reason`.
    pub fn unfinished(termination: Termination, reason: impl Into<String>) -> GameEnd {
        GameEnd {
            outcome: Outcome::Unfinished,
            termination,
            reason: reason.into(),
        }
    }

    /// `side` resigned.
    pub fn resignation(side: Color) -> GameEnd {
        GameEnd {
            outcome: Outcome::loss_for(side),
            termination: Termination::Resignation,
            reason: format!("{} resigns", color_name(side)),
        }
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The end the laws of chess put to `game` now, if any: checkmate, stalemate, insufficient
/// material, threefold or fivefold repetition, the 50- or 75-move rule.
pub fn rules_end(game: &Game) -> Option<GameEnd> {
    let (outcome, why) = game.outcome()?;
    Some(GameEnd {
        outcome: Outcome::from_known(outcome),
        termination: why,
        reason: describe(outcome, why),
    })
}

/// A sentence for how a game ended: "White mates", "draw by stalemate".
pub fn describe(outcome: KnownOutcome, why: Termination) -> String {
    match outcome.winner() {
        Some(c) if why == Termination::Checkmate => format!("{} mates", color_name(c)),
        Some(c) => format!("{} wins by {why}", color_name(c)),
        None => format!("draw by {why}"),
    }
}

/// Who played and where, for the PGN record.
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub event: String,
    pub site: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// More tags after the roster (Termination is added from the ending).
    pub extra: Vec<(&'static str, String)>,
}

/// The PGN record of `game`: the roster (dated today), the extra tags, the Termination tag,
/// and `comment` (or the ending's reason) after the last move.
pub fn pgn_record(
    game: &Game,
    header: &Header,
    result: Outcome,
    termination: &str,
    comment: &str,
) -> String {
    pgn_record_with_notes(game, header, result, termination, comment, &[])
}

/// `pgn_record` with a comment after each move (`pgn::write_with_notes`).
pub fn pgn_record_with_notes(
    game: &Game,
    header: &Header,
    result: Outcome,
    termination: &str,
    comment: &str,
    notes: &[String],
) -> String {
    let mut tags = vec![
        ("Event", header.event.clone()),
        ("Site", header.site.clone()),
        ("Date", pgn::today()),
        ("Round", header.round.clone()),
        ("White", header.white.clone()),
        ("Black", header.black.clone()),
        ("Termination", termination.to_string()),
    ];
    tags.extend(header.extra.iter().cloned());
    pgn::write_with_notes(game, &tags, result.pgn(), Some(comment), notes)
}

/// Writes the PGN record of a game that ended with `end` (its reason as the closing comment) to
/// the file `path`.
pub fn save_pgn(path: &str, game: &Game, header: &Header, end: &GameEnd) -> Result<(), Error> {
    let text = pgn_record(
        game,
        header,
        end.outcome,
        end.pgn_termination(),
        &end.reason,
    );
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// Plays `game` on between `white` and `black` until the rules end it or it reaches `max_plies`
/// half-moves, calling `on_move` before each move is played (with the game as it stands and the
/// analysis). An engine that returns no legal move is an error naming it.
pub fn play_out(
    game: &mut Game,
    white: &mut dyn Engine,
    black: &mut dyn Engine,
    limits: (&Limits, &Limits),
    max_plies: usize,
    mut on_move: impl FnMut(&Game, &Analysis) -> Result<(), Error>,
) -> Result<GameEnd, Error> {
    loop {
        if let Some(end) = rules_end(game) {
            return Ok(end);
        }
        if game.ply() >= max_plies {
            return Ok(GameEnd::unfinished(
                Termination::MaxPlies,
                format!("stopped after {max_plies} half-moves"),
            ));
        }
        let white_to_move = game.position().turn() == Color::White;
        let analysis = if white_to_move {
            white.analyse(game, limits.0)
        } else {
            black.analyse(game, limits.1)
        };
        let Some(m) = analysis.best.filter(|&m| game.position().is_legal(m)) else {
            let name = if white_to_move {
                white.name()
            } else {
                black.name()
            };
            return Err(Error::Invalid(format!("{name} returned no legal move")));
        };
        on_move(game, &analysis)?;
        game.play(m)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_end_a_game_and_say_how() {
        let mated = Game::from_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1").unwrap();
        let end = rules_end(&mated).unwrap();
        assert_eq!(end.outcome, Outcome::WhiteWins);
        assert_eq!(end.reason, "White mates");
        assert_eq!(end.pgn_termination(), "normal");
        let stalemate = Game::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(rules_end(&stalemate).unwrap().reason, "draw by stalemate");
        assert!(rules_end(&Game::default()).is_none());
        assert_eq!(GameEnd::resignation(Color::Black).outcome.pgn(), "1-0");
        assert_eq!(Outcome::from_white_score(0.5), Outcome::Draw);
    }

    #[test]
    fn the_record_has_the_roster_and_the_ending() {
        let mut g = Game::default();
        g.play_text("e4").unwrap();
        let header = Header {
            event: "Test".into(),
            white: "a".into(),
            black: "b".into(),
            extra: vec![("Seed", "7".into())],
            ..Header::default()
        };
        let text = pgn_record(&g, &header, Outcome::Unfinished, "unterminated", "left");
        for tag in [
            "[Event \"Test\"]",
            "[White \"a\"]",
            "[Result \"*\"]",
            "[Termination \"unterminated\"]",
            "[Seed \"7\"]",
        ] {
            assert!(text.contains(tag), "{tag} in {text}");
        }
        assert!(text.contains("1. e4 {left} *"), "{text}");
    }
}
