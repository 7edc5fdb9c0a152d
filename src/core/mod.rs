//! What every engine and tool shares, with no engine in it: the game and its history, scores,
//! limits and the one time manager, the search's tunable parameters, memory for large tables,
//! principal-variation lines, move keys, randomness, PGN, match statistics, the board as text,
//! the tracing hooks, and the little-endian bytes and checksum of the file formats.

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
