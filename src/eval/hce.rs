//! The strong engine's evaluation: tapered between middlegame and endgame by material phase.
//!
//! Material and piece-square tables (PeSTO's, see `pesto.rs`) are kept incrementally by the search's
//! position wrapper; everything else is computed here: mobility, pawn structure (cached in a pawn
//! hash table), passed pawns, king safety, bishop pair, rooks and queens on open files, threats,
//! tempo, and scaling of drawish endgames. Every term is a named (middlegame, endgame) pair in
//! `TERMS`, so a tuner can read and write them in one place. Scores are centipawns.

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Color, File, Piece, Role, Square};

use super::{pesto, tuned};

pub use super::terms::{S, Terms};

/// Phase weights: knight 1, bishop 1, rook 2, queen 4; 24 is the full middlegame.
pub const PHASE_MAX: i32 = 24;
pub const fn phase_weight(role: Role) -> i32 {
    match role {
        Role::Knight | Role::Bishop => 1,
        Role::Rook => 2,
        Role::Queen => 4,
        Role::Pawn | Role::King => 0,
    }
}

/// The values in force: `tuned.rs`, written by `rookery tune` (docs/training.md, "4. Tuning the
/// hand-crafted evaluation").
pub use super::tuned::TERMS;

/// Material plus piece-square value of a piece on a square, White's point of view.
pub fn psq(piece: Piece, sq: Square) -> S {
    let r = piece.role as usize - 1;
    match piece.color {
        Color::White => {
            let i = sq as usize ^ 56;
            S(
                pesto::MG_VALUE[r] + tuned::MG_TABLE[r][i],
                pesto::EG_VALUE[r] + tuned::EG_TABLE[r][i],
            )
        }
        Color::Black => {
            let i = sq as usize;
            -S(
                pesto::MG_VALUE[r] + tuned::MG_TABLE[r][i],
                pesto::EG_VALUE[r] + tuned::EG_TABLE[r][i],
            )
        }
    }
}

/// The incremental part computed from scratch: (material + tables, phase).
pub fn psq_full(board: &Board) -> (S, i32) {
    let mut s = S::default();
    let mut phase = 0;
    for (sq, piece) in board.iter() {
        s += psq(piece, sq);
        phase += phase_weight(piece.role);
    }
    (s, phase)
}

/// The tunable parameters, each a (middlegame, endgame) pair, by index: the terms of `Terms`,
/// then the piece-square tables (`PSQ + role * 64 + square`, the square as a white piece reads
/// it). A trace records each parameter's count (White's minus Black's) in a position.
pub mod param {
    pub const MOBILITY: usize = 0;
    pub const PASSED: usize = 4;
    pub const PASSED_FREE: usize = 12;
    pub const PASSED_KING_DISTANCE: usize = 20;
    pub const ISOLATED: usize = 28;
    pub const DOUBLED: usize = 29;
    pub const BACKWARD: usize = 30;
    pub const CONNECTED: usize = 31;
    pub const KING_DANGER: usize = 39;
    pub const SHIELD_NEAR: usize = 40;
    pub const SHIELD_FAR: usize = 41;
    pub const SHIELD_MISSING: usize = 42;
    pub const STORM: usize = 43;
    pub const BISHOP_PAIR: usize = 44;
    pub const ROOK_OPEN: usize = 45;
    pub const ROOK_HALF_OPEN: usize = 46;
    pub const QUEEN_OPEN: usize = 47;
    pub const QUEEN_HALF_OPEN: usize = 48;
    pub const THREAT_BY_PAWN: usize = 49;
    pub const THREAT_BY_MINOR: usize = 50;
    pub const THREAT_BY_ROOK: usize = 51;
    pub const HANGING: usize = 52;
    pub const TEMPO: usize = 53;
    pub const PSQ: usize = 54;
    /// Every parameter.
    pub const COUNT: usize = PSQ + 6 * 64;
}

/// Receives each evaluation part (White's point of view), for the UCI `eval` command, and, for
/// tuning, each parameter's count: the evaluation is the sum of the counts times the parameters
/// plus the fixed and non-linear parts, tapered (`Coefficients::rebuild`).
pub trait EvalTrace {
    /// True for traces that record counts: the pawn-structure cache is bypassed for them.
    const COUNTS: bool = false;
    fn add(&mut self, _name: &'static str, _white: S) {}
    /// Parameter `param` counted `n` more times for White (negative: for Black).
    fn count(&mut self, _param: usize, _n: i32) {}
    /// A part no parameter scales (material values), White's view.
    fn fixed(&mut self, _white: S) {}
    /// A non-linear part of parameter `param`: its exact value (White's view) and its derivative
    /// by the parameter's middlegame and endgame values (a linearisation, for the tuner).
    fn nonlinear(&mut self, _param: usize, _white: S, _derivative: (f64, f64)) {}
    /// The taper: phase (0 endgame ... 24 middlegame) and the endgame scale in 64ths.
    fn taper(&mut self, _phase: i32, _scale: i32) {}
}

/// The trace that keeps nothing.
pub struct NoEvalTrace;
impl EvalTrace for NoEvalTrace {}

/// A list of named parts.
#[derive(Default, Debug)]
pub struct Parts(pub Vec<(&'static str, S)>);
impl EvalTrace for Parts {
    fn add(&mut self, name: &'static str, white: S) {
        if let Some(p) = self.0.iter_mut().find(|(n, _)| *n == name) {
            p.1 += white;
        } else {
            self.0.push((name, white));
        }
    }
}

/// Pawn structure of both sides, cached by pawn placement.
#[derive(Clone, Copy, Default)]
struct PawnEntry {
    key: u64,
    /// White's point of view.
    score: S,
    passed: [Bitboard; 2],
}

/// A small per-thread cache of pawn-structure evaluations.
pub struct PawnTable {
    entries: Vec<PawnEntry>,
}

impl Default for PawnTable {
    fn default() -> Self {
        PawnTable::new(1 << 14)
    }
}

impl PawnTable {
    pub fn new(entries: usize) -> PawnTable {
        PawnTable {
            entries: vec![PawnEntry::default(); entries.next_power_of_two()],
        }
    }
}

fn pawn_key(white: Bitboard, black: Bitboard) -> u64 {
    // A strong mix of the two pawn sets; 0 is reserved for empty slots.
    let mut h = u64::from(white)
        ^ u64::from(black)
            .rotate_left(23)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h | 1
}

fn ci(c: Color) -> usize {
    if c == Color::White { 0 } else { 1 }
}

/// Rank of `sq` seen from `color`'s side (0 = own back rank).
fn rel_rank(color: Color, sq: Square) -> usize {
    let r = usize::from(sq.rank());
    if color == Color::White { r } else { 7 - r }
}

fn adjacent_files(f: File) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    if let Some(l) = f.offset(-1) {
        bb |= Bitboard::from_file(l);
    }
    if let Some(r) = f.offset(1) {
        bb |= Bitboard::from_file(r);
    }
    bb
}

/// Every square on the ranks strictly ahead of `sq`, seen from `color`'s side.
fn ranks_ahead(color: Color, sq: Square) -> Bitboard {
    let r = u32::from(sq.rank());
    Bitboard(if color == Color::White {
        (!0u64).checked_shl(8 * (r + 1)).unwrap_or(0)
    } else {
        (1u64 << (8 * r)) - 1
    })
}

/// Squares strictly in front of `sq` (from `color`'s side) on the same file.
fn front_span(color: Color, sq: Square) -> Bitboard {
    ranks_ahead(color, sq) & Bitboard::from_file(sq.file())
}

/// Squares in front of `sq` on its file and the adjacent ones: where enemy pawns stop a passer.
fn passed_span(color: Color, sq: Square) -> Bitboard {
    ranks_ahead(color, sq) & (Bitboard::from_file(sq.file()) | adjacent_files(sq.file()))
}

fn pawn_structure<T: EvalTrace>(board: &Board, t: &Terms, trace: &mut T) -> PawnEntry {
    let mut e = PawnEntry::default();
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let ours = board.pawns() & board.by_color(color);
        let theirs = board.pawns() & board.by_color(!color);
        let mut s = S::default();
        for sq in ours {
            let rank = rel_rank(color, sq);
            let adj = adjacent_files(sq.file());
            let front = front_span(color, sq);
            if (ours & adj).is_empty() {
                s += t.isolated;
                trace.count(param::ISOLATED, sign);
            }
            if (ours & front).any() {
                s += t.doubled;
                trace.count(param::DOUBLED, sign);
            }
            let supporters = pawn_attacks(!color, sq) & ours;
            let phalanx = ours & adj & Bitboard::from_rank(sq.rank());
            if supporters.any() || phalanx.any() {
                s += t.connected[rank];
                trace.count(param::CONNECTED + rank, sign);
            } else if (ours & adj).any() {
                // Backward: every neighbour is ahead, and the square in front is hit by a pawn.
                let behind_or_level = adj & !passed_span(color, sq) & !front;
                let stop = if color == Color::White {
                    sq.offset(8)
                } else {
                    sq.offset(-8)
                };
                if (ours & behind_or_level).is_empty()
                    && stop.is_some_and(|st| (pawn_attacks(color, st) & theirs).any())
                {
                    s += t.backward;
                    trace.count(param::BACKWARD, sign);
                }
            }
            if (theirs & passed_span(color, sq)).is_empty() && (ours & front).is_empty() {
                e.passed[ci(color)].add(sq);
                s += t.passed[rank];
                trace.count(param::PASSED + rank, sign);
            }
        }
        e.score += if color == Color::White { s } else { -s };
    }
    e
}

/// All the squares attacked by one side's pieces of each kind, and everything together.
#[derive(Clone, Copy, Default)]
struct Attacks {
    pawns: Bitboard,
    minors: Bitboard,
    rooks: Bitboard,
    all: Bitboard,
}

/// What the evaluation computes once and each concern reads: the occupancy, each side's attacks
/// (pawns' and king's first, the pieces' added by `pieces`), and each side's attack on the enemy
/// king (units and attackers, from `pieces`).
struct Info {
    occupied: Bitboard,
    /// Each side's king (boards without one are evaluated too, in tests and tools).
    kings: [Option<Square>; 2],
    attacks: [Attacks; 2],
    king_units: [i32; 2],
    king_attackers: [i32; 2],
}

impl Info {
    fn new(board: &Board) -> Info {
        let mut attacks = [Attacks::default(); 2];
        let mut kings = [None; 2];
        for color in [Color::White, Color::Black] {
            let a = &mut attacks[ci(color)];
            a.pawns = pawn_attacks_of(color, board.pawns() & board.by_color(color));
            a.all = a.pawns;
            kings[ci(color)] = (board.kings() & board.by_color(color)).first();
            if let Some(k) = kings[ci(color)] {
                a.all |= king_attacks(k);
            }
        }
        Info {
            occupied: board.occupied(),
            kings,
            attacks,
            king_units: [0; 2],
            king_attackers: [0; 2],
        }
    }
}

/// Every square a set of `color`'s pawns attacks (shifts of the whole set at once).
fn pawn_attacks_of(color: Color, pawns: Bitboard) -> Bitboard {
    const NOT_A: u64 = !0x0101_0101_0101_0101;
    const NOT_H: u64 = !0x8080_8080_8080_8080;
    let p = u64::from(pawns);
    Bitboard(if color == Color::White {
        ((p & NOT_A) << 7) | ((p & NOT_H) << 9)
    } else {
        ((p & NOT_A) >> 9) | ((p & NOT_H) >> 7)
    })
}

/// The files (bit n for file n) a set of squares touches.
fn files_of(bb: Bitboard) -> u32 {
    let mut x = u64::from(bb);
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    (x & 0xff) as u32
}

fn sign_of(color: Color) -> i32 {
    if color == Color::White { 1 } else { -1 }
}

/// Scales the endgame score of drawish material down (in 1/64ths).
fn endgame_scale(board: &Board, eg: i32, t: &Terms) -> i32 {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let weak = !strong;
    let count = |c: Color, bb: Bitboard| (bb & board.by_color(c)).count() as i32;
    let minors_majors = |c: Color| {
        count(c, board.knights()) * 3
            + count(c, board.bishops()) * 3
            + count(c, board.rooks()) * 5
            + count(c, board.queens()) * 9
    };
    // No pawns and at most a minor piece more: hard to win.
    if (board.pawns() & board.by_color(strong)).is_empty()
        && minors_majors(strong) - minors_majors(weak) <= 3
    {
        return if minors_majors(strong) <= 3 {
            t.scale_bare_minor
        } else {
            t.scale_minor_ahead
        };
    }
    // Opposite-coloured bishops and nothing else but pawns.
    let wb = board.bishops() & board.white();
    let bb = board.bishops() & board.black();
    let others = board.knights() | board.rooks() | board.queens();
    let single = |b: Bitboard| b.any() && !b.more_than_one();
    if others.is_empty() && single(wb) && single(bb) {
        let light = |b: Bitboard| b.first().is_some_and(|s| s.is_light());
        if light(wb) != light(bb) {
            return t.scale_opposite_bishops;
        }
    }
    64
}

/// Pawn structure, from the cache when the pawns stand as before (not when counting).
fn pawns<T: EvalTrace>(
    board: &Board,
    t: &Terms,
    table: &mut PawnTable,
    trace: &mut T,
) -> PawnEntry {
    let key = pawn_key(board.pawns() & board.white(), board.pawns() & board.black());
    let slot = key as usize & (table.entries.len() - 1);
    let entry = if T::COUNTS {
        pawn_structure(board, t, trace)
    } else if table.entries[slot].key == key {
        table.entries[slot]
    } else {
        let mut e = pawn_structure(board, t, &mut NoEvalTrace);
        e.key = key;
        table.entries[slot] = e;
        e
    };
    trace.add("pawn structure", entry.score);
    entry
}

/// Knights, bishops, rooks and queens of `color`: mobility (safe squares), rooks and queens on
/// open files, the attack on the enemy king (kept in `info` for `king_safety`), the bishop pair.
/// Adds each piece's attacks to `info`.
fn pieces<T: EvalTrace>(
    board: &Board,
    color: Color,
    t: &Terms,
    info: &mut Info,
    trace: &mut T,
) -> S {
    let sign = sign_of(color);
    let us = board.by_color(color);
    let their_pawn_attacks = info.attacks[ci(!color)].pawns;
    let king_zone = info.kings[ci(!color)].map_or(Bitboard::EMPTY, |k| {
        king_attacks(k) | Bitboard::from_square(k)
    });
    let our_pawns = board.pawns() & us;
    let ctx = PieceCtx {
        color,
        sign,
        us,
        not_safe: us | their_pawn_attacks,
        king_zone,
        our_pawns,
        pawns: board.pawns(),
    };
    let (mut mobility, mut files) = (S::default(), S::default());
    // One pass per kind of piece, each compiled for its kind (no dispatch per piece).
    piece_kind::<0, T>(board, &ctx, t, info, &mut mobility, &mut files, trace);
    piece_kind::<1, T>(board, &ctx, t, info, &mut mobility, &mut files, trace);
    piece_kind::<2, T>(board, &ctx, t, info, &mut mobility, &mut files, trace);
    piece_kind::<3, T>(board, &ctx, t, info, &mut mobility, &mut files, trace);
    trace.add("mobility", mobility * sign);
    trace.add("open files", files * sign);
    let mut score = (mobility + files) * sign;
    if (board.bishops() & us).more_than_one() {
        trace.count(param::BISHOP_PAIR, sign);
        trace.add("bishop pair", t.bishop_pair * sign);
        score += t.bishop_pair * sign;
    }
    score
}

/// What `pieces` works out once for all of one side's pieces.
struct PieceCtx {
    color: Color,
    sign: i32,
    us: Bitboard,
    /// Squares that do not count for mobility: our own pieces, and where enemy pawns attack.
    not_safe: Bitboard,
    king_zone: Bitboard,
    our_pawns: Bitboard,
    pawns: Bitboard,
}

/// The pieces of one kind (`I`: 0 knights, 1 bishops, 2 rooks, 3 queens) for `pieces`.
#[inline(always)]
fn piece_kind<const I: usize, T: EvalTrace>(
    board: &Board,
    ctx: &PieceCtx,
    t: &Terms,
    info: &mut Info,
    mobility: &mut S,
    files: &mut S,
    trace: &mut T,
) {
    let role = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen][I];
    let c = ci(ctx.color);
    for sq in board.by_role(role) & ctx.us {
        let att = match I {
            0 => knight_attacks(sq),
            1 => bishop_attacks(sq, info.occupied),
            2 => rook_attacks(sq, info.occupied),
            _ => bishop_attacks(sq, info.occupied) | rook_attacks(sq, info.occupied),
        };
        let a = &mut info.attacks[c];
        a.all |= att;
        match I {
            0 | 1 => a.minors |= att,
            2 => a.rooks |= att,
            _ => {}
        }
        let safe = (att & !ctx.not_safe).count() as i32;
        *mobility += t.mobility[I] * (safe - t.mobility_base[I]);
        trace.count(param::MOBILITY + I, ctx.sign * (safe - t.mobility_base[I]));
        let zone_hits = (att & ctx.king_zone).count() as i32;
        if zone_hits > 0 {
            info.king_attackers[c] += 1;
            info.king_units[c] += t.king_attack_weight[I] * zone_hits;
        }
        if I >= 2 {
            let file = Bitboard::from_file(sq.file());
            let (open, half, open_param) = if I == 2 {
                (t.rook_open, t.rook_half_open, param::ROOK_OPEN)
            } else {
                (t.queen_open, t.queen_half_open, param::QUEEN_OPEN)
            };
            if (file & ctx.pawns).is_empty() {
                *files += open;
                trace.count(open_param, ctx.sign);
            } else if (file & ctx.our_pawns).is_empty() {
                *files += half;
                trace.count(open_param + 1, ctx.sign);
            }
        }
    }
}

/// `color`'s attack on the enemy king: counted only when two pieces join in, growing with the
/// square of the attack units, capped (not linear: traced with its derivative).
fn king_attack<T: EvalTrace>(color: Color, t: &Terms, info: &Info, trace: &mut T) -> S {
    let sign = sign_of(color);
    let units = info.king_units[ci(color)];
    if info.king_attackers[ci(color)] < 2 {
        return S::default();
    }
    let danger = S(
        units * units * t.king_danger.0 / 64,
        units * units * t.king_danger.1 / 64,
    );
    let capped = S(
        danger.0.min(t.king_danger_cap.0),
        danger.1.min(t.king_danger_cap.1),
    );
    let slope = f64::from(units * units) / 64.0 * f64::from(sign);
    trace.nonlinear(
        param::KING_DANGER,
        capped * sign,
        (
            if capped.0 < t.king_danger_cap.0 {
                slope
            } else {
                0.0
            },
            if capped.1 < t.king_danger_cap.1 {
                slope
            } else {
                0.0
            },
        ),
    );
    trace.add("king safety", capped * sign);
    capped * sign
}

/// The pawn shield in front of `color`'s king on its first two ranks, and enemy pawns storming it.
fn king_shelter<T: EvalTrace>(
    board: &Board,
    color: Color,
    t: &Terms,
    info: &Info,
    trace: &mut T,
) -> S {
    let sign = sign_of(color);
    let Some(k) = info.kings[ci(color)] else {
        return S::default();
    };
    if rel_rank(color, k) > 1 {
        return S::default();
    }
    // The king's file and its neighbours, and the ranks 1, 2 and 3 ahead of the king.
    let files = Bitboard::from_file(k.file()) | adjacent_files(k.file());
    let ours = board.pawns() & board.by_color(color) & files;
    let theirs = board.pawns() & board.by_color(!color) & files;
    let rank_ahead = |n: i32| {
        let r = if color == Color::White {
            k.rank().offset(n)
        } else {
            k.rank().offset(-n)
        };
        r.map_or(Bitboard::EMPTY, Bitboard::from_rank)
    };
    let (r1, r2, r3) = (rank_ahead(1), rank_ahead(2), rank_ahead(3));
    // Per file: a pawn one rank ahead (near), else two ranks ahead (far), else none (missing);
    // an enemy pawn two or three ranks ahead storms.
    let near = files_of(ours & r1);
    let far = files_of(ours & r2) & !near;
    let near_n = near.count_ones() as i32;
    let far_n = far.count_ones() as i32;
    let file_n = if matches!(k.file(), File::A | File::H) {
        2
    } else {
        3
    };
    let missing_n = file_n - near_n - far_n;
    let storm_n = files_of(theirs & (r2 | r3)).count_ones() as i32;
    let s = t.shield_near * near_n
        + t.shield_far * far_n
        + t.shield_missing * missing_n
        + t.storm * storm_n;
    trace.count(param::SHIELD_NEAR, sign * near_n);
    trace.count(param::SHIELD_FAR, sign * far_n);
    trace.count(param::SHIELD_MISSING, sign * missing_n);
    trace.count(param::STORM, sign * storm_n);
    trace.add("king shelter", s * sign);
    s * sign
}

/// `color`'s threats: pawns attacking pieces, minors attacking rooks and queens, rooks attacking
/// queens, and enemy pieces attacked and not defended.
fn threats<T: EvalTrace>(board: &Board, color: Color, t: &Terms, info: &Info, trace: &mut T) -> S {
    let sign = sign_of(color);
    let a = &info.attacks[ci(color)];
    let defended = info.attacks[ci(!color)].all;
    let them = board.by_color(!color);
    let pieces = them & !board.pawns() & !board.kings();
    let majors = them & (board.rooks() | board.queens());
    // Mostly empty sets: skip their (software, in the portable build) popcounts.
    let count = |b: Bitboard| if b.any() { b.count() as i32 } else { 0 };
    let counts = [
        count(a.pawns & pieces),
        count(a.minors & majors),
        count(a.rooks & them & board.queens()),
        count(a.all & pieces & !defended),
    ];
    let mut s = t.threat_by_pawn * counts[0];
    s += t.threat_by_minor * counts[1];
    s += t.threat_by_rook * counts[2];
    s += t.hanging * counts[3];
    for (k, &n) in counts.iter().enumerate() {
        trace.count(param::THREAT_BY_PAWN + k, sign * n);
    }
    trace.add("threats", s * sign);
    s * sign
}

/// `color`'s passed pawns beyond their cached rank bonus: a free path, and the kings' distances to
/// the square in front (these depend on the pieces, so they are not cached).
fn passed<T: EvalTrace>(
    color: Color,
    entry: &PawnEntry,
    t: &Terms,
    info: &Info,
    trace: &mut T,
) -> S {
    let sign = sign_of(color);
    let mut s = S::default();
    for sq in entry.passed[ci(color)] {
        let rank = rel_rank(color, sq);
        if (front_span(color, sq) & info.occupied).is_empty() {
            s += t.passed_free[rank];
            trace.count(param::PASSED_FREE + rank, sign);
        }
        let stop = if color == Color::White {
            sq.offset(8)
        } else {
            sq.offset(-8)
        };
        if let (Some(stop), Some(ok), Some(tk)) =
            (stop, info.kings[ci(color)], info.kings[ci(!color)])
        {
            let d = tk.distance(stop) as i32 - ok.distance(stop) as i32;
            s += t.passed_king_distance[rank] * d;
            trace.count(param::PASSED_KING_DISTANCE + rank, sign * d);
        }
    }
    trace.add("passed pawns", s * sign);
    s * sign
}

/// The static evaluation for the side to move. `psq` and `phase` are the incremental material and
/// table score (White's point of view) and phase of `board`. Each concern is a function of its
/// own; `info` carries what they share.
pub fn evaluate<T: EvalTrace>(
    board: &Board,
    turn: Color,
    psq: S,
    phase: i32,
    pawn_table: &mut PawnTable,
    trace: &mut T,
) -> i32 {
    let t = &TERMS;
    trace.add("material and tables", psq);
    if T::COUNTS {
        for (sq, piece) in board.iter() {
            let r = piece.role as usize - 1;
            let (i, sign) = match piece.color {
                Color::White => (sq as usize ^ 56, 1),
                Color::Black => (sq as usize, -1),
            };
            trace.count(param::PSQ + r * 64 + i, sign);
            trace.fixed(S(pesto::MG_VALUE[r], pesto::EG_VALUE[r]) * sign);
        }
    }
    let mut score = psq;
    let entry = pawns(board, t, pawn_table, trace);
    score += entry.score;

    let mut info = Info::new(board);
    for color in [Color::White, Color::Black] {
        score += pieces(board, color, t, &mut info, trace);
    }
    for color in [Color::White, Color::Black] {
        score += king_attack(color, t, &info, trace);
        score += king_shelter(board, color, t, &info, trace);
    }
    for color in [Color::White, Color::Black] {
        score += threats(board, color, t, &info, trace);
    }
    for color in [Color::White, Color::Black] {
        score += passed(color, &entry, t, &info, trace);
    }

    let tempo = if turn == Color::White {
        t.tempo
    } else {
        -t.tempo
    };
    trace.add("tempo", tempo);
    trace.count(param::TEMPO, if turn == Color::White { 1 } else { -1 });
    score += tempo;

    let phase = phase.clamp(0, PHASE_MAX);
    let scale = endgame_scale(board, score.1, t);
    trace.taper(phase, scale);
    let eg = score.1 * scale / 64;
    let white = (score.0 * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    if turn == Color::White { white } else { -white }
}

/// Evaluates a board from scratch (no incremental state): for tests and the `eval` command.
pub fn evaluate_board<T: EvalTrace>(board: &Board, turn: Color, trace: &mut T) -> i32 {
    let (psq, phase) = psq_full(board);
    evaluate(board, turn, psq, phase, &mut PawnTable::new(16), trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The squares ahead on `file`, walked one rank at a time: the obvious definition.
    fn walk_ahead(color: Color, sq: Square, file: File) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        let mut rank = sq.rank();
        while let Some(next) = rank.offset(if color == Color::White { 1 } else { -1 }) {
            bb.add(Square::from_coords(file, next));
            rank = next;
        }
        bb
    }

    #[test]
    fn pawn_attacks_of_a_set_are_the_union_of_each_pawns_attacks() {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..2000 {
            // xorshift: pawn sets of every density, edge files included.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let set = Bitboard(x & x.rotate_left(21));
            for color in [Color::White, Color::Black] {
                let mut union = Bitboard::EMPTY;
                for sq in set {
                    union |= pawn_attacks(color, sq);
                }
                assert_eq!(pawn_attacks_of(color, set), union, "{color:?} {set:?}");
            }
        }
    }

    /// The shelter by its definition, file by file: (near, far, missing, storm) counts.
    fn shelter_counts_by_walk(board: &Board, color: Color) -> Option<[i32; 4]> {
        let k = board.king_of(color)?;
        if rel_rank(color, k) > 1 {
            return None;
        }
        let dir = if color == Color::White { 1 } else { -1 };
        let pawn_at = |c: Color, f: File, n: i32| {
            k.rank().offset(dir * n).is_some_and(|r| {
                board.piece_at(Square::from_coords(f, r))
                    == Some(Piece {
                        color: c,
                        role: Role::Pawn,
                    })
            })
        };
        let mut counts = [0; 4];
        for f in [k.file().offset(-1), Some(k.file()), k.file().offset(1)]
            .into_iter()
            .flatten()
        {
            if pawn_at(color, f, 1) {
                counts[0] += 1;
            } else if pawn_at(color, f, 2) {
                counts[1] += 1;
            } else {
                counts[2] += 1;
            }
            if pawn_at(!color, f, 2) || pawn_at(!color, f, 3) {
                counts[3] += 1;
            }
        }
        Some(counts)
    }

    #[test]
    fn the_king_shelter_matches_a_file_by_file_walk() {
        let text = [
            include_str!("../../tests/data/standard.epd"),
            include_str!("../../tests/data/cpw.epd"),
        ]
        .concat();
        let t = &TERMS;
        let mut sheltered = 0;
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let fen = line.split(';').next().unwrap().trim();
            let Ok(pos) = crate::core::game::parse_fen(fen) else {
                continue;
            };
            let board = shakmaty::Position::board(&pos);
            let info = Info::new(board);
            for color in [Color::White, Color::Black] {
                let got = king_shelter(board, color, t, &info, &mut NoEvalTrace);
                let want = match shelter_counts_by_walk(board, color) {
                    None => S::default(),
                    Some([near, far, missing, storm]) => {
                        sheltered += 1;
                        (t.shield_near * near
                            + t.shield_far * far
                            + t.shield_missing * missing
                            + t.storm * storm)
                            * sign_of(color)
                    }
                };
                assert_eq!(got, want, "{fen} {color:?}");
            }
        }
        assert!(sheltered > 100, "{sheltered}");
    }

    #[test]
    fn the_spans_match_a_walk_up_the_board_on_every_square() {
        for color in [Color::White, Color::Black] {
            for sq in Square::ALL {
                let front = walk_ahead(color, sq, sq.file());
                assert_eq!(front_span(color, sq), front, "{color:?} {sq}");
                let mut passed = front;
                for f in [sq.file().offset(-1), sq.file().offset(1)]
                    .into_iter()
                    .flatten()
                {
                    passed |= walk_ahead(color, sq, f);
                }
                assert_eq!(passed_span(color, sq), passed, "{color:?} {sq}");
            }
        }
        // Edges: nothing is ahead of the last rank, the whole file is ahead of the first.
        assert!(front_span(Color::White, Square::E8).is_empty());
        assert!(front_span(Color::Black, Square::E1).is_empty());
        assert_eq!(front_span(Color::White, Square::A1).count(), 7);
        assert_eq!(passed_span(Color::Black, Square::H8).count(), 14);
    }
}
