//! What decides the bits an instance computes besides its config: the
//! device and the software stack (docs/determinism.md, "The vote"). The
//! vote compares instances only within one device and one stack: two
//! stacks may round differently, and both be right.

use mlb_record::contract::determinism::{Determinism, LIBRARY_SWITCHES};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What an instance's report says of its device and stack.
pub struct Stack<'a> {
    /// The plugin's build, as the report's `version` writes it.
    pub plugin: &'a str,
    /// The libtorch the plugin links (`None`: it links none).
    pub libtorch: Option<&'a str>,
    /// The intra-op threads given to the workload.
    pub threads: u32,
    /// The plugin's report fields (`gpu`: the GPU's name).
    pub fragment: &'a Map<String, Value>,
    /// The GPU driver's version and CUDA's (ROCm's), on a GPU ([`gpu_versions`]).
    pub gpu_versions: Option<(String, String)>,
}

/// The GPU driver's version and the CUDA (ROCm) version of this host, as
/// `system.json` gives them: those of the first vendor that reports a
/// driver; `None` on a host without one.
pub fn gpu_versions() -> Option<(String, String)> {
    let root = std::path::Path::new("/");
    crate::gpu::Vendor::ALL.iter().map(|v| v.ops().versions(root)).find(|(driver, _)| !driver.is_empty())
}

impl Stack<'_> {
    /// The report's `determinism` block, around `fingerprints` taken every
    /// `every` steps in `spent` all told; `var` reads the environment,
    /// `cpuinfo` is `/proc/cpuinfo`'s text.
    pub fn block(
        &self,
        every: u64,
        fingerprints: Vec<mlb_record::contract::determinism::Fingerprint>,
        spent: std::time::Duration,
        var: impl Fn(&str) -> Option<String>,
        cpuinfo: &str,
    ) -> Determinism {
        let device = match self.fragment.get("gpu").and_then(Value::as_str) {
            Some(gpu) => gpu.to_string(),
            None => Some(crate::system::processor_model(cpuinfo)).filter(|m| !m.is_empty()).unwrap_or("CPU".into()),
        };
        let mut stack = BTreeMap::from([
            ("plugin".to_string(), self.plugin.to_string()),
            ("cpu_kernels".to_string(), cpu_kernels().to_string()),
            ("threads".to_string(), self.threads.to_string()),
        ]);
        if let Some(libtorch) = self.libtorch {
            stack.insert("libtorch".into(), libtorch.into());
        }
        if let Some((driver, toolkit)) = &self.gpu_versions {
            stack.insert("driver".into(), driver.clone());
            stack.insert("cuda_or_rocm".into(), toolkit.clone());
        }
        stack.extend(LIBRARY_SWITCHES.iter().filter_map(|name| var(name).map(|v| (name.to_string(), v))));
        Determinism { every, device, stack, fingerprints, spent_us: spent.as_micros() as u64 }
    }
}

/// The widest vector instructions this CPU offers, which the math
/// libraries pick their kernels by: MKL and oneDNN compute in another
/// order on AVX-512 than on AVX2.
pub fn cpu_kernels() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            "avx512"
        } else if std::arch::is_x86_feature_detected!("avx2") {
            "avx2"
        } else {
            "sse"
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("sve") {
            "sve"
        } else {
            "neon"
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        std::env::consts::ARCH
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_block_names_the_device_and_what_decides_the_bits() {
        let fragment = json!({"threads": 1}).as_object().unwrap().clone();
        let stack = Stack {
            plugin: "spin 0.1.0 (build abc)",
            libtorch: None,
            threads: 1,
            fragment: &fragment,
            gpu_versions: None,
        };
        let env = |name: &str| (name == "MKL_CBWR").then(|| "AVX2".to_string());
        let block = stack.block(
            10,
            vec![],
            std::time::Duration::from_micros(7),
            env,
            "processor\t: 0\nmodel name\t: Test CPU 9000\n",
        );
        assert_eq!((block.every, block.device.as_str(), block.spent_us), (10, "Test CPU 9000", 7));
        assert_eq!(block.stack["plugin"], "spin 0.1.0 (build abc)");
        assert_eq!(block.stack["MKL_CBWR"], "AVX2");
        assert_eq!(block.stack["cpu_kernels"], cpu_kernels());
        assert!(!block.stack.contains_key("libtorch") && !block.stack.contains_key("CUBLAS_WORKSPACE_CONFIG"));

        let fragment = json!({"gpu": "NVIDIA H200"}).as_object().unwrap().clone();
        let versions = Some(("580.65".to_string(), "13.0".to_string()));
        let stack = Stack { libtorch: Some("2.11.0+cu130"), fragment: &fragment, gpu_versions: versions, ..stack };
        let block = stack.block(10, vec![], std::time::Duration::ZERO, |_| None, "");
        assert_eq!((block.device.as_str(), block.stack["libtorch"].as_str()), ("NVIDIA H200", "2.11.0+cu130"));
        assert_eq!((block.stack["driver"].as_str(), block.stack["cuda_or_rocm"].as_str()), ("580.65", "13.0"));
    }
}
