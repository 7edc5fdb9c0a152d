//! Rung 2, `book`: play what masters played. A move from a Polyglot opening book (entries of at
//! least the minimum weight, chosen uniformly or by weight), else a random move.
//! Every rung above this one consults the book the same way before it searches: the registry
//! wraps them in `registry::WithBook`, which asks `book_move` first.

use crate::book::{Book, BookPolicy};
use crate::core::{Game, Rng};
use crate::engine::{Analysis, ScoredMove};

/// A book move as an analysis (every book move listed with its weight), or `None` when the
/// position is out of book.
pub fn book_move(book: &Book, policy: BookPolicy, rng: &mut Rng, game: &Game) -> Option<Analysis> {
    let pos = game.position();
    let best = book.choose(pos, policy, rng)?;
    let moves = book
        .entries(pos)
        .into_iter()
        .map(|e| ScoredMove {
            weight: Some(e.weight),
            ..ScoredMove::unscored(e.mv)
        })
        .collect();
    Some(Analysis {
        best: Some(best),
        pv: vec![best],
        moves,
        from_book: true,
        ..Analysis::default()
    })
}
