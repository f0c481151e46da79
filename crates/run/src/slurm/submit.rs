//! `mlb slurm submit`: a readable sbatch script that runs `mlb --slurm`
//! in the allocation it asks for, written into the output folder and
//! submitted with `sbatch`.

use super::error::SlurmError;
use crate::console::Console;
use crate::jobs::render;
use crate::runtime::shell::shell_word;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The script's file name in the output folder.
pub const SCRIPT: &str = "mlb-slurm.sbatch";

/// What `mlb slurm submit` is asked for: the jobs, the allocation, the
/// flags of the run it starts.
#[derive(Debug, Clone, Default)]
pub struct Submission {
    /// Jobs file (or an installed suite: `baselines`, `smoke`).
    pub jobs: PathBuf,
    /// Nodes to allocate.
    pub nodes: u32,
    /// GPUs per node (one slot each); omit on CPU nodes.
    pub gpus_per_node: Option<u32>,
    /// Slots per node on CPU nodes (as `mlb --devices`).
    pub devices: Option<u32>,
    /// CPUs of each slot.
    pub cpus_per_task: Option<u32>,
    /// Partition.
    pub partition: Option<String>,
    /// Time limit of the allocation (Slurm's format: `1:00:00`).
    pub time: Option<String>,
    /// Account to charge.
    pub account: Option<String>,
    /// Report folder (default: `./output`); the script and Slurm's output go there too.
    pub outdir: Option<PathBuf>,
    /// Run only these jobs (comma-separated).
    pub name: Option<String>,
    /// Kill an instance that runs longer than this many seconds (finite, at least 1).
    pub timeout: Option<f64>,
    /// Print the script; submit nothing.
    pub dry_run: bool,
    /// More sbatch flags, after `--` (`-- --exclusive --qos=high`).
    pub extra: Vec<String>,
}

/// Writes and submits the script (prints it with `--dry-run`); exit status 0.
pub fn main(submission: &Submission) -> Result<i32, SlurmError> {
    let outdir = absolute(submission.outdir.clone().unwrap_or_else(|| PathBuf::from("output")));
    let mlb = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb"));
    let script = script(submission, &mlb, &outdir)?;
    if submission.dry_run {
        Console::Out.print(&script);
        return Ok(0);
    }
    let path = outdir.join(SCRIPT);
    std::fs::create_dir_all(&outdir)
        .and_then(|_| std::fs::write(&path, &script))
        .map_err(|source| SlurmError::Write { path: path.clone(), source })?;
    let out = Command::new("sbatch")
        .arg("--parsable")
        .arg(&path)
        .output()
        .map_err(|e| SlurmError::Tool { tool: "sbatch", message: e.to_string() })?;
    if !out.status.success() {
        let message = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(SlurmError::Tool { tool: "sbatch", message });
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let job = stdout.trim().split(';').next().unwrap_or_default().to_string();
    Console::Out.print(&format!(
        "submitted Slurm job {job}\n  script:  {}\n  reports: {}\n  output:  {}\n  follow:  squeue -j {job}; then mlb report --reports {}\n",
        path.display(),
        outdir.display(),
        outdir.join(format!("slurm-{job}.out")).display(),
        shell_word(&outdir.display().to_string())
    ));
    Ok(0)
}

/// The sbatch script of `submission`, running this `mlb`, reports into `outdir`;
/// refused when a value written into it holds a control character.
pub fn script(submission: &Submission, mlb: &Path, outdir: &Path) -> Result<String, SlurmError> {
    let jobs = if submission.jobs.exists() { absolute(submission.jobs.clone()) } else { submission.jobs.clone() };
    check_values(submission, &jobs, outdir)?;
    let slots = submission.gpus_per_node.or(submission.devices).unwrap_or(1);
    let word = |p: &Path| shell_word(&p.display().to_string());
    let mut s =
        String::from("#!/bin/bash\n# Written by `mlb slurm submit`: one `mlb --slurm` run in the allocation below.\n");
    let suite = jobs.file_stem().map_or_else(|| "jobs".into(), |s| s.to_string_lossy().into_owned());
    s.push_str(&format!("#SBATCH --job-name=mlb-{suite}\n"));
    s.push_str(&format!("#SBATCH --nodes={}\n", submission.nodes));
    s.push_str(&format!("#SBATCH --ntasks-per-node={slots}\n"));
    if let Some(c) = submission.cpus_per_task {
        s.push_str(&format!("#SBATCH --cpus-per-task={c}\n"));
    }
    if let Some(g) = submission.gpus_per_node {
        s.push_str(&format!("#SBATCH --gpus-per-node={g}\n"));
    }
    for (flag, value) in
        [("partition", &submission.partition), ("time", &submission.time), ("account", &submission.account)]
    {
        if let Some(v) = value {
            s.push_str(&format!("#SBATCH --{flag}={v}\n"));
        }
    }
    s.push_str(&format!("#SBATCH --output={}\n", outdir.join("slurm-%j.out").display()));
    for flag in &submission.extra {
        s.push_str(&format!("#SBATCH {flag}\n"));
    }
    s.push_str("\nset -euo pipefail\n");
    let mut line = vec![word(mlb), "--slurm".into(), "--jobs".into(), word(&jobs), "--outdir".into(), word(outdir)];
    if let Some(d) = submission.devices.filter(|_| submission.gpus_per_node.is_none()) {
        line.extend(["--devices".into(), d.to_string()]);
    }
    if let Some(name) = &submission.name {
        line.extend(["--name".into(), shell_word(name)]);
    }
    if let Some(t) = submission.timeout {
        line.extend(["--timeout".into(), t.to_string()]);
    }
    s.push_str(&format!("exec {}\n", line.join(" ")));
    Ok(s)
}

/// Refuses the first value written into the script that holds a control
/// character: a newline would start a line of its own there (another
/// `#SBATCH` flag, or a command of the script).
fn check_values(submission: &Submission, jobs: &Path, outdir: &Path) -> Result<(), SlurmError> {
    let path = |p: &Path| p.display().to_string();
    let mut values: Vec<(String, String)> = vec![("--jobs".into(), path(jobs)), ("--outdir".into(), path(outdir))];
    let options =
        [("--partition", &submission.partition), ("--time", &submission.time), ("--account", &submission.account)];
    values.extend(
        options.into_iter().chain([("--name", &submission.name)]).filter_map(|(o, v)| Some((o.into(), v.clone()?))),
    );
    values.extend(submission.extra.iter().map(|flag| ("sbatch flag".into(), flag.clone())));
    match values.into_iter().find(|(_, v)| render::control_char(v).is_some()) {
        Some((what, value)) => Err(SlurmError::ControlCharacter { what, value: render::one_line(&value) }),
        None => Ok(()),
    }
}

fn absolute(p: PathBuf) -> PathBuf {
    std::path::absolute(&p).unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_readable_script() {
        let submission = Submission {
            jobs: "suite.json".into(),
            nodes: 2,
            gpus_per_node: Some(4),
            partition: Some("gpu".into()),
            time: Some("1:00:00".into()),
            timeout: Some(600.0),
            extra: vec!["--exclusive".into()],
            ..Submission::default()
        };
        let s = script(&submission, Path::new("/opt/mlb/bin/mlb"), Path::new("/scratch/out")).unwrap();
        assert!(s.starts_with("#!/bin/bash\n"), "{s}");
        for line in [
            "#SBATCH --nodes=2\n",
            "#SBATCH --ntasks-per-node=4\n",
            "#SBATCH --gpus-per-node=4\n",
            "#SBATCH --partition=gpu\n",
            "#SBATCH --time=1:00:00\n",
            "#SBATCH --output=/scratch/out/slurm-%j.out\n",
            "#SBATCH --exclusive\n",
        ] {
            assert!(s.contains(line), "{line:?} missing from\n{s}");
        }
        let last = s.lines().last().unwrap();
        assert!(last.starts_with("exec /opt/mlb/bin/mlb --slurm --jobs "), "{last}");
        assert!(last.ends_with("suite.json --outdir /scratch/out --timeout 600"), "{last}");
    }
}
