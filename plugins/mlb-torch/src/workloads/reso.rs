//! reso: ESPCN super-resolution (conv 5x5 1->64, 3x3 64->64, 64->32,
//! 32->r^2, pixel shuffle by r, ReLU; orthogonal initialisation) on the
//! luma channel, Adam on the MSE; PSNR as a metric. Item: an image.
//!
//! Data: a folder of photographs (BSDS500's `images/train`, flat or with
//! sub-folders): each image is center-cropped to `crop` (256) for the target
//! and resized to `crop / upscale_factor` (128) for the input, by `workers`
//! threads. Else a fixed synthetic batch of smooth random images on the
//! device, downscaled on the device for the input.

use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::{transforms, DataSource};
use crate::metrics::Metrics;
use crate::{Runtime, TorchWorkload};
use image::imageops::{self, FilterType};
use mlb_plugin::Step;
use std::sync::Arc;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind, Reduction, Tensor};

mlb_plugin::workload_args! {
    /// The arguments of reso, with the original suite's defaults.
    pub struct Args {
        repeat = 25, number = 5;
        /// Images per step.
        pub batch_size: u64 = 64,
        /// Upscaling factor r of the network: the input is the target
        /// downscaled by r.
        pub upscale_factor: u64 = 2,
        /// Learning rate of Adam.
        pub lr: f64 = 0.1,
        /// Threads cropping and resizing the images of `data`.
        pub workers: usize = 8,
        /// Side of the square target crops, in pixels (256 when absent;
        /// rounded down to a multiple of `upscale_factor`).
        pub crop_size: Option<u64>,
        /// A folder of photographs (BSDS500 `images/train`); a fixed
        /// synthetic batch of smooth random images when absent.
        pub data: Option<String>,
    }
}

/// Settings of reso: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    lr: f64,
    upscale: i64,
    crop: i64,
    workers: usize,
    data: DataSource,
}

/// The ESPCN network.
#[derive(Debug)]
struct Espcn {
    convs: [nn::Conv2D; 4],
    upscale: i64,
}

impl Espcn {
    fn new(p: nn::Path, upscale: i64) -> Self {
        let conv = |name: &str, i, o, k: i64, gain: f64| {
            let mut conv = nn::conv2d(&p / name, i, o, k, nn::ConvConfig { padding: k / 2, ..Default::default() });
            orthogonal_(&mut conv.ws, gain);
            conv
        };
        let relu_gain = 2f64.sqrt();
        Espcn {
            convs: [
                conv("conv1", 1, 64, 5, relu_gain),
                conv("conv2", 64, 64, 3, relu_gain),
                conv("conv3", 64, 32, 3, relu_gain),
                conv("conv4", 32, upscale * upscale, 3, 1.0),
            ],
            upscale,
        }
    }
}

impl Module for Espcn {
    fn forward(&self, x: &Tensor) -> Tensor {
        let [c1, c2, c3, c4] = &self.convs;
        let h = x.apply(c1).relu().apply(c2).relu().apply(c3).relu();
        h.apply(c4).pixel_shuffle(self.upscale)
    }
}

/// `init.orthogonal_(weight, gain)`: the weight viewed as `out x (in*kh*kw)`
/// becomes a (scaled) orthogonal matrix. (tch's `Init::Orthogonal` returns
/// the flattened matrix without restoring a convolution's shape.)
fn orthogonal_(weight: &mut Tensor, gain: f64) {
    let dims = weight.size();
    let flat = [dims[0], dims[1..].iter().product()];
    let q = nn::init::init(nn::Init::Orthogonal { gain }, &flat, weight.device());
    tch::no_grad(|| weight.copy_(&q.view(dims.as_slice())));
}

/// Where (input, target) batches come from.
enum Input {
    Fixed(Tensor, Tensor),
    Folder(Prefetcher<ImageBatch>),
}

/// The reso workload.
pub struct Reso {
    model: Espcn,
    opt: nn::Optimizer,
    input: Input,
    args: Settings,
    device: Device,
    metrics: Metrics,
    _vs: nn::VarStore,
}

impl TorchWorkload for Reso {
    const NAME: &'static str = "reso";
    const DESCRIPTION: &'static str =
        "ESPCN super-resolution x2 on the luma channel, 128->256 (synthetic when absent), Adam, MSE";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let args = Settings {
            batch: args.batch_size as i64,
            lr: args.lr,
            upscale: args.upscale_factor as i64,
            crop: args.crop_size.unwrap_or(256) as i64,
            workers: args.workers,
            data: DataSource::from_arg(args.data),
        };
        if args.upscale < 1 || args.crop < args.upscale {
            return Err(format!(
                "reso needs upscale_factor >= 1 and crop_size >= it, got {} and {}",
                args.upscale, args.crop
            )
            .into());
        }
        Ok(args)
    }

    fn build(mut args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        // The largest crop the upscale factor divides, as the original.
        args.crop -= args.crop % args.upscale;
        let vs = nn::VarStore::new(device);
        let model = Espcn::new(vs.root(), args.upscale);
        let opt = nn::Adam::default().build(&vs, args.lr)?;
        let (crop, small) = (args.crop, args.crop / args.upscale);
        let input = match args.data.path() {
            Some(_) => {
                let images = Arc::new(Images::from_source(&args.data, Vec::new)?);
                let transform =
                    Arc::new(move |img: &image::RgbImage, _: &mut rand::rngs::StdRng, out: &mut ImageBatch| {
                        let target = transforms::center_crop(img, crop as u32);
                        let input = imageops::resize(&target, small as u32, small as u32, FilterType::CatmullRom);
                        transforms::push_luma(&input, &mut out.values);
                        transforms::push_luma(&target, &mut out.targets);
                    });
                Input::Folder(pipeline::batches(images, args.batch as usize, args.workers, rt.seed(), transform))
            }
            None => {
                let coarse = Tensor::rand([args.batch, 1, crop / 16, crop / 16], (Kind::Float, device));
                let target = coarse.upsample_bicubic2d([crop, crop], false, None, None).clamp(0.0, 1.0);
                let input = target.upsample_bicubic2d([small, small], false, None, None).clamp(0.0, 1.0);
                Input::Fixed(input, target)
            }
        };
        Ok(Reso { model, opt, input, args, device, metrics: Metrics::default(), _vs: vs })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (crop, small) = (self.args.crop, self.args.crop / self.args.upscale);
        let (input, target) = match &mut self.input {
            Input::Fixed(i, t) => (i.shallow_clone(), t.shallow_clone()),
            Input::Folder(prefetch) => {
                let b = prefetch.next_batch()?;
                let n = b.labels.len() as i64;
                (
                    b.values(&[n, 1, small, small], self.device, Kind::Float),
                    b.targets(&[n, 1, crop, crop], self.device, Kind::Float),
                )
            }
        };
        let loss = self.model.forward(&input).mse_loss(&target, Reduction::Mean);
        self.opt.backward_step(&loss);
        let mse = loss.double_value(&[]);
        self.metrics.push("psnr", 10.0 * (1.0 / mse).log10());
        Ok(Step::with_loss(input.size()[0] as u64, mse))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("metrics".into(), self.metrics.to_json());
    }
}
