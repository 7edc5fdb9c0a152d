//! The tools to measure engines against each other: players (this crate's engines and external
//! UCI/xboard programs) and the runner that plays matches and tournaments. The statistics they
//! are judged by live in `core::stats`, shared with the Lab.

pub mod player;
pub mod runner;
