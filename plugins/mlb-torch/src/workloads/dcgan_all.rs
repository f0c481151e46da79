//! dcgan_all: DCGAN (nz 100, ngf 64, ndf 64, 64x64 images, Adam 2e-4 with
//! betas 0.5/0.999, BCE) with `batch_size` images per device, data parallel
//! over every visible device in one process: the generator and the
//! discriminator are replicated, each batch is split across the replicas,
//! and gradients are summed onto the first replica before each update (see
//! [`crate::replicas`]). Item: a real image.
//!
//! Data: a folder of images (`data` or `dataroot`), resized to 64,
//! center-cropped and normalised to [-1, 1] by `workers` threads; else a
//! fixed synthetic batch of smooth random images (stated in the report).

use crate::data::DataSource;
use crate::metrics::Metrics;
use crate::replicas::{devices, parallel, split, Replicas};
use crate::workloads::dcgan::{discriminator, generator, RealImages, ADAM};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use serde_json::{Map, Value};
use tch::nn::{self, ModuleT, OptimizerConfig};
use tch::{Device, Kind, Reduction, Tensor};

mlb_plugin::workload_args! {
    /// The arguments of dcgan_all, with the original suite's defaults.
    pub struct Args {
        repeat = 50, number = 10;
        /// Real images per device and step.
        pub batch_size: u64 = 128,
        /// Learning rate of both Adam optimisers.
        pub lr: f64 = 0.0002,
        /// Size of the generator's latent noise vector (100 when absent).
        pub nz: Option<u64>,
        /// Feature maps of the generator's last layer (64 when absent).
        pub ngf: Option<u64>,
        /// Feature maps of the discriminator's first layer (64 when absent).
        pub ndf: Option<u64>,
        /// At most this many of the visible GPUs (0 or absent: all).
        pub ngpu: Option<u64>,
        /// Replicas on the CPU when there is no GPU (1 when absent).
        pub cpu_replicas: Option<usize>,
        /// Threads decoding, resizing and cropping the images of `data` (8
        /// when absent).
        pub workers: Option<usize>,
        /// A folder of images (class sub-folders or flat); a fixed synthetic
        /// batch of smooth random images when absent.
        pub data: Option<String>,
        /// The original suite's name for `data`, read when `data` is absent.
        pub dataroot: Option<String>,
    }
}

/// Settings of dcgan_all: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    lr: f64,
    nz: i64,
    ngf: i64,
    ndf: i64,
    max_devices: Option<usize>,
    cpu_replicas: usize,
    workers: usize,
    data: DataSource,
}

/// The dcgan_all workload.
pub struct DcganAll {
    g: Replicas<nn::SequentialT>,
    d: Replicas<nn::SequentialT>,
    opt_g: nn::Optimizer,
    opt_d: nn::Optimizer,
    input: RealImages,
    args: Settings,
    metrics: Metrics,
}

fn bce(p: &Tensor, target: f64) -> Tensor {
    p.binary_cross_entropy::<Tensor>(&p.full_like(target), None, Reduction::Mean)
}

impl DcganAll {
    fn devices(&self) -> Vec<Device> {
        self.g.devices().to_vec()
    }
}

impl TorchWorkload for DcganAll {
    const NAME: &'static str = "dcgan_all";
    const DESCRIPTION: &'static str =
        "DCGAN 64x64, batch x devices split over all visible devices (in-process data parallel), Adam, BCE";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        Ok(Settings {
            batch: args.batch_size.max(1) as i64,
            lr: args.lr,
            nz: args.nz.unwrap_or(100).max(1) as i64,
            ngf: args.ngf.unwrap_or(64).max(1) as i64,
            ndf: args.ndf.unwrap_or(64).max(1) as i64,
            max_devices: match args.ngpu.unwrap_or(0) {
                0 => None,
                n => Some(n as usize),
            },
            cpu_replicas: args.cpu_replicas.unwrap_or(1),
            workers: args.workers.unwrap_or(8),
            data: DataSource::from_arg(args.data.or(args.dataroot)),
        })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let devices = devices(rt.device(), args.max_devices, args.cpu_replicas);
        let (nz, ngf, ndf) = (args.nz, args.ngf, args.ndf);
        let g = Replicas::new(&devices, |p| generator(p.clone(), nz, ngf));
        let d = Replicas::new(&devices, |p| discriminator(p.clone(), ndf));
        let (opt_g, opt_d) = (ADAM.build(g.master(), args.lr)?, ADAM.build(d.master(), args.lr)?);
        let total = args.batch * devices.len() as i64;
        // One batch for all devices, on the first; each step splits it across the replicas.
        let input = RealImages::new(&args.data, total, args.workers, rt.seed(), devices[0])?;
        Ok(DcganAll { g, d, opt_g, opt_d, input, args, metrics: Metrics::default() })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let devices = self.devices();
        let width = devices.len();
        let real = self.input.next(devices[0])?;
        let total = real.size()[0] as f64;
        let nz = self.args.nz;

        // Discriminator on real and generated images, every replica at once.
        self.g.zero_grad();
        self.d.zero_grad();
        let items: Vec<_> =
            self.d.models_mut().iter_mut().zip(self.g.models_mut().iter_mut()).zip(split(&real, &devices)).collect();
        let out = parallel(items, |_, ((d, g), real)| {
            let n = real.size()[0];
            let share = n as f64 / total;
            let err_real = bce(&d.forward_t(&real, true), 1.0) * share;
            err_real.backward();
            let noise = Tensor::randn([n, nz, 1, 1], (Kind::Float, real.device()));
            let fake = g.forward_t(&noise, true);
            let err_fake = bce(&d.forward_t(&fake.detach(), true), 0.0) * share;
            err_fake.backward();
            (fake, (err_real + err_fake).detach().to_device(Device::Cpu), share)
        });
        self.d.reduce_grads(width);
        self.opt_d.step();
        self.d.broadcast(width);

        // Generator: make the updated discriminator call the fakes real.
        self.d.zero_grad();
        let mut loss_d = 0.0;
        let mut fakes = Vec::new();
        for (fake, err, share) in out {
            loss_d += err.double_value(&[]);
            fakes.push((fake, share));
        }
        let items: Vec<_> = self.d.models_mut().iter_mut().zip(fakes).collect();
        let errs = parallel(items, |_, (d, (fake, share))| {
            let err_g = bce(&d.forward_t(&fake, true), 1.0) * share;
            err_g.backward();
            err_g.detach().to_device(Device::Cpu)
        });
        self.g.reduce_grads(width);
        self.opt_g.step();
        self.g.broadcast(width);
        self.metrics.push("loss_g", errs.iter().map(|e| e.double_value(&[])).sum());
        Ok(Step::with_loss(total as u64, loss_d))
    }

    fn data(&self) -> &DataSource {
        &self.args.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        out.insert("devices".into(), self.g.devices().len().into());
        out.insert("batch_per_device".into(), self.args.batch.into());
        out.insert("parallelism".into(), "in-process data parallel (replicate, split, reduce gradients)".into());
        out.insert("metrics".into(), self.metrics.to_json());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_cpu_replicas_train_both_networks() {
        let config = r#"{"batch_size": 4, "ngf": 8, "ndf": 8, "nz": 16, "cpu_replicas": 2, "lr": 0.001}"#;
        let args = crate::plugin::settings::<DcganAll>(config).unwrap();
        let mut w = DcganAll::build(args, &Runtime::cpu(0).unwrap()).unwrap();
        let g0: Vec<Tensor> = w.g.master().trainable_variables().iter().map(Tensor::copy).collect();
        let losses: Vec<f64> = (0..8).map(|_| w.step().unwrap().loss.unwrap()).collect();
        assert!(losses.iter().all(|l| l.is_finite()));
        // The discriminator learns to tell the fixed real batch from fakes.
        assert!(losses[7] < losses[0], "{losses:?}");
        let moved = g0.iter().zip(w.g.master().trainable_variables()).any(|(a, b)| !a.equal(&b));
        assert!(moved, "the generator was updated");
        assert_eq!(w.step().unwrap().items, 8);
        assert_eq!(w.data().report_value(), "synthetic");
    }

    #[test]
    fn reads_real_images_from_a_folder() {
        use rand::SeedableRng;
        let dir = tempfile::tempdir().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        for (i, jpeg) in crate::synth::jpegs(3, 80, 70, &mut rng).into_iter().enumerate() {
            std::fs::write(dir.path().join(format!("{i}.jpg")), jpeg).unwrap();
        }
        let config = format!(
            r#"{{"batch_size": 2, "ngf": 8, "ndf": 8, "nz": 8, "cpu_replicas": 2, "workers": 0, "dataroot": "{}"}}"#,
            dir.path().display()
        );
        let args = crate::plugin::settings::<DcganAll>(&config).unwrap();
        let mut w = DcganAll::build(args, &Runtime::cpu(0).unwrap()).unwrap();
        let step = w.step().unwrap();
        assert_eq!(step.items, 4);
        assert!(step.loss.is_some_and(f64::is_finite));
        assert_eq!(w.data().report_value(), dir.path().display().to_string());
    }
}
