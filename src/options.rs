//! Every UCI option, declared once in `OPTIONS`: its name, kind, default and range, what it does
//! to the engine, and the one line that stores its value. The table produces the `uci` reply,
//! parses `setoption`, sets the defaults (here and on the command line), fills the engine
//! settings, and the tests walk it. Adding an option is one line in the table plus its field.
//! Names match without regard to case; a bad value is an error message and changes nothing.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::core::memory::{self, MB};
use crate::core::params;
use crate::engine::{Evaluation, Settings};
use crate::nnue::Network;
use crate::registry;
use crate::search::engine::THREAD_BYTES;
use crate::tb::Syzygy;

/// What kind of control a GUI shows, with its default and range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    /// Free text; `<empty>` stands for the empty string.
    Text,
    /// One of the registry's engine names.
    Engine {
        default: &'static str,
    },
    /// One of a fixed list of words.
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
}

/// What a changed option asks of the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond remembering the value.
    None,
    /// Hash, threads, strength or tables changed: reconfigure the engine.
    Reconfigure,
    /// Empty the hash table.
    ClearHash,
    /// Another engine or book: create the engine anew.
    Recreate,
    /// The debug log changed: the input and output take the new one at once, even mid-search.
    Log,
}

/// A value, checked against its option's kind.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    Int(i64),
    Bool(bool),
    Text(&'a str),
    Press,
}

impl Value<'_> {
    fn int(self) -> i64 {
        match self {
            Value::Int(n) => n,
            _ => 0,
        }
    }

    fn bool(self) -> bool {
        matches!(self, Value::Bool(true))
    }

    fn text(self) -> String {
        match self {
            Value::Text(t) => t.to_string(),
            _ => String::new(),
        }
    }
}

/// One option: name, kind, effect, what it is for, and how its value is stored.
pub struct Declared {
    pub name: &'static str,
    pub kind: Kind,
    pub effect: Effect,
    pub help: &'static str,
    pub store: fn(&mut Options, Value<'_>) -> Result<(), String>,
}

pub const HASH_MAX_MB: i64 = 32_768;
pub const ELO_MIN: i64 = 1000;
/// Above this, at 10 s + 0.1 s a move, the node budget is more than the clock allows: full strength.
pub const ELO_MAX: i64 = 2200;

const fn spin(default: i64, min: i64, max: i64) -> Kind {
    Kind::Spin { default, min, max }
}

const fn check(default: bool) -> Kind {
    Kind::Check { default }
}

use Effect::{ClearHash, Reconfigure, Recreate};

/// Every option, in the order the `uci` reply lists them.
#[rustfmt::skip]
pub static OPTIONS: &[Declared] = &[
    Declared { name: "Hash", kind: spin(16, 1, HASH_MAX_MB), effect: Reconfigure, help: "hash table in MB, resizable at any time", store: |o, v| { o.hash_mb = v.int() as usize; Ok(()) } },
    Declared { name: "Threads", kind: spin(1, 1, 256), effect: Reconfigure, help: "search threads (Lazy SMP on a shared lock-free table)", store: |o, v| { o.threads = v.int() as usize; Ok(()) } },
    Declared { name: "MultiPV", kind: spin(1, 1, 256), effect: Effect::None, help: "principal variations reported", store: |o, v| { o.multipv = v.int() as usize; Ok(()) } },
    Declared { name: "Move Overhead", kind: spin(10, 0, 5000), effect: Effect::None, help: "ms kept back per move for the GUI and the pipe", store: |o, v| { o.move_overhead_ms = v.int() as u64; Ok(()) } },
    Declared { name: "Clear Hash", kind: Kind::Button, effect: ClearHash, help: "empty the hash table", store: |_, _| Ok(()) },
    Declared { name: "Ponder", kind: check(false), effect: Effect::None, help: "thinking on the opponent's time (`go ponder`, `ponderhit`)", store: |o, v| { o.ponder = v.bool(); Ok(()) } },
    Declared { name: "UCI_Chess960", kind: check(false), effect: Effect::None, help: "castling written king-takes-rook", store: |o, v| { o.chess960 = v.bool(); Ok(()) } },
    Declared { name: "UCI_LimitStrength", kind: check(false), effect: Reconfigure, help: "play at about UCI_Elo", store: |o, v| { o.limit_strength = v.bool(); Ok(()) } },
    Declared { name: "UCI_Elo", kind: spin(1800, ELO_MIN, ELO_MAX), effect: Reconfigure, help: "the strength UCI_LimitStrength plays at (Stockfish's UCI_Elo scale at 10 s + 0.1 s)", store: |o, v| { o.elo = v.int() as u32; Ok(()) } },
    Declared { name: "UCI_ShowWDL", kind: check(false), effect: Effect::None, help: "win/draw/loss per mille in `info`", store: |o, v| { o.show_wdl = v.bool(); Ok(()) } },
    Declared { name: "OwnBook", kind: check(false), effect: Recreate, help: "play from a Polyglot book", store: |o, v| { o.own_book = v.bool(); Ok(()) } },
    Declared { name: "BookFile", kind: Kind::Text, effect: Recreate, help: "the Polyglot book for OwnBook (empty: the built-in one)", store: |o, v| { o.book_file = v.text(); Ok(()) } },
    Declared { name: "SyzygyPath", kind: Kind::Text, effect: Reconfigure, help: "Syzygy tablebase directories, separated by ':'", store: store_syzygy_path },
    Declared { name: "SyzygyProbeDepth", kind: spin(1, 1, 100), effect: Reconfigure, help: "probe in the search from this remaining depth", store: |o, v| { o.syzygy_probe_depth = v.int() as u32; Ok(()) } },
    Declared { name: "SyzygyProbeLimit", kind: spin(7, 0, 7), effect: Reconfigure, help: "probe positions of at most this many pieces", store: |o, v| { o.syzygy_probe_limit = v.int() as u32; Ok(()) } },
    Declared { name: "Evaluation", kind: Kind::Combo { default: "net", vars: &["net", "hce"] }, effect: Reconfigure, help: "the strong engine's evaluation: the learned net (net) or the hand-crafted one (hce)", store: |o, v| { o.evaluation = v.text(); Ok(()) } },
    Declared { name: "EvalFile", kind: Kind::Text, effect: Reconfigure, help: "a net file for Evaluation net (empty: the built-in net)", store: store_eval_file },
    Declared { name: "Debug Log File", kind: Kind::Text, effect: Effect::Log, help: "append every line in and out to this file, each with the time it passed (empty: no log)", store: store_debug_log },
    Declared { name: "Engine", kind: Kind::Engine { default: "rookery" }, effect: Recreate, help: "any rung of the ladder, so GUIs and bots can play the tutorial's engines", store: |o, v| { o.engine = v.text(); Ok(()) } },
];

/// Opens the tables a new `SyzygyPath` names; on failure none are kept.
fn store_syzygy_path(o: &mut Options, v: Value<'_>) -> Result<(), String> {
    o.syzygy_path = v.text();
    o.syzygy = None;
    if !o.syzygy_path.is_empty() {
        o.syzygy = Some(
            Syzygy::open(&o.syzygy_path).map_err(|e| format!("{e}; playing without tablebases"))?,
        );
    }
    Ok(())
}

/// Loads the net a new `EvalFile` names; on failure the net in use stays.
fn store_eval_file(o: &mut Options, v: Value<'_>) -> Result<(), String> {
    let path = v.text();
    if path.is_empty() {
        o.net = None;
    } else {
        let net = Network::load(&path).map_err(|e| format!("{e}; the net in use stays"))?;
        o.net = Some(Arc::new(net));
    }
    o.eval_file = path;
    Ok(())
}

/// Opens the file a new `Debug Log File` names (appending); on failure no log is kept.
fn store_debug_log(o: &mut Options, v: Value<'_>) -> Result<(), String> {
    o.debug_log_file = v.text();
    o.debug_log = None;
    if !o.debug_log_file.is_empty() {
        o.debug_log = Some(DebugLog::open(&o.debug_log_file).map_err(|e| format!("{e}; no log"))?);
    }
    Ok(())
}

/// An open debug log: each line that comes in or goes out, one line of the file each, as
/// `<seconds since 1970, to the microsecond> <</>> <line>`, so a client's own log of when it
/// sent `go` and read `bestmove` can be laid beside the engine's.
#[derive(Clone, Debug)]
pub struct DebugLog {
    file: Arc<File>,
}

impl DebugLog {
    pub fn open(path: &str) -> Result<DebugLog, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open the debug log {path}: {e}"))?;
        Ok(DebugLog {
            file: Arc::new(file),
        })
    }

    /// Logs `text` as a line that came in (`incoming`) or went out at `at`. One write call
    /// a line, so the input and output threads never interleave within a line; a failed
    /// write is dropped (the log must never stop the engine).
    pub fn line(&self, incoming: bool, text: &str, at: SystemTime) {
        let t = at.duration_since(UNIX_EPOCH).unwrap_or_default();
        let dir = if incoming { "<<" } else { ">>" };
        let entry = format!(
            "{}.{:06} {dir} {}\n",
            t.as_secs(),
            t.subsec_micros(),
            text.trim_end_matches(['\r', '\n'])
        );
        let _ = (&*self.file).write_all(entry.as_bytes());
    }
}

impl PartialEq for DebugLog {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.file, &other.file)
    }
}

impl Eq for DebugLog {}

/// The most search threads that run at once: the CPUs this process may use (its affinity and
/// its container's quota count). A larger `Threads` is taken but searches with this many: more
/// threads than CPUs only slow the search and every answer down (on two CPUs, 256 threads make
/// `isready` wait seconds).
pub fn thread_cap() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The declaration of option `name` (any case).
pub fn find(name: &str) -> Option<&'static Declared> {
    let name = name.trim();
    OPTIONS.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

/// The default of spin option `name`, for command-line defaults that mirror UCI options.
/// Panics on a name that is not a spin option of the table (a programming error that every
/// test run would show).
pub fn default_spin(name: &str) -> i64 {
    match find(name).map(|d| d.kind) {
        Some(Kind::Spin { default, .. }) => default,
        _ => panic!("no spin option '{name}' in the table"),
    }
}

/// The option values, as the UCI loop keeps them.
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
    /// `hce` or `net`.
    pub evaluation: String,
    pub eval_file: String,
    /// The net `eval_file` names, when it loaded (`None`: the built-in net).
    pub net: Option<Arc<Network>>,
    pub debug_log_file: String,
    /// The file `debug_log_file` names, when it opened.
    pub debug_log: Option<DebugLog>,
}

impl Default for Options {
    /// Every option at the default the table declares.
    fn default() -> Self {
        let mut o = Options {
            hash_mb: 0,
            threads: 0,
            multipv: 0,
            move_overhead_ms: 0,
            ponder: false,
            chess960: false,
            limit_strength: false,
            elo: 0,
            show_wdl: false,
            own_book: false,
            book_file: String::new(),
            syzygy_path: String::new(),
            syzygy: None,
            syzygy_probe_depth: 0,
            syzygy_probe_limit: 0,
            engine: String::new(),
            evaluation: String::new(),
            eval_file: String::new(),
            net: None,
            debug_log_file: String::new(),
            debug_log: None,
        };
        for d in OPTIONS {
            let value = match d.kind {
                Kind::Spin { default, .. } => Value::Int(default),
                Kind::Check { default } => Value::Bool(default),
                Kind::Button => continue,
                Kind::Text => Value::Text(""),
                Kind::Engine { default } | Kind::Combo { default, .. } => Value::Text(default),
            };
            (d.store)(&mut o, value).expect("every default is valid");
        }
        o
    }
}

impl Options {
    /// The `option ...` lines of the `uci` answer.
    pub fn describe() -> Vec<String> {
        OPTIONS
            .iter()
            .map(|d| {
                let tail = match d.kind {
                    Kind::Spin { default, min, max } => {
                        format!("spin default {default} min {min} max {max}")
                    }
                    Kind::Check { default } => format!("check default {default}"),
                    Kind::Button => "button".to_string(),
                    Kind::Text => "string default <empty>".to_string(),
                    Kind::Engine { default } => {
                        let vars: String = registry::names().map(|n| format!(" var {n}")).collect();
                        format!("combo default {default}{vars}")
                    }
                    Kind::Combo { default, vars } => {
                        let vars: String = vars.iter().map(|n| format!(" var {n}")).collect();
                        format!("combo default {default}{vars}")
                    }
                };
                format!("option name {} type {tail}", d.name)
            })
            .chain(
                // A tuning build lists every search parameter too (src/core/params.rs).
                params::PARAMS.iter().filter(|_| params::TUNABLE).map(|p| {
                    format!(
                        "option name {} type spin default {} min {} max {}",
                        p.name,
                        params::value(p),
                        p.min,
                        p.max
                    )
                }),
            )
            .collect()
    }

    /// The engine settings these options ask for.
    pub fn settings(&self) -> Settings {
        Settings {
            hash_mb: self.hash_mb,
            threads: self.threads.clamp(1, thread_cap()),
            limit_elo: self.limit_strength.then_some(self.elo),
            syzygy: self.syzygy.clone(),
            syzygy_probe_depth: self.syzygy_probe_depth,
            syzygy_probe_limit: self.syzygy_probe_limit,
            eval: if self.evaluation == "net" {
                Evaluation::Net(self.net.clone().unwrap_or_else(Network::default_net))
            } else {
                Evaluation::Hce
            },
        }
    }

    /// Sets an option from `setoption name <name> [value <value>]`, checking the value against
    /// the option's kind and range first.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, String> {
        if params::TUNABLE
            && find(name).is_none()
            && let Some(p) = params::find(name)
        {
            let v = value
                .map(str::trim)
                .ok_or_else(|| format!("option '{}' needs a value", p.name))?;
            let n: i64 = v
                .parse()
                .map_err(|_| format!("option '{}': '{v}' is not a whole number", p.name))?;
            params::set(p.name, n).map_err(|e| format!("option {e}"))?;
            return Ok(Effect::None);
        }
        let d = find(name).ok_or_else(|| format!("unknown option '{}'", name.trim()))?;
        let value = value.map(str::trim);
        let need = || value.ok_or_else(|| format!("option '{}' needs a value", d.name));
        let engine_name: String;
        let parsed = match d.kind {
            Kind::Spin { min, max, .. } => {
                let v = need()?;
                let n: i64 = v
                    .parse()
                    .map_err(|_| format!("option '{}': '{v}' is not a whole number", d.name))?;
                if !(min..=max).contains(&n) {
                    return Err(format!("option '{}': {n} is outside {min}..{max}", d.name));
                }
                Value::Int(n)
            }
            Kind::Check { .. } => match need()?.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                v => return Err(format!("option '{}': '{v}' is not true or false", d.name)),
            },
            Kind::Button => Value::Press,
            Kind::Text => match need()? {
                "<empty>" => Value::Text(""),
                v => Value::Text(v),
            },
            Kind::Engine { .. } => {
                engine_name = need()?.to_ascii_lowercase();
                if !registry::is_known(&engine_name) {
                    let unknown = registry::unknown(&engine_name);
                    return Err(format!("option '{}': {unknown}", d.name));
                }
                Value::Text(&engine_name)
            }
            Kind::Combo { vars, .. } => {
                engine_name = need()?.to_ascii_lowercase();
                if !vars.contains(&engine_name.as_str()) {
                    return Err(format!(
                        "option '{}': '{engine_name}' is not one of {}",
                        d.name,
                        vars.join(", ")
                    ));
                }
                Value::Text(&engine_name)
            }
        };
        self.check_memory(d.name, parsed)?;
        (d.store)(self, parsed)?;
        Ok(d.effect)
    }

    /// Refuses a Hash or Threads value the memory cannot hold, before anything is allocated
    /// (the table in use is freed first, so it counts as free).
    fn check_memory(&self, name: &str, value: Value<'_>) -> Result<(), String> {
        let n = value.int().max(1) as u64;
        let (what, bytes, freed, kept) = match name {
            "Hash" => (
                format!("a hash table of {n} MB"),
                n * MB,
                self.hash_mb as u64 * MB,
                format!("{} MB", self.hash_mb),
            ),
            "Threads" => {
                let cap = thread_cap() as u64;
                (
                    format!("{} search threads", n.min(cap)),
                    n.min(cap)
                        .saturating_sub(self.threads.min(cap as usize) as u64)
                        * THREAD_BYTES,
                    0,
                    self.threads.to_string(),
                )
            }
            _ => return Ok(()),
        };
        memory::check(&what, bytes, freed)
            .map_err(|e| format!("option '{name}': {e}; {name} stays at {kept}"))
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
        let err = o.set("Engine", Some("deep-blue")).unwrap_err();
        assert!(err.contains("unknown engine 'deep-blue'"), "{err}");
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

    /// Each declared option: described once, its default accepted by `set`, its range enforced.
    #[test]
    fn the_table_drives_description_parsing_and_defaults() {
        let lines = Options::describe();
        assert_eq!(lines.len(), OPTIONS.len());
        for (d, line) in OPTIONS.iter().zip(&lines) {
            assert!(
                line.starts_with(&format!("option name {} type ", d.name)),
                "{line}"
            );
            let mut o = Options::default();
            match d.kind {
                Kind::Spin { default, min, max } => {
                    assert!((min..=max).contains(&default), "{}", d.name);
                    assert!(o.set(d.name, Some(&(max + 1).to_string())).is_err());
                    assert!(o.set(d.name, Some(&(min - 1).to_string())).is_err());
                    assert_eq!(o.set(d.name, Some(&default.to_string())), Ok(d.effect));
                }
                Kind::Check { default } => {
                    assert_eq!(o.set(d.name, Some(&default.to_string())), Ok(d.effect));
                }
                Kind::Button => assert_eq!(o.set(d.name, None), Ok(d.effect)),
                Kind::Text => assert_eq!(o.set(d.name, Some("<empty>")), Ok(d.effect)),
                Kind::Engine { default } => {
                    assert_eq!(o.set(d.name, Some(default)), Ok(d.effect));
                    assert!(line.contains("var pst") && line.contains("var rookery"));
                }
                Kind::Combo { default, vars } => {
                    assert!(vars.contains(&default));
                    assert!(o.set(d.name, Some("no-such-value")).is_err());
                    assert_eq!(o.set(d.name, Some(default)), Ok(d.effect));
                    for v in vars {
                        assert!(line.contains(&format!("var {v}")), "{line}");
                    }
                }
            }
            assert_eq!(
                o,
                Options::default(),
                "{}: the default changes nothing",
                d.name
            );
        }
        assert_eq!(Options::default().settings(), Settings::default());
        assert_eq!(default_spin("Hash"), 16);
    }
}
