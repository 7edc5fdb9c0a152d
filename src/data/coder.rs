//! An adaptive binary range coder: each bit is coded with a probability that the bit itself then
//! moves, so a bit that is nearly always the same costs a small fraction of a bit. Values are
//! coded as bits under models (`Bit`, `Uint`) that the writer and the reader keep in step, so a
//! stream reads back only with the same models met in the same order.
//!
//! The coder is the carry-propagating kind of LZMA's: a 32-bit range, a 33-bit low end whose
//! top byte is held back until no carry can reach it. Probabilities are 11-bit, moved by 1/32
//! of their distance each time. Reading past the end of the stream reads zero bytes; the
//! reader counts them, so a stream cut short is told from one read to its end.

/// Probabilities are in units of 1/2048.
const PROB_BITS: u32 = 11;
const PROB_ONE: u32 = 1 << PROB_BITS;
/// How fast a probability follows the bits it sees.
const ADAPT: u32 = 5;
/// The range is renormalised (a byte shifted out) once it falls below this.
const TOP: u32 = 1 << 24;

/// A model of one binary decision: the probability that it is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bit(u16);

impl Default for Bit {
    fn default() -> Bit {
        Bit((PROB_ONE / 2) as u16)
    }
}

impl Bit {
    fn update(&mut self, one: bool) {
        let p = u32::from(self.0);
        self.0 = if one {
            p - (p >> ADAPT)
        } else {
            p + ((PROB_ONE - p) >> ADAPT)
        } as u16;
    }
}

/// A model of an unsigned number, coded as its length in bits (unary, a model each step) and
/// then the bits below its leading one (a model for each length and place), after adding one so
/// that 0 is coded too: small numbers are cheap, large ones possible.
#[derive(Clone, Debug)]
pub struct Uint {
    length: [Bit; 64],
    bits: Vec<Bit>,
}

impl Default for Uint {
    fn default() -> Uint {
        Uint {
            length: [Bit::default(); 64],
            bits: vec![Bit::default(); 64 * 64],
        }
    }
}

/// Where `range` splits between a zero (below) and a one (above) by `model`'s odds.
fn split(range: u32, model: &Bit) -> u32 {
    (range >> PROB_BITS) * u32::from(model.0)
}

/// The range after a bit: the part above `bound` for a one, below it for a zero; and the
/// model learns the bit. The encoder and the decoder both take this step.
fn narrow(range: &mut u32, bound: u32, one: bool, model: &mut Bit) {
    if one {
        *range -= bound;
    } else {
        *range = bound;
    }
    model.update(one);
}

/// Writes a stream.
pub struct Encoder {
    low: u64,
    range: u32,
    /// The byte held back, and how many bytes wait behind it (itself included).
    cache: u8,
    pending: u64,
    out: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Encoder {
        Encoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            pending: 1,
            out: Vec::new(),
        }
    }
}

impl Encoder {
    pub fn bit(&mut self, model: &mut Bit, one: bool) {
        let bound = split(self.range, model);
        if one {
            self.low += u64::from(bound);
        }
        narrow(&mut self.range, bound, one, model);
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    fn shift_low(&mut self) {
        if self.low < 0xFF00_0000 || self.low >= 1 << 32 {
            let carry = (self.low >> 32) as u8;
            let mut byte = self.cache;
            while self.pending > 0 {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xFF;
                self.pending -= 1;
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.pending += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    /// The `n` low bits of `value`, high first, each with its model of `models` (a binary tree:
    /// `models` holds `1 << n` of them).
    pub fn tree(&mut self, models: &mut [Bit], n: u32, value: u32) {
        let mut node = 1usize;
        for i in (0..n).rev() {
            let one = (value >> i) & 1 == 1;
            self.bit(&mut models[node], one);
            node = 2 * node + usize::from(one);
        }
    }

    pub fn uint(&mut self, model: &mut Uint, value: u64) {
        // 1 to 65 bits long.
        let v = u128::from(value) + 1;
        let len = 128 - v.leading_zeros() as usize;
        for i in 0..len - 1 {
            self.bit(&mut model.length[i], true);
        }
        if len <= 64 {
            self.bit(&mut model.length[len - 1], false);
        }
        let row = (len - 1).min(63) * 64;
        for (place, i) in (0..len - 1).rev().enumerate() {
            self.bit(&mut model.bits[row + place.min(63)], (v >> i) & 1 == 1);
        }
    }

    /// The stream's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.shift_low();
        }
        self.out
    }
}

/// Reads a stream.
pub struct Decoder<'a> {
    code: u32,
    range: u32,
    bytes: &'a [u8],
    at: usize,
    /// Bytes read past the end (as zeros).
    past_end: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Decoder<'a> {
        let mut d = Decoder {
            code: 0,
            range: u32::MAX,
            bytes,
            at: 0,
            past_end: 0,
        };
        for _ in 0..5 {
            d.code = (d.code << 8) | u32::from(d.next_byte());
        }
        d
    }

    fn next_byte(&mut self) -> u8 {
        match self.bytes.get(self.at) {
            Some(&b) => {
                self.at += 1;
                b
            }
            None => {
                self.past_end += 1;
                0
            }
        }
    }

    pub fn bit(&mut self, model: &mut Bit) -> bool {
        let bound = split(self.range, model);
        let one = self.code >= bound;
        if one {
            self.code -= bound;
        }
        narrow(&mut self.range, bound, one, model);
        while self.range < TOP {
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(self.next_byte());
        }
        one
    }

    pub fn tree(&mut self, models: &mut [Bit], n: u32) -> u32 {
        let mut node = 1usize;
        for _ in 0..n {
            let one = self.bit(&mut models[node]);
            node = 2 * node + usize::from(one);
        }
        (node - (1 << n)) as u32
    }

    /// A number `Encoder::uint` wrote; `None` if the bits make one beyond 64 bits.
    pub fn uint(&mut self, model: &mut Uint) -> Option<u64> {
        let mut len = 1;
        while len <= 64 && self.bit(&mut model.length[len - 1]) {
            len += 1;
        }
        let row = (len - 1).min(63) * 64;
        let mut v: u128 = 1;
        for place in 0..len - 1 {
            v = (v << 1) | u128::from(self.bit(&mut model.bits[row + place.min(63)]));
        }
        u64::try_from(v - 1).ok()
    }

    /// Whether the reader went past the stream's bytes: a stream cut short. (A whole stream is
    /// read to its last byte exactly: the writer's final flush is the reader's read-ahead.)
    pub fn overran(&self) -> bool {
        self.past_end > 0
    }

    /// Bytes of the stream not read: none once a whole stream's values are read.
    pub fn unread(&self) -> usize {
        self.bytes.len() - self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_trees_and_numbers_come_back_and_skewed_bits_cost_little() {
        let mut state = 12_345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        let values: Vec<(bool, u32, u64)> = (0..20_000)
            .map(|i| {
                let r = next();
                let big = if i % 97 == 0 { u64::MAX - r } else { r % 300 };
                (r % 10 == 0, (r % 64) as u32, big)
            })
            .collect();
        let (mut b, mut t, mut u) = (Bit::default(), vec![Bit::default(); 64], Uint::default());
        let mut e = Encoder::default();
        for &(bit, tree, n) in &values {
            e.bit(&mut b, bit);
            e.tree(&mut t, 6, tree);
            e.uint(&mut u, n);
        }
        e.uint(&mut u, 0);
        e.uint(&mut u, u64::MAX);
        let bytes = e.finish();
        let (mut b, mut t, mut u) = (Bit::default(), vec![Bit::default(); 64], Uint::default());
        let mut d = Decoder::new(&bytes);
        for &(bit, tree, n) in &values {
            assert_eq!(d.bit(&mut b), bit);
            assert_eq!(d.tree(&mut t, 6), tree);
            assert_eq!(d.uint(&mut u), Some(n));
        }
        assert_eq!(d.uint(&mut u), Some(0));
        assert_eq!(d.uint(&mut u), Some(u64::MAX));
        assert!(!d.overran());
        assert_eq!(d.unread(), 0, "a whole stream is read to its last byte");
        // A bit that is 1 one time in ten costs about half a bit (its entropy: 0.47).
        let mut e = Encoder::default();
        let mut m = Bit::default();
        for &(bit, _, _) in &values {
            e.bit(&mut m, bit);
        }
        let bits = 8 * e.finish().len();
        assert!(bits < values.len() * 6 / 10, "{bits} bits");
    }

    #[test]
    fn a_stream_cut_short_is_seen() {
        let mut e = Encoder::default();
        let mut u = Uint::default();
        for v in 0..1000u64 {
            e.uint(&mut u, v * 7919);
        }
        let bytes = e.finish();
        let mut d = Decoder::new(&bytes[..bytes.len() / 2]);
        let mut u = Uint::default();
        for _ in 0..1000 {
            let _ = d.uint(&mut u);
        }
        assert!(d.overran());
    }
}
