//! Batches of decoded, transformed images, prepared by worker threads: the
//! data path of the image workloads (loader, convnet, dcgan, reso).

use super::image_folder::{decode_bytes, ImageFolder};
use super::prefetch::Prefetcher;
use super::{DataError, DataSource};
use image::RgbImage;
use rand::rngs::StdRng;
use rand::Rng;
use std::path::Path;
use std::sync::Arc;
use tch::{Device, Kind, Tensor};

/// Where the encoded images come from.
#[derive(Debug)]
pub enum Images {
    /// A folder of image files (class sub-folders or flat).
    Folder(ImageFolder),
    /// Encoded images held in memory (synthetic JPEGs), all of class 0.
    Encoded(Vec<Vec<u8>>),
}

impl Images {
    /// The folder of `source`, or the images `synthetic` makes.
    pub fn from_source(source: &DataSource, synthetic: impl FnOnce() -> Vec<Vec<u8>>) -> Result<Self, DataError> {
        match source.path() {
            Some(dir) => Ok(Images::Folder(ImageFolder::scan(dir)?)),
            None => Ok(Images::Encoded(synthetic())),
        }
    }

    /// Number of images.
    pub fn len(&self) -> usize {
        match self {
            Images::Folder(f) => f.len(),
            Images::Encoded(e) => e.len(),
        }
    }

    /// True when there is no image.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decodes image `index` to RGB, with its class.
    pub fn decode(&self, index: usize) -> Result<(RgbImage, i64), DataError> {
        match self {
            Images::Folder(f) => f.decode(index),
            Images::Encoded(e) => decode_bytes(&e[index])
                .map(|img| (img, 0))
                .map_err(|err| DataError::format(Path::new("<synthetic jpeg>"), err.to_string())),
        }
    }
}

/// One batch: transformed values (and, for paired data, targets) as flat
/// f32 buffers in sample order, and the class of each sample.
#[derive(Debug, Default, Clone)]
pub struct ImageBatch {
    /// Inputs, sample after sample.
    pub values: Vec<f32>,
    /// Targets of paired data (super-resolution), sample after sample.
    pub targets: Vec<f32>,
    /// Class index of each sample.
    pub labels: Vec<i64>,
}

impl ImageBatch {
    /// The inputs as a tensor of `shape` (its first dimension the batch).
    pub fn values(&self, shape: &[i64], device: Device, kind: Kind) -> Tensor {
        Tensor::from_slice(&self.values).view(shape).to_device(device).to_kind(kind)
    }

    /// The targets as a tensor of `shape`.
    pub fn targets(&self, shape: &[i64], device: Device, kind: Kind) -> Tensor {
        Tensor::from_slice(&self.targets).view(shape).to_device(device).to_kind(kind)
    }

    /// The classes as an int64 tensor.
    pub fn labels(&self, device: Device) -> Tensor {
        Tensor::from_slice(&self.labels).to_device(device)
    }
}

/// How one decoded image becomes a sample of the batch.
pub type Transform = dyn Fn(&RgbImage, &mut StdRng, &mut ImageBatch) + Send + Sync;

/// The ImageNet training transform of torchvision's examples: random resized
/// crop to `size`, random horizontal flip, CHW layout normalised with the
/// ImageNet mean and standard deviation.
pub fn imagenet_train(size: u32) -> Arc<Transform> {
    Arc::new(move |img: &RgbImage, rng: &mut StdRng, out: &mut ImageBatch| {
        let mut crop = super::transforms::random_resized_crop(img, size, rng);
        super::transforms::random_flip(&mut crop, rng);
        super::transforms::push_chw(
            &crop,
            super::transforms::IMAGENET_MEAN,
            super::transforms::IMAGENET_STD,
            &mut out.values,
        );
    })
}

/// The ImageNet evaluation transform: the shorter side resized to `size`,
/// the centre `size x size` crop, normalised as [`imagenet_train`] does.
pub fn imagenet_eval(size: u32) -> Arc<Transform> {
    Arc::new(move |img: &RgbImage, _rng: &mut StdRng, out: &mut ImageBatch| {
        let crop = super::transforms::resize_center_crop(img, size);
        super::transforms::push_chw(
            &crop,
            super::transforms::IMAGENET_MEAN,
            super::transforms::IMAGENET_STD,
            &mut out.values,
        );
    })
}

/// Up to `count` images of `images` through `transform`, evenly spaced over
/// them (a folder sorted class by class gives every class its share), in
/// one batch: a held-out set, decoded once.
pub fn held_out(images: &Images, count: usize, transform: &Transform) -> Result<ImageBatch, DataError> {
    use rand::SeedableRng;
    let (len, mut rng) = (images.len(), StdRng::seed_from_u64(0));
    let count = count.min(len);
    let mut out = ImageBatch::default();
    for i in 0..count {
        let (img, label) = images.decode(i * len / count)?;
        transform(&img, &mut rng, &mut out);
        out.labels.push(label);
    }
    Ok(out)
}

/// Starts `workers` threads (0: decode in the caller) that each build
/// batches of `batch` images drawn at random from `images`, decoded and
/// passed through `transform`.
pub fn batches(
    images: Arc<Images>,
    batch: usize,
    workers: usize,
    seed: u64,
    transform: Arc<Transform>,
) -> Prefetcher<ImageBatch> {
    Prefetcher::spawn(workers, seed, move |rng| {
        let mut out = ImageBatch::default();
        for _ in 0..batch {
            let (img, label) = images.decode(rng.random_range(0..images.len()))?;
            transform(&img, rng, &mut out);
            out.labels.push(label);
        }
        Ok(out)
    })
}
