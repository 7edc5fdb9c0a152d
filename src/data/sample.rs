//! Labelled positions as lines of text: the format `rookery datagen` writes and `rookery tune`
//! and `rookery data` read back. A line is EPD with opcodes, as the common tuning sets are
//! written: `<fen> hmvc 0; fmvn 12; ce 35; c9 "1-0"; id "s1g42";` with `ce` the search's score
//! for the side to move (centipawns), `c9` the game's result and `id` the seed and game that
//! made it.

use shakmaty::{Chess, Color, Position};

use crate::core::game::{fen_of, parse_fen};
use crate::error::Error;

/// One labelled position read back.
#[derive(Clone, Debug)]
pub struct Sample {
    pub pos: Chess,
    /// The game's result for White: 1, 0.5 or 0.
    pub result: f64,
    /// The search's score for the side to move, when recorded.
    pub score: Option<i32>,
    /// Seed and game, when recorded.
    pub id: Option<(u64, u64)>,
}

/// Parses one line of the format (`c9` result required; `ce` and `id` optional). Also reads the
/// common `<fen> [1.0]` and `<fen> | score | result` layouts, so other tools' data can be tuned on.
pub fn parse_sample(line: &str) -> Result<Sample, String> {
    let line = line.trim();
    if let Some((fen, rest)) = line.split_once('|') {
        let parts: Vec<&str> = rest.split('|').map(str::trim).collect();
        let pos = parse_fen(fen.trim()).map_err(|e| e.to_string())?;
        let (score, result) = match parts.as_slice() {
            [score, result] => (
                Some(
                    score
                        .parse::<i32>()
                        .map_err(|_| format!("bad score '{score}'"))?,
                ),
                *result,
            ),
            [result] => (None, *result),
            _ => return Err("expected 'FEN | score | result'".into()),
        };
        let result = result_value(result).ok_or_else(|| format!("bad result '{result}'"))?;
        // This layout gives the score from White's point of view.
        let score = score.map(|s| if pos.turn() == Color::White { s } else { -s });
        return Ok(Sample {
            pos,
            result,
            score,
            id: None,
        });
    }
    if let (Some(open), true) = (line.rfind('['), line.ends_with(']')) {
        let pos = parse_fen(line[..open].trim()).map_err(|e| e.to_string())?;
        let inner = &line[open + 1..line.len() - 1];
        let result = result_value(inner).ok_or_else(|| format!("bad result '{inner}'"))?;
        return Ok(Sample {
            pos,
            result,
            score: None,
            id: None,
        });
    }
    let records = crate::epd::parse(line).map_err(|e| e.to_string())?;
    let record = records
        .into_iter()
        .next()
        .ok_or("no position on the line")?;
    let result = record
        .op("c9")
        .and_then(|v| v.first())
        .ok_or("no result (c9)")?;
    let result = result_value(result).ok_or_else(|| format!("bad result '{result}'"))?;
    let score = match record.op("ce").and_then(|v| v.first()) {
        Some(s) => Some(s.parse::<i32>().map_err(|_| format!("bad score '{s}'"))?),
        None => None,
    };
    let id = record.op("id").and_then(|v| v.first()).and_then(|s| {
        let (seed, game) = s.strip_prefix('s')?.split_once('g')?;
        Some((seed.parse().ok()?, game.parse().ok()?))
    });
    Ok(Sample {
        pos: record.pos,
        result,
        score,
        id,
    })
}

/// The game's result for White (1, 0.5 or 0) from its text: `1-0`, `0-1`, `1/2-1/2` or the
/// number, quoted or not; `None` for anything else.
pub fn result_value(text: &str) -> Option<f64> {
    match text.trim().trim_matches('"') {
        "1-0" | "1.0" | "1" => Some(1.0),
        "0-1" | "0.0" | "0" => Some(0.0),
        "1/2-1/2" | "0.5" => Some(0.5),
        _ => None,
    }
}

/// Reads a data file: every sample, or the first bad line's number and what is wrong with it.
pub fn read_samples(path: &str) -> Result<Vec<Sample>, Error> {
    let text = crate::core::memory::read_text(path.as_ref(), crate::core::memory::MAX_INPUT)
        .map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(
            parse_sample(line)
                .map_err(|e| Error::Invalid(format!("{path}: line {}: {e}", i + 1)))?,
        );
    }
    Ok(out)
}

/// A position as EPD: the FEN's first four fields, then its clocks as `hmvc` and `fmvn`.
pub fn epd_position(pos: &Chess) -> String {
    let fen = fen_of(pos);
    let fields: Vec<&str> = fen.split(' ').collect();
    format!(
        "{} hmvc {}; fmvn {};",
        fields[..4].join(" "),
        fields.get(4).unwrap_or(&"0"),
        fields.get(5).unwrap_or(&"1")
    )
}

/// The EPD line of a scored position (without the result).
pub fn epd_with_score(pos: &Chess, score: i32) -> String {
    format!("{} ce {score};", epd_position(pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_result_is_named_and_the_other_layouts_read() {
        let no_result = "8/8/8/4k3/8/8/3PK3/8 w - - ce 5;";
        assert!(parse_sample(no_result).unwrap_err().contains("c9"));
        assert_eq!(
            parse_sample("8/8/8/4k3/8/8/3PPK2/8 w - - 0 1 [0.5]")
                .unwrap()
                .result,
            0.5
        );
        let piped = parse_sample("8/8/8/4k3/8/8/3PPK2/8 b - - 0 1 | 120 | 1.0").unwrap();
        assert_eq!((piped.score, piped.result), (Some(-120), 1.0));
    }
}
