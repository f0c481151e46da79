//! dcgan: the DCGAN generator (nz 100, ngf 64) and discriminator (ndf 64)
//! on 64x64 RGB images, Adam (lr 2e-4, betas 0.5/0.999), binary cross
//! entropy. Item: a real image.
//!
//! Each step trains the discriminator on a real batch and a generated one,
//! then the generator. The step's loss is the discriminator's (`Loss_D` of
//! the original); the generator's is reported as the metric `loss_g`.
//!
//! Data: a folder of images (class sub-folders or flat), resized to 64,
//! center-cropped and normalised to [-1, 1] by `workers` threads; else a
//! fixed synthetic batch of smooth random images on the device.

use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::{transforms, DataSource};
use crate::metrics::Metrics;
use crate::ops;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use std::sync::Arc;
use tch::nn::{self, ModuleT, OptimizerConfig};
use tch::{Device, Kind, Reduction, Tensor};

/// Image side.
pub const SIDE: i64 = 64;
/// Colour channels.
pub const CHANNELS: i64 = 3;

/// Negative slope of the discriminator's LeakyReLU.
const LEAKY_SLOPE: f64 = 0.2;

mlb_plugin::workload_args! {
    /// The arguments of dcgan, with the original suite's defaults.
    pub struct Args {
        repeat = 25, number = 5;
        /// Real images per step.
        pub batch_size: u64 = 128,
        /// Learning rate of both Adam optimisers.
        pub lr: f64 = 0.0002,
        /// Threads decoding, resizing and cropping the images of `data`.
        pub workers: usize = 8,
        /// Size of the generator's latent noise vector (100 when absent).
        pub nz: Option<u64>,
        /// Feature maps of the generator's last layer (64 when absent).
        pub ngf: Option<u64>,
        /// Feature maps of the discriminator's first layer (64 when absent).
        pub ndf: Option<u64>,
        /// A folder of images (class sub-folders or flat); a fixed synthetic
        /// batch of smooth random images when absent.
        pub data: Option<String>,
        /// The original suite's name for `data`, read when `data` is absent.
        pub dataroot: Option<String>,
    }
}

/// Settings of dcgan: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    lr: f64,
    nz: i64,
    ngf: i64,
    ndf: i64,
    workers: usize,
    data: DataSource,
}

/// The original's initialisation of convolution weights: N(0, 0.02).
const CONV_INIT: nn::Init = nn::Init::Randn { mean: 0.0, stdev: 0.02 };

fn conv_cfg(stride: i64, padding: i64) -> nn::ConvConfig {
    nn::ConvConfig { stride, padding, bias: false, ws_init: CONV_INIT, ..Default::default() }
}

fn convt_cfg(stride: i64, padding: i64) -> nn::ConvTransposeConfig {
    nn::ConvTransposeConfig { stride, padding, bias: false, ws_init: CONV_INIT, ..Default::default() }
}

/// Batch norm initialised as in the original: weight ~ N(1, 0.02), bias 0.
fn batch_norm(p: nn::Path, channels: i64) -> nn::BatchNorm {
    let cfg = nn::BatchNormConfig { ws_init: nn::Init::Randn { mean: 1.0, stdev: 0.02 }, ..Default::default() };
    nn::batch_norm2d(p, channels, cfg)
}

/// The generator: `nz x 1 x 1` noise to a `3 x 64 x 64` image in [-1, 1].
pub fn generator(p: nn::Path, nz: i64, ngf: i64) -> nn::SequentialT {
    let widths = [nz, ngf * 8, ngf * 4, ngf * 2, ngf];
    let mut seq = nn::seq_t();
    for (i, pair) in widths.windows(2).enumerate() {
        let (stride, padding) = if i == 0 { (1, 0) } else { (2, 1) };
        seq = seq
            .add(nn::conv_transpose2d(&p / format!("convt{i}"), pair[0], pair[1], 4, convt_cfg(stride, padding)))
            .add(batch_norm(&p / format!("bn{i}"), pair[1]))
            // In place, as the original (nn.ReLU(True)): the batch norm output is not needed again.
            .add_fn(|x| x.shallow_clone().relu_());
    }
    seq.add(nn::conv_transpose2d(&p / "convt4", ngf, CHANNELS, 4, convt_cfg(2, 1))).add_fn(|x| x.tanh())
}

/// The discriminator: a `3 x 64 x 64` image to the probability it is real.
pub fn discriminator(p: nn::Path, ndf: i64) -> nn::SequentialT {
    let widths = [CHANNELS, ndf, ndf * 2, ndf * 4, ndf * 8];
    let mut seq = nn::seq_t();
    for (i, pair) in widths.windows(2).enumerate() {
        seq = seq.add(nn::conv2d(&p / format!("conv{i}"), pair[0], pair[1], 4, conv_cfg(2, 1)));
        if i > 0 {
            seq = seq.add(batch_norm(&p / format!("bn{i}"), pair[1]));
        }
        // In place, as the original (nn.LeakyReLU(0.2, inplace=True)).
        seq = seq.add_fn(|x| ops::leaky_relu_(x, LEAKY_SLOPE));
    }
    seq.add(nn::conv2d(&p / "conv4", ndf * 8, 1, 4, conv_cfg(1, 0))).add_fn(|x| x.sigmoid().view([-1]))
}

/// The optimizer of both networks, as the original's: Adam, betas 0.5/0.999.
pub const ADAM: nn::Adam = nn::Adam { beta1: 0.5, beta2: 0.999, wd: 0.0, eps: 1e-8, amsgrad: false };

/// Where real images come from.
pub enum RealImages {
    /// A fixed synthetic batch, on the device.
    Fixed(Tensor),
    /// A folder of images through the decode pipeline.
    Folder(Box<Prefetcher<ImageBatch>>),
}

impl RealImages {
    /// Batches of `batch` images: from the folder `data` names, resized to
    /// 64, center-cropped and normalised to [-1, 1] by `workers` threads;
    /// else one fixed batch of smooth random images in [-1, 1] (noise
    /// upsampled from 8x8) on `device`.
    pub fn new(data: &DataSource, batch: i64, workers: usize, seed: u64, device: Device) -> mlb_plugin::Result<Self> {
        if data.path().is_none() {
            let coarse = Tensor::rand([batch, CHANNELS, 8, 8], (Kind::Float, device)) * 2.0 - 1.0;
            return Ok(RealImages::Fixed(coarse.upsample_bilinear2d([SIDE, SIDE], false, None, None)));
        }
        let images = Arc::new(Images::from_source(data, Vec::new)?);
        let transform = Arc::new(|img: &image::RgbImage, _: &mut rand::rngs::StdRng, out: &mut ImageBatch| {
            let crop = transforms::resize_center_crop(img, SIDE as u32);
            transforms::push_chw(&crop, [0.5; 3], [0.5; 3], &mut out.values);
        });
        Ok(RealImages::Folder(Box::new(pipeline::batches(images, batch as usize, workers, seed, transform))))
    }

    /// The next batch, on `device`.
    pub fn next(&mut self, device: Device) -> mlb_plugin::Result<Tensor> {
        Ok(match self {
            RealImages::Fixed(images) => images.shallow_clone(),
            RealImages::Folder(prefetch) => {
                let b = prefetch.next_batch()?;
                b.values(&[b.labels.len() as i64, CHANNELS, SIDE, SIDE], device, Kind::Float)
            }
        })
    }
}

/// The dcgan workload.
pub struct Dcgan {
    g: nn::SequentialT,
    d: nn::SequentialT,
    opt_g: nn::Optimizer,
    opt_d: nn::Optimizer,
    input: RealImages,
    real_label: Tensor,
    fake_label: Tensor,
    args: Settings,
    device: Device,
    metrics: Metrics,
    _vs: (nn::VarStore, nn::VarStore),
}

impl TorchWorkload for Dcgan {
    const NAME: &'static str = "dcgan";
    const DESCRIPTION: &'static str =
        "DCGAN generator/discriminator on 64x64 images (synthetic when absent), Adam, BCE";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        Ok(Settings {
            batch: args.batch_size as i64,
            lr: args.lr,
            nz: args.nz.unwrap_or(100) as i64,
            ngf: args.ngf.unwrap_or(64) as i64,
            ndf: args.ndf.unwrap_or(64) as i64,
            workers: args.workers,
            data: DataSource::from_arg(args.data.or(args.dataroot)),
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let (vs_g, vs_d) = (nn::VarStore::new(device), nn::VarStore::new(device));
        let g = generator(vs_g.root(), args.nz, args.ngf);
        let d = discriminator(vs_d.root(), args.ndf);
        let (opt_g, opt_d) = (ADAM.build(&vs_g, args.lr)?, ADAM.build(&vs_d, args.lr)?);
        let input = RealImages::new(&args.data, args.batch, args.workers, rt.seed(), device)?;
        let real_label = Tensor::ones([args.batch], (Kind::Float, device));
        let fake_label = Tensor::zeros([args.batch], (Kind::Float, device));
        Ok(Dcgan {
            g,
            d,
            opt_g,
            opt_d,
            input,
            real_label,
            fake_label,
            args,
            device,
            metrics: Metrics::default(),
            _vs: (vs_g, vs_d),
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let real = self.input.next(self.device)?;
        let n = real.size()[0];
        let (real_label, fake_label) = (self.real_label.narrow(0, 0, n), self.fake_label.narrow(0, 0, n));
        let bce = |p: &Tensor, y: &Tensor| p.binary_cross_entropy::<Tensor>(y, None, Reduction::Mean);

        // Discriminator: real batch, then a generated one.
        self.opt_d.zero_grad();
        let err_real = bce(&self.d.forward_t(&real, true), &real_label);
        err_real.backward();
        let noise = Tensor::randn([n, self.args.nz, 1, 1], (Kind::Float, self.device));
        let fake = self.g.forward_t(&noise, true);
        let err_fake = bce(&self.d.forward_t(&fake.detach(), true), &fake_label);
        err_fake.backward();
        self.opt_d.step();

        // Generator: make the discriminator call the fakes real.
        self.opt_g.zero_grad();
        let err_g = bce(&self.d.forward_t(&fake, true), &real_label);
        err_g.backward();
        self.opt_g.step();

        let loss_d = (err_real + err_fake).double_value(&[]);
        self.metrics.push("loss_g", err_g.double_value(&[]));
        Ok(Step::with_loss(n as u64, loss_d))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("metrics".into(), self.metrics.to_json());
    }
}
