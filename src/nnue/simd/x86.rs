//! The AVX2 and AVX-512 loops, each written once, generic over [`Vector`]: one width's vector and
//! the few operations the loops need. `width!` implements `Vector` for a width from the intrinsic
//! that does each operation, and makes the module of that width's entry points, compiled for its
//! instructions (`#[target_feature]`): the generic loops inline into them whole, each operation
//! becoming one instruction.
//!
//! Each loop does the whole vectors from the front and returns where they end; the caller leaves
//! the tail (a hidden layer that is not a multiple of the vector width) to the portable loop.
//!
//! The dot products clamp the lanes of `x` to `[0, QA]`, multiply by the weights in 16 bits (the
//! product fits: `QA * MAX_OUT_WEIGHT` < 2^15), then `madd` multiplies by the clamped `x` again
//! and adds neighbouring pairs into 32-bit lanes. A lane takes at most two terms of under 2^23 a
//! vector, so a block of `BLOCK` elements cannot overflow it at any width; the lanes are summed
//! into 64 bits once a block.

use std::arch::x86_64::*;

use super::{QA, Weight};
use crate::nnue::{MAX_HIDDEN, MAX_OUT_WEIGHT};

/// Elements a block: 64 vectors of AVX2, 32 of AVX-512.
const BLOCK: usize = 1024;

/// One width's vector of 16-bit lanes. `madd16` sums into 32-bit lanes, which `add32` and
/// `sum32` read: the same bits as half as many lanes.
///
/// A value exists only on a CPU that runs the width's instructions: the constructors are `unsafe`
/// and promise it, which makes the arithmetic on values safe. Every method is `#[inline(always)]`
/// (and so is every kernel), so that inlined into an entry point its intrinsic gets the entry
/// point's `#[target_feature]`s: a call to an intrinsic that is not inlined costs more than the
/// instruction it stands for.
trait Vector: Copy {
    /// 16-bit lanes a vector.
    const LANES: usize;

    /// The `LANES` values at `p`.
    ///
    /// # Safety
    /// The CPU runs the width's instructions, and `p` points to `LANES` readable `i16`s.
    unsafe fn load(p: *const i16) -> Self;

    /// The `LANES` 8-bit values at `p`, each widened to 16 bits with its sign.
    ///
    /// # Safety
    /// The CPU runs the width's instructions, and `p` points to `LANES` readable `i8`s.
    unsafe fn load8(p: *const i8) -> Self;

    /// `x` in every lane.
    ///
    /// # Safety
    /// The CPU runs the width's instructions.
    unsafe fn splat(x: i16) -> Self;

    /// Writes the lanes to `p`.
    ///
    /// # Safety
    /// `p` points to `LANES` writable `i16`s.
    unsafe fn store(self, p: *mut i16);

    /// `self + b` lane by lane, wrapping.
    fn add16(self, b: Self) -> Self;

    /// `self - b` lane by lane, wrapping.
    fn sub16(self, b: Self) -> Self;

    /// The larger of each pair of lanes.
    fn max16(self, b: Self) -> Self;

    /// The smaller of each pair of lanes.
    fn min16(self, b: Self) -> Self;

    /// The low 16 bits of each pair of lanes' product.
    fn mullo16(self, b: Self) -> Self;

    /// The products of each pair of neighbouring 16-bit lanes, summed into a 32-bit lane.
    fn madd16(self, b: Self) -> Self;

    /// `self + b` in 32-bit lanes, wrapping.
    fn add32(self, b: Self) -> Self;

    /// The sum of the 32-bit lanes.
    fn sum32(self) -> i64;
}

/// The `LANES` weights at `p`, 16-bit ones as they are, 8-bit ones widened.
///
/// # Safety
/// As [`Vector::load`] and [`Vector::load8`].
#[inline(always)]
unsafe fn load_weights<V: Vector, W: Weight>(p: *const W) -> V {
    unsafe {
        if W::EIGHT_BIT {
            V::load8(p.cast())
        } else {
            V::load(p.cast())
        }
    }
}

/// `dst = src + adds[0] + ... - subs[0] - ...`, wrapping, over the whole vectors of the first
/// `n` elements; returns where they end. One loop serves every accumulator update: the fixed
/// counts of rows unroll into straight adds and subtracts.
///
/// # Safety
/// The CPU runs `V`'s instructions, and `dst`, `src` and every row point to at least `n`
/// elements (`dst` may be `src`).
#[inline(always)]
unsafe fn update<V: Vector, W: Weight, const A: usize, const S: usize>(
    dst: *mut i16,
    src: *const i16,
    adds: [*const W; A],
    subs: [*const W; S],
    n: usize,
) -> usize {
    let mut i = 0;
    while i + V::LANES <= n {
        // SAFETY: `i + LANES <= n`, so each access lies within its `n` elements.
        unsafe {
            let mut d = V::load(src.add(i));
            for a in adds {
                d = d.add16(load_weights::<V, W>(a.add(i)));
            }
            for s in subs {
                d = d.sub16(load_weights::<V, W>(s.add(i)));
            }
            d.store(dst.add(i));
        }
        i += V::LANES;
    }
    i
}

/// `sum clamp(x, 0, QA)^2 * w` (with `SQUARE`) or `sum clamp(x, 0, QA) * w` over the whole
/// vectors of `x`, and where they end.
///
/// # Safety
/// The CPU runs `V`'s instructions, and `w` is at least as long as `x`.
#[inline(always)]
unsafe fn dot<V: Vector, const SQUARE: bool>(x: &[i16], w: &[i16]) -> (i64, usize) {
    const {
        let term = QA as usize * MAX_OUT_WEIGHT as usize * QA as usize;
        assert!(2 * (BLOCK / V::LANES) * term < i32::MAX as usize);
    }
    let n = x.len();
    let (zero, top) = unsafe { (V::splat(0), V::splat(QA as i16)) };
    let mut total = 0i64;
    let mut i = 0;
    while i + V::LANES <= n {
        let end = (i + BLOCK).min(n);
        let mut acc = zero;
        while i + V::LANES <= end {
            // SAFETY: `i + LANES <= n`, and `w` is at least `n` long.
            let (v, ww) = unsafe { (V::load(x.as_ptr().add(i)), V::load(w.as_ptr().add(i))) };
            let c = v.max16(zero).min16(top);
            let term = if SQUARE {
                c.mullo16(ww).madd16(c)
            } else {
                c.madd16(ww)
            };
            acc = acc.add32(term);
            i += V::LANES;
        }
        total += acc.sum32();
    }
    (total, i)
}

/// A width: `$vector`, a `$register` of `$lanes` 16-bit lanes, implements [`Vector`] with the
/// intrinsics named for its operations, and `mod $module` holds every kernel at that width,
/// compiled for `$features`.
macro_rules! width {
    (
        $module:ident, $features:literal, $vector:ident($register:ty), $lanes:literal lanes;
        load $load:ident, load8 $load8:ident($load_half:ident), store $store:ident,
        splat $splat:ident;
        $($op:ident $intrinsic:ident),* $(,)?
    ) => {
        #[derive(Clone, Copy)]
        struct $vector($register);

        // SAFETY (every `unsafe` block here): a value exists only where the CPU runs the width's
        // instructions (see `Vector`), and the callers vouch for the pointers.
        impl Vector for $vector {
            const LANES: usize = $lanes;

            #[inline(always)]
            unsafe fn load(p: *const i16) -> Self {
                unsafe { $vector($load(p.cast())) }
            }

            #[inline(always)]
            unsafe fn load8(p: *const i8) -> Self {
                unsafe { $vector($load8($load_half(p.cast()))) }
            }

            #[inline(always)]
            unsafe fn splat(x: i16) -> Self {
                unsafe { $vector($splat(x)) }
            }

            #[inline(always)]
            unsafe fn store(self, p: *mut i16) {
                unsafe { $store(p.cast(), self.0) }
            }

            $(
                #[inline(always)]
                fn $op(self, b: Self) -> Self {
                    unsafe { $vector($intrinsic(self.0, b.0)) }
                }
            )*

            #[inline(always)]
            fn sum32(self) -> i64 {
                let mut lanes = [0i32; $lanes / 2];
                // `lanes` is one vector long; unaligned stores are allowed.
                unsafe { $store(lanes.as_mut_ptr().cast(), self.0) };
                lanes.iter().map(|&l| i64::from(l)).sum()
            }
        }

        /// The kernels at this width, compiled for its instructions: `unsafe` to call, for the
        /// CPU must run them, and with the conditions of the generic kernels.
        pub mod $module {
            use super::$vector as V;
            use super::Weight;

            #[target_feature(enable = $features)]
            pub unsafe fn update<W: Weight, const A: usize, const S: usize>(
                dst: *mut i16,
                src: *const i16,
                adds: [*const W; A],
                subs: [*const W; S],
                n: usize,
            ) -> usize {
                unsafe { super::update::<V, W, A, S>(dst, src, adds, subs, n) }
            }

            #[target_feature(enable = $features)]
            pub unsafe fn dot<const SQUARE: bool>(x: &[i16], w: &[i16]) -> (i64, usize) {
                unsafe { super::dot::<V, SQUARE>(x, w) }
            }
        }
    };
}

width! {
    avx2, "avx2", V256(__m256i), 16 lanes;
    load _mm256_loadu_si256, load8 _mm256_cvtepi8_epi16(_mm_loadu_si128),
    store _mm256_storeu_si256, splat _mm256_set1_epi16;
    add16 _mm256_add_epi16, sub16 _mm256_sub_epi16, max16 _mm256_max_epi16, min16 _mm256_min_epi16,
    mullo16 _mm256_mullo_epi16, madd16 _mm256_madd_epi16, add32 _mm256_add_epi32,
}

width! {
    avx512, "avx512f,avx512bw", V512(__m512i), 32 lanes;
    load _mm512_loadu_si512, load8 _mm512_cvtepi8_epi16(_mm256_loadu_si256),
    store _mm512_storeu_si512, splat _mm512_set1_epi16;
    add16 _mm512_add_epi16, sub16 _mm512_sub_epi16, max16 _mm512_max_epi16, min16 _mm512_min_epi16,
    mullo16 _mm512_mullo_epi16, madd16 _mm512_madd_epi16, add32 _mm512_add_epi32,
}

/// [`deep_sums_avx2`]'s `MODE` for SCReLU.
pub const SCRELU: u8 = 1;
/// [`deep_sums_avx2`]'s `MODE` for pairs' products.
pub const PAIRED: u8 = 2;

/// The deep head's first layer (`deep.rs`) in AVX2, from the hidden layers themselves: 32 of a
/// perspective's values at a time are clamped to `[0, QA]`, squared and shifted by 9 (SCReLU)
/// or shifted by 1 (CReLU), and packed to bytes, the inputs the portable `activate` gives, into
/// a buffer on the stack. Then eight neurons at a time, each with its own 32-bit sums: 32 inputs
/// at once `maddubs` with the neuron's 32 weights (16-bit sums of two products, which cannot
/// saturate: inputs are at most 127, weights at least -127), `madd` with ones into 32-bit sums;
/// with `NARROW` (no weight beyond `deep::NARROW` either way) two blocks' 16-bit sums are added
/// before the `madd`, as they cannot overflow either. The eight sums' lanes are added
/// together at the end. No input is broadcast, and no branch skips zeros (in the nets trained
/// so far about half the inputs are zero, but they are spread out).
///
/// `MODE` is the input: 0 CReLU, [`SCRELU`], [`PAIRED`] pairs' products (`nnue::Input`), each
/// value of the first half clamped, times the clamped value half a layer on, shifted by 9: half
/// as many inputs, so a perspective's half must be a multiple of 32.
///
/// # Safety
/// The CPU runs AVX2; `us` and `them` have the same length, a multiple of 32 (of 64 with
/// `PAIRED`), at most `MAX_HIDDEN`; `out.len()` is a multiple of 8; `w` holds `out.len()` rows
/// of as many weights as inputs; with `NARROW`, none of them is beyond `deep::NARROW` either way.
#[target_feature(enable = "avx2")]
pub unsafe fn deep_sums_avx2<const MODE: u8, const NARROW: bool>(
    us: &[i16],
    them: &[i16],
    w: &[i8],
    out: &mut [i32],
) {
    let h = us.len();
    // A perspective's inputs, and all of them.
    let side_n = if MODE == PAIRED { h / 2 } else { h };
    let n = 2 * side_n;
    debug_assert!(them.len() == h && side_n.is_multiple_of(32) && h <= MAX_HIDDEN);
    debug_assert!(out.len().is_multiple_of(8) && w.len() >= n * out.len());
    // SAFETY: every load and store below is within `inputs`, `w` or `out` by the conditions.
    unsafe {
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(QA as i16);
        // Written in full (the first `n` bytes) before any is read.
        let mut inputs = std::mem::MaybeUninit::<[u8; 2 * MAX_HIDDEN]>::uninit();
        let put = inputs.as_mut_ptr().cast::<u8>();
        let clamped = |p: *const i16| {
            _mm256_min_epi16(_mm256_max_epi16(_mm256_loadu_si256(p.cast()), zero), top)
        };
        for (side, x) in [us, them].into_iter().enumerate() {
            for block in 0..side_n / 32 {
                let p = x.as_ptr().add(32 * block);
                let (lo, hi) = (clamped(p), clamped(p.add(16)));
                // The products fit 16 bits unsigned (`QA * QA` < 2^16): the shift is logical.
                let (lo, hi) = match MODE {
                    PAIRED => {
                        let q = p.add(h / 2);
                        (
                            _mm256_srli_epi16::<9>(_mm256_mullo_epi16(lo, clamped(q))),
                            _mm256_srli_epi16::<9>(_mm256_mullo_epi16(hi, clamped(q.add(16)))),
                        )
                    }
                    SCRELU => (
                        _mm256_srli_epi16::<9>(_mm256_mullo_epi16(lo, lo)),
                        _mm256_srli_epi16::<9>(_mm256_mullo_epi16(hi, hi)),
                    ),
                    _ => (_mm256_srli_epi16::<1>(lo), _mm256_srli_epi16::<1>(hi)),
                };
                // `packus` works within each 128-bit half; the permutation puts the 32 bytes
                // back in the order of the values.
                let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(lo, hi));
                _mm256_storeu_si256(put.add(side * side_n + 32 * block).cast(), bytes);
            }
        }
        let ones = _mm256_set1_epi16(1);
        let a = inputs.as_ptr().cast::<u8>();
        for (eight, sums) in out.chunks_exact_mut(8).enumerate() {
            let rows = w.as_ptr().add(8 * eight * n);
            let mut acc = [zero; 8];
            if NARROW {
                // `n` is a multiple of 64: blocks go two at a time.
                for block in (0..n / 32).step_by(2) {
                    let x0 = _mm256_loadu_si256(a.add(32 * block).cast());
                    let x1 = _mm256_loadu_si256(a.add(32 * block + 32).cast());
                    for (k, acc) in acc.iter_mut().enumerate() {
                        let row = rows.add(k * n + 32 * block);
                        let pairs = _mm256_add_epi16(
                            _mm256_maddubs_epi16(x0, _mm256_loadu_si256(row.cast())),
                            _mm256_maddubs_epi16(x1, _mm256_loadu_si256(row.add(32).cast())),
                        );
                        *acc = _mm256_add_epi32(*acc, _mm256_madd_epi16(pairs, ones));
                    }
                }
            } else {
                for block in 0..n / 32 {
                    let x = _mm256_loadu_si256(a.add(32 * block).cast());
                    for (k, acc) in acc.iter_mut().enumerate() {
                        let row = rows.add(k * n + 32 * block);
                        let pairs = _mm256_maddubs_epi16(x, _mm256_loadu_si256(row.cast()));
                        *acc = _mm256_add_epi32(*acc, _mm256_madd_epi16(pairs, ones));
                    }
                }
            }
            // Each sum's eight lanes added: pairwise within the halves, then the halves.
            let [s0, s1, s2, s3, s4, s5, s6, s7] = acc;
            let t0 = _mm256_hadd_epi32(_mm256_hadd_epi32(s0, s1), _mm256_hadd_epi32(s2, s3));
            let t1 = _mm256_hadd_epi32(_mm256_hadd_epi32(s4, s5), _mm256_hadd_epi32(s6, s7));
            let total = _mm256_add_epi32(
                _mm256_permute2x128_si256::<0x20>(t0, t1),
                _mm256_permute2x128_si256::<0x31>(t0, t1),
            );
            _mm256_storeu_si256(sums.as_mut_ptr().cast(), total);
        }
    }
}

/// The deep head's second layer and output products (`Deep::head`) in AVX2: eight neurons a
/// vector, up to four vectors at once, each lane its neuron's sum from its bias over the first
/// layer's activations in order (a multiply, then an add: the portable loop's operations in its
/// order, so the same bits), the activation (`max` with 0 then `min` with 1, which return the
/// value itself where `f32::clamp` does, -0.0 included; squared with `SQUARE`), and the product
/// with the output weight added to lane `k % 8`. Returns the lanes and where the whole vectors
/// end: the caller does the neurons after that.
///
/// # Safety
/// The CPU runs AVX2; `w2` holds `h1.len()` rows of `l2` weights; `b2` and `w3` hold `l2`.
#[target_feature(enable = "avx2")]
pub unsafe fn head_lanes_avx2<const SQUARE: bool>(
    h1: &[f32],
    w2: &[f32],
    b2: &[f32],
    w3: &[f32],
    l2: usize,
) -> ([f32; 8], usize) {
    debug_assert!(w2.len() >= h1.len() * l2 && b2.len() >= l2 && w3.len() >= l2);
    // SAFETY: every load is within `w2`, `b2` or `w3` by the conditions (`k + 8 * V <= l2`).
    unsafe {
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn vectors<const V: usize, const SQUARE: bool>(
            h1: &[f32],
            w2: *const f32,
            b2: *const f32,
            w3: *const f32,
            l2: usize,
            k: usize,
            lanes: __m256,
        ) -> __m256 {
            unsafe {
                let mut z: [__m256; V] =
                    std::array::from_fn(|v| _mm256_loadu_ps(b2.add(k + 8 * v)));
                for (j, &x) in h1.iter().enumerate() {
                    let x = _mm256_set1_ps(x);
                    let row = w2.add(j * l2 + k);
                    for (v, z) in z.iter_mut().enumerate() {
                        *z = _mm256_add_ps(*z, _mm256_mul_ps(x, _mm256_loadu_ps(row.add(8 * v))));
                    }
                }
                let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
                let mut lanes = lanes;
                for (v, &z) in z.iter().enumerate() {
                    let c = _mm256_min_ps(one, _mm256_max_ps(zero, z));
                    let a = if SQUARE { _mm256_mul_ps(c, c) } else { c };
                    lanes =
                        _mm256_add_ps(lanes, _mm256_mul_ps(a, _mm256_loadu_ps(w3.add(k + 8 * v))));
                }
                lanes
            }
        }
        let (w2p, b2p, w3p) = (w2.as_ptr(), b2.as_ptr(), w3.as_ptr());
        let mut lanes = _mm256_setzero_ps();
        let mut k = 0;
        while k + 32 <= l2 {
            lanes = vectors::<4, SQUARE>(h1, w2p, b2p, w3p, l2, k, lanes);
            k += 32;
        }
        while k + 8 <= l2 {
            lanes = vectors::<1, SQUARE>(h1, w2p, b2p, w3p, l2, k, lanes);
            k += 8;
        }
        let mut out = [0f32; 8];
        _mm256_storeu_ps(out.as_mut_ptr(), lanes);
        (out, k)
    }
}
