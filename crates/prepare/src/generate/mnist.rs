//! MNIST's idx files, uncompressed, as the download scripts leave them:
//! `train-images-idx3-ubyte` (magic 0x803, count, 28, 28, then pixels),
//! `train-labels-idx1-ubyte` (magic 0x801, count, then labels) and the same
//! for `t10k`. Each image is its label drawn as a slanted seven-segment digit
//! with pen strokes of varying thickness, centred in a 20x20 box as MNIST's
//! are. Full: 60,000 training and 10,000 test images; small: 1,000 and 100.

use super::rng::stream;
use super::{chunk_range, chunks_of, FileSpec, Generator};
use crate::scale::Scale;
use rand::Rng;

/// Side of an image, pixels.
pub const SIDE: usize = 28;
const IMAGES_MAGIC: u32 = 0x0803;
const LABELS_MAGIC: u32 = 0x0801;
const PER_CHUNK: usize = 2_000;

/// MNIST at one scale and seed.
#[derive(Debug)]
pub struct Mnist {
    train: usize,
    test: usize,
    seed: u64,
}

impl Mnist {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (train, test) = match scale {
            Scale::Small => (1_000, 100),
            Scale::Full => (60_000, 10_000),
        };
        Mnist { train, test, seed }
    }

    /// (file name, split name, images or labels, count) of file `file`.
    fn layout(&self, file: usize) -> (&'static str, &'static str, bool, usize) {
        [
            ("train-images-idx3-ubyte", "train", true, self.train),
            ("train-labels-idx1-ubyte", "train", false, self.train),
            ("t10k-images-idx3-ubyte", "t10k", true, self.test),
            ("t10k-labels-idx1-ubyte", "t10k", false, self.test),
        ][file]
    }
}

/// Segments of a seven-segment digit, as pairs of corners of a 0..1 x 0..2 box.
const SEGMENTS: [((f32, f32), (f32, f32)); 7] = [
    ((0.0, 0.0), (1.0, 0.0)), // top
    ((1.0, 0.0), (1.0, 1.0)), // top right
    ((1.0, 1.0), (1.0, 2.0)), // bottom right
    ((0.0, 2.0), (1.0, 2.0)), // bottom
    ((0.0, 1.0), (0.0, 2.0)), // bottom left
    ((0.0, 0.0), (0.0, 1.0)), // top left
    ((0.0, 1.0), (1.0, 1.0)), // middle
];

/// Segments lit per digit (bit i: segment i).
const DIGITS: [u8; 10] = [0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f];

/// The pixels of digit `label`, drawn with `rng`'s slant, size and pen.
fn draw(label: u8, rng: &mut impl Rng) -> [u8; SIDE * SIDE] {
    let slant = rng.random_range(-0.25..0.25f32);
    let (width, height) = (rng.random_range(6.0..11.0f32), rng.random_range(7.0..9.5f32));
    let pen = rng.random_range(1.0..2.2f32);
    let jitter: Vec<f32> = (0..14).map(|_| rng.random_range(-0.6..0.6)).collect();
    let corner = |(x, y): (f32, f32), j: usize| {
        let py = 14.0 + (y - 1.0) * height + jitter[j];
        (14.0 + (x - 0.5) * width - (py - 14.0) * slant + jitter[j + 7], py)
    };
    let strokes: Vec<((f32, f32), (f32, f32))> = SEGMENTS
        .iter()
        .enumerate()
        .filter(|(i, _)| DIGITS[label as usize] & (1 << i) != 0)
        .map(|(i, &(a, b))| (corner(a, i), corner(b, (i + 3) % 7)))
        .collect();
    let mut out = [0u8; SIDE * SIDE];
    for (i, pixel) in out.iter_mut().enumerate() {
        let p = ((i % SIDE) as f32 + 0.5, (i / SIDE) as f32 + 0.5);
        let d = strokes.iter().map(|&(a, b)| distance(p, a, b)).fold(f32::INFINITY, f32::min);
        *pixel = ((pen + 0.5 - d).clamp(0.0, 1.0) * 255.0) as u8;
    }
    out
}

/// Distance from `p` to the segment `a`-`b`.
fn distance(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / (dx * dx + dy * dy).max(1e-6)).clamp(0.0, 1.0);
    ((p.0 - a.0 - t * dx).powi(2) + (p.1 - a.1 - t * dy).powi(2)).sqrt()
}

impl Generator for Mnist {
    fn files(&self) -> Vec<FileSpec> {
        (0..4)
            .map(|f| {
                let (name, _, _, count) = self.layout(f);
                FileSpec::new(name, chunks_of(count, PER_CHUNK))
            })
            .collect()
    }

    fn chunk(&self, file: usize, chunk: usize) -> Vec<u8> {
        let (_, _, images, count) = self.layout(file);
        let mut out = Vec::new();
        if chunk == 0 {
            let header: &[u32] = if images {
                &[IMAGES_MAGIC, count as u32, SIDE as u32, SIDE as u32]
            } else {
                &[LABELS_MAGIC, count as u32]
            };
            out.extend(header.iter().flat_map(|w| w.to_be_bytes()));
        }
        out.extend(self.records(file, chunk));
        out
    }
}

impl Mnist {
    /// The number of images (or labels) of file `file`.
    pub fn count(&self, file: usize) -> usize {
        self.layout(file).3
    }

    /// Chunk `chunk` of file `file` without the idx header: the pixels of
    /// its images, or their labels, one byte each.
    pub fn records(&self, file: usize, chunk: usize) -> Vec<u8> {
        let (_, split, images, count) = self.layout(file);
        let mut out = Vec::new();
        // The images and labels files of a split draw from the same streams.
        let mut rng = stream(self.seed, split, chunk as u64, 0);
        for _ in chunk_range(chunk, PER_CHUNK, count) {
            let label = rng.random_range(0..10u8);
            let pixels = draw(label, &mut rng);
            if images {
                out.extend_from_slice(&pixels);
            } else {
                out.push(label);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_centred_strokes_and_differ_by_label() {
        let mut rng = stream(0, "test", 0, 0);
        let one = draw(1, &mut rng);
        let eight = draw(8, &mut rng);
        let ink = |d: &[u8]| d.iter().filter(|&&p| p > 128).count();
        assert!(ink(&eight) > ink(&one) && ink(&one) > 10, "{} {}", ink(&eight), ink(&one));
        let border = |d: &[u8]| (0..SIDE).map(|i| d[i] as u32 + d[(SIDE - 1) * SIDE + i] as u32).sum::<u32>();
        assert_eq!(border(&eight), 0, "the first and last rows stay blank");
    }

    #[test]
    fn the_held_out_digits_are_nearest_to_their_own_class_mean() {
        // A nearest-class-mean classifier of the pixels, fitted on the
        // training split, scored on the held-out t10k split.
        let m = Mnist::new(Scale::Small, 0);
        let (images, labels) = (m.records(0, 0), m.records(1, 0));
        let mut means = vec![[0.0f64; SIDE * SIDE]; 10];
        let mut counts = [0.0; 10];
        for (pixels, &label) in images.chunks(SIDE * SIDE).zip(&labels) {
            counts[label as usize] += 1.0;
            means[label as usize].iter_mut().zip(pixels).for_each(|(m, &p)| *m += f64::from(p));
        }
        means.iter_mut().zip(counts).for_each(|(mean, n)| mean.iter_mut().for_each(|m| *m /= n));
        let (test_images, test_labels) = (m.records(2, 0), m.records(3, 0));
        let right = test_images
            .chunks(SIDE * SIDE)
            .zip(&test_labels)
            .filter(|(pixels, &label)| {
                let distance = |mean: &[f64; SIDE * SIDE]| -> f64 {
                    mean.iter().zip(pixels.iter()).map(|(m, &p)| (m - f64::from(p)).powi(2)).sum()
                };
                let nearest = (0..10).min_by(|&a, &b| distance(&means[a]).total_cmp(&distance(&means[b])));
                nearest == Some(label as usize)
            })
            .count();
        assert!(right >= 85, "{right} of 100 held-out digits told apart (chance: 10)");
    }
}
