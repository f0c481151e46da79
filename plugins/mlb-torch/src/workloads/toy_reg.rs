//! toy_reg: fits a degree-4 polynomial with `Linear(4, 1)` on the features
//! `[x, x^2, x^3, x^4]`.
//!
//! Each step draws `batch_size` fresh samples on the device: `x ~ N(0, 1)`,
//! `y = features(x) W + b` with a target `W ~ 5 N(0, 1)` (4x1) and
//! `b ~ 5 N(0, 1)` drawn once. Plain SGD, smooth L1 loss. Item: a sample.

use crate::data::DataSource;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Kind, Reduction, Tensor};

/// Degree of the polynomial (features per sample).
pub const DEGREE: i64 = 4;

mlb_plugin::workload_args! {
    /// The arguments of toy_reg, with the original suite's defaults.
    pub struct Args {
        repeat = 20, number = 100;
        /// Samples generated per step.
        pub batch_size: u64 = 256,
        /// Learning rate of plain SGD.
        pub lr: f64 = 0.01,
    }
}

/// Settings of toy_reg: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    batch: i64,
    lr: f64,
}

/// The toy_reg workload.
pub struct ToyReg {
    batch: i64,
    fc: nn::Linear,
    opt: nn::Optimizer,
    w_target: Tensor,
    b_target: Tensor,
    powers: Tensor,
    data: DataSource,
    _vs: nn::VarStore,
}

impl TorchWorkload for ToyReg {
    const NAME: &'static str = "toy_reg";
    const DESCRIPTION: &'static str = "polynomial regression, Linear(4,1) on [x, x^2, x^3, x^4], SGD, smooth L1";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        Ok(Settings { batch: args.batch_size as i64, lr: args.lr })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let vs = nn::VarStore::new(device);
        let fc = nn::linear(vs.root() / "fc", DEGREE, 1, Default::default());
        let opt = nn::Sgd::default().build(&vs, args.lr)?;
        let w_target = Tensor::randn([DEGREE, 1], (Kind::Float, device)) * 5.0;
        let b_target = Tensor::randn([1], (Kind::Float, device)) * 5.0;
        let powers = Tensor::arange_start(1, DEGREE + 1, (Kind::Float, device));
        Ok(ToyReg {
            batch: args.batch,
            fc,
            opt,
            w_target,
            b_target,
            powers,
            data: DataSource::Synthetic { requested: None },
            _vs: vs,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let x = Tensor::randn([self.batch, 1], (Kind::Float, self.powers.device()));
        let features = x.pow(&self.powers);
        let y = self.b_target.addmm(&features, &self.w_target);
        let loss = self.fc.forward(&features).smooth_l1_loss(&y, Reduction::Mean, 1.0);
        self.opt.backward_step(&loss);
        Ok(Step::with_loss(self.batch as u64, loss.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }
}
