//! The opening book as a source of known moves: `WithBook` is any engine playing from a book
//! while the position is in it. The `book` rung is this wrapper around the random mover; every
//! rung above it and `rookery` (with `OwnBook`) get the same wrapper.

use std::sync::Arc;

use super::first::{First, MoveSource};
use crate::book::{Book, BookPolicy};
use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Engine};
use crate::ladder::book::book_move;

/// A Polyglot book, its policy, and the seeded stream its choices follow.
pub struct BookMoves {
    book: Arc<Book>,
    policy: BookPolicy,
    rng: Rng,
}

impl MoveSource for BookMoves {
    fn known_move(&mut self, game: &Game, limits: &Limits) -> Option<Analysis> {
        let mut a = book_move(&self.book, self.policy, &mut self.rng, game)?;
        a.elapsed = limits.start.map(|s| s.elapsed()).unwrap_or_default();
        Some(a)
    }
}

pub type WithBook = First<BookMoves>;

/// `inner` playing from `book`; the book's choices follow `seed`.
pub fn with_book(
    inner: Box<dyn Engine>,
    book: Arc<Book>,
    policy: BookPolicy,
    seed: u64,
) -> WithBook {
    let source = BookMoves {
        book,
        policy,
        rng: Rng::new(seed),
    };
    First::new(source, inner)
}
