//! What the integration tests share, a module for each way of reaching the program: `cli` runs
//! the binary as a shell does and collects its output, `uci` drives it as a GUI does over pipes,
//! a line at a time under timeouts, and `http` speaks to the Lab's server; here, the names the
//! tests walk the ladder by. Each test file is a crate of its own that includes this module
//! with `mod common;`, and each uses only a part of it, hence the `dead_code` allowance.

#![allow(dead_code)]

pub mod cli;
pub mod http;
pub mod uci;

/// The ladder's engines that search a tree, between the greedy movers and `rookery`, bottom
/// first.
pub const SEARCHERS: [&str; 7] = [
    "minimax",
    "alphabeta",
    "negamax",
    "iterative",
    "tt",
    "quiescence",
    "pst",
];
