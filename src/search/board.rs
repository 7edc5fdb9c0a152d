//! The strong engine's position: a shakmaty `Chess` plus what the search needs at every node
//! without recomputing it: the Zobrist hash and the material-and-tables score with the game
//! phase, all updated incrementally by copy-make. Debug builds check both against a full
//! recomputation after every move. Beside it, questions the search asks of a position: whether
//! a move gives check, whether the side to move has a quiet mate in one.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingSide, Chess, Color, Move, Piece, Position, Role, Square};

use crate::core::game::hash;
use crate::eval::hce::{S, phase_weight, psq, psq_full};
use crate::nnue::Delta;

#[derive(Clone, Debug)]
pub struct SearchBoard {
    pub pos: Chess,
    /// Polyglot-compatible Zobrist hash, equal to `core::game::hash(&pos)`.
    pub hash: u64,
    /// Material plus piece-square tables, White's point of view.
    pub psq: S,
    /// Game phase: 24 with all pieces on the board, 0 with none but pawns and kings.
    pub phase: i32,
    /// Zobrist keys of parts of the board, for the correction histories: the pawns, then
    /// White's and Black's other pieces.
    pub part_keys: [u64; 3],
    /// The en passant part of `hash` (0 without a legal en passant capture), so that the next
    /// move does not work it out again.
    ep_key: u64,
    /// The pieces the move that led here put on and took off: the learned evaluation's
    /// accumulators follow the path with it (empty at the root and after a null move).
    pub delta: Delta,
}

/// The part of `part_keys` a piece belongs to.
fn part(piece: Piece) -> usize {
    match (piece.role, piece.color) {
        (Role::Pawn, _) => 0,
        (_, Color::White) => 1,
        (_, Color::Black) => 2,
    }
}

/// `part_keys` computed from scratch.
fn part_keys_full(pos: &Chess) -> [u64; 3] {
    let mut keys = [0; 3];
    for (sq, piece) in pos.board().iter() {
        keys[part(piece)] ^= z_piece(sq, piece);
    }
    keys
}

fn z_piece(sq: Square, piece: Piece) -> u64 {
    Zobrist64::zobrist_for_piece(sq, piece).0
}

fn z_castling(pos: &Chess) -> u64 {
    let mut h = 0;
    for color in [Color::White, Color::Black] {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if pos.castles().has(color, side) {
                h ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    h
}

fn z_ep(pos: &Chess) -> u64 {
    pos.legal_ep_square()
        .map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0)
}

impl SearchBoard {
    pub fn new(pos: Chess) -> SearchBoard {
        let (psq, phase) = psq_full(pos.board());
        SearchBoard {
            hash: hash(&pos),
            psq,
            phase,
            part_keys: part_keys_full(&pos),
            ep_key: z_ep(&pos),
            delta: Delta::default(),
            pos,
        }
    }

    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// The position after the legal move `m`.
    pub fn play(&self, m: Move) -> SearchBoard {
        self.play_with(m, |_, _| ())
    }

    /// `play`, which hands `early` the new position's hash and part keys as soon as they are
    /// known from the pieces, before the move is made on the board: the search asks the CPU to
    /// fetch the hash table's slot and the correction histories' entries for them while the
    /// rest of the move is done. The hash handed over leaves out a change of castling rights or
    /// of the en passant square, which few moves make.
    pub fn play_with(&self, m: Move, early: impl FnOnce(u64, [u64; 3])) -> SearchBoard {
        let us = self.pos.turn();
        let them = !us;
        let mut hash = self.hash ^ self.ep_key;
        let mut score = self.psq;
        let mut phase = self.phase;
        let mut part_keys = self.part_keys;
        let mut delta = Delta::default();
        let mut moved = |sq: Square, piece: Piece, add: bool| {
            let z = z_piece(sq, piece);
            hash ^= z;
            part_keys[part(piece)] ^= z;
            delta.push(piece, sq, add);
            if add {
                score += psq(piece, sq);
            } else {
                score -= psq(piece, sq);
            }
        };
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                moved(from, Piece { color: us, role }, false);
                if let Some(c) = capture {
                    moved(
                        to,
                        Piece {
                            color: them,
                            role: c,
                        },
                        false,
                    );
                    phase -= phase_weight(c);
                }
                let new_role = promotion.unwrap_or(role);
                moved(
                    to,
                    Piece {
                        color: us,
                        role: new_role,
                    },
                    true,
                );
                phase += phase_weight(new_role) - phase_weight(role);
            }
            Move::EnPassant { from, to } => {
                let pawn = Piece {
                    color: us,
                    role: Role::Pawn,
                };
                moved(from, pawn, false);
                moved(to, pawn, true);
                let captured = Square::from_coords(to.file(), from.rank());
                moved(
                    captured,
                    Piece {
                        color: them,
                        role: Role::Pawn,
                    },
                    false,
                );
            }
            Move::Castle { king, rook } => {
                let side = if rook.file() > king.file() {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                let king_to = Square::from_coords(side.king_to_file(), king.rank());
                let rook_to = Square::from_coords(side.rook_to_file(), king.rank());
                moved(
                    king,
                    Piece {
                        color: us,
                        role: Role::King,
                    },
                    false,
                );
                moved(
                    rook,
                    Piece {
                        color: us,
                        role: Role::Rook,
                    },
                    false,
                );
                moved(
                    king_to,
                    Piece {
                        color: us,
                        role: Role::King,
                    },
                    true,
                );
                moved(
                    rook_to,
                    Piece {
                        color: us,
                        role: Role::Rook,
                    },
                    true,
                );
            }
            Move::Put { .. } => unreachable!("no drops in standard chess"),
        }
        early(hash ^ Zobrist64::zobrist_for_white_turn().0, part_keys);
        let mut pos = self.pos.clone();
        pos.play_unchecked(m);
        // Castling rights change seldom: their keys only when they do.
        if pos.castles().castling_rights() != self.pos.castles().castling_rights() {
            hash ^= z_castling(&self.pos) ^ z_castling(&pos);
        }
        let ep_key = z_ep(&pos);
        hash ^= ep_key ^ Zobrist64::zobrist_for_white_turn().0;
        let next = SearchBoard {
            pos,
            hash,
            psq: score,
            phase,
            part_keys,
            ep_key,
            delta,
        };
        next.debug_check();
        next
    }

    /// The position with the turn passed ("null move"), or `None` when in check.
    pub fn play_null(&self) -> Option<SearchBoard> {
        let pos = self.pos.clone().swap_turn().ok()?;
        let hash = self.hash ^ self.ep_key ^ Zobrist64::zobrist_for_white_turn().0;
        let next = SearchBoard {
            pos,
            hash,
            psq: self.psq,
            phase: self.phase,
            part_keys: self.part_keys,
            ep_key: 0,
            delta: Delta::default(),
        };
        next.debug_check();
        Some(next)
    }

    /// Debug builds: the incremental state equals a full recomputation.
    fn debug_check(&self) {
        debug_assert_eq!(self.hash, hash(&self.pos), "incremental hash");
        debug_assert_eq!(self.ep_key, z_ep(&self.pos), "en passant key");
        debug_assert_eq!(
            self.part_keys,
            part_keys_full(&self.pos),
            "incremental part keys"
        );
        debug_assert_eq!(
            (self.psq, self.phase),
            psq_full(self.pos.board()),
            "incremental eval"
        );
    }

    /// The piece standing on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pos.board().piece_at(sq)
    }

    /// True if the side to move has two or more pieces besides pawns and king (the null-move
    /// zugzwang guard: a lone queen or rook is often in zugzwang, two pieces seldom are).
    pub fn has_two_pieces(&self) -> bool {
        let b = self.pos.board();
        let ours = b.by_color(self.turn());
        (ours & !(b.pawns() | b.kings())).count() >= 2
    }
}

/// Whether the side to move has a quiet move that mates at once: the threat a null-move search
/// that goes straight to quiescence cannot see. Only the quiet moves that can give check are
/// played and tested: those that land where their piece attacks the king from, those that leave
/// a line out of the king (a discovered check), promotions and castling.
pub fn mates_in_one(b: &SearchBoard) -> bool {
    use shakmaty::{Bitboard, Role, attacks};
    let board = b.pos.board();
    let us = b.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let occupied = board.occupied();
    let diagonal = attacks::bishop_attacks(king, occupied);
    let straight = attacks::rook_attacks(king, occupied);
    let knight = attacks::knight_attacks(king);
    let pawn = attacks::pawn_attacks(!us, king);
    // The lines out of the king up to the first piece on each.
    let lines = diagonal | straight;
    // Often there is no quiet check at all: that is said from the attack tables, without
    // generating a move. A piece of ours on a line out of the king (it may uncover a check),
    // a pawn about to promote or a right to castle leaves it to the moves.
    let ours = board.by_color(us);
    let empty = !occupied;
    let pawns = board.pawns() & ours;
    let seventh = Bitboard::from_rank(us.relative_rank(shakmaty::Rank::Seventh));
    let third = Bitboard::from_rank(us.relative_rank(shakmaty::Rank::Third));
    if !(lines & ours).any() && !(pawns & seventh).any() && !b.pos.castles().has_color(us) {
        let forward = us.fold_wb(8, -8);
        let single = pawns.shift(forward) & empty;
        let double = (single & third).shift(forward) & empty;
        let reach = |pieces: Bitboard, attacks: fn(shakmaty::Square, Bitboard) -> Bitboard, to| {
            (pieces & ours)
                .into_iter()
                .any(|sq| (attacks(sq, occupied) & to & empty).any())
        };
        if !((single | double) & pawn).any()
            && !reach(board.knights(), |sq, _| attacks::knight_attacks(sq), knight)
            && !reach(board.bishops(), attacks::bishop_attacks, diagonal)
            && !reach(board.rooks(), attacks::rook_attacks, straight)
            && !reach(board.queens(), attacks::queen_attacks, lines)
        {
            return false;
        }
    }
    b.pos.legal_moves().into_iter().any(|m| {
        let can_check = match m {
            Move::Normal {
                role,
                from,
                to,
                capture: None,
                promotion,
            } => {
                let checks_from = match role {
                    Role::Pawn => pawn,
                    Role::Knight => knight,
                    Role::Bishop => diagonal,
                    Role::Rook => straight,
                    Role::Queen => lines,
                    Role::King => Bitboard::EMPTY,
                };
                promotion.is_some() || lines.contains(from) || checks_from.contains(to)
            }
            Move::Normal { .. } | Move::EnPassant { .. } => false,
            _ => true,
        };
        can_check && gives_check(b, m) && {
            let mut p = b.pos.clone();
            p.play_unchecked(m);
            p.is_checkmate()
        }
    })
}

/// Does `m` give check? Direct checks and discovered checks through the vacated square, from
/// the attack tables; castling and en passant (rare) by playing the move.
pub fn gives_check(b: &SearchBoard, m: Move) -> bool {
    let board = b.pos.board();
    let us = b.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    match m {
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => {
            let occupied = (board.occupied() ^ from) | to;
            let piece = shakmaty::Piece {
                color: us,
                role: promotion.unwrap_or(role),
            };
            if shakmaty::attacks::attacks(to, piece, occupied).contains(king) {
                return true;
            }
            // A slider of ours behind the moved piece.
            let ours = board.by_color(us) & !shakmaty::Bitboard::from_square(from);
            let rooks = (board.rooks() | board.queens()) & ours;
            let bishops = (board.bishops() | board.queens()) & ours;
            (shakmaty::attacks::rook_attacks(king, occupied) & rooks).any()
                || (shakmaty::attacks::bishop_attacks(king, occupied) & bishops).any()
        }
        _ => b.play(m).pos.is_check(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use crate::nnue::{AccumulatorStack, Network};

    /// Walks every line of the tree to `depth`, checking incremental state at each node.
    fn walk(b: &SearchBoard, depth: u32) -> u64 {
        assert_eq!(b.hash, hash(&b.pos));
        assert_eq!(b.ep_key, z_ep(&b.pos));
        assert_eq!((b.psq, b.phase), psq_full(b.pos.board()));
        if depth == 0 {
            return 1;
        }
        if let Some(n) = b.play_null() {
            assert_eq!(n.hash, hash(&n.pos));
        }
        b.pos
            .legal_moves()
            .iter()
            .map(|&m| walk(&b.play(m), depth - 1))
            .sum()
    }

    /// Walks the tree to `depth`, handing each move's delta to the net's accumulators, and
    /// checks them against a refresh at every node.
    fn walk_net(
        net: &Network,
        accs: &mut AccumulatorStack,
        b: &SearchBoard,
        ply: usize,
        depth: u32,
    ) -> u64 {
        assert!(accs.agrees_with_refresh(net, ply, b.pos.board()));
        if depth == 0 {
            return 1;
        }
        let mut n = 0;
        for &m in b.pos.legal_moves().iter() {
            let child = b.play(m);
            accs.push(ply + 1, child.delta);
            n += walk_net(net, accs, &child, ply + 1, depth - 1);
        }
        n
    }

    /// The search's own deltas, with the built-in net and with nets of king buckets and
    /// mirroring, whose king moves rebuild a perspective from the accumulator cache.
    #[test]
    fn net_accumulators_follow_every_move_of_the_perft_suites() {
        use crate::nnue::{Activation, InputLayout};
        let mut nets = vec![Network::default_net()];
        for name in ["mirror", "mirror-kb8"] {
            let layout = InputLayout::preset(name).unwrap();
            nets.push(std::sync::Arc::new(crate::nnue::tests::random_layout_net(
                32,
                Activation::SCReLU,
                1,
                layout,
            )));
        }
        for net in nets {
            let mut accs = AccumulatorStack::new(3);
            let mut nodes = 0;
            for (_, pos) in crate::search::test_positions::near_perft_suites("", 1, 0) {
                let b = SearchBoard::new(pos);
                accs.refresh_root(&net, b.pos.board());
                nodes += walk_net(&net, &mut accs, &b, 0, 2);
            }
            assert!(nodes > 20_000, "{nodes}");
        }
    }

    /// What `play_with` hands over early, the prefetches' targets: the part keys always, and
    /// the hash whenever the move changes neither the castling rights nor the en passant key.
    #[test]
    fn the_early_keys_are_the_new_positions_own() {
        let (mut moves, mut exact) = (0, 0);
        for (_, pos) in crate::search::test_positions::near_perft_suites("", 1, 0) {
            let b = SearchBoard::new(pos);
            for &m in b.pos.legal_moves().iter() {
                let mut early = None;
                let child = b.play_with(m, |key, parts| early = Some((key, parts)));
                let (key, parts) = early.expect("handed over once");
                assert_eq!(parts, child.part_keys, "{m:?}");
                let same_rights =
                    child.pos.castles().castling_rights() == b.pos.castles().castling_rights();
                if same_rights && child.ep_key == 0 {
                    assert_eq!(key, child.hash, "{m:?}");
                    exact += 1;
                }
                moves += 1;
            }
        }
        // The perft suites are thick with castling rights and en passant; games far less so.
        assert!(moves > 1_000 && exact * 2 > moves, "{exact} of {moves}");
    }

    #[test]
    fn incremental_state_matches_full_on_perft_trees() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ];
        for fen in fens {
            let b = SearchBoard::new(parse_fen(fen).unwrap());
            assert!(walk(&b, 3) > 1000, "{fen}");
        }
    }

    /// Every quiet legal move played and tested: what `mates_in_one` must agree with.
    fn quiet_mate_by_every_move(pos: &shakmaty::Chess) -> bool {
        pos.legal_moves().into_iter().any(|m| {
            !m.is_capture() && {
                let mut p = pos.clone();
                p.play_unchecked(m);
                p.is_checkmate()
            }
        })
    }

    #[test]
    fn the_quiet_mate_in_one_test_agrees_with_playing_every_move() {
        // The mate suites' positions and every position one move on from them (the other side
        // to move, castling and promotions included where the suites have them).
        let mut positions = Vec::new();
        for file in [
            "tests/data/mate-in-1.epd",
            "tests/data/mate-in-2.epd",
            "tests/data/standard.epd",
            "tests/data/cpw.epd",
        ] {
            for record in crate::epd::read(file).unwrap() {
                let pos = record.pos;
                for m in pos.legal_moves() {
                    let mut next = pos.clone();
                    next.play_unchecked(m);
                    positions.push(next);
                }
                positions.push(pos);
            }
        }
        let mut mates = 0;
        for pos in &positions {
            let expected = quiet_mate_by_every_move(pos);
            let b = SearchBoard::new(pos.clone());
            assert_eq!(
                mates_in_one(&b),
                expected,
                "{}",
                crate::core::game::fen_of(pos)
            );
            mates += usize::from(expected);
        }
        assert!(positions.len() > 20_000, "{} positions", positions.len());
        assert!(
            mates > 500,
            "only {mates} positions with a quiet mate in one"
        );
    }
}
