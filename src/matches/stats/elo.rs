//! Win/draw/loss counts, the pentanomial distribution of game pairs, and
//! the Elo difference they give with its 95% error margin and the
//! likelihood of superiority.
//!
//! Pair scores are 0, 1/4, 1/2, 3/4 and 1 (the first engine's points in a
//! pair of games with colours reversed, divided by two); the five counts
//! are kept in that order: `[LL, LD, DD+WL, WD, WW]`. Elo is logistic
//! Elo: a score `s` is worth `-400 log10(1/s - 1)`.

/// Wins, draws and losses from one engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win is 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Points per game, `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// Adds one game scored 0, 1/2 or 1 (in half points: 0, 1, 2).
    pub fn add(&mut self, half_points: u8) {
        match half_points {
            0 => self.losses += 1,
            1 => self.draws += 1,
            _ => self.wins += 1,
        }
    }

    /// The same games seen from the other side.
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }
}

impl std::ops::Add for Wdl {
    type Output = Wdl;
    fn add(self, o: Wdl) -> Wdl {
        Wdl {
            wins: self.wins + o.wins,
            draws: self.draws + o.draws,
            losses: self.losses + o.losses,
        }
    }
}

/// Counts of pair results `[LL, LD, DD+WL, WD, WW]`, from the first
/// engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair given the first engine's half points in each game.
    pub fn add_pair(&mut self, first: u8, second: u8) {
        self.0[(first.min(2) + second.min(2)) as usize] += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// The pair scores the five counts stand for.
pub(super) const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// The two-sided 95% quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Logistic Elo of a score in (0, 1).
pub fn elo_from_score(score: f64) -> f64 {
    // Adding zero turns the -0.0 of an even score into 0.0 for printing.
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

/// The expected score of a side `elo` logistic Elo stronger.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and variance of a distribution over the pair scores.
pub(super) fn mean_variance(probs: &[f64; 5]) -> (f64, f64) {
    let mean: f64 = probs.iter().zip(PAIR_SCORES).map(|(p, a)| p * a).sum();
    let var = probs
        .iter()
        .zip(PAIR_SCORES)
        .map(|(p, a)| p * (a - mean) * (a - mean))
        .sum();
    (mean, var)
}

/// An Elo estimate from the pentanomial counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Score per game, 0 to 1.
    pub score: f64,
    /// The Elo difference; infinite when every pair was won or lost.
    pub elo: f64,
    /// Half the width of the 95% interval, `None` where the interval
    /// reaches a score of 0 or 1 (its Elo is unbounded).
    pub error: Option<f64>,
    /// Likelihood of superiority: the probability, under a normal
    /// approximation, that the first engine is the stronger.
    pub los: f64,
}

/// Elo, error margin and LOS from complete pairs; `None` without any.
///
/// The pair scores' mean `s` and variance `v` give a standard error
/// `sqrt(v / pairs)` of the per-game score; the margin is half the Elo
/// distance between `s ± 1.96 se` (as fastchess reports it), and the LOS
/// is `Φ((s - 1/2) / se)`.
pub fn elo_estimate(penta: &Pentanomial) -> Option<EloEstimate> {
    let n = penta.pairs();
    if n == 0 {
        return None;
    }
    let probs = penta.0.map(|c| c as f64 / n as f64);
    let (score, var) = mean_variance(&probs);
    let se = (var / n as f64).sqrt();
    let ci = Z95 * se;
    let error = (score - ci > 0.0 && score + ci < 1.0)
        .then(|| (elo_from_score(score + ci) - elo_from_score(score - ci)) / 2.0);
    let los = if se > 0.0 {
        normal_cdf((score - 0.5) / se)
    } else if score > 0.5 {
        1.0
    } else if score < 0.5 {
        0.0
    } else {
        0.5
    };
    Some(EloEstimate {
        score,
        elo: elo_from_score(score),
        error,
        los,
    })
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function, to about 1.2e-7 relative error
/// (the Chebyshev fit in Numerical Recipes, 2nd ed., §6.2): plenty for a
/// probability printed to one decimal of a percent.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The expected numbers were computed independently with plain Python 3
    // (no libraries beyond `math`): the Elo margin as
    // `(E(s + 1.96 se) - E(s - 1.96 se)) / 2` with `se = sqrt(var / N)`
    // and the LOS as `(1 + erf((s - 0.5) / (se sqrt 2))) / 2`.

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_margin_and_los_match_the_reference() {
        // (counts, score, elo, error, los)
        let cases = [
            (
                [2, 10, 30, 15, 3],
                0.529_166_666_667,
                20.290_110_989_015,
                38.001_038_983_094,
                0.853_851_967_723,
            ),
            (
                [7, 20, 40, 12, 1],
                0.4375,
                -43.657_787_770_027,
                33.316_450_781_055,
                0.004_610_119_946,
            ),
            ([1, 2, 3, 2, 1], 0.5, 0.0, 137.857_437_832_269, 0.5),
        ];
        for (counts, score, elo, error, los) in cases {
            let e = elo_estimate(&Pentanomial(counts)).expect("pairs");
            assert!(close(e.score, score, 1e-9));
            assert!(close(e.elo, elo, 1e-9), "{counts:?}: {}", e.elo);
            assert!(close(e.error.expect("finite"), error, 1e-9));
            // erfc is accurate to about 1e-7.
            assert!(close(e.los, los, 1e-6), "{counts:?}: {}", e.los);
        }
    }

    #[test]
    fn degenerate_samples() {
        assert_eq!(elo_estimate(&Pentanomial::default()), None);
        let all_won = elo_estimate(&Pentanomial([0, 0, 0, 0, 4])).expect("pairs");
        assert!(all_won.elo.is_infinite() && all_won.error.is_none());
        assert_eq!(all_won.los, 1.0);
    }

    #[test]
    fn pairs_and_wdl_bookkeeping() {
        let mut p = Pentanomial::default();
        p.add_pair(2, 0); // won one, lost one
        p.add_pair(1, 1); // two draws
        p.add_pair(2, 1);
        assert_eq!(p.0, [0, 0, 2, 1, 0]);
        let mut w = Wdl::default();
        for h in [0, 1, 2, 2] {
            w.add(h);
        }
        assert_eq!((w.wins, w.draws, w.losses, w.points()), (2, 1, 1, 2.5));
        assert_eq!(w.flipped().wins, 1);
    }
}
