//! Photograph-like pictures: a smooth background of a few colours, shaded
//! objects (rectangles and ellipses) and sensor-like noise, encoded as JPEG.
//! The noise and shading keep the files about the size of real photographs
//! of the same dimensions (tens of KB at 500x375) instead of compressing to
//! nothing.

use image::codecs::jpeg::JpegEncoder;
use image::RgbImage;
use rand::Rng;

/// JPEG quality of every picture (as photographs straight from a camera).
pub const QUALITY: u8 = 90;

/// Amplitude of the per-pixel noise (+-, in 0..255 units).
const NOISE: i32 = 10;

/// An object painted on a picture; its box is what annotations give.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Left edge, pixels.
    pub x: f32,
    /// Top edge, pixels.
    pub y: f32,
    /// Width, pixels.
    pub w: f32,
    /// Height, pixels.
    pub h: f32,
    /// Base colour.
    pub color: [u8; 3],
    /// An ellipse inscribed in the box, or the whole box.
    pub ellipse: bool,
}

impl Shape {
    /// A random object inside a `width x height` picture, between 5 % and 60 % of its sides.
    pub fn random(rng: &mut impl Rng, width: u32, height: u32) -> Shape {
        let (fw, fh) = (width as f32, height as f32);
        let w = fw * rng.random_range(0.05..0.6);
        let h = fh * rng.random_range(0.05..0.6);
        Shape {
            x: rng.random_range(0.0..fw - w),
            y: rng.random_range(0.0..fh - h),
            w,
            h,
            color: rng.random(),
            ellipse: rng.random_bool(0.5),
        }
    }

    fn covers(&self, px: f32, py: f32) -> bool {
        let (u, v) = ((px - self.x) / self.w, (py - self.y) / self.h);
        if !(0.0..1.0).contains(&u) || !(0.0..1.0).contains(&v) {
            return false;
        }
        !self.ellipse || (u - 0.5).powi(2) + (v - 0.5).powi(2) <= 0.25
    }
}

/// Paints a `width x height` picture of `shapes` (later ones on top) over a
/// smooth background; `rng` gives the background and the noise.
pub fn render(rng: &mut impl Rng, width: u32, height: u32, shapes: &[Shape]) -> RgbImage {
    // A 4x3 grid of colours, interpolated bilinearly.
    let grid: Vec<[f32; 3]> = (0..12).map(|_| rng.random::<[u8; 3]>().map(f32::from)).collect();
    let mut image = RgbImage::new(width, height);
    let mut noise = [0u8; 4];
    for (py, row) in image.rows_mut().enumerate() {
        let gy = py as f32 / height.max(2) as f32 * 2.0;
        let (iy, fy) = ((gy as usize).min(1), gy - (gy as usize).min(1) as f32);
        for (px, pixel) in row.enumerate() {
            let gx = px as f32 / width.max(2) as f32 * 3.0;
            let (ix, fx) = ((gx as usize).min(2), gx - (gx as usize).min(2) as f32);
            let at = |x: usize, y: usize| grid[y * 4 + x];
            let (c00, c10, c01, c11) = (at(ix, iy), at(ix + 1, iy), at(ix, iy + 1), at(ix + 1, iy + 1));
            let mut rgb: [f32; 3] = std::array::from_fn(|c| {
                let top = c00[c] + (c10[c] - c00[c]) * fx;
                let bottom = c01[c] + (c11[c] - c01[c]) * fx;
                top + (bottom - top) * fy
            });
            let (fx, fy) = (px as f32 + 0.5, py as f32 + 0.5);
            if let Some(s) = shapes.iter().rev().find(|s| s.covers(fx, fy)) {
                // Lit from the top left.
                let shade = 1.15 - 0.4 * ((fx - s.x) / s.w + (fy - s.y) / s.h) / 2.0;
                rgb = s.color.map(|c| f32::from(c) * shade);
            }
            rng.fill(&mut noise);
            for c in 0..3 {
                let n = i32::from(noise[c]) * (2 * NOISE + 1) / 256 - NOISE;
                pixel.0[c] = (rgb[c] as i32 + n).clamp(0, 255) as u8;
            }
        }
    }
    image
}

/// `image` as a JPEG file of [`QUALITY`].
pub fn jpeg(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, QUALITY).encode_image(image).expect("encoding to memory cannot fail");
    out
}

/// A photograph of about `long` pixels on its long side (landscape three
/// times in four, aspect 4:3 to 3:2), with 2 to 7 objects, as JPEG.
pub fn photo(rng: &mut impl Rng, long: std::ops::RangeInclusive<u32>) -> Vec<u8> {
    let l = rng.random_range(long);
    let s = (l as f32 * rng.random_range(0.66..0.76)) as u32;
    let (w, h) = if rng.random_bool(0.75) { (l, s) } else { (s, l) };
    let shapes: Vec<Shape> = (0..rng.random_range(2..8)).map(|_| Shape::random(rng, w, h)).collect();
    jpeg(&render(rng, w, h, &shapes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prepare::generate::rng::stream;

    #[test]
    fn photos_decode_at_their_size_and_do_not_compress_to_nothing() {
        let bytes = photo(&mut stream(0, "test", 0, 0), 480..=520);
        let decoded = image::load_from_memory(&bytes).unwrap().to_rgb8();
        let (w, h) = decoded.dimensions();
        assert!((480..=520).contains(&w.max(h)) && w.min(h) >= 316, "{w}x{h}");
        let pixels = (w * h * 3) as usize;
        assert!(bytes.len() > pixels / 20, "{} bytes for {w}x{h}: too compressible", bytes.len());
    }

    #[test]
    fn shapes_are_painted_inside_their_boxes() {
        let shape = Shape { x: 10.0, y: 10.0, w: 20.0, h: 10.0, color: [250, 0, 0], ellipse: false };
        let image = render(&mut stream(0, "test", 0, 0), 64, 48, &[shape]);
        assert!(image.get_pixel(12, 12).0[0] > 200 && image.get_pixel(12, 12).0[1] < 20);
        assert!(shape.covers(29.0, 19.0) && !shape.covers(31.0, 15.0) && !shape.covers(15.0, 21.0));
        let round = Shape { ellipse: true, ..shape };
        assert!(round.covers(20.0, 15.0) && !round.covers(10.5, 10.5), "the corners are outside the ellipse");
    }
}
