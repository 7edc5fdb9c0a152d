//! The registry: every engine by name. It sits above the ladder and the strong engine, creates
//! them, and wraps them in `First`, which asks a source of known moves before the search: the
//! opening book (`WithBook`) and distance-to-mate tables (`WithDtm`). The CLI, UCI and the match runner
//! create engines here and then see only `dyn Engine`.

mod book;
mod dtm;
mod first;

use std::sync::Arc;

pub use book::{WithBook, with_book};
pub use dtm::{WithDtm, with_dtm};
pub use first::{First, MoveSource};

use crate::book::Book;
use crate::engine::{Engine, EngineOptions};
use crate::error::Error;
use crate::ladder::{self, FixedDepth};
use crate::search::engine::Rookery;

/// A rung of the ladder, as `rookery engines` lists it.
#[derive(Clone, Copy, Debug)]
pub struct EngineInfo {
    pub name: &'static str,
    pub idea: &'static str,
}

/// Every engine, in ladder order.
pub const ENGINES: &[EngineInfo] = &[
    EngineInfo {
        name: "random",
        idea: "a uniformly random legal move",
    },
    EngineInfo {
        name: "book",
        idea: "moves from a Polyglot opening book, else random",
    },
    EngineInfo {
        name: "greedy",
        idea: "one-ply search on material (pawn 1, knight 3, bishop 3, rook 5, queen 9)",
    },
    EngineInfo {
        name: "greedy-incremental",
        idea: "the same choices from each move's material change, without recounting the board",
    },
    EngineInfo {
        name: "minimax",
        idea: "fixed-depth minimax, max/min form",
    },
    EngineInfo {
        name: "alphabeta",
        idea: "alpha-beta cut-offs, still max/min form",
    },
    EngineInfo {
        name: "negamax",
        idea: "alpha-beta in negamax form",
    },
    EngineInfo {
        name: "iterative",
        idea: "iterative deepening: deeper and deeper until the time is up",
    },
    EngineInfo {
        name: "tt",
        idea: "a transposition table: results and best moves remembered by Zobrist hash",
    },
    EngineInfo {
        name: "quiescence",
        idea: "a capture search at the leaves, so no exchange is cut in half",
    },
    EngineInfo {
        name: "pst",
        idea: "the Simplified Evaluation Function: piece-square tables",
    },
    EngineInfo {
        name: "rookery-hce",
        idea: "the strong engine's search (PVS, pruning, staged move ordering, threads) on a hand-crafted, tuned evaluation",
    },
    EngineInfo {
        name: "rookery",
        idea: "the strong engine: the same search on a learned evaluation, a network trained on its own self-play",
    },
];

/// Creates an engine by name (any case). From `book` upward the engines play from
/// `options.book` while the position is in it (the `book` rung uses the built-in book when none
/// is given); the rungs play the endgames `options.dtm` covers by distance to mate.
///
/// ```
/// use std::sync::Arc;
///
/// use rookery::book::Book;
/// use rookery::core::{Game, Limits};
/// use rookery::engine::EngineOptions;
/// use rookery::registry;
///
/// // Every rung of the ladder, by the name `rookery engines` prints.
/// assert_eq!(registry::ENGINES.len(), 13);
/// assert_eq!(registry::ENGINES[0].name, "random");
/// for info in registry::ENGINES {
///     let mut engine = registry::create(info.name, &EngineOptions::default()).unwrap();
///     assert_eq!(engine.name(), info.name);
/// }
///
/// // With a book, from `book` upward the engines play from it while the position is in it.
/// let options = EngineOptions {
///     seed: 7,
///     book: Some(Arc::new(Book::builtin())),
///     ..EngineOptions::default()
/// };
/// let mut engine = registry::create("negamax", &options).unwrap();
/// let opening = engine.analyse(&Game::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap(), &Limits::depth(3));
/// assert!(opening.from_book);
///
/// // An unknown name is an error that lists the known ones.
/// let error = registry::create("deep-blue", &EngineOptions::default()).err().unwrap();
/// assert!(error.to_string().contains("alphabeta"));
/// ```
pub fn create(name: &str, options: &EngineOptions) -> Result<Box<dyn Engine>, Error> {
    let name = name.trim().to_ascii_lowercase();
    let seed = options.seed;
    let search: Box<dyn Engine> = match name.as_str() {
        "random" => Box::new(ladder::random::RandomMover::new(seed)),
        "book" => {
            let book = options
                .book
                .clone()
                .unwrap_or_else(|| Arc::new(Book::builtin()));
            let random = Box::new(ladder::random::RandomMover::new(seed));
            Box::new(with_book(random, book, options.book_policy, seed).named("book"))
        }
        "greedy" => Box::new(ladder::greedy::Greedy::new(seed)),
        "greedy-incremental" => Box::new(ladder::greedy_incremental::GreedyIncremental::new(seed)),
        "minimax" => Box::new(FixedDepth::new(
            "minimax",
            ladder::minimax::DEFAULT_DEPTH,
            ladder::minimax::search,
        )),
        "alphabeta" => Box::new(FixedDepth::new(
            "alphabeta",
            ladder::alphabeta::DEFAULT_DEPTH,
            ladder::alphabeta::search,
        )),
        "negamax" => Box::new(FixedDepth::new(
            "negamax",
            ladder::negamax::DEFAULT_DEPTH,
            ladder::negamax::search,
        )),
        "iterative" => Box::new(ladder::iterative::Iterative),
        "tt" => Box::new(ladder::tt::engine()),
        "quiescence" => Box::new(ladder::quiescence::engine()),
        "pst" => Box::new(ladder::pst::engine()),
        "rookery-hce" => Box::new(Rookery::hand_crafted(seed)),
        "rookery" => Box::new(Rookery::new(seed)),
        _ => return Err(unknown(&name)),
    };
    let mut engine = search;
    if let Some(book) = &options.book
        && !matches!(name.as_str(), "random" | "book")
    {
        engine = Box::new(with_book(engine, book.clone(), options.book_policy, seed));
    }
    // The tutorial's engines play the endgames the distance-to-mate tables cover perfectly;
    // the strong engine has Syzygy for that.
    if let Some(tables) = &options.dtm
        && !name.starts_with("rookery")
    {
        engine = Box::new(with_dtm(engine, tables.clone()));
    }
    Ok(engine)
}

/// The error for a name that is not on the ladder, listing the names that are.
pub fn unknown(name: &str) -> Error {
    Error::UnknownEngine {
        name: name.to_string(),
        known: names().collect::<Vec<_>>().join(", "),
    }
}

/// The names of all engines, in ladder order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ENGINES.iter().map(|e| e.name)
}

/// True for the engines that deepen until their time is up (iterative deepening and above); the
/// others search to a fixed depth or not at all.
pub fn deepens(name: &str) -> bool {
    matches!(
        name.trim().to_ascii_lowercase().as_str(),
        "iterative" | "tt" | "quiescence" | "pst" | "rookery-hce" | "rookery"
    )
}

/// True if `name` (any case) is an engine of the registry.
pub fn is_known(name: &str) -> bool {
    let name = name.trim();
    names().any(|n| n.eq_ignore_ascii_case(name))
}
