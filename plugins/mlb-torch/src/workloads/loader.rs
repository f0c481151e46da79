//! loader: the image decode pipeline alone (no model): JPEGs decoded by
//! `workers` threads, random resized crop to 224, horizontal flip, tensor
//! layout and normalisation, batches moved to the device. Item: an image.
//!
//! Data: an ImageNet-style folder (class sub-folders of JPEGs); else a pool
//! of synthetic JPEG photographs (500x375, ImageNet's typical size) that is
//! decoded again for every batch, so the decoding work is real.

use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::DataSource;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use rand::SeedableRng;
use std::sync::Arc;
use tch::{Device, Kind};

/// Synthetic JPEGs generated when no folder is given.
pub const SYNTHETIC_JPEGS: usize = 64;
/// Size of a synthetic JPEG.
pub const SYNTHETIC_SIZE: (u32, u32) = (500, 375);

mlb_plugin::workload_args! {
    /// The arguments of loader, with the original suite's defaults.
    pub struct Args {
        repeat = 15, number = 5;
        /// Images per batch moved to the device.
        pub batch_size: usize = 256,
        /// Threads decoding and augmenting the images.
        pub workers: usize = 8,
        /// Side of the square crops, in pixels (224 when absent).
        pub image_size: Option<u64>,
        /// An image folder of class sub-folders of JPEGs (ImageNet `train`);
        /// synthetic 500x375 JPEGs, decoded again for every batch, when
        /// absent.
        pub data: Option<String>,
    }
}

/// Settings of loader: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: usize,
    workers: usize,
    size: i64,
    data: DataSource,
}

/// The loader workload.
pub struct Loader {
    batches: Prefetcher<ImageBatch>,
    args: Settings,
    device: Device,
    images: usize,
}

impl TorchWorkload for Loader {
    const NAME: &'static str = "loader";
    const DESCRIPTION: &'static str =
        "image decode pipeline: JPEG decode, random resized crop 224, flip, normalise, on `workers` threads";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        Ok(Settings {
            batch: args.batch_size,
            workers: args.workers,
            size: args.image_size.unwrap_or(224) as i64,
            data: DataSource::from_arg(args.data),
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let seed = rt.seed();
        let images = Images::from_source(&args.data, || {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            crate::synth::jpegs(SYNTHETIC_JPEGS, SYNTHETIC_SIZE.0, SYNTHETIC_SIZE.1, &mut rng)
        })?;
        let count = images.len();
        let size = args.size as u32;
        let transform = pipeline::imagenet_train(size);
        let batches = pipeline::batches(Arc::new(images), args.batch, args.workers, seed, transform);
        Ok(Loader { batches, args, device: rt.device(), images: count })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let b = self.batches.next_batch()?;
        let n = b.labels.len() as i64;
        // Into tensors on the device, as a training loop would use them.
        let _images = b.values(&[n, 3, self.args.size, self.args.size], self.device, Kind::Float);
        let _labels = b.labels(self.device);
        Ok(Step::items(n as u64))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("images".into(), self.images.into());
    }
}
