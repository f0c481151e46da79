//! vit: Vision Transformer image classification ([`model`]: ViT-B/16 by
//! default, `size` `tiny`, `small` or `base`, or explicit `layers`, `heads`,
//! `width`; `patch` 16, `image_size` 224), AdamW with linear warm-up and
//! cosine decay, gradient clipping at norm 1, in `precision` fp32, bf16 or
//! fp16 ([`crate::precision`]). Item: an image.
//!
//! Data: the prepared ImageNet tree through convnet's loader (random resized
//! crop, flip, normalise, on `workers` threads), else one synthetic batch of
//! random images generated on the device (the report's `data` says
//! `synthetic`). Under `"group": "ddp"` (the launcher's rendezvous
//! variables set, as gpt reads them) it trains data parallel over processes
//! as convnet_ddp does: one rank per slot, gradients averaged through c10d,
//! the synthetic batch the rank's share of one batch drawn from rank 0's seed.
//!
//! The report states the training FLOPs per image ([`model::Shape::flops`])
//! and names the type of its products for the CPU probe ([`crate::probe`]).

pub mod model;

use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::DataSource;
use crate::dist::{self, in_group, DataParallel};
use crate::fingerprint::sorted_variables;
use crate::flops::Flops;
use crate::optim::AdamW;
use crate::precision::{self, MixedPrecision, Precision, TorchPrecision};
use crate::workloads::convnet::rank_share;
use crate::workloads::gpt::schedule::Schedule;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use model::{Shape, Vit as Model, SIZES};
use std::sync::Arc;
use tch::nn;
use tch::{Device, Kind, Tensor};

mlb_plugin::workload_args! {
    /// The arguments of vit.
    pub struct Args {
        repeat = 15, number = 5;
        /// Model size by name: `tiny`, `small` or `base` (ViT-Ti, ViT-S,
        /// ViT-B; each sets `layers`, `heads` and `width`).
        pub size: String = "base",
        /// Transformer blocks (the size's when absent).
        pub layers: Option<u64>,
        /// Attention heads per block, dividing `width` (the size's when
        /// absent).
        pub heads: Option<u64>,
        /// Model width, the embedding dimension (the size's when absent).
        pub width: Option<u64>,
        /// Side of the square input images, in pixels (a multiple of `patch`).
        pub image_size: u64 = 224,
        /// Side of the square patches the image is cut into, in pixels.
        pub patch: u64 = 16,
        /// Images per step (per rank under data parallel).
        pub batch_size: u64 = 64,
        /// Training precision: `fp32`, `bf16` or `fp16` (autocast; fp16 with
        /// loss scaling).
        pub precision: String = "fp32",
        /// Peak learning rate of AdamW, reached after the warm-up.
        pub lr: f64 = 0.001,
        /// AdamW weight decay of the Linear weights and the patch kernel
        /// (biases, norms and the class and position tokens get none).
        pub weight_decay: f64 = 0.05,
        /// Steps of linear warm-up to the peak learning rate.
        pub warmup: u64 = 10,
        /// Steps of cosine decay after the warm-up, down to a tenth of the
        /// peak, held after.
        pub decay: u64 = 1000,
        /// Classes of the classifier head.
        pub classes: u64 = 1000,
        /// Threads decoding and augmenting the images of `data`.
        pub workers: usize = 8,
        /// An image folder of class sub-folders of JPEGs (ImageNet `train`);
        /// one synthetic batch on the device when absent.
        pub data: Option<String>,
        /// Data parallel: bound of the rendezvous and of every collective, in
        /// seconds (300 when absent).
        pub timeout: Option<f64>,
        /// Data parallel: size of the gradient all-reduce buckets, in MiB
        /// (25 when absent).
        pub bucket_mb: Option<f64>,
        /// Data parallel: the network interface Gloo binds (else
        /// `GLOO_SOCKET_IFNAME`, else the address of this host's name).
        pub interface: Option<String>,
        /// Data parallel: `auto` (NCCL on a GPU, else Gloo), `gloo` or `nccl`
        /// (`auto` when absent).
        pub backend: Option<String>,
        /// Data parallel: the all-reduce overlaps the backward pass (on when
        /// absent).
        pub overlap: Option<bool>,
    }
}

/// Settings of vit: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    shape: Shape,
    batch: i64,
    precision: Precision,
    schedule: Schedule,
    weight_decay: f64,
    workers: usize,
    data: DataSource,
    /// How a rank joins and uses its group, when it runs in one.
    ddp: dist::Settings,
}

/// The shape `args` name: the named size, with `layers`, `heads`, `width`
/// overriding it.
fn shape(args: &Args) -> mlb_plugin::Result<Shape> {
    let names = || SIZES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
    let &(_, (layers, heads, width)) = SIZES
        .iter()
        .find(|(name, _)| *name == args.size)
        .ok_or_else(|| format!("argument `size` must be one of {}, got {:?}", names(), args.size))?;
    let pick = |v: Option<u64>, default: i64| v.map_or(default, |v| v as i64);
    let shape = Shape {
        layers: pick(args.layers, layers),
        heads: pick(args.heads, heads),
        width: pick(args.width, width),
        image: args.image_size as i64,
        patch: args.patch as i64,
        classes: args.classes as i64,
    };
    let positive =
        [("layers", shape.layers), ("heads", shape.heads), ("image_size", shape.image), ("patch", shape.patch)];
    if let Some((name, _)) = positive.iter().find(|(_, v)| *v < 1) {
        return Err(format!("argument `{name}` must be at least 1").into());
    }
    if shape.width % shape.heads != 0 {
        return Err(format!("`width` {} must be a multiple of `heads` {}", shape.width, shape.heads).into());
    }
    if shape.image % shape.patch != 0 {
        return Err(format!("`image_size` {} must be a multiple of `patch` {}", shape.image, shape.patch).into());
    }
    Ok(shape)
}

/// Where batches come from.
enum Input {
    /// One batch generated once on the device and reused.
    Fixed { images: Tensor, labels: Tensor },
    /// Decoded from a folder by worker threads.
    Folder(Prefetcher<ImageBatch>),
}

/// The vit workload.
pub struct Vit {
    model: Model,
    opt: AdamW,
    mixed: MixedPrecision,
    input: Input,
    args: Settings,
    device: Device,
    params: Vec<Tensor>,
    ddp: Option<DataParallel>,
    step: u64,
    flops: Flops,
    /// Correct predictions and size of the last batch, read at the report.
    last_batch: Option<(Tensor, i64)>,
    vs: nn::VarStore,
}

impl TorchWorkload for Vit {
    const NAME: &'static str = "vit";
    const DESCRIPTION: &'static str =
        "Vision Transformer (size tiny, small, base; ViT-B/16 at 224 by default), AdamW, warm-up and cosine, fp32/bf16/fp16";
    type Args = Args;
    type Settings = Settings;
    const DETERMINISTIC: bool = true;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let shape = shape(&args)?;
        let backend = args.backend.as_deref();
        let ddp = dist::Settings::new(args.timeout, args.bucket_mb, args.interface, backend, args.overlap)?;
        Ok(Settings {
            shape,
            batch: args.batch_size as i64,
            precision: precision::parse_training(&args.precision)?,
            schedule: Schedule { peak: args.lr, warmup: args.warmup, decay: args.decay },
            weight_decay: args.weight_decay,
            workers: args.workers,
            data: DataSource::from_arg(args.data),
            ddp,
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let vs = nn::VarStore::new(device);
        let model = Model::new(&vs.root(), args.shape);
        let mut ddp = if in_group()? { Some(args.ddp.join(device)?) } else { None };
        let params = vs.trainable_variables();
        if let Some(dp) = &mut ddp {
            dp.broadcast(&sorted_variables(&vs).into_iter().map(|(_, t)| t).collect::<Vec<_>>())?;
            if args.ddp.overlap {
                dp.overlap(&params)?;
            }
        }
        let opt = AdamW::from_var_store(&vs, model::decays, args.weight_decay, (0.9, 0.999), 1e-8);
        let (size, classes) = (args.shape.image, args.shape.classes);
        let input = match args.data.path() {
            Some(_) => {
                let images = Arc::new(Images::from_source(&args.data, Vec::new)?);
                let transform = pipeline::imagenet_train(size as u32);
                Input::Folder(pipeline::batches(images, args.batch as usize, args.workers, rt.seed(), transform))
            }
            None => {
                let (images, labels) = match &ddp {
                    Some(dp) => {
                        let (group, seed) = (dp.group(), dp.root_seed(rt.seed())?);
                        let at = (group.rank(), group.world());
                        rank_share(seed, at, args.batch, (size, classes), (Kind::Float, device))
                    }
                    None => (
                        Tensor::randn([args.batch, 3, size, size], (Kind::Float, device)),
                        Tensor::randint(classes, [args.batch], (Kind::Int64, device)),
                    ),
                };
                Input::Fixed { images, labels }
            }
        };
        let mixed = MixedPrecision::new(args.precision, device);
        let flops = args.shape.flops();
        Ok(Vit { model, opt, mixed, input, args, device, params, ddp, step: 0, flops, last_batch: None, vs })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (images, labels) = match &mut self.input {
            Input::Fixed { images, labels } => (images.shallow_clone(), labels.shallow_clone()),
            Input::Folder(prefetch) => {
                let b = prefetch.next_batch()?;
                let (n, size) = (b.labels.len() as i64, self.args.shape.image);
                (b.values(&[n, 3, size, size], self.device, Kind::Float), b.labels(self.device))
            }
        };
        let logits = self.mixed.forward(|| self.model.forward(&images));
        let loss = crate::ops::cross_entropy(&logits, &labels);
        self.opt.zero_grad()?;
        self.mixed.backward(&loss);
        if let Some(dp) = &self.ddp {
            dp.average_grads(&self.params)?;
        }
        let grads = crate::grad::grads(&self.params);
        if self.mixed.unscale(&grads) {
            crate::grad::clip_grad_norm(&grads, 1.0);
            self.opt.step(self.args.schedule.lr(self.step))?;
        }
        self.step += 1;
        let n = labels.size()[0];
        self.last_batch = Some((logits.detach().argmax(-1, false).eq_tensor(&labels).sum(Kind::Int64), n));
        Ok(Step::with_loss(n as u64, loss.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn flops_kind(&self) -> Option<Kind> {
        Some(self.args.precision.kind())
    }

    fn variables(&self) -> Vec<(String, Tensor)> {
        sorted_variables(&self.vs)
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        let s = &self.args.shape;
        out.insert("init".into(), "random (no pretrained weights)".into());
        let shape = serde_json::json!({"layers": s.layers, "heads": s.heads, "width": s.width, "tokens": s.tokens()});
        out.insert("model".into(), shape);
        self.mixed.report(out);
        self.flops.report(out);
        if let Some((correct, n)) = &self.last_batch {
            out.insert("last_batch_accuracy".into(), (correct.int64_value(&[]) as f64 / *n as f64).into());
        }
        if let Some(dp) = &self.ddp {
            // A config key of `mlb report`: it sets groups of each size apart.
            out.insert("world_size".into(), dp.group().world().into());
            out.insert("ddp".into(), dist::settings::report(dp, &self.args.ddp));
        }
    }
}
