//! The real-format loaders, on small files the tests generate, and the
//! synthetic fallback when no data folder is given.

use crate::common::{image_classes, train, write_jpegs, Run};
use mlb_torch::data::corpus::{Corpus, EOS};
use mlb_torch::data::image_folder::ImageFolder;
use mlb_torch::data::mnist::{self, IdxImages};
use mlb_torch::workloads::{Convnet, Dcgan, Loader, Reso, Vae, Wlm};
use std::io::Write;

fn digits(count: usize) -> IdxImages {
    use rand::SeedableRng;
    let pixels = mlb_torch::synth::digits(count, &mut rand::rngs::StdRng::seed_from_u64(9));
    IdxImages { count, rows: 28, cols: 28, pixels }
}

#[test]
fn mnist_idx_files_read_back_raw_and_gzipped() {
    let dir = tempfile::tempdir().unwrap();
    let images = digits(5);
    let raw = dir.path().join("train-images-idx3-ubyte");
    std::fs::write(&raw, mnist::encode_images(&images)).unwrap();
    assert_eq!(mnist::find_train_images(dir.path()).unwrap(), raw);
    assert_eq!(mnist::read_images(&raw).unwrap(), images);

    let gz_dir = tempfile::tempdir().unwrap();
    let gz = gz_dir.path().join("train-images-idx3-ubyte.gz");
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::fast());
    enc.write_all(&mnist::encode_images(&images)).unwrap();
    enc.finish().unwrap();
    assert_eq!(mnist::read_images(&mnist::find_train_images(gz_dir.path()).unwrap()).unwrap(), images);

    let empty = tempfile::tempdir().unwrap();
    let e = mnist::find_train_images(empty.path()).unwrap_err().to_string();
    assert!(e.contains("train-images-idx3-ubyte") && e.contains(&empty.path().display().to_string()), "{e}");
}

#[test]
fn vae_trains_on_an_mnist_folder_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("train-images-idx3-ubyte"), mnist::encode_images(&digits(64))).unwrap();
    let config = format!(r#"{{"batch_size": 16, "data": "{}"}}"#, dir.path().display());
    let (losses, report) = train::<Vae>(&config, 3);
    assert_eq!(losses.len(), 3);
    assert_eq!(report["data"], dir.path().display().to_string());
}

#[test]
fn image_folders_list_classes_in_order_and_decode() {
    let root = tempfile::tempdir().unwrap();
    image_classes(root.path(), 3, 2);
    std::fs::write(root.path().join("n00000001/notes.txt"), "not an image").unwrap();
    let folder = ImageFolder::scan(root.path()).unwrap();
    assert_eq!(folder.classes(), ["n00000000", "n00000001", "n00000002"]);
    assert_eq!(folder.len(), 6);
    let (img, label) = folder.decode(5).unwrap();
    assert_eq!((img.dimensions(), label), ((96, 72), 2));

    let flat = tempfile::tempdir().unwrap();
    write_jpegs(flat.path(), 2, 40, 30, 1);
    assert_eq!(ImageFolder::scan(flat.path()).unwrap().classes().len(), 1);

    let broken = tempfile::tempdir().unwrap();
    std::fs::write(broken.path().join("bad.jpg"), b"not a jpeg").unwrap();
    let e = ImageFolder::scan(broken.path()).unwrap().decode(0).unwrap_err().to_string();
    assert!(e.contains("bad.jpg") && e.contains("decode"), "{e}");
    let e = ImageFolder::scan(tempfile::tempdir().unwrap().path()).unwrap_err().to_string();
    assert!(e.contains("class sub-folders"), "{e}");
}

#[test]
fn loader_decodes_a_folder_and_falls_back_to_synthetic_jpegs() {
    let root = tempfile::tempdir().unwrap();
    image_classes(root.path(), 2, 3);
    let config = format!(r#"{{"batch_size": 4, "workers": 2, "image_size": 32, "data": "{}"}}"#, root.path().display());
    let mut run = Run::<Loader>::new(&config);
    assert_eq!(run.step().items, 4);
    let report = run.report();
    assert_eq!(
        (report["data"].as_str().unwrap(), report["images"].as_u64()),
        (&*root.path().display().to_string(), Some(6))
    );

    let mut synthetic = Run::<Loader>::new(r#"{"batch_size": 3, "workers": 0, "image_size": 32}"#);
    assert_eq!(synthetic.step().items, 3);
    assert_eq!(synthetic.report()["data"], "synthetic");
}

#[test]
fn convnet_and_dcgan_train_on_an_image_folder() {
    let root = tempfile::tempdir().unwrap();
    image_classes(root.path(), 2, 4);
    let data = root.path().display().to_string();
    let config = format!(
        r#"{{"arch": "resnet18", "batch_size": 4, "image_size": 32, "classes": 2, "workers": 1, "data": "{data}"}}"#
    );
    let (losses, report) = train::<Convnet<false>>(&config, 2);
    assert!(losses.iter().all(|l| l.is_finite()));
    assert_eq!(report["data"], data);
    let config = format!(r#"{{"batch_size": 4, "nz": 8, "ngf": 4, "ndf": 4, "workers": 1, "dataroot": "{data}"}}"#);
    let (_, report) = train::<Dcgan>(&config, 2);
    assert_eq!(report["data"], data);
}

#[test]
fn reso_trains_on_a_flat_folder_of_photographs() {
    let dir = tempfile::tempdir().unwrap();
    write_jpegs(dir.path(), 3, 80, 60, 2);
    let config = format!(r#"{{"batch_size": 2, "crop_size": 32, "workers": 1, "data": "{}"}}"#, dir.path().display());
    let (losses, report) = train::<Reso>(&config, 2);
    assert!(losses.iter().all(|l| l.is_finite() && *l > 0.0));
    assert_eq!(report["data"], dir.path().display().to_string());
}

#[test]
fn word_corpora_load_in_both_layouts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("train.txt"), " = Valkyria Chronicles = \n\n the game began in 2010 .\n").unwrap();
    std::fs::write(dir.path().join("valid.txt"), " the series\n").unwrap();
    let corpus = Corpus::load(dir.path()).unwrap();
    assert_eq!(corpus.train.len(), 4 + 1 + 1 + 6 + 1);
    assert_eq!(corpus.dictionary.word(corpus.train[4]), Some(EOS));
    assert_eq!(corpus.dictionary.len(), 11, "train words, <eos> and `series` from valid.txt");

    let wiki = tempfile::tempdir().unwrap();
    std::fs::write(wiki.path().join("wiki.train.tokens"), "a b\n").unwrap();
    assert_eq!(Corpus::load(wiki.path()).unwrap().train.len(), 3);
    let e = Corpus::load(tempfile::tempdir().unwrap().path()).unwrap_err().to_string();
    assert!(e.contains("train.txt") && e.contains("wiki.train.tokens"), "{e}");
}

#[test]
fn wlm_trains_on_a_corpus_folder() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..400).map(|i| format!("w{} w{} w{}\n", i % 7, i % 5, i % 3)).collect();
    std::fs::write(dir.path().join("train.txt"), text).unwrap();
    let config =
        format!(r#"{{"batch_size": 4, "bptt": 8, "emsize": 16, "nhid": 16, "data": "{}"}}"#, dir.path().display());
    let (losses, report) = train::<Wlm<false>>(&config, 3);
    assert!(losses.iter().all(|l| l.is_finite()));
    assert_eq!(report["vocab"], 8, "w0..w6 and <eos>");
    assert_eq!(report["data"], dir.path().display().to_string());
}

#[test]
fn a_missing_data_folder_means_synthetic_data_in_the_report() {
    let config = r#"{"batch_size": 8, "data": "/nonexistent/mnist"}"#;
    let (_, report) = train::<Vae>(config, 1);
    assert_eq!(report["data"], "synthetic");
    assert_eq!(report["data_missing"], "/nonexistent/mnist");
}
