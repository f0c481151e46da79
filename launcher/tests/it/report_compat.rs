//! `mlb report` against an independent transcription of the original
//! report tool (`milabench/report/report.py`, its last version, pandas
//! 0.24), on a generated set of more than 10,000 reports in the original's
//! shapes holding every case where the two once differed: null-name failure
//! records, adjacent NaN losses, infinite losses, NaN throughputs, benches
//! missing from the target table.
//!
//! The transcription below shares no code with mlb: it lists files as
//! Python's `glob` did, parses them as Python's `json` did, and follows the
//! original line by line (including removing entries from a list while
//! iterating over it).

use crate::report_gen;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The V100 target table as the original shipped it (`target_v100.csv`).
const V100: &str = include_str!("../../../configs/targets/v100.csv");

/// An entry as Python held it after `json.loads`: its fields are read
/// only where the original reads them (a failed entry's `batch_loss` and
/// `train_item` never are).
#[derive(Clone, Debug)]
struct PyEntry {
    name: Option<String>,
    /// `None` when the key is missing.
    completed: Option<Value>,
    raw: Value,
}

impl PyEntry {
    /// `entry['batch_loss']`, as `math.isnan` reads it.
    fn batch_loss(&self) -> Vec<f64> {
        self.raw.get("batch_loss").and_then(Value::as_array).map_or(vec![], |l| l.iter().map(py_float).collect())
    }

    /// `entry['train_item']['avg']`.
    fn avg(&self) -> f64 {
        self.raw.get("train_item").map_or(f64::NAN, |t| py_float(&t["avg"]))
    }

    /// `entry['vcd']`.
    fn vcd(&self) -> &str {
        self.raw["vcd"].as_str().unwrap()
    }
}

/// Python's `float` of a JSON value whose tokens were quoted by `load`.
fn py_float(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "__NAN__" => f64::NAN,
        Value::String(s) if s == "__POSINF__" => f64::INFINITY,
        Value::String(s) if s == "__NEGINF__" => f64::NEG_INFINITY,
        Value::Number(n) => n.as_f64().unwrap(),
        other => panic!("not a number: {other}"),
    }
}

/// Python's truth value of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().unwrap() != 0.0,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `read_results`: strip; an unclosed array ending with `,` is closed,
/// anything else is one report. `json.loads` accepts the three tokens.
fn read_results(path: &Path) -> Vec<PyEntry> {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.trim();
    let quoted = text.replace("-Infinity", "\"__NEGINF__\"").replace("Infinity", "\"__POSINF__\"");
    let quoted = quoted.replace("NaN", "\"__NAN__\"");
    let items: Vec<Value> = if quoted.starts_with('[') && quoted.ends_with(',') {
        serde_json::from_str(&format!("{}]", &quoted[..quoted.len() - 1])).unwrap()
    } else {
        vec![serde_json::from_str(&quoted).unwrap()]
    };
    items
        .into_iter()
        .map(|e| PyEntry {
            name: e["name"].as_str().map(str::to_string),
            completed: e.get("completed").cloned(),
            raw: e,
        })
        .collect()
}

/// `fnmatch` of `{jobs}[_.]*.json`: the name, one of `_` and `.`, anything
/// (even nothing), then `.json` (`baselines.json` does not match; glob
/// leaves out hidden names).
fn matches(name: &str) -> bool {
    name.strip_prefix("baselines")
        .is_some_and(|r| (r.starts_with('_') || r.starts_with('.')) && r[1..].ends_with(".json"))
}

/// Names of `dir` in the order the file system lists them (`os.scandir`).
fn scandir(dir: &Path) -> Vec<(String, bool)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), e.file_type().unwrap().is_dir())
        })
        .filter(|(n, _)| !n.starts_with('.'))
        .collect()
}

/// `chain(glob('{dir}/**/{jobs}[_.]*.json'), glob('{dir}/{jobs}[_.]*.json'))`
/// without `recursive`: `**` is one folder level.
fn glob_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (sub, is_dir) in scandir(dir) {
        if is_dir {
            let sub = dir.join(sub);
            out.extend(scandir(&sub).into_iter().filter(|(n, d)| !d && matches(n)).map(|(n, _)| sub.join(n)));
        }
    }
    out.extend(scandir(dir).into_iter().filter(|(n, d)| !d && matches(n)).map(|(n, _)| dir.join(n)));
    out
}

/// pandas' `Series.mean()`: NaN skipped.
fn nanmean(v: &[f64]) -> f64 {
    let kept: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// pandas' `Series.std()`: ddof 1, NaN skipped, NaN under two values.
fn nanstd(v: &[f64]) -> f64 {
    let kept: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if kept.len() <= 1 {
        return f64::NAN;
    }
    let avg = kept.iter().sum::<f64>() / kept.len() as f64;
    (kept.iter().map(|x| (avg - x) * (avg - x)).sum::<f64>() / (kept.len() - 1) as f64).sqrt()
}

fn nanmin(v: &[f64]) -> f64 {
    v.iter().copied().filter(|x| !x.is_nan()).fold(f64::NAN, |a, b| if a.is_nan() || b < a { b } else { a })
}

fn nanmax(v: &[f64]) -> f64 {
    v.iter().copied().filter(|x| !x.is_nan()).fold(f64::NAN, |a, b| if a.is_nan() || b > a { b } else { a })
}

/// One row of the original's `df_global`.
#[derive(Debug)]
struct GlobalRow {
    n: usize,
    mean: f64,
    sd: f64,
    perf: f64,
    perf_pass: bool,
    sd_pass: bool,
}

/// What the original printed.
#[derive(Debug)]
struct Original {
    nreports: usize,
    nfailures: usize,
    global: BTreeMap<String, GlobalRow>,
    bf: bool,
    pm: f64,
    st: f64,
    pg: f64,
    grade: f64,
    /// measure -> bench -> device -> relative value.
    pergpu: BTreeMap<&'static str, BTreeMap<String, BTreeMap<u64, f64>>>,
    /// The rows of the per-GPU tables in the original's order (`name or
    /// "_"`; a null name is the row `None`).
    pergpu_order: Vec<String>,
}

impl Original {
    /// What the original printed for RPP with `--price price`: nothing when
    /// the price is 0 (`if args.price`), `n/a` when the score is 0, else
    /// `price / grade`, negative for a negative price.
    fn rpp(&self, price: f64) -> Option<f64> {
        (price != 0.0 && self.grade > 0.0).then(|| price / self.grade)
    }
}

fn original(dir: &Path) -> Original {
    // extract_reports: group by name (None included), multi-GPU excluded.
    let exclude = ["convnet_distributed", "convnet_distributed_fp16", "dcgan_all"];
    let mut reports: BTreeMap<Option<String>, Vec<PyEntry>> = BTreeMap::new();
    for file in glob_files(dir) {
        for entry in read_results(&file) {
            if entry.name.as_deref().is_some_and(|n| exclude.contains(&n)) {
                continue;
            }
            reports.entry(entry.name.clone()).or_default().push(entry);
        }
    }
    let nreports: usize = reports.values().map(Vec::len).sum();
    // _report_failures: iterates over a copy, so every entry with a false
    // `completed` leaves, and the others keep their order.
    let mut nfailures = 0;
    for entries in reports.values_mut() {
        let before = entries.len();
        entries.retain(|e| e.completed.as_ref().is_none_or(truthy));
        nfailures += before - entries.len();
    }
    // _report_nans: `for entry in entries: ... entries.remove(entry)`, as
    // CPython's list iterator runs it: an index that moves on after a removal.
    for entries in reports.values_mut() {
        let mut index = 0;
        while index < entries.len() {
            if entries[index].batch_loss().iter().any(|x| x.is_nan()) {
                entries.remove(index);
                nfailures += 1;
            }
            index += 1;
        }
    }
    // _report_global, over string names sorted by `name or "_"`.
    let table: BTreeMap<String, (f64, f64, f64)> = V100
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[0].to_string(), (c[1].parse().unwrap(), c[2].parse().unwrap(), c[3].parse().unwrap()))
        })
        .collect();
    let mut global = BTreeMap::new();
    for (name, entries) in &reports {
        let Some(name) = name else { continue };
        let avgs: Vec<f64> = entries.iter().map(PyEntry::avg).collect();
        let (mean, sd) = (nanmean(&avgs), nanstd(&avgs));
        let (target, perf_tgt, sd_tgt) = table.get(name).copied().unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        let perf = mean / target;
        let sd_share = sd / mean;
        global.insert(
            name.clone(),
            GlobalRow { n: entries.len(), mean, sd, perf, perf_pass: perf >= perf_tgt, sd_pass: sd_share <= sd_tgt },
        );
    }
    let bf = nfailures as f64 / nreports as f64 <= 0.01;
    let pm = global.values().filter(|r| r.perf_pass).count() as f64 / global.len() as f64;
    let st = global.values().filter(|r| r.sd_pass).count() as f64 / global.len() as f64;
    let perfs: Vec<f64> =
        global.iter().filter(|(n, _)| *n != "scaling").map(|(_, r)| r.perf).filter(|p| !p.is_nan()).collect();
    // (prod ** (1/count)); numpy made 1/0 an infinity and 1.0 ** inf is 1.
    let pg = perfs.iter().product::<f64>().powf(1.0 / perfs.len() as f64);
    let pg = if perfs.is_empty() { 1.0 } else { pg };
    let grade = f64::from(u8::from(bf)) * (2.0 * pm + st + 5.0 * pg);
    // _report_pergpu, for mean, min and max.
    let mut pergpu = BTreeMap::new();
    let mut pergpu_order: Vec<(String, String)> = Vec::new();
    for (measure, f) in [("mean", nanmean as fn(&[f64]) -> f64), ("min", nanmin), ("max", nanmax)] {
        let mut results: BTreeMap<String, BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
        for (name, entries) in &reports {
            for e in entries {
                let devices: Vec<u64> = e.vcd().split(',').map(|d| d.trim().parse().unwrap()).collect();
                if let [device] = devices[..] {
                    let key = name.clone().unwrap_or_else(|| "None".into());
                    let sort = name.clone().unwrap_or_else(|| "_".into());
                    if measure == "mean" && !pergpu_order.iter().any(|(_, k)| *k == key) {
                        pergpu_order.push((sort, key.clone()));
                    }
                    results.entry(key).or_default().entry(device).or_default().push(e.avg());
                }
            }
        }
        let mut rel = BTreeMap::new();
        for (name, by_device) in results {
            let values: BTreeMap<u64, f64> = by_device.iter().map(|(d, v)| (*d, f(v))).collect();
            let best = nanmax(&values.values().copied().collect::<Vec<_>>());
            rel.insert(name, values.into_iter().map(|(d, v)| (d, v / best)).collect());
        }
        pergpu.insert(measure, rel);
    }
    pergpu_order.sort();
    let pergpu_order = pergpu_order.into_iter().map(|(_, k)| k).collect();
    Original { nreports, nfailures, global, bf, pm, st, pg, grade, pergpu, pergpu_order }
}

fn mlb_json(dir: &Path, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["report", "--suite", "baselines", "--gpu-model", "V100", "--format", "json", "--reports"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Equal within 1e-12 relative, or both not numbers (mlb writes NaN as null).
fn agree(mlb: &Value, original: f64, what: &str) {
    match mlb.as_f64() {
        None => assert!(original.is_nan(), "{what}: mlb has none, the original {original}"),
        Some(m) => {
            let tol = 1e-12 * original.abs().max(1.0);
            assert!((m - original).abs() <= tol, "{what}: mlb {m}, the original {original}");
        }
    }
}

/// Compares every figure of the score, its table and the per-GPU tables.
fn compare(dir: &Path) -> (Original, Value) {
    let o = original(dir);
    let json = mlb_json(dir, &["--rows", "bench"]);
    let s = &json["score"];
    assert_eq!((s["results"].as_u64(), s["failures"].as_u64()), (Some(o.nreports as u64), Some(o.nfailures as u64)));
    assert_eq!(s["bf"].as_u64(), Some(u64::from(o.bf)));
    for (key, want) in [("pm", o.pm), ("st", o.st), ("pg", o.pg), ("score", o.grade)] {
        agree(&s[key], want, key);
    }
    let benches = json["benches"].as_array().unwrap();
    let names: Vec<&str> = benches.iter().map(|b| b["bench"].as_str().unwrap()).collect();
    assert_eq!(names, o.global.keys().map(String::as_str).collect::<Vec<_>>());
    for b in benches {
        let name = b["bench"].as_str().unwrap();
        let row = &o.global[name];
        assert_eq!(b["sample"]["n"].as_u64(), Some(row.n as u64), "{name} n");
        agree(&b["sample"]["mean"], row.mean, &format!("{name} mean"));
        agree(&b["sample"]["sd"], row.sd, &format!("{name} sd"));
        agree(&b["perf"], row.perf, &format!("{name} perf"));
        assert_eq!(b["perf_pass"].as_bool(), Some(row.perf_pass), "{name} perf_pass");
        assert_eq!(b["sd_pass"].as_bool(), Some(row.sd_pass), "{name} sd_pass");
    }
    // With --rows bench the rows are the original's table too.
    assert_eq!(json["rows"], json["benches"]);
    let devices: Vec<u64> = json["per_gpu"]["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().parse().unwrap())
        .collect();
    let rows = json["per_gpu"]["rows"].as_array().unwrap();
    let labels: Vec<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, o.pergpu_order, "per-GPU rows, in the original's order");
    for (measure, key) in [("mean", "rel_mean"), ("min", "rel_min"), ("max", "rel_max")] {
        let table = &o.pergpu[measure];
        assert_eq!(rows.len(), table.len(), "{measure}: rows");
        for row in rows {
            let label = row["label"].as_str().unwrap();
            let want = &table[label];
            for (device, cell) in devices.iter().zip(row["cells"].as_array().unwrap()) {
                match want.get(device) {
                    None => assert!(cell.is_null(), "{measure} {label} {device}"),
                    Some(v) => agree(&cell[key], *v, &format!("{measure} {label} GPU {device}")),
                }
            }
        }
    }
    (o, json)
}

#[test]
fn ten_thousand_reports_agree_with_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let counts = report_gen::write_set(dir.path(), 10_500, 12, 14);
    assert!(counts.entries >= 10_000, "{counts:?}");
    // Every case is in the set.
    assert!(counts.null_names == 12 && counts.incomplete > 10, "{counts:?}");
    assert!(counts.adjacent_nans >= 3 && counts.nan_losses > counts.adjacent_nans, "{counts:?}");
    assert!(counts.infinite_losses > 10 && counts.nan_throughputs > 10, "{counts:?}");
    let (o, json) = compare(dir.path());
    assert!(o.bf && o.grade > 1.0, "a set whose score is not 0: {o:?}");
    assert!(o.global.contains_key("mystery") && o.global.contains_key("toy_gan"), "benches without a target");
    // mlb's stricter check disagrees on the skipped NaNs, infinite losses
    // and NaN throughputs, and says so.
    let stricter = json["stricter"].as_array().unwrap();
    assert!(stricter.iter().any(|s| s["check"] == "skipped_nan_loss"), "a NaN the original skipped");
    assert!(
        stricter.iter().any(|s| s["check"] == "infinite_loss")
            && stricter.iter().any(|s| s["check"] == "no_throughput")
    );
    assert!(json["warnings"][0].as_str().unwrap().contains("--strict makes them failures"));
    // The default rows are per config: convnet splits by arch, the score does not.
    let rows = mlb_json(dir.path(), &[]);
    let labels: Vec<&str> = rows["rows"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"convnet[arch=resnet18]") && labels.contains(&"convnet[arch=resnet50]"), "{labels:?}");
    assert_eq!(rows["score"], json["score"]);
    assert_eq!(rows["benches"], json["benches"]);
}

#[test]
fn a_failing_set_agrees_too() {
    // 2% of null-name failure records: BF 0 for both.
    let dir = tempfile::tempdir().unwrap();
    let counts = report_gen::write_set(dir.path(), 2_000, 40, 15);
    let (o, json) = compare(dir.path());
    assert!(!o.bf && counts.null_names == 40);
    assert_eq!(json["score"]["score"].as_f64(), Some(0.0));
}

/// Writes `text` at `dir/path`, making its folder.
fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn hidden_folders_are_left_out_as_the_original_left_them_out() {
    // A notebook's checkpoint copy of failure records, one folder below and
    // at the top level: the original's glob never sees them (BF stays 1).
    let dir = tempfile::tempdir().unwrap();
    report_gen::write_set(dir.path(), 1_000, 2, 16);
    let failed = r#"{"completed": false, "name": "vae", "run_id": 0, "suite": "baselines", "vcd": "0"}"#;
    for k in 0..40 {
        write(dir.path(), &format!(".ipynb_checkpoints/baselines.vae.R{k}.D0.FAIL-checkpoint.json"), failed);
        write(dir.path(), &format!("host1/.ipynb_checkpoints/baselines_{k}-checkpoint.json"), failed);
        write(dir.path(), &format!(".baselines.vae.R{k}.D0.json"), failed);
    }
    let (o, json) = compare(dir.path());
    assert!(o.bf, "{o:?}");
    // Without --suite the hidden files are left out too.
    let all = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["report", "--gpu-model", "V100", "--format", "json", "--reports"])
        .arg(dir.path())
        .output()
        .unwrap();
    let all: Value = serde_json::from_slice(&all.stdout).unwrap();
    let files: Vec<&Path> =
        all["failures"].as_array().unwrap().iter().map(|f| Path::new(f["file"].as_str().unwrap())).collect();
    let hidden =
        |f: &Path| f.strip_prefix(dir.path()).unwrap().to_string_lossy().split('/').any(|c| c.starts_with('.'));
    assert!(!files.is_empty() && !files.iter().any(|f| hidden(f)), "{files:?}");
    assert_eq!(json["files"], all["files"]);
}

#[test]
fn a_suite_named_by_a_prefix_of_another_reads_both_as_the_original() {
    // `--suite baselines` is the original's `--jobs baselines`: its pattern
    // `baselines[_.]*.json` takes the files of `baselines_fp16` too, and not
    // a file named `baselines.json`.
    let dir = tempfile::tempdir().unwrap();
    report_gen::write_set(dir.path(), 1_000, 2, 17);
    for gpu in 0..4 {
        let text = format!(
            r#"{{"batch_loss": [0.5], "completed": true, "name": "wlmfp16", "suite": "baselines_fp16", "train_item": {{"avg": {}}}, "vcd": "{gpu}"}}"#,
            4000.0 + 100.0 * gpu as f64
        );
        write(dir.path(), &format!("host2/baselines_fp16.wlmfp16.R0.D{gpu}.json"), &text);
    }
    let failed = r#"{"completed": false, "name": "vae", "vcd": "0"}"#;
    for name in ["baselines.json", "host3/baselines.json", "baselinesX.vae.json"] {
        write(dir.path(), name, &format!("[{}]", [failed; 30].join(",")));
    }
    let (_, json) = compare(dir.path());
    let failed: Vec<&str> = json["failures"].as_array().unwrap().iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert!(!failed.iter().any(|f| f.ends_with("/baselines.json")), "`baselines.json` is not read: {failed:?}");
    let notes = json["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains("suite `baselines_fp16`")), "{notes:?}");
}

#[test]
fn a_zero_or_negative_price_gives_the_originals_rpp() {
    // A set whose score is not 0 (the first seed that gives one).
    let (dir, o) = (18..40)
        .map(|seed| {
            let dir = tempfile::tempdir().unwrap();
            report_gen::write_set(dir.path(), 600, 0, seed);
            let o = original(dir.path());
            (dir, o)
        })
        .find(|(_, o)| o.grade > 0.0)
        .unwrap();
    for price in ["0", "-12000", "12000"] {
        let json = mlb_json(dir.path(), &["--rows", "bench", "--price", price]);
        let s = &json["score"];
        let p: f64 = price.parse().unwrap();
        match o.rpp(p) {
            Some(rpp) => agree(&s["rpp"], rpp, &format!("RPP at {price}")),
            None => assert!(s["rpp"].is_null(), "{price}: {s}"),
        }
        // The original printed no price for 0.
        assert_eq!(s["price"].as_f64(), (p != 0.0).then_some(p), "{price}");
    }
    // The table shows the negative RPP as the original printed it.
    let out = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["report", "--suite", "baselines", "--gpu-model", "V100", "--price", "-12000", "--reports"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(&format!("{:.2}", o.rpp(-12000.0).unwrap())), "{text}");
}

#[test]
fn completed_entries_with_a_null_name_make_the_per_gpu_row_none() {
    let dir = tempfile::tempdir().unwrap();
    report_gen::write_set(dir.path(), 600, 2, 19);
    for gpu in 0..3 {
        let text = format!(
            r#"{{"batch_loss": [0.5], "name": null, "suite": "baselines", "train_item": {{"avg": {}}}, "vcd": "{gpu}"}}"#,
            100.0 + 50.0 * gpu as f64
        );
        write(dir.path(), &format!("host4/baselines.None.R0.D{gpu}.json"), &text);
    }
    let (o, json) = compare(dir.path());
    assert!(o.pergpu_order.contains(&"None".to_string()), "{:?}", o.pergpu_order);
    // Still in no score table.
    assert!(json["benches"].as_array().unwrap().iter().all(|b| b["bench"] != "None"));
}

#[test]
fn a_failed_entry_with_fields_of_odd_types_is_still_a_failure() {
    // The original never reads `train_item` nor `batch_loss` of an entry
    // that did not complete: 30 such failures of about 600 results fail BF.
    let dir = tempfile::tempdir().unwrap();
    report_gen::write_set(dir.path(), 600, 0, 20);
    let odd = [
        r#"{"completed": false, "name": "vae", "vcd": "0", "train_item": "n/a", "batch_loss": 0.5}"#,
        r#"{"completed": false, "name": "vae", "vcd": [0], "train_item": {"avg": "fast"}, "batch_loss": ["x", {}]}"#,
        r#"{"completed": 0, "name": "wlm", "vcd": "1", "train_item": 7, "batch_loss": "lost", "failure": "oom"}"#,
    ];
    for k in 0..30 {
        write(dir.path(), &format!("host1/baselines.odd.R{k}.D0.FAIL.json"), odd[k % 3]);
    }
    let (o, json) = compare(dir.path());
    assert!(!o.bf && json["score"]["bf"] == 0, "{o:?}");
    assert!(json["unreadable"].as_array().unwrap().is_empty(), "{}", json["unreadable"]);
    // A completed entry with such a field is still unreadable (the original
    // stopped on it), with the reason.
    write(dir.path(), "host1/baselines.bad.json", r#"{"name": "vae", "vcd": "0", "train_item": "n/a"}"#);
    let json = mlb_json(dir.path(), &[]);
    let bad = json["unreadable"].as_array().unwrap();
    assert!(bad.len() == 1 && bad[0]["reason"].as_str().unwrap().contains("train_item"), "{bad:?}");
}
