//! Match statistics, the one copy every match runner uses (`rookery match`, `rookery ladder`,
//! the Lab's tournament, Python): wins, draws and losses, the Elo difference a score means, its
//! 95% error bar and the Wilson interval, likelihood of superiority, the sequential probability
//! ratio test engine authors use to accept a change, and who plays whom in a round robin. It
//! lives in `core` because it knows nothing of engines or games, only counts.
//!
//! Elo follows the logistic model: a score `p` means `-400 log10(1/p - 1)` Elo. The error bar
//! comes from the per-game variance of the score (wins, draws and losses counted apart), so a
//! drawish match gets the narrower bar it deserves. The SPRT uses the normal approximation of the
//! generalized SPRT (M. Van den Bergh's formula, as fishtest and cutechess use it). The Wilson
//! score interval bounds the score of a short match, and stays finite where the Elo does not (a
//! pairing won every time has a lower bound, not a value).

use serde::Serialize;

/// 97.5% quantile of the standard normal distribution: a two-sided 95% interval.
const Z95: f64 = 1.959_963_985;

/// Wins, draws and losses from the first player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    /// Counts one game by its score (1 win, 0.5 draw, 0 loss).
    pub fn add(&mut self, score: f64) {
        if score == 1.0 {
            self.wins += 1;
        } else if score == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Adds another count (a player's results against each opponent summed).
    pub fn merge(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    /// Points per game, 0..1 (0.5 with no games).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(n)
    }

    pub fn draw_ratio(&self) -> f64 {
        f64::from(self.draws) / f64::from(self.games().max(1))
    }

    /// Per-game variance of the score.
    fn variance(&self) -> f64 {
        let n = f64::from(self.games().max(1));
        let p = self.score();
        (f64::from(self.wins) * (1.0 - p).powi(2)
            + f64::from(self.draws) * (0.5 - p).powi(2)
            + f64::from(self.losses) * p.powi(2))
            / n
    }

    /// Elo difference this score means (infinite at 0% or 100%).
    pub fn elo(&self) -> f64 {
        elo(self.score())
    }

    /// Half the width of the 95% confidence interval of the Elo difference.
    pub fn elo_error(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return f64::INFINITY;
        }
        let se = (self.variance() / f64::from(n)).sqrt();
        let p = self.score();
        let (lo, hi) = ((p - Z95 * se).max(1e-9), (p + Z95 * se).min(1.0 - 1e-9));
        (elo(hi) - elo(lo)) / 2.0
    }

    /// Likelihood of superiority: the probability that the first player is the stronger, from
    /// wins and losses (draws say nothing about it).
    pub fn los(&self) -> f64 {
        let decisive = f64::from(self.wins + self.losses);
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((f64::from(self.wins) - f64::from(self.losses)) / (2.0 * decisive).sqrt()))
    }

    /// The log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`).
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let n = f64::from(self.games());
        let var = self.variance();
        if n == 0.0 || var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (expected_score(elo0), expected_score(elo1));
        (s1 - s0) * (2.0 * self.score() - s0 - s1) * n / (2.0 * var)
    }
}

/// Elo difference for an expected score.
pub fn elo(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / p - 1.0).log10()
}

/// The 95% Wilson score interval of a score `p` over `n` games ((0, 1) with no games).
pub fn wilson(p: f64, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = Z95;
    let n = f64::from(n);
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let d = 1.0 + z * z / n;
    (
        ((centre - spread) / d).max(0.0),
        ((centre + spread) / d).min(1.0),
    )
}

/// Every pairing of a round robin among `players`, each once, as (first, second) with
/// `first < second`, in order.
pub fn round_robin(players: usize) -> Vec<(usize, usize)> {
    (0..players)
        .flat_map(|i| (i + 1..players).map(move |j| (i, j)))
        .collect()
}

/// (White, Black) in game `game` of a pairing: the first player has White in even games, so
/// colours alternate and two games in a row share an opening fairly.
pub fn colours((first, second): (usize, usize), game: usize) -> (usize, usize) {
    if game.is_multiple_of(2) {
        (first, second)
    } else {
        (second, first)
    }
}

/// Expected score for an Elo difference.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

/// A sequential probability ratio test between two Elo hypotheses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SprtState {
    /// Neither bound crossed: play on.
    Continue,
    /// H0 accepted: the change is not better by `elo1` (the lower bound was crossed).
    H0,
    /// H1 accepted: the change is better (the upper bound was crossed).
    H1,
}

impl Sprt {
    /// (lower, upper) bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn state(&self, result: &Wdl) -> SprtState {
        let llr = result.llr(self.elo0, self.elo1);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtState::H1
        } else if llr <= lower {
            SprtState::H0
        } else {
            SprtState::Continue
        }
    }

    /// Parses `elo0=0 elo1=5 alpha=0.05 beta=0.05` (any order; alpha and beta default to 0.05).
    pub fn parse(words: &[String]) -> Result<Sprt, String> {
        let mut s = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| format!("SPRT setting '{w}' is not KEY=VALUE"))?;
            let v: f64 = v
                .parse()
                .map_err(|_| format!("SPRT setting '{w}': '{v}' is not a number"))?;
            match k {
                "elo0" => s.elo0 = v,
                "elo1" => s.elo1 = v,
                "alpha" => s.alpha = v,
                "beta" => s.beta = v,
                _ => {
                    return Err(format!(
                        "unknown SPRT setting '{k}' (elo0, elo1, alpha, beta)"
                    ));
                }
            }
        }
        if s.elo0.is_nan() || s.elo1.is_nan() {
            return Err("SPRT needs elo0= and elo1=".into());
        }
        if s.elo1 <= s.elo0 {
            return Err("SPRT needs elo1 above elo0".into());
        }
        if !(0.0 < s.alpha && s.alpha < 0.5 && 0.0 < s.beta && s.beta < 0.5) {
            return Err("SPRT alpha and beta must lie between 0 and 0.5".into());
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wdl(wins: u32, draws: u32, losses: u32) -> Wdl {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    // Expected values computed independently (Python's math module: log10, erf, sqrt) from
    // the formulas in the module comment.
    #[test]
    fn elo_and_error_bar_match_known_values() {
        let r = wdl(62, 94, 44);
        assert!(close(r.elo(), 31.354, 1e-3));
        assert!(close(r.elo_error(), 35.193, 1e-3));
        let r = wdl(146, 33, 21);
        assert!(close(r.elo(), 254.729, 1e-3));
        assert!(close(r.elo_error(), 53.584, 1e-3));
        let r = wdl(10, 80, 10);
        assert!(close(r.elo(), 0.0, 1e-9));
        assert!(close(r.elo_error(), 30.532, 1e-3));
        assert!(close(elo(0.75), 190.849, 1e-3));
        assert!(close(expected_score(elo(0.3)), 0.3, 1e-12));
    }

    #[test]
    fn wilson_interval_and_round_robin() {
        // Wilson's interval for 8 of 10: 0.490 to 0.943.
        let (lo, hi) = wilson(0.8, 10);
        assert!(
            close(lo, 0.4902, 1e-3) && close(hi, 0.9433, 1e-3),
            "{lo} {hi}"
        );
        assert_eq!(wilson(0.5, 0), (0.0, 1.0));
        assert_eq!(round_robin(3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(colours((0, 2), 0), (0, 2));
        assert_eq!(colours((0, 2), 3), (2, 0));
    }

    #[test]
    fn los_matches_known_values() {
        assert!(close(wdl(62, 94, 44).los(), 0.95980, 1e-4));
        assert!(close(wdl(10, 80, 10).los(), 0.5, 1e-9));
        assert!(close(erf(0.5), 0.520_499_88, 2e-7));
        assert!(close(erf(-1.2), -0.910_313_98, 2e-7));
    }

    #[test]
    fn sprt_llr_and_decisions_match_known_values() {
        assert!(close(wdl(62, 94, 44).llr(0.0, 5.0), 0.4566, 1e-3));
        assert!(close(wdl(146, 33, 21).llr(0.0, 10.0), 7.9077, 1e-3));
        assert!(close(wdl(300, 400, 200).llr(0.0, 5.0), 2.4776, 1e-3));
        let s = Sprt::parse(&["elo0=0".into(), "elo1=5".into()]).unwrap();
        let (lo, hi) = s.bounds();
        assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
        assert_eq!(s.state(&wdl(62, 94, 44)), SprtState::Continue);
        assert_eq!(s.state(&wdl(600, 800, 400)), SprtState::H1);
        assert_eq!(s.state(&wdl(400, 800, 600)), SprtState::H0);
        assert!(Sprt::parse(&["elo0=5".into(), "elo1=0".into()]).is_err());
        assert!(Sprt::parse(&["elo1=5".into()]).is_err());
        assert!(Sprt::parse(&["elo0=0".into(), "elo1=5".into(), "gamma=1".into()]).is_err());
    }
}
