//! Move ordering. The hash move comes before any generation; shakmaty then generates all legal
//! moves at once, so the later stages of a classical picker (good captures by SEE and MVV-LVA,
//! killers, counter move, quiets by history, bad captures) become score bands, and `next` hands
//! out the best remaining move (selection: a cut-off usually comes early), until only quiet
//! moves and bad captures are left, which are sorted once. Quiet moves are scored only when the
//! picker reaches them.

use arrayvec::ArrayVec;
use shakmaty::{Color, Move, MoveList, Position, Role, Square};

use super::board::SearchBoard;
use super::see::{see_ge, see_value};
use crate::core::moves::{captured, mvv_lva};

/// History scores live in -HISTORY_MAX..=HISTORY_MAX.
pub const HISTORY_MAX: i32 = 16_384;

/// A piece and the square it moved to, as one index (0..768): what continuation histories are
/// keyed by.
pub fn piece_to(side: Color, m: Move) -> usize {
    piece_to_index(side, m.role(), m.to())
}

fn piece_to_index(side: Color, role: Role, to: Square) -> usize {
    (side as usize * 6 + role as usize - 1) * 64 + to as usize
}

/// A move's piece, origin and target in one look at it (a drop's origin is its target).
#[inline]
fn role_from_to(m: Move) -> (Role, Square, Square) {
    match m {
        Move::Normal { role, from, to, .. } => (role, from, to),
        Move::EnPassant { from, to } => (Role::Pawn, from, to),
        Move::Castle { king, rook } => (Role::King, king, rook),
        Move::Put { role, to } => (role, to, to),
    }
}

/// The continuation-history row of a missing context (after a null move, near the root):
/// all zeros, never updated, so that a score needs no test for it.
const NO_CONTEXT: usize = 768;

/// The piece-to indices of the moves one and two plies before a node (`None` after a null
/// move or at the root): the context of its continuation histories.
pub type Context = [Option<usize>; 2];

/// Moves `h` toward `bonus` (positive or negative), saturating at `max`. The tables hold
/// 16-bit entries (half the cache lines of 32-bit ones; the continuation history alone is
/// 1.2 MB so): with `|bonus| <= max <= i16::MAX` an entry stays within `-max..=max`.
#[inline]
fn gravity(h: &mut i16, bonus: i32, max: i32) {
    debug_assert!(bonus.abs() <= max && max <= i32::from(i16::MAX));
    let v = i32::from(*h);
    *h = (v + bonus - v * bonus.abs() / max) as i16;
}

/// Move-ordering statistics of one search thread.
pub struct Histories {
    /// Butterfly history: `[side][from][to]`.
    pub butterfly: Box<[[[i16; 64]; 64]; 2]>,
    /// Continuation history: [piece-to of an earlier move][piece-to of this move], shared by
    /// the move one ply before (counter-move history) and two plies before (follow-up history).
    pub continuation: Box<[[i16; 768]]>,
    /// Capture history: [piece-to of the capture][captured role].
    pub capture: Box<[[i16; 6]]>,
    /// Killer moves per ply.
    pub killers: Vec<[Option<Move>; 2]>,
    /// The quiet move that refuted a move, by the refuted move's `[side][piece][to]`.
    pub counter: Box<[[[Option<Move>; 64]; 7]; 2]>,
    /// Correction history: how far the static evaluation missed what the search found, by side
    /// to move and the pawn structure.
    pub pawn_correction: Box<[[i16; CORRECTION_SIZE]]>,
    /// The same by side to move and one side's pieces other than pawns: `[mover][colour][key]`.
    pub piece_correction: Box<[[[i16; CORRECTION_SIZE]; 2]]>,
}

/// Entries of each correction table (a power of two).
pub const CORRECTION_SIZE: usize = 16_384;
/// Correction entries are in 1/4 centipawn; each is bounded by this.
const CORRECTION_MAX: i32 = 512;

/// The keys a position's corrections are found by: its pawns, and each side's other pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectionKeys {
    pub pawns: usize,
    pub pieces: [usize; 2],
}

impl CorrectionKeys {
    /// The table indices of a position's part keys (pawns, White's pieces, Black's pieces).
    pub fn of(part_keys: [u64; 3]) -> CorrectionKeys {
        let index = |k: u64| (k >> 40) as usize & (CORRECTION_SIZE - 1);
        CorrectionKeys {
            pawns: index(part_keys[0]),
            pieces: [index(part_keys[1]), index(part_keys[2])],
        }
    }
}

impl Histories {
    pub fn new(max_ply: usize) -> Histories {
        Histories {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            continuation: vec![[0; 768]; NO_CONTEXT + 1].into_boxed_slice(),
            capture: vec![[0; 6]; 768].into_boxed_slice(),
            killers: vec![[None; 2]; max_ply + 2],
            counter: Box::new([[[None; 64]; 7]; 2]),
            pawn_correction: vec![[0; CORRECTION_SIZE]; 2].into_boxed_slice(),
            piece_correction: vec![[[0; CORRECTION_SIZE]; 2]; 2].into_boxed_slice(),
        }
    }

    /// Centipawns to add to the static evaluation of a position with these keys.
    pub fn correction(&self, side: Color, keys: CorrectionKeys) -> i32 {
        let s = side as usize;
        let sum = 2 * i32::from(self.pawn_correction[s][keys.pawns])
            + i32::from(self.piece_correction[s][0][keys.pieces[0]])
            + i32::from(self.piece_correction[s][1][keys.pieces[1]]);
        sum / 16
    }

    /// Asks the CPU for the entries `correction` will read for a position with these keys.
    #[inline]
    pub fn prefetch_correction(&self, side: Color, keys: CorrectionKeys) {
        let s = side as usize;
        crate::core::memory::prefetch(&self.pawn_correction[s][keys.pawns]);
        crate::core::memory::prefetch(&self.piece_correction[s][0][keys.pieces[0]]);
        crate::core::memory::prefetch(&self.piece_correction[s][1][keys.pieces[1]]);
    }

    /// The search found `diff` centipawns more than the corrected static evaluation, `depth`
    /// deep: move the corrections toward it, deeper results more.
    pub fn update_correction(&mut self, side: Color, keys: CorrectionKeys, diff: i32, depth: i32) {
        let bonus = (diff * 4 * depth / 8).clamp(-CORRECTION_MAX / 4, CORRECTION_MAX / 4);
        let s = side as usize;
        gravity(
            &mut self.pawn_correction[s][keys.pawns],
            bonus,
            CORRECTION_MAX,
        );
        for c in 0..2 {
            gravity(
                &mut self.piece_correction[s][c][keys.pieces[c]],
                bonus,
                CORRECTION_MAX,
            );
        }
    }

    pub fn clear(&mut self) {
        *self.butterfly = [[[0; 64]; 64]; 2];
        self.continuation.iter_mut().for_each(|r| *r = [0; 768]);
        self.capture.iter_mut().for_each(|r| *r = [0; 6]);
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        *self.counter = [[[None; 64]; 7]; 2];
        self.pawn_correction
            .iter_mut()
            .flatten()
            .for_each(|h| *h = 0);
        self.piece_correction
            .iter_mut()
            .flatten()
            .flatten()
            .for_each(|h| *h = 0);
    }

    /// The butterfly history of a quiet move alone.
    pub fn butterfly_score(&self, side: Color, m: Move) -> i32 {
        let (from, to) = from_to(m);
        i32::from(self.butterfly[side as usize][from as usize][to as usize])
    }

    /// What the histories say of a quiet move in its context: butterfly plus both
    /// continuation histories.
    pub fn quiet_score(&self, side: Color, m: Move, context: Context) -> i32 {
        let (role, from, to) = role_from_to(m);
        let pt = piece_to_index(side, role, to);
        i32::from(self.butterfly[side as usize][from as usize][to as usize])
            + i32::from(self.continuation[context[0].unwrap_or(NO_CONTEXT)][pt])
            + i32::from(self.continuation[context[1].unwrap_or(NO_CONTEXT)][pt])
    }

    /// Rewards (positive `bonus`) or punishes a quiet move in every history it has.
    pub fn update_quiet(&mut self, side: Color, m: Move, context: Context, bonus: i32) {
        let (from, to) = from_to(m);
        gravity(
            &mut self.butterfly[side as usize][from as usize][to as usize],
            bonus,
            HISTORY_MAX,
        );
        let pt = piece_to(side, m);
        for c in context.into_iter().flatten() {
            gravity(&mut self.continuation[c][pt], bonus, HISTORY_MAX);
        }
    }

    /// The capture history of a capture (0 for quiet moves and promotions without capture).
    pub fn capture_score(&self, side: Color, m: Move) -> i32 {
        match captured(m) {
            Some(r) => i32::from(self.capture[piece_to(side, m)][r as usize - 1]),
            None => 0,
        }
    }

    pub fn update_capture(&mut self, side: Color, m: Move, bonus: i32) {
        if let Some(r) = captured(m) {
            gravity(
                &mut self.capture[piece_to(side, m)][r as usize - 1],
                bonus,
                HISTORY_MAX,
            );
        }
    }

    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
    }

    pub fn counter_move(&self, side: Color, previous: Option<Move>) -> Option<Move> {
        previous.map(|p| self.counter[side as usize][p.role() as usize][p.to() as usize])?
    }

    pub fn set_counter(&mut self, side: Color, previous: Option<Move>, m: Move) {
        if let Some(p) = previous {
            self.counter[side as usize][p.role() as usize][p.to() as usize] = Some(m);
        }
    }
}

fn from_to(m: Move) -> (Square, Square) {
    let (_, from, to) = role_from_to(m);
    (from, to)
}

/// True for captures and promotions ("noisy" moves); everything else is quiet.
pub fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

const TT_BAND: i32 = 4_000_000;
const GOOD_NOISY_BAND: i32 = 3_000_000;
const KILLER_BAND: i32 = 2_000_000;
const COUNTER_BAND: i32 = 1_900_000;
/// Quiet moves not yet scored: above every history score, below the counter move.
const QUIET_PENDING: i32 = 1_000_000;
const BAD_NOISY_BAND: i32 = -2_000_000;
/// A move the picker will not hand out (quiets after `skip_quiets`).
const SKIPPED: i32 = i32::MIN;
/// A noisy move's key (MVV-LVA plus capture history) lies within this of its band's base.
const NOISY_SPREAD: i32 = 500_000;

/// The order of play of a move, for the search's decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    HashMove,
    GoodNoisy,
    Killer,
    Counter,
    Quiet,
    BadNoisy,
}

impl Stage {
    fn of(score: i32) -> Stage {
        match score {
            s if s >= TT_BAND => Stage::HashMove,
            s if s >= GOOD_NOISY_BAND - NOISY_SPREAD => Stage::GoodNoisy,
            s if s >= KILLER_BAND => Stage::Killer,
            s if s >= COUNTER_BAND => Stage::Counter,
            s if s > BAD_NOISY_BAND / 2 => Stage::Quiet,
            _ => Stage::BadNoisy,
        }
    }
}

/// Captures by SEE value of the victim, then the cheaper attacker.
#[inline]
fn capture_key(m: Move) -> i32 {
    mvv_lva(m, see_value, |r| see_value(r) / 100)
}

/// The index of the highest score from `from` on (the first of equals).
#[inline]
fn best_index(scores: &[i32], from: usize) -> usize {
    // Two passes: the maximum (a branch-free loop the compiler turns into vector code), then
    // its first place, which the scan stops at.
    let rest = &scores[from..];
    let max = rest.iter().copied().fold(i32::MIN, i32::max);
    from + rest.iter().position(|&s| s == max).unwrap_or(0)
}

/// The main search's move picker, in stages: the hash move before any move is generated (a
/// cut-off there saves the generation), then the moves generated and the captures scored, good
/// captures by SEE (computed lazily, once, when a capture comes up), killers, the counter move,
/// the quiet moves scored by history only when they are reached and not skipped, and the bad
/// captures last. Within a stage, the best remaining move first (selection: a cut-off usually
/// comes early, so sorting the rest would be wasted).
pub struct Picker<'b> {
    board: &'b SearchBoard,
    /// The hash move, not yet handed out.
    tt_pending: Option<Move>,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    counter: Option<Move>,
    context: Context,
    generated: bool,
    /// The moves from `next` on are in order (see `sort_rest`).
    sorted: bool,
    moves: MoveList,
    /// Each move's score; once `sorted`, sort keys instead (see `sort_rest`).
    scores: ArrayVec<i32, 256>,
    next: usize,
    /// The score the last move handed out was sorted by: for a quiet move of the quiet stage,
    /// its history when the quiet moves were scored.
    pub last_score: i32,
}

/// Copies the moves of `from` into the empty list `to`. A `MoveList` has room for 270 moves
/// and a move of one copies all of that room; this copies only the moves there are, so a list
/// shakmaty returns is put where it stays for the price of its length.
#[inline]
pub fn fill(to: &mut MoveList, from: &MoveList) {
    debug_assert!(to.is_empty());
    // Two lists of the same capacity: the moves always fit.
    let fitted = to.try_extend_from_slice(from);
    debug_assert!(fitted.is_ok());
}

/// Bits of a sort key below the score: the move's index, so that keys are unique and equal
/// scores keep their generation order.
const KEY_INDEX_BITS: u32 = 8;

impl<'b> Picker<'b> {
    /// `tt_move` must be legal in `b` (as `decode_move` returns it).
    pub fn new(
        b: &'b SearchBoard,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
        context: Context,
    ) -> Picker<'b> {
        Picker {
            board: b,
            tt_pending: tt_move,
            tt_move,
            killers,
            counter,
            context,
            generated: false,
            sorted: false,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            next: 0,
            last_score: 0,
        }
    }

    /// Generates the moves (less the hash move, handed out already) and scores all but the
    /// quiet ones.
    fn generate(&mut self, hist: &Histories) {
        self.generated = true;
        fill(&mut self.moves, &self.board.pos.legal_moves());
        if let Some(tt) = self.tt_move
            && let Some(i) = self.moves.iter().position(|&m| m == tt)
        {
            self.moves.swap_remove(i);
        }
        let side = self.board.turn();
        // Killers and the counter move are quiet, and a quiet move is known among the legal
        // ones by its target and origin: compare those first, the whole move only on a match.
        let quiet_key = |m: Option<Move>| m.map_or(u16::MAX, |m| m.to() as u16);
        let keys = [
            quiet_key(self.killers[0]),
            quiet_key(self.killers[1]),
            quiet_key(self.counter),
        ];
        for &m in self.moves.iter() {
            let to = m.to() as u16;
            let score = if is_noisy(m) {
                // Under-promotions are rarely good: with the bad captures.
                let under = m.promotion().is_some_and(|p| p != Role::Queen);
                // Good until its exchange is looked at (lazily, in `next`).
                let key = capture_key(m) + hist.capture_score(side, m) / 8;
                if under {
                    BAD_NOISY_BAND + key
                } else {
                    GOOD_NOISY_BAND + key
                }
            } else if to == keys[0] && Some(m) == self.killers[0] {
                KILLER_BAND + 1
            } else if to == keys[1] && Some(m) == self.killers[1] {
                KILLER_BAND
            } else if to == keys[2] && Some(m) == self.counter {
                COUNTER_BAND
            } else {
                QUIET_PENDING
            };
            self.scores.push(score);
        }
    }

    /// Sorts the moves not yet handed out by score, best first, keeping equals in their order.
    /// The moves stay where they are; each score becomes a key (the score above, the move's
    /// index below, so that keys are unique and equal scores keep their order) and the keys
    /// are sorted.
    fn sort_rest(&mut self) {
        // Moves skipped already are dropped (their keys, that is).
        let mut kept = self.next;
        for i in self.next..self.moves.len() {
            let s = self.scores[i];
            if s != SKIPPED {
                debug_assert!(s.unsigned_abs() < 1 << (31 - KEY_INDEX_BITS));
                self.scores[kept] = (s << KEY_INDEX_BITS) | (255 - i) as i32;
                kept += 1;
            }
        }
        self.scores.truncate(kept);
        self.scores[self.next..].sort_unstable_by(|a, b| b.cmp(a));
        self.sorted = true;
    }

    /// The next move once the rest is sorted.
    fn next_sorted(&mut self, skip_quiets: bool) -> Option<(Move, Stage)> {
        while self.next < self.scores.len() {
            let key = self.scores[self.next];
            let m = self.moves[255 - (key & 255) as usize];
            self.next += 1;
            if skip_quiets && !is_noisy(m) {
                continue;
            }
            self.last_score = key >> KEY_INDEX_BITS;
            return Some((m, Stage::of(self.last_score)));
        }
        None
    }

    /// The next move and its stage; with `skip_quiets`, quiet moves (killers and the counter
    /// move among them) are passed over.
    pub fn next(&mut self, hist: &Histories, skip_quiets: bool) -> Option<(Move, Stage)> {
        if let Some(m) = self.tt_pending.take() {
            return Some((m, Stage::HashMove));
        }
        if !self.generated {
            self.generate(hist);
        }
        if self.sorted {
            return self.next_sorted(skip_quiets);
        }
        let n = self.moves.len();
        let side = self.board.turn();
        let best = loop {
            if self.next >= n {
                return None;
            }
            let best = best_index(&self.scores[..n], self.next);
            let s = self.scores[best];
            let m = self.moves[best];
            if s == SKIPPED {
                return None;
            }
            if s == QUIET_PENDING {
                // The quiet moves are reached: score them all now, or drop them all.
                for i in self.next..n {
                    if self.scores[i] == QUIET_PENDING {
                        self.scores[i] = if skip_quiets {
                            SKIPPED
                        } else {
                            hist.quiet_score(side, self.moves[i], self.context)
                        };
                    }
                }
                if !skip_quiets {
                    // Only quiet moves and bad captures are left, all scored: sort them once
                    // (best first, equals in generation order) and hand them out in order
                    // from here on, instead of scanning for the best at every call.
                    self.sort_rest();
                    return self.next_sorted(skip_quiets);
                }
                continue;
            }
            if skip_quiets && !is_noisy(m) {
                self.scores[best] = SKIPPED;
                continue;
            }
            // A capture still in the good band has its exchange evaluated now; one that loses
            // material drops to the bad band and the choice is made again.
            if (GOOD_NOISY_BAND - NOISY_SPREAD..TT_BAND).contains(&s) && !see_ge(self.board, m, 0) {
                self.scores[best] = s - GOOD_NOISY_BAND + BAD_NOISY_BAND;
                continue;
            }
            break best;
        };
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let (m, s) = (self.moves[self.next], self.scores[self.next]);
        self.next += 1;
        Some((m, Stage::of(s)))
    }
}

/// One score a move for the quiescence search's picker, kept by the caller beside its move
/// list: neither is then copied when the picker is made (a list moves with all its room).
pub type NoisyScores = ArrayVec<i32, 256>;

/// Captures and promotions for quiescence: the hash move, then the most valuable
/// victim first.
pub struct NoisyPicker<'m> {
    moves: &'m mut MoveList,
    scores: &'m mut NoisyScores,
    next: usize,
}

impl<'m> NoisyPicker<'m> {
    /// Orders `moves` in place as it hands them out, scoring them into `scores` (emptied
    /// first).
    pub fn new(
        moves: &'m mut MoveList,
        scores: &'m mut NoisyScores,
        tt_move: Option<Move>,
    ) -> NoisyPicker<'m> {
        scores.clear();
        for &m in moves.iter() {
            scores.push(if Some(m) == tt_move {
                TT_BAND
            } else {
                capture_key(m)
            });
        }
        NoisyPicker {
            moves,
            scores,
            next: 0,
        }
    }
}

impl Iterator for NoisyPicker<'_> {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let best = best_index(&self.scores[..n], self.next);
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::{parse_fen, uci};
    use shakmaty::Position;

    #[test]
    fn fill_copies_every_move_in_order_and_only_them() {
        // The most legal moves a position has (218), and a list of one.
        for fen in [
            "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
            "7k/8/8/8/8/8/8/K5R1 b - - 0 1",
        ] {
            let from = parse_fen(fen).unwrap().legal_moves();
            let mut to = MoveList::new();
            fill(&mut to, &from);
            assert_eq!(to.as_slice(), from.as_slice(), "{fen}");
            assert!(matches!(from.len(), 1 | 218), "{fen}");
        }
    }

    #[test]
    fn picker_yields_every_legal_move_once_in_stage_order() {
        let b = SearchBoard::new(
            parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                .unwrap(),
        );
        let moves = b.pos.legal_moves();
        let tt = moves.iter().copied().find(|m| uci(*m) == "a2a3");
        let killer = moves.iter().copied().find(|m| uci(*m) == "g2g3");
        let mut picker = Picker::new(&b, tt, [killer, None], None, [None, None]);
        let hist = Histories::new(8);
        let mut seen = Vec::new();
        let mut stages = Vec::new();
        while let Some((m, s)) = picker.next(&hist, false) {
            seen.push(m);
            stages.push(s);
        }
        assert_eq!(seen.len(), moves.len());
        for m in &moves {
            assert_eq!(seen.iter().filter(|x| *x == m).count(), 1);
        }
        assert_eq!(seen[0], tt.unwrap());
        assert_eq!(stages[0], Stage::HashMove);
        // Stages never go back.
        let rank = |s: &Stage| *s as u8;
        assert!(
            stages.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])),
            "{stages:?}"
        );
        assert!(stages.contains(&Stage::GoodNoisy) && stages.contains(&Stage::Killer));
    }

    #[test]
    fn skipping_quiets_drops_them_and_keeps_the_captures() {
        // White's queen can take a free knight (good) or a pawn the king defends (bad).
        let b = SearchBoard::new(parse_fen("4k3/3p4/8/8/1n6/8/3Q4/4K3 w - - 0 1").unwrap());
        let hist = Histories::new(8);
        let mut picker = Picker::new(&b, None, [None, None], None, [None, None]);
        let mut all = Vec::new();
        while let Some((m, s)) = picker.next(&hist, false) {
            all.push((uci(m), s));
        }
        assert_eq!(all[0], ("d2b4".to_string(), Stage::GoodNoisy));
        assert_eq!(all.last(), Some(&("d2d7".to_string(), Stage::BadNoisy)));
        assert!(all.len() > 10);
        let mut picker = Picker::new(&b, None, [None, None], None, [None, None]);
        let mut rest = Vec::new();
        while let Some((m, s)) = picker.next(&hist, true) {
            rest.push((uci(m), s));
        }
        assert_eq!(
            rest,
            vec![
                ("d2b4".to_string(), Stage::GoodNoisy),
                ("d2d7".to_string(), Stage::BadNoisy)
            ]
        );
    }

    #[test]
    fn quiet_moves_come_best_history_first_and_skipping_later_keeps_bad_captures() {
        // The queen's capture on d7 is bad (the king defends); the quiets get varied histories.
        let b = SearchBoard::new(parse_fen("4k3/3p4/8/8/8/8/3Q4/4K3 w - - 0 1").unwrap());
        let mut hist = Histories::new(8);
        for (i, m) in b.pos.legal_moves().iter().enumerate() {
            if !is_noisy(*m) {
                let bonus = ((i as i32 * 7919) % 13 - 6) * 500;
                hist.update_quiet(Color::White, *m, [None, None], bonus);
            }
        }
        let mut picker = Picker::new(&b, None, [None, None], None, [None, None]);
        let mut quiet_scores = Vec::new();
        let mut order = Vec::new();
        while let Some((m, s)) = picker.next(&hist, false) {
            if s == Stage::Quiet {
                quiet_scores.push(hist.quiet_score(Color::White, m, [None, None]));
            }
            order.push(m);
        }
        assert!(quiet_scores.len() > 10);
        assert!(
            quiet_scores.windows(2).all(|w| w[0] >= w[1]),
            "{quiet_scores:?}"
        );
        assert!(quiet_scores.first() > quiet_scores.last());
        assert_eq!(order.len(), b.pos.legal_moves().len());
        // Three quiets, then skip the rest: the bad capture still comes, and nothing else.
        let mut picker = Picker::new(&b, None, [None, None], None, [None, None]);
        for _ in 0..3 {
            assert_eq!(
                picker.next(&hist, false).map(|(_, s)| s),
                Some(Stage::Quiet)
            );
        }
        let (m, s) = picker.next(&hist, true).unwrap();
        assert_eq!((uci(m), s), ("d2d7".to_string(), Stage::BadNoisy));
        assert_eq!(picker.next(&hist, true), None);
    }

    #[test]
    fn history_saturates() {
        let mut h = Histories::new(4);
        let m = first_move();
        let context = [Some(piece_to(Color::Black, m)), None];
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, context, 1200);
        }
        assert!(h.butterfly_score(Color::White, m) <= HISTORY_MAX);
        assert!(h.butterfly_score(Color::White, m) > HISTORY_MAX / 2);
        // Butterfly and the one continuation history in the context.
        let both = h.quiet_score(Color::White, m, context);
        assert!(both <= 2 * HISTORY_MAX && both > HISTORY_MAX, "{both}");
        assert_eq!(
            h.quiet_score(Color::White, m, [None, None]),
            h.butterfly_score(Color::White, m)
        );
        // Updates without a context leave the empty context's row alone.
        h.update_quiet(Color::White, m, [None, None], 1200);
        assert!(h.continuation[NO_CONTEXT].iter().all(|&x| x == 0));
    }

    fn first_move() -> Move {
        shakmaty::Chess::default().legal_moves()[0]
    }
}
