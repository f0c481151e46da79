//! A deterministic run: the config keys that ask for one, and the report's
//! `determinism` block, where the worker records what the instance computed
//! every N steps (docs/determinism.md).
//!
//! A value is recorded by its bits, as hex: `f64` bits as 16 digits, the
//! parameters' XXH3-128 as 32. Two instances computed the same thing exactly
//! when their texts are equal; no float is printed or parsed on the way.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The config key asking for a deterministic run (a flag).
pub const DETERMINISTIC: &str = "deterministic";
/// The config key giving the steps between two fingerprints (a count).
pub const EVERY: &str = "fingerprint_every";
/// Steps between two fingerprints when the config does not say.
pub const DEFAULT_EVERY: u64 = 10;
/// The seed of every instance of a deterministic config that gives none.
pub const DEFAULT_SEED: u64 = 1;

/// The environment variables that switch the kernels a math library picks,
/// or how deterministic they are: a deterministic run's stack records those
/// set, and the launcher passes them on to instances in containers.
pub const LIBRARY_SWITCHES: [&str; 6] = [
    "MKL_CBWR",
    "MKL_ENABLE_INSTRUCTIONS",
    "ONEDNN_MAX_CPU_ISA",
    "CUBLAS_WORKSPACE_CONFIG",
    "MIOPEN_DEBUG_CONVOLUTION_DETERMINISTIC",
    "HIPBLASLT_WORKSPACE_SIZE",
];

/// What a config asks of a deterministic run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeterministicRun {
    /// Steps between two fingerprints.
    pub every: u64,
}

/// A deterministic config the worker cannot follow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{EVERY}` must be a positive integer, got {got}")]
pub struct EveryError {
    /// What it was, as JSON.
    pub got: String,
}

impl DeterministicRun {
    /// The deterministic run `args` (a config's arguments, keys normalised)
    /// ask for: `None` when `deterministic` is absent or false (`false`,
    /// `0`, `""`, `null`, as every flag reads).
    pub fn of(args: &Map<String, Value>) -> Result<Option<DeterministicRun>, EveryError> {
        if !mlb_plugin::Config::from_map(args.clone()).flag(DETERMINISTIC) {
            return Ok(None);
        }
        let every = match args.get(EVERY) {
            None | Some(Value::Null) => DEFAULT_EVERY,
            Some(v) => {
                let n = v.as_u64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()));
                n.filter(|n| *n > 0).ok_or_else(|| EveryError { got: v.to_string() })?
            }
        };
        Ok(Some(DeterministicRun { every }))
    }

    /// The seed every instance of the config gets: the config's own
    /// `seed`, else [`DEFAULT_SEED`] (never the run's id: two runs of a
    /// config must compute the same bits).
    pub fn seed(args: &Map<String, Value>) -> u64 {
        let v = args.get("seed");
        v.and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))).unwrap_or(DEFAULT_SEED)
    }
}

/// The report's `determinism` block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Determinism {
    /// Steps between two fingerprints.
    pub every: u64,
    /// What computed: the GPU's name, or the CPU's model.
    pub device: String,
    /// What else decides the bits: the plugin's build, libtorch, the CPU's
    /// kernel set, threads, the library switches of the environment.
    pub stack: BTreeMap<String, String>,
    /// The fingerprints, in step order.
    pub fingerprints: Vec<Fingerprint>,
    /// Microseconds spent taking them, all told (inside the timed blocks:
    /// their share of the run's step time is what they cost it).
    #[serde(default)]
    pub spent_us: u64,
}

/// What the instance had computed after one step.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The 1-based step (warm-up included).
    pub step: u64,
    /// The step's loss, its `f64` bits as 16 hex digits (absent: no loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<String>,
    /// The gradient norm, its `f64` bits (absent: no gradients).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grad_norm: Option<String>,
    /// XXH3-128 of every parameter's bytes, 32 hex digits.
    pub params: String,
}

impl Fingerprint {
    /// The fingerprint of step `step` from the values computed.
    pub fn of(step: u64, loss: Option<f64>, grad_norm: Option<f64>, params: [u8; 16]) -> Self {
        Fingerprint {
            step,
            loss: loss.map(bits),
            grad_norm: grad_norm.map(bits),
            params: params.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// Whether `other` records the same computation (the step aside).
    pub fn same_as(&self, other: &Fingerprint) -> bool {
        (&self.loss, &self.grad_norm, &self.params) == (&other.loss, &other.grad_norm, &other.params)
    }
}

/// A float's bits as 16 hex digits.
fn bits(v: f64) -> String {
    format!("{:016x}", v.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_config_asks_with_a_flag_and_may_set_the_interval() {
        assert_eq!(DeterministicRun::of(&args(json!({}))), Ok(None));
        assert_eq!(DeterministicRun::of(&args(json!({"deterministic": false}))), Ok(None));
        let on = DeterministicRun::of(&args(json!({"deterministic": true}))).unwrap();
        assert_eq!(on, Some(DeterministicRun { every: DEFAULT_EVERY }));
        let five = DeterministicRun::of(&args(json!({"deterministic": "1", "fingerprint_every": "5"}))).unwrap();
        assert_eq!(five, Some(DeterministicRun { every: 5 }));
        for bad in [json!(0), json!(-3), json!("x"), json!(1.5)] {
            let e = DeterministicRun::of(&args(json!({"deterministic": true, "fingerprint_every": bad}))).unwrap_err();
            assert!(e.to_string().starts_with("`fingerprint_every` must be a positive integer"), "{e}");
        }
    }

    #[test]
    fn the_seed_is_the_configs_or_one() {
        assert_eq!(DeterministicRun::seed(&args(json!({"seed": 42}))), 42);
        assert_eq!(DeterministicRun::seed(&args(json!({"seed": "7"}))), 7);
        assert_eq!(DeterministicRun::seed(&args(json!({}))), DEFAULT_SEED);
    }

    #[test]
    fn values_are_kept_by_their_bits() {
        let a = Fingerprint::of(10, Some(0.1), Some(2.0), [0xab; 16]);
        assert_eq!(a.loss.as_deref(), Some("3fb999999999999a"));
        assert_eq!(a.grad_norm.as_deref(), Some("4000000000000000"));
        assert_eq!(a.params, "ab".repeat(16));
        let b = Fingerprint::of(20, Some(0.1), Some(2.0), [0xab; 16]);
        assert!(a.same_as(&b), "the step aside");
        let next = f64::from_bits(0.1f64.to_bits() + 1);
        assert!(!a.same_as(&Fingerprint::of(10, Some(next), Some(2.0), [0xab; 16])), "one bit of the loss");
        assert!(!a.same_as(&Fingerprint { params: "ab".repeat(15) + "ac", ..a.clone() }));
        let text = serde_json::to_string(&Fingerprint::of(1, None, None, [0; 16])).unwrap();
        assert_eq!(text, format!(r#"{{"step":1,"params":"{}"}}"#, "0".repeat(32)));
    }
}
