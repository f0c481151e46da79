//! Which jobs file `--jobs` names: a file, or an installed suite by name
//! (`--jobs baselines`); and the standard suite, which a container run
//! without `--jobs` and `mlb prepare` run.
//!
//! Installed suites are looked up, in order, in `share/mlb/configs/` beside
//! the binary's folder (the installed layout: `bin/mlb`,
//! `lib/mlb/plugins/`, `share/mlb/configs/`), in `configs/` beside the
//! binary, and among the suites built into mlb (`baselines`, `smoke`, and the modern
//! suite `modern` with its CPU smoke test `modern-smoke`).

use super::error::JobsError;
use super::parse::{self, JobsFile};
use std::path::{Path, PathBuf};

/// The suite a container run (`--docker`, `--singularity`) runs without `--jobs`.
pub const STANDARD: &str = "baselines";

/// The suites built into the binary: name and jobs file text.
const BUILT_IN: [(&str, &str); 4] = [
    ("baselines", include_str!("../../../../configs/baselines.json")),
    ("smoke", include_str!("../../../../configs/smoke.json")),
    ("modern", include_str!("../../../../configs/modern.json")),
    ("modern-smoke", include_str!("../../../../configs/modern-smoke.json")),
];

/// The name a built-in suite's file goes by in messages.
const BUILT_IN_FOLDER: &str = "(built into mlb)";

/// The jobs file `wanted` (a path, or the name of an installed or built-in suite), read and validated.
pub fn find(wanted: &Path) -> Result<JobsFile, JobsError> {
    resolve(wanted, &std::env::current_exe().unwrap_or_default())
}

/// `wanted` as a file when it is one; otherwise, when it is a bare name, the
/// installed suite of that name beside `exe`, or the built-in one.
fn resolve(wanted: &Path, exe: &Path) -> Result<JobsFile, JobsError> {
    let name = wanted.to_string_lossy();
    let bare = wanted.components().count() == 1 && !wanted.exists();
    if !bare {
        return parse::load(wanted);
    }
    let stem = name.trim_end_matches(".json");
    for dir in folders(exe) {
        for file in [format!("{stem}.json"), format!("{stem}.yaml"), format!("{stem}.yml")] {
            let path = dir.join(&file);
            if path.is_file() {
                return parse::load(&path);
            }
        }
    }
    match BUILT_IN.iter().find(|(n, _)| *n == stem) {
        Some((n, text)) => parse::parse(&Path::new(BUILT_IN_FOLDER).join(format!("{n}.json")), text),
        None => Err(JobsError::UnknownSuite { name: name.into_owned(), installed: installed(exe).join(", ") }),
    }
}

/// The folders of installed suites (and of the other installed configs,
/// such as the reference convergence points) for the binary `exe`, in
/// lookup order.
pub(crate) fn folders(exe: &Path) -> Vec<PathBuf> {
    let Some(bin) = exe.parent() else { return Vec::new() };
    let mut out = vec![bin.join("configs")];
    if let Some(prefix) = bin.parent() {
        out.insert(0, prefix.join("share/mlb/configs"));
    }
    out
}

/// Names of every suite `--jobs NAME` finds for `exe`, sorted.
fn installed(exe: &Path) -> Vec<String> {
    let mut names: Vec<String> = BUILT_IN.iter().map(|(n, _)| n.to_string()).collect();
    for dir in folders(exe) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let jobs = matches!(path.extension().and_then(|e| e.to_str()), Some("json" | "yaml" | "yml"));
            // `containers.json` maps images; only jobs files are suites.
            if jobs && path.file_stem().is_some_and(|s| s != "containers") {
                names.push(path.file_stem().unwrap_or_default().to_string_lossy().into_owned());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An installed layout: `prefix/bin/mlb` and `prefix/share/mlb/configs/`.
    fn layout() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let configs = dir.path().join("share/mlb/configs");
        std::fs::create_dir_all(&configs).unwrap();
        std::fs::write(configs.join("site.json"), r#"[{"name": "a", "plugin": "spin", "args": {}}]"#).unwrap();
        std::fs::write(configs.join("containers.json"), "{}").unwrap();
        (dir, bin.join("mlb"))
    }

    #[test]
    fn a_suite_name_finds_the_installed_file_then_the_built_in_one() {
        let (dir, exe) = layout();
        let site = resolve(Path::new("site"), &exe).unwrap();
        assert_eq!(site.path, dir.path().join("share/mlb/configs/site.json"));
        assert_eq!((site.suite.as_str(), site.jobs.len()), ("site", 1));
        let built_in = resolve(Path::new("baselines"), &exe).unwrap();
        assert_eq!(built_in.suite, "baselines");
        assert!(built_in.jobs.len() > 10, "the whole standard suite");
        assert!(built_in.path.starts_with(BUILT_IN_FOLDER));
        assert_eq!(resolve(Path::new("smoke.json"), &exe).unwrap().suite, "smoke");
        for modern in ["modern", "modern-smoke"] {
            let suite = resolve(Path::new(modern), &exe).unwrap();
            assert_eq!(suite.suite, modern);
            assert_eq!(
                suite.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
                ["gpt_124m", "gpt_350m", "vit_b16"]
            );
        }
    }

    #[test]
    fn an_installed_file_wins_over_the_built_in_suite() {
        let (dir, exe) = layout();
        let configs = dir.path().join("share/mlb/configs");
        std::fs::write(configs.join("smoke.json"), r#"[{"name": "mine", "plugin": "spin", "args": {}}]"#).unwrap();
        assert_eq!(resolve(Path::new("smoke"), &exe).unwrap().jobs[0].name, "mine");
    }

    #[test]
    fn an_unknown_name_lists_what_is_installed() {
        let (_dir, exe) = layout();
        let err = resolve(Path::new("nope"), &exe).unwrap_err();
        assert_eq!(
            mlb_record::fix::one_line(&err),
            "no jobs file and no installed suite named `nope`; installed suites: baselines, modern, modern-smoke, site, smoke; fix: give the path of a jobs file, or one of those names"
        );
        // A path is read as a path: its error names the file.
        let err = resolve(Path::new("./nope.json"), &exe).unwrap_err();
        assert!(err.to_string().contains("./nope.json"), "{err}");
    }
}
