//! convnet / convnet_fp16: ResNet image classification (`arch` resnet18,
//! resnet34, resnet50, resnet101, resnet152; random initialisation), plain
//! SGD on the cross entropy. Item: an image.
//!
//! Data: an ImageNet-style folder of class sub-folders of JPEGs, decoded by
//! `workers` threads (random resized crop, flip, normalise), else a fixed
//! synthetic batch of random images generated on the device, as the original
//! did without a data set. `convnet_fp16` (or `half`) trains in half
//! precision with loss scaling and fp32 master weights.

use crate::amp::{LossScale, MasterWeights};
use crate::data::pipeline::{self, ImageBatch, Images};
use crate::data::prefetch::Prefetcher;
use crate::data::DataSource;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{Config, Step};
use std::sync::Arc;
use tch::nn::{self, ModuleT, OptimizerConfig};
use tch::vision::resnet;
use tch::{Device, Kind, Tensor};

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

/// Arguments of convnet.
#[derive(Debug, Clone)]
pub struct Args {
    arch: String,
    batch: i64,
    lr: f64,
    classes: i64,
    size: i64,
    workers: usize,
    half: bool,
    loss_scale: LossScale,
    data: DataSource,
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

/// The convnet workload; `HALF` selects the `convnet_fp16` variant.
pub struct Convnet<const HALF: bool> {
    model: Box<dyn ModuleT>,
    update: Update,
    input: Input,
    args: Args,
    device: Device,
    _vs: nn::VarStore,
}

impl<const HALF: bool> Convnet<HALF> {
    fn kind(&self) -> Kind {
        if self.args.half {
            Kind::Half
        } else {
            Kind::Float
        }
    }

    fn next_batch(&mut self) -> mlb_plugin::Result<(Tensor, Tensor)> {
        let (kind, device, size) = (self.kind(), self.device, self.args.size);
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

impl<const HALF: bool> TorchWorkload for Convnet<HALF> {
    const NAME: &'static str = if HALF { "convnet_fp16" } else { "convnet" };
    const DESCRIPTION: &'static str = if HALF {
        "ResNet (arch resnet18..resnet152) classification in half precision, loss scaling, fp32 master weights, SGD"
    } else {
        "ResNet (arch resnet18..resnet152) classification, 224x224 images, 1000 classes, SGD"
    };
    const DEFAULT_ARGS: &'static str = if HALF {
        r#"{"repeat": 15, "number": 5, "batch_size": 128, "arch": "resnet101", "lr": 0.1, "workers": 8, "loss_scale": 128}"#
    } else {
        r#"{"repeat": 15, "number": 5, "batch_size": 64, "arch": "resnet101", "lr": 0.1, "workers": 8}"#
    };
    type Args = Args;

    fn parse(config: &Config) -> mlb_plugin::Result<Args> {
        let arch = config.str_or("arch", "resnet101")?;
        if !ARCHS.contains(&arch.as_str()) {
            return Err(format!("argument `arch` must be one of {}, got {arch:?}", ARCHS.join(", ")).into());
        }
        Ok(Args {
            arch,
            batch: config.u64_or("batch_size", if HALF { 128 } else { 64 })? as i64,
            lr: config.f64_or("lr", 0.1)?,
            classes: config.u64_or("classes", 1000)? as i64,
            size: config.u64_or("image_size", 224)? as i64,
            workers: config.usize_or("workers", 8)?,
            half: HALF || config.flag("half"),
            loss_scale: LossScale::from_config(config, 128.0)?,
            data: DataSource::from_config(config, &["data"])?,
        })
    }

    fn build(args: Args, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        if device.is_cuda() {
            tch::Cuda::cudnn_set_benchmark(true);
        }
        let mut vs = nn::VarStore::new(device);
        let model = resnet(&args.arch, &vs.root(), args.classes).ok_or("unknown arch")?;
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
            None => Input::Fixed {
                images: Tensor::randn([args.batch, 3, args.size, args.size], (kind, device)),
                labels: Tensor::randint(args.classes, [args.batch], (Kind::Int64, device)),
            },
        };
        Ok(Convnet { model, update, input, args, device, _vs: vs })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (images, labels) = self.next_batch()?;
        let loss = self.model.forward_t(&images, true).to_kind(Kind::Float).cross_entropy_for_logits(&labels);
        match &mut self.update {
            Update::Fp32(opt) => opt.backward_step(&loss),
            Update::Half(master) => {
                master.backward(&loss);
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

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("init".into(), "random (no pretrained weights)".into());
        out.insert("precision".into(), if self.args.half { "float16" } else { "float32" }.into());
        if let Update::Half(master) = &self.update {
            out.insert("loss_scale".into(), master.scale().into());
            out.insert("skipped_steps".into(), master.skipped().into());
        }
    }
}
