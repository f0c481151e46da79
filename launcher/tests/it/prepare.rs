//! `mlb prepare` through the real binary: the files are in the formats the
//! workloads' loaders read, a second run checks and skips, the same seed
//! gives the same bytes, and an interrupted run leaves no set that looks
//! complete and resumes, a damaged file left in it being made again, and
//! what is kept is on disk (synced) before the set is named complete. (Bad
//! input: tests/it/hostile/prepare_input.rs; signals, links and locks:
//! tests/it/hostile/prepare_*.rs.)

use crate::common;

use common::launcher::{wait_until, KillOnDrop};
use common::prepare::{command, jpegs, run as prepare};
use common::text;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn manifest(base: &Path, folder: &str) -> Value {
    let path = base.join("data").join(folder).join("mlb-prepare.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn be32(bytes: &[u8], word: usize) -> u32 {
    u32::from_be_bytes(bytes[4 * word..4 * word + 4].try_into().unwrap())
}

/// The ids of `train.ids` and `valid.ids` (`ids.json` gives their width)
/// are `tokenizer.json`'s encoding of `train.txt` and `valid.txt`.
fn wikitext_ids_decode_to_the_text(dir: &Path, train: &str) {
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("ids.json")).unwrap()).unwrap();
    let vocab = meta["vocab_size"].as_u64().unwrap();
    assert!((257..=1024).contains(&vocab), "the small scale's vocabulary: {meta}");
    assert_eq!(meta["bytes"], 2);
    let tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    assert_eq!(tokenizer.get_vocab_size(true) as u64, vocab);
    let valid = std::fs::read_to_string(dir.join("valid.txt")).unwrap();
    for (file, text) in [("train.ids", train), ("valid.ids", valid.as_str())] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let ids: Vec<u32> = bytes.chunks_exact(2).map(|c| u32::from(u16::from_le_bytes([c[0], c[1]]))).collect();
        assert!(ids.iter().all(|&id| u64::from(id) < vocab), "{file}");
        assert!(ids.len() < text.len() / 2, "{file}: merges shorten the text ({} ids)", ids.len());
        assert_eq!(tokenizer.decode(&ids, false).unwrap(), text, "{file} decodes to the text");
    }
}

/// The cheap sets of the standard suite's jobs: MNIST, wikitext-2, wmt16, ml-20m.
const CHEAP: &str = "vae,wlm,translator,recom";

#[test]
fn the_files_are_in_the_loaders_formats_and_a_second_run_checks_and_skips() {
    let base = tempfile::tempdir().unwrap();
    let out = prepare(base.path(), &["--name", CHEAP]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let data = base.path().join("data");
    for (folder, job) in [("MNIST", "vae"), ("wikitext-2", "wlm"), ("wmt16", "translator"), ("ml-20m", "recom")] {
        let line = stdout.lines().find(|l| l.starts_with(folder)).unwrap_or_else(|| panic!("{folder}: {stdout}"));
        assert!(line.contains("generated") && line.contains(job), "{line}");
        assert!(line.contains(&data.join(folder).display().to_string()), "{line}");
    }
    assert_eq!(stdout.lines().count(), 4, "only the sets those jobs read: {stdout}");

    // MNIST idx: magic, count, rows, columns, then the pixels; labels 0..9.
    let images = std::fs::read(data.join("MNIST/train-images-idx3-ubyte")).unwrap();
    assert_eq!((be32(&images, 0), be32(&images, 1), be32(&images, 2), be32(&images, 3)), (0x803, 1000, 28, 28));
    assert_eq!(images.len(), 16 + 1000 * 28 * 28);
    let labels = std::fs::read(data.join("MNIST/train-labels-idx1-ubyte")).unwrap();
    assert_eq!((be32(&labels, 0), be32(&labels, 1), labels.len()), (0x801, 1000, 1008));
    assert!(labels[8..].iter().all(|&l| l < 10));
    // wikitext-2: the split's tokens as the loader counts them (words and one <eos> a line).
    let train = std::fs::read_to_string(data.join("wikitext-2/train.txt")).unwrap();
    assert_eq!(train.lines().map(|l| l.split_whitespace().count() + 1).sum::<usize>(), 20_000);
    // gpt's token ids: the byte-level BPE stored beside the text decodes them
    // back into the text.
    wikitext_ids_decode_to_the_text(&data.join("wikitext-2"), &train);
    // wmt16: a vocabulary and two sides aligned line by line.
    let read = |f: &str| std::fs::read_to_string(data.join("wmt16").join(f)).unwrap();
    assert_eq!(read("vocab.bpe.32000").lines().count(), 1000);
    let (en, de) = (read("train.tok.clean.bpe.32000.en"), read("train.tok.clean.bpe.32000.de"));
    assert_eq!((en.lines().count(), de.lines().count()), (4000, 4000));
    let (en, de) = (read("newstest2014.tok.bpe.32000.en"), read("newstest2014.tok.bpe.32000.de"));
    assert_eq!((en.lines().count(), de.lines().count()), (300, 300), "the held-out pairs");
    // ml-20m: the header, then userId,movieId,rating,timestamp.
    let ratings = std::fs::read_to_string(data.join("ml-20m/ratings.csv")).unwrap();
    assert!(ratings.starts_with("userId,movieId,rating,timestamp\n1,"), "{}", &ratings[..80]);
    // Nothing temporary is left.
    let names: Vec<String> =
        std::fs::read_dir(&data).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with('.') || n == ".mlb-prepare.lock"), "{names:?}");

    let written = std::fs::metadata(data.join("ml-20m/ratings.csv")).unwrap().modified().unwrap();
    let again = prepare(base.path(), &["--name", CHEAP]);
    let (stdout, stderr) = text(&again);
    assert_eq!(again.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stdout.lines().filter(|l| l.contains(" present ")).count(), 4, "{stdout}");
    assert_eq!(std::fs::metadata(data.join("ml-20m/ratings.csv")).unwrap().modified().unwrap(), written);
}

#[test]
fn the_same_seed_gives_the_same_files_and_another_seed_others() {
    let (a, b, c) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (base, seed) in [(&a, "7"), (&b, "7"), (&c, "8")] {
        let out = prepare(base.path(), &["--name", "vae,reso,recom", "--seed", seed]);
        assert!(out.status.success(), "{:?}", text(&out));
    }
    for folder in ["MNIST", "BSDS500", "ml-20m"] {
        let (ma, mb, mc) = (manifest(a.path(), folder), manifest(b.path(), folder), manifest(c.path(), folder));
        assert_eq!(ma["files"], mb["files"], "{folder}: same seed, same files and checksums");
        assert_eq!(ma["seed"], 7);
        let paths = |m: &Value| m["files"].as_array().unwrap().iter().map(|f| f["path"].clone()).collect::<Vec<_>>();
        assert_eq!(paths(&ma), paths(&mc), "{folder}: the same layout");
        assert_ne!(ma["files"], mc["files"], "{folder}: another seed, other content");
    }
    // The checksums are those of the files.
    let first = &manifest(a.path(), "BSDS500")["files"][0];
    let bytes = std::fs::read(a.path().join("data/BSDS500").join(first["path"].as_str().unwrap())).unwrap();
    assert_eq!(first["bytes"], bytes.len());
}

#[test]
fn an_interrupted_run_leaves_no_set_that_looks_complete_and_resumes() {
    let base = tempfile::tempdir().unwrap();
    let data = base.path().join("data");
    let partial = data.join(".ImageNet.partial");
    let mut child = command(base.path(), &["--name", "dcgan"]).stdout(Stdio::null()).spawn().unwrap();
    let guard = KillOnDrop::new(child.id() as i32);
    wait_until(Duration::from_secs(60), "some images written", || jpegs(&partial).len() >= 5);
    child.kill().unwrap();
    child.wait().unwrap();
    drop(guard);
    assert!(!data.join("ImageNet").exists(), "no ImageNet folder until it is complete");
    let mut kept: Vec<std::path::PathBuf> = jpegs(&partial);
    assert!((5..80).contains(&kept.len()), "{} images kept in the partial folder", kept.len());
    // One kept image is damaged (a byte flipped, as a bad disk or a careless
    // hand would), another cut short: neither may enter the set.
    kept.sort();
    let mut bytes = std::fs::read(&kept[0]).unwrap();
    bytes[100] ^= 0x40;
    std::fs::write(&kept[0], &bytes).unwrap();
    let cut = std::fs::read(&kept[1]).unwrap();
    std::fs::write(&kept[1], &cut[..cut.len() / 2]).unwrap();
    let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let intact: Vec<_> =
        kept[2..].iter().map(|p| (p.strip_prefix(&partial).unwrap().to_path_buf(), modified(p))).collect();

    let out = prepare(base.path(), &["--name", "dcgan"]);
    assert!(out.status.success(), "{:?}", text(&out));
    assert!(!partial.exists());
    assert_eq!(jpegs(&data.join("ImageNet/train")).len(), 80);
    // The resumed set is the set an uninterrupted run writes.
    let fresh = tempfile::tempdir().unwrap();
    assert!(prepare(fresh.path(), &["--name", "dcgan"]).status.success());
    assert_eq!(manifest(base.path(), "ImageNet")["files"], manifest(fresh.path(), "ImageNet")["files"]);
    for damaged in &kept[..2] {
        let name = damaged.strip_prefix(&partial).unwrap();
        let made = std::fs::read(data.join("ImageNet").join(name)).unwrap();
        assert_eq!(made, std::fs::read(fresh.path().join("data/ImageNet").join(name)).unwrap(), "{name:?} made again");
    }
    // The intact files kept are kept, not made again (all but those the kill
    // caught between their rename and their record).
    let same = intact.iter().filter(|(name, at)| modified(&data.join("ImageNet").join(name)) == *at).count();
    assert!(same * 2 >= intact.len(), "{same} of {} intact files kept as they were", intact.len());
    let classes = std::fs::read_dir(data.join("ImageNet/train")).unwrap().count();
    assert_eq!(classes, 10, "class folders");
    // The held-out split: the same class folders, 4 images each.
    let val: Vec<String> = std::fs::read_dir(data.join("ImageNet/val"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let train: Vec<String> = std::fs::read_dir(data.join("ImageNet/train"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(sorted(val), sorted(train), "the held-out split's class folders are the training split's");
    assert_eq!(jpegs(&data.join("ImageNet/val")).len(), 40);
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

/// The system calls `mlb prepare --name recom` makes on its files (strace,
/// with the paths of descriptors); `None` where strace cannot trace.
fn traced_prepare(base: &Path) -> Option<String> {
    let log = base.join("strace.log");
    let c = command(base, &["--name", "recom"]);
    let program = c.get_program().to_owned();
    let args: Vec<_> = c.get_args().map(|a| a.to_owned()).collect();
    let mut strace = Command::new("strace");
    strace.args(["-f", "-y", "-qq", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", "-o"]).arg(&log);
    strace.arg(program).args(args).envs(c.get_envs().filter_map(|(k, v)| Some((k, v?))));
    let out = strace.output().ok()?;
    let (_, stderr) = text(&out);
    if !out.status.success() && stderr.to_lowercase().contains("ptrace") {
        return None;
    }
    assert!(out.status.success(), "{stderr}");
    Some(std::fs::read_to_string(&log).unwrap())
}

#[test]
fn files_and_folders_are_synced_before_the_manifest_and_the_rename() {
    let base = tempfile::tempdir().unwrap();
    let Some(trace) = traced_prepare(base.path()) else {
        eprintln!("strace is missing or cannot trace here: skipping the check of the syncs");
        return;
    };
    let data = base.path().join("data").canonicalize().unwrap();
    let partial = data.join(".ml-20m.partial").display().to_string();
    let at = |what: &str| trace.lines().position(|l| l.contains(what)).unwrap_or_else(|| panic!("{what}:\n{trace}"));
    // `fsync(5</path>) = 0`: the last sync of `path`.
    let synced = |path: &str| {
        let call = format!("<{path}>)");
        trace
            .lines()
            .collect::<Vec<_>>()
            .iter()
            .rposition(|l| l.contains(&call))
            .unwrap_or_else(|| panic!("{path} synced:\n{trace}"))
    };
    let file_synced = synced(&format!("{partial}/.ratings.csv.tmp"));
    let file_renamed = at(".ratings.csv.tmp\"");
    let manifest_synced = synced(&format!("{partial}/mlb-prepare.json"));
    let folder_synced = synced(&partial);
    let set_renamed = at("\"ml-20m\"");
    let data_synced = synced(&data.display().to_string());
    assert!(file_synced < file_renamed, "the file synced before its rename:\n{trace}");
    assert!(file_renamed < manifest_synced && manifest_synced < folder_synced, "{trace}");
    assert!(folder_synced < set_renamed && set_renamed < data_synced, "{trace}");
}
