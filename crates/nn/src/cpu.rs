//! The network compiled for inference on the CPU, without burn's per-operation dispatch.
//!
//! Search, self-play and the arena evaluate small batches of small boards, where burn's
//! `flex` backend spends most of its time around the arithmetic (an operation at a time,
//! batch norm apart from the convolutions, a fresh tensor per step). Here the trained
//! [`Net`] is read once into plain weight matrices, each batch norm folded into the
//! convolution before it (`w * gamma / sqrt(var + eps)`, bias `beta - mean * that`), and
//! the activations are kept as `[position, point, channel]`.
//!
//! A 3x3 convolution is computed by Winograd's minimal filtering F(2x2, 3x3) (Lavin and
//! Gray, "Fast Algorithms for Convolutional Neural Networks", 2016): the board is cut into
//! 2x2 output tiles, each 4x4 input tile and each filter is transformed once, and the
//! convolution becomes 16 matrix products of `[tiles, in channels] x [in channels, out
//! channels]`, 2.25 times fewer multiplications than the direct form (1.7 times on
//! tsivy's 5x9 board, whose tiles overhang it). The products run in the `gemm` crate (the
//! kernels burn's CPU backend uses too, AVX-512 or AVX2 picked at run time), the
//! transforms in loops over channels compiled for the widest vector unit the CPU has.
//! Bias, skip connection and ReLU are applied in the output transform.
//!
//! The outputs are burn's to rounding (test `cpu_path_gives_burns_outputs`);
//! [`crate::NetEvaluator`] uses this path whenever the network lives on the CPU.

use crate::net::{ConvBn, Net};
use burn::nn::{BatchNorm, Linear};
use burn::prelude::*;

/// Positions run through the network together: enough rows for the matrix kernels,
/// few enough that a convolution's transformed tiles (16 x tiles x channels floats a
/// position, in and out) stay in the core's L2 cache.
const CHUNK: usize = 8;

/// A convolution with its batch norm folded in. For a 1x1 kernel `w[ci * cout + co]`;
/// for a 3x3 kernel the Winograd-transformed filters `w[(e * cin + ci) * cout + co]`,
/// `e` the 16 points of the transformed 4x4 tile.
#[derive(Clone, Debug)]
struct Conv {
    cin: usize,
    cout: usize,
    /// 1 or 3.
    kernel: usize,
    w: Vec<f32>,
    bias: Vec<f32>,
}

/// A fully connected layer: `w[i * dout + o]`, bias per output.
#[derive(Clone, Debug)]
struct Dense {
    din: usize,
    dout: usize,
    w: Vec<f32>,
    bias: Vec<f32>,
}

/// A 2x2 output tile of the board: the 16 points of its 4x4 input tile (row by row,
/// from one row and column before it) and its 4 output points, `None` off the board.
#[derive(Clone, Debug)]
struct Tile {
    input: [Option<u16>; 16],
    output: [Option<u16>; 4],
}

/// The network for CPU inference. Built from a [`Net`] by [`CpuNet::new`]; its outputs are
/// [`Net::forward`]'s.
#[derive(Clone, Debug)]
pub struct CpuNet {
    planes: usize,
    points: usize,
    tiles: Vec<Tile>,
    stem: Conv,
    blocks: Vec<(Conv, Conv)>,
    policy_conv: Conv,
    policy_fc: Dense,
    value_conv: Conv,
    value_fc1: Dense,
    value_fc2: Dense,
}

fn floats<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .expect("float parameters")
}

impl Conv {
    /// The convolution of `c`, with zero channels added to make `cin` inputs (at least
    /// its own) and, for a 3x3 kernel, whole blocks of [`simd::L`] outputs: those have
    /// no weights and no bias, so they stay zero through the ReLU.
    fn new(c: &ConvBn, cin: usize) -> Conv {
        let (conv, bn) = (&c.conv, &c.bn);
        let [cout_own, cin_own, kh, kw] = conv.weight.val().dims();
        assert!(cin >= cin_own, "padding adds channels");
        let cout = if kh == 1 {
            cout_own
        } else {
            cout_own.next_multiple_of(simd::L)
        };
        assert!(kh == kw && (kh == 1 || kh == 3), "1x1 or 3x3 kernels");
        let raw = floats(conv.weight.val()); // [cout, cin, kh, kw]
        let (scale, shift) = folded(bn);
        let mut w = vec![0.0; if kh == 1 { cin * cout } else { 16 * cin * cout }];
        for co in 0..cout_own {
            for ci in 0..cin_own {
                let g = &raw[(co * cin_own + ci) * kh * kw..(co * cin_own + ci + 1) * kh * kw];
                if kh == 1 {
                    w[ci * cout + co] = g[0] * scale[co];
                } else {
                    for (e, u) in winograd_filter(g).into_iter().enumerate() {
                        w[(e * cin + ci) * cout + co] = u * scale[co];
                    }
                }
            }
        }
        let mut bias = shift;
        bias.resize(cout, 0.0);
        Conv {
            cin,
            cout,
            kernel: kh,
            w,
            bias,
        }
    }
}

/// `G g G^T` of a 3x3 filter `g` (row-major), row-major 4x4: G's rows are `(1, 0, 0)`,
/// `(1/2, 1/2, 1/2)`, `(1/2, -1/2, 1/2)` and `(0, 0, 1)`.
fn winograd_filter(g: &[f32]) -> [f32; 16] {
    let side = |a: f32, b: f32, c: f32| [a, (a + b + c) / 2.0, (a - b + c) / 2.0, c];
    // G g: 4 rows of 3.
    let cols: [[f32; 4]; 3] = std::array::from_fn(|j| side(g[j], g[3 + j], g[6 + j]));
    let mut u = [0.0; 16];
    for i in 0..4 {
        let row = side(cols[0][i], cols[1][i], cols[2][i]);
        u[4 * i..4 * i + 4].copy_from_slice(&row);
    }
    u
}

/// A batch norm in inference as `x * scale + shift`.
fn folded(bn: &BatchNorm) -> (Vec<f32>, Vec<f32>) {
    let gamma = floats(bn.gamma.val());
    let beta = floats(bn.beta.val());
    let mean = floats(bn.running_mean.value());
    let var = floats(bn.running_var.value());
    let scale: Vec<f32> = gamma
        .iter()
        .zip(&var)
        .map(|(g, v)| g / (v + bn.epsilon as f32).sqrt())
        .collect();
    let shift = beta
        .iter()
        .zip(&mean)
        .zip(&scale)
        .map(|((b, m), s)| b - m * s)
        .collect();
    (scale, shift)
}

impl Dense {
    /// A linear layer; with `points` and `channels`, its input is a flattened `[channels,
    /// points]` map that this path holds as `[points, channels]`, and the rows are
    /// reordered to match.
    fn new(l: &Linear, map: Option<(usize, usize)>) -> Dense {
        let [din, dout] = l.weight.val().dims();
        let raw = floats(l.weight.val()); // [din, dout]
        let w = match map {
            None => raw,
            Some((points, channels)) => {
                debug_assert_eq!(points * channels, din);
                let mut w = vec![0.0; din * dout];
                for c in 0..channels {
                    for p in 0..points {
                        let from = (c * points + p) * dout;
                        let to = (p * channels + c) * dout;
                        w[to..to + dout].copy_from_slice(&raw[from..from + dout]);
                    }
                }
                w
            }
        };
        let bias = l
            .bias
            .as_ref()
            .map_or_else(|| vec![0.0; dout], |b| floats(b.val()));
        Dense { din, dout, w, bias }
    }

    /// `out[n, dout] = x[n, din] w + bias`, then ReLU with `relu`.
    fn forward(&self, x: &[f32], n: usize, out: &mut [f32], relu: bool) {
        let out = &mut out[..n * self.dout];
        for row in out.chunks_exact_mut(self.dout) {
            row.copy_from_slice(&self.bias);
        }
        matmul(
            n,
            self.dout,
            self.din,
            &x[..n * self.din],
            &self.w,
            out,
            true,
        );
        if relu {
            relu_in_place(out);
        }
    }
}

impl CpuNet {
    /// Reads `net`'s weights (batch norm in inference mode, with its running statistics).
    pub fn new(net: &Net, height: usize, width: usize) -> CpuNet {
        let points = height * width;
        let at = |y: isize, x: isize| {
            (y >= 0 && y < height as isize && x >= 0 && x < width as isize)
                .then(|| (y as usize * width + x as usize) as u16)
        };
        let mut tiles = Vec::new();
        for ty in (0..height as isize).step_by(2) {
            for tx in (0..width as isize).step_by(2) {
                tiles.push(Tile {
                    input: std::array::from_fn(|k| {
                        at(ty - 1 + k as isize / 4, tx - 1 + k as isize % 4)
                    }),
                    output: std::array::from_fn(|k| at(ty + k as isize / 2, tx + k as isize % 2)),
                });
            }
        }
        // The input planes and the tower's channels padded to whole vector blocks, for
        // the transforms' sake.
        let planes = net.stem.conv.weight.val().dims()[1];
        let stem = Conv::new(&net.stem, planes.next_multiple_of(simd::L));
        let tower = stem.cout;
        let policy_conv = Conv::new(&net.policy_conv, tower);
        let value_conv = Conv::new(&net.value_conv, tower);
        CpuNet {
            planes,
            points,
            tiles,
            blocks: net
                .blocks
                .iter()
                .map(|r| (Conv::new(&r.a, tower), Conv::new(&r.b, tower)))
                .collect(),
            policy_fc: Dense::new(&net.policy_fc, Some((points, policy_conv.cout))),
            value_fc1: Dense::new(&net.value_fc1, Some((points, value_conv.cout))),
            value_fc2: Dense::new(&net.value_fc2, None),
            stem,
            policy_conv,
            value_conv,
        }
    }

    /// Policy outputs per position.
    pub fn actions(&self) -> usize {
        self.policy_fc.dout
    }

    /// [`Net::forward`] on `n` encoded positions (`[n, planes, height, width]` flattened):
    /// policy logits `[n, actions]` and WDL logits `[n, 3]`, flattened. With `threads`
    /// above 1, chunks of the batch run on rayon's pool.
    ///
    /// # Panics
    /// If `planes` does not hold `n` positions.
    pub fn forward(&self, planes: &[f32], n: usize, threads: usize) -> (Vec<f32>, Vec<f32>) {
        let per = self.planes * self.points;
        assert_eq!(planes.len(), n * per, "planes for {n} positions");
        let actions = self.actions();
        let mut policy = vec![0.0; n * actions];
        let mut wdl = vec![0.0; n * 3];
        let jobs = planes
            .chunks(CHUNK * per)
            .zip(policy.chunks_mut(CHUNK * actions))
            .zip(wdl.chunks_mut(CHUNK * 3));
        // Each thread keeps its buffers from call to call (growing them is page faults).
        let run = |((x, p), w): ((&[f32], &mut [f32]), &mut [f32])| {
            SCRATCH.with_borrow_mut(|s| self.chunk(x, x.len() / per, p, w, s));
        };
        if threads > 1 && n > CHUNK {
            use rayon::prelude::*;
            jobs.collect::<Vec<_>>().into_par_iter().for_each(run);
        } else {
            // A batch of one chunk stays on this thread: splitting a convolution's
            // products across threads costs more than it saves (measured at batch 1).
            jobs.for_each(run);
        }
        (policy, wdl)
    }

    /// Up to [`CHUNK`] positions through the whole network.
    fn chunk(
        &self,
        planes: &[f32],
        n: usize,
        policy: &mut [f32],
        wdl: &mut [f32],
        s: &mut Scratch,
    ) {
        let points = self.points;
        let rows = n * points;
        // [position, plane, point] to [position, point, plane].
        let stride = self.stem.cin;
        let x0 = grow(&mut s.input, rows * stride);
        x0.fill(0.0);
        for b in 0..n {
            for c in 0..self.planes {
                for p in 0..points {
                    x0[(b * points + p) * stride + c] = planes[(b * self.planes + c) * points + p];
                }
            }
        }
        let ch = self.stem.cout;
        grow(&mut s.x, rows * ch);
        grow(&mut s.y, rows * ch);
        self.conv(&self.stem, &s.input, n, &mut s.x, false, &mut s.work);
        for (a, b) in &self.blocks {
            self.conv(a, &s.x, n, &mut s.y, false, &mut s.work);
            // x = relu(x + b(y)): the output transform adds the skip connection in x.
            self.conv(b, &s.y, n, &mut s.x, true, &mut s.work);
        }
        // Heads.
        let pc = self.policy_conv.cout;
        grow(&mut s.head, rows * pc.max(self.value_conv.cout));
        self.conv(&self.policy_conv, &s.x, n, &mut s.head, false, &mut s.work);
        self.policy_fc.forward(&s.head, n, policy, false);
        self.conv(&self.value_conv, &s.x, n, &mut s.head, false, &mut s.work);
        let hidden = grow(&mut s.hidden, n * self.value_fc1.dout);
        self.value_fc1.forward(&s.head, n, hidden, true);
        self.value_fc2.forward(&s.hidden, n, wdl, false);
    }

    /// `out = relu(conv(x) + bias [+ out])` over `n` positions, `[point, channel]` rows;
    /// with `skip`, `out` holds the skip connection on entry.
    fn conv(&self, c: &Conv, x: &[f32], n: usize, out: &mut [f32], skip: bool, s: &mut Work) {
        let rows = n * self.points;
        let out = &mut out[..rows * c.cout];
        if c.kernel == 1 {
            for r in out.chunks_exact_mut(c.cout) {
                r.copy_from_slice(&c.bias);
            }
            matmul(rows, c.cout, c.cin, &x[..rows * c.cin], &c.w, out, true);
            relu_in_place(out);
            return;
        }
        let rows = n * self.tiles.len();
        let zeros = grow(&mut s.zeros, c.cin);
        zeros.fill(0.0);
        let v = grow(&mut s.v, 16 * rows * c.cin);
        simd::input_transform(
            &self.tiles,
            self.points,
            &x[..n * self.points * c.cin],
            n,
            &s.zeros[..c.cin],
            v,
        );
        let m = grow(&mut s.m, 16 * rows * c.cout);
        let product = |(e, (v, m)): (usize, (&[f32], &mut [f32]))| {
            let u = &c.w[e * c.cin * c.cout..(e + 1) * c.cin * c.cout];
            matmul(rows, c.cout, c.cin, v, u, m, false);
        };
        s.v[..16 * rows * c.cin]
            .chunks_exact(rows * c.cin)
            .zip(m.chunks_exact_mut(rows * c.cout))
            .enumerate()
            .for_each(product);
        simd::output_transform(
            &self.tiles,
            self.points,
            &s.m[..16 * rows * c.cout],
            n,
            &c.bias,
            out,
            skip,
        );
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Buffers reused from chunk to chunk.
#[derive(Default)]
struct Scratch {
    input: Vec<f32>,
    x: Vec<f32>,
    y: Vec<f32>,
    head: Vec<f32>,
    hidden: Vec<f32>,
    work: Work,
}

/// A convolution's working space.
#[derive(Default)]
struct Work {
    zeros: Vec<f32>,
    /// The transformed input tiles, 16 matrices `[tiles, cin]`.
    v: Vec<f32>,
    /// Their products with the transformed filters, 16 matrices `[tiles, cout]`.
    m: Vec<f32>,
}

/// `v` with at least `len` elements, as a slice of `len`.
fn grow(v: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if v.len() < len {
        v.resize(len, 0.0);
    }
    &mut v[..len]
}

fn relu_in_place(x: &mut [f32]) {
    for v in x {
        *v = v.max(0.0);
    }
}

/// `c[m, n] = a[m, k] b[k, n]`, or `+=` with `accumulate`, all row-major and dense.
///
/// # Panics
/// If a slice does not have its matrix's size.
fn matmul(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32], accumulate: bool) {
    assert_eq!(a.len(), m * k, "lhs of {m}x{k}");
    assert_eq!(b.len(), k * n, "rhs of {k}x{n}");
    assert_eq!(c.len(), m * n, "destination of {m}x{n}");
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: the three slices have been checked above to hold exactly the m x k, k x n
    // and m x n row-major matrices described by the strides (column stride 1, row stride
    // the width), so every element gemm reads or writes is inside its slice; `c` is a
    // unique borrow, so the destination aliases neither operand.
    #[allow(unsafe_code)]
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// The Winograd transforms, compiled for the widest vector unit of the CPU they run on.
mod simd {
    use super::Tile;

    /// Defines `pub(super) fn $name`, which runs `$body` (an `#[inline(always)]` function
    /// of the same arguments) compiled for AVX-512 or AVX2 when the CPU has them (checked
    /// at run time, once cached), else for the build's baseline.
    macro_rules! multiversion {
        ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) => $body:ident) => {
            $(#[$doc])*
            #[allow(clippy::too_many_arguments)]
            pub(super) fn $name($($arg: $ty),*) {
                #[cfg(target_arch = "x86_64")]
                {
                    #[target_feature(enable = "avx512f")]
                    #[allow(clippy::too_many_arguments)]
                    fn avx512($($arg: $ty),*) {
                        $body($($arg),*)
                    }
                    #[target_feature(enable = "avx2")]
                    #[allow(clippy::too_many_arguments)]
                    fn avx2($($arg: $ty),*) {
                        $body($($arg),*)
                    }
                    if std::arch::is_x86_feature_detected!("avx512f") {
                        // SAFETY: `avx512` needs AVX-512F, which the line above found.
                        #[allow(unsafe_code)]
                        return unsafe { avx512($($arg),*) };
                    }
                    if std::arch::is_x86_feature_detected!("avx2") {
                        // SAFETY: `avx2` needs AVX2, which the line above found.
                        #[allow(unsafe_code)]
                        return unsafe { avx2($($arg),*) };
                    }
                }
                $body($($arg),*)
            }
        };
    }

    multiversion! {
        /// `v[e][b, tile][ci] = (B^T d B)[e]` for the 4x4 input tile `d` of every position
        /// `b` and tile, B^T's rows being `(1, 0, -1, 0)`, `(0, 1, 1, 0)`, `(0, -1, 1, 0)`
        /// and `(0, 1, 0, -1)`. `x` holds `n` positions of `points` rows of `zeros.len()`
        /// channels.
        fn input_transform(
            tiles: &[Tile], points: usize, x: &[f32], n: usize, zeros: &[f32], v: &mut [f32]
        ) => input
    }

    multiversion! {
        /// The output tiles `A^T m A` of the 16 products `m` (A^T's rows `(1, 1, 1, 0)` and
        /// `(0, 1, -1, -1)`), plus `bias` (plus the skip connection already in `out` with
        /// `skip`), through ReLU, into `out`'s on-board points.
        fn output_transform(
            tiles: &[Tile], points: usize, m: &[f32], n: usize, bias: &[f32], out: &mut [f32],
            skip: bool
        ) => output
    }

    /// Channels handled together: one AVX-512 register of `f32`.
    pub(super) const L: usize = 16;

    /// A block of [`L`] channels; its arithmetic is one vector instruction.
    #[derive(Clone, Copy)]
    struct V([f32; L]);

    macro_rules! lanewise {
        ($tr:ident, $f:ident, $op:tt) => {
            impl std::ops::$tr for V {
                type Output = V;
                #[inline(always)]
                fn $f(self, o: V) -> V {
                    let mut r = [0.0; L];
                    for l in 0..L {
                        r[l] = self.0[l] $op o.0[l];
                    }
                    V(r)
                }
            }
        };
    }
    lanewise!(Add, add, +);
    lanewise!(Sub, sub, -);

    impl V {
        /// `s[at..at + L]`.
        #[inline(always)]
        fn load(s: &[f32], at: usize) -> V {
            V(s[at..at + L].try_into().expect("a whole block"))
        }
        /// Into `s[at..at + L]`.
        #[inline(always)]
        fn store(self, s: &mut [f32], at: usize) {
            let to: &mut [f32; L] = (&mut s[at..at + L]).try_into().expect("a whole block");
            *to = self.0;
        }
        #[inline(always)]
        fn relu(self) -> V {
            let mut r = self.0;
            for v in &mut r {
                *v = v.max(0.0);
            }
            V(r)
        }
    }

    /// Column `j` of B^T d for channels `ci..ci + L`.
    #[inline(always)]
    fn input_column(d: &[&[f32]; 16], j: usize, ci: usize) -> [V; 4] {
        let (d0, d1) = (V::load(d[j], ci), V::load(d[4 + j], ci));
        let (d2, d3) = (V::load(d[8 + j], ci), V::load(d[12 + j], ci));
        [d0 - d2, d1 + d2, d2 - d1, d1 - d3]
    }

    /// Column `j` of A^T m for channels `at..at + L` of the 16 products `stride` apart.
    #[inline(always)]
    fn output_column(m: &[f32], j: usize, stride: usize, at: usize) -> (V, V) {
        let (m0, m1) = (
            V::load(m, j * stride + at),
            V::load(m, (4 + j) * stride + at),
        );
        let (m2, m3) = (
            V::load(m, (8 + j) * stride + at),
            V::load(m, (12 + j) * stride + at),
        );
        (m0 + m1 + m2, m1 - m2 - m3)
    }

    #[inline(always)]
    fn input(tiles: &[Tile], points: usize, x: &[f32], n: usize, zeros: &[f32], v: &mut [f32]) {
        let c = zeros.len();
        let rows = n * tiles.len();
        let stride = rows * c;
        for b in 0..n {
            let board = &x[b * points * c..(b + 1) * points * c];
            for (t, tile) in tiles.iter().enumerate() {
                // Loops, not `array::from_fn`, which is not inlined into the vector code.
                let mut d: [&[f32]; 16] = [zeros; 16];
                for (d, q) in d.iter_mut().zip(tile.input) {
                    if let Some(q) = q {
                        *d = &board[q as usize * c..(q as usize + 1) * c];
                    }
                }
                let at = (b * tiles.len() + t) * c;
                for ci in (0..c).step_by(L) {
                    // No closures here: they would be compiled apart, without the
                    // vector unit. Columns of B^T d, then rows of (B^T d) B.
                    let (c0, c1) = (input_column(&d, 0, ci), input_column(&d, 1, ci));
                    let (c2, c3) = (input_column(&d, 2, ci), input_column(&d, 3, ci));
                    for i in 0..4 {
                        let (r0, r1, r2, r3) = (c0[i], c1[i], c2[i], c3[i]);
                        let to = (4 * i) * stride + at + ci;
                        (r0 - r2).store(v, to);
                        (r1 + r2).store(v, to + stride);
                        (r2 - r1).store(v, to + 2 * stride);
                        (r1 - r3).store(v, to + 3 * stride);
                    }
                }
            }
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn output(
        tiles: &[Tile],
        points: usize,
        m: &[f32],
        n: usize,
        bias: &[f32],
        out: &mut [f32],
        skip: bool,
    ) {
        let c = bias.len();
        let rows = n * tiles.len();
        let stride = rows * c;
        for b in 0..n {
            for (t, tile) in tiles.iter().enumerate() {
                let at = (b * tiles.len() + t) * c;
                for co in (0..c).step_by(L) {
                    let c0 = output_column(m, 0, stride, at + co);
                    let c1 = output_column(m, 1, stride, at + co);
                    let c2 = output_column(m, 2, stride, at + co);
                    let c3 = output_column(m, 3, stride, at + co);
                    let y = [
                        c0.0 + c1.0 + c2.0,
                        c1.0 - c2.0 - c3.0,
                        c0.1 + c1.1 + c2.1,
                        c1.1 - c2.1 - c3.1,
                    ];
                    let bias = V::load(bias, co);
                    for (y, p) in y.into_iter().zip(tile.output) {
                        let Some(p) = p else { continue };
                        let to = (b * points + p as usize) * c + co;
                        let y = if skip {
                            y + bias + V::load(out, to)
                        } else {
                            y + bias
                        };
                        y.relu().store(out, to);
                    }
                }
            }
        }
    }
}
