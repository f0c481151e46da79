//! fast_style: fast neural style transfer (Johnson et al.), as PyTorch's
//! `fast_neural_style` example trains it: a [`transformer_net::TransformerNet`]
//! learns to restyle images under a fixed VGG16 loss network
//! ([`vgg::Vgg16`]): content loss on `relu2_2` (weight 1e5) and style loss on
//! the Gram matrices of four layers (weight 1e10) against one style image.
//! Adam 1e-3, 64x64 images, batches of 128. Item: an image.
//!
//! The VGG16 weights cannot be downloaded: the loss network is randomly
//! initialised unless `vgg_weights` names a file (torchvision names), and the
//! report says which. Data: a folder of images (`data`), resized and
//! center-cropped by `workers` threads, else synthetic pictures; the style
//! image is `style_image` or a synthetic picture.

pub mod transformer_net;
pub mod vgg;

use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::{image_folder, transforms, DataSource};
use crate::metrics::Metrics;
use crate::{synth, weights, Runtime, TorchWorkload};
use mlb_plugin::Step;
use rand::SeedableRng;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind, Reduction, Tensor};
use transformer_net::TransformerNet;
use vgg::Vgg16;

/// Synthetic training pictures generated when no data folder is given.
pub const SYNTHETIC_IMAGES: usize = 256;

mlb_plugin::workload_args! {
    /// The arguments of fast_style, with the original suite's defaults.
    pub struct Args {
        repeat = 25, number = 5;
        /// Images per step.
        pub batch_size: usize = 128,
        /// Side of the square training images, in pixels.
        pub image_size: u64 = 64,
        /// Learning rate of Adam.
        pub lr: f64 = 0.001,
        /// Weight of the content loss (on VGG16's `relu2_2`).
        pub content_weight: f64 = 1e5,
        /// Weight of the style loss (Gram matrices of four VGG16 layers).
        pub style_weight: f64 = 1e10,
        /// Threads decoding, resizing and cropping the images of `data`.
        pub workers: usize = 8,
        /// A folder of images (COCO in the original); synthetic pictures
        /// when absent.
        pub data: Option<String>,
        /// The original suite's name for `data`, read when `data` is absent.
        pub dataset: Option<String>,
        /// The style image; a synthetic picture when absent.
        pub style_image: Option<String>,
        /// A file of VGG16 weights under torchvision's names (`.safetensors`,
        /// else a libtorch archive); a randomly initialised loss network
        /// when absent.
        pub vgg_weights: Option<String>,
    }
}

/// Settings of fast_style: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: usize,
    size: i64,
    lr: f64,
    content_weight: f64,
    style_weight: f64,
    workers: usize,
    data: DataSource,
    style_image: Option<PathBuf>,
    vgg_weights: Option<PathBuf>,
}

/// The fast_style workload.
pub struct FastStyle {
    transformer: TransformerNet,
    vgg: Vgg16,
    opt: nn::Optimizer,
    batches: Prefetcher<ImageBatch>,
    style_grams: Vec<Tensor>,
    mean: Tensor,
    std: Tensor,
    args: Settings,
    device: Device,
    metrics: Metrics,
    _vs: (nn::VarStore, nn::VarStore),
}

/// ImageNet normalisation of images in 0..255 (the VGG input).
fn normalize(x: &Tensor, mean: &Tensor, std: &Tensor) -> Tensor {
    (x / 255.0 - mean) / std
}

impl FastStyle {
    fn style_image(args: &Settings, seed: u64) -> mlb_plugin::Result<image::RgbImage> {
        Ok(match &args.style_image {
            Some(path) => image_folder::decode_file(path)?,
            None => synth::picture(
                args.size as u32,
                args.size as u32,
                &mut rand::rngs::StdRng::seed_from_u64(seed ^ 0x5717e),
            ),
        })
    }
}

/// Pixels in 0..255, channel-major.
fn push_pixels(img: &image::RgbImage, out: &mut Vec<f32>) {
    transforms::push_chw(img, [0.0; 3], [1.0 / 255.0; 3], out);
}

impl TorchWorkload for FastStyle {
    const NAME: &'static str = "fast_style";
    const DESCRIPTION: &'static str =
        "fast neural style: TransformerNet trained under a VGG16 loss network (random init), 64x64, Adam 1e-3";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let size = args.image_size as i64;
        if size < 16 || size % 4 != 0 {
            return Err(
                format!("fast_style: argument `image_size` must be a multiple of 4, at least 16, got {size}").into()
            );
        }
        Ok(Settings {
            batch: args.batch_size.max(1),
            size,
            lr: args.lr,
            content_weight: args.content_weight,
            style_weight: args.style_weight,
            workers: args.workers,
            data: DataSource::from_arg(args.data.or(args.dataset)),
            style_image: args.style_image.map(PathBuf::from),
            vgg_weights: args.vgg_weights.map(PathBuf::from),
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let vs_t = nn::VarStore::new(device);
        let transformer = TransformerNet::new(&vs_t.root());
        let mut vs_v = nn::VarStore::new(device);
        let vgg = Vgg16::new(&vs_v.root());
        if let Some(path) = &args.vgg_weights {
            weights::load(&mut vs_v, path)?;
        }
        vs_v.freeze();
        let opt = nn::Adam::default().build(&vs_t, args.lr)?;
        let mean = Tensor::from_slice(&transforms::IMAGENET_MEAN).view([1, 3, 1, 1]).to(device);
        let std = Tensor::from_slice(&transforms::IMAGENET_STD).view([1, 3, 1, 1]).to(device);

        let size = args.size;
        let style = {
            let img = transforms::resize_center_crop(&Self::style_image(&args, rt.seed())?, size as u32);
            let mut px = Vec::new();
            push_pixels(&img, &mut px);
            Tensor::from_slice(&px).view([1, 3, size, size]).to(device)
        };
        let style_grams: Vec<Tensor> =
            tch::no_grad(|| vgg.forward(&normalize(&style, &mean, &std)).all().map(vgg::gram).into_iter().collect());

        let mut rng = rand::rngs::StdRng::seed_from_u64(rt.seed());
        let images = Arc::new(Images::from_source(&args.data, || {
            synth::jpegs(SYNTHETIC_IMAGES, size as u32, size as u32, &mut rng)
        })?);
        let transform = Arc::new(move |img: &image::RgbImage, _: &mut rand::rngs::StdRng, out: &mut ImageBatch| {
            push_pixels(&transforms::resize_center_crop(img, size as u32), &mut out.values);
        });
        let batches = pipeline::batches(images, args.batch, args.workers, rt.seed(), transform);
        Ok(FastStyle {
            transformer,
            vgg,
            opt,
            batches,
            style_grams,
            mean,
            std,
            args,
            device,
            metrics: Metrics::default(),
            _vs: (vs_t, vs_v),
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let b = self.batches.next_batch()?;
        let n = b.labels.len() as i64;
        let x = b.values(&[n, 3, self.args.size, self.args.size], self.device, Kind::Float);
        let y = self.transformer.forward(&x);
        let features_y = self.vgg.forward(&normalize(&y, &self.mean, &self.std));
        let features_x = tch::no_grad(|| self.vgg.forward(&normalize(&x, &self.mean, &self.std)));
        let content = features_y.relu2_2.mse_loss(&features_x.relu2_2, Reduction::Mean) * self.args.content_weight;
        let style = features_y
            .all()
            .iter()
            .zip(&self.style_grams)
            .map(|(f, g)| vgg::gram(f).mse_loss(&g.expand([n, -1, -1], false), Reduction::Mean))
            .fold(Tensor::zeros([], (Kind::Float, self.device)), |acc, l| acc + l)
            * self.args.style_weight;
        let total = &content + &style;
        self.opt.backward_step(&total);
        self.metrics.push("content_loss", content.double_value(&[]));
        self.metrics.push("style_loss", style.double_value(&[]));
        Ok(Step::with_loss(n as u64, total.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        let vgg = match &self.args.vgg_weights {
            Some(_) => weights::report_value(self.args.vgg_weights.as_deref()),
            None => "random init (pretrained VGG16 weights cannot be fetched)".into(),
        };
        out.insert("vgg_weights".into(), vgg);
        let style = self.args.style_image.as_ref().map_or("synthetic".to_string(), |p| p.display().to_string());
        out.insert("style_image".into(), style.into());
        out.insert("metrics".into(), self.metrics.to_json());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast_style(args: &str) -> FastStyle {
        FastStyle::build(crate::plugin::settings::<FastStyle>(args).unwrap(), &Runtime::cpu(0).unwrap()).unwrap()
    }

    const TINY: &str = r#""batch_size": 2, "image_size": 16, "workers": 0, "lr": 0.01"#;

    #[test]
    fn loss_decreases_on_synthetic_images() {
        let mut w = fast_style(&format!("{{{TINY}}}"));
        let losses: Vec<f64> = (0..12).map(|_| w.step().unwrap().loss.unwrap()).collect();
        let (first, last) = (losses[..2].iter().sum::<f64>(), losses[10..].iter().sum::<f64>());
        assert!(last < 0.7 * first, "{losses:?}");
        let mut out = Map::new();
        w.report(&mut out);
        assert!(out["vgg_weights"].as_str().unwrap().starts_with("random init"));
        assert_eq!(w.data().report_value(), "synthetic");
    }

    #[test]
    fn trains_on_an_image_folder_with_a_style_image_and_vgg_weights() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let images = dir.path().join("images").join("class");
        std::fs::create_dir_all(&images).unwrap();
        for (i, jpeg) in synth::jpegs(3, 24, 20, &mut rng).into_iter().enumerate() {
            std::fs::write(images.join(format!("{i}.jpg")), jpeg).unwrap();
        }
        let style = dir.path().join("style.jpg");
        std::fs::write(&style, &synth::jpegs(1, 40, 30, &mut rng)[0]).unwrap();
        let vgg_file = dir.path().join("vgg16.safetensors");
        let vs = nn::VarStore::new(Device::Cpu);
        Vgg16::new(&vs.root());
        vs.save(&vgg_file).unwrap();
        let mut w = fast_style(&format!(
            r#"{{{TINY}, "data": "{}", "style_image": "{}", "vgg_weights": "{}"}}"#,
            dir.path().join("images").display(),
            style.display(),
            vgg_file.display()
        ));
        let first = w.step().unwrap().loss.unwrap();
        let last = (0..8).map(|_| w.step().unwrap().loss.unwrap()).last().unwrap();
        assert!(last < first, "{first} -> {last}");
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!(out["vgg_weights"], vgg_file.display().to_string());
        assert_eq!(out["style_image"], style.display().to_string());
    }
}
