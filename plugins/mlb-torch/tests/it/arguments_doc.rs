//! docs/workloads.md's argument tables are the workloads' declarations: each
//! workload's arguments with their kinds, defaults and descriptions (the doc
//! comments of their fields), as the library's manifest gives them. A table
//! that differs fails the test; `MLB_WRITE_DOCS=1` writes them instead.

use crate::common::binary::artifact;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The line before the tables.
const BEGIN: &str = "<!-- arguments: written by `MLB_WRITE_DOCS=1 cargo test -p mlb-torch --test it arguments_doc` -->";
/// The line after them.
const END: &str = "<!-- end of arguments -->";

/// docs/workloads.md.
fn workloads_md() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/workloads.md")
}

/// What `mlb worker --describe` says of every workload of the library.
fn described() -> Vec<Value> {
    let out =
        Command::new(artifact("mlb")).args(["worker", "--describe"]).arg(artifact("libmlb_torch.so")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A table cell: `|` escaped, on one line.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// One workload's table: a heading, then a row per argument (alphabetical,
/// as `mlb plugins show` lists them).
fn table(meta: &Value) -> String {
    let name = meta["name"].as_str().unwrap();
    let (kinds, help) = (meta["arg_kinds"].as_object().unwrap(), meta["arg_help"].as_object().unwrap());
    let defaults = meta["default_args"].as_object().unwrap();
    let mut out = format!("### `{name}`\n\n| argument | kind | default | what it does |\n|---|---|---|---|\n");
    for (arg, kind) in kinds {
        let default = defaults.get(arg).map_or("-".to_string(), |d| format!("`{d}`"));
        let text = help.get(arg).and_then(Value::as_str).unwrap_or_default();
        assert!(!text.is_empty(), "`{name}`: argument `{arg}` has no description");
        out += &format!("| `{arg}` | {} | {} | {} |\n", kind.as_str().unwrap(), cell(&default), cell(text));
    }
    out
}

#[test]
fn the_docs_table_every_argument_of_every_workload_as_declared() {
    let tables: Vec<String> = described().iter().map(table).collect();
    let generated = format!("{BEGIN}\n\n{}\n{END}", tables.join("\n"));
    let path = workloads_md();
    let doc = std::fs::read_to_string(&path).unwrap();
    let (Some(begin), Some(end)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("{} has no `{BEGIN}` ... `{END}` section", path.display())
    };
    let current = &doc[begin..end + END.len()];
    if std::env::var_os("MLB_WRITE_DOCS").is_some() {
        std::fs::write(&path, doc.replace(current, &generated)).unwrap();
        return;
    }
    assert!(
        current == generated,
        "the argument tables of {} are not the workloads' declarations: run \
         `MLB_WRITE_DOCS=1 cargo test -p mlb-torch --test it arguments_doc` and commit the result",
        path.display()
    );
}
