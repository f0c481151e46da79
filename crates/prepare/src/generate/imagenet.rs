//! The fake ImageNet: `train/<wnid>/<wnid>_<n>.JPEG`, one folder per class
//! (sorted, so the folder order is the class order), photographs of about
//! 500x375, and the held-out split `val/<wnid>/ILSVRC2012_val_<8 digits>.JPEG`
//! (ImageNet's validation images sorted into class folders, as its
//! `valprep.sh` leaves them and `ImageFolder` reads them). Full: 1000 classes
//! of 256 training images (256,000 images, as the original's
//! `fake_imagenet.py`: batch 256 x 100 batches x 10 epochs) and 50
//! validation images each (as ImageNet's); small: 10 classes of 8 and 4.
//!
//! What is drawn tells the classes apart: each image shows one large object
//! of its class's [`Look`] (hue, form, texture and the texture's period),
//! placed, sized and coloured with variation within the class, over a
//! muted random background and a few smaller plain objects of muted colours
//! that belong to no class.

use super::picture::{photo, Form, Shape, Texture};
use super::rng::stream;
use super::{FileSpec, Generator};
use crate::scale::Scale;
use rand::Rng;

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

/// Hues a class can have, evenly spread on the colour wheel.
const HUES: usize = 10;
/// Forms a class's object can have.
const FORMS: [Form; 3] = [Form::Box, Form::Ellipse, Form::Triangle];
/// Periods of a texture: 6, 9, ... 24 pixels.
const PERIODS: usize = 7;

/// What the objects of one class look like. Distinct for every class up to
/// 10 x 3 x 5 x 7 = 1,050 classes; neighbouring classes differ in every
/// attribute (each is offset by the class's hue), so that the first ten
/// classes differ in hue, form and texture at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// Hue, degrees.
    hue: f32,
    form: Form,
    /// Texture kind ([`Texture::of`]).
    texture: usize,
    /// Texture period, pixels.
    period: u32,
}

impl Look {
    /// The look of class `class`.
    pub fn of(class: usize) -> Look {
        let hue = class % HUES;
        let form = class / HUES % FORMS.len();
        let texture = class / (HUES * FORMS.len()) % Texture::KINDS;
        let period = class / (HUES * FORMS.len() * Texture::KINDS) % PERIODS;
        Look {
            hue: (hue * 360 / HUES) as f32,
            form: FORMS[(form + hue) % FORMS.len()],
            texture: (texture + hue) % Texture::KINDS,
            period: 6 + 3 * ((period + hue) % PERIODS) as u32,
        }
    }

    /// An object of this look in a `width x height` picture: 35 % to 70 %
    /// of its sides anywhere in it, its hue within 8 degrees of the class's,
    /// its saturation, brightness and texture period varied.
    fn object(&self, rng: &mut impl Rng, width: u32, height: u32) -> Shape {
        let (fw, fh) = (width as f32, height as f32);
        let (w, h) = (fw * rng.random_range(0.35..0.7), fh * rng.random_range(0.35..0.7));
        let hue = self.hue + rng.random_range(-8.0..8.0);
        let color = hsv(hue, rng.random_range(0.65..1.0), rng.random_range(0.6..1.0));
        let period = (self.period as f32 * rng.random_range(0.85..1.15)) as u32;
        Shape {
            x: rng.random_range(0.0..fw - w),
            y: rng.random_range(0.0..fh - h),
            w,
            h,
            color,
            form: self.form,
            texture: Texture::of(self.texture, period),
        }
    }
}

/// The colour of hue `hue` (degrees), saturation and value in 0..1.
fn hsv(hue: f32, saturation: f32, value: f32) -> [u8; 3] {
    let h = hue.rem_euclid(360.0) / 60.0;
    let c = value * saturation;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = value - c;
    [r, g, b].map(|v| ((v + m) * 255.0).round() as u8)
}

/// A picture of class `class`: 0 to 2 small plain objects of muted
/// colours, then the class's object on top.
fn picture(class: usize, rng: &mut impl Rng) -> Vec<u8> {
    photo(rng, 400..=600, |rng, w, h| {
        let mut shapes: Vec<Shape> = (0..rng.random_range(0..3))
            .map(|_| {
                let s = Shape::random(rng, w, h);
                let grey = s.color.iter().map(|&c| u32::from(c)).sum::<u32>() / 3;
                let color = s.color.map(|c| ((u32::from(c) + 2 * grey) / 3) as u8);
                Shape { w: s.w / 2.0, h: s.h / 2.0, color, ..s }
            })
            .collect();
        shapes.push(Look::of(class).object(rng, w, h));
        shapes
    })
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
        picture(self.class(file), &mut stream(self.seed, "ImageNet", file as u64, 0))
    }
}

impl FakeImageNet {
    /// The class of file `file` (the training images, then the held-out ones).
    fn class(&self, file: usize) -> usize {
        let train = self.classes * self.per_class;
        if file < train {
            file / self.per_class
        } else {
            (file - train) / self.val_per_class
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mean colour of an image's vivid pixels (a spread of channels
    /// over 100), as a share of their sum (so that brightness does not count).
    fn features(jpeg: &[u8]) -> [f64; 3] {
        let image = image::load_from_memory(jpeg).unwrap().to_rgb8();
        let mut sum = [0.0; 3];
        for p in image.pixels().filter(|p| p.0.iter().max().unwrap() - p.0.iter().min().unwrap() > 100) {
            (0..3).for_each(|c| sum[c] += f64::from(p.0[c]));
        }
        let total = sum.iter().sum::<f64>().max(1.0);
        sum.map(|s| s / total)
    }

    #[test]
    fn every_class_up_to_a_thousand_has_its_own_look_and_the_first_ten_differ_in_each_attribute() {
        let looks: Vec<Look> = (0..1000).map(Look::of).collect();
        for (i, a) in looks.iter().enumerate() {
            assert!(looks[..i].iter().all(|b| b != a), "class {i} shares its look");
        }
        for a in 0..10 {
            for b in 0..a {
                let (x, y) = (Look::of(a), Look::of(b));
                assert!(x.hue != y.hue && (x.form != y.form || x.texture != y.texture), "{a} {b}");
            }
        }
        assert_eq!(hsv(0.0, 1.0, 1.0), [255, 0, 0]);
        assert_eq!(hsv(240.0, 1.0, 1.0), [0, 0, 255]);
    }

    #[test]
    fn the_held_out_images_are_nearest_to_their_own_class_mean() {
        // A nearest-class-mean classifier on three numbers per image (the
        // vivid pixels' mean colour) fitted on the training split.
        let set = FakeImageNet::new(Scale::Small, 0);
        let files = set.files();
        let train = set.classes * set.per_class;
        let mut means = vec![[0.0; 3]; set.classes];
        for file in 0..train {
            let f = features(&set.chunk(file, 0));
            (0..3).for_each(|i| means[set.class(file)][i] += f[i] / set.per_class as f64);
        }
        let right = (train..files.len())
            .filter(|&file| {
                let f = features(&set.chunk(file, 0));
                let distance = |m: &[f64; 3]| (0..3).map(|i| (f[i] - m[i]).powi(2)).sum::<f64>();
                let nearest = (0..set.classes).min_by(|&a, &b| distance(&means[a]).total_cmp(&distance(&means[b])));
                nearest == Some(set.class(file))
            })
            .count();
        let held_out = files.len() - train;
        assert!(files[train].path.starts_with("val/n01000000"), "{:?}", files[train].path);
        // Chance is 1 in 10 (seed 0: 40 of 40).
        assert!(right * 10 >= held_out * 8, "{right} of {held_out} held-out images told apart");
    }
}
