//! The strong engine's evaluation: tapered between middlegame and endgame by material phase.
//!
//! Material and piece-square tables (PeSTO's, see `pesto.rs`) are kept incrementally by the search's
//! position wrapper; everything else is computed here: mobility, pawn structure (cached in a pawn
//! hash table), passed pawns, king safety, bishop pair, rooks and queens on open files, threats,
//! tempo, and scaling of drawish endgames. Every term is a named (middlegame, endgame) pair in
//! `TERMS`, so a tuner can read and write them in one place. Scores are centipawns.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Color, File, Piece, Role, Square};

use super::pesto;

/// A (middlegame, endgame) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl Add for S {
    type Output = S;
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}
impl AddAssign for S {
    fn add_assign(&mut self, o: S) {
        *self = *self + o;
    }
}
impl Sub for S {
    type Output = S;
    fn sub(self, o: S) -> S {
        S(self.0 - o.0, self.1 - o.1)
    }
}
impl SubAssign for S {
    fn sub_assign(&mut self, o: S) {
        *self = *self - o;
    }
}
impl Neg for S {
    type Output = S;
    fn neg(self) -> S {
        S(-self.0, -self.1)
    }
}
impl Mul<i32> for S {
    type Output = S;
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

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

/// Every evaluation term besides material and piece-square tables. Values are a hand-set
/// starting point in the usual ranges of classical engines, waiting for a tuner.
#[derive(Clone, Debug)]
pub struct Terms {
    /// Per safe square a piece attacks beyond `mobility_base` (knight, bishop, rook, queen).
    pub mobility: [S; 4],
    pub mobility_base: [i32; 4],
    /// Passed pawn by its rank from its own side (index 1 = second rank ... 6 = seventh).
    pub passed: [S; 8],
    /// Extra for a passed pawn whose path to promotion is empty, by rank.
    pub passed_free: [S; 8],
    /// Endgame, per square of (their king's distance - our king's distance) to the stop square, by rank.
    pub passed_king_distance: [i32; 8],
    pub isolated: S,
    pub doubled: S,
    pub backward: S,
    /// A pawn defended by a pawn or beside one, by rank.
    pub connected: [S; 8],
    /// King attack units per attacking piece (knight, bishop, rook, queen).
    pub king_attack_weight: [i32; 4],
    /// King danger = units^2 * this / 64 (subtracted).
    pub king_danger: S,
    /// Own pawn in front of the king, one and two ranks ahead; missing shield pawn.
    pub shield_near: S,
    pub shield_far: S,
    pub shield_missing: S,
    /// Enemy pawn advanced to within two ranks of the king's shield, per pawn.
    pub storm: S,
    pub bishop_pair: S,
    pub rook_open: S,
    pub rook_half_open: S,
    pub queen_open: S,
    pub queen_half_open: S,
    /// A pawn attacks a piece; a minor attacks a rook or queen; a rook attacks a queen.
    pub threat_by_pawn: S,
    pub threat_by_minor: S,
    pub threat_by_rook: S,
    /// An enemy piece attacked and not defended.
    pub hanging: S,
    pub tempo: S,
}

pub const TERMS: Terms = Terms {
    mobility: [S(4, 4), S(5, 5), S(2, 4), S(1, 2)],
    mobility_base: [4, 6, 7, 13],
    passed: [
        S(0, 0),
        S(0, 5),
        S(2, 10),
        S(8, 20),
        S(20, 40),
        S(40, 75),
        S(70, 120),
        S(0, 0),
    ],
    passed_free: [
        S(0, 0),
        S(0, 2),
        S(0, 4),
        S(2, 8),
        S(5, 16),
        S(10, 30),
        S(15, 50),
        S(0, 0),
    ],
    passed_king_distance: [0, 0, 1, 2, 4, 6, 8, 0],
    isolated: S(-8, -12),
    doubled: S(-8, -18),
    backward: S(-6, -8),
    connected: [
        S(0, 0),
        S(2, 0),
        S(4, 2),
        S(6, 4),
        S(10, 8),
        S(18, 16),
        S(30, 30),
        S(0, 0),
    ],
    king_attack_weight: [2, 2, 3, 5],
    king_danger: S(12, 2),
    shield_near: S(12, 0),
    shield_far: S(6, 0),
    shield_missing: S(-14, 0),
    storm: S(-8, 0),
    bishop_pair: S(25, 50),
    rook_open: S(30, 10),
    rook_half_open: S(14, 6),
    queen_open: S(4, 4),
    queen_half_open: S(2, 4),
    threat_by_pawn: S(50, 35),
    threat_by_minor: S(30, 25),
    threat_by_rook: S(35, 20),
    hanging: S(12, 8),
    tempo: S(14, 6),
};

/// Material plus piece-square value of a piece on a square, White's point of view.
pub fn psq(piece: Piece, sq: Square) -> S {
    let r = piece.role as usize - 1;
    match piece.color {
        Color::White => {
            let i = sq as usize ^ 56;
            S(
                pesto::MG_VALUE[r] + pesto::MG_TABLE[r][i],
                pesto::EG_VALUE[r] + pesto::EG_TABLE[r][i],
            )
        }
        Color::Black => {
            let i = sq as usize;
            -S(
                pesto::MG_VALUE[r] + pesto::MG_TABLE[r][i],
                pesto::EG_VALUE[r] + pesto::EG_TABLE[r][i],
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

/// Receives each evaluation part (White's point of view), for the UCI `eval` command.
pub trait EvalTrace {
    fn add(&mut self, _name: &'static str, _white: S) {}
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

/// Squares strictly in front of `sq` (from `color`'s side) on the same file.
fn front_span(color: Color, sq: Square) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    let mut r = sq.rank();
    loop {
        let next = if color == Color::White {
            r.offset(1)
        } else {
            r.offset(-1)
        };
        match next {
            Some(n) => {
                bb.add(Square::from_coords(sq.file(), n));
                r = n;
            }
            None => return bb,
        }
    }
}

/// Squares in front of `sq` on its file and the adjacent ones: where enemy pawns stop a passer.
fn passed_span(color: Color, sq: Square) -> Bitboard {
    let mut bb = front_span(color, sq);
    for f in [sq.file().offset(-1), sq.file().offset(1)]
        .into_iter()
        .flatten()
    {
        bb |= front_span(color, Square::from_coords(f, sq.rank()));
    }
    bb
}

fn pawn_structure(board: &Board, t: &Terms) -> PawnEntry {
    let mut e = PawnEntry::default();
    for color in [Color::White, Color::Black] {
        let ours = board.pawns() & board.by_color(color);
        let theirs = board.pawns() & board.by_color(!color);
        let mut s = S::default();
        for sq in ours {
            let rank = rel_rank(color, sq);
            let adj = adjacent_files(sq.file());
            let front = front_span(color, sq);
            if (ours & adj).is_empty() {
                s += t.isolated;
            }
            if (ours & front).any() {
                s += t.doubled;
            }
            let supporters = pawn_attacks(!color, sq) & ours;
            let phalanx = ours & adj & Bitboard::from_rank(sq.rank());
            if supporters.any() || phalanx.any() {
                s += t.connected[rank];
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
                }
            }
            if (theirs & passed_span(color, sq)).is_empty() && (ours & front).is_empty() {
                e.passed[ci(color)].add(sq);
                s += t.passed[rank];
            }
        }
        e.score += if color == Color::White { s } else { -s };
    }
    e
}

/// All the squares attacked by `color`'s pieces of each kind, and everything together.
struct Attacks {
    pawns: Bitboard,
    minors: Bitboard,
    rooks: Bitboard,
    all: Bitboard,
}

/// Scales the endgame score of drawish material down (in 1/64ths).
fn endgame_scale(board: &Board, eg: i32) -> i32 {
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
    if count(strong, board.pawns()) == 0 && minors_majors(strong) - minors_majors(weak) <= 3 {
        return if minors_majors(strong) <= 3 { 0 } else { 16 };
    }
    // Opposite-coloured bishops and nothing else but pawns.
    let wb = board.bishops() & board.white();
    let bb = board.bishops() & board.black();
    let others = board.knights() | board.rooks() | board.queens();
    if wb.count() == 1 && bb.count() == 1 && others.is_empty() {
        let light = |b: Bitboard| b.first().is_some_and(|s| s.is_light());
        if light(wb) != light(bb) {
            return 32;
        }
    }
    64
}

/// The static evaluation for the side to move. `psq` and `phase` are the incremental material and
/// table score (White's point of view) and phase of `board`.
pub fn evaluate<T: EvalTrace>(
    board: &Board,
    turn: Color,
    psq: S,
    phase: i32,
    pawns: &mut PawnTable,
    trace: &mut T,
) -> i32 {
    let t = &TERMS;
    trace.add("material and tables", psq);
    let mut score = psq;

    // Pawn structure, from the cache when the pawns stand as before.
    let key = pawn_key(board.pawns() & board.white(), board.pawns() & board.black());
    let slot = key as usize & (pawns.entries.len() - 1);
    let entry = if pawns.entries[slot].key == key {
        pawns.entries[slot]
    } else {
        let mut e = pawn_structure(board, t);
        e.key = key;
        pawns.entries[slot] = e;
        e
    };
    trace.add("pawn structure", entry.score);
    score += entry.score;

    let occupied = board.occupied();
    let mut attacks = [
        Attacks {
            pawns: Bitboard::EMPTY,
            minors: Bitboard::EMPTY,
            rooks: Bitboard::EMPTY,
            all: Bitboard::EMPTY,
        },
        Attacks {
            pawns: Bitboard::EMPTY,
            minors: Bitboard::EMPTY,
            rooks: Bitboard::EMPTY,
            all: Bitboard::EMPTY,
        },
    ];
    for color in [Color::White, Color::Black] {
        let ours = board.pawns() & board.by_color(color);
        let a = &mut attacks[ci(color)];
        for sq in ours {
            a.pawns |= pawn_attacks(color, sq);
        }
        a.all = a.pawns;
        if let Some(k) = board.king_of(color) {
            a.all |= king_attacks(k);
        }
    }

    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let us = board.by_color(color);
        let them = board.by_color(!color);
        let their_pawn_attacks = attacks[ci(!color)].pawns;
        let their_king = board.king_of(!color);
        let king_zone = their_king.map_or(Bitboard::EMPTY, |k| {
            king_attacks(k) | Bitboard::from_square(k)
        });
        let mut mobility = S::default();
        let mut files = S::default();
        let mut units = 0;
        let mut attackers = 0;
        let our_pawns = board.pawns() & us;
        let their_pawns = board.pawns() & them;
        for (i, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .enumerate()
        {
            for sq in board.by_role(role) & us {
                let att = match role {
                    Role::Knight => knight_attacks(sq),
                    Role::Bishop => bishop_attacks(sq, occupied),
                    Role::Rook => rook_attacks(sq, occupied),
                    _ => bishop_attacks(sq, occupied) | rook_attacks(sq, occupied),
                };
                let a = &mut attacks[ci(color)];
                a.all |= att;
                match role {
                    Role::Knight | Role::Bishop => a.minors |= att,
                    Role::Rook => a.rooks |= att,
                    _ => {}
                }
                let safe = (att & !us & !their_pawn_attacks).count() as i32;
                mobility += t.mobility[i] * (safe - t.mobility_base[i]);
                let zone_hits = (att & king_zone).count() as i32;
                if zone_hits > 0 {
                    attackers += 1;
                    units += t.king_attack_weight[i] * zone_hits;
                }
                if matches!(role, Role::Rook | Role::Queen) {
                    let file = Bitboard::from_file(sq.file());
                    let (open, half) = if role == Role::Rook {
                        (t.rook_open, t.rook_half_open)
                    } else {
                        (t.queen_open, t.queen_half_open)
                    };
                    if (file & (our_pawns | their_pawns)).is_empty() {
                        files += open;
                    } else if (file & our_pawns).is_empty() {
                        files += half;
                    }
                }
            }
        }
        trace.add("mobility", mobility * sign);
        trace.add("open files", files * sign);
        score += (mobility + files) * sign;

        // Attacks on the enemy king: counted only when two pieces join in.
        if attackers >= 2 {
            let danger = S(
                units * units * t.king_danger.0 / 64,
                units * units * t.king_danger.1 / 64,
            );
            let danger = S(danger.0.min(600), danger.1.min(200));
            trace.add("king safety", danger * sign);
            score += danger * sign;
        }

        if (board.bishops() & us).more_than_one() {
            trace.add("bishop pair", t.bishop_pair * sign);
            score += t.bishop_pair * sign;
        }
    }

    // Pawn shield and storm in front of each king.
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let Some(k) = board.king_of(color) else {
            continue;
        };
        if rel_rank(color, k) > 1 {
            continue;
        }
        let ours = board.pawns() & board.by_color(color);
        let theirs = board.pawns() & board.by_color(!color);
        let mut s = S::default();
        let kf = k.file();
        for f in [kf.offset(-1), Some(kf), kf.offset(1)]
            .into_iter()
            .flatten()
        {
            let file = Bitboard::from_file(f);
            let rank_of = |n: i32| {
                let r = if color == Color::White {
                    k.rank().offset(n)
                } else {
                    k.rank().offset(-n)
                };
                r.map_or(Bitboard::EMPTY, Bitboard::from_rank)
            };
            if (ours & file & rank_of(1)).any() {
                s += t.shield_near;
            } else if (ours & file & rank_of(2)).any() {
                s += t.shield_far;
            } else {
                s += t.shield_missing;
            }
            if (theirs & file & (rank_of(2) | rank_of(3))).any() {
                s += t.storm;
            }
        }
        trace.add("king shelter", s * sign);
        score += s * sign;
    }

    // Threats and hanging pieces.
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let a = &attacks[ci(color)];
        let defended = attacks[ci(!color)].all;
        let them = board.by_color(!color);
        let pieces = them & !board.pawns() & !board.kings();
        let majors = them & (board.rooks() | board.queens());
        let mut s = t.threat_by_pawn * (a.pawns & pieces).count() as i32;
        s += t.threat_by_minor * (a.minors & majors).count() as i32;
        s += t.threat_by_rook * (a.rooks & them & board.queens()).count() as i32;
        s += t.hanging * (a.all & pieces & !defended).count() as i32;
        trace.add("threats", s * sign);
        score += s * sign;
    }

    // Passed pawns: free path and king distances depend on the pieces, so not cached.
    for color in [Color::White, Color::Black] {
        let sign = if color == Color::White { 1 } else { -1 };
        let mut s = S::default();
        for sq in entry.passed[ci(color)] {
            let rank = rel_rank(color, sq);
            if (front_span(color, sq) & occupied).is_empty() {
                s += t.passed_free[rank];
            }
            let stop = if color == Color::White {
                sq.offset(8)
            } else {
                sq.offset(-8)
            };
            if let (Some(stop), Some(ok), Some(tk)) =
                (stop, board.king_of(color), board.king_of(!color))
            {
                let d = tk.distance(stop) as i32 - ok.distance(stop) as i32;
                s += S(0, d * t.passed_king_distance[rank]);
            }
        }
        trace.add("passed pawns", s * sign);
        score += s * sign;
    }

    let tempo = if turn == Color::White {
        t.tempo
    } else {
        -t.tempo
    };
    trace.add("tempo", tempo);
    score += tempo;

    let phase = phase.clamp(0, PHASE_MAX);
    let eg = score.1 * endgame_scale(board, score.1) / 64;
    let white = (score.0 * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    if turn == Color::White { white } else { -white }
}

/// Evaluates a board from scratch (no incremental state): for tests and the `eval` command.
pub fn evaluate_board<T: EvalTrace>(board: &Board, turn: Color, trace: &mut T) -> i32 {
    let (psq, phase) = psq_full(board);
    evaluate(board, turn, psq, phase, &mut PawnTable::new(16), trace)
}
