//! Endgame tablebases. Syzygy tables (probed by `shakmaty-syzygy`) give the strong engine exact
//! results: win/draw/loss under the 50-move rule (WDL) inside the search, and distance to the
//! next capture or pawn move (DTZ) at the root, so a won ending is won in time and a drawn one is
//! held.
//!
//! A tablebase set is opened once (from directories separated by `:`) and shared by every search
//! thread. Missing tables are a miss, not an error; a table that turns out corrupt while probing
//! is reported once and then the whole set is left alone, so the engine plays on without it.

pub mod dtm;
#[cfg(feature = "gaviota")]
pub mod gaviota;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{AmbiguousWdl, SyzygyError, Tablebase, Wdl};

use crate::error::Error;

/// Opens Gaviota tables (distance to mate) for the ladder engines. Builds without the `gaviota`
/// feature say how to get it.
pub fn open_gaviota(dir: &str) -> Result<Arc<dyn dtm::DtmTables>, Error> {
    #[cfg(feature = "gaviota")]
    {
        Ok(Arc::new(gaviota::Gaviota::open(dir)?))
    }
    #[cfg(not(feature = "gaviota"))]
    {
        Err(Error::Invalid(format!(
            "cannot open Gaviota tables in '{dir}': this build has no Gaviota support (build with `--features gaviota`, which needs libclang)"
        )))
    }
}

/// An open set of Syzygy tables. Cheap to clone; clones are the same set.
#[derive(Clone)]
pub struct Syzygy {
    inner: Arc<Inner>,
}

struct Inner {
    tables: Tablebase<Chess>,
    /// Where the tables came from, as given.
    path: String,
    files: usize,
    /// Set after a probe failed on a corrupt table: no more probing.
    broken: AtomicBool,
    /// Messages for the user, each said once (taken by the UCI loop or the CLI).
    messages: Mutex<Vec<String>>,
    said_missing: AtomicBool,
}

impl std::fmt::Debug for Syzygy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Syzygy({:?}, {} files, {} pieces)",
            self.inner.path,
            self.inner.files,
            self.max_pieces()
        )
    }
}

/// Two handles are equal when they share one open set.
impl PartialEq for Syzygy {
    fn eq(&self, other: &Syzygy) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
impl Eq for Syzygy {}

/// A legal move and what the tables say of it, from the mover's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    /// Win/draw/loss under the 50-move rule after the move: 2 win, 1 cursed win (a win the
    /// 50-move rule turns into a draw), 0 draw, -1 blessed loss, -2 loss.
    pub wdl: i32,
    /// Signed plies until the next capture or pawn move (1 when the move itself is one): positive
    /// when the mover wins, negative when it loses, 0 for a draw.
    pub dtz: i32,
}

impl Syzygy {
    /// Opens every table in the directories of `paths` (separated by `:`, or `;` as on Windows).
    /// An empty path or one without a single table is an error the caller reports.
    pub fn open(paths: &str) -> Result<Syzygy, Error> {
        let mut tables = Tablebase::new();
        let mut files = 0;
        for dir in paths
            .split([':', ';'])
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            if !Path::new(dir).is_dir() {
                return Err(Error::Invalid(format!(
                    "Syzygy path '{dir}' is not a directory"
                )));
            }
            files += tables
                .add_directory(dir)
                .map_err(|e| Error::Invalid(format!("Syzygy tables in '{dir}': {e}")))?;
        }
        if files == 0 {
            return Err(Error::Invalid(format!(
                "no Syzygy tables (.rtbw/.rtbz files) found in '{paths}'"
            )));
        }
        Ok(Syzygy {
            inner: Arc::new(Inner {
                tables,
                path: paths.to_string(),
                files,
                broken: AtomicBool::new(false),
                messages: Mutex::new(Vec::new()),
                said_missing: AtomicBool::new(false),
            }),
        })
    }

    /// Table files found.
    pub fn files(&self) -> usize {
        self.inner.files
    }

    /// The most pieces (kings included) of any table: positions with more are not probed.
    pub fn max_pieces(&self) -> usize {
        self.inner.tables.max_pieces()
    }

    /// One line for the user: what was opened.
    pub fn describe(&self) -> String {
        format!(
            "Syzygy: {} table files, up to {} pieces, from {}",
            self.files(),
            self.max_pieces(),
            self.inner.path
        )
    }

    /// The messages not yet said (a corrupt or missing table), each once.
    pub fn take_messages(&self) -> Vec<String> {
        self.inner
            .messages
            .lock()
            .map(|mut m| std::mem::take(&mut *m))
            .unwrap_or_default()
    }

    /// True if `pos` could be in the tables: few enough pieces, no castling rights, tables sound.
    pub fn covers(&self, pos: &Chess, limit: usize) -> bool {
        !self.inner.broken.load(Ordering::Relaxed)
            && pos.board().occupied().count() <= self.max_pieces().min(limit)
            && pos.castles().is_empty()
    }

    fn note(&self, err: &SyzygyError) {
        match err {
            SyzygyError::ProbeFailed { .. } => {
                if !self.inner.broken.swap(true, Ordering::Relaxed) {
                    self.say(format!("{err}; playing on without tablebases"));
                }
            }
            SyzygyError::MissingTable { .. } => {
                if !self.inner.said_missing.swap(true, Ordering::Relaxed) {
                    self.say(format!("{err} (further missing tables are not reported)"));
                }
            }
            SyzygyError::Castling | SyzygyError::TooManyPieces => {}
        }
    }

    fn say(&self, text: String) {
        if let Ok(mut m) = self.inner.messages.lock() {
            m.push(text);
        }
    }

    /// One probe of the sound tables; a failure is noted (said once) and reads as `None`.
    fn probe<T>(&self, f: impl FnOnce(&Tablebase<Chess>) -> Result<T, SyzygyError>) -> Option<T> {
        if self.inner.broken.load(Ordering::Relaxed) {
            return None;
        }
        f(&self.inner.tables).map_err(|e| self.note(&e)).ok()
    }

    /// WDL of a position reached by a capture or pawn move (the only time a WDL probe is exact
    /// under the 50-move rule), from the side to move. `None`: not in the tables.
    pub fn probe_wdl_after_zeroing(&self, pos: &Chess) -> Option<Wdl> {
        self.probe(|t| t.probe_wdl_after_zeroing(pos))
    }

    /// WDL of any position, counting its 50-move clock, from the side to move (-2..2; a result
    /// the rounding of DTZ leaves unsure counts as the cursed or blessed one).
    pub fn probe_wdl(&self, pos: &Chess) -> Option<i32> {
        self.probe(|t| t.probe_wdl(pos)).map(wdl_value)
    }

    /// DTZ of a position from the side to move: signed plies to the next capture or pawn move of
    /// the winning line (0 for a draw).
    pub fn probe_dtz(&self, pos: &Chess) -> Option<i32> {
        self.probe(|t| t.probe_dtz(pos))
            .map(|d| d.ignore_rounding().0)
    }

    /// Every legal move of `pos` with its result, best first: wins by the fewest plies to the next
    /// zeroing move, then draws, then losses by the most. `None` when some move cannot be probed.
    pub fn rank_moves(&self, pos: &Chess) -> Option<Vec<RankedMove>> {
        let mut ranked = Vec::new();
        for mv in pos.legal_moves() {
            let zeroing = mv.is_zeroing();
            let mut after = pos.clone();
            after.play_unchecked(mv);
            let (wdl, dtz) = if after.is_checkmate() {
                (2, 1)
            } else if after.legal_moves().is_empty() || after.is_insufficient_material() {
                (0, 0)
            } else {
                let theirs = self.probe_wdl(&after)?;
                let their_dtz = self.probe_dtz(&after)?;
                let plies = if zeroing { 1 } else { their_dtz.abs() + 1 };
                let wdl = -theirs;
                let dtz = match wdl.signum() {
                    1 => plies,
                    -1 => -plies,
                    _ => 0,
                };
                (wdl, dtz)
            };
            ranked.push(RankedMove { mv, wdl, dtz });
        }
        // Within a result, ascending DTZ puts the soonest win and the latest loss first.
        ranked.sort_by_key(|r| (std::cmp::Reverse(r.wdl), r.dtz));
        Some(ranked)
    }

    /// The root moves the engine may choose from: those that keep the best result, and when
    /// winning (or losing) only those that reach the next zeroing move soonest (or latest). The
    /// search then picks among them. `None` when the position is not in the tables.
    pub fn root_moves(&self, pos: &Chess, limit: usize) -> Option<Vec<RankedMove>> {
        if !self.covers(pos, limit) {
            return None;
        }
        let ranked = self.rank_moves(pos)?;
        let best = *ranked.first()?;
        Some(
            ranked
                .into_iter()
                .filter(|r| r.wdl == best.wdl && (r.wdl == 0 || r.dtz == best.dtz))
                .collect(),
        )
    }
}

fn wdl_value(w: AmbiguousWdl) -> i32 {
    match w {
        AmbiguousWdl::Loss => -2,
        AmbiguousWdl::MaybeLoss | AmbiguousWdl::BlessedLoss => -1,
        AmbiguousWdl::Draw => 0,
        AmbiguousWdl::CursedWin | AmbiguousWdl::MaybeWin => 1,
        AmbiguousWdl::Win => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;

    fn tables() -> Syzygy {
        Syzygy::open("tests/data/syzygy").unwrap()
    }

    #[test]
    fn opens_the_test_tables_and_refuses_bad_paths() {
        let tb = tables();
        assert_eq!(tb.max_pieces(), 4);
        assert!(tb.files() >= 70);
        assert!(Syzygy::open("/nonexistent/dir").is_err());
        assert!(Syzygy::open("").is_err());
        assert!(Syzygy::open("src").is_err(), "a directory without tables");
    }

    #[test]
    fn a_won_ending_keeps_only_the_fastest_winning_moves() {
        let tb = tables();
        // KQvK: every kept move wins, and none is slower than the best.
        let pos = parse_fen("8/8/8/4k3/8/8/8/KQ6 w - - 0 1").unwrap();
        let kept = tb.root_moves(&pos, 7).unwrap();
        assert!(!kept.is_empty());
        let all = tb.rank_moves(&pos).unwrap();
        assert!(kept.iter().all(|r| r.wdl == 2 && r.dtz == all[0].dtz));
        assert!(
            all.len() > kept.len(),
            "slower and drawing moves are dropped"
        );
        // Blunders that give the queen away draw and are ranked below every win.
        assert!(all.iter().any(|r| r.wdl == 0));
    }

    #[test]
    fn ranked_moves_mate_first() {
        let tb = tables();
        // KQvK with mate in one: Qh8# is ranked first.
        let pos = parse_fen("k7/8/1K6/8/8/8/7Q/8 w - - 0 1").unwrap();
        let all = tb.rank_moves(&pos).unwrap();
        assert_eq!((all[0].wdl, all[0].dtz), (2, 1));
        assert_eq!(crate::core::game::uci(all[0].mv), "h2h8");
    }
}
