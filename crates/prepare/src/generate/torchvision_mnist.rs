//! MNIST where torchvision's `datasets.MNIST(root)` finds it, root being the
//! data set's folder (the original suite's vae: `$DATA_DIRECTORY/mnist`):
//!
//! - `MNIST/raw/` and the four idx files: what torchvision reads since it
//!   stopped keeping processed files;
//! - `MNIST/processed/training.pt` and `test.pt`: `(images, labels)`, uint8
//!   N x 28 x 28 and int64 N tensors as `torch.save` wrote them: what the
//!   torchvision of the original's PyTorch 1.3 looked for, and what recent
//!   releases still read first when they are there.
//!
//! Both hold the digits of the `MNIST` set ([`Mnist`]) for the same seed.

use super::mnist::{Mnist, SIDE};
use super::torch_save::{storage_head, tensor_tuple_head, Element, Tensor};
use super::{FileSpec, Generator};
use crate::scale::Scale;
use std::path::Path;

/// The folder of the idx files.
const RAW: &str = "MNIST/raw";
/// The processed files, each with the index of its images' idx file in
/// [`Mnist`] (its labels' is the next).
const PROCESSED: [(&str, usize); 2] = [("MNIST/processed/training.pt", 0), ("MNIST/processed/test.pt", 2)];

/// torchvision's MNIST folder at one scale and seed.
#[derive(Debug)]
pub struct TorchvisionMnist {
    mnist: Mnist,
}

impl TorchvisionMnist {
    /// Its sizes at `scale` (those of [`Mnist`]).
    pub fn new(scale: Scale, seed: u64) -> Self {
        TorchvisionMnist { mnist: Mnist::new(scale, seed) }
    }

    /// A processed file: the pickles, then the images' chunks, then the labels.
    fn processed(&self, images: usize, chunk: usize) -> Vec<u8> {
        let count = self.mnist.count(images);
        let image_chunks = self.mnist.files()[images].chunks;
        if chunk == 0 {
            return tensor_tuple_head(&[
                Tensor { element: Element::U8, shape: vec![count, SIDE, SIDE] },
                Tensor { element: Element::I64, shape: vec![count] },
            ]);
        }
        if chunk <= image_chunks {
            return self.mnist.records(images, chunk - 1);
        }
        let mut out = storage_head(count);
        for part in 0..image_chunks {
            out.extend(self.mnist.records(images + 1, part).into_iter().flat_map(|l| i64::from(l).to_le_bytes()));
        }
        out
    }
}

impl Generator for TorchvisionMnist {
    fn files(&self) -> Vec<FileSpec> {
        let idx = self.mnist.files();
        let raw = idx.iter().map(|f| FileSpec { path: Path::new(RAW).join(&f.path), chunks: f.chunks });
        let processed = PROCESSED.iter().map(|&(path, images)| FileSpec::new(path, idx[images].chunks + 2));
        raw.chain(processed).collect()
    }

    fn chunk(&self, file: usize, chunk: usize) -> Vec<u8> {
        match file.checked_sub(4) {
            None => self.mnist.chunk(file, chunk),
            Some(p) => self.processed(PROCESSED[p].1, chunk),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_processed_files_hold_the_raw_files_digits() {
        let t = TorchvisionMnist::new(Scale::Small, 3);
        let files = t.files();
        let whole = |f: usize| -> Vec<u8> { (0..files[f].chunks).flat_map(|c| t.chunk(f, c)).collect() };
        assert_eq!(files[0].path, Path::new("MNIST/raw/train-images-idx3-ubyte"));
        assert_eq!(files[5].path, Path::new("MNIST/processed/test.pt"));
        let (raw_images, raw_labels, test) = (whole(2), whole(3), whole(5));
        let (pixels, labels) = (&raw_images[16..], &raw_labels[8..]);
        assert_eq!(labels.len(), 100);
        // The pickles and the first storage's count, the pixels, then the labels as int64.
        let head = t.chunk(5, 0);
        assert!(head.ends_with(&(100u64 * 784).to_le_bytes()));
        assert_eq!(&test[head.len()..head.len() + pixels.len()], pixels);
        let tail = &test[head.len() + pixels.len()..];
        assert_eq!(&tail[..8], &100u64.to_le_bytes());
        let longs: Vec<u8> =
            tail[8..].chunks(8).map(|l| u8::try_from(i64::from_le_bytes(l.try_into().unwrap())).unwrap()).collect();
        assert_eq!(longs, labels);
    }
}
