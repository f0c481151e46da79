//! ssd: SSD300 object detection with a ResNet34 backbone ([`model`]) on
//! 300x300 images, 8732 default boxes ([`boxes`]), the SSD loss ([`loss`]),
//! SGD lr 1e-3, momentum 0.9, weight decay 5e-4, batches of 128. Item: an
//! image.
//!
//! Data: a COCO folder ([`coco`]) decoded, resized to 300x300, normalised and
//! box-encoded by `workers` threads; otherwise a fixed synthetic batch of
//! random images with one to three random boxes each (stated in the
//! report). The ResNet34 backbone starts from random weights (pretrained ones
//! cannot be fetched) unless `backbone_weights` names a torchvision ResNet34
//! state dict saved as safetensors; `weights` loads a whole detector.

pub mod boxes;
pub mod coco;
pub mod loss;
pub mod model;

use crate::data::prefetch::Prefetcher;
use crate::data::{image_folder, transforms, DataError, DataSource};
use crate::{weights, Runtime, TorchWorkload};
use boxes::{Ltrb, NUM_BOXES};
use mlb_plugin::Step;
use model::Ssd300;
use rand::Rng;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use tch::nn::{self, OptimizerConfig};
use tch::{Device, Kind, Tensor};

/// Image side.
pub const SIDE: i64 = 300;
/// COCO's 80 classes plus the background.
pub const CLASSES: i64 = 81;

mlb_plugin::workload_args! {
    /// The arguments of ssd, with the original suite's defaults.
    pub struct Args {
        repeat = 15, number = 5;
        /// Images per step.
        pub batch_size: usize = 128,
        /// Learning rate of SGD.
        pub lr: f64 = 0.001,
        /// SGD momentum, 0 to below 1.
        pub momentum: f64 = 0.9,
        /// SGD weight decay.
        pub weight_decay: f64 = 0.0005,
        /// Threads decoding, resizing and box-encoding the images of `data`.
        pub workers: usize = 8,
        /// A COCO folder; a fixed synthetic batch of random images with one
        /// to three random boxes each when absent.
        pub data: Option<String>,
        /// A file of weights of the whole detector (`.safetensors`, else a
        /// libtorch archive); none loaded when absent.
        pub weights: Option<String>,
        /// A torchvision ResNet34 state dict saved as safetensors, the
        /// backbone's initial weights; a random backbone when absent.
        pub backbone_weights: Option<String>,
    }
}

/// Settings of ssd: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: usize,
    lr: f64,
    momentum: f64,
    weight_decay: f64,
    workers: usize,
    data: DataSource,
    weights: Option<PathBuf>,
    backbone_weights: Option<PathBuf>,
}

/// Images, target boxes `(cx, cy, w, h)` and labels, flat, sample after sample.
#[derive(Debug, Default)]
struct Batch {
    images: Vec<f32>,
    boxes: Vec<f32>,
    labels: Vec<i64>,
}

impl Batch {
    fn push(&mut self, dboxes: &[boxes::Xywh], gt: &[Ltrb], labels: &[i64]) {
        let (b, l) = boxes::encode(dboxes, gt, labels);
        self.boxes.extend(b.iter().flatten());
        self.labels.extend(l);
    }

    /// Target boxes `[n, 4, 8732]` and labels `[n, 8732]`.
    fn targets(&self, device: Device) -> (Tensor, Tensor) {
        let n = self.labels.len() as i64 / NUM_BOXES as i64;
        let boxes = Tensor::from_slice(&self.boxes).view([n, NUM_BOXES as i64, 4]).transpose(1, 2).contiguous();
        (boxes.to(device), Tensor::from_slice(&self.labels).view([n, NUM_BOXES as i64]).to(device))
    }

    /// Images `[n, 3, 300, 300]` and the targets.
    fn tensors(&self, device: Device) -> (Tensor, Tensor, Tensor) {
        let n = self.labels.len() as i64 / NUM_BOXES as i64;
        let (boxes, labels) = self.targets(device);
        (Tensor::from_slice(&self.images).view([n, 3, SIDE, SIDE]).to(device), boxes, labels)
    }
}

enum Input {
    Fixed(Tensor, Tensor, Tensor),
    Coco(Box<Prefetcher<Batch>>),
}

/// The ssd workload.
pub struct Ssd {
    model: Ssd300,
    opt: nn::Optimizer,
    input: Input,
    dboxes: Tensor,
    args: Settings,
    device: Device,
    _vs: nn::VarStore,
}

/// A fixed batch of random images, each with one to three random boxes.
fn synthetic(n: usize, dboxes: &[boxes::Xywh], rng: &mut impl Rng, device: Device) -> (Tensor, Tensor, Tensor) {
    let mut b = Batch::default();
    for _ in 0..n {
        let objects = rng.random_range(1..=3);
        let gt: Vec<Ltrb> = (0..objects)
            .map(|_| {
                let (w, h) = (rng.random_range(0.1..0.6), rng.random_range(0.1..0.6));
                let (l, t) = (rng.random_range(0.0..1.0 - w), rng.random_range(0.0..1.0 - h));
                [l, t, l + w, t + h]
            })
            .collect();
        let labels: Vec<i64> = (0..objects).map(|_| rng.random_range(1..CLASSES)).collect();
        b.push(dboxes, &gt, &labels);
    }
    let (boxes, labels) = b.targets(device);
    (Tensor::randn([n as i64, 3, SIDE, SIDE], (Kind::Float, device)), boxes, labels)
}

fn coco_batches(
    args: &Settings,
    dir: &std::path::Path,
    dboxes: Arc<Vec<boxes::Xywh>>,
    seed: u64,
) -> Result<Prefetcher<Batch>, DataError> {
    let samples = Arc::new(coco::load(dir)?);
    let n = args.batch;
    Ok(Prefetcher::spawn(args.workers, seed, move |rng| {
        let mut b = Batch::default();
        for _ in 0..n {
            let s = &samples[rng.random_range(0..samples.len())];
            let img = image_folder::decode_file(&s.path)?;
            let img = image::imageops::resize(&img, SIDE as u32, SIDE as u32, image::imageops::FilterType::Triangle);
            transforms::push_chw(&img, transforms::IMAGENET_MEAN, transforms::IMAGENET_STD, &mut b.images);
            b.push(&dboxes, &s.boxes, &s.labels);
        }
        Ok(b)
    }))
}

impl TorchWorkload for Ssd {
    const NAME: &'static str = "ssd";
    const DESCRIPTION: &'static str =
        "SSD300 detector, ResNet34 backbone (random init), 8732 default boxes, COCO or synthetic, SGD 1e-3";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        Ok(Settings {
            batch: args.batch_size.max(1),
            lr: args.lr,
            momentum: args.momentum,
            weight_decay: args.weight_decay,
            workers: args.workers,
            data: DataSource::from_arg(args.data),
            weights: args.weights.map(PathBuf::from),
            backbone_weights: args.backbone_weights.map(PathBuf::from),
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let mut vs = nn::VarStore::new(device);
        let model = Ssd300::new(&vs.root(), CLASSES);
        if let Some(path) = &args.backbone_weights {
            let missing = vs
                .load_partial(path)
                .map_err(|e| weights::WeightsError { path: path.display().to_string(), reason: e.to_string() })?;
            let backbone_missing: Vec<&String> = missing
                .iter()
                .filter(|n| !n.starts_with("additional_blocks") && !n.starts_with("loc") && !n.starts_with("conf"))
                .collect();
            if !backbone_missing.is_empty() {
                return Err(format!(
                    "{}: not a torchvision ResNet34 state dict, missing {backbone_missing:?}",
                    path.display()
                )
                .into());
            }
        }
        if let Some(path) = &args.weights {
            weights::load(&mut vs, path)?;
        }
        let opt =
            nn::Sgd { momentum: args.momentum, wd: args.weight_decay, ..Default::default() }.build(&vs, args.lr)?;
        let dboxes = Arc::new(boxes::default_boxes());
        let dboxes_t = Tensor::from_slice(&dboxes.iter().flatten().copied().collect::<Vec<f32>>())
            .view([1, NUM_BOXES as i64, 4])
            .transpose(1, 2)
            .contiguous()
            .to(device);
        let input = match args.data.path() {
            Some(dir) => Input::Coco(Box::new(coco_batches(&args, dir, dboxes, rt.seed())?)),
            None => {
                let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(rt.seed());
                let (images, boxes, labels) = synthetic(args.batch, &dboxes, &mut rng, device);
                Input::Fixed(images, boxes, labels)
            }
        };
        Ok(Ssd { model, opt, input, dboxes: dboxes_t, args, device, _vs: vs })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (images, gloc, glabel) = match &mut self.input {
            Input::Fixed(i, b, l) => (i.shallow_clone(), b.shallow_clone(), l.shallow_clone()),
            Input::Coco(p) => p.next_batch()?.tensors(self.device),
        };
        let (ploc, plabel) = self.model.forward_t(&images, true);
        let loss = loss::ssd_loss(&ploc, &plabel, &gloc, &glabel, &self.dboxes);
        self.opt.backward_step(&loss);
        Ok(Step::with_loss(images.size()[0] as u64, loss.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        let backbone = match &self.args.backbone_weights {
            Some(p) => p.display().to_string().into(),
            None => Value::from("random init (pretrained ResNet34 weights cannot be fetched)"),
        };
        out.insert("backbone_weights".into(), backbone);
        out.insert("weights".into(), weights::report_value(self.args.weights.as_deref()));
        out.insert("default_boxes".into(), NUM_BOXES.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ssd(args: &str) -> Ssd {
        Ssd::build(
            crate::plugin::settings::<Ssd>(args).unwrap(),
            &Runtime::init(&mlb_plugin::Setup::new("cpu", 2), 0).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn loss_decreases_on_a_synthetic_batch() {
        let mut w = ssd(r#"{"batch_size": 2, "lr": 0.01}"#);
        let losses: Vec<f64> = (0..4).map(|_| w.step().unwrap().loss.unwrap()).collect();
        assert!(losses[3] < losses[0], "{losses:?}");
        assert_eq!(w.data().report_value(), "synthetic");
    }

    #[test]
    fn trains_on_a_coco_folder_with_a_backbone_file() {
        let dir = tempfile::tempdir().unwrap();
        coco::tests::write_coco(dir.path());
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(0);
        for (name, jpeg) in ["a.jpg", "b.jpg"].iter().zip(crate::synth::jpegs(2, 64, 48, &mut rng)) {
            std::fs::write(dir.path().join(coco::IMAGES).join(name), jpeg).unwrap();
        }
        // A backbone file with torchvision's names (and a head it ignores).
        let backbone = dir.path().join("resnet34.safetensors");
        let vs = nn::VarStore::new(Device::Cpu);
        Ssd300::new(&vs.root(), CLASSES);
        vs.save(&backbone).unwrap();
        let args = format!(
            r#"{{"batch_size": 2, "workers": 1, "data": "{}", "backbone_weights": "{}"}}"#,
            dir.path().display(),
            backbone.display()
        );
        let mut w = ssd(&args);
        let step = w.step().unwrap();
        assert_eq!(step.items, 2);
        assert!(step.loss.is_some_and(f64::is_finite));
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!(out["backbone_weights"], backbone.display().to_string());
    }
}
