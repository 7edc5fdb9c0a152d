//! What every engine and tool shares, with no engine in it: the game and its history, scores,
//! limits and the one time manager, the search's tunable parameters, memory for large tables,
//! principal-variation lines, move keys, randomness, PGN, match statistics, the board as text,
//! the tracing hooks, the little-endian bytes and checksum of the file formats, and the lines of
//! the text formats.

pub mod bound;
pub mod bytes;
pub mod draw;
pub mod game;
pub mod limits;
pub mod memory;
pub mod moves;
pub mod params;
pub mod pgn;
pub mod pv;
pub mod rng;
pub mod score;
pub mod stats;
pub mod time;
pub mod trace;

pub use bound::Bound;
pub use game::{Game, Termination};
pub use limits::{Clock, Limits};
pub use pv::PvTable;
pub use rng::Rng;
pub use time::{Stopper, TimeManager};

/// The lines of a text format that say something: each trimmed, with its line number (from 1),
/// blank lines and `#` comments skipped.
pub fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
}

#[cfg(test)]
mod tests {
    #[test]
    fn content_lines_skip_blanks_and_comments_and_keep_line_numbers() {
        let text = "# a suite\n\n  one  \n\t\n#two\nthree\n";
        let lines: Vec<(usize, &str)> = super::content_lines(text).collect();
        assert_eq!(lines, [(3, "one"), (6, "three")]);
    }
}
