//! The jobs file a burn runs: gemm, then membw, then with `--sdc` a small
//! gpt trained deterministically (every instance from the same seed), each
//! on every slot at once (`cgroup: student`: one instance per slot, as the
//! suite's single-GPU jobs run), for the burn's duration; then, unless
//! `--no-collectives`, the all-reduce check across every slot (`group:
//! ddp`: the instances are the ranks of one group, on every node under
//! `--slurm`).

use super::args::{BurnArgs, SDC_EVERY};
use mlb_record::contract::determinism::{DETERMINISTIC, EVERY};
use serde_json::{json, Value};

/// The job name of gemm's bench, and its workload.
pub const GEMM: &str = "gemm";
/// The job name of membw's bench, and its workload.
pub const MEMBW: &str = "membw";
/// The job name of the sdc check (`--sdc`).
pub const SDC: &str = "sdc";
/// The workload the sdc check trains deterministically.
pub const SDC_WORKLOAD: &str = "gpt";
/// The job name of the all-reduce check, and its workload.
pub const ALLREDUCE: &str = "allreduce";
/// The suite of a burn's reports (the jobs file is `burn.json`).
pub const SUITE: &str = "burn";

/// The benches a burn of `args` runs, in order.
pub fn benches(args: &BurnArgs) -> Vec<&'static str> {
    let sdc = args.sdc.then_some(SDC);
    let allreduce = (!args.no_collectives).then_some(ALLREDUCE);
    [Some(GEMM), Some(MEMBW), sdc, allreduce].into_iter().flatten().collect()
}

/// The jobs file's text.
pub fn jobs(args: &BurnArgs) -> String {
    let counts = |(repeat, step_seconds): (u64, f64)| json!({"repeat": repeat, "number": 1, "skip": 1, "step_seconds": step_seconds});
    let with = |counts: Value, extra: Value| {
        let mut all = counts.as_object().cloned().unwrap_or_default();
        all.extend(extra.as_object().cloned().unwrap_or_default());
        Value::Object(all)
    };
    let compute = counts(args.steps());
    let mut jobs = vec![
        json!({"name": GEMM, "plugin": GEMM, "cgroup": "student",
               "args": with(compute.clone(), json!({"precision": args.precision}))}),
        json!({"name": MEMBW, "plugin": MEMBW, "cgroup": "student", "args": with(compute, json!({}))}),
    ];
    if args.sdc {
        let mut gpt = json!({"repeat": args.sdc_observations(), "number": SDC_EVERY, "skip": 1, "size": "tiny",
                             "precision": "fp32", "seq_len": 64, "vocab": 512, "batch_size": 4, "warmup": 2});
        gpt[DETERMINISTIC] = true.into();
        gpt[EVERY] = SDC_EVERY.into();
        jobs.push(json!({"name": SDC, "plugin": SDC_WORKLOAD, "cgroup": "student", "args": gpt}));
    }
    if !args.no_collectives {
        let mut extra = json!({"sizes_mb": args.sizes_mb});
        if let Some(interface) = &args.interface {
            extra["interface"] = interface.as_str().into();
        }
        jobs.push(json!({"name": ALLREDUCE, "plugin": ALLREDUCE, "group": "ddp",
                         "args": with(counts(args.collective_steps()), extra)}));
    }
    serde_json::to_string_pretty(&jobs).expect("serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &[&str]) -> (BurnArgs, Value) {
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            burn: BurnArgs,
        }
        let args = <Line as clap::Parser>::parse_from([&["burn"], line].concat()).burn;
        let jobs = serde_json::from_str(&jobs(&args)).unwrap();
        (args, jobs)
    }

    #[test]
    fn the_all_reduce_runs_last_as_one_group_unless_left_out() {
        let (args, jobs) = parsed(&["--duration", "2m", "--interface", "ib0", "--sizes-mb", "4,64"]);
        assert_eq!(benches(&args), [GEMM, MEMBW, ALLREDUCE]);
        let allreduce = &jobs[2];
        assert_eq!((allreduce["plugin"].as_str(), allreduce["group"].as_str()), (Some(ALLREDUCE), Some("ddp")));
        assert_eq!(allreduce["args"]["repeat"], 30, "at most 30 s of all-reduces");
        assert_eq!(
            (allreduce["args"]["interface"].as_str(), allreduce["args"]["sizes_mb"].as_str()),
            (Some("ib0"), Some("4,64"))
        );
        assert_eq!(jobs[0]["args"]["repeat"], 120);
        let (args, jobs) = parsed(&["--no-collectives"]);
        assert_eq!((benches(&args).len(), jobs.as_array().unwrap().len()), (2, 2));
    }

    #[test]
    fn sdc_trains_a_deterministic_gpt_after_membw_and_before_the_all_reduce() {
        let (args, jobs) = parsed(&["--duration", "1m", "--sdc"]);
        assert_eq!(benches(&args), [GEMM, MEMBW, SDC, ALLREDUCE]);
        let names: Vec<&str> = jobs.as_array().unwrap().iter().map(|j| j["name"].as_str().unwrap()).collect();
        assert_eq!(names, [GEMM, MEMBW, SDC, ALLREDUCE]);
        let sdc = &jobs[2];
        assert_eq!((sdc["plugin"].as_str(), sdc["cgroup"].as_str()), (Some(SDC_WORKLOAD), Some("student")));
        let gpt = &sdc["args"];
        assert_eq!((&gpt[DETERMINISTIC], &gpt[EVERY], &gpt["number"]), (&json!(true), &json!(10), &json!(10)));
        assert_eq!(
            (gpt["size"].as_str(), gpt["precision"].as_str(), &gpt["seq_len"]),
            (Some("tiny"), Some("fp32"), &json!(64))
        );
        assert_eq!(gpt["repeat"].as_u64(), Some(args.sdc_observations()));
        assert!(gpt.get("seed").is_none(), "every instance gets the deterministic run's seed");
        let (args, jobs) = parsed(&["--duration", "0.1", "--sdc", "--no-collectives"]);
        assert_eq!(benches(&args), [GEMM, MEMBW, SDC]);
        assert_eq!(jobs[2]["args"]["repeat"], 3, "three fingerprints at least");
        let (args, jobs) = parsed(&[]);
        assert!(!benches(&args).contains(&SDC));
        assert!(jobs.as_array().unwrap().iter().all(|j| j["name"] != SDC), "no sdc without --sdc");
    }
}
