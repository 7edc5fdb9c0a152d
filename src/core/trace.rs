//! A window into a search, for `rookery tree`: the searches of the max/min and negamax rungs call
//! these hooks as they walk the tree. The default `NoTrace` does nothing and compiles away.

use shakmaty::Move;

pub trait Tracer {
    /// A position is visited, reached by `mv` (`None` at the root), `ply` half-moves deep.
    fn enter(&mut self, _ply: u32, _mv: Option<Move>) {}
    /// The position last entered and not yet left gets its value (from White's point of view).
    fn leave(&mut self, _value: i32) {}
    /// The position last entered is searched within `alpha..beta` (White's point of view; the
    /// max/min searches with a window and negamax call it, minimax has none).
    fn window(&mut self, _alpha: i32, _beta: i32) {}
    /// A cut-off skips the moves `skipped` of the position last entered.
    fn pruned(&mut self, _skipped: &[Move]) {}
}

/// The tracer that records nothing.
pub struct NoTrace;

impl Tracer for NoTrace {}

/// Counts positions per ply.
#[derive(Default, Debug, Clone)]
pub struct CountPerPly {
    pub counts: Vec<u64>,
}

/// One more at `ply` in counts kept per ply (the list grows to reach it).
pub fn count_at(counts: &mut Vec<u64>, ply: u32) {
    let ply = ply as usize;
    if counts.len() <= ply {
        counts.resize(ply + 1, 0);
    }
    counts[ply] += 1;
}

impl Tracer for CountPerPly {
    fn enter(&mut self, ply: u32, _mv: Option<Move>) {
        count_at(&mut self.counts, ply);
    }
}
