//! convnet / convnet_fp16: ResNet image classification (`arch` resnet18,
//! resnet34, resnet50, resnet101, resnet152; random initialisation), plain
//! SGD on the cross entropy. Item: an image.
//!
//! Data: an ImageNet-style folder of class sub-folders of JPEGs, decoded by
//! `workers` threads (random resized crop, flip, normalise), else a fixed
//! synthetic batch of random images generated on the device, as the original
//! did without a data set. `convnet_fp16` (or `half`) trains in half
//! precision with loss scaling and fp32 master weights.
//!
//! convnet_ddp / convnet_ddp_fp16 are the same models trained data parallel
//! over processes ([`crate::dist`], NCCL on a GPU, Gloo on the CPU): each
//! rank trains on its own batch of `batch_size` images, the gradients are
//! averaged over the ranks, bucket by bucket while the backward pass goes on
//! (`overlap`, the default) or after it, and rank 0's initial weights are
//! broadcast first. Their synthetic batch is the rank's share of one batch
//! drawn image by image from rank 0's seed, so that N ranks of batch B see
//! the images one rank of batch N*B sees.
//!
//! The report states the training FLOPs per image ([`crate::flops::resnet`])
//! and names the type of its products for the CPU probe ([`crate::probe`]).
//!
//! `frozen_bn` makes batch norm use its running statistics (as detection
//! fine-tuning freezes it): a step's gradients then no longer depend on how
//! the batch is split over ranks.
//!
//! Evaluation: the top-1 accuracy (batch norm on its running statistics)
//! on `eval_items` (default 500) held-out images, evenly spaced over the
//! set: the `val/<class>/` folder beside the training folder (`data` naming
//! `.../train`, or `val/` inside the folder `data` names), resized and
//! centre-cropped; else a synthetic batch drawn from another seed, whose
//! random labels cannot be learned (accuracy at chance). Higher is better.
//!
//! Every variant checkpoints ([`crate::resume`]): the weights and batch
//! norm's running statistics, the half variants' fp32 master weights and
//! loss scale, and the batches taken. Plain SGD (no momentum, no weight
//! decay) keeps no state of its own; the synthetic batch is drawn again
//! from the seed by a fresh instance, and a fresh loader of a folder skips
//! the batches taken (it decodes them: its workers' generators cannot be
//! saved), so a restore of a long run from a folder takes a while. A
//! restore must match the architecture, classes, image size, batch,
//! precision, seed, data, workers and group size.

use crate::amp::{LossScale, MasterWeights};
use crate::data::image_folder::ImageFolder;
use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::DataSource;
use crate::dist::{self, DataParallel};
use crate::fingerprint::sorted_variables;
use crate::flops::{self, Flops};
use crate::resume::{Counters, State};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{CheckpointHeader, Quality, Step, WorkloadArgs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tch::nn::{self, ModuleT, OptimizerConfig};
use tch::vision::resnet;
use tch::{Device, Kind, Tensor};

/// Held-out images an evaluation reads when `eval_items` is absent.
pub const EVAL_ITEMS: u64 = 500;
/// The default target of the held-out top-1 accuracy.
pub const QUALITY_TARGET: f64 = 0.5;

/// The held-out folder of the training folder `data`: `data/val` when it
/// exists, else `val` beside a folder named `train`.
pub fn held_out_folder(data: &Path) -> Option<PathBuf> {
    let inside = data.join("val");
    if inside.is_dir() {
        return Some(inside);
    }
    let beside = data.parent()?.join("val");
    (data.file_name()? == "train" && beside.is_dir()).then_some(beside)
}

/// The architectures `arch` accepts.
pub const ARCHS: [&str; 5] = ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152"];

/// Builds ResNet `arch` with `classes` outputs under `p`.
pub fn resnet(arch: &str, p: &nn::Path, classes: i64) -> Option<Box<dyn ModuleT>> {
    Some(match arch {
        "resnet18" => Box::new(resnet::resnet18(p, classes)),
        "resnet34" => Box::new(resnet::resnet34(p, classes)),
        "resnet50" => Box::new(resnet::resnet50(p, classes)),
        "resnet101" => Box::new(resnet::resnet101(p, classes)),
        "resnet152" => Box::new(resnet::resnet152(p, classes)),
        _ => return None,
    })
}

/// Declares the arguments of a variant of convnet (all take the same ones;
/// the variant sets the defaults it lists) and their conversion to
/// [`Settings`].
macro_rules! convnet_args {
    (
        $(#[$doc:meta])* $name:ident, half = $half:literal, ddp = $ddp:literal, batch_size = $batch:literal
        $(, loss_scale = $scale:literal)? $(, timeout = $timeout:literal, bucket_mb = $bucket:literal)?
    ) => {
        mlb_plugin::workload_args! {
            $(#[$doc])*
            pub struct $name {
                repeat = 15, number = 5;
                /// Images per step (per rank under data parallel).
                pub batch_size: u64 = $batch,
                /// ResNet depth: `resnet18`, `resnet34`, `resnet50`,
                /// `resnet101` or `resnet152` (random initialisation).
                pub arch: String = "resnet101",
                /// Learning rate of plain SGD.
                pub lr: f64 = 0.1,
                /// Threads decoding and augmenting the images of `data`.
                pub workers: usize = 8,
                /// Half precision: a static loss scale (a number, 1 or more)
                /// or `dynamic` (128 when absent).
                pub loss_scale: Option<String> $(= $scale)?,
                /// Data parallel (the `_ddp` variants): bound of the
                /// rendezvous and of every collective, in seconds (300 when
                /// absent).
                pub timeout: Option<f64> $(= $timeout)?,
                /// Data parallel (the `_ddp` variants): size of the gradient
                /// all-reduce buckets, in MiB (25 when absent).
                pub bucket_mb: Option<f64> $(= $bucket)?,
                /// Data parallel (the `_ddp` variants): the network interface
                /// Gloo binds (else `GLOO_SOCKET_IFNAME`, else the address of
                /// this host's name).
                pub interface: Option<String>,
                /// Data parallel (the `_ddp` variants): `auto` (NCCL on a
                /// GPU, else Gloo), `gloo` or `nccl` (`auto` when absent).
                pub backend: Option<String>,
                /// Data parallel (the `_ddp` variants): the all-reduce
                /// overlaps the backward pass (on when absent).
                pub overlap: Option<bool>,
                /// Classes of the classifier (1000 when absent).
                pub classes: Option<u64>,
                /// Side of the square input images, in pixels (224 when
                /// absent).
                pub image_size: Option<u64>,
                /// Trains in half precision with loss scaling and fp32 master
                /// weights (always, in the `_fp16` variants).
                pub half: bool,
                /// Batch norm on its running statistics (as detection
                /// fine-tuning freezes it): gradients independent of how the
                /// batch is split over ranks.
                pub frozen_bn: bool,
                /// A file the final weights are written to (`.safetensors`,
                /// else a libtorch archive); none when absent.
                pub save_weights: Option<String>,
                /// An image folder of class sub-folders of JPEGs (ImageNet
                /// `train`); one synthetic batch on the device when absent.
                pub data: Option<String>,
                /// Held-out images of an evaluation (500 when absent).
                pub eval_items: Option<u64>,
            }
        }

        impl TryFrom<$name> for Settings {
            type Error = mlb_plugin::Error;

            fn try_from(args: $name) -> mlb_plugin::Result<Settings> {
                if !ARCHS.contains(&args.arch.as_str()) {
                    let arch = &args.arch;
                    return Err(format!("argument `arch` must be one of {}, got {arch:?}", ARCHS.join(", ")).into());
                }
                Ok(Settings {
                    batch: args.batch_size as i64,
                    lr: args.lr,
                    classes: args.classes.unwrap_or(1000) as i64,
                    size: args.image_size.unwrap_or(224) as i64,
                    workers: args.workers,
                    half: $half || args.half,
                    loss_scale: LossScale::parse(args.loss_scale.as_deref(), 128.0)?,
                    data: DataSource::from_arg(args.data),
                    frozen_bn: args.frozen_bn,
                    save_weights: args.save_weights.map(PathBuf::from),
                    eval_items: args.eval_items.unwrap_or(EVAL_ITEMS).max(1) as i64,
                    ddp: if $ddp {
                        let backend = args.backend.as_deref();
                        Some(dist::Settings::new(args.timeout, args.bucket_mb, args.interface, backend, args.overlap)?)
                    } else {
                        None
                    },
                    arch: args.arch,
                })
            }
        }
    };
}

convnet_args!(
    /// The arguments of convnet, with the original suite's defaults.
    Args, half = false, ddp = false, batch_size = 64
);
convnet_args!(
    /// The arguments of convnet_fp16: convnet's, with a batch of 128 and the
    /// loss scale listed.
    HalfArgs, half = true, ddp = false, batch_size = 128, loss_scale = 128
);
convnet_args!(
    /// The arguments of convnet_ddp: convnet's, with the process group's
    /// timeout and bucket size listed.
    DdpArgs, half = false, ddp = true, batch_size = 64, timeout = 300.0, bucket_mb = 25.0
);
convnet_args!(
    /// The arguments of convnet_ddp_fp16: convnet_fp16's and convnet_ddp's.
    DdpHalfArgs, half = true, ddp = true, batch_size = 128, loss_scale = 128, timeout = 300.0, bucket_mb = 25.0
);

/// The declared arguments of each variant of convnet.
pub trait Variant {
    /// The variant's arguments.
    type Args: WorkloadArgs + TryInto<Settings, Error = mlb_plugin::Error>;
}

impl Variant for Convnet<false, false> {
    type Args = Args;
}

impl Variant for Convnet<true, false> {
    type Args = HalfArgs;
}

impl Variant for Convnet<false, true> {
    type Args = DdpArgs;
}

impl Variant for Convnet<true, true> {
    type Args = DdpHalfArgs;
}

/// Settings of convnet: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    arch: String,
    batch: i64,
    lr: f64,
    classes: i64,
    size: i64,
    workers: usize,
    half: bool,
    loss_scale: LossScale,
    data: DataSource,
    frozen_bn: bool,
    save_weights: Option<PathBuf>,
    eval_items: i64,
    /// The process group settings (data parallel variants only).
    ddp: Option<dist::Settings>,
}

/// Where batches come from.
enum Input {
    /// One batch generated once on the device and reused.
    Fixed { images: Tensor, labels: Tensor },
    /// Decoded from a folder by worker threads.
    Folder(Prefetcher<ImageBatch>),
}

/// How the parameters are updated.
enum Update {
    Fp32(nn::Optimizer),
    Half(MasterWeights),
}

/// The convnet workload; `HALF` selects the `convnet_fp16` variant, `DDP`
/// the data parallel ones (`convnet_ddp`, `convnet_ddp_fp16`).
pub struct Convnet<const HALF: bool, const DDP: bool = false> {
    model: Box<dyn ModuleT>,
    update: Update,
    input: Input,
    args: Settings,
    device: Device,
    /// The process group (data parallel variants).
    ddp: Option<DataParallel>,
    /// The trainable variables, whose gradients the group averages.
    params: Vec<Tensor>,
    vs: nn::VarStore,
    /// Training FLOPs per image.
    flops: Flops,
    /// The held-out images and labels, or why there are none: read by the
    /// first evaluation (a throughput run neither decodes nor holds them).
    held_out: Option<Result<(Tensor, Tensor), String>>,
    /// The seed of the synthetic held-out batch.
    held_out_seed: u64,
    /// The seed of the run (of its data and initial weights).
    seed: u64,
    /// Batches taken from the input so far.
    batches: u64,
}

/// Images `rank * batch .. (rank + 1) * batch` of a batch of `batch *
/// world` random images and labels drawn one image at a time from `seed`,
/// so that the images do not depend on how the batch is split.
pub(crate) fn rank_share(
    seed: u64,
    (rank, world): (usize, usize),
    batch: i64,
    (size, classes): (i64, i64),
    (kind, device): (Kind, Device),
) -> (Tensor, Tensor) {
    tch::manual_seed(seed as i64);
    let mine = rank as i64 * batch..(rank as i64 + 1) * batch;
    let total = batch * world as i64;
    let images: Vec<Tensor> = (0..total)
        .map(|_| Tensor::randn([1, 3, size, size], (kind, device)))
        .enumerate()
        .filter_map(|(i, t)| mine.contains(&(i as i64)).then_some(t))
        .collect();
    let labels: Vec<Tensor> = (0..total)
        .map(|_| Tensor::randint(classes, [1], (Kind::Int64, device)))
        .enumerate()
        .filter_map(|(i, t)| mine.contains(&(i as i64)).then_some(t))
        .collect();
    (Tensor::cat(&images, 0), Tensor::cat(&labels, 0))
}

/// The held-out images of the training folder `dir` (see
/// [`held_out_folder`]) on the device, with their labels.
fn held_out_images(dir: &Path, args: &Settings, (kind, device): (Kind, Device)) -> Result<(Tensor, Tensor), String> {
    let val = held_out_folder(dir).ok_or_else(|| format!("no val/ folder in or beside {}", dir.display()))?;
    let images = Images::Folder(ImageFolder::scan(&val).map_err(|e| e.to_string())?);
    let transform = pipeline::imagenet_eval(args.size as u32);
    let batch = pipeline::held_out(&images, args.eval_items as usize, transform.as_ref()).map_err(|e| e.to_string())?;
    let n = batch.labels.len() as i64;
    Ok((batch.values(&[n, 3, args.size, args.size], device, kind), batch.labels(device)))
}

impl<const HALF: bool, const DDP: bool> Convnet<HALF, DDP> {
    fn kind(&self) -> Kind {
        if self.args.half {
            Kind::Half
        } else {
            Kind::Float
        }
    }

    /// The held-out images and labels: the folder's `val/`, else a synthetic
    /// batch from the held-out seed (libtorch's generator is reseeded: the
    /// steps of a synthetic batch draw nothing from it).
    fn read_held_out(&self) -> Result<(Tensor, Tensor), String> {
        let (kind, device, n, size) = (self.kind(), self.device, self.args.eval_items, self.args.size);
        match self.args.data.path() {
            Some(dir) => held_out_images(dir, &self.args, (kind, device)),
            None => {
                tch::manual_seed(self.held_out_seed as i64);
                let images = Tensor::randn([n, 3, size, size], (kind, device));
                Ok((images, Tensor::randint(self.args.classes, [n], (Kind::Int64, device))))
            }
        }
    }

    fn next_batch(&mut self) -> mlb_plugin::Result<(Tensor, Tensor)> {
        let (kind, device, size) = (self.kind(), self.device, self.args.size);
        self.batches += 1;
        match &mut self.input {
            Input::Fixed { images, labels } => Ok((images.shallow_clone(), labels.shallow_clone())),
            Input::Folder(prefetch) => {
                let b = prefetch.next_batch()?;
                let n = b.labels.len() as i64;
                Ok((b.values(&[n, 3, size, size], device, kind), b.labels(device)))
            }
        }
    }
}

impl<const HALF: bool, const DDP: bool> TorchWorkload for Convnet<HALF, DDP>
where
    Self: Variant,
{
    const NAME: &'static str = match (HALF, DDP) {
        (false, false) => "convnet",
        (true, false) => "convnet_fp16",
        (false, true) => "convnet_ddp",
        (true, true) => "convnet_ddp_fp16",
    };
    const DESCRIPTION: &'static str = match (HALF, DDP) {
        (true, false) => {
            "ResNet (arch resnet18..resnet152) classification in half precision, loss scaling, fp32 master weights, SGD"
        }
        (false, false) => "ResNet (arch resnet18..resnet152) classification, 224x224 images, 1000 classes, SGD",
        (true, true) => {
            "convnet_fp16 data parallel over processes: one rank per slot, gradients averaged through c10d (NCCL or Gloo)"
        }
        (false, true) => {
            "convnet data parallel over processes: one rank per slot, gradients averaged through c10d (NCCL or Gloo)"
        }
    };
    type Args = <Self as Variant>::Args;
    type Settings = Settings;
    const QUALITY: Option<Quality> =
        Some(Quality { metric: "top1", unit: "fraction", higher_is_better: true, target: QUALITY_TARGET });
    /// convnet alone: the half variants' master weights overwrite a flipped
    /// bit of the model's, and the data parallel ones are a group's.
    const DETERMINISTIC: bool = !HALF && !DDP;
    const CHECKPOINT: bool = true;

    fn parse(args: Self::Args) -> mlb_plugin::Result<Settings> {
        args.try_into()
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        // A deterministic run keeps cuDNN's fixed choice (Runtime::init).
        if device.is_cuda() && !rt.deterministic() {
            tch::Cuda::cudnn_set_benchmark(true);
        }
        let mut vs = nn::VarStore::new(device);
        let model = resnet(&args.arch, &vs.root(), args.classes).ok_or("unknown arch")?;
        let mut ddp = args.ddp.as_ref().map(|settings| settings.join(device)).transpose()?;
        if let Some(dp) = &ddp {
            dp.broadcast(&sorted_variables(&vs).into_iter().map(|(_, t)| t).collect::<Vec<_>>())?;
        }
        let update = if args.half {
            vs.half();
            Update::Half(MasterWeights::new(vs.trainable_variables(), args.loss_scale))
        } else {
            Update::Fp32(nn::Sgd::default().build(&vs, args.lr)?)
        };
        let kind = if args.half { Kind::Half } else { Kind::Float };
        let input = match args.data.path() {
            Some(_) => {
                let images = Arc::new(Images::from_source(&args.data, Vec::new)?);
                let size = args.size as u32;
                let transform = pipeline::imagenet_train(size);
                Input::Folder(pipeline::batches(images, args.batch as usize, args.workers, rt.seed(), transform))
            }
            None => match &ddp {
                Some(dp) => {
                    let (group, shape) = (dp.group(), (args.size, args.classes));
                    let seed = dp.root_seed(rt.seed())?;
                    let (images, labels) =
                        rank_share(seed, (group.rank(), group.world()), args.batch, shape, (kind, device));
                    Input::Fixed { images, labels }
                }
                None => Input::Fixed {
                    images: Tensor::randn([args.batch, 3, args.size, args.size], (kind, device)),
                    labels: Tensor::randint(args.classes, [args.batch], (Kind::Int64, device)),
                },
            },
        };
        let params = vs.trainable_variables();
        if let (Some(dp), Some(settings)) = (&mut ddp, &args.ddp) {
            if settings.overlap {
                dp.overlap(&params)?;
            }
        }
        let flops = flops::resnet(&args.arch, args.size).ok_or("unknown arch")?;
        let held_out_seed = crate::synth::held_out_seed(rt.seed());
        let seed = rt.seed();
        Ok(Convnet {
            model,
            update,
            input,
            args,
            device,
            ddp,
            params,
            vs,
            flops,
            held_out: None,
            held_out_seed,
            seed,
            batches: 0,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (images, labels) = self.next_batch()?;
        let train_bn = !self.args.frozen_bn;
        let loss = self.model.forward_t(&images, train_bn).to_kind(Kind::Float).cross_entropy_for_logits(&labels);
        match (&mut self.update, &self.ddp) {
            (Update::Fp32(opt), None) => opt.backward_step(&loss),
            (Update::Fp32(opt), Some(dp)) => {
                opt.zero_grad();
                loss.backward();
                dp.average_grads(&self.params)?;
                opt.step();
            }
            (Update::Half(master), ddp) => {
                master.backward(&loss);
                if let Some(dp) = ddp {
                    dp.average_grads(&self.params)?;
                }
                if master.unscale() {
                    master.sgd_step(self.args.lr);
                }
            }
        }
        Ok(Step::with_loss(labels.size()[0] as u64, loss.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        if self.held_out.is_none() {
            self.held_out = Some(self.read_held_out());
        }
        let held_out = self.held_out.as_ref().expect("read above");
        let (images, labels) = held_out.as_ref().map_err(|e| format!("{} has no held-out images: {e}", Self::NAME))?;
        let (n, batch) = (labels.size()[0], self.args.batch.max(1));
        let mut right = 0;
        for start in (0..n).step_by(batch as usize) {
            let len = batch.min(n - start);
            let predicted = self.model.forward_t(&images.narrow(0, start, len), false).argmax(-1, false);
            right += predicted.eq_tensor(&labels.narrow(0, start, len)).sum(Kind::Int64).int64_value(&[]);
        }
        Ok(right as f64 / n as f64)
    }

    fn flops_kind(&self) -> Option<Kind> {
        Some(self.kind())
    }

    fn variables(&self) -> Vec<(String, Tensor)> {
        sorted_variables(&self.vs)
    }

    fn checkpoint_header(&self) -> CheckpointHeader {
        let args = &self.args;
        CheckpointHeader::new(Self::NAME)
            .with("arch", args.arch.as_str())
            .with("classes", args.classes)
            .with("image_size", args.size)
            .with("batch_size", args.batch)
            .with("precision", if args.half { "float16" } else { "float32" })
            .with("seed", self.seed)
            .with("data", args.data.report_value())
            .with("workers", if args.data.path().is_some() { args.workers } else { 0 })
            .with("world_size", self.ddp.as_ref().map_or(1, |dp| dp.group().world()))
    }

    fn state(&self) -> State {
        let mut counters = Counters::default();
        counters.set("batches", self.batches);
        let tensors = match &self.update {
            // Plain SGD: no momentum, no weight decay, no state.
            Update::Fp32(_) => Vec::new(),
            Update::Half(master) => master.save(&mut counters),
        };
        State { tensors, counters }
    }

    fn resume(&mut self, counters: &Counters) -> mlb_plugin::Result<()> {
        let batches = counters.u64("batches")?;
        if let Input::Folder(prefetch) = &mut self.input {
            for _ in 0..batches {
                prefetch.next_batch()?;
            }
        }
        self.batches = batches;
        if let Update::Half(master) = &mut self.update {
            master.resume(counters)?;
        }
        Ok(())
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("init".into(), "random (no pretrained weights)".into());
        out.insert("precision".into(), if self.args.half { "float16" } else { "float32" }.into());
        if let Update::Half(master) = &self.update {
            out.insert("loss_scale".into(), master.scale().into());
            out.insert("skipped_steps".into(), master.skipped().into());
        }
        self.flops.report(out);
        if self.args.frozen_bn {
            out.insert("batch_norm".into(), "frozen (running statistics)".into());
        }
        if let (Some(dp), Some(settings)) = (&self.ddp, &self.args.ddp) {
            // A config key of `mlb report`: it sets groups of each size apart.
            out.insert("world_size".into(), dp.group().world().into());
            out.insert("ddp".into(), dist::settings::report(dp, settings));
        }
        // The end of the run: the weights as the last step left them.
        if let Some(Err(e)) = self.args.save_weights.as_ref().map(|path| self.vs.save(path)) {
            out.insert("save_weights_error".into(), e.to_string().into());
        }
    }
}
