//! vae: variational auto-encoder on MNIST (784-400-(20,20), 20-400-784,
//! sigmoid output), Adam, loss = BCE(sum) + KL divergence. Item: an image.
//!
//! Data: the MNIST training images (`train-images-idx3-ubyte[.gz]` in the
//! `data` folder), else synthetic handwriting-like 28x28 digits. The images
//! stay on the device as bytes; each step draws a random batch of them.
//!
//! Evaluation: the loss per image (BCE + KL, the latent taken at its mean)
//! on the first `eval_items` (default 1000) held-out images: MNIST's t10k
//! set (`t10k-images-idx3-ubyte[.gz]`), else synthetic digits drawn from
//! another seed. Lower is better.

use crate::data::{mnist, DataSource};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{Quality, Step};
use rand::SeedableRng;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Kind, Reduction, Tensor};

/// Pixels per image.
pub const PIXELS: i64 = 784;
/// Synthetic digits generated when no MNIST folder is given.
pub const SYNTHETIC_IMAGES: usize = 4096;
/// Held-out images an evaluation reads when `eval_items` is absent.
pub const EVAL_ITEMS: u64 = 1000;
/// The default target of the held-out loss per image.
pub const QUALITY_TARGET: f64 = 100.0;

mlb_plugin::workload_args! {
    /// The arguments of vae, with the original suite's defaults.
    pub struct Args {
        repeat = 50, number = 30;
        /// Images per step.
        pub batch_size: u64 = 128,
        /// Learning rate of Adam.
        pub lr: f64 = 0.001,
        /// An MNIST folder (`train-images-idx3-ubyte`, gzipped or not, in it,
        /// its `raw/` or `MNIST/raw/`); synthetic handwriting-like digits
        /// when absent.
        pub data: Option<String>,
        /// Held-out images of an evaluation (1000 when absent).
        pub eval_items: Option<u64>,
    }
}

/// Settings of vae: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    lr: f64,
    data: DataSource,
    eval_items: i64,
}

/// The VAE model.
struct Net {
    fc1: nn::Linear,
    fc21: nn::Linear,
    fc22: nn::Linear,
    fc3: nn::Linear,
    fc4: nn::Linear,
}

impl Net {
    fn new(p: nn::Path) -> Self {
        let lin = |name: &str, i, o| nn::linear(&p / name, i, o, Default::default());
        Net {
            fc1: lin("fc1", PIXELS, 400),
            fc21: lin("fc21", 400, 20),
            fc22: lin("fc22", 400, 20),
            fc3: lin("fc3", 20, 400),
            fc4: lin("fc4", 400, PIXELS),
        }
    }

    /// Reconstruction, mean and log-variance; the latent is sampled when
    /// `train`, its mean otherwise.
    fn forward(&self, x: &Tensor, train: bool) -> (Tensor, Tensor, Tensor) {
        let h1 = self.fc1.forward(x).relu();
        let (mu, logvar) = (self.fc21.forward(&h1), self.fc22.forward(&h1));
        let z = if train {
            let std = (&logvar * 0.5).exp();
            &mu + std.randn_like() * &std
        } else {
            mu.shallow_clone()
        };
        let recon = self.fc4.forward(&self.fc3.forward(&z).relu()).sigmoid();
        (recon, mu, logvar)
    }

    /// The summed loss (reconstruction BCE + KL divergence) of the byte
    /// images `images`.
    fn loss(&self, images: &Tensor, train: bool) -> Tensor {
        let x = images.to_kind(Kind::Float) / 255.0;
        let (recon, mu, logvar) = self.forward(&x, train);
        let bce = recon.binary_cross_entropy::<Tensor>(&x, None, Reduction::Sum);
        let kld = (&logvar + 1.0 - mu.square() - logvar.exp()).sum(Kind::Float) * -0.5;
        bce + kld
    }
}

/// The byte images `[n, 784]` of the idx file `file`.
fn idx_pixels(file: &std::path::Path) -> mlb_plugin::Result<Vec<u8>> {
    let images = mnist::read_images(file)?;
    if images.rows * images.cols != PIXELS as usize {
        let (rows, cols) = (images.rows, images.cols);
        return Err(format!("{}: images are {rows}x{cols}, vae needs 28x28", file.display()).into());
    }
    Ok(images.pixels)
}

/// The vae workload.
pub struct Vae {
    model: Net,
    opt: nn::Optimizer,
    /// All images, `[n, 784]` bytes on the device.
    images: Tensor,
    batch: i64,
    data: DataSource,
    /// The held-out images `[n, 784]` bytes on the device, or why there are none.
    held_out: Result<Tensor, String>,
    _vs: nn::VarStore,
}

impl TorchWorkload for Vae {
    const NAME: &'static str = "vae";
    const DESCRIPTION: &'static str =
        "variational auto-encoder 784-400-20 on MNIST (synthetic digits when absent), Adam";
    type Args = Args;
    type Settings = Settings;
    const QUALITY: Option<Quality> =
        Some(Quality { metric: "loss", unit: "nats per image", higher_is_better: false, target: QUALITY_TARGET });

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let eval_items = args.eval_items.unwrap_or(EVAL_ITEMS).max(1) as i64;
        Ok(Settings { batch: args.batch_size as i64, lr: args.lr, data: DataSource::from_arg(args.data), eval_items })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let (pixels, held_out) = match args.data.path() {
            Some(dir) => {
                let held_out = mnist::find_test_images(dir).map_err(|e| e.to_string());
                let held_out = held_out.and_then(|file| idx_pixels(&file).map_err(|e| e.to_string()));
                (idx_pixels(&mnist::find_train_images(dir)?)?, held_out)
            }
            None => {
                let digits = |count, seed| crate::synth::digits(count, &mut rand::rngs::StdRng::seed_from_u64(seed));
                let held_out = digits(args.eval_items as usize, crate::synth::held_out_seed(rt.seed()));
                (digits(SYNTHETIC_IMAGES, rt.seed()), Ok(held_out))
            }
        };
        let on_device = |pixels: Vec<u8>| Tensor::from_slice(&pixels).view([-1, PIXELS]).to_device(rt.device());
        let images = on_device(pixels);
        let held_out = held_out.map(|p| {
            let all = on_device(p);
            let n = all.size()[0].min(args.eval_items);
            all.narrow(0, 0, n)
        });
        let vs = nn::VarStore::new(rt.device());
        let model = Net::new(vs.root());
        let opt = nn::Adam::default().build(&vs, args.lr)?;
        Ok(Vae { model, opt, images, batch: args.batch, data: args.data, held_out, _vs: vs })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let index = Tensor::randint(self.images.size()[0], [self.batch], (Kind::Int64, self.images.device()));
        let loss = self.model.loss(&self.images.index_select(0, &index), true);
        self.opt.backward_step(&loss);
        // The original reported the loss per image.
        Ok(Step::with_loss(self.batch as u64, loss.double_value(&[]) / self.batch as f64))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        let images = self.held_out.as_ref().map_err(|e| format!("vae has no held-out images to evaluate: {e}"))?;
        let n = images.size()[0];
        let total: f64 = (0..n)
            .step_by(self.batch.max(1) as usize)
            .map(|start| self.model.loss(&images.narrow(0, start, self.batch.min(n - start)), false).double_value(&[]))
            .sum();
        Ok(total / n as f64)
    }
}
