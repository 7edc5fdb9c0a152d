//! Errors a user can cause: bad FEN, illegal move, unknown engine, unreadable or corrupt files,
//! tables larger than the memory that can be had.
//! Each one reads as one clear sentence; the CLI prints it and exits with code 2, the UCI loop
//! answers it with `info string`.

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
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    pub fn io(path: impl fmt::Display, err: std::io::Error) -> Error {
        Error::Io {
            path: path.to_string(),
            reason: err.to_string(),
        }
    }
}
