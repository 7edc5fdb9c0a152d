//! Rung 2, `book`: play what masters played. A move from a Polyglot opening book (entries of at
//! least the minimum weight, chosen uniformly or by weight), else a random move.
//! Every rung above this one consults the book the same way before it searches.

use std::sync::Arc;

use crate::book::{Book, BookPolicy};
use crate::core::{Game, Limits, Rng};
use crate::engine::{Analysis, Engine, EngineOptions, Report, ScoredMove};
use crate::ladder::random::random_move;

/// The opening step every rung from here up takes before it thinks: a book move while the
/// position is in the book (if a book is configured), and the seeded random stream for any choice
/// the engine makes.
pub struct Opening {
    book: Option<Arc<Book>>,
    policy: BookPolicy,
    pub rng: Rng,
}

impl Opening {
    pub fn new(options: &EngineOptions) -> Opening {
        Opening {
            book: options.book.clone(),
            policy: options.book_policy,
            rng: Rng::new(options.seed),
        }
    }

    /// Like `book_move`, telling `report` about the book move when there is one.
    pub fn book_move_reported(
        &mut self,
        game: &Game,
        report: &mut dyn FnMut(Report<'_>),
    ) -> Option<Analysis> {
        let a = self.book_move(game)?;
        report(Report::Iteration(&a));
        Some(a)
    }

    /// A book move as an analysis, or `None` when out of book or without a book.
    pub fn book_move(&mut self, game: &Game) -> Option<Analysis> {
        let book = self.book.as_deref()?;
        let pos = game.position();
        let best = book.choose(pos, self.policy, &mut self.rng)?;
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
}

pub struct BookMover {
    opening: Opening,
}

impl BookMover {
    /// Uses the configured book, or the built-in one.
    pub fn new(options: &EngineOptions) -> BookMover {
        let book = options
            .book
            .clone()
            .unwrap_or_else(|| Arc::new(Book::builtin()));
        BookMover {
            opening: Opening::new(&EngineOptions {
                book: Some(book),
                ..options.clone()
            }),
        }
    }
}

impl Engine for BookMover {
    fn name(&self) -> &'static str {
        "book"
    }

    fn analyse(&mut self, game: &Game, _limits: &Limits) -> Analysis {
        self.opening
            .book_move(game)
            .unwrap_or_else(|| random_move(game, &mut self.opening.rng))
    }
}
