//! The net's incremental state: a perspective pair of hidden layers ([`Accumulator`]), what a
//! move changes on the board ([`Delta`]), and the accumulators along a search path
//! ([`AccumulatorStack`]).
//!
//! A search visits many nodes it never evaluates (cut off by the hash table, pruned before the
//! static evaluation), so the stack only records each ply's move and works the accumulators out
//! when a node first evaluates: from the nearest ply above that is up to date, one move at a
//! time. The search tells the stack three things and nothing else: the root position, that a
//! move reached a ply, and that a ply evaluates.

use shakmaty::{Board, Color, Piece, Role, Square};

use super::{MAX_HIDDEN, Network};

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
}

/// The accumulators along a search path, one slot a ply (the root is ply 0), each brought up to
/// date only when its node evaluates. The slots are allocated when the stack is made, once for
/// every search: entering, leaving and evaluating a node allocate nothing.
///
/// Leaving a node needs no call: its parent's slot is untouched by the child's, and the next
/// move made at the child's ply overwrites it.
#[derive(Default)]
pub struct AccumulatorStack {
    slots: Box<[Slot]>,
}

/// A ply's accumulators, the move that led there, and whether they are up to date.
struct Slot {
    acc: Accumulator,
    delta: Delta,
    fresh: bool,
}

impl AccumulatorStack {
    /// A stack for search paths of up to `plies` plies, the root included.
    pub fn new(plies: usize) -> AccumulatorStack {
        AccumulatorStack {
            slots: (0..plies)
                .map(|_| Slot {
                    acc: Accumulator::new(),
                    delta: Delta::default(),
                    fresh: false,
                })
                .collect(),
        }
    }

    /// Whether the stack has no slots (the default, for a search without the net).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The root's accumulators from scratch: `board` is the position the search starts from.
    pub fn refresh_root(&mut self, net: &Network, board: &Board) {
        let root = &mut self.slots[0];
        net.refresh(board, &mut root.acc);
        root.fresh = true;
    }

    /// A move changing the board by `delta` (empty for a null move) reached `ply`: its
    /// accumulators are the parent's with `delta`, worked out when the node first evaluates.
    #[inline]
    pub fn push(&mut self, ply: usize, delta: Delta) {
        let slot = &mut self.slots[ply];
        slot.delta = delta;
        slot.fresh = false;
    }

    /// The net's score in centipawns of the node at `ply`, whose board is `board` with `turn` to
    /// move. Debug builds check the incremental accumulators against a refresh.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, ply: usize, board: &Board, turn: Color) -> i32 {
        self.bring_up_to_date(net, ply);
        debug_assert!(
            self.agrees_with_refresh(net, ply, board),
            "incremental accumulators"
        );
        net.evaluate(&self.slots[ply].acc, turn, board.occupied().count() as u32)
    }

    /// Whether the accumulators of `ply`, brought up to date, equal those of `board` worked out
    /// from scratch.
    pub fn agrees_with_refresh(&mut self, net: &Network, ply: usize, board: &Board) -> bool {
        self.bring_up_to_date(net, ply);
        let mut full = Accumulator::new();
        net.refresh(board, &mut full);
        let h = net.hidden();
        let acc = &self.slots[ply].acc;
        acc.v[0][..h] == full.v[0][..h] && acc.v[1][..h] == full.v[1][..h]
    }

    /// The nearest ply up the path whose accumulators are up to date (the root always is), then
    /// each ply below it down to `ply` from its parent and its move.
    #[inline]
    fn bring_up_to_date(&mut self, net: &Network, ply: usize) {
        let mut from = ply;
        while !self.slots[from].fresh {
            from -= 1;
        }
        for k in from + 1..=ply {
            let (done, rest) = self.slots.split_at_mut(k);
            let slot = &mut rest[0];
            net.update(&done[k - 1].acc, &mut slot.acc, &slot.delta);
            slot.fresh = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::Activation;
    use crate::nnue::tests::{positions, random_net};
    use shakmaty::Position;

    /// Every move of the perft positions and the positions below them: the accumulator updated
    /// by the move's delta equals one computed from scratch.
    #[test]
    fn updated_accumulators_equal_a_refresh() {
        for activation in [Activation::SCReLU, Activation::CReLU] {
            let net = random_net(40, activation);
            let mut checked = 0;
            for (_, pos) in positions() {
                let mut before = Accumulator::new();
                net.refresh(pos.board(), &mut before);
                for m in pos.legal_moves() {
                    let mut delta = Delta::default();
                    delta_of(&pos, m, &mut delta);
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    let mut updated = Accumulator::new();
                    net.update(&before, &mut updated, &delta);
                    let mut fresh = Accumulator::new();
                    net.refresh(child.board(), &mut fresh);
                    assert_eq!(updated.v[0][..40], fresh.v[0][..40], "{m}");
                    assert_eq!(updated.v[1][..40], fresh.v[1][..40], "{m}");
                    let pieces = child.board().occupied().count() as u32;
                    assert_eq!(
                        net.evaluate(&updated, child.turn(), pieces),
                        net.evaluate(&fresh, child.turn(), pieces)
                    );
                    checked += 1;
                }
            }
            assert!(checked > 1000, "{checked}");
        }
    }

    /// The delta of a move computed the plain way: every square whose piece changed.
    fn delta_of(pos: &shakmaty::Chess, m: shakmaty::Move, delta: &mut Delta) {
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
    #[test]
    fn the_stack_scores_a_path_as_a_refresh_does() {
        let net = random_net(40, Activation::SCReLU);
        let mut stack = AccumulatorStack::new(12);
        let mut checked = 0;
        for (_, root) in positions() {
            stack.refresh_root(&net, root.board());
            let mut pos = root.clone();
            for ply in 1..12 {
                let mut delta = Delta::default();
                if ply == 5 {
                    let Ok(null) = pos.clone().swap_turn() else {
                        break;
                    };
                    pos = null;
                } else {
                    // The move that changes the most, so captures and castling come up.
                    let Some(m) = pos.legal_moves().into_iter().max_by_key(|m| {
                        let mut d = Delta::default();
                        delta_of(&pos, *m, &mut d);
                        d.adds().len() + d.subs().len()
                    }) else {
                        break;
                    };
                    delta_of(&pos, m, &mut delta);
                    pos.play_unchecked(m);
                }
                stack.push(ply, delta);
                if ply % 3 != 1 {
                    let board = pos.board();
                    assert_eq!(
                        stack.evaluate(&net, ply, board, pos.turn()),
                        net.evaluate_board(board, pos.turn())
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
