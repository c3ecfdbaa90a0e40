//! Dirichlet noise over the root's priors (AlphaZero's exploration in self-play).

use rand::RngExt;
use rand::rngs::SmallRng;

/// A Dirichlet(alpha) sample of size `k`, from Gamma(alpha) draws (Marsaglia and Tsang).
pub(super) fn dirichlet(rng: &mut SmallRng, alpha: f32, k: usize) -> Vec<f32> {
    let g: Vec<f64> = (0..k).map(|_| gamma(rng, alpha as f64)).collect();
    let s: f64 = g.iter().sum::<f64>().max(1e-300);
    g.iter().map(|x| (x / s) as f32).collect()
}

fn gamma(rng: &mut SmallRng, alpha: f64) -> f64 {
    if alpha < 1.0 {
        // Boost: Gamma(a) = Gamma(a + 1) * U^(1/a).
        let u: f64 = rng.random_range(1e-300..1.0);
        return gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        // A standard normal by Box-Muller.
        let u1: f64 = rng.random_range(1e-300..1.0);
        let u2: f64 = rng.random_range(0.0..1.0);
        let x = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = rng.random_range(1e-300..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}
