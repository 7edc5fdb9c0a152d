//! The UCI options, with the names users' configurations already use. Names match without regard
//! to case; a bad value is an error message and changes nothing.

use crate::engine::{self, Settings};
use crate::tb::Syzygy;

pub const HASH_MAX_MB: usize = 32_768;
pub const ELO_MIN: u32 = 1000;
/// Above this, at 10 s + 0.1 s a move, the node budget is more than the clock allows: full strength.
pub const ELO_MAX: u32 = 2200;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead_ms: u64,
    pub ponder: bool,
    pub chess960: bool,
    pub limit_strength: bool,
    pub elo: u32,
    pub show_wdl: bool,
    pub own_book: bool,
    /// Empty: the built-in book.
    pub book_file: String,
    pub syzygy_path: String,
    /// The tables of `syzygy_path`, when they opened.
    pub syzygy: Option<Syzygy>,
    pub syzygy_probe_depth: u32,
    pub syzygy_probe_limit: u32,
    pub engine: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 10,
            ponder: false,
            chess960: false,
            limit_strength: false,
            elo: 1800,
            show_wdl: false,
            own_book: false,
            book_file: String::new(),
            syzygy_path: String::new(),
            syzygy: None,
            syzygy_probe_depth: 1,
            syzygy_probe_limit: 7,
            engine: "rookery".into(),
        }
    }
}

/// What a changed option asks of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond remembering the value.
    None,
    /// Hash, threads or strength changed: reconfigure the engine.
    Reconfigure,
    /// Empty the hash table.
    ClearHash,
    /// Another engine or book: create the engine anew.
    Recreate,
}

impl Options {
    /// The `option ...` lines of the `uci` answer.
    pub fn describe(&self) -> Vec<String> {
        let d = Options::default();
        let engines: String = engine::names().map(|n| format!(" var {n}")).collect();
        vec![
            format!(
                "option name Hash type spin default {} min 1 max {HASH_MAX_MB}",
                d.hash_mb
            ),
            format!(
                "option name Threads type spin default {} min 1 max 256",
                d.threads
            ),
            format!(
                "option name MultiPV type spin default {} min 1 max 256",
                d.multipv
            ),
            format!(
                "option name Move Overhead type spin default {} min 0 max 5000",
                d.move_overhead_ms
            ),
            "option name Clear Hash type button".into(),
            format!("option name Ponder type check default {}", d.ponder),
            format!("option name UCI_Chess960 type check default {}", d.chess960),
            format!(
                "option name UCI_LimitStrength type check default {}",
                d.limit_strength
            ),
            format!(
                "option name UCI_Elo type spin default {} min {ELO_MIN} max {ELO_MAX}",
                d.elo
            ),
            format!("option name UCI_ShowWDL type check default {}", d.show_wdl),
            format!("option name OwnBook type check default {}", d.own_book),
            "option name BookFile type string default <empty>".into(),
            "option name SyzygyPath type string default <empty>".into(),
            format!(
                "option name SyzygyProbeDepth type spin default {} min 1 max 100",
                d.syzygy_probe_depth
            ),
            format!(
                "option name SyzygyProbeLimit type spin default {} min 0 max 7",
                d.syzygy_probe_limit
            ),
            format!(
                "option name Engine type combo default {}{engines}",
                d.engine
            ),
        ]
    }

    /// The engine settings these options ask for.
    pub fn settings(&self) -> Settings {
        Settings {
            hash_mb: self.hash_mb,
            threads: self.threads,
            limit_elo: self.limit_strength.then_some(self.elo),
            syzygy: self.syzygy.clone(),
            syzygy_probe_depth: self.syzygy_probe_depth,
            syzygy_probe_limit: self.syzygy_probe_limit,
        }
    }

    /// Sets an option from `setoption name <name> [value <value>]`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, String> {
        let key = name.trim().to_ascii_lowercase();
        let value = value.map(str::trim);
        let need = || value.ok_or_else(|| format!("option '{name}' needs a value"));
        let spin = |min: u64, max: u64| -> Result<u64, String> {
            let v = need()?;
            let n: u64 = v
                .parse()
                .map_err(|_| format!("option '{name}': '{v}' is not a whole number"))?;
            if (min..=max).contains(&n) {
                Ok(n)
            } else {
                Err(format!("option '{name}': {n} is outside {min}..{max}"))
            }
        };
        let check = || -> Result<bool, String> {
            match need()?.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                v => Err(format!("option '{name}': '{v}' is not true or false")),
            }
        };
        let text = || -> Result<String, String> {
            let v = need()?;
            Ok(if v == "<empty>" {
                String::new()
            } else {
                v.to_string()
            })
        };
        Ok(match key.as_str() {
            "hash" => {
                self.hash_mb = spin(1, HASH_MAX_MB as u64)? as usize;
                Effect::Reconfigure
            }
            "threads" => {
                self.threads = spin(1, 256)? as usize;
                Effect::Reconfigure
            }
            "multipv" => {
                self.multipv = spin(1, 256)? as usize;
                Effect::None
            }
            "move overhead" => {
                self.move_overhead_ms = spin(0, 5000)?;
                Effect::None
            }
            "clear hash" => Effect::ClearHash,
            "ponder" => {
                self.ponder = check()?;
                Effect::None
            }
            "uci_chess960" => {
                self.chess960 = check()?;
                Effect::None
            }
            "uci_limitstrength" => {
                self.limit_strength = check()?;
                Effect::Reconfigure
            }
            "uci_elo" => {
                self.elo = spin(u64::from(ELO_MIN), u64::from(ELO_MAX))? as u32;
                Effect::Reconfigure
            }
            "uci_showwdl" => {
                self.show_wdl = check()?;
                Effect::None
            }
            "ownbook" => {
                self.own_book = check()?;
                Effect::Recreate
            }
            "bookfile" => {
                self.book_file = text()?;
                Effect::Recreate
            }
            "syzygypath" => {
                self.syzygy_path = text()?;
                self.syzygy = None;
                if !self.syzygy_path.is_empty() {
                    self.syzygy = Some(
                        Syzygy::open(&self.syzygy_path)
                            .map_err(|e| format!("{e}; playing without tablebases"))?,
                    );
                }
                Effect::Reconfigure
            }
            "syzygyprobedepth" => {
                self.syzygy_probe_depth = spin(1, 100)? as u32;
                Effect::Reconfigure
            }
            "syzygyprobelimit" => {
                self.syzygy_probe_limit = spin(0, 7)? as u32;
                Effect::Reconfigure
            }
            "engine" => {
                let v = need()?.to_ascii_lowercase();
                if !engine::names().any(|n| n == v) {
                    return Err(format!(
                        "option 'Engine': unknown engine '{v}' (known: {})",
                        engine::names().collect::<Vec<_>>().join(", ")
                    ));
                }
                self.engine = v;
                Effect::Recreate
            }
            _ => return Err(format!("unknown option '{name}'")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ignore_case_and_values_are_checked() {
        let mut o = Options::default();
        assert_eq!(o.set("hash", Some("64")), Ok(Effect::Reconfigure));
        assert_eq!(o.hash_mb, 64);
        assert_eq!(o.set("MOVE OVERHEAD", Some("30")), Ok(Effect::None));
        assert_eq!(o.move_overhead_ms, 30);
        assert!(o.set("Hash", Some("0")).is_err());
        assert!(o.set("Hash", Some("lots")).is_err());
        assert!(o.set("Hash", None).is_err());
        assert_eq!(o.hash_mb, 64, "a bad value changes nothing");
        assert!(o.set("Ponder", Some("maybe")).is_err());
        assert_eq!(o.set("engine", Some("Minimax")), Ok(Effect::Recreate));
        assert_eq!(o.engine, "minimax");
        assert!(o.set("Engine", Some("deep-blue")).is_err());
        assert!(o.set("Contempt", Some("10")).is_err());
        assert_eq!(o.set("Clear Hash", None), Ok(Effect::ClearHash));
        assert_eq!(o.set("BookFile", Some("<empty>")), Ok(Effect::Recreate));
        assert_eq!(o.book_file, "");
        o.set("UCI_LimitStrength", Some("true")).unwrap();
        o.set("UCI_Elo", Some("1500")).unwrap();
        assert_eq!(o.settings().limit_elo, Some(1500));
    }

    #[test]
    fn syzygy_path_opens_the_tables_or_says_why_not() {
        let mut o = Options::default();
        assert_eq!(
            o.set("SyzygyPath", Some("tests/data/syzygy")),
            Ok(Effect::Reconfigure)
        );
        assert_eq!(o.settings().syzygy.map(|t| t.max_pieces()), Some(4));
        let err = o.set("SyzygyPath", Some("/no/such/dir")).unwrap_err();
        assert!(err.contains("not a directory"), "{err}");
        assert_eq!(o.settings().syzygy, None, "a bad path leaves no tables");
        assert_eq!(
            o.set("syzygypath", Some("<empty>")),
            Ok(Effect::Reconfigure)
        );
        assert!(o.set("SyzygyProbeLimit", Some("8")).is_err());
        o.set("SyzygyProbeDepth", Some("4")).unwrap();
        assert_eq!(o.settings().syzygy_probe_depth, 4);
    }

    #[test]
    fn every_option_is_described_with_a_default_in_range() {
        let lines = Options::default().describe();
        for name in [
            "Hash",
            "Threads",
            "MultiPV",
            "Move Overhead",
            "Clear Hash",
            "Ponder",
            "UCI_Chess960",
            "UCI_LimitStrength",
            "UCI_Elo",
            "UCI_ShowWDL",
            "OwnBook",
            "BookFile",
            "SyzygyPath",
            "SyzygyProbeDepth",
            "SyzygyProbeLimit",
            "Engine",
        ] {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("option name {name} type"))),
                "{name}"
            );
        }
        assert!(
            lines
                .iter()
                .any(|l| l.contains("var pst") && l.contains("var rookery"))
        );
    }
}
