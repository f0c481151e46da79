//! The evaluation entry and the declared quality, through the loader and
//! `mlb plugins`: spin's (a Rust plugin), a C plugin's with the fields
//! appended to the table, and a plugin built before them, which loads and
//! runs as before and has no evaluation.

use crate::common;
use crate::plugin_manifest::{c_manifest, c_plugin, private_dir, spin_copy, C_ABI};

use mlb::plugins::{self, Instance, LoadError, QualitySpec};
use mlb_plugin::manifest::{self, Entry};
use mlb_plugin::{Quality, Workload};
use std::path::Path;
use std::process::Command;

/// `config`'s spin instance after `steps` steps: its evaluations before and after.
fn spin_evals(plugin: &plugins::Plugin, config: &str, steps: usize) -> (f64, f64) {
    let mut inst = Instance::create(plugin, config).unwrap();
    inst.setup("cpu", 1, false).unwrap();
    let before = inst.eval().unwrap();
    for _ in 0..steps {
        inst.step().unwrap();
    }
    (before, inst.eval().unwrap())
}

#[test]
fn spins_quality_rises_with_training_and_lr_zero_never_learns() {
    let dir = private_dir();
    let plugin = plugins::load(&spin_copy(dir.path(), "libmlb_spin.so")).unwrap();
    let quality = plugin.meta().quality.clone().expect("spin declares a quality");
    assert_eq!(Some(&quality), mlb_spin::Spin::QUALITY.map(QualitySpec::from).as_ref());
    assert_eq!((quality.metric.as_str(), quality.higher_is_better, quality.target), ("quality", true, 0.9));

    let (before, after) = spin_evals(&plugin, r#"{"size": 10, "quality_scale": 100}"#, 25);
    assert_eq!(before, 0.0);
    assert!(quality.reached(after, quality.target) && !quality.reached(before, quality.target), "{after}");
    let (_, frozen) = spin_evals(&plugin, r#"{"size": 10, "quality_scale": 100, "lr": 0}"#, 25);
    assert_eq!(frozen, 0.0, "lr 0 never learns");
}

/// A C plugin with the whole table of this ABI: its eval gives 0.25 and it
/// declares `top1 >= 0.5`; its manifest declares `manifest_quality`.
fn c_plugin_with_eval(dir: &Path, name: &str, manifest_quality: Option<Quality>) -> std::path::PathBuf {
    let bytes = manifest::to_vec(&[Entry {
        abi_version: 1,
        name: "c_eval",
        version: "1.0.0",
        description: "evaluates",
        default_args: "{}",
        args: &[],
        quality: manifest_quality,
        libtorch: "",
        deterministic: false,
        checkpoint: false,
    }]);
    let bytes: Vec<String> = bytes.iter().map(u8::to_string).collect();
    let source = format!(
        "{C_ABI}static const PluginTable T = {{ sizeof(PluginTable), 1, S(\"c_eval\"), S(\"1.0.0\"), S(\"evaluates\"), \
         S(\"{{}}\"), create, setup, step, sync_, report, last_error, free_string, destroy, eval, \
         {{ S(\"top1\"), S(\"fraction\"), 0.5, 1 }} }};\n\
         const PluginTable *mlb_plugin_v1(void) {{ return &T; }}\n\
         __attribute__((used, section(\".mlb_manifest\"))) static const unsigned char MANIFEST[] = {{ {} }};\n",
        bytes.join(", ")
    );
    common::c_library(dir, name, &source)
}

const TOP1: Quality = Quality { metric: "top1", unit: "fraction", higher_is_better: true, target: 0.5 };

#[test]
fn a_c_plugin_with_the_appended_fields_evaluates() {
    let dir = private_dir();
    let lib = c_plugin_with_eval(dir.path(), "libc_eval.so", Some(TOP1));
    let plugin = plugins::load(&lib).unwrap();
    assert_eq!(plugin.meta().quality, Some(QualitySpec::from(TOP1)));
    assert_eq!(plugins::manifest::read(&lib).unwrap().unwrap()[0].quality, Some(QualitySpec::from(TOP1)));
    let mut inst = Instance::create(&plugin, "{}").unwrap();
    inst.setup("cpu", 1, false).unwrap();
    assert_eq!(inst.eval(), Ok(0.25));
}

#[test]
fn a_manifest_whose_quality_disagrees_with_the_table_is_refused() {
    let dir = private_dir();
    let lib = c_plugin_with_eval(dir.path(), "libc_eval_altered.so", None);
    match plugins::load(&lib) {
        Err(LoadError::ManifestMismatch { difference, .. }) => assert!(
            difference.contains("quality is `none` in the manifest, `top1 >= 0.5 (fraction)` in the table"),
            "{difference}"
        ),
        other => panic!("expected a manifest mismatch, got {other:?}"),
    }
}

#[test]
fn a_plugin_built_before_eval_loads_runs_and_has_no_evaluation() {
    let dir = private_dir();
    let tables = [("c_old", "built before eval")];
    let lib = common::c_library(dir.path(), "libc_old.so", &c_plugin(&tables, true, Some(&c_manifest(&tables)), ""));
    let plugin = plugins::load(&lib).unwrap();
    assert_eq!(plugin.meta().quality, None);
    let mut inst = Instance::create(&plugin, "{}").unwrap();
    inst.setup("cpu", 1, false).unwrap();
    assert_eq!(inst.step().unwrap().items, 3);
    let e = inst.eval().unwrap_err();
    assert_eq!(e.to_string(), "eval failed: workload `c_old` has no evaluation");

    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(common::mlb())
        .arg("worker")
        .arg("--plugin")
        .arg(&lib)
        .args(["--config", r#"{"repeat": 2, "number": 1, "skip": 0}"#, "--suite", "test", "--outdir"])
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(common::only_report(out_dir.path()).1["failure"].is_null());
}

#[test]
fn plugins_list_and_show_give_the_metric_and_target() {
    let dir = private_dir();
    spin_copy(dir.path(), "libmlb_spin.so");
    let mlb = |args: &[&str]| {
        let out = Command::new(common::mlb()).args(args).arg("--plugin-dir").arg(dir.path()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&mlb(&["plugins", "list", "--format", "json"])).unwrap();
    let spin = json.as_array().unwrap().iter().find(|e| e["name"] == "spin").unwrap();
    assert_eq!(
        spin["quality"],
        serde_json::json!({"metric": "quality", "unit": "fraction", "higher_is_better": true, "target": 0.9})
    );
    let table = mlb(&["plugins", "list"]);
    assert!(table.contains("quality") && table.contains(">= 0.9"), "{table}");
    let show = mlb(&["plugins", "show", "spin"]);
    assert!(show.contains("quality: quality (fraction), higher is better, default target 0.9\n"), "{show}");
}
