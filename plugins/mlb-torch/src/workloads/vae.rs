//! vae: variational auto-encoder on MNIST (784-400-(20,20), 20-400-784,
//! sigmoid output), Adam, loss = BCE(sum) + KL divergence. Item: an image.
//!
//! Data: the MNIST training images (`train-images-idx3-ubyte[.gz]` in the
//! `data` folder), else synthetic handwriting-like 28x28 digits. The images
//! stay on the device as bytes; each step draws a random batch of them.

use crate::data::{mnist, DataSource};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use rand::SeedableRng;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Kind, Reduction, Tensor};

/// Pixels per image.
pub const PIXELS: i64 = 784;
/// Synthetic digits generated when no MNIST folder is given.
pub const SYNTHETIC_IMAGES: usize = 4096;

mlb_plugin::workload_args! {
    /// The arguments of vae, with the original suite's defaults.
    pub struct Args {
        repeat = 50, number = 30;
        pub batch_size: u64 = 128,
        pub lr: f64 = 0.001,
        pub data: Option<String>,
    }
}

/// Settings of vae: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    lr: f64,
    data: DataSource,
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

    /// Reconstruction, mean and log-variance.
    fn forward(&self, x: &Tensor) -> (Tensor, Tensor, Tensor) {
        let h1 = self.fc1.forward(x).relu();
        let (mu, logvar) = (self.fc21.forward(&h1), self.fc22.forward(&h1));
        let std = (&logvar * 0.5).exp();
        let z = &mu + std.randn_like() * &std;
        let recon = self.fc4.forward(&self.fc3.forward(&z).relu()).sigmoid();
        (recon, mu, logvar)
    }
}

/// The vae workload.
pub struct Vae {
    model: Net,
    opt: nn::Optimizer,
    /// All images, `[n, 784]` bytes on the device.
    images: Tensor,
    batch: i64,
    data: DataSource,
    _vs: nn::VarStore,
}

impl TorchWorkload for Vae {
    const NAME: &'static str = "vae";
    const DESCRIPTION: &'static str =
        "variational auto-encoder 784-400-20 on MNIST (synthetic digits when absent), Adam";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        Ok(Settings { batch: args.batch_size as i64, lr: args.lr, data: DataSource::from_arg(args.data) })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let pixels = match args.data.path() {
            Some(dir) => {
                let file = mnist::find_train_images(dir)?;
                let images = mnist::read_images(&file)?;
                if images.rows * images.cols != PIXELS as usize {
                    return Err(format!(
                        "{}: images are {}x{}, vae needs 28x28",
                        file.display(),
                        images.rows,
                        images.cols
                    )
                    .into());
                }
                images.pixels
            }
            None => crate::synth::digits(SYNTHETIC_IMAGES, &mut rand::rngs::StdRng::seed_from_u64(rt.seed())),
        };
        let images = Tensor::from_slice(&pixels).view([-1, PIXELS]).to_device(rt.device());
        let vs = nn::VarStore::new(rt.device());
        let model = Net::new(vs.root());
        let opt = nn::Adam::default().build(&vs, args.lr)?;
        Ok(Vae { model, opt, images, batch: args.batch, data: args.data, _vs: vs })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let index = Tensor::randint(self.images.size()[0], [self.batch], (Kind::Int64, self.images.device()));
        let x = self.images.index_select(0, &index).to_kind(Kind::Float) / 255.0;
        let (recon, mu, logvar) = self.model.forward(&x);
        let bce = recon.binary_cross_entropy::<Tensor>(&x, None, Reduction::Sum);
        let kld = (&logvar + 1.0 - mu.square() - logvar.exp()).sum(Kind::Float) * -0.5;
        let loss = bce + kld;
        self.opt.backward_step(&loss);
        // The original reported the loss per image.
        Ok(Step::with_loss(self.batch as u64, loss.double_value(&[]) / self.batch as f64))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }
}
