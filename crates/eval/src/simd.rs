//! The learned evaluation's two integer kernels, in 16-bit lanes, compiled three times on
//! x86-64 (AVX-512, AVX2, and the build's baseline) and picked once by what the processor
//! says it has; elsewhere the baseline alone, which the compiler vectorises for that
//! target (WebAssembly with `simd128` has its own leaf kernel).
//!
//! Why `unsafe` here, and only here: the project builds for x86-64-v2 (SSE4.2), whose
//! vectors hold 8 lanes of 16 bits; AVX2 holds 16 and AVX-512 32, which is what lets a
//! network 4 to 8 times wider than the 32-unit one cost the search about what that one
//! does. A function compiled for features the build does not assume may only be called
//! where the processor has them, which the compiler cannot check: each call below is made
//! only through a [`Level`] that [`Level::detect`] found, the one way to make the faster
//! levels. The accumulator's update is plain Rust over fixed-size chunks, the same source
//! for every level, which the compiler turns into vector instructions of the width the
//! level allows; the leaf's kernel is written with `std::arch` intrinsics (the compiler
//! does not find the multiply-add of pairs in the plain loop), whose only unsafe
//! operations are loads of whole `[i16; N]` arrays. Nightly's `std::simd` is not
//! available on the stable toolchain, `wide` chooses at compile time (the baseline here),
//! and `pulp` would dispatch in the same way with more API than two kernels need.
#![allow(unsafe_code)]

/// Lanes of a chunk: hidden widths are padded to a multiple of this (one AVX-512 vector,
/// two AVX2 ones).
pub(crate) const LANES: usize = 32;

/// The extra rows the output kernel adds to the accumulator (one for each count among
/// the learned evaluation's dense inputs).
pub(crate) const EXTRA: usize = 4;

/// Which compilation of the kernels this processor runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Level(Kind);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    Baseline,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    /// The widest level this processor runs (`FANORONA_SIMD=baseline|avx2` asks for a
    /// narrower one, to compare them; a wider one than the processor has is never used),
    /// found once a process: every network quantized after asks again (tree learning
    /// does at each step).
    pub(crate) fn detect() -> Level {
        static LEVEL: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
        *LEVEL.get_or_init(Level::probe)
    }

    /// What [`Level::detect`] finds.
    fn probe() -> Level {
        #[cfg(target_arch = "x86_64")]
        {
            let cap = std::env::var("FANORONA_SIMD").unwrap_or_default();
            let avx512 = std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw");
            let avx2 = std::arch::is_x86_feature_detected!("avx2");
            return Level(match cap.as_str() {
                "baseline" => Kind::Baseline,
                "avx2" if avx2 => Kind::Avx2,
                _ if avx512 && cap != "avx2" => Kind::Avx512,
                _ if avx2 => Kind::Avx2,
                _ => Kind::Baseline,
            });
        }
        #[allow(unreachable_code)]
        Level(Kind::Baseline)
    }

    /// The level's name, for the benchmark's line.
    pub(crate) fn name(self) -> &'static str {
        match self.0 {
            Kind::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => "avx512",
        }
    }
}

/// `dst = src + Σ rows[add] - Σ rows[sub]`, lane by lane in wrapping 16-bit arithmetic
/// (exact whenever the true result fits, whatever the order), where row `r` is
/// `rows[r * w..(r + 1) * w]` and `w = dst.len() = src.len()`, a multiple of [`LANES`].
#[inline(always)]
fn update_body(dst: &mut [i16], src: &[i16], rows: &[i16], add: &[u16], sub: &[u16]) {
    // The whole accumulator in registers while the rows are added (eight AVX-512
    // vectors hold 256 lanes), for the widths the engine's networks have; other widths
    // a chunk at a time.
    // WebAssembly's engines have 16 vector registers of 128 bits: a chunk at a time.
    if cfg!(target_arch = "wasm32") {
        return update_chunks(dst, src, rows, add, sub);
    }
    match dst.len() / LANES {
        1 => update_whole::<1>(dst, src, rows, add, sub),
        2 => update_whole::<2>(dst, src, rows, add, sub),
        4 => update_whole::<4>(dst, src, rows, add, sub),
        8 => update_whole::<8>(dst, src, rows, add, sub),
        _ => update_chunks(dst, src, rows, add, sub),
    }
}

/// [`update_body`] for a width of `N` chunks, the sums held in `N` chunks of locals.
#[inline(always)]
fn update_whole<const N: usize>(
    dst: &mut [i16],
    src: &[i16],
    rows: &[i16],
    add: &[u16],
    sub: &[u16],
) {
    let w = N * LANES;
    let row = |r: u16| -> &[[i16; LANES]; N] {
        let (chunks, _) = rows[r as usize * w..(r as usize + 1) * w].as_chunks::<LANES>();
        chunks.try_into().expect("a row is N chunks")
    };
    let (src, _) = src[..w].as_chunks::<LANES>();
    let mut t: [[i16; LANES]; N] = src.try_into().expect("N chunks");
    for &r in add {
        let row = row(r);
        for c in 0..N {
            for l in 0..LANES {
                t[c][l] = t[c][l].wrapping_add(row[c][l]);
            }
        }
    }
    for &r in sub {
        let row = row(r);
        for c in 0..N {
            for l in 0..LANES {
                t[c][l] = t[c][l].wrapping_sub(row[c][l]);
            }
        }
    }
    dst[..w].as_chunks_mut::<LANES>().0.copy_from_slice(&t);
}

/// [`update_body`] a chunk at a time.
#[inline(always)]
fn update_chunks(dst: &mut [i16], src: &[i16], rows: &[i16], add: &[u16], sub: &[u16]) {
    let w = dst.len();
    let row = |r: u16| {
        rows[r as usize * w..(r as usize + 1) * w]
            .as_chunks::<LANES>()
            .0
    };
    let (dst, _) = dst.as_chunks_mut::<LANES>();
    for (c, (d, s)) in dst.iter_mut().zip(src.as_chunks::<LANES>().0).enumerate() {
        let mut t = *s;
        for &r in add {
            let row = &row(r)[c];
            for l in 0..LANES {
                t[l] = t[l].wrapping_add(row[l]);
            }
        }
        for &r in sub {
            let row = &row(r)[c];
            for l in 0..LANES {
                t[l] = t[l].wrapping_sub(row[l]);
            }
        }
        *d = t;
    }
}

/// `Σ_u max(0, acc[u] + Σ_j rows[extra[j]][u]) * w2[u]`: the hidden layer's
/// pre-activations from the accumulator and a few more rows (wrapping 16-bit, exact when
/// the true sums fit, which the caller's scales ensure), the ReLU, and the output layer's
/// dot product in 32 bits (likewise). Row `r` is `rows[r * w..(r + 1) * w]`, `w =
/// acc.len() = w2.len()`.
#[inline(always)]
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
fn output_body(acc: &[i16], rows: &[i16], extra: &[u16; EXTRA], w2: &[i16]) -> i32 {
    let w = acc.len();
    let row = |r: u16| {
        rows[r as usize * w..(r as usize + 1) * w]
            .as_chunks::<LANES>()
            .0
    };
    let extra = [row(extra[0]), row(extra[1]), row(extra[2]), row(extra[3])];
    let mut sum = 0i32;
    let chunks = acc
        .as_chunks::<LANES>()
        .0
        .iter()
        .zip(w2.as_chunks::<LANES>().0);
    for (c, (a, w2)) in chunks.enumerate() {
        let mut z = *a;
        for row in &extra {
            let row = &row[c];
            for l in 0..LANES {
                z[l] = z[l].wrapping_add(row[l]);
            }
        }
        for l in 0..LANES {
            sum = sum.wrapping_add(i32::from(z[l].max(0)) * i32::from(w2[l]));
        }
    }
    sum
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn update_avx2(dst: &mut [i16], src: &[i16], rows: &[i16], add: &[u16], sub: &[u16]) {
    update_body(dst, src, rows, add, sub)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn update_avx512(dst: &mut [i16], src: &[i16], rows: &[i16], add: &[u16], sub: &[u16]) {
    update_body(dst, src, rows, add, sub)
}

/// [`output_body`] in AVX2's instructions, written out: the compiler does not find the
/// multiply-add of pairs (`vpmaddwd`) in the plain loop, and without it the products cost
/// more than everything else here.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn output_avx2(acc: &[i16], rows: &[i16], extra: &[u16; EXTRA], w2: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    const V: usize = 16;
    let w = acc.len();
    let row = |r: u16| {
        rows[r as usize * w..(r as usize + 1) * w]
            .as_chunks::<V>()
            .0
    };
    let extra = [row(extra[0]), row(extra[1]), row(extra[2]), row(extra[3])];
    // SAFETY: each load reads the 32 bytes of one `[i16; 16]`, which `_mm256_loadu_si256`
    // may read unaligned.
    let load = |x: &[i16; V]| unsafe { _mm256_loadu_si256(x.as_ptr().cast()) };
    let mut sum = _mm256_setzero_si256();
    let chunks = acc.as_chunks::<V>().0.iter().zip(w2.as_chunks::<V>().0);
    for (c, (a, w2)) in chunks.enumerate() {
        let mut z = load(a);
        for row in &extra {
            z = _mm256_add_epi16(z, load(&row[c]));
        }
        let z = _mm256_max_epi16(z, _mm256_setzero_si256());
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(z, load(w2)));
    }
    let s = _mm_add_epi32(
        _mm256_castsi256_si128(sum),
        _mm256_extracti128_si256::<1>(sum),
    );
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
    _mm_cvtsi128_si32(s)
}

/// [`output_avx2`] in AVX-512's.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn output_avx512(acc: &[i16], rows: &[i16], extra: &[u16; EXTRA], w2: &[i16]) -> i32 {
    use std::arch::x86_64::*;
    const V: usize = 32;
    let w = acc.len();
    let row = |r: u16| {
        rows[r as usize * w..(r as usize + 1) * w]
            .as_chunks::<V>()
            .0
    };
    let extra = [row(extra[0]), row(extra[1]), row(extra[2]), row(extra[3])];
    // SAFETY: each load reads the 64 bytes of one `[i16; 32]`, which `_mm512_loadu_si512`
    // may read unaligned.
    let load = |x: &[i16; V]| unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
    let mut sum = _mm512_setzero_si512();
    let chunks = acc.as_chunks::<V>().0.iter().zip(w2.as_chunks::<V>().0);
    for (c, (a, w2)) in chunks.enumerate() {
        let mut z = load(a);
        for row in &extra {
            z = _mm512_add_epi16(z, load(&row[c]));
        }
        let z = _mm512_max_epi16(z, _mm512_setzero_si512());
        sum = _mm512_add_epi32(sum, _mm512_madd_epi16(z, load(w2)));
    }
    _mm512_reduce_add_epi32(sum)
}

/// [`output_body`] in WebAssembly's 128-bit instructions, written out for the same
/// reason as [`output_avx2`] (`i32x4_dot_i16x8` is `vpmaddwd`'s counterpart); the build
/// enables `simd128` (`crates/web/build.sh`), so no run-time choice is needed.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn output_wasm(acc: &[i16], rows: &[i16], extra: &[u16; EXTRA], w2: &[i16]) -> i32 {
    use std::arch::wasm32::*;
    const V: usize = 8;
    let w = acc.len();
    let row = |r: u16| {
        rows[r as usize * w..(r as usize + 1) * w]
            .as_chunks::<V>()
            .0
    };
    let extra = [row(extra[0]), row(extra[1]), row(extra[2]), row(extra[3])];
    // SAFETY: each load reads the 16 bytes of one `[i16; 8]`; `v128_load` may read them
    // unaligned.
    let load = |x: &[i16; V]| unsafe { v128_load(x.as_ptr().cast()) };
    let mut sum = i32x4_splat(0);
    let chunks = acc.as_chunks::<V>().0.iter().zip(w2.as_chunks::<V>().0);
    for (c, (a, w2)) in chunks.enumerate() {
        let mut z = load(a);
        for row in &extra {
            z = i16x8_add(z, load(&row[c]));
        }
        let z = i16x8_max(z, i16x8_splat(0));
        sum = i32x4_add(sum, i32x4_dot_i16x8(z, load(w2)));
    }
    i32x4_extract_lane::<0>(sum)
        .wrapping_add(i32x4_extract_lane::<1>(sum))
        .wrapping_add(i32x4_extract_lane::<2>(sum))
        .wrapping_add(i32x4_extract_lane::<3>(sum))
}

/// [`update_body`] at `level`.
#[inline]
pub(crate) fn update(
    level: Level,
    dst: &mut [i16],
    src: &[i16],
    rows: &[i16],
    add: &[u16],
    sub: &[u16],
) {
    debug_assert!(dst.len() == src.len() && dst.len().is_multiple_of(LANES));
    match level.0 {
        Kind::Baseline => update_body(dst, src, rows, add, sub),
        // SAFETY: a `Level` of this kind is made only by `Level::detect`, after the
        // processor said it has AVX2.
        #[cfg(target_arch = "x86_64")]
        Kind::Avx2 => unsafe { update_avx2(dst, src, rows, add, sub) },
        // SAFETY: likewise, AVX-512F and AVX-512BW detected.
        #[cfg(target_arch = "x86_64")]
        Kind::Avx512 => unsafe { update_avx512(dst, src, rows, add, sub) },
    }
}

/// [`output_body`] at `level`.
#[inline]
pub(crate) fn output(
    level: Level,
    acc: &[i16],
    rows: &[i16],
    extra: &[u16; EXTRA],
    w2: &[i16],
) -> i32 {
    debug_assert!(acc.len() == w2.len());
    match level.0 {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kind::Baseline => output_wasm(acc, rows, extra, w2),
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        Kind::Baseline => output_body(acc, rows, extra, w2),
        // SAFETY: as in `update`.
        #[cfg(target_arch = "x86_64")]
        Kind::Avx2 => unsafe { output_avx2(acc, rows, extra, w2) },
        // SAFETY: as in `update`.
        #[cfg(target_arch = "x86_64")]
        Kind::Avx512 => unsafe { output_avx512(acc, rows, extra, w2) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// Every level this processor runs gives the baseline's results, bit for bit.
    #[test]
    fn every_level_computes_the_same() {
        let mut levels = vec![Level(Kind::Baseline)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                levels.push(Level(Kind::Avx2));
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                levels.push(Level(Kind::Avx512));
            }
        }
        let mut rng = SmallRng::seed_from_u64(1);
        for w in [LANES, 3 * LANES, 4 * LANES, 8 * LANES] {
            let rows: Vec<i16> = (0..90 * w).map(|_| rng.random_range(-500..500)).collect();
            let src: Vec<i16> = (0..w).map(|_| rng.random_range(-3000..3000)).collect();
            let w2: Vec<i16> = (0..w).map(|_| rng.random_range(-900..900)).collect();
            let add: Vec<u16> = (0..6).map(|_| rng.random_range(0..90)).collect();
            let sub: Vec<u16> = (0..5).map(|_| rng.random_range(0..90)).collect();
            let extra = [7, 3, 89, 1];
            let mut want = vec![0; w];
            update_body(&mut want, &src, &rows, &add, &sub);
            for (u, &x) in want.iter().enumerate() {
                let naive = i32::from(src[u])
                    + add
                        .iter()
                        .map(|&r| i32::from(rows[r as usize * w + u]))
                        .sum::<i32>()
                    - sub
                        .iter()
                        .map(|&r| i32::from(rows[r as usize * w + u]))
                        .sum::<i32>();
                assert_eq!(i32::from(x), naive);
            }
            let dot = output_body(&want, &rows, &extra, &w2);
            let naive: i64 = (0..w)
                .map(|u| {
                    let z = i64::from(want[u])
                        + extra
                            .iter()
                            .map(|&r| i64::from(rows[r as usize * w + u]))
                            .sum::<i64>();
                    z.max(0) * i64::from(w2[u])
                })
                .sum();
            assert_eq!(i64::from(dot), naive);
            for &level in &levels {
                let mut got = vec![0; w];
                update(level, &mut got, &src, &rows, &add, &sub);
                assert_eq!(got, want, "{}", level.name());
                assert_eq!(output(level, &want, &rows, &extra, &w2), dot);
            }
        }
        assert_eq!(Level::default().name(), "baseline");
        assert!(levels.contains(&Level::detect()) || std::env::var("FANORONA_SIMD").is_ok());
    }
}
