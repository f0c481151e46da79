//! convnet_distributed / convnet_distributed_fp16: ResNet training with
//! `batch_size` images per device, data parallel over every visible device
//! ([`crate::replicas::Replicas`]); the scaling job reuses [`DistributedConvnet::train_step`]
//! at each width. Item: an image.

use crate::amp::{LossScale, MasterWeights};
use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::DataSource;
use crate::replicas::{devices, parallel, split, Replicas};
use crate::workloads::convnet::{resnet, ARCHS};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{Step, WorkloadArgs};
use serde_json::{Map, Value};
use std::sync::Arc;
use tch::nn::{self, ModuleT, OptimizerConfig};
use tch::{Device, Kind, Tensor};

/// Settings of the data-parallel ResNet jobs: their arguments checked and
/// converted.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `resnet18` .. `resnet152`.
    pub arch: String,
    /// Images per device.
    pub batch: i64,
    /// SGD learning rate.
    pub lr: f64,
    /// SGD momentum.
    pub momentum: f64,
    /// Classes.
    pub classes: i64,
    /// Image side.
    pub size: i64,
    /// Decode threads for a data folder.
    pub workers: usize,
    /// Half precision with loss scaling and fp32 master weights.
    pub half: bool,
    /// The loss scale in half precision.
    pub loss_scale: LossScale,
    /// At most this many GPUs (all visible by default).
    pub max_devices: Option<usize>,
    /// Replicas on the CPU when there is no GPU (1 by default).
    pub cpu_replicas: usize,
    /// Images.
    pub data: DataSource,
}

/// Declares the arguments of a data-parallel ResNet job (all take the same
/// ones; the job sets its counts and the defaults it lists) and their
/// conversion to [`Settings`].
macro_rules! distributed_args {
    (
        $(#[$doc:meta])* $name:ident { $($counts:tt)* }, half = $half:literal, batch_size = $batch:literal,
        lr = $lr:literal $(, arch = $arch:literal)? $(, network = $network:literal)?
        $(, momentum = $momentum:literal)? $(, workers = $workers:literal)? $(, loss_scale = $scale:literal)?
    ) => {
        mlb_plugin::workload_args! {
            $(#[$doc])*
            pub struct $name {
                $($counts)*;
                /// Images per device and step.
                pub batch_size: u64 = $batch,
                /// Learning rate of SGD.
                pub lr: f64 = $lr,
                /// ResNet depth: `resnet18`, `resnet34`, `resnet50`,
                /// `resnet101` or `resnet152` (`network` when absent, else
                /// `resnet101`).
                pub arch: Option<String> $(= $arch)?,
                /// The original suite's name for `arch`, read when `arch` is
                /// absent.
                pub network: Option<String> $(= $network)?,
                /// SGD momentum, 0 to below 1 (0 when absent).
                pub momentum: Option<f64> $(= $momentum)?,
                /// Threads decoding and augmenting the images of `data` (8
                /// when absent).
                pub workers: Option<usize> $(= $workers)?,
                /// Half precision: a static loss scale (a number, 1 or more)
                /// or `dynamic` (128 when absent).
                pub loss_scale: Option<String> $(= $scale)?,
                /// At most this many of the visible GPUs (0 or absent: all).
                pub devices: Option<u64>,
                /// Classes of the classifier (1000 when absent).
                pub classes: Option<u64>,
                /// Side of the square input images, in pixels (224 when
                /// absent).
                pub image_size: Option<u64>,
                /// Replicas on the CPU when there is no GPU (1 when absent).
                pub cpu_replicas: Option<usize>,
                /// Trains in half precision with loss scaling and fp32 master
                /// weights (always, in the `_fp16` variant).
                pub half: bool,
                /// An image folder of class sub-folders of JPEGs (ImageNet
                /// `train`); one synthetic batch on the device when absent.
                pub data: Option<String>,
            }
        }

        impl TryFrom<$name> for $crate::workloads::convnet_distributed::Settings {
            type Error = mlb_plugin::Error;

            fn try_from(args: $name) -> mlb_plugin::Result<Self> {
                $crate::workloads::convnet_distributed::Settings::new(
                    args.arch.or(args.network),
                    [args.batch_size, args.classes.unwrap_or(1000), args.image_size.unwrap_or(224), args.devices.unwrap_or(0)],
                    [args.lr, args.momentum.unwrap_or(0.0)],
                    [args.workers.unwrap_or(8), args.cpu_replicas.unwrap_or(1)],
                    $half || args.half,
                    args.loss_scale.as_deref(),
                    args.data,
                )
            }
        }
    };
}
pub(crate) use distributed_args;

distributed_args!(
    /// The arguments of convnet_distributed, with the original suite's defaults.
    Args { repeat = 30, number = 5 }, half = false, batch_size = 64, lr = 0.1, arch = "resnet101", workers = 8
);
distributed_args!(
    /// The arguments of convnet_distributed_fp16: convnet_distributed's, with
    /// a batch of 128 and the loss scale listed.
    HalfArgs { repeat = 30, number = 5 }, half = true, batch_size = 128, lr = 0.1, arch = "resnet101", workers = 8,
    loss_scale = 128
);

/// The declared arguments of each precision of convnet_distributed.
pub trait Variant {
    /// The variant's arguments.
    type Args: WorkloadArgs + TryInto<Settings, Error = mlb_plugin::Error>;
}

impl Variant for DistributedConvnet<false> {
    type Args = Args;
}

impl Variant for DistributedConvnet<true> {
    type Args = HalfArgs;
}

impl Settings {
    /// Checks and converts the arguments: `arch` (`resnet101` when absent),
    /// the counts batch size, classes, image side and devices (0: all), the
    /// rates lr and momentum, the thread counts workers and CPU replicas,
    /// half precision, the loss scale and the data folder.
    pub(crate) fn new(
        arch: Option<String>,
        [batch, classes, size, devices]: [u64; 4],
        [lr, momentum]: [f64; 2],
        [workers, cpu_replicas]: [usize; 2],
        half: bool,
        loss_scale: Option<&str>,
        data: Option<String>,
    ) -> mlb_plugin::Result<Self> {
        let arch = arch.unwrap_or_else(|| "resnet101".to_string());
        if !ARCHS.contains(&arch.as_str()) {
            return Err(format!("argument `arch` must be one of {}, got {arch:?}", ARCHS.join(", ")).into());
        }
        Ok(Settings {
            arch,
            batch: batch.max(1) as i64,
            lr,
            momentum,
            classes: classes.max(1) as i64,
            size: size.max(32) as i64,
            workers,
            half,
            loss_scale: LossScale::parse(loss_scale, 128.0)?,
            max_devices: (devices > 0).then_some(devices as usize),
            cpu_replicas,
            data: DataSource::from_arg(data),
        })
    }
}

enum Update {
    Fp32(nn::Optimizer),
    Half(MasterWeights),
}

enum Input {
    /// One batch for all devices, generated once on the first device.
    Fixed {
        images: Tensor,
        labels: Tensor,
    },
    Folder(Box<Prefetcher<ImageBatch>>),
}

/// A ResNet replicated over the job's devices.
pub struct DistributedConvnet<const HALF: bool> {
    replicas: Replicas<Box<dyn ModuleT>>,
    update: Update,
    input: Input,
    args: Settings,
}

impl<const HALF: bool> DistributedConvnet<HALF> {
    /// Builds the replicas, the update rule and the input on `rt`'s devices.
    pub fn with_args(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let devices = devices(rt.device(), args.max_devices, args.cpu_replicas);
        if rt.device().is_cuda() {
            tch::Cuda::cudnn_set_benchmark(true);
        }
        let arch = args.arch.clone();
        let classes = args.classes;
        let mut replicas = Replicas::new(&devices, move |p| resnet(&arch, p, classes).expect("arch was checked"));
        let kind = if args.half { Kind::Half } else { Kind::Float };
        let update = if args.half {
            replicas.half();
            Update::Half(MasterWeights::new(replicas.master().trainable_variables(), args.loss_scale))
        } else {
            Update::Fp32(nn::Sgd { momentum: args.momentum, ..Default::default() }.build(replicas.master(), args.lr)?)
        };
        let total = args.batch * devices.len() as i64;
        let input = match args.data.path() {
            Some(_) => {
                let images = Arc::new(Images::from_source(&args.data, Vec::new)?);
                let size = args.size as u32;
                let transform = pipeline::imagenet_train(size);
                Input::Folder(Box::new(pipeline::batches(images, total as usize, args.workers, rt.seed(), transform)))
            }
            None => Input::Fixed {
                images: Tensor::randn([total, 3, args.size, args.size], (kind, devices[0])),
                labels: Tensor::randint(args.classes, [total], (Kind::Int64, devices[0])),
            },
        };
        Ok(DistributedConvnet { replicas, update, input, args })
    }

    /// Devices in use.
    pub fn devices(&self) -> &[Device] {
        self.replicas.devices()
    }

    /// One SGD step over the first `width` devices with `batch_size` images
    /// each. Returns the images processed and the batch's mean loss.
    pub fn train_step(&mut self, width: usize) -> mlb_plugin::Result<(u64, f64)> {
        let width = width.clamp(1, self.devices().len());
        let n = self.args.batch * width as i64;
        let kind = if self.args.half { Kind::Half } else { Kind::Float };
        let (images, labels) = match &mut self.input {
            Input::Fixed { images, labels } => (images.narrow(0, 0, n), labels.narrow(0, 0, n)),
            Input::Folder(prefetch) => {
                let b = prefetch.next_batch()?;
                let side = self.args.size;
                let count = b.labels.len() as i64;
                let device = self.replicas.devices()[0];
                (b.values(&[count, 3, side, side], device, kind).narrow(0, 0, n), b.labels(device).narrow(0, 0, n))
            }
        };
        let used = &self.replicas.devices()[..width].to_vec();
        let scale = match &self.update {
            Update::Fp32(_) => 1.0,
            Update::Half(master) => master.scale(),
        };
        self.replicas.zero_grad();
        let total = n as f64;
        let models = self.replicas.models_mut().iter_mut().take(width);
        let items: Vec<_> = models.zip(split(&images, used)).zip(split(&labels, used)).collect();
        let losses = parallel(items, |_, ((model, x), y)| {
            let share = x.size()[0] as f64 / total;
            let loss = model.forward_t(&x, true).to_kind(Kind::Float).cross_entropy_for_logits(&y) * share;
            (&loss * scale).backward();
            loss.detach().to_device(Device::Cpu)
        });
        self.replicas.reduce_grads(width);
        match &mut self.update {
            Update::Fp32(opt) => opt.step(),
            Update::Half(master) => {
                if master.unscale() {
                    master.sgd_step(self.args.lr);
                }
            }
        }
        self.replicas.broadcast(width);
        let loss = Tensor::stack(&losses, 0).sum(Kind::Float).double_value(&[]);
        Ok((n as u64, loss))
    }

    /// Waits for every device.
    pub fn sync(&self) {
        for d in self.devices() {
            if let Device::Cuda(i) = d {
                tch::Cuda::synchronize(*i as i64);
            }
        }
    }

    /// The report fields of a data-parallel job.
    pub fn report(&self, out: &mut Map<String, Value>) {
        out.insert("init".into(), "random (no pretrained weights)".into());
        out.insert("arch".into(), self.args.arch.clone().into());
        out.insert("devices".into(), self.devices().len().into());
        out.insert("batch_per_device".into(), self.args.batch.into());
        out.insert("precision".into(), if self.args.half { "float16" } else { "float32" }.into());
        out.insert("parallelism".into(), "in-process data parallel (replicate, split, reduce gradients)".into());
        if let Update::Half(master) = &self.update {
            out.insert("loss_scale".into(), master.scale().into());
            out.insert("skipped_steps".into(), master.skipped().into());
        }
    }
}

impl<const HALF: bool> TorchWorkload for DistributedConvnet<HALF>
where
    Self: Variant,
{
    const NAME: &'static str = if HALF { "convnet_distributed_fp16" } else { "convnet_distributed" };
    const DESCRIPTION: &'static str = if HALF {
        "ResNet-101 in half precision, batch x devices split over all visible devices (in-process data parallel)"
    } else {
        "ResNet-101, batch x devices split over all visible devices (in-process data parallel), SGD"
    };
    type Args = <Self as Variant>::Args;
    type Settings = Settings;

    fn parse(args: Self::Args) -> mlb_plugin::Result<Settings> {
        args.try_into()
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        Self::with_args(args, rt)
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (items, loss) = self.train_step(self.devices().len())?;
        Ok(Step::with_loss(items, loss))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        DistributedConvnet::report(self, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job<const HALF: bool>(args: &str) -> DistributedConvnet<HALF>
    where
        DistributedConvnet<HALF>: Variant,
    {
        let args = crate::plugin::settings::<DistributedConvnet<HALF>>(args).unwrap();
        DistributedConvnet::<HALF>::build(args, &Runtime::cpu(0).unwrap()).unwrap()
    }

    #[test]
    fn two_cpu_replicas_train_a_resnet18() {
        let mut w = job::<false>(
            r#"{"arch": "resnet18", "batch_size": 2, "image_size": 32, "classes": 4, "cpu_replicas": 2, "lr": 0.05}"#,
        );
        assert_eq!(w.devices().len(), 2);
        let losses: Vec<f64> = (0..5).map(|_| w.step().unwrap().loss.unwrap()).collect();
        assert!(losses[4] < losses[0], "{losses:?}");
        assert_eq!(w.train_step(1).unwrap().0, 2, "one device: its batch only");
        let mut out = Map::new();
        TorchWorkload::report(&w, &mut out);
        assert_eq!(out["devices"], 2);
    }

    #[test]
    fn half_precision_replicas_update_fp32_master_weights() {
        let mut w =
            job::<true>(r#"{"arch": "resnet18", "batch_size": 2, "image_size": 32, "classes": 4, "cpu_replicas": 2}"#);
        let before: Vec<Tensor> = w.replicas.master().trainable_variables().iter().map(Tensor::copy).collect();
        assert_eq!(before[0].kind(), Kind::Half);
        let step = w.step().unwrap();
        assert_eq!(step.items, 4);
        assert!(step.loss.is_some_and(f64::is_finite), "{step:?}");
        let after = w.replicas.master().trainable_variables();
        assert!(before.iter().zip(&after).any(|(a, b)| !a.equal(b)), "the half weights moved");
        let mut out = Map::new();
        TorchWorkload::report(&w, &mut out);
        assert_eq!(out["precision"], "float16");
        assert_eq!(out["loss_scale"], 128.0);
    }
}
