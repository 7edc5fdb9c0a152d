//! The strong engine, `rookery`: a principal-variation search with the pruning and ordering of
//! modern classical engines, on the hand-crafted evaluation, with a shared lock-free hash table
//! and Lazy SMP threads.

pub mod board;
pub mod engine;
pub mod movepick;
pub mod noisy;
pub mod see;
pub mod tt;
pub mod worker;

/// Positions for tests that hold a fast routine to a plain one.
#[cfg(test)]
pub(crate) mod test_positions {
    use crate::core::game::parse_fen;
    use shakmaty::{Chess, Position};

    /// The positions of the perft suites and of `extra` (EPD text), and those `levels - 1` plies
    /// below them (the first `width` moves of each), each with the FEN it grew from.
    pub fn near_perft_suites(extra: &str, levels: usize, width: usize) -> Vec<(String, Chess)> {
        let text = [
            include_str!("../../tests/data/standard.epd"),
            include_str!("../../tests/data/cpw.epd"),
            extra,
        ]
        .concat();
        let mut all = Vec::new();
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let fen = line.split(';').next().unwrap().trim();
            let Ok(root) = parse_fen(fen) else { continue };
            let mut frontier = vec![root];
            for level in 0..levels {
                let mut next = Vec::new();
                for pos in frontier {
                    if level + 1 < levels {
                        for m in pos.legal_moves().iter().take(width) {
                            let mut child = pos.clone();
                            child.play_unchecked(*m);
                            next.push(child);
                        }
                    }
                    all.push((fen.to_string(), pos));
                }
                frontier = next;
            }
        }
        all
    }
}
