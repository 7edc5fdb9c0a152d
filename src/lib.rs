//! Rookery: the tutorial's engine ladder, the tools to measure it, and a strong UCI engine, on the
//! rules of the `shakmaty` crate.
//!
//! Every engine, from the random mover to `rookery`, is driven the same way:
//!
//! ```
//! use rookery::core::{Game, Limits};
//! use rookery::engine::EngineOptions;
//!
//! // A mate in one for White.
//! let game = Game::from_fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1").unwrap();
//! for name in ["alphabeta", "rookery"] {
//!     let mut e = rookery::registry::create(name, &EngineOptions::default()).unwrap();
//!     let analysis = e.analyse(&game, &Limits::depth(3));
//!     assert_eq!(rookery::core::game::san(game.position(), analysis.best.unwrap()), "Rd8#");
//! }
//! ```

pub mod bench;
pub mod book;
pub mod cli;
pub mod core;
pub mod data;
pub mod datagen;
pub mod driver;
pub mod engine;
pub mod epd;
pub mod error;
pub mod eval;
#[cfg(feature = "lab")]
pub mod lab;
pub mod ladder;
pub mod mate;
pub mod nnue;
pub mod options;
pub mod perft;
pub mod registry;
pub mod search;
pub mod tb;
pub mod tournament;
pub mod train;
pub mod tree;
pub mod tune;
pub mod uci;

pub use engine::{Analysis, Engine, EngineOptions};
pub use error::Error;
