//! The top-level command line: the launcher without a subcommand, the
//! subcommands beside it.

mod common;

#[test]
fn nothing_to_do_is_explained() {
    let out = common::run(&[]);
    assert!(!out.status.success());
    assert!(common::text(&out).1.contains("give --jobs FILE to run a jobs file, or a subcommand"));
}

#[test]
fn plugin_dir_still_works_before_a_subcommand() {
    let spin = common::spin_dir();
    let out = common::run(&["--plugin-dir", spin.path().to_str().unwrap(), "plugins", "list", "--json"]);
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(v.as_array().unwrap().iter().any(|e| e["name"] == "spin" && e["status"] == "ok"), "{stdout}");
}
