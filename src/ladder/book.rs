//! Rung 2, `book`: play what masters played. A move from a Polyglot opening book (entries of at
//! least the minimum weight, chosen uniformly or by weight), else a random move.
//! Every rung above this one consults the book the same way before it searches.

use std::sync::Arc;

use shakmaty::Position;

use crate::book::{Book, BookPolicy};
use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Engine, EngineOptions, ScoredMove};

/// The book step shared by every rung from here up: a book move as an analysis, or `None` when
/// the position is out of book (or no book is configured).
pub fn book_move(
    game: &Game,
    book: Option<&Book>,
    policy: BookPolicy,
    rng: &mut Rng,
) -> Option<Analysis> {
    let book = book?;
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

pub struct BookMover {
    book: Arc<Book>,
    policy: BookPolicy,
    rng: Rng,
}

impl BookMover {
    /// Uses the configured book, or the built-in one.
    pub fn new(options: &EngineOptions) -> BookMover {
        BookMover {
            book: options
                .book
                .clone()
                .unwrap_or_else(|| Arc::new(Book::builtin())),
            policy: options.book_policy,
            rng: Rng::new(options.seed),
        }
    }
}

impl Engine for BookMover {
    fn name(&self) -> &'static str {
        "book"
    }

    fn analyse(&mut self, game: &Game, _limits: &Limits) -> Analysis {
        if let Some(a) = book_move(game, Some(&self.book), self.policy, &mut self.rng) {
            return a;
        }
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            return Analysis::default();
        }
        let best = moves[self.rng.index(moves.len())];
        Analysis {
            best: Some(best),
            pv: vec![best],
            moves: moves.iter().map(|&m| ScoredMove::unscored(m)).collect(),
            nodes: 1,
            ..Analysis::default()
        }
    }
}
