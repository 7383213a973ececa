//! The sequential probability ratio test over the pentanomial counts.
//!
//! It is the generalised SPRT (GSPRT) of fishtest's `LLR_logistic` and
//! fastchess' `getLLR_logistic`, after Michel Van den Bergh's notes
//! (`support_MLE_multinomial.pdf`, Proposition 1.1): for each hypothesis
//! `score = s_k` the maximum-likelihood pentanomial distribution with that
//! mean is `p_i / (1 + θ (a_i - s_k))`, with θ the root of
//! `Σ p_i (a_i - s_k) / (1 + θ (a_i - s_k)) = 0`, and the LLR is
//! `N Σ p_i ln(p1_i / p0_i)`. Counts of zero are replaced by 1e-3 first,
//! as both tools do. [`Sprt::llr_approx`] is the Brownian approximation
//! `N (s1 - s0)(2s - s0 - s1) / (2 var)` (fishtest's `LLR_alt2`): close to
//! the exact value once the sample is not tiny, but far off for lopsided
//! early samples (three won pairs give 17.2 instead of 0.043), so the
//! stopping decision uses the exact value.

use super::elo::{PAIR_SCORES, Pentanomial, mean_variance, score_from_elo};

/// The test's parameters: H0 is `elo = elo0`, H1 is `elo = elo1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Which hypothesis the test accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The LLR fell to the lower bound: `elo0` is accepted.
    H0,
    /// The LLR rose to the upper bound: `elo1` is accepted.
    H1,
}

impl Decision {
    pub fn name(self) -> &'static str {
        match self {
            Decision::H0 => "H0",
            Decision::H1 => "H1",
        }
    }
}

impl Sprt {
    /// `ln(beta / (1 - alpha))`.
    pub fn lower(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// `ln((1 - beta) / alpha)`.
    pub fn upper(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of H1 against H0 (exact GSPRT).
    pub fn llr(&self, penta: &Pentanomial) -> f64 {
        if penta.pairs() == 0 {
            return 0.0;
        }
        let (n, probs) = regularised(penta);
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        let p0 = mle_with_mean(&probs, s0);
        let p1 = mle_with_mean(&probs, s1);
        n * (0..5)
            .map(|i| probs[i] * (p1[i].ln() - p0[i].ln()))
            .sum::<f64>()
    }

    /// The Brownian approximation of [`Sprt::llr`].
    pub fn llr_approx(&self, penta: &Pentanomial) -> f64 {
        if penta.pairs() == 0 {
            return 0.0;
        }
        let (n, probs) = regularised(penta);
        let (s, var) = mean_variance(&probs);
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    /// The decision at this LLR, `None` to go on.
    pub fn decision(&self, llr: f64) -> Option<Decision> {
        if llr >= self.upper() {
            Some(Decision::H1)
        } else if llr <= self.lower() {
            Some(Decision::H0)
        } else {
            None
        }
    }
}

/// Counts with zeros replaced by 1e-3, as total and probabilities.
fn regularised(penta: &Pentanomial) -> (f64, [f64; 5]) {
    let counts = penta.0.map(|c| if c == 0 { 1e-3 } else { c as f64 });
    let n: f64 = counts.iter().sum();
    (n, counts.map(|c| c / n))
}

/// The distribution nearest (in likelihood) to `probs` whose mean is `s`.
fn mle_with_mean(probs: &[f64; 5], s: f64) -> [f64; 5] {
    let d = PAIR_SCORES.map(|a| a - s);
    // The secular function falls from +inf to -inf between the poles
    // -1/(1 - s) and 1/s; bisection finds its root to full precision.
    let f = |theta: f64| -> f64 { (0..5).map(|i| probs[i] * d[i] / (1.0 + theta * d[i])).sum() };
    let (mut lo, mut hi) = (-1.0 / d[4], -1.0 / d[0]);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    std::array::from_fn(|i| probs[i] / (1.0 + theta * d[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected number below was computed independently with plain
    // Python 3 (no libraries beyond `math`), transcribing fishtest's
    // `LLRcalc.py` formulas: `regularize` (zeros become 1e-3),
    // `results_to_pdf` (pair scores i/4), `LLR_alt2` for the
    // approximation, and `MLE_expected` + `LLR` for the exact value with
    // the secular equation solved by 200 bisection steps.

    const SPRT_0_5: Sprt = Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn bounds_are_walds() {
        assert!(close(SPRT_0_5.lower(), -2.944_438_979_166_44, 1e-12));
        assert!(close(SPRT_0_5.upper(), 2.944_438_979_166_44, 1e-12));
    }

    #[test]
    fn llr_matches_fishtest_formulas() {
        // (counts, elo0, elo1, exact, approximation)
        let cases = [
            (
                [2, 10, 30, 15, 3],
                0.0,
                5.0,
                0.233_973_987_463,
                0.239_836_687_020,
            ),
            (
                [2, 10, 30, 15, 3],
                -5.0,
                0.0,
                0.296_060_107_996,
                0.307_326_071_390,
            ),
            (
                [0, 0, 0, 0, 3],
                0.0,
                5.0,
                0.042_891_149_076,
                17.179_942_404_402,
            ),
            (
                [7, 20, 40, 12, 1],
                0.0,
                5.0,
                -0.785_993_616_908,
                -0.825_408_576_591,
            ),
            (
                [12, 20, 40, 12, 1],
                0.0,
                10.0,
                -1.980_722_190_271,
                -2.161_960_863_801,
            ),
        ];
        for (counts, elo0, elo1, exact, approx) in cases {
            let sprt = Sprt {
                elo0,
                elo1,
                ..SPRT_0_5
            };
            let penta = Pentanomial(counts);
            let llr = sprt.llr(&penta);
            assert!(close(llr, exact, 1e-9), "{counts:?}: {llr} vs {exact}");
            let alt = sprt.llr_approx(&penta);
            assert!(close(alt, approx, 1e-9), "{counts:?}: {alt} vs {approx}");
        }
    }

    #[test]
    fn won_pairs_alone_grow_the_llr_slowly() {
        // Exact LLR after k won pairs and nothing else, [0,5] Elo.
        for (k, expected) in [(1, 0.014_315_849_413), (10, 0.142_904_432_544)] {
            let llr = SPRT_0_5.llr(&Pentanomial([0, 0, 0, 0, k]));
            assert!(close(llr, expected, 1e-9), "{k}: {llr}");
        }
    }

    /// Feeds pairs from a repeating pattern of pentanomial indices and
    /// returns (pairs played, LLR, decision) at the first crossing.
    fn run(pattern: &[usize], sprt: &Sprt) -> (usize, f64, Decision) {
        let mut penta = Pentanomial::default();
        for i in 0..100_000 {
            penta.0[pattern[i % pattern.len()]] += 1;
            let llr = sprt.llr(&penta);
            if let Some(d) = sprt.decision(llr) {
                return (i + 1, llr, d);
            }
        }
        panic!("no decision");
    }

    #[test]
    fn stopping_decision_matches_the_reference() {
        let sprt = Sprt {
            elo1: 20.0,
            ..SPRT_0_5
        };
        // Python: first crossing after 53 pairs, counts [0,7,20,19,7],
        // LLR 2.958874152086 (2.905974693182 after 52 pairs).
        let (pairs, llr, d) = run(&[2, 3, 2, 4, 1, 3, 3, 2], &sprt);
        assert_eq!((pairs, d), (53, Decision::H1));
        assert!(close(llr, 2.958_874_152_086, 1e-9), "{llr}");
        // Python: 50 pairs, counts [6,19,19,6,0], LLR -2.960437550041.
        let (pairs, llr, d) = run(&[2, 1, 2, 0, 3, 1, 1, 2], &sprt);
        assert_eq!((pairs, d), (50, Decision::H0));
        assert!(close(llr, -2.960_437_550_041, 1e-9), "{llr}");
    }

    #[test]
    fn no_pairs_give_no_evidence() {
        assert_eq!(SPRT_0_5.llr(&Pentanomial::default()), 0.0);
        assert_eq!(SPRT_0_5.llr_approx(&Pentanomial::default()), 0.0);
    }
}
