//! The net's incremental state: a perspective pair of hidden layers ([`Accumulator`]), what a
//! move changes on the board ([`Delta`]), and the accumulators along a search path
//! ([`AccumulatorStack`]) with their cache of rebuilt perspectives.
//!
//! A search visits many nodes it never evaluates (cut off by the hash table, pruned before the
//! static evaluation), so the stack only records each ply's move and works the accumulators out
//! when a node first evaluates: from the nearest ply above that is up to date, one move at a
//! time. The search tells the stack three things and nothing else: the root position, that a
//! move reached a ply, and that a ply evaluates.
//!
//! With king buckets or mirroring ([`super::InputLayout`]), a king move that changes its own
//! perspective's bucket or mirror side changes every feature of that perspective. The stack
//! follows the kings through the moves' deltas (a king put on a square is that side's king
//! now), and such a perspective is rebuilt for the evaluated node from its board: the cache
//! ("Finny table") keeps, for each perspective and each bucket and side, the last hidden layer
//! built there and the pieces it was built from, so a rebuild adds and subtracts only the pieces
//! that differ. The other perspective goes on incrementally.

use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};

use super::{MAX_HIDDEN, MAX_KING_BUCKETS, Network, king_square};

/// Both perspectives' hidden layers: White's, then Black's.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub v: [[i16; MAX_HIDDEN]; 2],
}

impl Accumulator {
    pub fn new() -> Accumulator {
        Accumulator {
            v: [[0; MAX_HIDDEN]; 2],
        }
    }
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator::new()
    }
}

/// What a move changes on the board, as pieces put on and taken off squares: at most two of each
/// (castling moves two pieces; a capture takes two off and puts one on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    add: [u16; 2],
    sub: [u16; 2],
    pub(super) n_add: u8,
    pub(super) n_sub: u8,
}

/// The code of a king among a delta's pieces (`Delta::code >> 6`): White's, then Black's.
const KING_CODES: [u16; 2] = [Role::King as u16 - 1, Role::King as u16 - 1 + 6];

impl Delta {
    fn code(piece: Piece, sq: Square) -> u16 {
        let p = (piece.role as u16 - 1) + if piece.color == Color::White { 0 } else { 6 };
        p << 6 | u16::from(sq)
    }

    pub(super) fn decode(code: u16) -> (Piece, Square) {
        let p = code >> 6;
        let role = Role::ALL[usize::from(p % 6)];
        let color = if p < 6 { Color::White } else { Color::Black };
        (Piece { color, role }, Square::new(u32::from(code & 63)))
    }

    /// Records `piece` put on (`on`) or taken off `sq`.
    #[inline]
    pub fn push(&mut self, piece: Piece, sq: Square, on: bool) {
        let code = Delta::code(piece, sq);
        if on {
            debug_assert!(self.n_add < 2);
            self.add[usize::from(self.n_add)] = code;
            self.n_add += 1;
        } else {
            debug_assert!(self.n_sub < 2);
            self.sub[usize::from(self.n_sub)] = code;
            self.n_sub += 1;
        }
    }

    pub fn adds(&self) -> &[u16] {
        &self.add[..usize::from(self.n_add)]
    }

    pub fn subs(&self) -> &[u16] {
        &self.sub[..usize::from(self.n_sub)]
    }

    /// The kings' squares (White's, Black's) after the move, from those before it: a king the
    /// move puts on a square stands there now.
    #[inline]
    pub fn kings_after(&self, mut kings: [Square; 2]) -> [Square; 2] {
        for &code in self.adds() {
            for (k, &king) in kings.iter_mut().zip(&KING_CODES) {
                if code >> 6 == king {
                    *k = Square::new(u32::from(code & 63));
                }
            }
        }
        kings
    }
}

/// The accumulators along a search path, one slot a ply (the root is ply 0), each brought up to
/// date only when its node evaluates, and the cache of rebuilt perspectives. Both are allocated
/// when the stack is made, once for every search: entering, leaving and evaluating a node
/// allocate nothing.
///
/// Leaving a node needs no call: its parent's slot is untouched by the child's, and the next
/// move made at the child's ply overwrites it.
#[derive(Default)]
pub struct AccumulatorStack {
    slots: Box<[Slot]>,
    cache: Cache,
}

/// A ply's accumulators, the move that led there, and which perspectives are up to date.
struct Slot {
    acc: Accumulator,
    delta: Delta,
    /// Whether White's and Black's hidden layers are up to date.
    fresh: [bool; 2],
    /// The kings' squares (White's, Black's) in the ply's position: known where a perspective
    /// is up to date (with the plain layout, which reads no king, they are not kept).
    kings: [Square; 2],
}

/// Entries a perspective has in the cache: each king bucket on either mirror side.
const ORIENTATIONS: usize = 2 * MAX_KING_BUCKETS;

/// The accumulator cache ("Finny table"): for each perspective (White's entries, then Black's)
/// and each orientation of it (`Orientation::index`), the last hidden layer built in that
/// orientation and the pieces it was built from. An entry starts as the biases and no pieces.
/// `2 * 32` entries of `MAX_HIDDEN` values: 128 KiB, and 6 KiB of bitboards.
#[derive(Default)]
struct Cache {
    acc: Box<[[i16; MAX_HIDDEN]]>,
    pieces: Box<[[Bitboard; 12]]>,
    /// Rebuilds that started from an entry built before (tests count them).
    #[cfg(test)]
    reused: usize,
}

impl Cache {
    fn new() -> Cache {
        Cache {
            acc: vec![[0; MAX_HIDDEN]; 2 * ORIENTATIONS].into_boxed_slice(),
            pieces: vec![[Bitboard::EMPTY; 12]; 2 * ORIENTATIONS].into_boxed_slice(),
            #[cfg(test)]
            reused: 0,
        }
    }

    /// Every entry `net` can use back to its biases and no pieces.
    fn reset(&mut self, net: &Network) {
        let h = net.hidden();
        let sides = if net.layout().mirror() { 2 } else { 1 };
        for p in 0..2 {
            for bucket in 0..net.layout().buckets() {
                for side in 0..sides {
                    let e = p * ORIENTATIONS + 2 * bucket + side;
                    self.acc[e][..h].copy_from_slice(&net.ft_bias);
                    self.pieces[e] = [Bitboard::EMPTY; 12];
                }
            }
        }
    }
}

const PERSPECTIVES: [Color; 2] = [Color::White, Color::Black];

impl AccumulatorStack {
    /// A stack for search paths of up to `plies` plies, the root included.
    pub fn new(plies: usize) -> AccumulatorStack {
        AccumulatorStack {
            slots: (0..plies)
                .map(|_| Slot {
                    acc: Accumulator::new(),
                    delta: Delta::default(),
                    fresh: [false; 2],
                    kings: [Square::A1; 2],
                })
                .collect(),
            cache: Cache::new(),
        }
    }

    /// Whether the stack has no slots (the default, for a search without the net).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The root's accumulators from scratch: `board` is the position the search starts from.
    /// The cache starts afresh (the net may be another than the last search's).
    pub fn refresh_root(&mut self, net: &Network, board: &Board) {
        self.cache.reset(net);
        self.slots[0].kings = PERSPECTIVES.map(|c| king_square(board, c));
        for p in 0..2 {
            self.rebuild(net, 0, p, board);
        }
        self.slots[0].fresh = [true; 2];
    }

    /// A move changing the board by `delta` (empty for a null move) reached `ply`: its
    /// accumulators are the parent's with `delta`, worked out when the node first evaluates.
    #[inline]
    pub fn push(&mut self, ply: usize, delta: Delta) {
        let slot = &mut self.slots[ply];
        slot.delta = delta;
        slot.fresh = [false; 2];
    }

    /// The net's score in centipawns of the node at `ply`, whose board is `board` with `turn` to
    /// move. Debug builds check the incremental accumulators against a refresh.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, ply: usize, board: &Board, turn: Color) -> i32 {
        self.bring_up_to_date(net, ply, board);
        debug_assert!(
            self.agrees_with_refresh(net, ply, board),
            "incremental accumulators"
        );
        net.evaluate(&self.slots[ply].acc, turn, board.occupied().count() as u32)
    }

    /// Whether the accumulators of `ply`, brought up to date, equal those of `board` worked out
    /// from scratch.
    pub fn agrees_with_refresh(&mut self, net: &Network, ply: usize, board: &Board) -> bool {
        self.bring_up_to_date(net, ply, board);
        let mut full = Accumulator::new();
        net.refresh(board, &mut full);
        let h = net.hidden();
        let acc = &self.slots[ply].acc;
        acc.v[0][..h] == full.v[0][..h] && acc.v[1][..h] == full.v[1][..h]
    }

    /// Rebuilds that started from a cache entry built before: the cache at work.
    #[cfg(test)]
    fn reused(&self) -> usize {
        self.cache.reused
    }

    /// For each perspective, the nearest ply up the path whose hidden layer is up to date (the
    /// root always is), then each ply below it down to `ply` from its parent and its move, while
    /// the perspective's king keeps its bucket and side; once a move changes them, the
    /// perspective is rebuilt for `ply` from the cache and `board`.
    #[inline]
    fn bring_up_to_date(&mut self, net: &Network, ply: usize, board: &Board) {
        let mut top = [ply; 2];
        for (p, t) in top.iter_mut().enumerate() {
            while !self.slots[*t].fresh[p] {
                *t -= 1;
            }
        }
        let layout = net.layout();
        // The plain layout reads no king: its perspectives are never rebuilt.
        let follows_kings = !layout.is_plain();
        let h = net.hidden();
        let kernel = super::simd::in_use();
        let mut rebuild = [false; 2];
        for k in top[0].min(top[1]) + 1..=ply {
            let (done, rest) = self.slots.split_at_mut(k);
            let (parent, slot) = (&done[k - 1], &mut rest[0]);
            if follows_kings {
                slot.kings = slot.delta.kings_after(parent.kings);
            }
            for (p, perspective) in PERSPECTIVES.into_iter().enumerate() {
                if k <= top[p] || rebuild[p] {
                    continue;
                }
                let o = layout.orientation(perspective, slot.kings[p]);
                if follows_kings && o != layout.orientation(perspective, parent.kings[p]) {
                    rebuild[p] = true;
                    continue;
                }
                net.update_side(
                    kernel,
                    &parent.acc.v[p][..h],
                    &mut slot.acc.v[p][..h],
                    &slot.delta,
                    perspective,
                    o,
                );
                slot.fresh[p] = true;
            }
        }
        for (p, _) in rebuild.into_iter().enumerate().filter(|&(_, r)| r) {
            self.rebuild(net, ply, p, board);
            self.slots[ply].fresh[p] = true;
        }
    }

    /// Perspective `p`'s hidden layer at `ply`, whose board is `board`, from the cache entry of
    /// its orientation, which is brought to `board` on the way.
    fn rebuild(&mut self, net: &Network, ply: usize, p: usize, board: &Board) {
        let perspective = PERSPECTIVES[p];
        let slot = &mut self.slots[ply];
        debug_assert_eq!(
            slot.kings[p],
            king_square(board, perspective),
            "the kings followed through the moves"
        );
        let o = net.layout().orientation(perspective, slot.kings[p]);
        let e = p * ORIENTATIONS + o.index();
        let h = net.hidden();
        #[cfg(test)]
        if self.cache.pieces[e].iter().any(|b| b.any()) {
            self.cache.reused += 1;
        }
        let entry = &mut self.cache.acc[e][..h];
        net.apply_board_difference(entry, &mut self.cache.pieces[e], board, perspective, o);
        slot.acc.v[p][..h].copy_from_slice(entry);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::nnue::tests::{positions, random_layout_net, random_net};
    use crate::nnue::{Activation, InputLayout, LAYOUT_PRESETS};
    use shakmaty::{Chess, Move, Position};

    fn presets() -> Vec<InputLayout> {
        LAYOUT_PRESETS
            .iter()
            .map(|n| InputLayout::preset(n).unwrap())
            .collect()
    }

    /// Whether `m` changes the orientation of either perspective of `net` (so that it cannot be
    /// applied to that perspective incrementally).
    fn reorients(net: &Network, pos: &Chess, m: Move) -> [bool; 2] {
        let mut child = pos.clone();
        child.play_unchecked(m);
        PERSPECTIVES.map(|c| {
            let o = |b: &Board| net.layout().orientation(c, king_square(b, c));
            o(pos.board()) != o(child.board())
        })
    }

    /// Every move of the perft positions: where the move leaves both perspectives' orientation
    /// as it was, the accumulator updated by its delta equals one computed from scratch; for
    /// every move, the stack (incremental or through the cache) equals a refresh.
    #[test]
    fn updated_accumulators_equal_a_refresh() {
        let mut nets = vec![
            random_net(40, Activation::SCReLU),
            random_net(40, Activation::CReLU),
        ];
        nets.extend(
            presets()
                .into_iter()
                .map(|l| random_layout_net(40, Activation::SCReLU, 1, l)),
        );
        // Every net from its 8-bit feature rows (its weights fit them), and from its 16-bit ones.
        assert!(nets.iter().all(Network::eight_bit_rows));
        let wide: Vec<Network> = nets.iter().map(|n| n.clone().with_16_bit_rows()).collect();
        nets.extend(wide);
        for net in &nets {
            let mut stack = AccumulatorStack::new(2);
            let (mut direct, mut rebuilt, mut castles) = (0, 0, [0; 2]);
            for (_, pos) in positions() {
                let mut before = Accumulator::new();
                net.refresh(pos.board(), &mut before);
                for m in pos.legal_moves() {
                    let mut delta = Delta::default();
                    delta_of(&pos, m, &mut delta);
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    let kings = PERSPECTIVES.map(|c| king_square(child.board(), c));
                    assert_eq!(
                        delta.kings_after(PERSPECTIVES.map(|c| king_square(pos.board(), c))),
                        kings,
                        "{m}"
                    );
                    let mut fresh = Accumulator::new();
                    net.refresh(child.board(), &mut fresh);
                    let pieces = child.board().occupied().count() as u32;
                    let score = net.evaluate(&fresh, child.turn(), pieces);
                    if reorients(net, &pos, m) == [false; 2] {
                        let mut updated = Accumulator::new();
                        net.update(&before, &mut updated, &delta, kings);
                        assert_eq!(updated.v[0][..40], fresh.v[0][..40], "{m}");
                        assert_eq!(updated.v[1][..40], fresh.v[1][..40], "{m}");
                        assert_eq!(net.evaluate(&updated, child.turn(), pieces), score);
                        direct += 1;
                    } else {
                        assert!(!net.layout().is_plain());
                        rebuilt += 1;
                        if let Move::Castle { king, rook } = m {
                            castles[usize::from(rook.file() > king.file())] += 1;
                        }
                    }
                    stack.refresh_root(net, pos.board());
                    stack.push(1, delta);
                    assert!(stack.agrees_with_refresh(net, 1, child.board()), "{m}");
                    assert_eq!(stack.evaluate(net, 1, child.board(), child.turn()), score);
                }
            }
            assert!(direct > 1000, "{direct}");
            if net.layout().buckets() > 1 {
                // King moves across buckets and the mirror line, castling both ways among them.
                assert!(
                    rebuilt > 100 && castles[0] > 0 && castles[1] > 0,
                    "{rebuilt} {castles:?}"
                );
            }
        }
    }

    /// The delta of a move computed the plain way: every square whose piece changed.
    pub(crate) fn delta_of(pos: &Chess, m: Move, delta: &mut Delta) {
        let mut child = pos.clone();
        child.play_unchecked(m);
        for sq in Square::ALL {
            let (a, b) = (pos.board().piece_at(sq), child.board().piece_at(sq));
            if a != b {
                if let Some(p) = a {
                    delta.push(p, sq, false);
                }
                if let Some(p) = b {
                    delta.push(p, sq, true);
                }
            }
        }
    }

    /// Down a line of moves from each test position, some plies evaluated and some passed over
    /// (a null move among them), the stack's score equals the score of the board from scratch.
    /// `pick` chooses each move from the legal ones at `ply`.
    fn walk_lines(
        net: &Network,
        pick: impl Fn(&Chess, usize, &[Move]) -> Option<Move>,
        evaluated: impl Fn(usize) -> bool,
    ) -> (usize, usize) {
        let mut stack = AccumulatorStack::new(12);
        let mut checked = 0;
        for (_, root) in positions() {
            stack.refresh_root(net, root.board());
            let mut pos = root.clone();
            for ply in 1..12 {
                let mut delta = Delta::default();
                if ply == 5 {
                    let Ok(null) = pos.clone().swap_turn() else {
                        break;
                    };
                    pos = null;
                } else {
                    let moves = pos.legal_moves();
                    let Some(m) = pick(&pos, ply, &moves) else {
                        break;
                    };
                    delta_of(&pos, m, &mut delta);
                    pos.play_unchecked(m);
                }
                stack.push(ply, delta);
                if evaluated(ply) {
                    let board = pos.board();
                    assert_eq!(
                        stack.evaluate(net, ply, board, pos.turn()),
                        net.evaluate_board(board, pos.turn())
                    );
                    checked += 1;
                }
            }
        }
        (checked, stack.reused())
    }

    /// The move that changes the most, so captures and castling come up.
    fn busiest(pos: &Chess, _: usize, moves: &[Move]) -> Option<Move> {
        moves.iter().copied().max_by_key(|m| {
            let mut d = Delta::default();
            delta_of(pos, *m, &mut d);
            d.adds().len() + d.subs().len()
        })
    }

    #[test]
    fn the_stack_scores_a_path_as_a_refresh_does() {
        let net = random_net(40, Activation::SCReLU);
        let (checked, _) = walk_lines(&net, busiest, |ply| ply % 3 != 1);
        assert!(checked > 500, "{checked}");
    }

    /// Lines that walk the kings about (a king move whenever there is one, each side's in turn
    /// as the ply picks), so they cross buckets and the mirror line and come back: with every
    /// layout the stack's score is the refresh's, evaluated at every ply or only some (so that
    /// one update covers a rebuild several plies up), and the cache's entries are used again.
    #[test]
    fn king_walks_rebuild_from_the_cache_as_a_refresh_does() {
        let wander = |pos: &Chess, ply: usize, moves: &[Move]| {
            let kings: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| m.role() == Role::King)
                .collect();
            if kings.is_empty() {
                busiest(pos, ply, moves)
            } else {
                Some(kings[(ply * 7 + 3) % kings.len()])
            }
        };
        for (layout, eight_bit) in presets().into_iter().flat_map(|l| [(l, true), (l, false)]) {
            let net = random_layout_net(32, Activation::SCReLU, 2, layout);
            let net = if eight_bit {
                net
            } else {
                net.with_16_bit_rows()
            };
            assert_eq!(net.eight_bit_rows(), eight_bit);
            for every in [1, 3] {
                let (checked, reused) = walk_lines(&net, wander, |ply| ply % every == 0);
                assert!(checked > 150, "{checked}");
                if layout.buckets() > 1 || layout.mirror() {
                    assert!(
                        reused > 20,
                        "{}: {reused} rebuilds from a used entry",
                        layout.describe()
                    );
                } else {
                    assert_eq!(reused, 0, "the plain layout never rebuilds");
                }
            }
        }
    }
}
