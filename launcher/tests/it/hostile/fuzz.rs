//! Property tests (proptest) of the two readers of files a user hands mlb:
//!
//! - the jobs parser and expander: arbitrary jobs-shaped JSON (and YAML),
//!   cut anywhere, and arbitrary text, never panic: `parse` gives jobs or a
//!   `JobsError`, `configs` gives configs or an `ExpandError`; a job's config
//!   count is the product of its list lengths, and its configs come in the
//!   documented order (the first list varies fastest, the last slowest);
//! - the report reader: arbitrary bytes, and report files with any field
//!   replaced, dropped or cut, never panic `read_file` nor `mlb report`'s
//!   aggregation.
//!
//! Each property runs `PROPTEST_CASES` cases (default 64, which keeps the
//! module under 30 s on 2 cores); run them longer with, for example,
//! `PROPTEST_CASES=20000 cargo test -p mlb --test it hostile::fuzz`.

use mlb::jobs::{self, ExpandError, JobsError, Variables};
use mlb::report::{self, render, GpuModel, Options, Targets};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::path::Path;

/// Cases per property: `PROPTEST_CASES`, else 64.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64);
    ProptestConfig { cases, ..ProptestConfig::default() }
}

/// Text of the kinds that jobs files and reports hold, hostile characters included.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{0,8}",
        "-{0,2}[a-z][a-z-]{0,6}",
        "\\PC{0,12}",
        "[$][A-Z_]{1,8}",
        Just("${JOB_ID}".to_string()),
        "[\\x00-\\x1f\"'\\\\ ]{1,4}",
    ]
}

/// A JSON scalar of any kind, extreme numbers included.
fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        text().prop_map(Value::from),
    ]
}

/// Any JSON value, nested a little.
fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// An argument value: mostly scalars and lists of scalars, sometimes anything.
fn arg_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => scalar(),
        8 => prop::collection::vec(scalar(), 1..4).prop_map(Value::Array),
        1 => value(),
    ]
}

/// An argument name: mostly an option, sometimes a positional or anything.
fn arg_name() -> impl Strategy<Value = String> {
    prop_oneof![4 => "--[a-z][a-z-]{0,6}", 1 => text()]
}

/// A jobs-file entry: the keys of a job, mostly right, each sometimes
/// missing, wrong or extra.
fn job() -> impl Strategy<Value = Value> {
    let program = prop_oneof![
        9 => text().prop_map(|t| json!({"cmd": format!("/bin/{t}")})),
        9 => text().prop_map(|t| json!({"plugin": t})),
        1 => (text(), text()).prop_map(|(c, p)| json!({"cmd": c, "plugin": p})),
        1 => Just(json!({})),
    ];
    (
        prop::option::weighted(0.95, prop_oneof![9 => text().prop_map(Value::from), 1 => scalar()]),
        program,
        prop::option::weighted(0.9, prop::collection::vec((arg_name(), arg_value()), 0..5)),
        prop::option::weighted(0.7, prop_oneof![4 => Just(json!("student")), 4 => Just(json!("all")), 1 => scalar()]),
        prop::option::weighted(0.05, (text(), value())),
    )
        .prop_map(|(name, program, args, cgroup, extra)| {
            let mut job = program.as_object().unwrap().clone();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    job.insert(k.to_string(), v);
                }
            };
            put("name", name);
            put("args", args.map(|a| Value::Object(a.into_iter().collect())));
            put("cgroup", cgroup);
            if let Some((k, v)) = extra {
                job.insert(k, v);
            }
            Value::Object(job)
        })
}

/// A jobs file's text: a list of jobs (or any value), as JSON, cut at some point or not.
fn jobs_text() -> impl Strategy<Value = String> {
    let file = prop_oneof![9 => prop::collection::vec(job(), 1..4).prop_map(Value::Array), 1 => value()];
    (file, any::<bool>(), any::<prop::sample::Index>()).prop_map(|(v, pretty, cut)| {
        let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
        if cut.index(8) == 0 {
            let at = cut.index(text.len() + 1);
            text.char_indices()
                .map(|(i, _)| i)
                .take_while(|&i| i <= at)
                .last()
                .map_or(text.clone(), |i| text[..i].to_string())
        } else {
            text
        }
    })
}

/// The variables a launch defines (the environment left out).
fn variables() -> Variables {
    Variables::new([("BASE".to_string(), "/b".to_string()), ("OUTPUT_DIRECTORY".into(), "/b/out".into())], [])
}

/// The number of configs a job's list arguments make, counted without mlb.
fn product(args: &[(String, Value)]) -> Option<usize> {
    args.iter().try_fold(1usize, |n, (_, v)| n.checked_mul(v.as_array().map_or(1, Vec::len)))
}

/// Parses `text` as a file named `name` and expands every job it holds:
/// never a panic, and every count is the product of the list lengths.
fn parse_and_expand(name: &str, text: &str) {
    let file = match jobs::parse(Path::new(name), text) {
        Ok(file) => file,
        Err(JobsError::Read { .. }) => panic!("parse reads no file"),
        Err(_) => return,
    };
    assert!(!file.jobs.is_empty(), "a file of no job is refused");
    for job in &file.jobs {
        assert!(!job.name.chars().any(char::is_control), "{:?}", job.name);
        assert_eq!(jobs::count(job), product(&job.args.0));
        match jobs::configs(job, &variables(), 1000) {
            Ok(configs) => assert_eq!(Some(configs.len()), jobs::count(job)),
            Err(ExpandError::TooMany { count, limit }) => assert!(count.is_none_or(|n| n > limit)),
            Err(ExpandError::UnknownVariable(_)) => {}
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn jobs_files_never_panic_the_parser_or_the_expander(text in jobs_text()) {
        parse_and_expand("f.json", &text);
        parse_and_expand("f.yaml", &text);
    }

    #[test]
    fn any_text_is_a_jobs_file_or_an_error(text in "\\PC{0,200}", bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        parse_and_expand("f.json", &text);
        parse_and_expand("f.yml", &text);
        let lossy = String::from_utf8_lossy(&bytes);
        parse_and_expand("f.json", &lossy);
    }

    #[test]
    fn configs_are_the_product_of_the_lists_first_list_fastest(
        lists in prop::collection::vec(prop::collection::vec(any::<i32>(), 1..4), 0..5),
        scalar in any::<i32>(),
    ) {
        let mut args = Map::new();
        args.insert("--fixed".into(), json!(scalar));
        for (i, list) in lists.iter().enumerate() {
            args.insert(format!("--l{i}"), json!(list));
        }
        let text = json!([{"name": "p", "cmd": "/bin/true", "args": args}]).to_string();
        let file = jobs::parse(Path::new("p.json"), &text).unwrap();
        let configs = jobs::configs(&file.jobs[0], &variables(), usize::MAX).unwrap();
        let total: usize = lists.iter().map(Vec::len).product();
        prop_assert_eq!(configs.len(), total);
        for (n, c) in configs.iter().enumerate() {
            prop_assert_eq!((c.index, c.of), (n + 1, total));
            prop_assert_eq!(&c.args.0[0], &("--fixed".to_string(), json!(scalar)));
            // Mixed radix: list 0 is the fastest digit.
            let mut rest = n;
            for (i, list) in lists.iter().enumerate() {
                prop_assert_eq!(&c.args.0[i + 1], &(format!("--l{i}"), json!(list[rest % list.len()])));
                rest /= list.len();
            }
        }
    }
}

/// A report as `mlb worker` writes it.
fn good_report() -> Value {
    json!({
        "name": "toy", "suite": "s", "run_id": 0, "jr_id": 0, "vcd": "0", "completed": true,
        "unique_id": "abc", "version": "toy 0.1.0", "hostname": "h", "gpu": "Tesla V100",
        "devices": 1, "cpu_cores": 4, "items": 320.0, "batch_size": 64, "lr": 0.1,
        "train": {"avg": 0.5, "sd": 0.01, "min": 0.49, "max": 0.51, "count": 10, "unit": "s"},
        "train_item": {"avg": 640.0, "min": 627.0, "max": 653.0, "range": 26.0, "unit": "items/sec"},
        "batch_loss": [1.0, 0.5], "epoch_loss": [1.0], "metrics": {},
        "start_time": "2026-01-02 03:04:05.000000", "end_time": "2026-01-02 03:04:06.000000"
    })
}

/// The keys of [`good_report`] that cases replace or drop.
const KEYS: &[&str] = &[
    "name",
    "suite",
    "run_id",
    "jr_id",
    "vcd",
    "completed",
    "unique_id",
    "gpu",
    "devices",
    "items",
    "batch_size",
    "train",
    "train_item",
    "batch_loss",
    "epoch_loss",
    "metrics",
    "start_time",
];

/// A report with some fields replaced by anything, some dropped, some nested
/// fields replaced.
fn report() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(KEYS);
    (
        prop::collection::vec((key.clone(), value()), 0..4),
        prop::collection::vec(key.clone(), 0..3),
        prop::collection::vec((prop::sample::select(vec!["avg", "min", "max", "count", "unit", "sd"]), scalar()), 0..3),
    )
        .prop_map(|(replaced, dropped, nested)| {
            let mut r = good_report();
            let o = r.as_object_mut().unwrap();
            for (k, v) in replaced {
                o.insert(k.to_string(), v);
            }
            for k in dropped {
                o.remove(k);
            }
            for (k, v) in nested {
                if let Some(Value::Object(t)) = o.get_mut("train_item") {
                    t.insert(k.to_string(), v);
                }
            }
            r
        })
}

/// A report file's bytes: one report, an array, an appended array (the
/// oldest format, unclosed), with non-finite tokens, cut anywhere, or bytes.
fn report_file() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => (report(), 0..4usize, any::<prop::sample::Index>(), any::<bool>()).prop_map(|(r, form, cut, nan)| {
            let mut text = match form {
                0 => r.to_string(),
                1 => format!("[{r}, {r}]"),
                2 => format!("[{r},\n{r},\n"),
                _ => serde_json::to_string_pretty(&r).unwrap(),
            };
            if nan {
                text = text.replace("640.0", "NaN").replace("0.5", "-Infinity");
            }
            let mut bytes = text.into_bytes();
            if cut.index(6) == 0 {
                bytes.truncate(cut.index(bytes.len() + 1));
            }
            bytes
        }),
        1 => prop::collection::vec(any::<u8>(), 0..300),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn report_files_never_panic_the_reader_or_the_report(files in prop::collection::vec(report_file(), 1..4)) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for (i, bytes) in files.iter().enumerate() {
            let path = if i % 2 == 0 { dir.path().join(format!("r{i}.json")) } else { dir.path().join(format!("sub/r{i}.json")) };
            std::fs::write(&path, bytes).unwrap();
            let _ = mlb_record::contract::read::read_file(&path);
            let _ = mlb_record::contract::Report::load_all(&path);
        }
        let opts = Options { targets: Some(Targets::shipped(GpuModel::V100)), gpu_total: Some(2), ..Options::default() };
        for (baseline, opts) in [(None, &opts), (Some(dir.path()), &Options::default())] {
            if let Ok(built) = report::build(dir.path(), baseline, opts, &|| ()) {
                let document = render::document(&built);
                let _ = (mlb_present::text::render(&document, mlb_present::Width::of(80)), render::json(&built));
                let _ = (mlb_present::markdown::render(&document), render::csv::render(&built));
                let _ = render::html::page(&built, "fuzz");
            }
        }
    }
}
