//! From a [`Request`] to an [`Evaluation`]: reads the reports (and the
//! baseline), the target table and the rules (and, for an `interference`
//! rule, the folder's matrix), aggregates the figures as `mlb report`
//! does, applies every rule and lists the files read.

use super::apply::{apply, Figures, Instance};
use super::error::AcceptError;
use super::rules::{self, Check, Rule};
use super::verdict::{Evaluation, Input, Role};
use super::Request;
use crate::interfere::{self, Interference};
use crate::report::{aggregate, folder_error, in_suite, same_accelerator, GpuModel, Grouping, Options, Targets};
use crate::targets::catalog::{self, Origin as TableOrigin};
use mlb_record::contract::read::{read_folder_told, Entry, Reading};
use mlb_record::contract::{SYSTEM_FILE, VERDICT_FILE};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Reads the files of `req` and applies its rules: every verdict (failed
/// first, then not measured, then passed), and the files they were
/// computed from. Refused: a folder that cannot be read, a target table or
/// rules file that is not valid, a rule naming a bench known nowhere, the
/// default rules without a target table. `file_read` is called as each
/// report file is read.
pub fn evaluate(req: &Request, file_read: &(dyn Fn() + Sync)) -> Result<Evaluation, AcceptError> {
    let mut inputs = Vec::new();
    let rules = match &req.rules {
        Some(path) => {
            inputs.push(Input { role: Role::Rules, path: path.clone() });
            rules::read(path)?
        }
        None => rules::defaults(),
    };
    let (targets, table_name, table_file) = match table(req)? {
        Some((targets, name, file)) => (Some(targets), Some(name), file),
        None => (None, None, None),
    };
    inputs.extend(table_file.map(|path| Input { role: Role::Targets, path }));
    let reading = read_folder_told(&req.reports, file_read).map_err(folder_error)?;
    if req.rules.is_none() && targets.is_none() {
        return Err(AcceptError::NoTargets);
    }
    let keep = |e: &Entry| req.suite.as_deref().is_none_or(|s| in_suite(e, s));
    inputs.extend(files_of(&req.reports, &reading, keep, Role::Report, Role::System));
    let instances = instances(&reading, keep);
    let base = match &req.baseline {
        Some(dir) => {
            same_accelerator(&req.reports, dir, false)?;
            let reading = read_folder_told(dir, file_read).map_err(folder_error)?;
            inputs.extend(files_of(dir, &reading, keep, Role::BaselineReport, Role::BaselineSystem));
            Some((dir.as_path(), reading))
        }
        None => None,
    };
    let known = known_benches(&instances, base.as_ref().map(|(_, r)| r), targets.as_ref());
    rules::check_benches(&rules, &known)?;
    let opts = Options { targets, suite: req.suite.clone(), grouping: Grouping::Config, ..Options::default() };
    let report = aggregate(&req.reports, reading, base, &opts)?;
    let interference = matrix(req, &rules, &mut inputs);
    let figures = Figures { report: &report, instances: &instances, interference: interference.as_ref() };
    let mut verdicts: Vec<_> = rules.iter().flat_map(|rule: &Rule| apply(rule, &figures)).collect();
    verdicts.sort_by_key(|v| v.outcome);
    inputs.sort();
    inputs.dedup();
    Ok(Evaluation {
        verdicts,
        inputs,
        targets: table_name,
        rules: req.rules.as_ref().map_or_else(|| "default rules".to_string(), |p| p.display().to_string()),
    })
}

/// The matrix of `interfere::FILE` in the folder, for an `interference`
/// rule: read (or why not), and listed among the inputs; none when no rule
/// asks for it or the folder has none.
fn matrix(req: &Request, rules: &[Rule], inputs: &mut Vec<Input>) -> Option<Result<Interference, String>> {
    if !rules.iter().any(|r| matches!(r.check, Check::Interference { .. })) {
        return None;
    }
    let path = req.reports.join(interfere::FILE);
    if !path.exists() {
        return None;
    }
    inputs.push(Input { role: Role::Interference, path: path.clone() });
    Some(Interference::read(&path).map_err(|e| e.to_string()))
}

/// The target table of `req`: the table, its name for the record (the
/// file's path, or `built-in MODEL`) and its file (a built-in table is no
/// file); none without `--targets` or `--gpu-model`.
fn table(req: &Request) -> Result<Option<(Targets, String, Option<PathBuf>)>, AcceptError> {
    if let Some(path) = &req.targets {
        return Ok(Some((Targets::from_file(path)?, path.display().to_string(), Some(path.clone()))));
    }
    let Some(model) = &req.gpu_model else { return Ok(None) };
    let folders = crate::targets::Folders::from_env();
    let found = catalog::candidates(&folders).into_iter().find(|c| c.name.eq_ignore_ascii_case(model));
    let Some(candidate) = found else {
        // `find` refuses the unknown name with the names it knows.
        let targets = catalog::find(&folders, model)?;
        return Ok(Some((targets, model.clone(), None)));
    };
    let (name, file) = match &candidate.origin {
        TableOrigin::BuiltIn => (format!("built-in {}", candidate.name), None),
        TableOrigin::User(path) | TableOrigin::Installation(path) => (path.display().to_string(), Some(path.clone())),
    };
    Ok(Some((candidate.read()?, name, file)))
}

/// The report files of the entries of `reading` to `keep` (each once) with
/// `role`, and the run's `system.json` (`system`) and `doctor.json` beside
/// them in `dir`.
fn files_of(dir: &Path, reading: &Reading, keep: impl Fn(&Entry) -> bool, role: Role, system: Role) -> Vec<Input> {
    let files: BTreeSet<&Path> = reading.entries.iter().filter(|e| keep(e)).map(|e| &*e.file).collect();
    let mut out: Vec<Input> = files.into_iter().map(|f| Input { role, path: f.to_path_buf() }).collect();
    let doctor = (role == Role::Report).then_some((VERDICT_FILE, Role::Doctor));
    for (name, role) in std::iter::once((SYSTEM_FILE, system)).chain(doctor) {
        let path = dir.join(name);
        if path.is_file() {
            out.push(Input { role, path });
        }
    }
    out
}

/// Every named entry to `keep` as an instance for the telemetry rules.
fn instances(reading: &Reading, keep: impl Fn(&Entry) -> bool) -> Vec<Instance> {
    reading
        .entries
        .iter()
        .filter(|e| keep(e))
        .filter_map(|e| {
            Some(Instance {
                bench: e.name.as_deref()?.to_string(),
                gpu: e.vcd.as_deref().map(str::to_string),
                node: e.node().map(str::to_string),
                conditions: e.conditions,
            })
        })
        .collect()
}

/// The benches a rule may name: those of the reports, of the baseline, of
/// the target table and of the shipped tables.
fn known_benches(instances: &[Instance], base: Option<&Reading>, targets: Option<&Targets>) -> BTreeSet<String> {
    let mut known: BTreeSet<String> = instances.iter().map(|i| i.bench.clone()).collect();
    known.extend(base.iter().flat_map(|r| r.entries.iter().filter_map(|e| e.name.as_deref().map(str::to_string))));
    known.extend(targets.iter().flat_map(|t| t.benches.keys().cloned()));
    known.extend(GpuModel::ALL.into_iter().flat_map(|m| Targets::shipped(m).benches.into_keys()));
    known
}
