//! Rung 11, `pst`: know where pieces belong. The same search as `quiescence`, but positions are
//! judged by the Simplified Evaluation Function: piece values 100/320/330/500/900 plus a bonus or
//! malus for each piece's square (knights in the centre, rooks on the seventh, the king sheltered
//! in the middlegame and active in the endgame). See `eval::pst`.

use crate::eval::pst;
use crate::ladder::quiescence::QuiescenceLeaf;
use crate::ladder::tt::TtSearch;

/// The `pst` rung: the `quiescence` search on the Simplified Evaluation Function.
pub fn engine() -> TtSearch<QuiescenceLeaf> {
    TtSearch::with_leaf(
        "pst",
        QuiescenceLeaf {
            eval: pst::evaluate,
        },
    )
}
