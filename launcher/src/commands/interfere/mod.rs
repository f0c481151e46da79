//! `mlb interfere`: how much each workload of a jobs file loses beside a
//! different neighbour (docs/interfere.md). Each workload runs alone on
//! slot 0, then each ordered pair side by side (the victim on slot 0, the
//! aggressor on slot 1, given observations enough to outlast it), then
//! every workload at once, one a slot (the mix), `--repeats` times each,
//! through the run layer's rounds ([`mlb_run::launch::mix`]). The judge's
//! [`matrix`](mlb_judge::interfere) turns the reports into slowdowns with
//! their intervals, written to `OUTDIR/interference.json` and its heat map
//! `OUTDIR/interference.html`; `--db` stores the runs and the cells.

mod args;
mod error;
mod rounds;

pub use args::InterfereArgs;
pub use error::InterfereError;

use mlb_judge::interfere::{document, heatmap, Interference, FILE, PAGE};
use mlb_present::Format;
use mlb_record::exit::{EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK};
use mlb_run::console::Console;
use mlb_run::jobs::{JobConfig, Program, Scope};
use mlb_run::launch::mix::Plan;
use std::path::PathBuf;

/// Runs `mlb interfere`: what to print and the exit status (0 every run
/// passed, 1 one failed: its cells lack its rate, 130 interrupted).
pub fn run(args: &InterfereArgs, plugin_dirs: &[PathBuf]) -> Result<(String, i32), InterfereError> {
    let plan = Plan::new(&args.launch(), plugin_dirs)?;
    let workloads = workloads(&plan)?;
    if plan.slots().len() < 2 {
        return Err(InterfereError::TooFewSlots { slots: plan.slots().len() });
    }
    let chosen = rounds::Chosen {
        victims: pick(&plan, &workloads, &args.victims, "victims")?,
        aggressors: pick(&plan, &workloads, &args.aggressors, "aggressors")?,
        mix: !args.no_mix,
    };
    if chosen.pairs().is_empty() {
        return Err(InterfereError::NoPair);
    }
    let outdir = plan.outdir().to_path_buf();
    let Some(mix) = plan.open()? else { return Ok((String::new(), EXIT_INTERRUPTED)) };
    let Some((matrix, passed)) = rounds::measure(mix, &workloads, &chosen, args.repeats, args.uid)? else {
        return Ok((String::new(), EXIT_INTERRUPTED));
    };
    let json = outdir.join(FILE);
    let page = outdir.join(PAGE);
    for (path, text) in [(&json, matrix.to_json()), (&page, heatmap::page(&matrix))] {
        mlb_record::contract::record::write_output(path, text.as_bytes())
            .map_err(|source| InterfereError::Write { path: path.clone(), source })?;
    }
    let mut said = format!("matrix: {}\nheat map: {}\n", json.display(), page.display());
    if let Some(db) = args.store.db.as_deref() {
        said.push_str(&super::launch::stored(db, &outdir, Some(&args.jobs)));
        said.push('\n');
    }
    let out = render(args, &matrix);
    let out = match args.output.format {
        Format::Text => out + &said,
        _ => {
            said.lines().for_each(|line| Console::Err.line(line));
            out
        }
    };
    Ok((out, if passed { EXIT_OK } else { EXIT_FAILED }))
}

/// The matrix in the format asked for: its own data as JSON, the heat map
/// as HTML, else its document.
fn render(args: &InterfereArgs, matrix: &Interference) -> String {
    match args.output.format {
        Format::Json => matrix.to_json(),
        Format::Html => heatmap::page(matrix),
        _ => args.output.render(&document::document(matrix)),
    }
}

/// The workloads of the plan: each selected job config, which must be a
/// plugin job of one instance a slot (its observations are what an
/// aggressor is given more of to outlast its victim); two at least.
fn workloads(plan: &Plan) -> Result<Vec<JobConfig>, InterfereError> {
    let path = plan.file().to_path_buf();
    for c in plan.configs() {
        let why = match (&c.program, c.scope, c.group) {
            (Program::Cmd(_), _, _) => Some("runs a command, not a plugin"),
            (_, Scope::All, _) => Some("is `\"cgroup\": \"all\"` (one instance seeing every device)"),
            (_, _, Some(_)) => Some("is a process group across slots"),
            _ => None,
        };
        if let Some(why) = why {
            return Err(InterfereError::NotOneSlot { path, job: c.name.clone(), why });
        }
    }
    let configs = plan.configs().to_vec();
    if configs.len() < 2 {
        return Err(InterfereError::TooFewWorkloads { path, count: configs.len() });
    }
    Ok(configs)
}

/// The indexes of the workloads `names` names (every one when empty),
/// refusing a name the jobs file has not.
fn pick(
    plan: &Plan,
    workloads: &[JobConfig],
    names: &[String],
    flag: &'static str,
) -> Result<Vec<usize>, InterfereError> {
    if names.is_empty() {
        return Ok((0..workloads.len()).collect());
    }
    let labels: Vec<String> = workloads.iter().map(JobConfig::label).collect();
    let mut picked = names
        .iter()
        .map(|name| {
            labels.iter().position(|l| l == name).ok_or_else(|| InterfereError::UnknownWorkload {
                path: plan.file().to_path_buf(),
                flag,
                name: name.clone(),
                known: labels.join(", "),
            })
        })
        .collect::<Result<Vec<usize>, _>>()?;
    picked.sort_unstable();
    picked.dedup();
    Ok(picked)
}
