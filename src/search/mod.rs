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
