//! The triangular principal-variation table every searching engine keeps: row `ply` holds the best
//! line found from that ply, and a new best move at a ply copies its child's row behind it.

use shakmaty::{Move, Role, Square};

/// The deepest ply any search of this crate goes, quiescence included: the table's rows.
pub const MAX_PLY: usize = 128;

/// The triangular principal-variation table: row `ply` holds the best line found from that ply.
pub struct PvTable {
    moves: Vec<Move>,
    len: [usize; MAX_PLY + 1],
}

impl Default for PvTable {
    fn default() -> Self {
        PvTable::new()
    }
}

impl PvTable {
    pub fn new() -> PvTable {
        let filler = Move::Put {
            role: Role::Pawn,
            to: Square::A1,
        };
        PvTable {
            moves: vec![filler; (MAX_PLY + 1) * (MAX_PLY + 1)],
            len: [0; MAX_PLY + 1],
        }
    }

    pub fn clear(&mut self, ply: u32) {
        if let Some(l) = self.len.get_mut(ply as usize) {
            *l = 0;
        }
    }

    /// `m` is the new best move at `ply`: the line becomes `m` followed by the child's line.
    pub fn update(&mut self, ply: u32, m: Move) {
        let ply = ply as usize;
        if ply >= MAX_PLY {
            return;
        }
        let row = ply * (MAX_PLY + 1);
        let child_row = (ply + 1) * (MAX_PLY + 1);
        let child_len = self.len[ply + 1].min(MAX_PLY);
        self.moves[row] = m;
        self.moves
            .copy_within(child_row..child_row + child_len, row + 1);
        self.len[ply] = child_len + 1;
    }

    pub fn line(&self, ply: u32) -> &[Move] {
        let ply = ply as usize;
        let row = ply * (MAX_PLY + 1);
        &self.moves[row..row + self.len[ply]]
    }
}
