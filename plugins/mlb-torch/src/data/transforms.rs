//! Image transforms of the suite's pipelines, as torchvision defines them:
//! random resized crop, horizontal flip, resize + center crop, tensor layout
//! with normalisation, and the luma (Y) channel.

use image::imageops::{self, FilterType};
use image::RgbImage;
use rand::Rng;

/// ImageNet channel means (torchvision's `Normalize` in the suite).
pub const IMAGENET_MEAN: [f32; 3] = [0.485, 0.456, 0.406];
/// ImageNet channel standard deviations.
pub const IMAGENET_STD: [f32; 3] = [0.229, 0.224, 0.225];

/// `RandomResizedCrop(size)`: a crop of random area (8% to 100%) and aspect
/// ratio (3/4 to 4/3), resized to `size x size` (bilinear). After 10 failed
/// draws, the central crop of the nearest allowed ratio.
pub fn random_resized_crop(img: &RgbImage, size: u32, rng: &mut impl Rng) -> RgbImage {
    let (w, h) = img.dimensions();
    let area = (w * h) as f64;
    let (lo, hi) = ((3.0f64 / 4.0).ln(), (4.0f64 / 3.0).ln());
    for _ in 0..10 {
        let target = area * rng.random_range(0.08..=1.0);
        let ratio = rng.random_range(lo..=hi).exp();
        let cw = (target * ratio).sqrt().round() as u32;
        let ch = (target / ratio).sqrt().round() as u32;
        if cw > 0 && ch > 0 && cw <= w && ch <= h {
            let x = rng.random_range(0..=w - cw);
            let y = rng.random_range(0..=h - ch);
            let crop = imageops::crop_imm(img, x, y, cw, ch).to_image();
            return imageops::resize(&crop, size, size, FilterType::Triangle);
        }
    }
    let ratio = w as f64 / h as f64;
    let (cw, ch) = if ratio < 3.0 / 4.0 {
        (w, ((w as f64) / (3.0 / 4.0)).round() as u32)
    } else if ratio > 4.0 / 3.0 {
        (((h as f64) * (4.0 / 3.0)).round() as u32, h)
    } else {
        (w, h)
    };
    let crop = imageops::crop_imm(img, (w - cw.min(w)) / 2, (h - ch.min(h)) / 2, cw.min(w), ch.min(h)).to_image();
    imageops::resize(&crop, size, size, FilterType::Triangle)
}

/// `RandomHorizontalFlip()`: mirrors the image with probability 1/2.
pub fn random_flip(img: &mut RgbImage, rng: &mut impl Rng) {
    if rng.random_bool(0.5) {
        imageops::flip_horizontal_in_place(img);
    }
}

/// `Resize(size)` of the shorter side then `CenterCrop(size)`.
pub fn resize_center_crop(img: &RgbImage, size: u32) -> RgbImage {
    let (w, h) = img.dimensions();
    let scale = size as f64 / w.min(h) as f64;
    let (nw, nh) = (((w as f64 * scale).round() as u32).max(size), ((h as f64 * scale).round() as u32).max(size));
    let resized = imageops::resize(img, nw, nh, FilterType::Triangle);
    imageops::crop_imm(&resized, (nw - size) / 2, (nh - size) / 2, size, size).to_image()
}

/// `CenterCrop(size)` without resizing (the image must be at least that large;
/// a smaller one is first scaled up).
pub fn center_crop(img: &RgbImage, size: u32) -> RgbImage {
    let (w, h) = img.dimensions();
    if w < size || h < size {
        return resize_center_crop(img, size);
    }
    imageops::crop_imm(img, (w - size) / 2, (h - size) / 2, size, size).to_image()
}

/// `ToTensor()` + `Normalize(mean, std)`: appends the image as planar
/// channel-height-width floats, `(x / 255 - mean) / std`.
pub fn push_chw(img: &RgbImage, mean: [f32; 3], std: [f32; 3], out: &mut Vec<f32>) {
    let (w, h) = img.dimensions();
    let plane = (w * h) as usize;
    let start = out.len();
    out.resize(start + 3 * plane, 0.0);
    let planes = &mut out[start..];
    for (i, px) in img.pixels().enumerate() {
        for c in 0..3 {
            planes[c * plane + i] = (px.0[c] as f32 / 255.0 - mean[c]) / std[c];
        }
    }
}

/// The luma channel (ITU-R 601, as PIL's `YCbCr` conversion) in [0, 1],
/// appended row-major.
pub fn push_luma(img: &RgbImage, out: &mut Vec<f32>) {
    out.extend(img.pixels().map(|p| {
        let [r, g, b] = p.0;
        (0.299 * r as f32 + 0.587 * g as f32 + 0.114 * b as f32) / 255.0
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn gradient(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 128]))
    }

    #[test]
    fn crops_have_the_requested_size() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let img = gradient(500, 375);
        for _ in 0..20 {
            assert_eq!(random_resized_crop(&img, 224, &mut rng).dimensions(), (224, 224));
        }
        assert_eq!(resize_center_crop(&img, 64).dimensions(), (64, 64));
        assert_eq!(center_crop(&img, 256).dimensions(), (256, 256));
        assert_eq!(center_crop(&gradient(100, 80), 256).dimensions(), (256, 256));
    }

    #[test]
    fn tensor_layout_is_planar_and_normalised() {
        let img = RgbImage::from_fn(2, 1, |x, _| image::Rgb([if x == 0 { 255 } else { 0 }, 0, 51]));
        let mut out = vec![9.0];
        push_chw(&img, [0.0; 3], [1.0; 3], &mut out);
        assert_eq!(out, [9.0, 1.0, 0.0, 0.0, 0.0, 0.2, 0.2]);
        let mut y = Vec::new();
        push_luma(&img, &mut y);
        assert!((y[0] - (0.299 + 0.114 * 0.2)).abs() < 1e-6);
    }

    #[test]
    fn flips_mirror_rows() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let base = gradient(4, 1);
        let flipped = (0..20).any(|_| {
            let mut img = base.clone();
            random_flip(&mut img, &mut rng);
            img.get_pixel(0, 0).0[0] == 3
        });
        assert!(flipped, "20 draws never flipped");
    }
}
