//! Photograph-like pictures: a smooth background of a few colours, shaded
//! objects (rectangles, ellipses, triangles; plain or with a texture) and
//! sensor-like noise, encoded as JPEG.
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
    /// What is drawn in the box.
    pub form: Form,
    /// The texture over its colour.
    pub texture: Texture,
}

/// The outline of an object within its box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The whole box.
    Box,
    /// The ellipse inscribed in the box.
    Ellipse,
    /// A triangle standing on the box's bottom edge, its apex at the top middle.
    Triangle,
}

/// A pattern of light and dark over an object's colour, of a period in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Texture {
    /// The colour alone.
    Plain,
    /// Horizontal bands.
    Rows(u32),
    /// Vertical bands.
    Columns(u32),
    /// A chequerboard.
    Checks(u32),
    /// Diagonal bands.
    Diagonals(u32),
}

impl Texture {
    /// The number of kinds [`Texture::of`] tells apart.
    pub const KINDS: usize = 5;

    /// Texture kind `kind` (plain, rows, columns, checks, diagonals; modulo
    /// [`Texture::KINDS`]) of period `period` pixels.
    pub fn of(kind: usize, period: u32) -> Texture {
        let period = period.max(1);
        match kind % Self::KINDS {
            0 => Texture::Plain,
            1 => Texture::Rows(period),
            2 => Texture::Columns(period),
            3 => Texture::Checks(period),
            _ => Texture::Diagonals(period),
        }
    }

    /// The brightness factor at `(dx, dy)` pixels from the object's corner.
    fn factor(self, dx: f32, dy: f32) -> f32 {
        let band = |v: f32, period: u32| (v.max(0.0) as u32 / period) % 2 == 1;
        let dark = match self {
            Texture::Plain => return 1.0,
            Texture::Rows(p) => band(dy, p),
            Texture::Columns(p) => band(dx, p),
            Texture::Checks(p) => band(dx, p) != band(dy, p),
            Texture::Diagonals(p) => band(dx + dy, p),
        };
        if dark {
            0.55
        } else {
            1.0
        }
    }
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
            form: if rng.random_bool(0.5) { Form::Ellipse } else { Form::Box },
            texture: Texture::Plain,
        }
    }

    fn covers(&self, px: f32, py: f32) -> bool {
        let (u, v) = ((px - self.x) / self.w, (py - self.y) / self.h);
        if !(0.0..1.0).contains(&u) || !(0.0..1.0).contains(&v) {
            return false;
        }
        match self.form {
            Form::Box => true,
            Form::Ellipse => (u - 0.5).powi(2) + (v - 0.5).powi(2) <= 0.25,
            Form::Triangle => v >= 2.0 * (u - 0.5).abs(),
        }
    }
}

/// Paints a `width x height` picture of `shapes` (later ones on top) over a
/// smooth background; `rng` gives the background and the noise.
pub fn render(rng: &mut impl Rng, width: u32, height: u32, shapes: &[Shape]) -> RgbImage {
    paint(rng, width, height, shapes, 1.0)
}

/// [`render`] with the background's colours at `saturation` (1: as drawn,
/// 0: grey).
fn paint(rng: &mut impl Rng, width: u32, height: u32, shapes: &[Shape], saturation: f32) -> RgbImage {
    // A 4x3 grid of colours, interpolated bilinearly.
    let mut grid: Vec<[f32; 3]> = (0..12).map(|_| rng.random::<[u8; 3]>().map(f32::from)).collect();
    if saturation < 1.0 {
        for color in &mut grid {
            let grey = color.iter().sum::<f32>() / 3.0;
            *color = color.map(|c| grey + (c - grey) * saturation);
        }
    }
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
                let texture = s.texture.factor(fx - s.x, fy - s.y);
                rgb = s.color.map(|c| f32::from(c) * shade * texture);
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

/// Saturation of a [`photo`]'s background, so that its objects' colours stand out.
const PHOTO_BACKGROUND_SATURATION: f32 = 0.35;

/// A photograph of about `long` pixels on its long side (landscape three
/// times in four, aspect 4:3 to 3:2) of the objects `objects` places in a
/// `width x height` frame (later ones on top) over a muted background, as JPEG.
pub fn photo<R: Rng>(
    rng: &mut R,
    long: std::ops::RangeInclusive<u32>,
    objects: impl FnOnce(&mut R, u32, u32) -> Vec<Shape>,
) -> Vec<u8> {
    let l = rng.random_range(long);
    let s = (l as f32 * rng.random_range(0.66..0.76)) as u32;
    let (w, h) = if rng.random_bool(0.75) { (l, s) } else { (s, l) };
    let shapes = objects(rng, w, h);
    jpeg(&paint(rng, w, h, &shapes, PHOTO_BACKGROUND_SATURATION))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::rng::stream;

    #[test]
    fn photos_decode_at_their_size_and_do_not_compress_to_nothing() {
        let bytes = photo(&mut stream(0, "test", 0, 0), 480..=520, |rng, w, h| {
            (0..rng.random_range(2..8)).map(|_| Shape::random(rng, w, h)).collect()
        });
        let decoded = image::load_from_memory(&bytes).unwrap().to_rgb8();
        let (w, h) = decoded.dimensions();
        assert!((480..=520).contains(&w.max(h)) && w.min(h) >= 316, "{w}x{h}");
        let pixels = (w * h * 3) as usize;
        assert!(bytes.len() > pixels / 20, "{} bytes for {w}x{h}: too compressible", bytes.len());
    }

    #[test]
    fn shapes_are_painted_inside_their_boxes() {
        let shape =
            Shape { x: 10.0, y: 10.0, w: 20.0, h: 10.0, color: [250, 0, 0], form: Form::Box, texture: Texture::Plain };
        let image = render(&mut stream(0, "test", 0, 0), 64, 48, &[shape]);
        assert!(image.get_pixel(12, 12).0[0] > 200 && image.get_pixel(12, 12).0[1] < 20);
        assert!(shape.covers(29.0, 19.0) && !shape.covers(31.0, 15.0) && !shape.covers(15.0, 21.0));
        let round = Shape { form: Form::Ellipse, ..shape };
        assert!(round.covers(20.0, 15.0) && !round.covers(10.5, 10.5), "the corners are outside the ellipse");
        let triangle = Shape { form: Form::Triangle, ..shape };
        assert!(triangle.covers(20.0, 11.0) && triangle.covers(11.0, 19.5) && !triangle.covers(11.0, 11.0));
    }

    #[test]
    fn textures_darken_bands_of_their_period() {
        let striped = Shape {
            x: 0.0,
            y: 0.0,
            w: 64.0,
            h: 48.0,
            color: [200, 200, 200],
            form: Form::Box,
            texture: Texture::Rows(8),
        };
        let image = render(&mut stream(0, "test", 0, 0), 64, 48, &[striped]);
        let (light, dark) = (image.get_pixel(2, 2).0[0], image.get_pixel(2, 10).0[0]);
        assert!(f32::from(dark) < 0.75 * f32::from(light), "{light} {dark}");
        assert_eq!(Texture::Plain.factor(3.0, 9.0), 1.0);
        assert_ne!(Texture::Columns(4).factor(5.0, 0.0), Texture::Columns(4).factor(1.0, 0.0));
    }
}
