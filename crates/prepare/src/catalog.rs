//! The data sets `mlb prepare` writes: their folders under `$BASE/data`, the
//! jobs that read them without naming them, and their generators. Besides
//! the layouts mlb's workloads read, three sets put the same kind of data
//! where the original suite's scripts open it (`mnist`, `bsds500`,
//! `time_series_prediction`: docs/data.md, "The original suite's jobs").

use super::generate::{
    bsds, coco, imagenet, mnist, movielens, sine, torchvision_mnist, wikitext, wmt16, Generator, Under,
};
use super::scale::Scale;

/// A data set, in the layout its workloads' loaders read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DataSet {
    /// The fake ImageNet: `ImageNet/train/<class>/<image>.JPEG`, held out `ImageNet/val/<class>/<image>.JPEG`.
    ImageNet,
    /// MNIST idx files: `MNIST/train-images-idx3-ubyte`, labels, `t10k-*`.
    Mnist,
    /// BSDS500-style photographs: `BSDS500/images/{train,val,test}/<id>.jpg`.
    Bsds500,
    /// wikitext-2-style text: `wikitext-2/{train,valid,test}.txt`.
    Wikitext2,
    /// WMT16 English-German after BPE: `wmt16/vocab.bpe.32000`, `train.tok.clean.bpe.32000.{en,de}`,
    /// held out `newstest2014.tok.bpe.32000.{en,de}`.
    Wmt16,
    /// COCO 2017: `coco/train2017/*.jpg`, `coco/annotations/instances_train2017.json`.
    Coco,
    /// MovieLens 20M: `ml-20m/ratings.csv`.
    MovieLens,
    /// MNIST where torchvision's `datasets.MNIST(root)` finds it, root being
    /// `$DATA_DIRECTORY/mnist`: `mnist/MNIST/raw/<the four idx files>` and
    /// `mnist/MNIST/processed/{training,test}.pt`.
    TorchvisionMnist,
    /// BSDS500 as its archive extracts: `bsds500/BSR/BSDS500/data/images/{train,val,test}/<id>.jpg`.
    Bsds500Archive,
    /// The sine waves of the time-sequence-prediction script: `time_series_prediction/traindata.pt`.
    SineWaves,
}

impl DataSet {
    /// Every data set, in the order they are prepared.
    pub const ALL: [DataSet; 10] = [
        DataSet::SineWaves,
        DataSet::Mnist,
        DataSet::TorchvisionMnist,
        DataSet::Wikitext2,
        DataSet::MovieLens,
        DataSet::Wmt16,
        DataSet::Bsds500,
        DataSet::Bsds500Archive,
        DataSet::Coco,
        DataSet::ImageNet,
    ];

    /// Its folder under `$BASE/data` (`$DATA_DIRECTORY`), as the jobs name it.
    pub fn folder(self) -> &'static str {
        match self {
            DataSet::ImageNet => "ImageNet",
            DataSet::Mnist => "MNIST",
            DataSet::Bsds500 => "BSDS500",
            DataSet::Wikitext2 => "wikitext-2",
            DataSet::Wmt16 => "wmt16",
            DataSet::Coco => "coco",
            DataSet::MovieLens => "ml-20m",
            DataSet::TorchvisionMnist => "mnist",
            DataSet::Bsds500Archive => "bsds500",
            DataSet::SineWaves => "time_series_prediction",
        }
    }

    /// Jobs of the original suite (`cmd` jobs, by name) that read the set
    /// although their arguments do not name its folder: their scripts open
    /// it under `$DATA_DIRECTORY` themselves. (wlm and wlmfp16 read the
    /// wikitext-2 the suite ships beside their scripts, nothing here.)
    pub fn original_readers(self) -> &'static [&'static str] {
        match self {
            DataSet::ImageNet => &["fast_style"],
            DataSet::TorchvisionMnist => &["vae"],
            DataSet::Bsds500Archive => &["reso"],
            DataSet::SineWaves => &["toy_lstm"],
            DataSet::Mnist
            | DataSet::Bsds500
            | DataSet::Wikitext2
            | DataSet::Wmt16
            | DataSet::Coco
            | DataSet::MovieLens => &[],
        }
    }

    /// The generator of the set at `scale`, for `seed`.
    pub fn generator(self, scale: Scale, seed: u64) -> Box<dyn Generator> {
        match self {
            DataSet::ImageNet => Box::new(imagenet::FakeImageNet::new(scale, seed)),
            DataSet::Mnist => Box::new(mnist::Mnist::new(scale, seed)),
            DataSet::Bsds500 => Box::new(bsds::Bsds500::new(scale, seed)),
            DataSet::Wikitext2 => Box::new(wikitext::Wikitext2::new(scale, seed)),
            DataSet::Wmt16 => Box::new(wmt16::Wmt16::new(scale, seed)),
            DataSet::Coco => Box::new(coco::Coco::new(scale, seed)),
            DataSet::MovieLens => Box::new(movielens::MovieLens::new(scale, seed)),
            DataSet::TorchvisionMnist => Box::new(torchvision_mnist::TorchvisionMnist::new(scale, seed)),
            DataSet::Bsds500Archive => {
                Box::new(Under { folder: "BSR/BSDS500/data", inner: Box::new(bsds::Bsds500::new(scale, seed)) })
            }
            DataSet::SineWaves => Box::new(sine::SineWaves::new(seed)),
        }
    }
}
