//! `First`: an engine that asks a source of known moves (an opening book, distance-to-mate
//! tables) before it searches, and searches only when the source has no answer. The registry
//! builds `WithBook` and `WithDtm` from it, so "the known move first" lives in one place.

use crate::core::{Game, Limits};
use crate::engine::{Analysis, Engine, Reporter, Settings, report_final};

/// A source of moves known without searching.
pub trait MoveSource: Send {
    /// The known move of the game's position as an analysis, or `None` to search.
    fn known_move(&mut self, game: &Game, limits: &Limits) -> Option<Analysis>;
}

pub struct First<S: MoveSource> {
    source: S,
    inner: Box<dyn Engine>,
    name: &'static str,
}

impl<S: MoveSource> First<S> {
    /// `inner`, asking `source` first.
    pub fn new(source: S, inner: Box<dyn Engine>) -> First<S> {
        First {
            name: inner.name(),
            source,
            inner,
        }
    }

    /// The same engine under another name (the `book` rung is the random mover with a book).
    pub fn named(self, name: &'static str) -> First<S> {
        First { name, ..self }
    }
}

impl<S: MoveSource> Engine for First<S> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis {
        match self.source.known_move(game, limits) {
            Some(a) => report_final(a, report),
            None => self.inner.search(game, limits, report),
        }
    }

    fn configure(&mut self, settings: &Settings) -> Result<(), crate::error::Error> {
        self.inner.configure(settings)
    }

    fn new_game(&mut self) {
        self.inner.new_game()
    }

    fn default_limits(&self) -> Limits {
        self.inner.default_limits()
    }
}
