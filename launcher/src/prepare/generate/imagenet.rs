//! The fake ImageNet: `train/<wnid>/<wnid>_<n>.JPEG`, one folder per class
//! (sorted, so the folder order is the class order), photographs of about
//! 500x375, and the held-out split `val/<wnid>/ILSVRC2012_val_<8 digits>.JPEG`
//! (ImageNet's validation images sorted into class folders, as its
//! `valprep.sh` leaves them and `ImageFolder` reads them). Full: 1000 classes
//! of 256 training images (256,000 images, as the original's
//! `fake_imagenet.py`: batch 256 x 100 batches x 10 epochs) and 50
//! validation images each (as ImageNet's); small: 10 classes of 8 and 4.

use super::picture::photo;
use super::rng::stream;
use super::{FileSpec, Generator};
use crate::prepare::catalog::Scale;

/// The fake ImageNet at one scale and seed.
#[derive(Debug)]
pub struct FakeImageNet {
    classes: usize,
    per_class: usize,
    /// Held-out images per class.
    val_per_class: usize,
    seed: u64,
}

impl FakeImageNet {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (classes, per_class, val_per_class) = match scale {
            Scale::Small => (10, 8, 4),
            Scale::Full => (1000, 256, 50),
        };
        FakeImageNet { classes, per_class, val_per_class, seed }
    }
}

/// A WordNet-like id for class `class` (`n01000000`, `n01000017`, ...: sorted as the classes).
fn wnid(class: usize) -> String {
    format!("n{:08}", 1_000_000 + class * 17)
}

impl Generator for FakeImageNet {
    fn files(&self) -> Vec<FileSpec> {
        let train = (0..self.classes).flat_map(|c| {
            (0..self.per_class).map(move |n| FileSpec::new(format!("train/{0}/{0}_{n}.JPEG", wnid(c)), 1))
        });
        let val = (0..self.classes).flat_map(|c| {
            (0..self.val_per_class).map(move |n| {
                let number = c * self.val_per_class + n + 1;
                FileSpec::new(format!("val/{}/ILSVRC2012_val_{number:08}.JPEG", wnid(c)), 1)
            })
        });
        train.chain(val).collect()
    }

    fn chunk(&self, file: usize, _chunk: usize) -> Vec<u8> {
        photo(&mut stream(self.seed, "ImageNet", file as u64, 0), 400..=600)
    }
}
