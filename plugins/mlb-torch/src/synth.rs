//! Synthetic data with the shapes of the real data sets, for when a data
//! folder is absent (no data set can be downloaded on benchmark hosts).

use image::{codecs::jpeg::JpegEncoder, Rgb, RgbImage};
use rand::Rng;
use tch::{Device, Kind, Tensor};

/// The seed of a held-out synthetic set drawn as the training set of
/// `seed` is: another stream, so that an evaluation never sees a training
/// item.
pub fn held_out_seed(seed: u64) -> u64 {
    seed ^ 0x4845_4c44_5f4f_5554 // "HELD_OUT"
}

/// Side of an MNIST image.
pub const DIGIT_SIDE: usize = 28;

/// `count` 28x28 grey images that look like handwriting: two to four thick
/// strokes each, bytes 0..=255 (the MNIST idx layout).
pub fn digits(count: usize, rng: &mut impl Rng) -> Vec<u8> {
    let side = DIGIT_SIDE as f32;
    let mut pixels = vec![0u8; count * DIGIT_SIDE * DIGIT_SIDE];
    for image in pixels.chunks_mut(DIGIT_SIDE * DIGIT_SIDE) {
        for _ in 0..rng.random_range(2..=4) {
            let mut point = || (rng.random_range(4.0..side - 4.0), rng.random_range(4.0..side - 4.0));
            let ((x0, y0), (x1, y1)) = (point(), point());
            for (i, px) in image.iter_mut().enumerate() {
                let (x, y) = ((i % DIGIT_SIDE) as f32, (i / DIGIT_SIDE) as f32);
                let d = segment_distance((x, y), (x0, y0), (x1, y1));
                let ink = (255.0 * (1.0 - (d - 1.0).max(0.0) / 1.5)).clamp(0.0, 255.0) as u8;
                *px = (*px).max(ink);
            }
        }
    }
    pixels
}

fn segment_distance(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = (dx * dx + dy * dy).max(1e-6);
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0);
    ((p.0 - a.0 - t * dx).powi(2) + (p.1 - a.1 - t * dy).powi(2)).sqrt()
}

/// toy_lstm's data, as the original generated it: `series` sine waves of
/// `length` samples, `sin((t + offset) / period)` with an integer offset
/// drawn from `[-4 period, 4 period)`; row-major `series x length`.
pub fn sine_waves(series: usize, length: usize, period: f64, rng: &mut impl Rng) -> Vec<f64> {
    let spread = (4.0 * period) as i64;
    let mut out = Vec::with_capacity(series * length);
    for _ in 0..series {
        let offset = rng.random_range(-spread..spread);
        out.extend((0..length).map(|t| ((t as i64 + offset) as f64 / period).sin()));
    }
    out
}

/// `count` token indices below `vocab` with Zipf frequencies (rank r has
/// weight 1/(r+1)), like the words of a natural-language corpus. Drawn from
/// libtorch's generator, so the runtime's seed fixes them.
pub fn zipf_tokens(count: i64, vocab: i64, device: Device) -> Tensor {
    let weights = (Tensor::arange(vocab, (Kind::Float, device)) + 1.0).reciprocal();
    weights.multinomial(count, true)
}

/// As [`zipf_tokens`], drawn on the host from `rng` (libtorch's generator
/// untouched): a held-out stream of the same distribution.
pub fn zipf_tokens_from(count: usize, vocab: i64, rng: &mut impl Rng) -> Vec<i64> {
    let weights: Vec<f64> = (0..vocab).map(|r| 1.0 / (r + 1) as f64).collect();
    let dist = rand::distr::weighted::WeightedIndex::new(&weights).expect("positive weights");
    (0..count).map(|_| rng.sample(&dist) as i64).collect()
}

/// A smooth RGB picture (colour gradients plus a few discs), so that JPEG
/// decoding does work representative of photographs.
pub fn picture(width: u32, height: u32, rng: &mut impl Rng) -> RgbImage {
    let base: [f32; 3] = [rng.random(), rng.random(), rng.random()];
    let discs: Vec<(f32, f32, f32, [u8; 3])> = (0..6)
        .map(|_| {
            let r = rng.random_range(0.05..0.3) * width.min(height) as f32;
            (rng.random_range(0.0..width as f32), rng.random_range(0.0..height as f32), r, rng.random())
        })
        .collect();
    RgbImage::from_fn(width, height, |x, y| {
        let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
        let mut px = [
            (255.0 * (base[0] * (1.0 - fx) + fx * 0.5)) as u8,
            (255.0 * (base[1] * (1.0 - fy) + fy * 0.5)) as u8,
            (255.0 * base[2]) as u8,
        ];
        for &(cx, cy, r, colour) in &discs {
            if (x as f32 - cx).powi(2) + (y as f32 - cy).powi(2) < r * r {
                px = colour;
            }
        }
        Rgb(px)
    })
}

/// `count` JPEG-encoded pictures of `width x height` (quality 90).
pub fn jpegs(count: usize, width: u32, height: u32, rng: &mut impl Rng) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            let mut bytes = Vec::new();
            JpegEncoder::new_with_quality(&mut bytes, 90)
                .encode_image(&picture(width, height, rng))
                .expect("encoding an in-memory RGB image as JPEG");
            bytes
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn digits_have_ink_and_background() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let d = digits(3, &mut rng);
        assert_eq!(d.len(), 3 * 784);
        for img in d.chunks(784) {
            let ink = img.iter().filter(|&&p| p > 128).count();
            assert!(ink > 10 && ink < 600, "ink pixels: {ink}");
        }
    }

    #[test]
    fn sine_waves_follow_the_formula() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let w = sine_waves(4, 50, 20.0, &mut rng);
        assert_eq!(w.len(), 200);
        for wave in w.chunks(50) {
            let fits = |offset: i64| {
                wave.iter().enumerate().all(|(t, v)| (v - ((t as i64 + offset) as f64 / 20.0).sin()).abs() < 1e-12)
            };
            assert!((-80..80).any(fits), "not a sine wave of period 20 with an offset in [-80, 80)");
        }
    }

    #[test]
    fn zipf_tokens_favour_low_ranks() {
        tch::manual_seed(0);
        let t = zipf_tokens(20_000, 1000, Device::Cpu);
        assert_eq!(t.size(), [20_000]);
        let first = t.eq(0).sum(Kind::Int64).int64_value(&[]);
        let last = t.eq(999).sum(Kind::Int64).int64_value(&[]);
        assert!(first > 100 * last.max(1) / 10 && first > 1000, "rank 0: {first}, rank 999: {last}");
        assert!(t.max().int64_value(&[]) < 1000);
    }

    #[test]
    fn jpegs_decode_to_their_size() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        let j = jpegs(2, 64, 48, &mut rng);
        let img = crate::data::image_folder::decode_bytes(&j[1]).unwrap();
        assert_eq!(img.dimensions(), (64, 48));
    }
}
