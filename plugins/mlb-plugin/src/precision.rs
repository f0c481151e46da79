//! The numeric precisions of mlb's workloads and reports: one type for the
//! `precision` arguments of the workloads, the `"precision"` of their
//! reports, and the key of the launcher's peak table and MFU.
//!
//! Which workloads accept which:
//!
//! | precision | what it is | `gemm` (`mlb burn`) | training (`gpt`, `vit`) |
//! |---|---|---|---|
//! | `fp32` | IEEE single precision on the plain units | yes | yes |
//! | `tf32` | float32 storage, TensorFloat-32 matrix products (CUDA) | yes | no |
//! | `bf16` | bfloat16 | yes | yes (autocast) |
//! | `fp16` | IEEE half precision | yes | yes (autocast, loss scaling) |
//! | `fp8` | 8-bit floating point (E4M3 or E5M2) | yes (E4M3) | no |
//!
//! The training ones are [`Precision::TRAINING`]. Each workload reads its
//! argument with the exact short names ([`Precision::from_name`]) and its own
//! message; reports already written are read with the long names too
//! ([`FromStr`]).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A numeric precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE single precision on the plain (non-tensor) units.
    Fp32,
    /// TensorFloat-32 matrix units (fp32 storage, 10-bit mantissa products).
    Tf32,
    /// bfloat16.
    Bf16,
    /// IEEE half precision.
    Fp16,
    /// 8-bit floating point (E4M3 or E5M2).
    Fp8,
}

impl Precision {
    /// Every precision, in the order tables list them.
    pub const ALL: [Precision; 5] =
        [Precision::Fp32, Precision::Tf32, Precision::Bf16, Precision::Fp16, Precision::Fp8];

    /// The precisions the training workloads (`gpt`, `vit`) accept.
    pub const TRAINING: [Precision; 3] = [Precision::Fp32, Precision::Bf16, Precision::Fp16];

    /// The short name (`bf16`), as arguments, the peak table and `mlb
    /// report` write it.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Bf16 => "bf16",
            Precision::Fp16 => "fp16",
            Precision::Fp8 => "fp8",
        }
    }

    /// The precision whose short name is exactly `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `"precision"` text that names none of the precisions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown precision {0:?} (known: fp32, tf32, bf16, fp16, fp8 and their long names float32, bfloat16, float16)")]
pub struct UnknownPrecision(pub String);

impl FromStr for Precision {
    type Err = UnknownPrecision;

    /// Reads the short names and the long ones reports already hold
    /// (`float32`, `float16` of the convnets, `bfloat16`, `half`), in any case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "fp32" | "float32" | "float" | "single" => Precision::Fp32,
            "tf32" | "tensorfloat32" => Precision::Tf32,
            "bf16" | "bfloat16" => Precision::Bf16,
            "fp16" | "float16" | "half" => Precision::Fp16,
            "fp8" | "float8" | "e4m3" | "e5m2" => Precision::Fp8,
            _ => return Err(UnknownPrecision(text.to_string())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_short_and_long_names() {
        for (text, p) in [
            ("fp32", Precision::Fp32),
            ("float32", Precision::Fp32),
            ("BF16", Precision::Bf16),
            ("bfloat16", Precision::Bf16),
            ("float16", Precision::Fp16),
            ("half", Precision::Fp16),
            ("tf32", Precision::Tf32),
            ("fp8", Precision::Fp8),
        ] {
            assert_eq!(text.parse::<Precision>(), Ok(p), "{text}");
        }
        assert!("int8".parse::<Precision>().unwrap_err().to_string().contains("\"int8\""));
    }

    #[test]
    fn names_round_trip_and_only_short_names_are_names() {
        for p in Precision::ALL {
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
            assert_eq!(Precision::from_name(p.name()), Some(p));
            assert_eq!(p.to_string(), p.name());
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{}\"", p.name()));
        }
        assert_eq!(Precision::from_name("bfloat16"), None);
        assert_eq!(Precision::from_name("BF16"), None);
    }
}
