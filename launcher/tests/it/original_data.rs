//! `mlb prepare` for the original suite's own jobs files (`cmd` jobs running
//! its scripts): every file a job's script opens under `$DATA_DIRECTORY` is
//! where the script opens it, and, in the PyTorch environment, opens with
//! the script's own library calls (`torch.load`, torchvision's `MNIST` and
//! `ImageFolder`, PIL, `json.load`): docs/data.md, "The original suite's jobs".

use crate::common;

use common::{python, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What each job of the original jobs files opens under `$DATA_DIRECTORY`
/// (files, or folders it lists), as read from its script; jobs absent read
/// nothing there (toy_reg, cart, atari, scaling; wlm and wlmfp16 read the
/// wikitext-2 shipped beside their scripts).
const OPENED: &[(&str, &[&str])] = &[
    ("toy_lstm", &["time_series_prediction/traindata.pt"]),
    (
        "vae",
        &[
            "mnist/MNIST/raw/train-images-idx3-ubyte",
            "mnist/MNIST/raw/train-labels-idx1-ubyte",
            "mnist/MNIST/raw/t10k-images-idx3-ubyte",
            "mnist/MNIST/raw/t10k-labels-idx1-ubyte",
            "mnist/MNIST/processed/training.pt",
            "mnist/MNIST/processed/test.pt",
        ],
    ),
    ("loader", &["ImageNet/train"]),
    ("dcgan", &["ImageNet/train"]),
    ("convnet", &["ImageNet/train"]),
    ("convnet_fp16", &["ImageNet/train"]),
    ("fast_style", &["ImageNet/train"]),
    ("convnet_distributed", &["ImageNet/train"]),
    ("convnet_distributed_fp16", &["ImageNet/train"]),
    ("dcgan_all", &["ImageNet/train"]),
    ("reso", &["bsds500/BSR/BSDS500/data/images/train", "bsds500/BSR/BSDS500/data/images/test"]),
    (
        "translator",
        &["wmt16/vocab.bpe.32000", "wmt16/train.tok.clean.bpe.32000.en", "wmt16/train.tok.clean.bpe.32000.de"],
    ),
    (
        "ssd",
        &[
            "coco/annotations/instances_train2017.json",
            "coco/train2017",
            "coco/annotations/instances_val2017.json",
            "coco/val2017",
        ],
    ),
    ("recom", &["ml-20m/ratings.csv"]),
];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// `mlb prepare --jobs <fixture> --base BASE` (with a host lock of the
/// test's own), checked to succeed.
fn prepare_original(base: &Path, jobs_file: &str) -> String {
    let jobs = fixture(jobs_file);
    let out: Output = common::prepare::run(base, &["--jobs", jobs.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{jobs_file}: {stdout}\n{stderr}");
    stdout
}

/// The names of the jobs of a jobs file.
fn job_names(jobs_file: &str) -> Vec<String> {
    let jobs: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture(jobs_file)).unwrap()).unwrap();
    jobs.as_array().unwrap().iter().map(|j| j["name"].as_str().unwrap().to_string()).collect()
}

fn be32(bytes: &[u8], word: usize) -> u32 {
    u32::from_be_bytes(bytes[4 * word..4 * word + 4].try_into().unwrap())
}

#[test]
fn every_original_job_finds_the_files_its_script_opens_where_it_opens_them() {
    // One base: the old file's jobs read the sets of the first, checked and kept.
    let base = tempfile::tempdir().unwrap();
    for jobs_file in ["original-baselines.json", "original-old-baselines.json"] {
        let stdout = prepare_original(base.path(), jobs_file);
        let data = base.path().join("data");
        let names = job_names(jobs_file);
        let mut folders = std::collections::BTreeSet::new();
        for (job, paths) in OPENED.iter().filter(|(job, _)| names.iter().any(|n| n == job)) {
            for path in *paths {
                let full = data.join(path);
                let present =
                    if full.is_dir() { std::fs::read_dir(&full).unwrap().count() > 0 } else { full.is_file() };
                assert!(present, "{jobs_file}: {job} opens $DATA_DIRECTORY/{path}: {stdout}");
                let folder = path.split('/').next().unwrap();
                let line = stdout.lines().find(|l| l.starts_with(&format!("{folder} "))).unwrap();
                assert!(line.contains(job), "{jobs_file}: the line of {folder} names {job}: {line}");
                folders.insert(folder.to_string());
            }
        }
        // Nothing else: the sets the scripts read, and only those (beside
        // the lock prepare keeps on the data folder).
        let written: std::collections::BTreeSet<String> = std::fs::read_dir(&data)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != mlb::prepare::LOCK_FILE)
            .collect();
        assert_eq!(written, folders, "{jobs_file}: {stdout}");

        // The checks torchvision's MNIST makes: the four names, the idx magic and count.
        let raw = data.join("mnist/MNIST/raw");
        for (name, magic, count) in [
            ("train-images-idx3-ubyte", 0x803, 1000),
            ("train-labels-idx1-ubyte", 0x801, 1000),
            ("t10k-images-idx3-ubyte", 0x803, 100),
            ("t10k-labels-idx1-ubyte", 0x801, 100),
        ] {
            let bytes = std::fs::read(raw.join(name)).unwrap();
            assert_eq!((be32(&bytes, 0), be32(&bytes, 1)), (magic, count), "{name}");
        }
        // torch.save's legacy format: its magic number, pickled, comes first.
        let waves = std::fs::read(data.join("time_series_prediction/traindata.pt")).unwrap();
        assert_eq!(&waves[..15], b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.");
    }
}

/// The PyTorch venv's python and a folder holding numpy, Pillow and
/// torchvision for it (shared with the loader parity bench).
fn python_with_vision() -> (PathBuf, PathBuf) {
    let vision = python::packages(
        "bench-vision",
        "numpy, PIL, torchvision",
        &["pillow", "numpy", "torchvision==0.26.0"],
        &["--no-deps"],
    );
    (python::venv_python(), vision)
}

#[test]
fn the_original_scripts_library_calls_open_the_prepared_files() {
    let (python, vision) = python_with_vision();
    let base = tempfile::tempdir().unwrap();
    prepare_original(base.path(), "original-baselines.json");
    let out = Command::new(&python)
        .arg(fixture("original_data/open_as_the_scripts_do.py"))
        .arg(base.path().join("data"))
        .env("PYTHONPATH", &vision)
        .env_remove("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let names = job_names("original-baselines.json");
    for (job, _) in OPENED.iter().filter(|(job, _)| names.iter().any(|n| n == job)) {
        assert!(stdout.lines().any(|l| l == format!("ok: {job}")), "{job} opens its files: {stdout}\n{stderr}");
    }
    // PyTorch 2.6 and later load no NumPy array by default (weights_only):
    // toy_lstm's plain torch.load needs TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1,
    // as it does on the file the original's own generation step writes.
    assert!(stdout.contains("weights-only default: refused"), "{stdout}");
}
