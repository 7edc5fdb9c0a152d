//! What every engine and tool shares: scores, the game and its history, limits, randomness, tracing.

pub mod game;
pub mod limits;
pub mod pgn;
pub mod rng;
pub mod score;
pub mod trace;

pub use game::{Game, Termination};
pub use limits::{Clock, Limits, Stopper};
pub use rng::Rng;
