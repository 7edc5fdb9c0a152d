//! Rookery: the tutorial's engine ladder, the tools to measure it, and (later) a strong UCI engine,
//! on the rules of the `shakmaty` crate.

pub mod bench;
pub mod book;
pub mod cli;
pub mod core;
pub mod engine;
pub mod error;
pub mod eval;
pub mod ladder;
pub mod perft;
pub mod search;
pub mod uci;

pub use engine::{Analysis, Engine, EngineOptions};
pub use error::Error;
