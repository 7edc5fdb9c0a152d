//! What every engine and tool shares, with no engine in it: the game and its history, scores,
//! limits and the one time manager, memory for large tables, principal-variation lines, move keys, randomness, PGN, match
//! statistics, the board as text, and the tracing hooks.

pub mod bound;
pub mod draw;
pub mod game;
pub mod limits;
pub mod memory;
pub mod moves;
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
