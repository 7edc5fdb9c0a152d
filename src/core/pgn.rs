//! Writing games as PGN: the seven-tag roster plus what engine users expect (Termination, the
//! seed, FEN/SetUp for games that do not start from the initial position).

use shakmaty::{Color, Position};

use crate::core::Game;
use crate::core::game::fen_of;

/// Today's date as PGN writes it (`2026.11.21`), from the system clock, in UTC.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days` algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The PGN text of `game`. `tags` come after the roster's Event/Site/Date/Round/White/Black/Result
/// (pass those in `tags` too; missing ones get `?`); `comment` goes after the last move.
pub fn write(game: &Game, tags: &[(&str, String)], result: &str, comment: Option<&str>) -> String {
    let get = |name: &str| {
        tags.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| "?".to_string())
    };
    let mut out = String::new();
    let roster = ["Event", "Site", "Date", "Round", "White", "Black"];
    for name in roster {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(&get(name))));
    }
    out.push_str(&format!("[Result \"{result}\"]\n"));
    for (k, v) in tags {
        if !roster.contains(k) && *k != "Result" {
            out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
        }
    }
    if game.custom_start() {
        out.push_str(&format!(
            "[FEN \"{}\"]\n[SetUp \"1\"]\n",
            fen_of(game.start())
        ));
    }
    out.push('\n');
    // Movetext, wrapped before 80 columns.
    let mut tokens: Vec<String> = Vec::new();
    let mut pos = game.start().clone();
    for (i, &m) in game.moves().iter().enumerate() {
        if pos.turn() == Color::White {
            tokens.push(format!("{}.", pos.fullmoves()));
        } else if i == 0 {
            tokens.push(format!("{}...", pos.fullmoves()));
        }
        tokens.push(shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
    }
    if let Some(c) = comment {
        tokens.push(format!("{{{}}}", c.replace('}', ")")));
    }
    tokens.push(result.to_string());
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::pgn::read_games;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_413), (2025, 11, 21));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn round_trip_through_reader() {
        let mut g = Game::from_fen("8/8/4k3/8/8/8/8/R3K3 b Q - 0 1").unwrap();
        g.play_text("Kd5").unwrap();
        g.play_text("O-O-O+").unwrap();
        let text = write(
            &g,
            &[("White", "a".into()), ("Seed", "7".into())],
            "*",
            Some("test"),
        );
        assert!(text.contains("[FEN \"8/8/4k3/8/8/8/8/R3K3 b Q - 0 1\"]"));
        assert!(text.contains("[Seed \"7\"]"));
        assert!(text.contains("1... Kd5 2. O-O-O+ {test} *"), "{text}");
        let games = read_games(&text);
        assert_eq!(games[0].moves, g.moves());
    }
}
