//! Polyglot opening books: reading, choosing a move, and (in `build`) writing.
//!
//! A Polyglot book is a file of 16-byte big-endian entries sorted by key:
//! `key: u64` (the position's Zobrist hash, Polyglot keys, which shakmaty's `Zobrist64` computes),
//! `move: u16`, `weight: u16`, `learn: u32`. The move packs to-file (bits 0-2), to-rank (3-5),
//! from-file (6-8), from-rank (9-11) and promotion (12-14: 0 none, 1 knight, 2 bishop, 3 rook,
//! 4 queen). Castling is stored as the king capturing its own rook (e1h1 for White's O-O).
//! Finding a position is a binary search for the first entry with its key.

pub mod build;

use std::borrow::Cow;
use std::path::Path;

use shakmaty::{Chess, Move, Position};

use crate::core::Rng;
use crate::core::game::hash;
use crate::core::moves::encode_move;
use crate::error::Error;

const ENTRY_SIZE: usize = 16;
/// The largest book file read (268 million entries), so that a wrong path cannot make the
/// engine read without end.
pub const MAX_BOOK_FILE: u64 = 4 << 30;

/// The book built into the binary: built by `rookery book build` from the master games of
/// The Week in Chess 920 (see data/README.md).
static DEFAULT_BOOK: &[u8] = include_bytes!("../../data/rookery-book.bin");

/// One move of a book for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookEntry {
    pub mv: Move,
    pub weight: u16,
    pub learn: u32,
}

/// How to choose among the book moves of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookPolicy {
    /// Entries lighter than this are ignored.
    pub min_weight: u16,
    /// Choose in proportion to weight instead of uniformly.
    pub weighted: bool,
}

impl Default for BookPolicy {
    fn default() -> Self {
        BookPolicy {
            min_weight: 50,
            weighted: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Book {
    bytes: Cow<'static, [u8]>,
}

impl Book {
    /// The book built into the binary.
    pub fn builtin() -> Book {
        Book {
            bytes: Cow::Borrowed(DEFAULT_BOOK),
        }
    }

    /// A book from bytes, checked: whole entries, sorted by key.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Book, Error> {
        Book::check(&bytes)?;
        Ok(Book {
            bytes: Cow::Owned(bytes),
        })
    }

    /// Reads and checks a book file.
    pub fn open(path: impl AsRef<Path>) -> Result<Book, Error> {
        let path = path.as_ref();
        let bytes = crate::core::memory::read_file(path, MAX_BOOK_FILE)
            .map_err(|e| Error::io(path.display(), e))?;
        Book::check(&bytes).map_err(|e| match e {
            Error::Book(reason) => Error::Book(format!("{}: {reason}", path.display())),
            other => other,
        })?;
        Ok(Book {
            bytes: Cow::Owned(bytes),
        })
    }

    fn check(bytes: &[u8]) -> Result<(), Error> {
        if !bytes.len().is_multiple_of(ENTRY_SIZE) {
            return Err(Error::Book(format!(
                "{} bytes is not a whole number of 16-byte entries",
                bytes.len()
            )));
        }
        let mut last = 0;
        for (i, chunk) in bytes.chunks_exact(ENTRY_SIZE).enumerate() {
            let key = u64::from_be_bytes(chunk[..8].try_into().expect("8 bytes"));
            if key < last {
                return Err(Error::Book(format!(
                    "entry {i} is out of order: not a Polyglot book"
                )));
            }
            last = key;
        }
        Ok(())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.bytes.len() / ENTRY_SIZE
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn key_at(&self, i: usize) -> u64 {
        let o = i * ENTRY_SIZE;
        u64::from_be_bytes(self.bytes[o..o + 8].try_into().expect("8 bytes"))
    }

    /// The legal book moves for a position, heaviest first.
    pub fn entries(&self, pos: &Chess) -> Vec<BookEntry> {
        let key = hash(pos);
        // Binary search for the first entry with this key.
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let legal = pos.legal_moves();
        let mut found = Vec::new();
        let mut i = lo;
        while i < self.len() && self.key_at(i) == key {
            let e = &self.bytes[i * ENTRY_SIZE..(i + 1) * ENTRY_SIZE];
            let raw = u16::from_be_bytes([e[8], e[9]]);
            let weight = u16::from_be_bytes([e[10], e[11]]);
            let learn = u32::from_be_bytes([e[12], e[13], e[14], e[15]]);
            // Match against the legal moves: an entry that fits none (a hash collision, a
            // corrupt file) is skipped rather than trusted.
            if let Some(&mv) = legal.iter().find(|&&m| encode_move(m) == raw & 0x7fff) {
                found.push(BookEntry { mv, weight, learn });
            }
            i += 1;
        }
        found.sort_by_key(|e| std::cmp::Reverse(e.weight));
        found
    }

    /// A book move for the position under `policy`, or `None` when out of book.
    pub fn choose(&self, pos: &Chess, policy: BookPolicy, rng: &mut Rng) -> Option<Move> {
        let candidates: Vec<BookEntry> = self
            .entries(pos)
            .into_iter()
            .filter(|e| e.weight >= policy.min_weight && e.weight > 0)
            .collect();
        if candidates.is_empty() {
            return None;
        }
        if !policy.weighted {
            return Some(candidates[rng.index(candidates.len())].mv);
        }
        let total: u64 = candidates.iter().map(|e| u64::from(e.weight)).sum();
        let mut pick = rng.below(total);
        for e in &candidates {
            let w = u64::from(e.weight);
            if pick < w {
                return Some(e.mv);
            }
            pick -= w;
        }
        candidates.last().map(|e| e.mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_books_are_refused() {
        assert!(matches!(Book::from_bytes(vec![0; 17]), Err(Error::Book(_))));
        let mut unsorted = vec![0u8; 32];
        unsorted[0] = 1;
        assert!(matches!(Book::from_bytes(unsorted), Err(Error::Book(_))));
        assert!(Book::from_bytes(Vec::new()).unwrap().is_empty());
    }

    #[test]
    fn builtin_book_knows_the_start() {
        let book = Book::builtin();
        assert!(book.len() > 100);
        let entries = book.entries(&Chess::default());
        assert!(entries.len() >= 3, "{entries:?}");
        assert!(
            entries.iter().any(|e| encode_move(e.mv) == 28 | 12 << 6),
            "e4 in book"
        );
    }
}
