//! The learned evaluation: an efficiently updatable neural network ("NNUE") of the simplest shape
//! that beats hand-written knowledge, `(768 -> N) x 2 -> 1`.
//!
//! - **Inputs.** 768 features a side's point of view ("perspective"): a piece of either colour
//!   (ours, theirs) and role on one of 64 squares, the squares flipped top to bottom for Black, so
//!   both perspectives read the board as the side whose point of view it is.
//! - **Feature transformer.** Each perspective's hidden layer is the sum of the weight rows of its
//!   active features plus a bias: an *accumulator* of `N` 16-bit integers. A move changes two to
//!   four features, so the search updates the accumulator by adding and subtracting a few rows
//!   instead of summing thirty ([`Accumulator`], [`Delta`]).
//! - **Output.** The side to move's accumulator, then the other side's, each clipped to
//!   `[0, 1]` (and squared, with SCReLU), times one output weight each, plus a bias: the score in
//!   units of [`SCALE`] centipawns. A net may have several output layers ("buckets"), one for
//!   each range of the number of pieces on the board ([`bucket`]): an opening and an endgame
//!   weigh the same hidden features differently, at the cost of nothing but a few weights.
//!
//! Weights are quantised: the feature transformer by [`QA`], the output layer by [`QB`]. The file
//! format ([`Network::from_bytes`]) carries a header (magic, version, architecture), where the net
//! came from (data, command, commit) and a checksum.

use std::sync::Arc;

use shakmaty::{Board, Color, Piece, Role, Square};

/// Inputs a perspective: 2 colours x 6 roles x 64 squares.
pub const INPUTS: usize = 768;
/// The widest hidden layer a net file may have.
pub const MAX_HIDDEN: usize = 1024;
/// Quantisation of the feature transformer: 1.0 is `QA`.
pub const QA: i32 = 255;
/// Quantisation of the output weights: 1.0 is `QB`.
pub const QB: i32 = 64;
/// The net's output times this is centipawns.
pub const SCALE: i32 = 400;

/// The largest output weight (quantised) a net may have: `QA` times it fits in 16 bits. The
/// trainer clips weights to +/-1.98, 127 when quantised.
pub const MAX_OUT_WEIGHT: i16 = 128;
/// The most output buckets a net file may have.
pub const MAX_BUCKETS: usize = 8;

/// The largest net file read: the widest net the format allows (1,024 neurons, 8 buckets) takes
/// about 1.6 MB, so a file above this is not a net and is refused before it is read.
pub const MAX_NET_FILE: u64 = 64 << 20;
const MAGIC: &[u8; 4] = b"RKNN";
/// Version 2 adds the number of output buckets; version 1 files (one output layer) still read.
const VERSION: u32 = 2;

/// The output bucket of a position with `pieces` pieces (kings included) in a net of `buckets`
/// (1, 2, 4 or 8): the range 2..=32 cut into equal parts, fewest pieces first.
#[inline]
pub fn bucket(pieces: u32, buckets: usize) -> usize {
    let divisor = 32 / buckets.max(1) as u32;
    ((pieces.clamp(2, 32) - 2) / divisor).min(buckets as u32 - 1) as usize
}

/// The hidden layer's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// Clipped ReLU: `clamp(x, 0, 1)`.
    CReLU,
    /// Squared clipped ReLU: `clamp(x, 0, 1)^2`.
    SCReLU,
}

impl Activation {
    fn code(self) -> u8 {
        match self {
            Activation::CReLU => 0,
            Activation::SCReLU => 1,
        }
    }

    fn from_code(code: u8) -> Option<Activation> {
        match code {
            0 => Some(Activation::CReLU),
            1 => Some(Activation::SCReLU),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Activation::CReLU => "CReLU",
            Activation::SCReLU => "SCReLU",
        }
    }
}

/// The input feature of `piece` on `sq` from `perspective`'s point of view.
#[inline]
pub fn feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    let (sq, ours) = match perspective {
        Color::White => (usize::from(sq), piece.color == Color::White),
        Color::Black => (usize::from(sq.flip_vertical()), piece.color == Color::Black),
    };
    feature_index(ours, piece.role, sq)
}

/// The input feature of a piece that is ours (or theirs) of `role` on square `sq`, the square
/// already seen from the perspective's side.
#[inline]
pub fn feature_index(ours: bool, role: Role, sq: usize) -> usize {
    usize::from(!ours) * 384 + (role as usize - 1) * 64 + sq
}

/// A quantised network, ready for the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    activation: Activation,
    /// Output buckets (1, 2, 4 or 8).
    buckets: usize,
    /// `INPUTS` rows of `hidden` weights.
    ft_weights: Box<[i16]>,
    ft_bias: Box<[i16]>,
    /// For each bucket: the side to move's `hidden` weights, then the other side's.
    out_weights: Box<[i16]>,
    /// One a bucket, quantised by `QA * QB`.
    out_bias: Box<[i32]>,
    /// Where the net came from: data, command, commit (free text, one `key: value` a line).
    pub provenance: String,
}

/// Why a net file was not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetError(pub String);

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// FNV-1a, 64 bits: the file's checksum.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The net built into the binary (`nets/default.nnue`).
static DEFAULT_NET: &[u8] = include_bytes!("../../nets/default.nnue");

impl Network {
    /// A net from its parts (the trainer's export). `ft_weights` is `INPUTS` rows of `hidden`;
    /// `out_weights` is `2 * hidden` a bucket and `out_bias` one a bucket.
    pub fn from_parts(
        activation: Activation,
        ft_weights: Vec<i16>,
        ft_bias: Vec<i16>,
        out_weights: Vec<i16>,
        out_bias: Vec<i32>,
        provenance: String,
    ) -> Result<Network, NetError> {
        let hidden = ft_bias.len();
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(NetError(format!(
                "a hidden layer of {hidden} (1 to {MAX_HIDDEN} supported)"
            )));
        }
        let buckets = out_bias.len();
        if !valid_buckets(buckets) {
            return Err(NetError(format!(
                "{buckets} output buckets (1, 2, 4 or 8 supported)"
            )));
        }
        if ft_weights.len() != INPUTS * hidden || out_weights.len() != 2 * hidden * buckets {
            return Err(NetError("the weights do not fit the architecture".into()));
        }
        if let Some(w) = out_weights
            .iter()
            .find(|w| w.unsigned_abs() > MAX_OUT_WEIGHT as u16)
        {
            return Err(NetError(format!(
                "an output weight of {w} (at most {MAX_OUT_WEIGHT} either way)"
            )));
        }
        Ok(Network {
            hidden,
            activation,
            buckets,
            ft_weights: ft_weights.into_boxed_slice(),
            ft_bias: ft_bias.into_boxed_slice(),
            out_weights: out_weights.into_boxed_slice(),
            out_bias: out_bias.into_boxed_slice(),
            provenance,
        })
    }

    /// The net built into the binary.
    pub fn default_net() -> Arc<Network> {
        static NET: std::sync::OnceLock<Arc<Network>> = std::sync::OnceLock::new();
        NET.get_or_init(|| {
            Arc::new(
                Network::from_bytes(DEFAULT_NET).expect("the built-in net is checked by a test"),
            )
        })
        .clone()
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Output buckets (1 for a single output layer).
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// `(768 -> 256) x 2 -> 1, SCReLU`, or `... -> 1 x 8 buckets, ...` with output buckets.
    pub fn architecture(&self) -> String {
        let out = if self.buckets == 1 {
            "1".to_string()
        } else {
            format!("1 x {} buckets", self.buckets)
        };
        format!(
            "({INPUTS} -> {}) x 2 -> {out}, {}",
            self.hidden,
            self.activation.name()
        )
    }

    /// The net as a file: header, provenance, weights (little-endian), checksum of all before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + 2 * self.ft_weights.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(INPUTS as u32).to_le_bytes());
        out.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        out.push(self.activation.code());
        out.extend_from_slice(&(self.buckets as u32).to_le_bytes());
        out.extend_from_slice(&(QA as u16).to_le_bytes());
        out.extend_from_slice(&(QB as u16).to_le_bytes());
        out.extend_from_slice(&(SCALE as u32).to_le_bytes());
        let prov = self.provenance.as_bytes();
        out.extend_from_slice(&(prov.len() as u32).to_le_bytes());
        out.extend_from_slice(prov);
        for w in self
            .ft_weights
            .iter()
            .chain(self.ft_bias.iter())
            .chain(self.out_weights.iter())
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in self.out_bias.iter() {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a net file, checking everything: a file that is not a net, of another version or
    /// architecture, cut short or damaged is an error that says which.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let err = |s: &str| Err(NetError(s.to_string()));
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return err("not a Rookery net file (no RKNN header)");
        }
        let mut r = Reader { bytes, at: 4 };
        let short = || NetError("the net file is cut short".to_string());
        let version = r.u32().ok_or_else(short)?;
        if version != 1 && version != VERSION {
            return Err(NetError(format!(
                "net file version {version}, this build reads versions 1 to {VERSION}"
            )));
        }
        let inputs = r.u32().ok_or_else(short)? as usize;
        let hidden = r.u32().ok_or_else(short)? as usize;
        let activation = r.u8().ok_or_else(short)?;
        let buckets = if version >= 2 {
            r.u32().ok_or_else(short)? as usize
        } else {
            1
        };
        let qa = r.u16().ok_or_else(short)?;
        let qb = r.u16().ok_or_else(short)?;
        let scale = r.u32().ok_or_else(short)?;
        if inputs != INPUTS
            || hidden == 0
            || hidden > MAX_HIDDEN
            || !valid_buckets(buckets)
            || i32::from(qa) != QA
            || i32::from(qb) != QB
            || scale as i32 != SCALE
        {
            return Err(NetError(format!(
                "unsupported architecture: {inputs} inputs, {hidden} hidden, {buckets} output buckets, QA {qa}, QB {qb}, scale {scale} \
                 (this build reads {INPUTS} inputs, 1 to {MAX_HIDDEN} hidden, 1, 2, 4 or 8 buckets, QA {QA}, QB {QB}, scale {SCALE})"
            )));
        }
        let activation = Activation::from_code(activation)
            .ok_or_else(|| NetError(format!("unknown activation code {activation}")))?;
        let prov_len = r.u32().ok_or_else(short)? as usize;
        let weights = INPUTS * hidden + hidden + 2 * hidden * buckets;
        let expected = r.at + prov_len + 2 * weights + 4 * buckets + 8;
        if prov_len > bytes.len() || bytes.len() < expected {
            return Err(short());
        }
        if bytes.len() > expected {
            return err("the net file has bytes after its end");
        }
        let body = &bytes[..expected - 8];
        let stored = u64::from_le_bytes(bytes[expected - 8..].try_into().unwrap());
        if checksum(body) != stored {
            return err("the net file's checksum does not match (damaged)");
        }
        let provenance = String::from_utf8_lossy(&bytes[r.at..r.at + prov_len]).into_owned();
        r.at += prov_len;
        let mut read = |n: usize| -> Vec<i16> { (0..n).map(|_| r.i16().unwrap()).collect() };
        let ft_weights = read(INPUTS * hidden);
        let ft_bias = read(hidden);
        let out_weights = read(2 * hidden * buckets);
        let out_bias = (0..buckets)
            .map(|_| r.i32().ok_or_else(short))
            .collect::<Result<Vec<i32>, NetError>>()?;
        Network::from_parts(
            activation,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            provenance,
        )
    }

    /// Reads a net file from disk.
    pub fn load(path: &str) -> Result<Network, NetError> {
        let bytes = crate::core::memory::read_file(std::path::Path::new(path), MAX_NET_FILE)
            .map_err(|e| NetError(format!("{path}: {e}")))?;
        Network::from_bytes(&bytes).map_err(|e| NetError(format!("{path}: {e}")))
    }

    #[inline]
    fn row(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// Both perspectives' accumulators of `board` from scratch.
    pub fn refresh(&self, board: &Board, acc: &mut Accumulator) {
        let h = self.hidden;
        for (p, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let v = &mut acc.v[p][..h];
            v.copy_from_slice(&self.ft_bias);
            for (sq, piece) in board.iter() {
                add(v, self.row(feature(perspective, piece, sq)));
            }
        }
    }

    /// `to` = `from` with the features of `delta` added and removed (both perspectives).
    pub fn update(&self, from: &Accumulator, to: &mut Accumulator, delta: &Delta) {
        let h = self.hidden;
        for (p, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let rows = |list: &[u16]| -> [usize; 2] {
                let mut out = [0; 2];
                for (o, &code) in out.iter_mut().zip(list) {
                    let (piece, sq) = Delta::decode(code);
                    *o = feature(perspective, piece, sq);
                }
                out
            };
            let adds = rows(delta.adds());
            let subs = rows(delta.subs());
            let src = &from.v[p][..h];
            let dst = &mut to.v[p][..h];
            match (delta.n_add, delta.n_sub) {
                (1, 1) => add_sub(dst, src, self.row(adds[0]), self.row(subs[0])),
                (1, 2) => {
                    add_sub(dst, src, self.row(adds[0]), self.row(subs[0]));
                    sub(dst, self.row(subs[1]));
                }
                _ => {
                    dst.copy_from_slice(src);
                    for &f in &adds[..delta.n_add as usize] {
                        add(dst, self.row(f));
                    }
                    for &f in &subs[..delta.n_sub as usize] {
                        sub(dst, self.row(f));
                    }
                }
            }
        }
    }

    /// The score in centipawns for the side to move `turn`, from the accumulators of a board
    /// with `pieces` pieces on it (which picks the output bucket).
    pub fn evaluate(&self, acc: &Accumulator, turn: Color, pieces: u32) -> i32 {
        let h = self.hidden;
        let (us, them) = match turn {
            Color::White => (&acc.v[0][..h], &acc.v[1][..h]),
            Color::Black => (&acc.v[1][..h], &acc.v[0][..h]),
        };
        let b = bucket(pieces, self.buckets);
        let (w_us, w_them) = self.out_weights[2 * h * b..2 * h * (b + 1)].split_at(h);
        let bias = i64::from(self.out_bias[b]);
        let out = match self.activation {
            Activation::SCReLU => {
                let sum = screlu_dot(us, w_us) + screlu_dot(them, w_them);
                sum / i64::from(QA) + bias
            }
            Activation::CReLU => crelu_dot(us, w_us) + crelu_dot(them, w_them) + bias,
        };
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// The score of a board for the side to move `turn`, from scratch.
    pub fn evaluate_board(&self, board: &Board, turn: Color) -> i32 {
        let mut acc = Accumulator::new();
        self.refresh(board, &mut acc);
        self.evaluate(&acc, turn, board.occupied().count() as u32)
    }
}

/// Output bucket counts a net may have.
pub fn valid_buckets(buckets: usize) -> bool {
    buckets.is_power_of_two() && buckets <= MAX_BUCKETS
}

#[inline]
fn add(v: &mut [i16], row: &[i16]) {
    for (a, &w) in v.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

#[inline]
fn sub(v: &mut [i16], row: &[i16]) {
    for (a, &w) in v.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

#[inline]
fn add_sub(dst: &mut [i16], src: &[i16], plus: &[i16], minus: &[i16]) {
    for (((d, &s), &p), &m) in dst.iter_mut().zip(src).zip(plus).zip(minus) {
        *d = s.wrapping_add(p).wrapping_sub(m);
    }
}

/// `sum clamp(x, 0, QA)^2 * w`. `v * w` fits in 16 bits (output weights are within
/// +/-`MAX_OUT_WEIGHT`), so the products are 16 x 16 -> 32 bits, which vectorise even without
/// SSE4.1's 32-bit multiply. A block of 128 products (each under 2^23) sums within 32 bits, so
/// the vector registers are reduced once a block, and the fixed block length leaves the
/// compiler no remainder loop.
#[inline]
fn screlu_dot(x: &[i16], w: &[i16]) -> i64 {
    const BLOCK: usize = 128;
    const _: () =
        assert!(BLOCK * (QA as usize * MAX_OUT_WEIGHT as usize * QA as usize) < i32::MAX as usize);
    let term = |a: i16, b: i16| {
        let v = a.clamp(0, QA as i16);
        i32::from(v.wrapping_mul(b)) * i32::from(v)
    };
    let (xs, xr) = x.as_chunks::<BLOCK>();
    let (ws, wr) = w.as_chunks::<BLOCK>();
    let mut total = 0i64;
    for (xc, wc) in xs.iter().zip(ws) {
        let s: i32 = xc.iter().zip(wc).map(|(&a, &b)| term(a, b)).sum();
        total += i64::from(s);
    }
    for (&a, &b) in xr.iter().zip(wr) {
        total += i64::from(term(a, b));
    }
    total
}

/// `sum clamp(x, 0, QA) * w`.
#[inline]
fn crelu_dot(x: &[i16], w: &[i16]) -> i64 {
    let mut s = 0i64;
    for (&a, &b) in x.iter().zip(w) {
        s += i64::from(i32::from(a).clamp(0, QA) * i32::from(b));
    }
    s
}

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
    n_add: u8,
    n_sub: u8,
}

impl Delta {
    fn code(piece: Piece, sq: Square) -> u16 {
        let p = (piece.role as u16 - 1) + if piece.color == Color::White { 0 } else { 6 };
        p << 6 | u16::from(sq)
    }

    fn decode(code: u16) -> (Piece, Square) {
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

/// A little-endian reader over a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b = self.bytes.get(self.at..self.at + N)?;
        self.at += N;
        b.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn i16(&mut self) -> Option<i16> {
        self.take().map(i16::from_le_bytes)
    }
    fn i32(&mut self) -> Option<i32> {
        self.take().map(i32::from_le_bytes)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use shakmaty::Position;

    /// A small net with weights from a fixed pseudo-random stream.
    pub(crate) fn random_net(hidden: usize, activation: Activation) -> Network {
        random_bucketed_net(hidden, activation, 1)
    }

    /// `random_net` with `buckets` output layers.
    pub(crate) fn random_bucketed_net(
        hidden: usize,
        activation: Activation,
        buckets: usize,
    ) -> Network {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = |range: i64| -> i16 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state % (2 * range as u64 + 1)) as i64 - range) as i16
        };
        let ft_weights = (0..INPUTS * hidden).map(|_| next(60)).collect();
        let ft_bias = (0..hidden).map(|_| next(100)).collect();
        let out_weights = (0..2 * hidden * buckets).map(|_| next(100)).collect();
        let out_bias = (0..buckets).map(|b| 1234 + 1000 * b as i32).collect();
        Network::from_parts(
            activation,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            "test".into(),
        )
        .unwrap()
    }

    /// The blocked SCReLU dot product equals a plain 64-bit sum for every length up to
    /// `MAX_HIDDEN`, whole blocks and remainders, at the extremes of both inputs (the largest
    /// terms, where 32-bit sums would overflow first) and on mixed values.
    #[test]
    fn screlu_dot_equals_a_plain_sum() {
        let plain = |x: &[i16], w: &[i16]| -> i64 {
            x.iter()
                .zip(w)
                .map(|(&a, &b)| {
                    let v = i64::from(a.clamp(0, QA as i16));
                    v * v * i64::from(b)
                })
                .sum()
        };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |lo: i64, hi: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (lo + (state % (hi - lo + 1) as u64) as i64) as i16
        };
        for len in [0, 1, 15, 127, 128, 129, 200, 256, 384, 512, MAX_HIDDEN] {
            let top = vec![QA as i16; len];
            let w_max = vec![MAX_OUT_WEIGHT; len];
            let w_min = vec![-MAX_OUT_WEIGHT; len];
            assert_eq!(
                screlu_dot(&top, &w_max),
                plain(&top, &w_max),
                "len {len}, max"
            );
            assert_eq!(
                screlu_dot(&top, &w_min),
                plain(&top, &w_min),
                "len {len}, min"
            );
            let x: Vec<i16> = (0..len).map(|_| next(-600, 600)).collect();
            let w: Vec<i16> = (0..len)
                .map(|_| next(-i64::from(MAX_OUT_WEIGHT), i64::from(MAX_OUT_WEIGHT)))
                .collect();
            assert_eq!(screlu_dot(&x, &w), plain(&x, &w), "len {len}, mixed");
        }
    }

    /// The bytes of a version 1 file (one output layer, no bucket count) holding `net`.
    fn version_1_bytes(net: &Network) -> Vec<u8> {
        assert_eq!(net.buckets(), 1);
        let v2 = net.to_bytes();
        // magic, version, inputs, hidden, activation: 17 bytes; then the bucket count.
        let mut v1 = v2[..17].to_vec();
        v1[4..8].copy_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&v2[21..v2.len() - 8]);
        let sum = checksum(&v1);
        v1.extend_from_slice(&sum.to_le_bytes());
        v1
    }

    #[test]
    fn bucketed_nets_read_back_and_version_1_files_still_load() {
        for buckets in [1, 2, 4, 8] {
            let net = random_bucketed_net(16, Activation::SCReLU, buckets);
            assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);
        }
        let net = random_net(16, Activation::CReLU);
        assert_eq!(Network::from_bytes(&version_1_bytes(&net)).unwrap(), net);
        let mut odd = random_bucketed_net(16, Activation::SCReLU, 4).to_bytes();
        odd[17..21].copy_from_slice(&3u32.to_le_bytes());
        assert!(
            Network::from_bytes(&odd)
                .unwrap_err()
                .0
                .contains("architecture")
        );
        assert!(
            Network::from_parts(
                Activation::SCReLU,
                vec![0; INPUTS * 4],
                vec![0; 4],
                vec![0; 8 * 3],
                vec![0; 3],
                String::new()
            )
            .unwrap_err()
            .0
            .contains("buckets")
        );
        for w in [MAX_OUT_WEIGHT + 1, i16::MIN] {
            let mut out_weights = vec![0; 2 * 4];
            out_weights[3] = w;
            assert!(
                Network::from_parts(
                    Activation::SCReLU,
                    vec![0; INPUTS * 4],
                    vec![0; 4],
                    out_weights,
                    vec![0],
                    String::new()
                )
                .unwrap_err()
                .0
                .contains("output weight")
            );
        }
    }

    /// Each piece count reads its own output layer: with the hidden layer silent, the score is
    /// the bucket's bias.
    #[test]
    fn the_piece_count_picks_the_output_bucket() {
        assert_eq!(bucket(32, 8), 7);
        assert_eq!(bucket(2, 8), 0);
        assert_eq!(bucket(5, 8), 0);
        assert_eq!(bucket(6, 8), 1);
        assert_eq!(bucket(17, 1), 0);
        assert_eq!(bucket(17, 2), 0);
        assert_eq!(bucket(18, 2), 1);
        let h = 8;
        let bias: Vec<i32> = (0..8).map(|b| (b + 1) * QA * QB / 4).collect();
        let net = Network::from_parts(
            Activation::SCReLU,
            vec![0; INPUTS * h],
            vec![0; h],
            vec![0; 2 * h * 8],
            bias,
            String::new(),
        )
        .unwrap();
        for (fen, pieces) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                32,
            ),
            ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", 2),
            ("8/2p5/4k3/8/1R6/3K1N2/8/8 b - - 0 1", 5),
            ("r3k3/8/8/8/8/8/8/4K2R w - - 0 1", 4),
            ("r1b1k3/pp6/8/8/8/8/PPP5/2B1K2R w - - 0 1", 11),
        ] {
            let pos = parse_fen(fen).unwrap();
            assert_eq!(pos.board().occupied().count(), pieces);
            let b = bucket(pieces as u32, 8) as i32;
            assert_eq!(
                net.evaluate_board(pos.board(), pos.turn()),
                (b + 1) * SCALE / 4,
                "{fen}"
            );
        }
    }

    #[test]
    fn a_net_file_reads_back_and_every_damage_is_named() {
        let net = random_net(16, Activation::SCReLU);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        let e = |b: &[u8]| Network::from_bytes(b).unwrap_err().0;
        assert!(e(&bytes[..bytes.len() - 3]).contains("cut short"));
        assert!(e(b"hello").contains("not a Rookery net"));
        let mut damaged = bytes.clone();
        damaged[200] ^= 1;
        assert!(e(&damaged).contains("checksum"));
        let mut other_version = bytes.clone();
        other_version[4] = 9;
        assert!(e(&other_version).contains("version 9"));
        let mut wide = bytes.clone();
        wide[12..16].copy_from_slice(&5000u32.to_le_bytes());
        assert!(e(&wide).contains("architecture"));
        let mut longer = bytes;
        longer.push(0);
        assert!(e(&longer).contains("after its end"));
    }

    #[test]
    fn the_built_in_net_loads() {
        let net = Network::default_net();
        assert!(net.hidden() >= 16);
        let start = shakmaty::Chess::default();
        let s = net.evaluate_board(start.board(), Color::White);
        assert!(s.abs() < 200, "the start position is about even: {s}");
    }

    /// Every move of the perft positions and the positions below them: the accumulator updated
    /// by the move's delta equals one computed from scratch.
    #[test]
    fn updated_accumulators_equal_a_refresh() {
        for activation in [Activation::SCReLU, Activation::CReLU] {
            let net = random_net(40, activation);
            let mut checked = 0;
            for (_, pos) in crate::nnue::tests::positions() {
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

    pub(crate) fn positions() -> Vec<(String, shakmaty::Chess)> {
        let text = [
            include_str!("../../tests/data/standard.epd"),
            include_str!("../../tests/data/cpw.epd"),
        ]
        .concat();
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| {
                let fen = l.split(';').next()?.trim();
                Some((fen.to_string(), parse_fen(fen).ok()?))
            })
            .collect()
    }

    #[test]
    fn features_mirror_between_perspectives() {
        let pos = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
        for (sq, piece) in pos.board().iter() {
            let w = feature(Color::White, piece, sq);
            let b = feature(
                Color::Black,
                Piece {
                    color: !piece.color,
                    role: piece.role,
                },
                sq.flip_vertical(),
            );
            assert_eq!(w, b);
            assert!(w < INPUTS);
        }
        // The same position with colours swapped scores the same for the side to move.
        let net = random_net(24, Activation::SCReLU);
        let mirrored =
            parse_fen("r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1")
                .unwrap();
        assert_eq!(
            net.evaluate_board(pos.board(), Color::White),
            net.evaluate_board(mirrored.board(), Color::Black)
        );
    }
}
