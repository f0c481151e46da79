//! Score profiles beside the original score (docs/targets.md, "Score
//! profiles"): weights per bench for a suite of its own (the modern suite),
//! read from `profiles.yaml` beside this file (compiled in). For the reports
//! of a profile's suites, `mlb report` computes the profile's score instead
//! of the original one, so the two are never mixed:
//!
//! - `score`: BF x the weighted geometric mean of `perf` (mean / target,
//!   from the target table) over the benches with a perf;
//! - `mfu`: the weighted mean MFU over the benches with one;
//!
//! each weight divided by the sum of the weights of the benches counted.

use super::mfu::MfuTables;
use super::rows::Row;
use super::score::MAX_FAILURE_SHARE;
use mlb_figures::geometric;
use mlb_figures::moments::weighted_mean;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The profiles' text, compiled in.
const PROFILES: &str = include_str!("profiles.yaml");

/// A score profile, as the file writes it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Its name.
    pub name: String,
    /// The suites whose reports it scores.
    pub suites: Vec<String>,
    /// Each bench's weight.
    pub weights: BTreeMap<String, f64>,
}

/// Every profile, parsed once.
pub fn profiles() -> &'static [Profile] {
    static ALL: OnceLock<Vec<Profile>> = OnceLock::new();
    ALL.get_or_init(|| serde_saphyr::from_str(PROFILES).expect("the compiled-in profiles parse (tested)"))
}

/// The profile of the reports of `suites` (the suites their entries name):
/// the one whose suites hold them all.
pub fn for_suites<'a>(mut suites: impl Iterator<Item = Option<&'a str>>) -> Option<&'static Profile> {
    let first = suites.next()??;
    let profile = profiles().iter().find(|p| p.suites.iter().any(|s| s == first))?;
    suites.all(|s| s.is_some_and(|s| profile.suites.iter().any(|p| p == s))).then_some(profile)
}

/// One bench of a profile's score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileBench {
    /// The bench.
    pub bench: String,
    /// Its weight.
    pub weight: f64,
    /// `mean / target`, with a target table that has the bench.
    pub perf: Option<f64>,
    /// Its mean MFU, when its reports state their FLOPs and a peak is known.
    pub mfu: Option<f64>,
}

/// A profile's score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileScore {
    /// The profile.
    pub profile: String,
    /// Its benches, in the profile's order (by name).
    pub benches: Vec<ProfileBench>,
    /// 1 when `failures / results <= 1%`, else 0.
    pub bf: u8,
    /// BF x the weighted geometric mean of the perfs; none without one.
    pub score: Option<f64>,
    /// The weighted mean MFU; none without one.
    pub mfu: Option<f64>,
}

impl Profile {
    /// The score of the per-bench `rows` and MFU tables `mfu` (laid out per
    /// bench), of `results` entries of which `failures` failed.
    pub fn score(&self, rows: &[Row], mfu: &MfuTables, results: usize, failures: usize) -> ProfileScore {
        let benches: Vec<ProfileBench> = self
            .weights
            .iter()
            .map(|(bench, weight)| ProfileBench {
                bench: bench.clone(),
                weight: *weight,
                perf: rows.iter().find(|r| r.bench == *bench).and_then(|r| r.perf),
                mfu: mfu.rows.iter().find(|r| r.label == *bench).and_then(|r| r.mfu.mean),
            })
            .collect();
        let weighted = |figure: fn(&ProfileBench) -> Option<f64>| -> Vec<(f64, f64)> {
            benches.iter().filter_map(|b| Some((b.weight, figure(b)?))).collect()
        };
        let bf = u8::from(failures as f64 / results as f64 <= MAX_FAILURE_SHARE);
        let score = geometric::weighted(&weighted(|b| b.perf.filter(|p| *p > 0.0))).map(|g| f64::from(bf) * g);
        let mfu = weighted_mean(&weighted(|b| b.mfu));
        ProfileScore { profile: self.name.clone(), benches, bf, score, mfu }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_figures::Sample;

    fn row(bench: &str, perf: Option<f64>) -> Row {
        Row {
            label: bench.into(),
            bench: bench.into(),
            args: BTreeMap::new(),
            results: 1,
            failures: 0,
            stricter: 0,
            sample: Sample::of(&[1.0]),
            target: None,
            perf,
            sd_share: None,
            perf_pass: None,
            sd_pass: None,
        }
    }

    fn modern() -> &'static Profile {
        profiles().iter().find(|p| p.name == "modern").unwrap()
    }

    #[test]
    fn the_modern_profile_weighs_the_modern_benches() {
        let m = modern();
        assert_eq!(m.weights.keys().collect::<Vec<_>>(), ["gpt_124m", "gpt_350m", "vit_b16"]);
        assert!((m.weights.values().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(for_suites([Some("modern"), Some("modern-smoke")].into_iter()), Some(m));
        assert_eq!(for_suites([Some("modern"), Some("baselines")].into_iter()), None);
        assert_eq!(for_suites([Some("baselines")].into_iter()), None);
        assert_eq!(for_suites([None].into_iter()), None);
    }

    #[test]
    fn the_score_is_a_weighted_geometric_mean_of_perf_and_the_mfu_a_weighted_mean() {
        let rows =
            [row("gpt_124m", Some(2.0)), row("gpt_350m", Some(0.5)), row("vit_b16", None), row("vae", Some(9.0))];
        let s = modern().score(&rows, &MfuTables::default(), 100, 1);
        // 2^(0.4/0.7) x 0.5^(0.3/0.7); vit_b16 has no perf, vae is not weighed.
        let expected = (0.4 / 0.7 * 2f64.ln() + 0.3 / 0.7 * 0.5f64.ln()).exp();
        assert!((s.score.unwrap() - expected).abs() < 1e-12, "{s:?}");
        assert_eq!((s.bf, s.mfu, s.benches.len()), (1, None, 3));
        assert_eq!(modern().score(&rows, &MfuTables::default(), 100, 2).score, Some(0.0), "BF 0 over 1% failures");
        assert_eq!(modern().score(&[row("vae", Some(1.0))], &MfuTables::default(), 1, 0).score, None);
    }
}
