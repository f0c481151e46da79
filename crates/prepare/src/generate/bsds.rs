//! BSDS500-style photographs: `images/{train,val,test}/<id>.jpg`, 481x321 or
//! 321x481 as the Berkeley segmentation set. Full: 200, 100 and 200 images;
//! small: 16, 4 and 4.

use super::picture::{jpeg, render, Shape};
use super::rng::stream;
use super::{FileSpec, Generator};
use crate::scale::Scale;
use rand::Rng;

/// BSDS500 at one scale and seed.
#[derive(Debug)]
pub struct Bsds500 {
    splits: [(&'static str, usize); 3],
    seed: u64,
}

impl Bsds500 {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let splits = match scale {
            Scale::Small => [("train", 16), ("val", 4), ("test", 4)],
            Scale::Full => [("train", 200), ("val", 100), ("test", 200)],
        };
        Bsds500 { splits, seed }
    }
}

impl Generator for Bsds500 {
    fn files(&self) -> Vec<FileSpec> {
        let mut id = 0;
        let mut out = Vec::new();
        for (split, count) in self.splits {
            for _ in 0..count {
                // Six-digit ids spread like the set's (2092.jpg, 100075.jpg, ...).
                out.push(FileSpec::new(format!("images/{split}/{}.jpg", 100_007 + id * 1_093), 1));
                id += 1;
            }
        }
        out
    }

    fn chunk(&self, file: usize, _chunk: usize) -> Vec<u8> {
        let mut rng = stream(self.seed, "BSDS500", file as u64, 0);
        let (w, h) = if rng.random_bool(0.7) { (481, 321) } else { (321, 481) };
        let shapes: Vec<Shape> = (0..rng.random_range(3..10)).map(|_| Shape::random(&mut rng, w, h)).collect();
        jpeg(&render(&mut rng, w, h, &shapes))
    }
}
