//! Packed game logs: a chunk's games as one stream of the adaptive range coder (`coder`), for
//! the data sets kept in the repository, where every byte stays in the history for good.
//!
//! The games and their fields are those of a plain log (`games`); what changes is how each is
//! coded. The file starts with the eight bytes `RKGAMES2` and a varint count of games; the rest
//! is the coded stream. For each game, in order:
//!
//! | field | coded as |
//! |---|---|
//! | its number | the step from one past the last game's (from 0 for the first; 0 for consecutive games), zigzag, as a number |
//! | the result | two bits (0 Black won, 1 draw, 2 White won, 3 unfinished) |
//! | the start | its FEN's length, then each byte under a model chosen by the byte before |
//! | the moves | their count; then each move's rank in a fixed guess of the likely moves (below), under a model chosen by how many moves are legal and whether the last move took something |
//! | the kept positions | a bit each position from the start to after the last move, under a model chosen by the bit before, whether the side to move is in check, and whether the last move took something |
//! | their scores | each kept score turned to White's point of view, minus the previous one's (0 before the first), zigzag, as a number under a model for the first of a game, an odd step or an even step |
//!
//! Numbers are coded as their length in bits and then the bits below the leading one, every
//! bit with a model of its own (see `coder::Uint`); each model learns from the games before it
//! in the chunk, so the stream reads only from its start.
//!
//! The guess orders the legal moves by: a capture on the square the last move went to
//! (cheapest piece first); other captures that win or keep material, by the value taken and
//! then the taker; promotions, queen first; quiet moves to squares the opponent does not win
//! them on, by a small gain (castling first, pawns by how far they go, knights, bishops and
//! queens by how much nearer the centre they stand, rooks even, king moves last); captures of
//! less than the taker where the opponent can take back; quiet moves to squares the opponent
//! attacks with less than the piece or does not let it hold; ties by the plain log's order. The
//! guess is part of the format and never changes: it depends on the rules alone.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square, attacks};

use super::coder::{Bit, Decoder, Encoder, Uint};
use super::games::{GameLog, MAX_LOG_PLIES, game_error, move_key, read_log};
use crate::core::bytes::{Put, Reader, unzigzag, zigzag};
use crate::core::game::{fen_of, parse_fen};
use crate::error::{DataProblem, Error, GameProblem};

/// The first bytes of a packed log.
pub const MAGIC_PACKED: &[u8; 8] = b"RKGAMES2";

/// The longest FEN a packed log holds.
const MAX_FEN: u64 = 200;

/// Every model of a packed log, the writer's and the reader's alike.
struct Models {
    index_step: Uint,
    result: [Bit; 4],
    fen_len: Uint,
    /// 256 models of a byte (a tree of 256 each), one for each byte before.
    fen: Vec<Bit>,
    plies: Uint,
    rank: [Uint; 8],
    kept: [Bit; 8],
    score: [Uint; 3],
}

impl Models {
    fn new() -> Models {
        Models {
            index_step: Uint::default(),
            result: [Bit::default(); 4],
            fen_len: Uint::default(),
            fen: vec![Bit::default(); 256 * 256],
            plies: Uint::default(),
            rank: std::array::from_fn(|_| Uint::default()),
            kept: [Bit::default(); 8],
            score: std::array::from_fn(|_| Uint::default()),
        }
    }
}

/// The guess's piece values: the format's own, fixed for good (not the evaluation's, which a
/// tune may change: a log must read the same under every version).
fn value(role: Role) -> i32 {
    // Pawn, knight, bishop, rook, queen, king (`Role` counts from 1 in that order).
    const VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];
    VALUES[role as usize - 1]
}

/// How far `sq` is from the centre, in half squares each way (0 is best).
fn off_centre(sq: Square) -> i32 {
    let (f, r) = (i32::from(sq.file()), i32::from(sq.rank()));
    (2 * f - 7).abs() + (2 * r - 7).abs()
}

/// What the guess needs to know of a position's squares: for each square, the cheapest of the
/// opponent's pieces that attacks it (their value, the king counted dearest), and the squares
/// the side to move attacks once and twice or more.
struct Attacks {
    /// The squares the opponent attacks with a piece of at most each value: pawns, then up to
    /// knights, bishops, rooks, queens, and the king.
    cheapest: [(i32, Bitboard); 6],
    ours_once: Bitboard,
    ours_twice: Bitboard,
}

const KING_VALUE: i32 = 10_000;

impl Attacks {
    fn of(pos: &Chess) -> Attacks {
        let board = pos.board();
        let occupied = board.occupied();
        let them = !pos.turn();
        let order = Role::ALL;
        let mut cheapest = [(0, Bitboard::EMPTY); 6];
        let mut so_far = Bitboard::EMPTY;
        for (i, role) in order.into_iter().enumerate() {
            let piece = role.of(them);
            for sq in board.by_piece(piece) {
                so_far |= attacks::attacks(sq, piece, occupied);
            }
            let v = if role == Role::King {
                KING_VALUE
            } else {
                value(role)
            };
            cheapest[i] = (v, so_far);
        }
        let (mut ours_once, mut ours_twice) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for sq in board.by_color(pos.turn()) {
            let piece = board.piece_at(sq).expect("an occupied square");
            let a = attacks::attacks(sq, piece, occupied);
            ours_twice |= ours_once & a;
            ours_once |= a;
        }
        Attacks {
            cheapest,
            ours_once,
            ours_twice,
        }
    }

    /// The value of the cheapest opponent's piece attacking `sq`, if any does.
    fn cheapest_attacker(&self, sq: Square) -> Option<i32> {
        self.cheapest
            .iter()
            .find(|(_, b)| b.contains(sq))
            .map(|&(v, _)| v)
    }
}

/// The guess's key of `m` in `pos` (lower first), `a` being `pos`'s attacks.
fn guess_key(pos: &Chess, a: &Attacks, m: Move, last_to: Option<Square>) -> (u8, i32) {
    let us = pos.turn();
    let to = m.to();
    let mover = m.role();
    if m.is_castle() {
        return (3, -100);
    }
    let cheapest_attacker = a.cheapest_attacker(to);
    if let Some(victim) = m.capture() {
        if Some(to) == last_to {
            return (0, value(mover));
        }
        let order = -(value(victim) * 10 - value(mover) / 10);
        if value(victim) < value(mover) && cheapest_attacker.is_some() {
            return (4, order);
        }
        return (1, order);
    }
    if let Some(p) = m.promotion() {
        return (2, -value(p));
    }
    let Some(from) = m.from() else {
        return (3, 0);
    };
    let gain = match mover {
        Role::Pawn => {
            let advance = match us {
                Color::White => i32::from(to.rank()),
                Color::Black => 7 - i32::from(to.rank()),
            };
            4 + advance - (2 * i32::from(to.file()) - 7).abs() / 2
        }
        Role::King => -20,
        Role::Rook => 0,
        _ => off_centre(from) - off_centre(to),
    };
    // Held by another of ours: a piece that goes to `to` attacks it itself (a pawn's push does
    // not), so it needs a second attacker.
    let held = a.ours_twice.contains(to) || (mover == Role::Pawn && a.ours_once.contains(to));
    let unsafe_square =
        mover != Role::King && cheapest_attacker.is_some_and(|c| c < value(mover) || !held);
    (if unsafe_square { 5 } else { 3 }, -gain)
}

/// The legal moves of `pos` in the guess's order.
fn guessed_moves(pos: &Chess, last_to: Option<Square>) -> Vec<Move> {
    let a = Attacks::of(pos);
    let mut moves: Vec<((u8, i32), u32, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| (guess_key(pos, &a, m, last_to), move_key(m), m))
        .collect();
    moves.sort_unstable_by_key(|&(k, u, _)| (k, u));
    moves.into_iter().map(|(_, _, m)| m).collect()
}

/// The rank's model: by how many moves are legal and whether the last move took something.
fn rank_context(legal: usize, last_took: bool) -> usize {
    legal.min(47) / 12 * 2 + usize::from(last_took)
}

fn kept_context(kept_before: bool, in_check: bool, last_took: bool) -> usize {
    usize::from(kept_before) * 4 + usize::from(in_check) * 2 + usize::from(last_took)
}

/// The score's model: the first of a game, after an odd number of plies, after an even one.
fn score_context(step: Option<usize>) -> usize {
    match step {
        None => 0,
        Some(s) => 1 + s % 2,
    }
}

/// The number the game after `last` most likely has (numbers step by one within a chunk).
fn next_index(last: Option<u64>) -> u64 {
    last.map_or(0, |l| l.wrapping_add(1))
}

fn white_score(turn: Color, score: i32) -> i64 {
    match turn {
        Color::White => i64::from(score),
        Color::Black => -i64::from(score),
    }
}

/// A packed log of `games`: the magic, the count, the stream. Errors as a plain log's writing
/// does, for a game that does not replay.
pub fn write_packed(games: &[GameLog]) -> Result<Vec<u8>, Error> {
    let mut e = Encoder::default();
    let mut m = Models::new();
    let mut last_index: Option<u64> = None;
    for g in games {
        // The plain log's checks: a game that does not encode there does not here.
        g.encode(&mut Vec::new())?;
        let step = zigzag(g.index.wrapping_sub(next_index(last_index)) as i64);
        last_index = Some(g.index);
        e.uint(&mut m.index_step, step);
        e.tree(&mut m.result, 2, u32::from(g.result.min(3)));
        let fen = fen_of(&g.start);
        e.uint(&mut m.fen_len, fen.len() as u64);
        let mut before = 0usize;
        for &b in fen.as_bytes() {
            e.tree(
                &mut m.fen[before * 256..(before + 1) * 256],
                8,
                u32::from(b),
            );
            before = usize::from(b);
        }
        e.uint(&mut m.plies, g.moves.len() as u64);
        let mut pos = g.start.clone();
        let (mut last_to, mut last_took) = (None, false);
        for &mv in &g.moves {
            let moves = guessed_moves(&pos, last_to);
            let rank = moves.iter().position(|&x| x == mv).expect("checked legal");
            e.uint(
                &mut m.rank[rank_context(moves.len(), last_took)],
                rank as u64,
            );
            last_to = Some(mv.to());
            last_took = mv.is_capture();
            pos.play_unchecked(mv);
        }
        let mut pos = g.start.clone();
        let mut kept = g.kept.iter().peekable();
        let (mut kept_before, mut last_took) = (false, false);
        for ply in 0..=g.moves.len() {
            let here = kept.next_if(|&&(p, _)| p == ply).is_some();
            let ctx = kept_context(kept_before, pos.is_check(), last_took);
            e.bit(&mut m.kept[ctx], here);
            kept_before = here;
            if let Some(&mv) = g.moves.get(ply) {
                last_took = mv.is_capture();
                pos.play_unchecked(mv);
            }
        }
        let mut pos = g.start.clone();
        let (mut played, mut prev) = (0usize, None::<(usize, i64)>);
        for &(ply, score) in &g.kept {
            while played < ply {
                pos.play_unchecked(g.moves[played]);
                played += 1;
            }
            let w = white_score(pos.turn(), score);
            let (ctx, base) = match prev {
                None => (score_context(None), 0),
                Some((p, s)) => (score_context(Some(ply - p)), s),
            };
            e.uint(&mut m.score[ctx], zigzag(w - base));
            prev = Some((ply, w));
        }
    }
    let mut out = MAGIC_PACKED.to_vec();
    out.put_varint(games.len() as u64);
    out.extend_from_slice(&e.finish());
    Ok(out)
}

/// The games of a log file's bytes, plain or packed (by its magic).
pub fn read_any(bytes: &[u8]) -> Result<Vec<GameLog>, Error> {
    if bytes.starts_with(MAGIC_PACKED) {
        read_packed(bytes)
    } else {
        read_log(bytes)
    }
}

/// The games of a packed log's bytes (its magic first).
pub fn read_packed(bytes: &[u8]) -> Result<Vec<GameLog>, Error> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC_PACKED.len(), "the magic").ok() != Some(&MAGIC_PACKED[..]) {
        return Err(Error::data(
            "",
            DataProblem::NotALog {
                magic: MAGIC_PACKED,
            },
        ));
    }
    let count = r
        .varint("the count of games")
        .map_err(|e| game_error(MAGIC_PACKED.len(), None, None, GameProblem::Read(e)))?;
    let at = r.position();
    let mut d = Decoder::new(&bytes[at..]);
    let mut m = Models::new();
    let mut games = Vec::new();
    let mut last_index: Option<u64> = None;
    for _ in 0..count {
        let (mut game, mut ply) = (None, None);
        let g = read_game(&mut d, &mut m, last_index, &mut game, &mut ply)
            .map_err(|problem| game_error(at, game, ply, problem))?;
        last_index = Some(g.index);
        games.push(g);
    }
    let problem = if d.overran() {
        Some("ends before its games do")
    } else if d.unread() != 0 {
        Some("runs on after its games")
    } else {
        None
    };
    if let Some(what) = problem {
        return Err(game_error(at, last_index, None, GameProblem::Coded(what)));
    }
    Ok(games)
}

fn read_game(
    d: &mut Decoder,
    m: &mut Models,
    last_index: Option<u64>,
    game: &mut Option<u64>,
    ply: &mut Option<usize>,
) -> Result<GameLog, GameProblem> {
    // A stream cut short reads zeros for ever: stop at the first field read past its end.
    let cut = |d: &Decoder| {
        if d.overran() {
            Err(GameProblem::Coded("ends before its games do"))
        } else {
            Ok(())
        }
    };
    let number = |d: &mut Decoder, model: &mut Uint| {
        d.uint(model)
            .ok_or(GameProblem::Coded("codes a number beyond 64 bits"))
    };
    let step = unzigzag(number(d, &mut m.index_step)?);
    let index = next_index(last_index).wrapping_add(step as u64);
    *game = Some(index);
    let result = d.tree(&mut m.result, 2) as u8;
    let fen_len = number(d, &mut m.fen_len)?;
    if fen_len > MAX_FEN {
        return Err(GameProblem::Coded("codes a start longer than a FEN"));
    }
    let mut fen = Vec::with_capacity(fen_len as usize);
    let mut before = 0usize;
    for _ in 0..fen_len {
        let b = d.tree(&mut m.fen[before * 256..(before + 1) * 256], 8) as u8;
        fen.push(b);
        before = usize::from(b);
    }
    cut(d)?;
    let fen = std::str::from_utf8(&fen).map_err(|_| GameProblem::StartNotText)?;
    let start = parse_fen(fen).map_err(|e| GameProblem::Start(Box::new(e)))?;
    let plies = number(d, &mut m.plies)?;
    if plies > MAX_LOG_PLIES as u64 {
        return Err(GameProblem::Plies {
            plies: plies as usize,
            max: MAX_LOG_PLIES,
        });
    }
    let plies = plies as usize;
    let mut moves = Vec::with_capacity(plies);
    let mut pos = start.clone();
    let (mut last_to, mut last_took) = (None, false);
    for p in 0..plies {
        *ply = Some(p);
        let legal = guessed_moves(&pos, last_to);
        let rank = number(d, &mut m.rank[rank_context(legal.len(), last_took)])?;
        cut(d)?;
        let &mv = legal.get(rank as usize).ok_or(GameProblem::Move {
            index: rank.min(usize::MAX as u64) as usize,
            legal: legal.len(),
        })?;
        moves.push(mv);
        last_to = Some(mv.to());
        last_took = mv.is_capture();
        pos.play_unchecked(mv);
    }
    *ply = None;
    let mut kept_plies = Vec::new();
    let mut pos = start.clone();
    let (mut kept_before, mut last_took) = (false, false);
    for p in 0..=plies {
        let here = d.bit(&mut m.kept[kept_context(kept_before, pos.is_check(), last_took)]);
        if here {
            kept_plies.push(p);
        }
        kept_before = here;
        if let Some(&mv) = moves.get(p) {
            last_took = mv.is_capture();
            pos.play_unchecked(mv);
        }
    }
    cut(d)?;
    let mut kept = Vec::with_capacity(kept_plies.len());
    let mut pos = start.clone();
    let (mut played, mut prev) = (0usize, None::<(usize, i64)>);
    for p in kept_plies {
        while played < p {
            pos.play_unchecked(moves[played]);
            played += 1;
        }
        let (ctx, base) = match prev {
            None => (score_context(None), 0),
            Some((q, s)) => (score_context(Some(p - q)), s),
        };
        let w = base
            .checked_add(unzigzag(number(d, &mut m.score[ctx])?))
            .ok_or(GameProblem::Coded("codes a score beyond 64 bits"))?;
        let score = match pos.turn() {
            Color::White => w,
            Color::Black => w.checked_neg().unwrap_or(i64::MAX),
        };
        let s = i32::try_from(score).map_err(|_| GameProblem::Score(score))?;
        kept.push((p, s));
        prev = Some((p, w));
    }
    cut(d)?;
    Ok(GameLog {
        index,
        result,
        start,
        moves,
        kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::games::MAGIC;

    /// Games played by a simple generator from a few starts, with scores that drift as a
    /// search's do and some positions left out.
    fn games(n: u64) -> Vec<GameLog> {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/1P4p1/8/3pP3/8/8/6p1/R3K2R w KQkq d6 0 30",
            "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R b KQkq - 1 5",
        ];
        let mut state = 99u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        (0..n)
            .map(|i| {
                let start = parse_fen(starts[i as usize % starts.len()]).unwrap();
                let mut pos = start.clone();
                let (mut moves, mut kept) = (Vec::new(), Vec::new());
                let mut score = 0i32;
                for ply in 0..(next() % 120) as usize {
                    if pos.is_game_over() {
                        break;
                    }
                    if next() % 3 != 0 {
                        score = -score + (next() % 61) as i32 - 30;
                        kept.push((ply, score));
                    }
                    let legal = pos.legal_moves();
                    let mv = legal[next() as usize % legal.len()];
                    moves.push(mv);
                    pos.play_unchecked(mv);
                }
                if next() % 2 == 0 {
                    kept.push((moves.len(), 31_999 * if next() % 2 == 0 { 1 } else { -1 }));
                }
                GameLog {
                    index: 1000 + i + (i / 7),
                    result: (next() % 4) as u8,
                    start,
                    moves,
                    kept,
                }
            })
            .collect()
    }

    #[test]
    fn a_packed_log_gives_back_every_game_and_is_smaller() {
        let gs = games(200);
        let packed = write_packed(&gs).unwrap();
        assert_eq!(read_packed(&packed).unwrap(), gs);
        // The readers of data sets read both kinds.
        assert_eq!(read_any(&packed).unwrap(), gs);
        let mut plain = MAGIC.to_vec();
        for g in &gs {
            g.encode(&mut plain).unwrap();
        }
        // Random moves and scores are the coder's worst case: no move is likelier than another.
        // Real games pack far smaller (tests/nnue.rs).
        assert!(
            packed.len() < plain.len(),
            "{} bytes packed, {} plain",
            packed.len(),
            plain.len()
        );
        assert_eq!(read_packed(&write_packed(&[]).unwrap()).unwrap(), vec![]);
    }

    #[test]
    fn a_damaged_packed_log_is_an_error_not_a_panic() {
        let gs = games(8);
        let packed = write_packed(&gs).unwrap();
        assert!(read_packed(&packed[1..]).is_err(), "no magic");
        for cut in MAGIC_PACKED.len()..packed.len() {
            assert!(read_packed(&packed[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = packed.clone();
        longer.push(0);
        let e = read_packed(&longer).unwrap_err().to_string();
        assert!(e.contains("runs on after its games"), "{e}");
        // Every single-byte change reads as an error or as some games, never a panic.
        for i in MAGIC_PACKED.len()..packed.len() {
            for v in [0u8, 0x55, 0xff] {
                let mut b = packed.clone();
                b[i] ^= v;
                let _ = read_packed(&b);
            }
        }
        // A game that does not replay is not packed.
        let mut bad = gs.iter().find(|g| g.moves.len() > 1).unwrap().clone();
        bad.moves.swap(0, 1);
        assert!(write_packed(&[bad]).is_err());
    }

    #[test]
    fn the_guess_puts_a_recapture_first_and_keeps_every_move_once() {
        // After 1. e4 d5 2. exd5, Qxd5 takes back on the square the last move went to.
        let mut pos = Chess::default();
        let mut last = None;
        for t in ["e2e4", "d7d5", "e4d5"] {
            let m = crate::core::game::parse_move(&pos, t).unwrap();
            last = Some(m.to());
            pos.play_unchecked(m);
        }
        let moves = guessed_moves(&pos, last);
        assert_eq!(
            moves[0]
                .to_uci(shakmaty::CastlingMode::Standard)
                .to_string(),
            "d8d5"
        );
        let mut all: Vec<u32> = moves.iter().map(|&m| move_key(m)).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), pos.legal_moves().len());
    }
}
