//! The network compiled for inference on the CPU, without burn's per-operation dispatch.
//!
//! Search, self-play and the arena evaluate small batches of small boards, where burn's
//! `flex` backend spends most of its time around the arithmetic (an operation at a time,
//! batch norm apart from the convolutions, a fresh tensor per step). Here the trained
//! [`Net`] is read once into plain weight matrices: each batch norm folded into the
//! convolution before it (`w * gamma / sqrt(var + eps)`, bias `beta - mean * that`), each
//! 3x3 convolution one matrix product over an im2col copy of the activations (the
//! activations kept as `[position, point, channel]`, so that a point's channels are
//! one contiguous row), bias, residual and ReLU applied in one pass. The products run in
//! the `gemm` crate (the kernels burn's CPU backend uses too, AVX-512 or AVX2 picked at
//! run time).
//!
//! The outputs are burn's to rounding (tested in `tests/nn.rs`); [`crate::NetEvaluator`]
//! uses this path whenever the network lives on the CPU.

use crate::net::{ConvBn, Net};
use burn::nn::{BatchNorm, Linear};
use burn::prelude::*;

/// Positions run through the network together: enough rows for the matrix kernels,
/// few enough that a block's im2col copy (positions x points x 9 x channels floats)
/// stays in the core's L2 cache.
const CHUNK: usize = 8;

/// A convolution with its batch norm folded in, as a matrix: `w[(tap * cin + ci) * cout
/// + co]` for a kernel tap `tap` (row-major over the kernel), and a bias per output.
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

/// The network for CPU inference. Built from a [`Net`] by [`CpuNet::new`]; its outputs are
/// [`Net::forward`]'s.
#[derive(Clone, Debug)]
pub struct CpuNet {
    planes: usize,
    points: usize,
    /// For each point and 3x3 kernel tap, the point the tap reads, or `None` off the board.
    taps: Vec<[Option<u16>; 9]>,
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
    fn new(c: &ConvBn) -> Conv {
        let (conv, bn) = (&c.conv, &c.bn);
        let [cout, cin, kh, kw] = conv.weight.val().dims();
        debug_assert_eq!(kh, kw);
        let raw = floats(conv.weight.val()); // [cout, cin, kh, kw]
        let (scale, shift) = folded(bn);
        let taps = kh * kw;
        let mut w = vec![0.0; taps * cin * cout];
        for co in 0..cout {
            for ci in 0..cin {
                for t in 0..taps {
                    w[(t * cin + ci) * cout + co] = raw[(co * cin + ci) * taps + t] * scale[co];
                }
            }
        }
        Conv {
            cin,
            cout,
            kernel: kh,
            w,
            bias: shift,
        }
    }
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
        matmul(n, self.dout, self.din, &x[..n * self.din], &self.w, out);
        if relu {
            relu_in_place(out);
        }
    }
}

impl CpuNet {
    /// Reads `net`'s weights (batch norm in inference mode, with its running statistics).
    pub fn new(net: &Net, height: usize, width: usize) -> CpuNet {
        let points = height * width;
        let taps = (0..points)
            .map(|p| {
                let (y, x) = ((p / width) as isize, (p % width) as isize);
                std::array::from_fn(|t| {
                    let (dy, dx) = (t as isize / 3 - 1, t as isize % 3 - 1);
                    let (sy, sx) = (y + dy, x + dx);
                    (sy >= 0 && sy < height as isize && sx >= 0 && sx < width as isize)
                        .then(|| (sy as usize * width + sx as usize) as u16)
                })
            })
            .collect();
        let stem = Conv::new(&net.stem);
        let policy_conv = Conv::new(&net.policy_conv);
        let value_conv = Conv::new(&net.value_conv);
        CpuNet {
            planes: stem.cin,
            points,
            taps,
            blocks: net
                .blocks
                .iter()
                .map(|r| (Conv::new(&r.a), Conv::new(&r.b)))
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
        if threads > 1 && n > CHUNK {
            use rayon::prelude::*;
            let jobs: Vec<_> = jobs.collect();
            jobs.into_par_iter()
                .for_each_init(Scratch::default, |s, ((x, p), w)| {
                    self.chunk(x, x.len() / per, p, w, s)
                });
        } else {
            let mut s = Scratch::default();
            for ((x, p), w) in jobs {
                self.chunk(x, x.len() / per, p, w, &mut s);
            }
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
        let x0 = grow(&mut s.input, rows * self.planes);
        for b in 0..n {
            for c in 0..self.planes {
                for p in 0..points {
                    x0[(b * points + p) * self.planes + c] =
                        planes[(b * self.planes + c) * points + p];
                }
            }
        }
        let ch = self.stem.cout;
        grow(&mut s.x, rows * ch);
        grow(&mut s.y, rows * ch);
        self.conv(&self.stem, &s.input, n, &mut s.x, false, &mut s.cols);
        for (a, b) in &self.blocks {
            self.conv(a, &s.x, n, &mut s.y, false, &mut s.cols);
            // x = relu(x + b(y)): the product accumulates onto the skip connection.
            self.conv(b, &s.y, n, &mut s.x, true, &mut s.cols);
        }
        // Heads.
        let pc = self.policy_conv.cout;
        grow(&mut s.head, rows * pc.max(self.value_conv.cout));
        self.conv(&self.policy_conv, &s.x, n, &mut s.head, false, &mut s.cols);
        self.policy_fc.forward(&s.head, n, policy, false);
        self.conv(&self.value_conv, &s.x, n, &mut s.head, false, &mut s.cols);
        let hidden = grow(&mut s.hidden, n * self.value_fc1.dout);
        self.value_fc1.forward(&s.head, n, hidden, true);
        self.value_fc2.forward(&s.hidden, n, wdl, false);
    }

    /// `out = relu(conv(x) + bias [+ out])` over `n` positions, `[point, channel]` rows;
    /// with `skip`, `out` holds the skip connection on entry.
    fn conv(
        &self,
        c: &Conv,
        x: &[f32],
        n: usize,
        out: &mut [f32],
        skip: bool,
        cols: &mut Vec<f32>,
    ) {
        let rows = n * self.points;
        let out = &mut out[..rows * c.cout];
        for r in out.chunks_exact_mut(c.cout) {
            if skip {
                r.iter_mut().zip(&c.bias).for_each(|(o, b)| *o += b);
            } else {
                r.copy_from_slice(&c.bias);
            }
        }
        if c.kernel == 1 {
            matmul(rows, c.cout, c.cin, &x[..rows * c.cin], &c.w, out);
        } else {
            let k = 9 * c.cin;
            let a = grow(cols, rows * k);
            for b in 0..n {
                let base = b * self.points;
                for (p, taps) in self.taps.iter().enumerate() {
                    let row = &mut a[(base + p) * k..(base + p + 1) * k];
                    for (t, tap) in taps.iter().enumerate() {
                        let dst = &mut row[t * c.cin..(t + 1) * c.cin];
                        match tap {
                            Some(q) => {
                                let q = base + *q as usize;
                                dst.copy_from_slice(&x[q * c.cin..(q + 1) * c.cin]);
                            }
                            None => dst.fill(0.0),
                        }
                    }
                }
            }
            matmul(rows, c.cout, k, a, &c.w, out);
        }
        relu_in_place(out);
    }
}

/// Buffers reused from chunk to chunk.
#[derive(Default)]
struct Scratch {
    input: Vec<f32>,
    x: Vec<f32>,
    y: Vec<f32>,
    cols: Vec<f32>,
    head: Vec<f32>,
    hidden: Vec<f32>,
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

/// `c[m, n] += a[m, k] b[k, n]`, all row-major and dense.
///
/// # Panics
/// If a slice does not have its matrix's size.
fn matmul(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
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
            true,
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
