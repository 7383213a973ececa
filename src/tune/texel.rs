//! Texel tuning: the weights with which the evaluation, put through a
//! logistic curve, best predicts the databases' values (least squares
//! over labelled positions), found by gradient descent (Adam).

use crate::search::params::EvalWeights;

const N: usize = EvalWeights::COUNT;

/// One labelled position: what each weight multiplies, the part no
/// weight moves, and the value for the side to move (1 a win, 0.5 a
/// draw, 0 a loss).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub terms: [f64; N],
    pub fixed: f64,
    pub target: f64,
}

impl Sample {
    #[inline]
    fn score(&self, w: &[f64; N]) -> f64 {
        self.fixed + self.terms.iter().zip(w).map(|(f, w)| f * w).sum::<f64>()
    }
}

/// The expected result for a score in centipieces: `k` sets how fast a
/// lead turns into a win.
#[inline]
pub fn expected(k: f64, score: f64) -> f64 {
    1.0 / (1.0 + (-k * score / 100.0).exp())
}

/// The mean squared error of the predictions.
pub fn error(samples: &[Sample], k: f64, w: &[f64; N]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .map(|s| (expected(k, s.score(w)) - s.target).powi(2))
        .sum();
    sum / samples.len() as f64
}

/// The `k` that minimises the error of groups of positions, each with
/// its weights (golden-section search on its logarithm, between 0.001
/// and 100).
pub fn fit_k(groups: &[(&[Sample], [f64; N])]) -> f64 {
    let f = |x: f64| -> f64 {
        groups
            .iter()
            .map(|(s, w)| error(s, x.exp(), w) * s.len() as f64)
            .sum()
    };
    let (mut a, mut b) = (0.001f64.ln(), 100f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..60 {
        if fc < fd {
            (b, d, fd) = (d, c, fc);
            c = b - g * (b - a);
            fc = f(c);
        } else {
            (a, c, fc) = (c, d, fd);
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    ((a + b) / 2.0).exp()
}

/// The weights that minimise the error from `start`, `k` fixed, after
/// `iterations` full passes; `rate` is the step in centipieces. The
/// weights marked in `frozen` keep their start.
pub fn fit_weights(
    samples: &[Sample],
    k: f64,
    start: [f64; N],
    frozen: [bool; N],
    iterations: usize,
    rate: f64,
) -> [f64; N] {
    let (b1, b2, eps) = (0.9, 0.999, 1e-12);
    let mut w = start;
    let (mut m, mut v) = ([0.0; N], [0.0; N]);
    if samples.is_empty() {
        return w;
    }
    for t in 1..=iterations {
        let mut grad = [0.0; N];
        for s in samples {
            let p = expected(k, s.score(&w));
            // d/dw of (p - y)^2, up to the constant 2k/100.
            let g = (p - s.target) * p * (1.0 - p);
            for (gi, f) in grad.iter_mut().zip(&s.terms) {
                *gi += g * f;
            }
        }
        for i in (0..N).filter(|&i| !frozen[i]) {
            let g = grad[i] / samples.len() as f64;
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            w[i] -= rate * mh / (vh.sqrt() + eps);
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions whose labels follow known weights through the curve.
    fn synthetic(truth: &[f64; N], k: f64, count: usize) -> Vec<Sample> {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 7) as f64 - 3.0
        };
        (0..count)
            .map(|_| {
                let mut terms = [0.0; N];
                for t in terms.iter_mut().take(5) {
                    *t = next();
                }
                let fixed = 100.0 * next();
                let mut s = Sample {
                    terms,
                    fixed,
                    target: 0.0,
                };
                s.target = expected(k, s.score(truth));
                s
            })
            .collect()
    }

    #[test]
    fn the_weights_and_the_scale_that_made_the_labels_are_found_again() {
        let mut truth = [0.0; N];
        truth[..5].copy_from_slice(&[30.0, -20.0, 50.0, 10.0, 0.0]);
        let samples = synthetic(&truth, 1.5, 4000);
        assert!(error(&samples, 1.5, &truth) < 1e-12);
        let k = fit_k(&[(&samples, truth)]);
        assert!((k - 1.5).abs() < 1e-3, "{k}");
        // From zero weights, at the true scale.
        let w = fit_weights(&samples, 1.5, [0.0; N], [false; N], 3000, 1.0);
        for (got, want) in w.iter().zip(&truth) {
            assert!((got - want).abs() < 0.5, "{w:?}");
        }
        assert!(error(&samples, 1.5, &w) < error(&samples, 1.5, &[0.0; N]) / 100.0);
    }

    #[test]
    fn frozen_weights_keep_their_start() {
        let mut truth = [0.0; N];
        truth[..5].copy_from_slice(&[30.0, -20.0, 50.0, 10.0, 0.0]);
        let samples = synthetic(&truth, 1.5, 4000);
        // The first weight held at its true value, the third at a wrong
        // one: the others still move, the frozen ones do not.
        let mut start = [0.0; N];
        start[0] = 30.0;
        start[2] = 20.0;
        let mut frozen = [false; N];
        frozen[0] = true;
        frozen[2] = true;
        let w = fit_weights(&samples, 1.5, start, frozen, 3000, 1.0);
        assert_eq!((w[0], w[2]), (30.0, 20.0), "{w:?}");
        assert!(
            (w[1] - truth[1]).abs() < 5.0 && (w[3] - truth[3]).abs() < 5.0,
            "{w:?}"
        );
        assert!(error(&samples, 1.5, &w) < error(&samples, 1.5, &start));
    }
}
