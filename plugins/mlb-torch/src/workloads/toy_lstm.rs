//! toy_lstm: time-sequence prediction with two stacked LSTM cells
//! (`LSTMCell(1, 51) -> LSTMCell(51, 51) -> Linear(51, 1)`) unrolled over
//! the sequence.
//!
//! Data as in the original: `series` sine waves (default 100) of `length`
//! samples (default 1000), each shifted by a random offset; the model learns
//! to predict the next sample. It trains on all series but the first three
//! (97 x 999 steps) with plain SGD on the MSE. One step is one full-batch
//! pass over the sequence: the item.

use crate::data::DataSource;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::{Config, Step};
use rand::SeedableRng;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Kind, Reduction, Tensor};

/// Hidden units of each LSTM cell.
pub const HIDDEN: i64 = 51;
/// Period of the sine waves, in samples.
pub const PERIOD: f64 = 20.0;
/// Series held out of training, as in the original (its test set).
pub const HELD_OUT: usize = 3;

/// Arguments of toy_lstm.
#[derive(Debug, Clone)]
pub struct Args {
    kind: Kind,
    lr: f64,
    series: usize,
    length: usize,
}

/// Parses the `dtype` argument.
pub fn parse_dtype(name: &str) -> mlb_plugin::Result<Kind> {
    match name {
        "float16" | "half" => Ok(Kind::Half),
        "float32" | "float" => Ok(Kind::Float),
        "float64" | "double" => Ok(Kind::Double),
        other => Err(format!("argument `dtype` must be float16, float32 or float64, got {other:?}").into()),
    }
}

/// One LSTM cell's parameters.
struct Cell {
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor,
    b_hh: Tensor,
}

impl Cell {
    /// `nn.LSTMCell(input, HIDDEN)` with PyTorch's initialisation:
    /// U(-1/sqrt(hidden), 1/sqrt(hidden)) for every parameter.
    fn new(p: nn::Path, input: i64) -> Self {
        let k = 1.0 / (HIDDEN as f64).sqrt();
        let gates = 4 * HIDDEN;
        Cell {
            w_ih: p.uniform("weight_ih", &[gates, input], -k, k),
            w_hh: p.uniform("weight_hh", &[gates, HIDDEN], -k, k),
            b_ih: p.uniform("bias_ih", &[gates], -k, k),
            b_hh: p.uniform("bias_hh", &[gates], -k, k),
        }
    }

    fn step(&self, x: &Tensor, state: &[Tensor; 2]) -> [Tensor; 2] {
        let (h, c) = x.lstm_cell(&[&state[0], &state[1]], &self.w_ih, &self.w_hh, Some(&self.b_ih), Some(&self.b_hh));
        [h, c]
    }
}

/// The toy_lstm workload.
pub struct ToyLstm {
    cell1: Cell,
    cell2: Cell,
    linear: nn::Linear,
    opt: nn::Optimizer,
    /// The input sequence split into time steps, each `[series, 1]`.
    inputs: Vec<Tensor>,
    target: Tensor,
    zeros: Tensor,
    data: DataSource,
    _vs: nn::VarStore,
}

impl TorchWorkload for ToyLstm {
    const NAME: &'static str = "toy_lstm";
    const DESCRIPTION: &'static str =
        "sine-wave prediction, LSTMCell(1,51) -> LSTMCell(51,51) -> Linear(51,1) unrolled, SGD, MSE (dtype float16/32/64)";
    const DEFAULT_ARGS: &'static str = r#"{"repeat": 10, "number": 5, "skip": 1, "dtype": "float32", "lr": 0.01}"#;
    type Args = Args;

    fn parse(config: &Config) -> mlb_plugin::Result<Args> {
        let args = Args {
            kind: parse_dtype(&config.str_or("dtype", "float32")?)?,
            lr: config.f64_or("lr", 0.01)?,
            series: config.usize_or("series", 100)?,
            length: config.usize_or("length", 1000)?,
        };
        if args.series <= HELD_OUT || args.length < 2 {
            return Err(format!(
                "toy_lstm needs series > {HELD_OUT} and length >= 2, got {} and {}",
                args.series, args.length
            )
            .into());
        }
        Ok(args)
    }

    fn build(args: Args, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let mut vs = nn::VarStore::new(device);
        let root = vs.root();
        let cell1 = Cell::new(&root / "lstm1", 1);
        let cell2 = Cell::new(&root / "lstm2", HIDDEN);
        let linear = nn::linear(&root / "linear", HIDDEN, 1, Default::default());
        vs.set_kind(args.kind);
        let opt = nn::Sgd::default().build(&vs, args.lr)?;

        let mut rng = rand::rngs::StdRng::seed_from_u64(rt.seed());
        let waves = crate::synth::sine_waves(args.series, args.length, PERIOD, &mut rng);
        let all = Tensor::from_slice(&waves).view([args.series as i64, args.length as i64]);
        let train =
            all.narrow(0, HELD_OUT as i64, (args.series - HELD_OUT) as i64).to_kind(args.kind).to_device(device);
        let steps = args.length as i64 - 1;
        let input = train.narrow(1, 0, steps);
        let target = train.narrow(1, 1, steps).contiguous();
        let inputs = input.split(1, 1);
        let zeros = Tensor::zeros([train.size()[0], HIDDEN], (args.kind, device));
        Ok(ToyLstm {
            cell1,
            cell2,
            linear,
            opt,
            inputs,
            target,
            zeros,
            data: DataSource::Synthetic { requested: None },
            _vs: vs,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let mut s1 = [self.zeros.shallow_clone(), self.zeros.shallow_clone()];
        let mut s2 = [self.zeros.shallow_clone(), self.zeros.shallow_clone()];
        let mut outputs = Vec::with_capacity(self.inputs.len());
        for x in &self.inputs {
            s1 = self.cell1.step(x, &s1);
            s2 = self.cell2.step(&s1[0], &s2);
            outputs.push(self.linear.forward(&s2[0]));
        }
        let loss = Tensor::cat(&outputs, 1).mse_loss(&self.target, Reduction::Mean);
        self.opt.backward_step(&loss);
        Ok(Step::with_loss(1, loss.double_value(&[])))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn report(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("data_generator".into(), "sine waves (as the original)".into());
    }
}
