//! The configuration id shared by every instance and run of one config.

use crate::contract::keys::Key;
use serde_json::{Map, Value};

/// sha256 (hex) over the job name and its sorted arguments, those that are
/// part of the id ([`Key::in_unique_id`]: not the instance's, its sizing,
/// nor a typed field of the report; docs/worker.md, "Report files"). Keys are compared after [`arg_key`](super::arg_key)
/// normalisation, so `--batch-size` and `batch_size` are the same argument.
pub fn unique_id(name: &str, args: &Map<String, Value>) -> String {
    let kept: std::collections::BTreeMap<String, &Value> =
        args.iter().map(|(k, v)| (super::arg_key(k), v)).filter(|(k, _)| Key::of(k).in_unique_id()).collect();
    let canonical = serde_json::json!({ "name": name, "args": kept });
    let text = super::to_strict_json(&canonical);
    crate::digest::sha256(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn excluded_keys_and_order_do_not_matter() {
        let a = unique_id("vae", &args(json!({"repeat": 5, "number": 2, "seed": 100, "batch_size": 64})));
        let b = unique_id("vae", &args(json!({"--batch-size": 128, "seed": 200, "number": 2, "repeat": 5})));
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
    }

    #[test]
    fn the_id_is_the_compat_one() {
        // sha256 of the pretty, sorted JSON of name and the kept arguments,
        // computed apart (Python's `json.dumps(indent=4, sort_keys=True)`):
        // the instance's keys, its sizing and the report's fields are left out.
        let all = json!({"--repeat": 5, "number": 2, "lr": 0.1, "arch": "resnet18", "seed": 7, "batch_size": 64,
            "workers": 8, "gpu": "V100", "cuda": true, "data": "/d", "jr_id": "1", "vcd": "1", "log": "/o/x.log"});
        assert_eq!(unique_id("vae", &args(all)), "31688823848e7bf187a43293c0ea3edd3b9b1425415638e225f0b4fb09ef76f2");
    }

    #[test]
    fn config_and_name_do() {
        let base = unique_id("vae", &args(json!({"repeat": 5})));
        assert_ne!(base, unique_id("vae", &args(json!({"repeat": 6}))));
        assert_ne!(base, unique_id("dcgan", &args(json!({"repeat": 5}))));
    }
}
