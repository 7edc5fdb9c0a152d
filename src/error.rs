//! Errors a user can cause: bad FEN, illegal move, unknown engine, unreadable or corrupt files,
//! tables larger than the memory that can be had.
//! Each one reads as one clear sentence; the CLI prints it and exits with code 2, the UCI loop
//! answers it with `info string`.
//!
//! A file of one of the crate's own formats (a data set's records and game logs, a training
//! checkpoint, a net) that does not hold what its format allows has a variant of its own: the file and a
//! typed problem, so that a caller can tell what went wrong without reading the sentence. Each
//! format's variant has that one shape (`path`, `problem`), and the problem of bytes that end
//! too soon is one type, [`ReadError`], whichever format was being read.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A FEN that does not parse or describes an impossible position.
    Fen { fen: String, reason: String },
    /// A move that does not parse or is not legal in the position.
    Move { text: String, reason: String },
    /// An engine name that is not on the ladder; `known` lists the names that are.
    UnknownEngine { name: String, known: String },
    /// A file that cannot be read or written.
    Io { path: String, reason: String },
    /// A Polyglot book that is not a valid book file.
    Book(String),
    /// A table larger than the memory that can be had, said with the figures.
    Memory(String),
    /// Anything else the user asked for that cannot be done, said in words.
    Invalid(String),
    /// A data set's file (records, a game log, the manifest) that does not hold what its format
    /// allows, or a game that cannot be written to a log. `path` is empty where the bytes were
    /// not read from a file (see [`Error::in_file`]).
    Data { path: String, problem: DataProblem },
    /// A training checkpoint that is not one, or is damaged. `path` as for `Data`.
    Train { path: String, problem: TrainProblem },
    /// A net file that is not one, of another version or architecture, or damaged. `path` as
    /// for `Data`.
    Net { path: String, problem: NetProblem },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Fen { fen, reason } => write!(f, "invalid FEN '{fen}': {reason}"),
            Error::Move { text, reason } => write!(f, "move '{text}': {reason}"),
            Error::UnknownEngine { name, known } => {
                write!(f, "unknown engine '{name}' (known: {known})")
            }
            Error::Io { path, reason } => write!(f, "{path}: {reason}"),
            Error::Book(reason) => write!(f, "bad opening book: {reason}"),
            Error::Memory(reason) | Error::Invalid(reason) => f.write_str(reason),
            Error::Data { path, problem } => in_file(f, path, problem),
            Error::Train { path, problem } => in_file(f, path, problem),
            Error::Net { path, problem } => in_file(f, path, problem),
        }
    }
}

/// `path: problem`, or the problem alone where there is no path.
fn in_file(f: &mut fmt::Formatter<'_>, path: &str, problem: &dyn fmt::Display) -> fmt::Result {
    if path.is_empty() {
        write!(f, "{problem}")
    } else {
        write!(f, "{path}: {problem}")
    }
}

impl std::error::Error for Error {}

impl Error {
    /// A file that cannot be read or written, the reason in plain words: one wording for each
    /// kind of failure, whatever the command.
    pub fn io(path: impl fmt::Display, err: std::io::Error) -> Error {
        use std::io::ErrorKind;
        let reason = match err.kind() {
            ErrorKind::NotFound => "no such file or directory".to_string(),
            ErrorKind::PermissionDenied => "permission denied".to_string(),
            ErrorKind::IsADirectory => "a directory, not a file".to_string(),
            ErrorKind::NotADirectory => "a part of the path is not a directory".to_string(),
            ErrorKind::AlreadyExists => "already exists".to_string(),
            ErrorKind::StorageFull => "the disk is full".to_string(),
            _ => {
                // The system's text without its error number.
                let text = err.to_string();
                match text.rfind(" (os error ") {
                    Some(at) if text.ends_with(')') => text[..at].to_string(),
                    _ => text,
                }
            }
        };
        Error::Io {
            path: path.to_string(),
            reason,
        }
    }

    /// `value` when it lies in `range`; else the error "WHAT must be LOW to HIGH\[UNIT\], got
    /// VALUE" (`unit` as written after the bound, such as `" ms"`, or empty).
    pub fn bounded<T: PartialOrd + fmt::Display>(
        what: &str,
        value: T,
        range: std::ops::RangeInclusive<T>,
        unit: &str,
    ) -> Result<T, Error> {
        if range.contains(&value) {
            return Ok(value);
        }
        Err(Error::Invalid(format!(
            "{what} must be {} to {}{unit}, got {value}",
            range.start(),
            range.end()
        )))
    }

    /// A data set's problem in the file at `path`.
    pub fn data(path: impl fmt::Display, problem: DataProblem) -> Error {
        Error::Data {
            path: path.to_string(),
            problem,
        }
    }

    /// The error with `path` as its file, where it is a format's error read from bytes alone
    /// (its path still empty); any other error is returned as it is.
    pub fn in_file(mut self, path: impl fmt::Display) -> Error {
        if let Error::Data { path: p, .. }
        | Error::Train { path: p, .. }
        | Error::Net { path: p, .. } = &mut self
            && p.is_empty()
        {
            *p = path.to_string();
        }
        self
    }
}

/// Why a net file (or a net built from weights) was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetProblem {
    /// No `RKNN` header.
    NotANet,
    /// A version this build does not read (it reads 1 to `newest`).
    Version { found: u32, newest: u32 },
    /// A shape or quantisation this build does not read, with what it reads.
    Architecture { found: String, supported: String },
    /// An activation code that names none.
    Activation(u8),
    /// The file ends before its weights do.
    CutShort,
    /// Bytes after the checksum.
    TrailingBytes,
    /// The checksum does not match the bytes before it.
    Damaged,
    /// Weights that do not make a net of this build: the reason in words.
    Weights(String),
    /// An input layout (mirroring, king buckets) this build does not read.
    Layout(LayoutProblem),
}

impl fmt::Display for NetProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetProblem::NotANet => f.write_str("not a Rookery net file (no RKNN header)"),
            NetProblem::Version { found, newest } => write!(
                f,
                "net file version {found}, this build reads versions 1 to {newest}"
            ),
            NetProblem::Architecture { found, supported } => write!(
                f,
                "unsupported architecture: {found} (this build reads {supported})"
            ),
            NetProblem::Activation(code) => write!(f, "unknown activation code {code}"),
            NetProblem::CutShort => f.write_str("the net file is cut short"),
            NetProblem::TrailingBytes => f.write_str("the net file has bytes after its end"),
            NetProblem::Damaged => f.write_str("the net file's checksum does not match (damaged)"),
            NetProblem::Weights(reason) => f.write_str(reason),
            NetProblem::Layout(problem) => write!(f, "unsupported input layout: {problem}"),
        }
    }
}

/// Why an input layout (`nnue::InputLayout`: horizontal mirroring and a king bucket table) was
/// refused, in a net file, a checkpoint or a table built by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutProblem {
    /// A mirror flag other than 0 or 1.
    MirrorFlag(u8),
    /// A king bucket at or above `max` (the most a layout may have).
    Bucket { square: u8, bucket: u8, max: usize },
    /// A mirrored layout whose table differs between a square and its mirror image: files e-h
    /// must repeat files a-d.
    Asymmetric { square: u8 },
    /// A bucket below the highest that no king square maps to.
    Unused(u8),
}

impl fmt::Display for LayoutProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |sq: u8| shakmaty::Square::new(u32::from(sq & 63)).to_string();
        match *self {
            LayoutProblem::MirrorFlag(flag) => write!(f, "mirror flag {flag} (0 or 1)"),
            LayoutProblem::Bucket {
                square,
                bucket,
                max,
            } => write!(
                f,
                "king bucket {bucket} on {} (at most {max} buckets, numbered from 0)",
                name(square)
            ),
            LayoutProblem::Asymmetric { square } => write!(
                f,
                "a mirrored layout with different king buckets on {} and {} (files e-h must repeat a-d)",
                name(square),
                name(square ^ 7)
            ),
            LayoutProblem::Unused(b) => {
                write!(
                    f,
                    "king bucket {b} has no square (each bucket below the highest needs one)"
                )
            }
        }
    }
}

/// Bytes that end, or a number that runs on, where a format wants more (`core::bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// `wanted` bytes of `what` at byte `at`, where only `left` remain.
    Short {
        what: &'static str,
        at: usize,
        wanted: usize,
        left: usize,
    },
    /// A varint (`what`, starting at byte `at`) longer than 64 bits.
    Overlong { what: &'static str, at: usize },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Short {
                what,
                at,
                wanted,
                left,
            } => write!(
                f,
                "cut short ({what}: {wanted} bytes wanted at byte {at}, {left} left)"
            ),
            ReadError::Overlong { what, at } => {
                write!(f, "a number longer than 64 bits ({what} at byte {at})")
            }
        }
    }
}

/// What is wrong with a data set's bytes or a game that is to be logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataProblem {
    /// A file of records whose length is not a whole number of records.
    NotWholeRecords { bytes: usize, record_size: usize },
    /// Record `index` (from 0) holds no position.
    Record {
        index: usize,
        problem: RecordProblem,
    },
    /// Bytes that do not start with a game log's magic.
    NotALog { magic: &'static [u8] },
    /// The game of a log that starts at byte `at`: its number `game` where that much was read,
    /// `ply` where a move is wrong.
    Game {
        at: usize,
        game: Option<u64>,
        ply: Option<usize>,
        problem: GameProblem,
    },
    /// Game `game` cannot be written to a log; `ply` where a move is wrong.
    Unloggable {
        game: u64,
        ply: Option<usize>,
        problem: GameProblem,
    },
    /// A manifest that does not parse.
    Manifest { reason: String },
    /// A file holding fewer bytes than the manifest counts.
    ShorterThanCounted,
    /// A file holding `len` bytes, fewer than the `counted` the manifest vouches for: cut by
    /// something other than the generator.
    CutOutside { len: u64, counted: u64 },
    /// A game log giving back other counts than the manifest's.
    Counts {
        positions: u64,
        games: u64,
        counted_positions: u64,
        counted_games: u64,
    },
}

impl fmt::Display for DataProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataProblem::NotWholeRecords { bytes, record_size } => write!(
                f,
                "{bytes} bytes is not a whole number of {record_size}-byte records"
            ),
            DataProblem::Record { index, problem } => write!(f, "record {index}: {problem}"),
            DataProblem::NotALog { magic } => {
                write!(
                    f,
                    "not a game log (no {} at its start)",
                    String::from_utf8_lossy(magic)
                )
            }
            DataProblem::Game {
                at,
                game,
                ply,
                problem,
            } => {
                write!(f, "at byte {at}: ")?;
                match (game, ply) {
                    (Some(g), Some(p)) => write!(f, "game {g}, ply {p}: ")?,
                    (Some(g), None) => write!(f, "game {g}: ")?,
                    (None, Some(p)) => write!(f, "ply {p}: ")?,
                    (None, None) => {}
                }
                write!(f, "{problem}")
            }
            DataProblem::Unloggable { game, ply, problem } => {
                write!(f, "game {game}: cannot log it: ")?;
                if let Some(p) = ply {
                    write!(f, "ply {p}: ")?;
                }
                write!(f, "{problem}")
            }
            DataProblem::Manifest { reason } => write!(f, "not a data manifest: {reason}"),
            DataProblem::ShorterThanCounted => f.write_str("shorter than the manifest counts"),
            DataProblem::CutOutside { len, counted } => write!(
                f,
                "holds {len} bytes but the manifest counts {counted}: the data was cut outside the generator"
            ),
            DataProblem::Counts {
                positions,
                games,
                counted_positions,
                counted_games,
            } => write!(
                f,
                "{positions} positions of {games} games, the manifest counts {counted_positions} of {counted_games}"
            ),
        }
    }
}

/// Why a record's bytes hold no position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordProblem {
    /// A result other than 0, 1 or 2.
    Result(u8),
    /// A piece code no piece has.
    PieceCode(u8),
    /// The side to move's king is not on the square the record gives it.
    OurKing,
    /// The other side's king is not on the square the record gives it.
    TheirKing,
    /// Not one king a side.
    Kings,
}

impl fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordProblem::Result(r) => write!(f, "result {r} (0, 1 or 2)"),
            RecordProblem::PieceCode(c) => write!(f, "piece code {c}"),
            RecordProblem::OurKing => f.write_str("our king is not on its square"),
            RecordProblem::TheirKing => f.write_str("their king is not on its square"),
            RecordProblem::Kings => f.write_str("not one king a side"),
        }
    }
}

/// What is wrong with one game of a log, read or to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameProblem {
    /// The bytes end inside the game, or a number runs on.
    Read(ReadError),
    /// A length larger than this machine's memory.
    TooLong,
    /// A result code other than 0 to 3.
    ResultCode(u8),
    /// A start position that is not UTF-8 text.
    StartNotText,
    /// A start position that is not a legal FEN.
    Start(Box<Error>),
    /// More plies than a log holds.
    Plies { plies: usize, max: usize },
    /// A move index past the legal moves.
    Move { index: usize, legal: usize },
    /// A move that is not legal where it is played.
    Illegal,
    /// A position kept after the last move.
    KeptAfterEnd,
    /// Kept positions out of order, or past the game's end.
    Kept { ply: usize },
    /// A score out of 32-bit range.
    Score(i64),
    /// Bytes left after the game's fields.
    LeftOver(usize),
    /// A packed log's coded stream that ends before its games do, runs on after them, or codes
    /// a number no field can hold.
    Coded(&'static str),
}

impl fmt::Display for GameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameProblem::Read(e) => write!(f, "{e}"),
            GameProblem::TooLong => f.write_str("a game longer than memory"),
            GameProblem::ResultCode(c) => write!(f, "result code {c}"),
            GameProblem::StartNotText => f.write_str("the start is not text"),
            GameProblem::Start(e) => write!(f, "{e}"),
            GameProblem::Plies { plies, max } => write!(f, "{plies} plies (at most {max})"),
            GameProblem::Move { index, legal } => write!(f, "move {index} of {legal} legal moves"),
            GameProblem::Illegal => f.write_str("the move is not legal"),
            GameProblem::KeptAfterEnd => f.write_str("a kept position after the last move"),
            GameProblem::Kept { ply } => {
                write!(f, "kept position at ply {ply} out of order or range")
            }
            GameProblem::Score(s) => write!(f, "score {s}"),
            GameProblem::LeftOver(n) => write!(f, "{n} bytes left over"),
            GameProblem::Coded(what) => write!(f, "the coded stream {what}"),
        }
    }
}

/// What is wrong with a training checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainProblem {
    /// Bytes without a checkpoint's magic.
    NotACheckpoint,
    /// A checksum that does not match the bytes before it.
    Damaged,
    /// The bytes end inside a field.
    CutShort(ReadError),
    /// A hidden layer of a size no net has (1 to `max`).
    Hidden { hidden: usize, max: usize },
    /// An output bucket count other than 1, 2, 4 or 8.
    Buckets(usize),
    /// An activation code that names no activation.
    Activation(u8),
    /// An input layout no net can have.
    Layout(LayoutProblem),
    /// A factoriser flag other than 0 or 1.
    Factoriser(u8),
    /// The paired flag is not 0 or 1, or is 1 without a deep head.
    Paired(u8),
    /// Deep layers of sizes no net has, after a hidden layer of `hidden` (the second deep layer
    /// takes 1 to `max_l2`).
    Head {
        hidden: usize,
        l1: usize,
        l2: usize,
        max_l2: usize,
    },
}

impl fmt::Display for TrainProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainProblem::NotACheckpoint => f.write_str("not a Rookery training checkpoint"),
            TrainProblem::Damaged => f.write_str("the checkpoint is damaged (checksum)"),
            TrainProblem::CutShort(e) => write!(f, "the checkpoint is {e}"),
            TrainProblem::Hidden { hidden, max } => {
                write!(f, "a hidden layer of {hidden} (1 to {max})")
            }
            TrainProblem::Buckets(b) => write!(f, "{b} output buckets (1, 2, 4 or 8)"),
            TrainProblem::Activation(c) => write!(f, "unknown activation code {c}"),
            TrainProblem::Layout(problem) => write!(f, "unsupported input layout: {problem}"),
            TrainProblem::Head {
                hidden,
                l1,
                l2,
                max_l2,
            } => write!(
                f,
                "deep layers of {l1} and {l2} after a hidden layer of {hidden} (a multiple of 8; \
                 the first deep layer 8, 16, 24 or 32, the second 1 to {max_l2})"
            ),
            TrainProblem::Factoriser(v) => write!(f, "a factoriser flag of {v} (0 or 1)"),
            TrainProblem::Paired(v) => {
                write!(f, "a paired flag of {v} (0, or 1 with a deep head)")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_errors_are_said_in_plain_words() {
        let missing = std::fs::read("/nonexistent/rookery/file").unwrap_err();
        assert_eq!(
            Error::io("/nonexistent/rookery/file", missing).to_string(),
            "/nonexistent/rookery/file: no such file or directory"
        );
        let other = std::io::Error::from_raw_os_error(5);
        let text = Error::io("disk.bin", other).to_string();
        assert!(
            text.starts_with("disk.bin: ") && !text.contains("os error"),
            "{text}"
        );
    }
}
