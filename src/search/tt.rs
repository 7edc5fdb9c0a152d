//! The transposition table shared by all search threads, without locks.
//!
//! Each entry is two 64-bit words: `data` and `key ^ data`. A thread that reads an entry while
//! another writes it may see one old and one new word; then `check ^ data` is not the key and the
//! entry reads as a miss. So racy reads and writes are harmless: at worst a lost entry, never a
//! wrong one (Hyatt's lockless hashing). The stored move is matched against the legal moves before
//! it is played, so a key collision cannot play an illegal move.
//!
//! `data` layout, low bits first:
//! | bits  | field      |
//! |-------|------------|
//! | 0-14  | move (from 0-5, to 6-11, promotion 12-14, Polyglot-style castling king-takes-rook) |
//! | 15    | PV: stored by a PV node, or by a node whose entry had the mark (it sticks to the position) |
//! | 16-31 | score (i16, mate scores relative to the node) |
//! | 32-47 | static evaluation (i16) |
//! | 48-55 | depth (u8) |
//! | 56-57 | bound (1 upper, 2 lower, 3 exact) |
//! | 58-63 | generation (6 bits: 1-63 name the last 63 searches, 0 is "older") |

use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{Move, MoveList};

use crate::core::Bound;
use crate::core::memory::{ZeroValid, ZeroedTable};
use crate::core::moves::encode_move;
use crate::error::Error;

/// The move's 15 bits of `data`, and the PV mark above them.
const MOVE_MASK: u16 = 0x7fff;
const PV_BIT: u64 = 0x8000;

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 16, "a slot is two words");

// SAFETY: a slot is two atomic words, and zero is a valid atomic word (an empty slot).
unsafe impl ZeroValid for Slot {}

/// What a probe finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// The move, in the 16-bit encoding; 0 for none. Resolve with [`TtEntry::best_move`].
    pub raw_move: u16,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
    /// The position was on a principal variation once (the search reduces its moves less).
    pub pv: bool,
}

impl TtEntry {
    /// The stored score (made relative to `ply`) if it decides the window `alpha..beta` on its
    /// own: an exact score, a lower bound at or above beta, an upper bound at or below alpha.
    pub fn cutoff(&self, ply: u32, alpha: i32, beta: i32) -> Option<i32> {
        let score = crate::core::score::from_table(self.score, ply);
        let usable = match self.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        usable.then_some(score)
    }

    /// The stored move if it is one of `legal`.
    pub fn best_move(&self, legal: &MoveList) -> Option<Move> {
        if self.raw_move == 0 {
            return None;
        }
        legal
            .iter()
            .copied()
            .find(|&m| encode_move(m) == self.raw_move)
    }
}

pub struct Tt {
    slots: ZeroedTable<Slot>,
    /// Searches since the table was made or emptied.
    generation: AtomicU64,
}

/// Searches between the starts of two ageing passes: less than half the 63 generations, so a
/// pass that starts within 31 searches of an entry's and ends within 31 more ages it before
/// its generation comes round again.
pub const AGEING_PERIOD: u64 = 31;

impl Tt {
    /// A table of about `mb` megabytes (at least one slot), or an error when the memory cannot
    /// be had (see `core::memory`).
    pub fn try_new(mb: usize) -> Result<Tt, Error> {
        let n = (mb.saturating_mul(1024 * 1024) / std::mem::size_of::<Slot>()).max(1);
        Ok(Tt {
            slots: ZeroedTable::try_new(&format!("a hash table of {mb} MB"), n)?,
            generation: AtomicU64::new(0),
        })
    }

    /// A table of about `mb` megabytes; one slot when that much cannot be allocated.
    pub fn new(mb: usize) -> Tt {
        Tt::try_new(mb).unwrap_or_else(|_| Tt {
            slots: ZeroedTable::try_new("a hash table of one slot", 1)
                .expect("one slot can be allocated"),
            generation: AtomicU64::new(0),
        })
    }

    pub fn size_mb(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>() / (1024 * 1024)
    }

    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.slots.len() as u128) >> 64) as usize
    }

    /// The current search's generation, 1 to 63.
    fn generation(&self) -> u64 {
        1 + self.generation.load(Ordering::Relaxed) % 63
    }

    /// A new search: older entries become the first to be replaced. Six bits name 63 searches,
    /// so entries must be marked older (generation 0) before their name comes round again: an
    /// ageing pass (`age`) starts every `AGEING_PERIOD` searches, and this returns true when
    /// the caller should start one (on a thread of its own: the pass walks the whole table and
    /// must not hold up the search). While the last pass still runs (`pass_running`) when the
    /// next is due, the generation stays as it is instead of advancing, so no entry can look
    /// current however slow the pass; entries of the last searches then count as this one's.
    /// Call it while no thread searches.
    pub fn new_search(&self, pass_running: bool) -> bool {
        let next = self.generation.load(Ordering::Relaxed) + 1;
        let due = next.is_multiple_of(AGEING_PERIOD);
        if due && pass_running {
            return false;
        }
        self.generation.store(next, Ordering::Relaxed);
        due
    }

    /// Marks every entry that is not of the current search older (generation 0): an ageing
    /// pass. Safe during a search: an entry written meanwhile is left alone (compare-exchange),
    /// or at worst lost to a torn write, as entries of racing threads may be.
    pub fn age(&self) {
        for s in self.slots.iter() {
            let data = s.data.load(Ordering::Relaxed);
            let generation = (data >> 58) & 63;
            // The current generation is read anew for each entry: searches may start meanwhile.
            if data == 0 || generation == 0 || generation == self.generation() {
                continue;
            }
            let key = s.check.load(Ordering::Relaxed) ^ data;
            let aged = data & !(63 << 58);
            if s.data
                .compare_exchange(data, aged, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                s.check.store(key ^ aged, Ordering::Relaxed);
            }
        }
    }

    /// Empties the table.
    pub fn clear(&self) {
        for s in self.slots.iter() {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Asks the CPU to bring `key`'s slot into its cache, so that a probe of it soon after
    /// (the child node's, once a move is made) finds it there instead of waiting on memory.
    /// It changes nothing the search sees.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::core::memory::prefetch(self.slots.as_ptr().wrapping_add(self.index(key)));
    }

    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let slot = &self.slots[self.index(key)];
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        if check ^ data != key || data == 0 {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(TtEntry {
            raw_move: data as u16 & MOVE_MASK,
            pv: data & PV_BIT != 0,
            score: i32::from((data >> 16) as u16 as i16),
            eval: i32::from((data >> 32) as u16 as i16),
            depth: i32::from((data >> 48) as u8),
            bound,
        })
    }

    /// Stores a search result. A slot holding another position is overwritten unless it holds a
    /// much deeper result of this search; the same position keeps its move if the new result
    /// has none. `pv` marks a position that was on a principal variation.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        pv: bool,
    ) {
        let slot = &self.slots[self.index(key)];
        let old_data = slot.data.load(Ordering::Relaxed);
        let old_key = slot.check.load(Ordering::Relaxed) ^ old_data;
        let generation = self.generation();
        let mut raw_move = mv.map_or(0, encode_move);
        if old_data != 0 {
            let old_depth = ((old_data >> 48) & 0xff) as i32;
            let old_generation = (old_data >> 58) & 63;
            if old_key == key {
                if raw_move == 0 {
                    raw_move = old_data as u16 & MOVE_MASK;
                }
                if bound != Bound::Exact && depth + 3 < old_depth {
                    return;
                }
            } else if old_generation == generation && depth + 4 < old_depth {
                return;
            }
        }
        let bound_bits: u64 = match bound {
            Bound::Upper => 1,
            Bound::Lower => 2,
            Bound::Exact => 3,
        };
        let data = u64::from(raw_move)
            | if pv { PV_BIT } else { 0 }
            | u64::from(score.clamp(-32_000, 32_000) as i16 as u16) << 16
            | u64::from(eval.clamp(-32_000, 32_000) as i16 as u16) << 32
            | (depth.clamp(0, 255) as u64) << 48
            | bound_bits << 56
            | generation << 58;
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Per mille of a sample of slots filled in this search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && (d >> 58) & 63 == generation
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn store_and_probe() {
        let tt = Tt::new(1);
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let m = moves[5];
        tt.store(0xdead_beef, Some(m), -123, 45, 7, Bound::Lower, false);
        let e = tt.probe(0xdead_beef).unwrap();
        assert_eq!(
            (e.score, e.eval, e.depth, e.bound),
            (-123, 45, 7, Bound::Lower)
        );
        assert_eq!(e.best_move(&moves), Some(m));
        assert!(tt.probe(0xdead_beee).is_none());
        // Same position, no move: the old move stays.
        tt.store(0xdead_beef, None, 10, 45, 9, Bound::Exact, false);
        assert_eq!(tt.probe(0xdead_beef).unwrap().best_move(&moves), Some(m));
        assert!(tt.hashfull() <= 1000);
    }

    #[test]
    fn the_pv_mark_is_kept_beside_the_move() {
        let tt = Tt::new(1);
        let pos = Chess::default();
        let moves = pos.legal_moves();
        // Every move, with and without the mark: the move reads back unchanged either way.
        for &m in &moves {
            for pv in [false, true] {
                tt.store(42, Some(m), 7, 3, 4, Bound::Exact, pv);
                let e = tt.probe(42).unwrap();
                assert_eq!((e.best_move(&moves), e.pv), (Some(m), pv));
                // A result without a move keeps the old move, not the old mark.
                tt.store(42, None, 7, 3, 4, Bound::Upper, !pv);
                let e = tt.probe(42).unwrap();
                assert_eq!((e.best_move(&moves), e.pv), (Some(m), !pv));
            }
        }
    }

    #[test]
    fn deeper_entries_survive_shallow_ones_of_the_same_search() {
        let tt = Tt::new(0);
        // One slot: every key collides.
        tt.store(1, None, 5, 0, 20, Bound::Exact, false);
        tt.store(2, None, 6, 0, 2, Bound::Exact, false);
        assert!(tt.probe(1).is_some());
        tt.new_search(false);
        tt.store(2, None, 6, 0, 2, Bound::Exact, false);
        assert!(tt.probe(2).is_some(), "old entries give way");
    }

    /// Keys of the first `n` slots, one per slot.
    fn key_of_slot(tt: &Tt, i: usize) -> u64 {
        let n = tt.slots.len() as u128;
        let key = ((i as u128) << 64).div_ceil(n) as u64 | 1;
        assert_eq!(tt.index(key), i);
        key
    }

    /// A 1 MB table with every slot stored in this search, at depth 5.
    fn full_table() -> Tt {
        let tt = Tt::new(1);
        for i in 0..tt.slots.len() {
            tt.store(key_of_slot(&tt, i), None, 1, 1, 5, Bound::Exact, false);
        }
        tt
    }

    #[test]
    fn old_entries_never_look_current_when_the_generation_wraps() {
        // Every slot filled in this search: hashfull reads 1000.
        let tt = full_table();
        assert_eq!(tt.hashfull(), 1000);
        // However many searches later, none of them is current again; each search stores one
        // entry in the sampled slots, and only that one is current.
        let mut passes = 0;
        for searches in 1..=300 {
            if tt.new_search(false) {
                tt.age();
                passes += 1;
            }
            tt.store(
                key_of_slot(&tt, searches % 1000),
                None,
                1,
                1,
                5,
                Bound::Exact,
                false,
            );
            assert_eq!(tt.hashfull(), 1, "after {searches} searches");
        }
        assert_eq!(passes, 300 / AGEING_PERIOD);
        // Entries survive the ageing (only their generation changed).
        assert_eq!(tt.probe(key_of_slot(&tt, 999)).map(|e| e.depth), Some(5));
    }

    #[test]
    fn a_slow_ageing_pass_holds_the_generation_instead_of_wrapping() {
        let tt = full_table();
        // The first pass is asked for, then never ends: the generation stops short of the next
        // one, whatever the number of searches, so the first search's entries stay old.
        let mut asked = 0;
        for searches in 1..=200 {
            if tt.new_search(asked > 0) {
                asked += 1;
            }
            assert_eq!(tt.hashfull(), 0, "after {searches} searches");
        }
        assert_eq!(asked, 1);
        assert_eq!(
            tt.generation.load(Ordering::Relaxed),
            2 * AGEING_PERIOD - 1,
            "held just before the second pass"
        );
        // When it ends, searches go on.
        assert!(tt.new_search(false));
        tt.clear();
        assert_eq!(tt.hashfull(), 0);
        assert_eq!(tt.generation(), 1, "an emptied table starts over");
    }
}
