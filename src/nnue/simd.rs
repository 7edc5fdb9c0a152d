//! The net's inner loops in explicit SIMD: adding and subtracting weight rows (the accumulator
//! updates) and the activation times the output weights (the evaluation), for AVX2 and AVX-512,
//! picked when the program first evaluates from what the CPU has ([`Simd::best`]).
//!
//! The portable loops are the reference: each vector loop computes exactly what they compute
//! (the tests compare them on the extremes of every input and on whole nets), and they serve every
//! other CPU. A portable build (`cargo build --release`, which may only assume SSE2) thus runs the
//! vector loops of the CPU it finds; a native build (`make`) gets them too.
//!
//! A [`Kernel`] can only be had for an instruction set the CPU has: that is what makes the calls
//! into the `#[target_feature]` functions sound.

use std::sync::atomic::{AtomicU8, Ordering};

use super::QA;

/// An instruction set the net's loops come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// Plain Rust loops, vectorised by the compiler for the build's target.
    Portable,
    /// 256-bit AVX2 (x86-64).
    Avx2,
    /// 512-bit AVX-512 with its 16-bit (BW) instructions (x86-64); the deep head's first
    /// layer runs AVX2's loop, which every such CPU also has.
    Avx512,
}

impl Simd {
    pub const ALL: [Simd; 3] = [Simd::Portable, Simd::Avx2, Simd::Avx512];

    pub fn name(self) -> &'static str {
        match self {
            Simd::Portable => "portable",
            Simd::Avx2 => "avx2",
            Simd::Avx512 => "avx512",
        }
    }

    /// The instruction set called `name` (`portable`, `avx2`, `avx512`).
    pub fn from_name(name: &str) -> Result<Simd, String> {
        Simd::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| format!("unknown instruction set '{name}' (portable, avx2 or avx512)"))
    }

    /// Whether this CPU runs it.
    pub fn available(self) -> bool {
        match self {
            Simd::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx2")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The instruction set the net uses unless told otherwise: the first of
    /// [`Simd::preference`] the CPU runs.
    pub fn best() -> Simd {
        Simd::preference(cpu_is_amd())
            .into_iter()
            .find(|s| s.available())
            .unwrap_or(Simd::Portable)
    }

    /// The order the sets are tried in, widest that pays first. On AMD CPUs AVX-512 comes
    /// first: they run it at full clock (Zen 4 splits each 512-bit operation into two 256-bit
    /// halves), and on an AMD EPYC `bench` ran faster with AVX-512 than with AVX2. Elsewhere
    /// AVX2 comes first: on an Intel Xeon with AVX-512, AVX-512 was the slower. docs/training.md
    /// gives the measurements; `rookery bench --simd NAME` measures the others.
    pub fn preference(amd: bool) -> [Simd; 3] {
        if amd {
            [Simd::Avx512, Simd::Avx2, Simd::Portable]
        } else {
            [Simd::Avx2, Simd::Avx512, Simd::Portable]
        }
    }

    /// Those this CPU runs, narrowest first.
    pub fn available_here() -> Vec<Simd> {
        Simd::ALL.into_iter().filter(|s| s.available()).collect()
    }
}

/// Whether the CPU is AMD's (CPUID's vendor string "AuthenticAMD").
fn cpu_is_amd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let id = std::arch::x86_64::__cpuid(0);
        [id.ebx, id.edx, id.ecx] == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The instruction set the net's loops use: 0 until first asked, then 1 + its index in
/// `Simd::ALL`.
static IN_USE: AtomicU8 = AtomicU8::new(0);

/// The kernel the net uses: [`Simd::best`] unless [`use_simd`] chose another.
#[inline]
pub fn in_use() -> Kernel {
    match IN_USE.load(Ordering::Relaxed) {
        0 => {
            let best = Simd::best();
            IN_USE.store(1 + best as u8, Ordering::Relaxed);
            Kernel(best)
        }
        // Only `use_simd` and the line above store, both with an available set.
        n => Kernel(Simd::ALL[usize::from(n - 1)]),
    }
}

/// Makes the net use `simd` from now on (for comparing speeds), or says why not.
pub fn use_simd(simd: Simd) -> Result<(), String> {
    let kernel = Kernel::new(simd).ok_or_else(|| {
        format!(
            "this CPU does not run {} (it runs: {})",
            simd.name(),
            Simd::available_here()
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    IN_USE.store(1 + kernel.0 as u8, Ordering::Relaxed);
    Ok(())
}

/// An instruction set this CPU runs: the proof the vector loops need.
/// A feature weight's type: 16 bits, or 8 where every weight of a net fits them (half the
/// memory, so more of the rows stay in the CPU's caches). The loops widen an 8-bit weight to 16
/// bits as they load it, so both give the same sums.
pub trait Weight: Copy + Into<i16> + 'static + private::Sealed {
    /// Whether it is the 8-bit type.
    const EIGHT_BIT: bool;
}

impl Weight for i16 {
    const EIGHT_BIT: bool = false;
}

impl Weight for i8 {
    const EIGHT_BIT: bool = true;
}

mod private {
    /// Only `i16` and `i8` are weights: [`super::Aligned`] reads its bytes as them.
    pub trait Sealed {}
    impl Sealed for i16 {}
    impl Sealed for i8 {}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel(Simd);

impl Kernel {
    /// `simd`'s kernel, if this CPU runs it.
    pub fn new(simd: Simd) -> Option<Kernel> {
        simd.available().then_some(Kernel(simd))
    }

    pub fn simd(self) -> Simd {
        self.0
    }

    /// `v += row`, wrapping.
    #[inline]
    pub fn add<W: Weight>(self, v: &mut [i16], row: &[W]) {
        let n = v.len();
        assert!(row.len() >= n);
        let p = v.as_mut_ptr();
        // SAFETY (here and in the other updates): every pointer is to at least `n` elements.
        let i = unsafe { self.update(p, p, [row.as_ptr()], [], n) };
        portable::add(&mut v[i..], &row[i..n]);
    }

    /// `v -= row`, wrapping.
    #[inline]
    pub fn sub<W: Weight>(self, v: &mut [i16], row: &[W]) {
        let n = v.len();
        assert!(row.len() >= n);
        let p = v.as_mut_ptr();
        let i = unsafe { self.update(p, p, [], [row.as_ptr()], n) };
        portable::sub(&mut v[i..], &row[i..n]);
    }

    /// `dst = src + plus - minus`, wrapping.
    #[inline]
    pub fn add_sub<W: Weight>(self, dst: &mut [i16], src: &[i16], plus: &[W], minus: &[W]) {
        let n = dst.len();
        assert!(src.len() >= n && plus.len() >= n && minus.len() >= n);
        let (adds, subs) = ([plus.as_ptr()], [minus.as_ptr()]);
        let i = unsafe { self.update(dst.as_mut_ptr(), src.as_ptr(), adds, subs, n) };
        portable::add_sub(&mut dst[i..], &src[i..n], &plus[i..n], &minus[i..n]);
    }

    /// `dst = src + plus - minus - minus2`, wrapping: a capture's update in one pass.
    #[inline]
    pub fn add_sub_sub<W: Weight>(
        self,
        dst: &mut [i16],
        src: &[i16],
        plus: &[W],
        minus: &[W],
        minus2: &[W],
    ) {
        let n = dst.len();
        assert!(src.len() >= n && plus.len() >= n && minus.len() >= n && minus2.len() >= n);
        let adds = [plus.as_ptr()];
        let subs = [minus.as_ptr(), minus2.as_ptr()];
        let i = unsafe { self.update(dst.as_mut_ptr(), src.as_ptr(), adds, subs, n) };
        portable::add_sub_sub(
            &mut dst[i..],
            &src[i..n],
            &plus[i..n],
            &minus[i..n],
            &minus2[i..n],
        );
    }

    /// `sum clamp(x, 0, QA)^2 * w` over `x`'s length (at most `MAX_HIDDEN`).
    #[inline]
    pub fn screlu_dot(self, x: &[i16], w: &[i16]) -> i64 {
        let (total, i) = self.dot::<true>(x, w);
        total + portable::screlu_dot(&x[i..], &w[i..x.len()])
    }

    /// `sum clamp(x, 0, QA) * w` over `x`'s length.
    #[inline]
    pub fn crelu_dot(self, x: &[i16], w: &[i16]) -> i64 {
        let (total, i) = self.dot::<false>(x, w);
        total + portable::crelu_dot(&x[i..], &w[i..x.len()])
    }

    /// The deep head's first layer (`deep.rs`): the sums into `out.len()` neurons (a multiple
    /// of 8, at most `MAX_L1`) of the side to move's and the other side's hidden layers `us` and
    /// `them`, made inputs as `input` says (as the portable `activate` and `activate_paired`
    /// do), times weights `w` (each neuron's row of as many weights as inputs, in input order,
    /// no weight -128; with `narrow`, none beyond `deep::NARROW` either way). Exact, so every
    /// kernel gives the portable loop's sums; the vector loop takes a perspective's inputs in
    /// blocks of 32.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn deep_sums(
        self,
        input: super::Input,
        narrow: bool,
        us: &[i16],
        them: &[i16],
        w: &[i8],
        out: &mut [i32],
    ) {
        use super::Input;
        let (h, l1) = (us.len(), out.len());
        let side_n = if input == Input::Paired { h / 2 } else { h };
        assert!(
            them.len() == h
                && h <= super::MAX_HIDDEN
                && h.is_multiple_of(2)
                && w.len() >= 2 * side_n * l1
                && l1 <= super::MAX_L1
        );
        let vectors = side_n.is_multiple_of(32) && l1.is_multiple_of(8);
        match self.0 {
            // SAFETY: a `Kernel` is only made for an instruction set the CPU runs (AVX-512's
            // availability includes AVX2), and the lengths are checked above.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 | Simd::Avx512 if vectors => unsafe {
                use super::Activation::{CReLU, SCReLU};
                use x86::{PAIRED, SCRELU};
                match (input, narrow) {
                    (Input::Activated(SCReLU), true) => {
                        x86::deep_sums_avx2::<SCRELU, true>(us, them, w, out)
                    }
                    (Input::Activated(SCReLU), false) => {
                        x86::deep_sums_avx2::<SCRELU, false>(us, them, w, out)
                    }
                    (Input::Activated(CReLU), true) => {
                        x86::deep_sums_avx2::<0, true>(us, them, w, out)
                    }
                    (Input::Activated(CReLU), false) => {
                        x86::deep_sums_avx2::<0, false>(us, them, w, out)
                    }
                    (Input::Paired, true) => x86::deep_sums_avx2::<PAIRED, true>(us, them, w, out),
                    (Input::Paired, false) => {
                        x86::deep_sums_avx2::<PAIRED, false>(us, them, w, out)
                    }
                }
            },
            _ => portable::deep_sums(input, us, them, w, out),
        }
    }

    /// The deep head's second layer and output products (`Deep::head` documents them) over
    /// first-layer activations `h1`: the eight running output sums and where the whole groups
    /// of eight neurons end (`l2` rounded down to a multiple of 8); the caller adds the rest.
    /// `w2` holds `h1.len()` rows of `l2` weights, `b2` and `w3` at least `l2`. Every kernel
    /// gives the portable loop's bits.
    #[inline]
    pub fn head_lanes(
        self,
        activation: super::Activation,
        h1: &[f32],
        w2: &[f32],
        b2: &[f32],
        w3: &[f32],
        l2: usize,
    ) -> ([f32; 8], usize) {
        assert!(w2.len() >= h1.len() * l2 && b2.len() >= l2 && w3.len() >= l2);
        match self.0 {
            // SAFETY: a `Kernel` is only made for an instruction set the CPU runs, and the
            // lengths are checked above.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 | Simd::Avx512 => unsafe {
                match activation {
                    super::Activation::SCReLU => x86::head_lanes_avx2::<true>(h1, w2, b2, w3, l2),
                    super::Activation::CReLU => x86::head_lanes_avx2::<false>(h1, w2, b2, w3, l2),
                }
            },
            _ => portable::head_lanes(activation, h1, w2, b2, w3, l2),
        }
    }

    /// `dst = src + adds[0] + ... - subs[0] - ...`, wrapping, over the whole vectors of the
    /// first `n` elements; returns where they end. The portable loops do the rest: all of it
    /// for the portable kernel.
    ///
    /// # Safety
    /// `dst`, `src` and every row point to at least `n` elements (`dst` may be `src`).
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    unsafe fn update<W: Weight, const A: usize, const S: usize>(
        self,
        dst: *mut i16,
        src: *const i16,
        adds: [*const W; A],
        subs: [*const W; S],
        n: usize,
    ) -> usize {
        match self.0 {
            // SAFETY (the arms here and in `dot`): a `Kernel` is only made for an instruction set
            // the CPU runs, and the caller vouches for the pointers.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { x86::avx512::update(dst, src, adds, subs, n) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { x86::avx2::update(dst, src, adds, subs, n) },
            _ => 0,
        }
    }

    /// The whole vectors' part of `sum clamp(x, 0, QA)^2 * w` (with `SQUARE`) or
    /// `sum clamp(x, 0, QA) * w` over `x`, and where they end, as [`Kernel::update`] does.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn dot<const SQUARE: bool>(self, x: &[i16], w: &[i16]) -> (i64, usize) {
        assert!(w.len() >= x.len());
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { x86::avx512::dot::<SQUARE>(x, w) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { x86::avx2::dot::<SQUARE>(x, w) },
            _ => (0, 0),
        }
    }
}

/// Weights (16- or 8-bit) on 64-byte boundaries, so that a row of a whole number of cache lines
/// starts on one and no vector load straddles two (AVX-512's loads are a whole line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aligned<T: Weight = i16> {
    lines: Box<[Line]>,
    len: usize,
    weight: std::marker::PhantomData<T>,
}

/// One cache line of weights' bytes; the padding after the last weight is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
struct Line([u8; 64]);

impl<T: Weight> From<Vec<T>> for Aligned<T> {
    fn from(v: Vec<T>) -> Aligned<T> {
        let size = std::mem::size_of::<T>();
        let mut lines = vec![Line([0; 64]); (v.len() * size).div_ceil(64)];
        for (i, &x) in v.iter().enumerate() {
            let bytes = Into::<i16>::into(x).to_ne_bytes();
            let at = i * size;
            lines[at / 64].0[at % 64..at % 64 + size].copy_from_slice(&bytes[..size]);
        }
        let aligned: Aligned<T> = Aligned {
            lines: lines.into_boxed_slice(),
            len: v.len(),
            weight: std::marker::PhantomData,
        };
        debug_assert!(
            aligned
                .iter()
                .zip(&v)
                .all(|(&a, &b)| a.into() == Into::<i16>::into(b))
        );
        aligned
    }
}

impl<T: Weight> std::ops::Deref for Aligned<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `Line` is `repr(C)` around 64 bytes, aligned to 64, with no padding between
        // lines, so the lines are `64 * lines.len() >= len * size_of::<T>()` initialised bytes in
        // a row, aligned for any `T`; `T` is `i16` or `i8` (sealed), for which every bit pattern
        // is a value. Each was written as its own bytes in the machine's order (an `i8`'s are
        // the first of its `i16`'s, the same on either byte order).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<T>(), self.len) }
    }
}

/// The reference loops: plain slices of fixed element types, which the compiler vectorises for
/// whatever instruction set the build targets.
pub(super) mod portable {
    use super::{QA, Weight};
    use crate::nnue::{Activation, MAX_HIDDEN, MAX_OUT_WEIGHT};

    /// A hidden layer's activations quantised to `0..=127`, as a deep head's first layer reads
    /// them (`deep.rs`).
    #[inline]
    pub fn activate(activation: Activation, x: &[i16], out: &mut [u8]) {
        match activation {
            Activation::SCReLU => {
                for (o, &v) in out.iter_mut().zip(x) {
                    let c = v.clamp(0, QA as i16) as u16;
                    *o = ((c * c) >> 9) as u8;
                }
            }
            Activation::CReLU => {
                for (o, &v) in out.iter_mut().zip(x) {
                    *o = (v.clamp(0, QA as i16) >> 1) as u8;
                }
            }
        }
    }

    /// A perspective's hidden layer `x` as pairs' products, `0..=127`: `out[i]` is
    /// `(clamp(x[i], 0, QA) * clamp(x[i + x.len() / 2], 0, QA)) >> 9` (`nnue::Input::Paired`).
    #[inline]
    pub fn activate_paired(x: &[i16], out: &mut [u8]) {
        let (a, b) = x.split_at(x.len() / 2);
        for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
            let (a, b) = (a.clamp(0, QA as i16) as u32, b.clamp(0, QA as i16) as u32);
            *o = ((a * b) >> 9) as u8;
        }
    }

    /// A deep head's first-layer sums from the hidden layers: both made inputs as `input` says
    /// into a buffer on the stack, then [`l1_sums`].
    #[inline]
    pub fn deep_sums(
        input: crate::nnue::Input,
        us: &[i16],
        them: &[i16],
        w: &[i8],
        out: &mut [i32],
    ) {
        use crate::nnue::Input;
        let h = us.len();
        let side_n = if input == Input::Paired { h / 2 } else { h };
        let mut inputs = [0u8; 2 * MAX_HIDDEN];
        let a = &mut inputs[..2 * side_n];
        let (a_us, a_them) = a.split_at_mut(side_n);
        match input {
            Input::Activated(activation) => {
                activate(activation, us, a_us);
                activate(activation, them, a_them);
            }
            Input::Paired => {
                activate_paired(us, a_us);
                activate_paired(them, a_them);
            }
        }
        l1_sums(a, w, out);
    }

    /// The deep head's second layer and output products, eight neurons at a time (kept in
    /// registers), as [`super::Kernel::head_lanes`] says.
    #[inline]
    pub fn head_lanes(
        activation: Activation,
        h1: &[f32],
        w2: &[f32],
        b2: &[f32],
        w3: &[f32],
        l2: usize,
    ) -> ([f32; 8], usize) {
        use crate::nnue::act;
        let mut lanes = [0f32; 8];
        let mut k = 0;
        while k + 8 <= l2 {
            let mut z: [f32; 8] = b2[k..k + 8].try_into().expect("eight biases");
            for (j, &x) in h1.iter().enumerate() {
                let w: &[f32; 8] = w2[j * l2 + k..j * l2 + k + 8]
                    .try_into()
                    .expect("eight weights");
                for (z, &w) in z.iter_mut().zip(w) {
                    *z += x * w;
                }
            }
            for ((lane, &z), &w) in lanes.iter_mut().zip(&z).zip(&w3[k..k + 8]) {
                *lane += act(activation, z) * w;
            }
            k += 8;
        }
        (lanes, k)
    }

    /// A deep head's first-layer sums of quantised inputs `a`: each neuron's row of weights
    /// (`w` holds `out.len()` rows of `a.len()`) times them.
    #[inline]
    pub fn l1_sums(a: &[u8], w: &[i8], out: &mut [i32]) {
        for (o, row) in out.iter_mut().zip(w.chunks_exact(a.len())) {
            *o = a
                .iter()
                .zip(row)
                .map(|(&x, &w)| i32::from(x) * i32::from(w))
                .sum();
        }
    }

    #[inline]
    pub fn add<W: Weight>(v: &mut [i16], row: &[W]) {
        for (a, &w) in v.iter_mut().zip(row) {
            *a = a.wrapping_add(w.into());
        }
    }

    #[inline]
    pub fn sub<W: Weight>(v: &mut [i16], row: &[W]) {
        for (a, &w) in v.iter_mut().zip(row) {
            *a = a.wrapping_sub(w.into());
        }
    }

    #[inline]
    pub fn add_sub<W: Weight>(dst: &mut [i16], src: &[i16], plus: &[W], minus: &[W]) {
        for (((d, &s), &p), &m) in dst.iter_mut().zip(src).zip(plus).zip(minus) {
            *d = s.wrapping_add(p.into()).wrapping_sub(m.into());
        }
    }

    #[inline]
    pub fn add_sub_sub<W: Weight>(
        dst: &mut [i16],
        src: &[i16],
        plus: &[W],
        minus: &[W],
        minus2: &[W],
    ) {
        for ((((d, &s), &p), &m), &m2) in dst.iter_mut().zip(src).zip(plus).zip(minus).zip(minus2) {
            *d = s
                .wrapping_add(p.into())
                .wrapping_sub(m.into())
                .wrapping_sub(m2.into());
        }
    }

    /// `v * w` fits in 16 bits (output weights are within +/-`MAX_OUT_WEIGHT`), so the products
    /// are 16 x 16 -> 32 bits, which vectorise even without SSE4.1's 32-bit multiply. A block of
    /// 128 products (each under 2^23) sums within 32 bits, so the vector registers are reduced
    /// once a block, and the fixed block length leaves the compiler no remainder loop.
    #[inline]
    pub fn screlu_dot(x: &[i16], w: &[i16]) -> i64 {
        const BLOCK: usize = 128;
        const _: () = assert!(
            BLOCK * (QA as usize * MAX_OUT_WEIGHT as usize * QA as usize) < i32::MAX as usize
        );
        let term = |a: i16, b: i16| {
            let v = a.clamp(0, QA as i16);
            i32::from(v.wrapping_mul(b)) * i32::from(v)
        };
        let w = &w[..x.len()];
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

    #[inline]
    pub fn crelu_dot(x: &[i16], w: &[i16]) -> i64 {
        let mut s = 0i64;
        for (&a, &b) in x.iter().zip(w) {
            s += i64::from(i32::from(a).clamp(0, QA) * i32::from(b));
        }
        s
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::{MAX_HIDDEN, MAX_OUT_WEIGHT};

    struct Rng(u64);

    impl Rng {
        fn next(&mut self, lo: i64, hi: i64) -> i16 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (lo + (self.0 % (hi - lo + 1) as u64) as i64) as i16
        }

        fn vec(&mut self, len: usize, lo: i64, hi: i64) -> Vec<i16> {
            (0..len).map(|_| self.next(lo, hi)).collect()
        }
    }

    const LENGTHS: [usize; 13] = [
        0, 1, 15, 16, 17, 31, 32, 33, 100, 256, 513, 1000, MAX_HIDDEN,
    ];

    /// Every kernel this CPU runs adds, subtracts, adds-and-subtracts and adds-and-subtracts-twice
    /// as the portable loops do, wrapping at the 16-bit limits included, at every length (whole
    /// vectors and tails). The capture's expected values come from the two-pass update it
    /// replaces (add-and-subtract, then subtract).
    #[test]
    fn each_kernel_updates_as_the_portable_loops_do() {
        let kernels: Vec<Kernel> = Simd::ALL.into_iter().filter_map(Kernel::new).collect();
        assert_eq!(kernels[0].simd(), Simd::Portable);
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for len in LENGTHS {
            let (lo, hi) = (i64::from(i16::MIN), i64::from(i16::MAX));
            let src = rng.vec(len, lo, hi);
            let plus = rng.vec(len, lo, hi);
            let minus = rng.vec(len, lo, hi);
            let mut want = src.clone();
            portable::add(&mut want, &plus);
            let mut want_sub = src.clone();
            portable::sub(&mut want_sub, &minus);
            let minus2 = rng.vec(len, lo, hi);
            let mut want_both = vec![0; len];
            portable::add_sub(&mut want_both, &src, &plus, &minus);
            let mut want_capture = want_both.clone();
            portable::sub(&mut want_capture, &minus2);
            for k in &kernels {
                let mut got = src.clone();
                k.add(&mut got, &plus);
                assert_eq!(got, want, "{k:?} add, len {len}");
                let mut got = src.clone();
                k.sub(&mut got, &minus);
                assert_eq!(got, want_sub, "{k:?} sub, len {len}");
                let mut got = vec![7; len];
                k.add_sub(&mut got, &src, &plus, &minus);
                assert_eq!(got, want_both, "{k:?} add_sub, len {len}");
                let mut got = vec![7; len];
                k.add_sub_sub(&mut got, &src, &plus, &minus, &minus2);
                assert_eq!(got, want_capture, "{k:?} add_sub_sub, len {len}");
            }
            // 8-bit rows, the extremes among them, widened as they are read: the same as the
            // portable loops on the rows in 16 bits.
            let narrow = |v: &[i16]| -> Vec<i8> { v.iter().map(|&x| (x >> 8) as i8).collect() };
            let (plus8, minus8, minus2_8) = (narrow(&plus), narrow(&minus), narrow(&minus2));
            let wide = |v: &[i8]| -> Vec<i16> { v.iter().map(|&x| i16::from(x)).collect() };
            let (plus16, minus16, minus2_16) = (wide(&plus8), wide(&minus8), wide(&minus2_8));
            let mut want = src.clone();
            portable::add(&mut want, &plus16);
            let mut want_sub = src.clone();
            portable::sub(&mut want_sub, &minus16);
            let mut want_capture = vec![0; len];
            portable::add_sub_sub(&mut want_capture, &src, &plus16, &minus16, &minus2_16);
            for k in &kernels {
                let mut got = src.clone();
                k.add(&mut got, &plus8);
                assert_eq!(got, want, "{k:?} 8-bit add, len {len}");
                let mut got = src.clone();
                k.sub(&mut got, &minus8);
                assert_eq!(got, want_sub, "{k:?} 8-bit sub, len {len}");
                let mut got = vec![7; len];
                k.add_sub(&mut got, &want_sub, &plus8, &minus2_8);
                let mut both = want_sub.clone();
                portable::add_sub(&mut both, &want_sub, &plus16, &minus2_16);
                assert_eq!(got, both, "{k:?} 8-bit add_sub, len {len}");
                let mut got = vec![7; len];
                k.add_sub_sub(&mut got, &src, &plus8, &minus8, &minus2_8);
                assert_eq!(got, want_capture, "{k:?} 8-bit add_sub_sub, len {len}");
            }
        }
        // The extremes themselves.
        for k in &kernels {
            let mut v = vec![i16::MAX - 100; 64];
            k.add(&mut v, &[i8::MIN; 64]);
            assert_eq!(v, vec![i16::MAX - 228; 64], "{k:?}");
            k.sub(&mut v, &[i8::MIN; 64]);
            k.add(&mut v, &[i8::MAX; 64]);
            assert_eq!(v, vec![i16::MIN + 26; 64], "{k:?} wraps");
        }
    }

    /// Every kernel's dot products equal a plain 64-bit sum, at the extremes of both inputs
    /// (where 32-bit lanes would overflow first) and on mixed values, at every length.
    #[test]
    fn each_kernels_dot_products_equal_a_plain_sum() {
        let plain = |x: &[i16], w: &[i16], square: bool| -> i64 {
            x.iter()
                .zip(w)
                .map(|(&a, &b)| {
                    let v = i64::from(a.clamp(0, QA as i16));
                    (if square { v * v } else { v }) * i64::from(b)
                })
                .sum()
        };
        let kernels: Vec<Kernel> = Simd::ALL.into_iter().filter_map(Kernel::new).collect();
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let m = i64::from(MAX_OUT_WEIGHT);
        for len in LENGTHS {
            let cases = [
                (vec![QA as i16; len], vec![MAX_OUT_WEIGHT; len]),
                (vec![i16::MAX; len], vec![-MAX_OUT_WEIGHT; len]),
                (vec![i16::MIN; len], vec![MAX_OUT_WEIGHT; len]),
                (rng.vec(len, -600, 600), rng.vec(len, -m, m)),
                (rng.vec(len, -40_000, 40_000), rng.vec(len, -m, m)),
            ];
            for (x, w) in &cases {
                for k in &kernels {
                    assert_eq!(k.screlu_dot(x, w), plain(x, w, true), "{k:?} screlu {len}");
                    assert_eq!(k.crelu_dot(x, w), plain(x, w, false), "{k:?} crelu {len}");
                }
            }
        }
    }

    #[test]
    fn aligned_weights_keep_their_values_on_cache_lines() {
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 768 * 256] {
            let v: Vec<i16> = (0..len).map(|i| (i as i16).wrapping_mul(7)).collect();
            let a = Aligned::from(v.clone());
            assert_eq!(&a[..], &v[..]);
            assert_eq!(a.as_ptr() as usize % 64, 0);
            let v8: Vec<i8> = v.iter().map(|&x| x as i8).collect();
            let a8 = Aligned::from(v8.clone());
            assert_eq!(&a8[..], &v8[..]);
            assert_eq!(a8.as_ptr() as usize % 64, 0);
        }
    }

    #[test]
    fn names_and_availability() {
        for s in Simd::ALL {
            assert_eq!(Simd::from_name(s.name()), Ok(s));
        }
        assert!(Simd::from_name("sse9").unwrap_err().contains("sse9"));
        assert!(Simd::Portable.available());
        assert_eq!(
            Kernel::new(Simd::best()).map(Kernel::simd),
            Some(Simd::best())
        );
        // Every set is in both orders once, the portable loops last.
        for amd in [false, true] {
            let order = Simd::preference(amd);
            assert!(Simd::ALL.iter().all(|s| order.contains(s)));
            assert_eq!(order[2], Simd::Portable);
        }
        assert!(Simd::preference(cpu_is_amd()).contains(&Simd::best()));
        // A set the CPU lacks has no kernel (on x86-64 without AVX-512, or any other CPU).
        for s in Simd::ALL {
            assert_eq!(Kernel::new(s).is_some(), s.available());
        }
    }
}
