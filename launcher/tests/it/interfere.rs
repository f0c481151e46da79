//! `mlb interfere`: spin workloads of two sizes in two real cgroup slots
//! (root tier): the matrix's cells, intervals and placements, the rounds
//! `--victims`/`--aggressors` leave, the heat map, an `interference` rule of
//! `mlb accept` on the folder and the cells in the results store; bad input
//! refused before anything runs (unit tier); the heat map in a headless
//! Chromium (browser tier).

use crate::common;
use common::launcher::{private_lock, root_or_skip};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Two spin workloads: a small product (cache-resident) and a larger one.
const TWO: &str = r#"[
  {"name": "small", "plugin": "spin", "cgroup": "student", "args": {"size": 64, "repeat": 6, "number": 20, "skip": 1}},
  {"name": "large", "plugin": "spin", "cgroup": "student", "args": {"size": 160, "repeat": 6, "number": 3, "skip": 1}}
]"#;

/// One test's folder, plugins and host lock.
struct Interfere {
    dir: tempfile::TempDir,
    plugins: tempfile::TempDir,
}

impl Interfere {
    fn new() -> Interfere {
        Interfere { dir: tempfile::tempdir().unwrap(), plugins: common::spin_dir() }
    }

    /// The jobs file `name.json` holding `text`.
    fn jobs(&self, name: &str, text: &str) -> PathBuf {
        common::write(self.dir.path(), &format!("{name}.json"), text)
    }

    /// `mlb interfere --jobs JOBS EXTRA...` with this test's plugins and lock.
    fn run(&self, jobs: &Path, extra: &[&str]) -> Output {
        let mut c = Command::new(common::mlb());
        c.arg("--plugin-dir").arg(self.plugins.path()).arg("interfere").arg("--jobs").arg(jobs).args(extra);
        private_lock(&mut c, &self.dir.path().join("mlb.lock"));
        c.env("NO_COLOR", "1").output().unwrap()
    }
}

/// The report files directly in `out`, by the suite's round kind (`alone`, `pair`, `mix`).
fn counted(out: &Path, kind: &str) -> usize {
    common::reports(out)
        .iter()
        .filter(|(_, r)| r["suite"].as_str().is_some_and(|s| s.ends_with(&format!("-{kind}"))))
        .count()
}

#[test]
fn a_matrix_of_two_workloads_with_its_intervals_placements_heat_map_rule_and_store() {
    if !root_or_skip("mlb interfere in real cgroup slots") {
        return;
    }
    let t = Interfere::new();
    let out = t.dir.path().join("out");
    let db = format!("sqlite:{}", t.dir.path().join("results.db").display());
    let jobs = t.jobs("two", TWO);
    let done = t.run(&jobs, &["--devices", "2", "--repeats", "3", "--outdir", out.to_str().unwrap(), "--db", &db]);
    let (stdout, stderr) = common::text(&done);
    assert!(done.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Slowdown beside a neighbour") && stdout.contains("heat map:"), "{stdout}");
    // 2 alone x 3, 2 pairs x 3 (two instances each), the mix x 3 (two).
    assert_eq!((counted(&out, "alone"), counted(&out, "pair"), counted(&out, "mix")), (6, 12, 6));

    let matrix: Value = serde_json::from_str(&std::fs::read_to_string(out.join("interference.json")).unwrap()).unwrap();
    assert_eq!((matrix["repeats"].as_u64(), matrix["workloads"].as_array().unwrap().len()), (Some(3), 2));
    let cells = matrix["cells"].as_array().unwrap();
    let names: Vec<(&str, &str)> =
        cells.iter().map(|c| (c["victim"].as_str().unwrap(), c["aggressor"].as_str().unwrap())).collect();
    assert_eq!(names, [("small", "large"), ("large", "small"), ("small", "mix"), ("large", "mix")]);
    for c in cells {
        assert_eq!((c["n"].as_u64(), c["alone"]["count"].as_u64()), (Some(3), Some(3)), "{c:#}");
        let slowdown = c["slowdown"].as_f64().unwrap();
        let (low, high) = (c["slowdown_ci"][0].as_f64().unwrap(), c["slowdown_ci"][1].as_f64().unwrap());
        assert!(low <= slowdown && slowdown <= high, "{c:#}");
        assert_eq!(c["significant"].as_bool(), Some(low > 0.0 || high < 0.0), "{c:#}");
        assert!(c["alone"]["ci95"].is_array() && c["paired"]["sd"].is_number(), "{c:#}");
        let placement = &c["placement"];
        let victim = placement["victim"]["slot"].as_u64().unwrap();
        let aggressors: Vec<u64> =
            placement["aggressors"].as_array().unwrap().iter().map(|p| p["slot"].as_u64().unwrap()).collect();
        assert!(!aggressors.contains(&victim) && aggressors.len() == 1, "{placement:#}");
        for p in std::iter::once(&placement["victim"]).chain(placement["aggressors"].as_array().unwrap()) {
            assert!(!p["cpus"].as_str().unwrap().is_empty() && p["numa_nodes"].as_array().is_some(), "{p:#}");
            assert!(p["pci_address"].is_null() && p["pcie_switch"].is_null(), "no GPU here: {p:#}");
        }
    }
    assert_eq!(cells[0]["placement"]["victim"]["slot"], 0, "a pair's victim on slot 0");
    let page = std::fs::read_to_string(out.join("interference.html")).unwrap();
    assert!(page.contains("<table class=\"heatmap\">") && page.matches("<td class=\"heat\"").count() >= 4, "{page}");

    // An interference rule on the folder: every cell held to 100%.
    let rules = common::write(t.dir.path(), "rules.yaml", "rules:\n  - kind: interference\n    max: 1.0\n");
    let judged = Command::new(common::mlb())
        .args(["accept", "--format", "json", "--rules"])
        .arg(&rules)
        .arg("--reports")
        .arg(&out)
        .output()
        .unwrap();
    let (said, err) = common::text(&judged);
    assert!(judged.status.success(), "{said}\n{err}");
    let evaluation: Value = serde_json::from_str(&said).unwrap();
    let verdicts: Vec<&Value> = evaluation["verdicts"].as_array().unwrap().iter().collect();
    assert_eq!(verdicts.len(), 4, "{said}");
    assert!(verdicts.iter().any(|v| v["subject"]["bench"] == "small beside large"), "{said}");
    assert!(
        evaluation["inputs"].as_array().unwrap().iter().any(|i| i["role"] == "interference"),
        "the matrix is an input of the record: {said}"
    );

    // --db stored the run and its cells.
    let stored =
        Command::new(common::mlb()).args(["db", "interference", "--format", "json", "--db", &db]).output().unwrap();
    let (listed, err) = common::text(&stored);
    assert!(stored.status.success(), "{listed}\n{err}");
    let rows: Vec<Value> = serde_json::from_str(&listed).unwrap();
    assert_eq!(rows.len(), 4, "{listed}");
    assert_eq!((rows[0]["n"].as_i64(), rows[0]["victim"].as_str()), (Some(3), Some("large")), "{listed}");
}

#[test]
fn victims_and_aggressors_limit_the_rounds() {
    if !root_or_skip("mlb interfere in real cgroup slots") {
        return;
    }
    let t = Interfere::new();
    let out = t.dir.path().join("out");
    let three = r#"[
      {"name": "a", "plugin": "spin", "cgroup": "student", "args": {"size": 32, "repeat": 3, "number": 5, "skip": 1}},
      {"name": "b", "plugin": "spin", "cgroup": "student", "args": {"size": 48, "repeat": 3, "number": 5, "skip": 1}},
      {"name": "c", "plugin": "spin", "cgroup": "student", "args": {"size": 64, "repeat": 3, "number": 5, "skip": 1}}
    ]"#;
    let jobs = t.jobs("three", three);
    let args = ["--devices", "2", "--repeats", "2", "--no-mix", "--victims", "a", "--aggressors", "b,c", "--outdir"];
    let done = t.run(&jobs, &[&args[..], &[out.to_str().unwrap()]].concat());
    let (stdout, stderr) = common::text(&done);
    assert!(done.status.success(), "{stdout}\n{stderr}");
    // a, b, c alone twice; a beside b and a beside c twice; no mix: 10 rounds, not 3 + 6 + 1 of each.
    assert_eq!(
        std::fs::read_to_string(out.join("summary.txt")).unwrap().lines().filter(|l| l.contains("PASSED")).count(),
        10
    );
    assert_eq!((counted(&out, "alone"), counted(&out, "pair"), counted(&out, "mix")), (6, 8, 0));
    let matrix: Value = serde_json::from_str(&std::fs::read_to_string(out.join("interference.json")).unwrap()).unwrap();
    let cells: Vec<String> = matrix["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}/{}", c["victim"].as_str().unwrap(), c["aggressor"].as_str().unwrap()))
        .collect();
    assert_eq!(cells, ["a/b", "a/c"]);
    // An aggressor is asked to outlast its victim.
    let repeat_of = |name: &str| {
        common::reports(&out)
            .into_iter()
            .filter(|(_, r)| r["suite"].as_str().unwrap().ends_with("-pair") && r["name"] == name)
            .map(|(_, r)| r["repeat"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    assert!(repeat_of("a").iter().all(|r| *r == 3), "the victim runs as written");
    assert!(repeat_of("b").iter().all(|r| *r >= 3), "{:?}", repeat_of("b"));
}

#[test]
fn bad_input_is_refused_naming_the_file_and_the_fix() {
    let t = Interfere::new();
    let jobs = t.jobs("two", TWO);
    let out = t.dir.path().join("out");
    let refused = |jobs: &Path, extra: &[&str]| {
        let done = t.run(jobs, &[extra, &["--outdir", out.to_str().unwrap()]].concat());
        let (_, stderr) = common::text(&done);
        assert_eq!(done.status.code(), Some(2), "{stderr}");
        assert!(!out.exists(), "nothing written: {stderr}");
        stderr
    };
    let said = refused(&jobs, &["--devices", "2", "--victims", "smal"]);
    assert!(said.contains("two.json: no workload \"smal\" (--victims); the workloads are small, large"), "{said}");
    assert!(said.contains("fix: name workloads of the jobs file in --victims"), "{said}");
    let one = t.jobs("one", r#"[{"name": "only", "plugin": "spin", "cgroup": "student"}]"#);
    let said = refused(&one, &["--devices", "2"]);
    assert!(said.contains("one.json: 1 workload selected; a matrix needs two at least"), "{said}");
    let said = refused(&jobs, &["--devices", "1"]);
    assert!(said.contains("1 slot planned") && said.contains("--devices 2"), "{said}");
    let all =
        t.jobs("all", r#"[{"name": "x", "plugin": "spin"}, {"name": "y", "plugin": "spin", "cgroup": "student"}]"#);
    let said = refused(&all, &["--devices", "2"]);
    assert!(said.contains("all.json: job \"x\" is `\"cgroup\": \"all\"`"), "{said}");
    let said = refused(&jobs, &["--devices", "2", "--victims", "small", "--aggressors", "small"]);
    assert!(said.contains("leave no pair"), "{said}");
    let said = refused(&jobs, &["--devices", "2", "--repeats", "1"]);
    assert!(said.contains("--repeats"), "{said}");
}

#[test]
fn the_heat_map_draws_a_coloured_cell_per_pair_in_a_browser() {
    use common::chromium::Browser;
    use mlb::interfere::{heatmap, matrix, Cell, Interference, Placement};
    let at = |slot: usize| mlb::host::Position {
        slot,
        cpus: slot.to_string(),
        numa_nodes: vec![0],
        gpu: slot as u32,
        pci_address: None,
        pcie_switch: None,
    };
    let cell = |v: &str, a: &str, paired: &[f64]| {
        Cell::measure(
            v,
            a,
            &[100.0, 101.0, 99.0],
            paired,
            Some(1.0),
            Placement { victim: at(0), aggressors: vec![at(1)] },
        )
    };
    let m = Interference {
        suite: "heat".into(),
        repeats: 3,
        level: matrix::LEVEL,
        workloads: vec!["membw".into(), "gemm".into()],
        alone: vec![],
        cells: vec![cell("membw", "gemm", &[70.0, 71.0, 69.0]), cell("gemm", "membw", &[99.0, 103.0, 98.0])],
    };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("interference.html");
    std::fs::write(&html, heatmap::page(&m)).unwrap();
    let mut browser = Browser::start(1000, 700);
    browser.open(&html, "document.querySelectorAll('td.heat').length > 0");
    // "-" cells (a workload beside itself) keep the table's row shading;
    // membw loses 30% (red), gemm nothing (white).
    let colours = browser
        .eval("[...document.querySelectorAll('td.heat')].map(td => getComputedStyle(td).backgroundColor).join(';')");
    assert_eq!(
        colours.as_str(),
        Some("rgb(246, 248, 250);rgb(255, 140, 140);rgb(255, 255, 255);rgba(0, 0, 0, 0)"),
        "{colours}"
    );
    let shot = browser.screenshot(1000);
    assert!(shot.starts_with(b"\x89PNG") && shot.len() > 5000, "{} bytes", shot.len());
    if let Some(keep) = std::env::var_os("MLB_KEEP_HTML_REPORT").map(PathBuf::from) {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::write(keep.join("interference.png"), &shot).unwrap();
    }
    assert!(browser.problems().is_empty(), "{:?}", browser.problems());
}
