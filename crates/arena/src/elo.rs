//! Elo ratings by maximum likelihood (draws count half) with 95 % confidence intervals,
//! and the sequential probability ratio test for deciding between two Elo hypotheses.

/// One pairing's results, from the first player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairResult {
    /// Index of the first player.
    pub a: usize,
    /// Index of the second.
    pub b: usize,
    /// Wins of `a`.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses of `a`.
    pub losses: u32,
}

/// A player's rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// Elo relative to the anchor (0). Infinite when every game was won or lost.
    pub elo: f64,
    /// Lower end of the 95 % interval (`-inf` when open).
    pub low: f64,
    /// Upper end (`+inf` when open).
    pub high: f64,
    /// Games played.
    pub games: u32,
    /// Score as a fraction (draws half).
    pub score: f64,
}

/// Expected score of a player `diff` Elo above its opponent.
pub fn expected(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// Elo difference that gives an expected score `p`.
pub fn elo_of_score(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// Maximum-likelihood ratings of `n` players from pairwise results (each game a
/// Bradley-Terry trial, a draw counting as half a win for each side), anchored so that
/// player `anchor` is 0. Players who won (or lost) every game get an infinite rating and
/// an open-ended interval; the rest are estimated without them.
pub fn ratings(n: usize, results: &[PairResult], anchor: usize) -> Vec<Rating> {
    let mut score = vec![0.0f64; n];
    let mut games = vec![0u32; n];
    for r in results {
        let g = r.wins + r.draws + r.losses;
        score[r.a] += r.wins as f64 + 0.5 * r.draws as f64;
        score[r.b] += r.losses as f64 + 0.5 * r.draws as f64;
        games[r.a] += g;
        games[r.b] += g;
    }
    // Perfect (or null) scores have no finite estimate.
    let perfect: Vec<Option<f64>> = (0..n)
        .map(|i| {
            if games[i] > 0 && score[i] == games[i] as f64 {
                Some(f64::INFINITY)
            } else if games[i] > 0 && score[i] == 0.0 {
                Some(f64::NEG_INFINITY)
            } else {
                None
            }
        })
        .collect();
    let free: Vec<bool> = (0..n)
        .map(|i| perfect[i].is_none() && games[i] > 0)
        .collect();
    if anchor < n && perfect[anchor].is_some() {
        // Everyone is infinitely far from an anchor that won or lost every game.
        return (0..n)
            .map(|i| {
                let s = if games[i] > 0 {
                    score[i] / games[i] as f64
                } else {
                    f64::NAN
                };
                let sign = if perfect[anchor] == Some(f64::INFINITY) {
                    -1.0
                } else {
                    1.0
                };
                if i == anchor {
                    Rating {
                        elo: 0.0,
                        low: 0.0,
                        high: 0.0,
                        games: games[i],
                        score: s,
                    }
                } else if sign > 0.0 {
                    Rating {
                        elo: f64::INFINITY,
                        low: f64::NEG_INFINITY,
                        high: f64::INFINITY,
                        games: games[i],
                        score: s,
                    }
                } else {
                    Rating {
                        elo: f64::NEG_INFINITY,
                        low: f64::NEG_INFINITY,
                        high: f64::INFINITY,
                        games: games[i],
                        score: s,
                    }
                }
            })
            .collect();
    }
    // Newton-Raphson on the log-likelihood in natural units (r = elo * ln10 / 400).
    let k = std::f64::consts::LN_10 / 400.0;
    let mut r = vec![0.0f64; n];
    let pairs: Vec<&PairResult> = results.iter().filter(|p| free[p.a] && free[p.b]).collect();
    let idx: Vec<usize> = (0..n).filter(|&i| free[i] && i != anchor).collect();
    let mut info = vec![vec![0.0; idx.len()]; idx.len()];
    for _ in 0..200 {
        let mut grad = vec![0.0; n];
        let mut hess = vec![vec![0.0; n]; n];
        for p in &pairs {
            let g = (p.wins + p.draws + p.losses) as f64;
            let s = p.wins as f64 + 0.5 * p.draws as f64;
            let e = 1.0 / (1.0 + (r[p.b] - r[p.a]).exp());
            grad[p.a] += s - g * e;
            grad[p.b] -= s - g * e;
            let w = g * e * (1.0 - e);
            hess[p.a][p.a] += w;
            hess[p.b][p.b] += w;
            hess[p.a][p.b] -= w;
            hess[p.b][p.a] -= w;
        }
        // Solve H d = g on the free, non-anchor players.
        let m = idx.len();
        let mut a: Vec<Vec<f64>> = (0..m)
            .map(|i| (0..m).map(|j| hess[idx[i]][idx[j]]).collect())
            .collect();
        info = a.clone();
        let mut b: Vec<f64> = idx.iter().map(|&i| grad[i]).collect();
        let Some(d) = solve(&mut a, &mut b) else {
            break;
        };
        let mut step = 0.0f64;
        for (j, &i) in idx.iter().enumerate() {
            r[i] += d[j].clamp(-5.0, 5.0);
            step = step.max(d[j].abs());
        }
        if step < 1e-10 {
            break;
        }
    }
    // Standard errors from the inverse of the information matrix.
    let m = idx.len();
    let mut var = vec![0.0; n];
    if m > 0 {
        for (j, &i) in idx.iter().enumerate() {
            let mut a = info.clone();
            let mut e = vec![0.0; m];
            e[j] = 1.0;
            if let Some(col) = solve(&mut a, &mut e) {
                var[i] = col[j].max(0.0);
            }
        }
    }
    // The (internal) ratings of the opponents `i` met whose ratings are finite.
    let (rated, free_ref) = (&r, &free);
    let opponents = |i: usize| {
        results.iter().filter_map(move |p| {
            if p.a == i && free_ref[p.b] {
                Some(rated[p.b])
            } else if p.b == i && free_ref[p.a] {
                Some(rated[p.a])
            } else {
                None
            }
        })
    };
    (0..n)
        .map(|i| {
            let s = if games[i] > 0 {
                score[i] / games[i] as f64
            } else {
                f64::NAN
            };
            match perfect[i] {
                Some(inf) if inf > 0.0 => {
                    // Open above; below, at least what beating its best-rated opponent shows.
                    let low = opponents(i).fold(f64::NEG_INFINITY, f64::max) / k;
                    Rating {
                        elo: f64::INFINITY,
                        low,
                        high: f64::INFINITY,
                        games: games[i],
                        score: s,
                    }
                }
                Some(_) => {
                    let high = opponents(i).fold(f64::INFINITY, f64::min) / k;
                    Rating {
                        elo: f64::NEG_INFINITY,
                        low: f64::NEG_INFINITY,
                        high,
                        games: games[i],
                        score: s,
                    }
                }
                None => {
                    let elo = r[i] / k;
                    let half = 1.96 * var[i].sqrt() / k;
                    Rating {
                        elo,
                        low: elo - half,
                        high: elo + half,
                        games: games[i],
                        score: s,
                    }
                }
            }
        })
        .collect()
}

/// Gaussian elimination with partial pivoting; `None` for a singular system.
#[allow(clippy::needless_range_loop)] // the textbook index form is the clearest here
fn solve(a: &mut [Vec<f64>], b: &mut [f64]) -> Option<Vec<f64>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            for k in c..n {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    Some(x)
}

/// What an SPRT concluded so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// Evidence for H1 (the stronger hypothesis).
    AcceptH1,
    /// Evidence for H0.
    AcceptH0,
    /// Not enough games yet.
    Continue,
}

/// The sequential probability ratio test between `elo0` (H0) and `elo1` (H1), with error
/// rates `alpha` and `beta`, on win/draw/loss counts: the log-likelihood ratio in the
/// normal approximation used by chess testing frameworks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// H0's Elo.
    pub elo0: f64,
    /// H1's Elo.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

impl Sprt {
    /// The log-likelihood ratio of the results.
    pub fn llr(&self, wins: u32, draws: u32, losses: u32) -> f64 {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return 0.0;
        }
        let x = (wins as f64 + 0.5 * draws as f64) / n;
        // The variance of a game's score, estimated with a small prior (half a win, a
        // draw, half a loss) so that a handful of identical results cannot decide.
        let (w, d, l) = (wins as f64 + 0.5, draws as f64 + 1.0, losses as f64 + 0.5);
        let m = w + d + l;
        let mean = (w + 0.5 * d) / m;
        let var = ((w + 0.25 * d) / m - mean * mean).max(1e-3);
        let (s0, s1) = (expected(self.elo0), expected(self.elo1));
        n * (s1 - s0) * (2.0 * x - s0 - s1) / (2.0 * var)
    }
    /// The bounds `(lower, upper)` of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }
    /// The decision so far.
    pub fn decide(&self, wins: u32, draws: u32, losses: u32) -> SprtDecision {
        let llr = self.llr(wins, draws, losses);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::AcceptH1
        } else if llr <= lo {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}
