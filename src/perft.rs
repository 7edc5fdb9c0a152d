//! Perft: count the leaf positions of the legal-move tree to a depth. The contract between the
//! rules (shakmaty) and everything built on them; suites of known counts live in EPD files:
//! `FEN ;D1 20 ;D2 400 ...`.

use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::{Chess, Move, Position};

use crate::core::game::parse_fen;
use crate::error::Error;

/// Leaf positions `depth` plies below `pos`. At the last ply the legal moves are counted, not
/// played ("bulk counting").
///
/// ```
/// use rookery::core::game::{parse_fen, uci};
/// use rookery::perft::{divide, parse_suite, perft};
/// use shakmaty::Chess;
///
/// assert_eq!(perft(&Chess::default(), 3), 8_902);
///
/// // "Kiwipete", the position that finds most move-generator bugs.
/// let kiwipete = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
/// assert_eq!(perft(&kiwipete, 2), 2_039);
/// // Split by root move, to find where two generators disagree.
/// let split = divide(&kiwipete, 2);
/// assert_eq!(split.len(), 48);
/// assert!(split.iter().any(|&(m, n)| uci(m) == "e1g1" && n == 43));
///
/// // A suite line as tests/data/cpw.epd writes them.
/// let suite = parse_suite("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400").unwrap();
/// assert_eq!(suite[0].counts, [(1, 20), (2, 400)]);
/// ```
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by root move, for finding where two move generators disagree.
pub fn divide(pos: &Chess, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}

/// The deepest perft a command accepts: depth 12 from the initial position is 62 trillion leaves.
pub const MAX_DEPTH: u32 = 12;

/// Checks a perft depth: 1 to `MAX_DEPTH`.
pub fn check_depth(depth: u32) -> Result<u32, Error> {
    Error::bounded("perft depth", depth, 1..=MAX_DEPTH, "")
}

/// `perft` that gives up when `stop` is raised: `None` then. The flag is read at every node
/// three or more plies from the leaves, a few thousand leaves apart at most, so it ends within
/// microseconds while costing nothing measurable.
pub fn perft_until(pos: &Chess, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth < 3 {
        return Some(perft(pos, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut total = 0;
    for &m in &pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        total += perft_until(&child, depth - 1, stop)?;
    }
    Some(total)
}

/// `divide` that calls `each` after every root move and gives up when `stop` is raised:
/// `None` then (the moves reported so far are right, the total is not known).
pub fn divide_until(
    pos: &Chess,
    depth: u32,
    stop: &AtomicBool,
    mut each: impl FnMut(Move, u64),
) -> Option<u64> {
    let mut total = 0;
    for &m in &pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let n = perft_until(&child, depth.saturating_sub(1), stop)?;
        each(m, n);
        total += n;
    }
    Some(total)
}

/// One line of a perft suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    pub fen: String,
    pub id: Option<String>,
    /// (depth, expected leaf count), in file order.
    pub counts: Vec<(u32, u64)>,
}

/// Parses an EPD perft suite: `FEN ;D1 n ;D2 n ... [;id "name"]`. Blank lines and `#` comments
/// are skipped; a malformed line is an error naming its line number.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, Error> {
    let mut cases = Vec::new();
    for (n, line) in crate::core::content_lines(text) {
        let bad = |what: &str| Error::Invalid(format!("perft suite line {n}: {what}"));
        let mut parts = line.split(';');
        let fen = parts.next().unwrap_or("").trim().to_string();
        parse_fen(&fen).map_err(|e| bad(&e.to_string()))?;
        let mut case = PerftCase {
            fen,
            id: None,
            counts: Vec::new(),
        };
        for field in parts {
            let field = field.trim();
            if let Some(rest) = field.strip_prefix("id ") {
                case.id = Some(rest.trim().trim_matches('"').to_string());
            } else if let Some(rest) = field.strip_prefix('D') {
                let (d, n) = rest
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| bad(&format!("'{field}' is not 'Dn count'")))?;
                let d = d
                    .parse()
                    .map_err(|_| bad(&format!("bad depth in '{field}'")))?;
                let n = n
                    .trim()
                    .parse()
                    .map_err(|_| bad(&format!("bad count in '{field}'")))?;
                case.counts.push((d, n));
            } else if !field.is_empty() {
                return Err(bad(&format!("unknown field '{field}'")));
            }
        }
        cases.push(case);
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position() {
        let pos = Chess::default();
        assert_eq!(perft(&pos, 0), 1);
        assert_eq!(perft(&pos, 1), 20);
        assert_eq!(perft(&pos, 3), 8_902);
        let d = divide(&pos, 3);
        assert_eq!(d.len(), 20);
        assert_eq!(d.iter().map(|x| x.1).sum::<u64>(), 8_902);
    }

    #[test]
    fn a_raised_flag_stops_perft_and_a_lowered_one_counts_right() {
        let pos = Chess::default();
        let go_on = AtomicBool::new(false);
        assert_eq!(perft_until(&pos, 4, &go_on), Some(197_281));
        let mut seen = Vec::new();
        assert_eq!(
            divide_until(&pos, 3, &go_on, |m, n| seen.push((m, n))),
            Some(8_902)
        );
        assert_eq!(seen, divide(&pos, 3));
        let stop = AtomicBool::new(true);
        assert_eq!(perft_until(&pos, 9, &stop), None);
        assert_eq!(divide_until(&pos, 9, &stop, |_, _| panic!()), None);
        assert_eq!(perft_until(&pos, 2, &stop), Some(400), "too small to stop");
        assert!(check_depth(0).is_err() && check_depth(13).is_err());
        assert_eq!(check_depth(12), Ok(12));
    }

    #[test]
    fn suite_lines() {
        let cases =
            parse_suite("# comment\n\n8/8/8/8/8/2k5/8/K7 w - - 0 1 ;D1 3 ;D2 9 ;id \"kk\"\n")
                .unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].counts, vec![(1, 3), (2, 9)]);
        assert_eq!(cases[0].id.as_deref(), Some("kk"));
        assert!(parse_suite("8/8/8/8/8/2k5/8/K7 w - - 0 1 ;D1 x").is_err());
        assert!(parse_suite("garbage ;D1 3").is_err());
    }
}
