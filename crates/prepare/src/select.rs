//! Which data sets a selection of jobs reads: a job reads a set when one of
//! its arguments (key or value, lists included) names the set's folder under
//! `$DATA_DIRECTORY` (`$DATA_DIRECTORY/ImageNet/train`,
//! `${DATA_DIRECTORY}/coco`), and an original-suite `cmd` job also reads the
//! sets its script read without an argument (vae: MNIST, ...).

use super::catalog::DataSet;
use mlb_run::jobs::{Job, Program};
use serde_json::Value;
use std::collections::BTreeMap;

/// The data sets `jobs` read, each with the names of the jobs reading it.
pub fn data_sets<'j>(jobs: impl IntoIterator<Item = &'j Job>) -> BTreeMap<DataSet, Vec<String>> {
    let mut out: BTreeMap<DataSet, Vec<String>> = BTreeMap::new();
    for job in jobs {
        let mut texts: Vec<&str> = Vec::new();
        for (key, value) in &job.args.0 {
            texts.push(key);
            strings(value, &mut texts);
        }
        for set in DataSet::ALL {
            let named = texts.iter().any(|t| names(t, set.folder()));
            let scripted =
                matches!(job.program, Program::Cmd(_)) && set.original_readers().contains(&job.name.as_str());
            if named || scripted {
                out.entry(set).or_default().push(job.name.clone());
            }
        }
    }
    out
}

/// The strings in `value` (itself, or the items of a list).
fn strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Whether `text` holds `$DATA_DIRECTORY/<folder>` or `${DATA_DIRECTORY}/<folder>`,
/// the folder name followed by nothing or `/`.
fn names(text: &str, folder: &str) -> bool {
    ["$DATA_DIRECTORY/", "${DATA_DIRECTORY}/"].iter().any(|var| {
        text.match_indices(var).any(|(at, _)| {
            let rest = &text[at + var.len()..];
            rest.strip_prefix(folder).is_some_and(|tail| tail.is_empty() || tail.starts_with('/'))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_run::jobs::parse;
    use std::path::Path;

    #[test]
    fn arguments_naming_a_folder_and_original_scripts_select_sets() {
        let file = parse(
            Path::new("jobs.json"),
            r#"[
              {"name": "a", "plugin": "loader", "args": {"data": "$DATA_DIRECTORY/ImageNet/train"}},
              {"name": "b", "plugin": "ssd", "args": {"data": ["${DATA_DIRECTORY}/coco", "/elsewhere"]}},
              {"name": "c", "plugin": "recom", "args": {"$DATA_DIRECTORY/ml-20m": ""}},
              {"name": "d", "plugin": "x", "args": {"data": "$DATA_DIRECTORY/ImageNetV2", "n": 3}},
              {"name": "vae", "cmd": "./vae/run.sh", "args": {}},
              {"name": "vae2", "plugin": "vae", "args": {}}
            ]"#,
        )
        .unwrap();
        let sets = data_sets(&file.jobs);
        let expected: BTreeMap<DataSet, Vec<String>> = [
            (DataSet::ImageNet, vec!["a".to_string()]),
            (DataSet::TorchvisionMnist, vec!["vae".to_string()]),
            (DataSet::Coco, vec!["b".to_string()]),
            (DataSet::MovieLens, vec!["c".to_string()]),
        ]
        .into();
        assert_eq!(sets, expected);
    }
}
