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
    /// Elo relative to the anchor (0). Always finite.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end of the 95 % interval.
    pub high: f64,
    /// Games played.
    pub games: u32,
    /// Score as a fraction (draws half; 0 without games).
    pub score: f64,
    /// The rating leans on the prior: the player won or lost every game, so its
    /// maximum-likelihood rating is infinite, and [`VIRTUAL_DRAWS`] virtual draws against
    /// each of its opponents make it finite (a conservative estimate).
    pub prior: bool,
}

/// Virtual draws added to each pairing of a player who won or lost every game: the
/// prior BayesElo uses (its default is 2 virtual draws). Chosen over Ordo's way (leave
/// such players out of the fit and report a bound as if one game were a draw) because it
/// gives every player a rating *and* an interval from one model, and shrinks only where
/// the data cannot speak: the prior touches only the pairings of players who won or lost
/// everything, so a pool without such players is plain maximum likelihood.
pub const VIRTUAL_DRAWS: u32 = 2;

/// Expected score of a player `diff` Elo above its opponent.
pub fn expected(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// Elo difference that gives an expected score `p`.
pub fn elo_of_score(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// Ratings of `n` players from pairwise results (each game a Bradley-Terry trial, a draw
/// counting as half a win for each side), anchored so that player `anchor` is 0, with
/// 95 % intervals from the observed information.
///
/// Maximum likelihood where it is finite; a player who won or lost every game (whose
/// likelihood has no maximum) gets [`VIRTUAL_DRAWS`] virtual draws in each of its
/// pairings, so every rating and every interval is finite.
pub fn ratings(n: usize, results: &[PairResult], anchor: usize) -> Vec<Rating> {
    let tot = |rs: &[PairResult]| {
        let mut score = vec![0.0f64; n];
        let mut games = vec![0u32; n];
        for r in rs {
            let g = r.wins + r.draws + r.losses;
            score[r.a] += r.wins as f64 + 0.5 * r.draws as f64;
            score[r.b] += r.losses as f64 + 0.5 * r.draws as f64;
            games[r.a] += g;
            games[r.b] += g;
        }
        (score, games)
    };
    let (score, games) = tot(results);
    let extreme: Vec<bool> = (0..n)
        .map(|i| games[i] > 0 && (score[i] == 0.0 || score[i] == games[i] as f64))
        .collect();
    // The fitted results: the real ones plus the prior's draws where needed.
    let fitted: Vec<PairResult> = results
        .iter()
        .map(|r| {
            let mut r = *r;
            if extreme[r.a] || extreme[r.b] {
                r.draws += VIRTUAL_DRAWS;
            }
            r
        })
        .collect();
    let (_, fit_games) = tot(&fitted);
    // Newton-Raphson on the log-likelihood in natural units (r = elo * ln10 / 400).
    let k = std::f64::consts::LN_10 / 400.0;
    let mut r = vec![0.0f64; n];
    let idx: Vec<usize> = (0..n)
        .filter(|&i| fit_games[i] > 0 && i != anchor)
        .collect();
    let m = idx.len();
    let mut info = vec![vec![0.0; m]; m];
    for _ in 0..200 {
        let mut grad = vec![0.0; n];
        let mut hess = vec![vec![0.0; n]; n];
        for p in &fitted {
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
        // Solve H d = g on the non-anchor players.
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
    let mut var = vec![0.0; n];
    for (j, &i) in idx.iter().enumerate() {
        let mut a = info.clone();
        let mut e = vec![0.0; m];
        e[j] = 1.0;
        if let Some(col) = solve(&mut a, &mut e) {
            var[i] = col[j].max(0.0);
        }
    }
    (0..n)
        .map(|i| {
            let elo = r[i] / k;
            let half = 1.96 * var[i].sqrt() / k;
            Rating {
                elo,
                low: elo - half,
                high: elo + half,
                games: games[i],
                score: if games[i] > 0 {
                    score[i] / games[i] as f64
                } else {
                    0.0
                },
                prior: extreme[i],
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

impl SprtDecision {
    /// `H1`, `H0` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            SprtDecision::AcceptH1 => "H1",
            SprtDecision::AcceptH0 => "H0",
            SprtDecision::Continue => "none",
        }
    }
}

/// Results of game pairs (one position played twice, each player once on each side),
/// counted by the pair's score for the first player: the pentanomial bins LL, LD+DL,
/// LW+DD+WL, DW+WD, WW (scores 0, 1/4, 1/2, 3/4, 1 per game), as fishtest and OpenBench
/// count them. Pairs cancel most of the colour and opening bias, so their variance is
/// smaller than that of single games and tests decide sooner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Adds a pair: the first player's score in each game (0, 0.5 or 1).
    pub fn add(&mut self, first: f64, second: f64) {
        let quarters = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[quarters] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// The mean score per game and the variance of a pair's mean score. Empty bins count
    /// as 1e-3 pairs (fishtest's regularisation), so a few identical pairs cannot yield
    /// a zero variance.
    pub fn mean_var(&self) -> (f64, f64) {
        let c: Vec<f64> = self
            .0
            .iter()
            .map(|&x| if x == 0 { 1e-3 } else { x as f64 })
            .collect();
        let n: f64 = c.iter().sum();
        let s = |i: usize| i as f64 / 4.0;
        let mean = (0..5).map(|i| c[i] * s(i)).sum::<f64>() / n;
        let var = (0..5).map(|i| c[i] * (s(i) - mean).powi(2)).sum::<f64>() / n;
        (mean, var)
    }

    /// Elo of the first player and its 95 % interval, from the pairs.
    pub fn elo(&self) -> (f64, f64, f64) {
        let (mean, var) = self.mean_var();
        let n = f64::from(self.pairs().max(1));
        let half = 1.96 * (var / n).sqrt();
        let e = |p: f64| elo_of_score(p.clamp(1e-6, 1.0 - 1e-6));
        (e(mean), e(mean - half), e(mean + half))
    }
}

/// How much better one player scored than another against the same opponents from the
/// same starts with the same colours: the mean of the per-game score differences, with a
/// 95 % interval from their spread. Pairing each game of one with its twin of the other
/// cancels what the start and the colour contribute, so the interval is narrower than the
/// one two separate ratings would give their difference.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairedDiff {
    /// Twin games compared.
    pub games: u32,
    /// Mean score of the first player over them (draws half).
    pub score_a: f64,
    /// Mean score of the second.
    pub score_b: f64,
    /// Half the width of the 95 % interval of `score_a - score_b`.
    pub half: f64,
    /// Twins the first player scored more in.
    pub better: u32,
    /// Twins it scored less in.
    pub worse: u32,
}

impl PairedDiff {
    /// From pairs of scores (the first player's, the second's), one pair per twin.
    pub fn from_pairs(pairs: &[(f64, f64)]) -> PairedDiff {
        let n = pairs.len();
        if n == 0 {
            return PairedDiff::default();
        }
        let nf = n as f64;
        let d: Vec<f64> = pairs.iter().map(|(a, b)| a - b).collect();
        PairedDiff {
            games: n as u32,
            score_a: pairs.iter().map(|p| p.0).sum::<f64>() / nf,
            score_b: pairs.iter().map(|p| p.1).sum::<f64>() / nf,
            half: mean_and_half(&d).1,
            better: d.iter().filter(|&&x| x > 0.0).count() as u32,
            worse: d.iter().filter(|&&x| x < 0.0).count() as u32,
        }
    }

    /// The first player's mean score less the second's.
    pub fn diff(&self) -> f64 {
        self.score_a - self.score_b
    }

    /// Whether the 95 % interval of the difference excludes 0 (in either direction).
    pub fn significant(&self) -> bool {
        self.games > 1 && self.diff().abs() > self.half
    }

    /// The difference as Elo at the second player's score: the first player's score
    /// turned to Elo less the second's (scores clamped to 1 %..99 %), with the interval's
    /// ends turned the same way.
    pub fn elo(&self) -> (f64, f64, f64) {
        let e = |p: f64| elo_of_score(p.clamp(0.01, 0.99));
        let base = e(self.score_b);
        (
            e(self.score_a) - base,
            e(self.score_a - self.half) - base,
            e(self.score_a + self.half) - base,
        )
    }
}

/// The mean of `values` and half the width of its 95 % interval (normal, from the sample
/// variance; 0 with fewer than two values).
fn mean_and_half(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, 1.96 * (var / n).sqrt())
}

/// The slope of a learning curve on twin games: each twin's scores (one per checkpoint)
/// fitted by least squares against the checkpoints' places on the curve's axis, the
/// slopes averaged over the twins, with a 95 % interval from their spread. Each twin
/// fixes the start, the colour and the opponent, so what they contribute cancels, as in
/// [`PairedDiff`] (which is this with two checkpoints one unit apart).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Trend {
    /// Twins fitted.
    pub twins: u32,
    /// Mean change of the score (a fraction) per unit of the axis.
    pub slope: f64,
    /// Half the width of the slope's 95 % interval.
    pub half: f64,
}

impl Trend {
    /// From the checkpoints' places `xs` and one row of scores per twin (in the order of
    /// `xs`); `None` without twins or without two different places.
    pub fn fit(xs: &[f64], twins: &[Vec<f64>]) -> Option<Trend> {
        let k = xs.len() as f64;
        let mean_x = xs.iter().sum::<f64>() / k;
        let sxx: f64 = xs.iter().map(|x| (x - mean_x).powi(2)).sum();
        if twins.is_empty() || sxx <= 0.0 || !sxx.is_finite() {
            return None;
        }
        let slopes: Vec<f64> = twins
            .iter()
            .map(|y| {
                let mean_y = y.iter().sum::<f64>() / k;
                xs.iter()
                    .zip(y)
                    .map(|(x, y)| (x - mean_x) * (y - mean_y))
                    .sum::<f64>()
                    / sxx
            })
            .collect();
        let (slope, half) = mean_and_half(&slopes);
        Some(Trend {
            twins: slopes.len() as u32,
            slope,
            half,
        })
    }

    /// Whether the 95 % interval of the slope excludes 0 (in either direction).
    pub fn significant(&self) -> bool {
        self.twins > 1 && self.slope.abs() > self.half
    }
}

/// The sequential probability ratio test between `elo0` (H0) and `elo1` (H1), with error
/// rates `alpha` and `beta`, on game pairs: the log-likelihood ratio in the normal
/// approximation fishtest uses (its `LLR_logistic` on pentanomial counts).
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
    /// No decision before this many pairs: with few pairs the variance estimate (however
    /// regularised) is too uncertain for the normal approximation.
    pub min_pairs: u32,
}

impl Sprt {
    /// The log-likelihood ratio of the pairs: N (s1 - s0) (2 s - s0 - s1) / (2 var), with
    /// N pairs, s their mean score, var the variance of a pair's mean score, s0 and s1 the
    /// expected scores at `elo0` and `elo1`.
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        let n = f64::from(pairs.pairs());
        if n == 0.0 {
            return 0.0;
        }
        let (mean, var) = pairs.mean_var();
        let (s0, s1) = (expected(self.elo0), expected(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var.max(1e-9))
    }
    /// The bounds `(lower, upper)` of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }
    /// The decision so far.
    pub fn decide(&self, pairs: &Pentanomial) -> SprtDecision {
        if pairs.pairs() < self.min_pairs {
            return SprtDecision::Continue;
        }
        let llr = self.llr(pairs);
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
