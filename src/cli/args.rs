//! The arguments and helpers that several commands share: the engine options, depth and time,
//! the evaluation `--eval` and `--net` name, the check of an output path, the progress bar.

use std::sync::Arc;

use clap::Args;

use crate::book::{Book, BookPolicy};
use crate::core::{Limits, Rng};
use crate::engine::{Engine, EngineOptions, Evaluation, Settings};
use crate::error::Error;
use crate::nnue::Network;
use crate::options::default_spin;
use crate::registry;
use crate::tb::Syzygy;

/// A 30-character progress bar for `fraction` (0 to 1) done: `###...`.
pub fn progress_bar(fraction: f64) -> String {
    (0..30)
        .map(|i| {
            if (i as f64) < fraction * 30.0 {
                '#'
            } else {
                '.'
            }
        })
        .collect()
}

/// Options every command that creates engines shares.
#[derive(Args, Debug, Clone, Default)]
pub struct EngineArgs {
    /// Seed for every random choice: the same seed replays the same game [default: from the clock]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Polyglot book for the engines from `book` upward [default: the built-in book in `play` and `game`, none in `analyse` and `serve`; `epd` always searches]
    #[arg(long, value_name = "FILE")]
    pub book: Option<String>,
    /// Play without an opening book (the `book` engine still uses one)
    #[arg(long, conflicts_with = "book")]
    pub no_book: bool,
    /// Choose book moves in proportion to their weight instead of uniformly
    #[arg(long)]
    pub weighted: bool,
    /// Ignore book moves lighter than this
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub min_weight: u16,
    /// Gaviota tablebase directory: the ladder engines play the endgames it covers by distance
    /// to mate
    #[arg(long, value_name = "DIR", hide = !cfg!(feature = "gaviota"))]
    pub gaviota: Option<String>,
    /// Syzygy tablebase directories, separated by ':' (the strong engine probes them)
    #[arg(long, value_name = "DIRS")]
    pub syzygy: Option<String>,
    /// Probe the tables only this many plies or more from the search horizon
    #[arg(long, default_value_t = default_spin("SyzygyProbeDepth") as u32, value_name = "PLIES")]
    pub syzygy_probe_depth: u32,
    /// Probe only positions with at most this many pieces, kings included
    #[arg(long, default_value_t = default_spin("SyzygyProbeLimit") as u32, value_name = "PIECES")]
    pub syzygy_probe_limit: u32,
    /// The strong engine's evaluation: net (learned) or hce (hand-crafted)
    #[arg(long, default_value = "net", value_name = "net|hce")]
    pub eval: String,
    /// A net file for `--eval net` [default: the built-in net]
    #[arg(long, value_name = "FILE")]
    pub net: Option<String>,
}

impl EngineArgs {
    /// The seed given, or one drawn from the clock (printed by the commands that use it).
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(Rng::seed_from_time)
    }

    /// The book these options ask for: `None` with `--no-book`.
    pub fn load_book(&self) -> Result<Option<Arc<Book>>, Error> {
        if self.no_book {
            return Ok(None);
        }
        Ok(Some(Arc::new(match &self.book {
            Some(path) => Book::open(path)?,
            None => Book::builtin(),
        })))
    }

    /// The run-time settings these options ask for: the tables opened, or an error saying why not.
    pub fn settings(&self) -> Result<Settings, Error> {
        Ok(Settings {
            syzygy: self.syzygy.as_deref().map(Syzygy::open).transpose()?,
            syzygy_probe_depth: self.syzygy_probe_depth.max(1),
            syzygy_probe_limit: self.syzygy_probe_limit,
            eval: evaluation(&self.eval, self.net.as_deref())?,
            ..Settings::default()
        })
    }

    /// Creates engine `name` with these options and settings.
    pub fn engine(
        &self,
        name: &str,
        seed: u64,
        book: Option<Arc<Book>>,
    ) -> Result<Box<dyn Engine>, Error> {
        let options = EngineOptions {
            dtm: self
                .gaviota
                .as_deref()
                .map(crate::tb::open_gaviota)
                .transpose()?,
            ..self.options(seed, book)
        };
        let mut e = registry::create(name, &options)?;
        e.configure(&self.settings()?)?;
        Ok(e)
    }

    pub fn options(&self, seed: u64, book: Option<Arc<Book>>) -> EngineOptions {
        EngineOptions {
            seed,
            book,
            dtm: None,
            book_policy: BookPolicy {
                min_weight: self.min_weight,
                weighted: self.weighted,
            },
        }
    }
}

/// The evaluation `--eval` and `--net` ask for.
pub fn evaluation(eval: &str, net: Option<&str>) -> Result<Evaluation, Error> {
    let eval = match eval.trim() {
        "" => "net".to_string(),
        e => e.to_ascii_lowercase(),
    };
    match (eval.as_str(), net) {
        ("hce", None) => Ok(Evaluation::Hce),
        ("hce", Some(_)) => Err(Error::Invalid("--net needs --eval net".into())),
        ("net", None) => Ok(Evaluation::builtin_net()),
        ("net", Some(path)) => Ok(Evaluation::Net(Arc::new(Network::load(path)?))),
        (other, _) => Err(Error::Invalid(format!(
            "unknown evaluation '{other}' (hce or net)"
        ))),
    }
}

/// Depth and time for a search, as most commands take them.
#[derive(Args, Debug, Clone, Default)]
pub struct SearchArgs {
    /// Search depth in plies, up to 120 [default: the engine's own]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub depth: Option<u32>,
    /// Time per move in milliseconds (iterative engines)
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
}

impl SearchArgs {
    /// The limits asked for, or the engine's defaults when none were given.
    pub fn limits(&self, engine: &dyn Engine) -> Limits {
        if self.depth.is_none() && self.movetime.is_none() {
            return engine.default_limits();
        }
        Limits {
            depth: self.depth,
            movetime: self.movetime.map(std::time::Duration::from_millis),
            ..Limits::default()
        }
    }
}

/// Checks, before any work, that `path` can take the output `option` names: not a directory,
/// in a directory that exists, and writable if it exists already. Nothing is created.
pub fn check_output(path: &str, option: &str) -> Result<(), Error> {
    let p = std::path::Path::new(path);
    if path.is_empty() {
        return Err(Error::Invalid(format!("{option}: an empty path")));
    }
    if p.is_dir() {
        return Err(Error::Invalid(format!(
            "{option} {path}: a directory; give a file name"
        )));
    }
    let parent = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !parent.is_dir() {
        return Err(Error::Invalid(format!(
            "{option} {path}: no directory {}",
            parent.display()
        )));
    }
    if p.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(p)
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// The deepest search a command takes: the strong engine's own limit.
pub const MAX_DEPTH: u32 = crate::search::worker::MAX_SEARCH_PLY as u32;

/// The strong engine, used when no engine is named.
pub const DEFAULT_ENGINE: &str = "rookery";
