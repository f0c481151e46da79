//! A deterministic generated set of report files in the original suite's
//! shapes, holding every case where `mlb report` once differed from the
//! original's report tool: failure records with a null name, adjacent NaN
//! losses (the second one skipped by the original), infinite losses, NaN
//! throughputs, benches missing from the target table, and files in the
//! oldest appended format, one folder below and at the top level.
//!
//! Used by `tests/it/report_compat.rs` and `benches/report_aggregate.rs`.

#![allow(dead_code)] // each user takes a different subset

use std::fmt::Write as _;
use std::path::Path;

/// The benches written: those of the V100 target table, two it lacks, and
/// two multi-GPU benches (left out by both tools).
pub const BENCHES: [(&str, f64); 21] = [
    ("loader", 1200.0),
    ("cart", 2000.0),
    ("atari", 6.0),
    ("toy_reg", 300000.0),
    ("toy_lstm", 2.0),
    ("vae", 7500.0),
    ("reso", 280.0),
    ("translator", 225.0),
    ("wlm", 1600.0),
    ("wlmfp16", 5000.0),
    ("ssd", 70.0),
    ("fast_style", 250.0),
    ("dcgan", 250.0),
    ("convnet", 215.0),
    ("convnet_fp16", 415.0),
    ("recom", 20000.0),
    ("scaling", 1.0),
    ("mystery", 50.0),
    ("toy_gan", 80.0),
    ("dcgan_all", 154.0),
    ("convnet_distributed", 339.0),
];

/// Folders: the top level and four one below (one per host).
pub const HOSTS: [&str; 5] = ["", "host1", "host2", "host3", "host4"];

/// GPUs per host.
pub const GPUS: usize = 8;

/// What a generated set holds, by case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Entries written (every file's entries, other suites excluded).
    pub entries: usize,
    /// Files written (other suites included).
    pub files: usize,
    /// Failure records with `"name": null`.
    pub null_names: usize,
    /// Failure records with a name.
    pub incomplete: usize,
    /// Entries with a NaN loss.
    pub nan_losses: usize,
    /// NaN-loss entries written right after another one in an appended file.
    pub adjacent_nans: usize,
    /// Entries with an infinite loss.
    pub infinite_losses: usize,
    /// Entries with a NaN throughput.
    pub nan_throughputs: usize,
}

/// splitmix64: a small deterministic generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One entry as the original's `json.dumps` wrote it (keys sorted; `NaN`,
/// `Infinity` and `-Infinity` as bare tokens).
pub struct Original<'a> {
    pub name: Option<&'a str>,
    pub vcd: usize,
    pub run: u64,
    /// `None`: a failure record of the original launcher (5 keys).
    pub avg: Option<String>,
    pub losses: Vec<String>,
    pub arch: Option<&'a str>,
    pub completed_key: bool,
}

impl Original<'_> {
    /// The JSON text (with the original's tokens).
    pub fn text(&self) -> String {
        let name = self.name.map_or("null".to_string(), |n| format!("\"{n}\""));
        let Some(avg) = &self.avg else {
            return format!(
                "{{\n    \"completed\": false,\n    \"name\": {name},\n    \"run_id\": {},\n    \"suite\": \"baselines\",\n    \"vcd\": \"{}\"\n}}",
                self.run, self.vcd
            );
        };
        let mut t = String::from("{\n");
        if let Some(arch) = self.arch {
            let _ = writeln!(t, "    \"arch\": \"{arch}\",");
        }
        let _ = writeln!(t, "    \"batch_loss\": [{}],", self.losses.join(", "));
        t.push_str("    \"batch_size\": 64,\n");
        if self.completed_key {
            t.push_str("    \"completed\": true,\n");
        }
        t.push_str("    \"cuda\": true,\n    \"epoch_loss\": [0.5, NaN],\n    \"gpu\": \"Tesla V100-SXM2-16GB\",\n");
        let _ = writeln!(t, "    \"jr_id\": \"{}\",", self.vcd);
        let _ = writeln!(t, "    \"name\": {name},");
        let _ = writeln!(t, "    \"number\": 5,\n    \"repeat\": 30,\n    \"run_id\": \"{}\",", self.run);
        t.push_str("    \"suite\": \"baselines\",\n");
        t.push_str(
            "    \"train\": {\"avg\": 0.5, \"count\": 20, \"max\": 0.6, \"min\": 0.4, \"sd\": NaN, \"unit\": \"s\"},\n",
        );
        let _ = writeln!(
            t,
            "    \"train_item\": {{\"avg\": {avg}, \"max\": Infinity, \"min\": 1.0, \"range\": NaN, \"unit\": \"items/sec\"}},"
        );
        let _ = write!(t, "    \"vcd\": \"{}\"\n}}", self.vcd);
        t
    }
}

/// Writes a set of about `entries` entries into `dir`, with `null_names`
/// null-name failure records among them. Deterministic for a given `seed`.
pub fn write_set(dir: &Path, entries: usize, null_names: usize, seed: u64) -> Counts {
    let mut rng = Rng::new(seed);
    let mut c = Counts::default();
    // Per bench: a factor around its target and a spread, so that some
    // benches pass perf and sd% and others do not.
    let shape: Vec<(f64, f64)> = BENCHES.iter().map(|_| (0.4 + 0.8 * rng.unit(), 0.005 + 0.08 * rng.unit())).collect();
    let per_location = entries / HOSTS.len();
    let appended_per_gpu = per_location / 2 / GPUS;
    let singles = per_location - appended_per_gpu * GPUS;
    let mut stamp = 0u64;
    let mut nulls_left = null_names;
    for (h, host) in HOSTS.iter().enumerate() {
        let folder = dir.join(host);
        std::fs::create_dir_all(&folder).unwrap();
        // The oldest format: one file per GPU, `[` then `{...},` items.
        for gpu in 0..GPUS {
            let mut text = String::from("[\n");
            let mut last_nan = false;
            for k in 0..appended_per_gpu {
                let e = entry(&mut rng, &shape, gpu, (h * 10 + k % 10) as u64, &mut c, &mut last_nan, true);
                text.push_str(&e.text());
                text.push_str(",\n");
            }
            std::fs::write(folder.join(format!("baselines_{gpu}.json")), text).unwrap();
            c.files += 1;
        }
        // One object per file, as the later original wrote them.
        let nulls_here = nulls_left.div_ceil(HOSTS.len() - h);
        nulls_left -= nulls_here;
        for k in 0..singles {
            let gpu = rng.below(GPUS);
            let e = if k < nulls_here {
                c.null_names += 1;
                c.entries += 1;
                Original { name: None, vcd: gpu, run: 0, avg: None, losses: vec![], arch: None, completed_key: true }
            } else {
                entry(&mut rng, &shape, gpu, (k % 10) as u64, &mut c, &mut false, false)
            };
            stamp += 1;
            let name = e.name.map_or("None".to_string(), str::to_string);
            let fail = if e.avg.is_none() { ".FAIL." } else { "." };
            let file = format!("baselines.{name}.R{}.D{gpu}{fail}20200101-000000-{stamp:06}.json", e.run);
            std::fs::write(folder.join(file), e.text()).unwrap();
            c.files += 1;
        }
        // Another suite's file, which both tools leave out.
        let other = r#"{"name": "vae", "suite": "other", "vcd": "0", "batch_loss": [NaN], "train_item": {"avg": 1.0}}"#;
        std::fs::write(folder.join("other.vae.R0.D0.json"), other).unwrap();
        c.files += 1;
    }
    c
}

/// One generated entry of a random bench; `last_nan` tracks NaN runs in an
/// appended file (they come in pairs and triples there).
fn entry<'a>(
    rng: &mut Rng,
    shape: &[(f64, f64)],
    gpu: usize,
    run: u64,
    c: &mut Counts,
    last_nan: &mut bool,
    appended: bool,
) -> Original<'a> {
    c.entries += 1;
    let b = rng.below(BENCHES.len());
    let (name, target) = BENCHES[b];
    let (factor, spread) = shape[b];
    // convnet sweeps over two archs, as the smoke suite does.
    let arch = (name == "convnet").then(|| ["resnet18", "resnet50"][rng.below(2)]);
    let slow = if gpu == 7 { 0.85 } else { 1.0 };
    let value = target * factor * slow * (1.0 + spread * (rng.unit() * 2.0 - 1.0));
    let mut losses: Vec<String> =
        (0..5).map(|i| format!("{:.6}", 2.0 / (i as f64 + 1.5) + rng.unit() * 0.01)).collect();
    let mut avg = format!("{value:?}");
    let roll = rng.unit();
    let nan_run = appended && *last_nan && rng.unit() < 0.6;
    if nan_run || roll < if appended { 0.002 } else { 0.003 } {
        losses[rng.below(5)] = "NaN".into();
        c.nan_losses += 1;
        c.adjacent_nans += usize::from(*last_nan);
        *last_nan = true;
        return Original { name: Some(name), vcd: gpu, run, avg: Some(avg), losses, arch, completed_key: true };
    }
    *last_nan = false;
    if roll < 0.005 {
        c.incomplete += 1;
        return Original { name: Some(name), vcd: gpu, run, avg: None, losses, arch, completed_key: true };
    } else if roll < 0.008 {
        losses[rng.below(5)] = ["Infinity", "-Infinity"][rng.below(2)].into();
        c.infinite_losses += 1;
    } else if roll < 0.011 {
        avg = "NaN".into();
        c.nan_throughputs += 1;
    }
    Original { name: Some(name), vcd: gpu, run, avg: Some(avg), losses, arch, completed_key: rng.unit() < 0.9 }
}

/// The benches of a run of [`write_campaign`], each on every GPU.
pub const CAMPAIGN: [&str; 16] = [
    "atari",
    "cart",
    "convnet",
    "convnet_fp16",
    "dcgan",
    "fast_style",
    "loader",
    "recom",
    "reso",
    "ssd",
    "toy_lstm",
    "toy_reg",
    "translator",
    "vae",
    "wlm",
    "wlmfp16",
];

/// Writes `files` reports as the original wrote them: run after run, each
/// bench on each GPU, in a folder per run one level down; a few failed
/// (a NaN loss), as in a real run. Returns the bytes written.
pub fn write_campaign(dir: &Path, files: usize) -> usize {
    let mut rng = Rng::new(7);
    let mut bytes = 0;
    for i in 0..files {
        let (run, bench, gpu) = (i / (CAMPAIGN.len() * GPUS), CAMPAIGN[(i / GPUS) % CAMPAIGN.len()], i % GPUS);
        let target = BENCHES.iter().find(|(n, _)| *n == bench).map_or(100.0, |(_, t)| *t);
        let mut losses: Vec<String> =
            (0..5).map(|k| format!("{:.6}", 2.0 / (k as f64 + 1.5) + rng.unit() * 0.01)).collect();
        if rng.unit() < 0.002 {
            losses[rng.below(5)] = "NaN".into();
        }
        let avg = format!("{:?}", target * (0.9 + 0.2 * rng.unit()));
        let arch = (bench == "convnet").then_some("resnet18");
        let entry = Original {
            name: Some(bench),
            vcd: gpu,
            run: run as u64,
            avg: Some(avg),
            losses,
            arch,
            completed_key: true,
        };
        let folder = dir.join(format!("run{run}"));
        if i % (CAMPAIGN.len() * GPUS) == 0 {
            std::fs::create_dir_all(&folder).expect("run folder");
        }
        let text = entry.text();
        bytes += text.len();
        let name = format!("baselines.{bench}.R{run}.D{gpu}.20200101-000000-{i:06}.json");
        std::fs::write(folder.join(name), text).expect("report file");
    }
    bytes
}
