//! toy_lstm: time-sequence prediction with two stacked LSTM cells
//! (`LSTMCell(1, 51) -> LSTMCell(51, 51) -> Linear(51, 1)`) unrolled over
//! the sequence.
//!
//! Data as in the original: `series` sine waves (default 100) of `length`
//! samples (default 1000), each shifted by a random offset; the model learns
//! to predict the next sample. It trains on all series but the first three
//! (97 x 999 steps) with plain SGD on the MSE. One step is one full-batch
//! pass over the sequence: the item.
//!
//! The original ran the two cells step by step in a Python loop. Here the
//! same two cells (same parameters, same function) are evaluated layer by
//! layer with libtorch's sequence LSTM, which computes each layer's input
//! projections for all time steps at once and uses oneDNN (CPU) or cuDNN
//! (GPU); the linear layer is applied to all time steps in one product.

use crate::data::DataSource;
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use rand::SeedableRng;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Kind, Reduction, Tensor};

/// Hidden units of each LSTM cell.
pub const HIDDEN: i64 = 51;
/// Period of the sine waves, in samples.
pub const PERIOD: f64 = 20.0;
/// Series held out of training, as in the original (its test set).
pub const HELD_OUT: usize = 3;

mlb_plugin::workload_args! {
    /// The arguments of toy_lstm, with the original suite's defaults.
    pub struct Args {
        repeat = 10, number = 5, skip = 1;
        /// Type of the model and data: `float16`, `float32` or `float64`.
        pub dtype: String = "float32",
        /// Learning rate of plain SGD.
        pub lr: f64 = 0.01,
        /// Sine waves generated, the first three held out (more than 3; 100
        /// when absent).
        pub series: Option<usize>,
        /// Samples per wave (2 or more; 1000 when absent).
        pub length: Option<usize>,
    }
}

/// Settings of toy_lstm: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
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

    fn params(&self) -> [&Tensor; 4] {
        [&self.w_ih, &self.w_hh, &self.b_ih, &self.b_hh]
    }
}

/// The toy_lstm workload.
pub struct ToyLstm {
    /// Both cells' parameters, in the order of libtorch's LSTM (layer 0 then 1).
    params: Vec<Tensor>,
    linear: nn::Linear,
    opt: nn::Optimizer,
    /// The input sequence, `[series, steps, 1]`.
    input: Tensor,
    target: Tensor,
    /// Initial hidden and cell states, `[2, series, HIDDEN]` zeros.
    zeros: Tensor,
    data: DataSource,
    _vs: nn::VarStore,
}

impl TorchWorkload for ToyLstm {
    const NAME: &'static str = "toy_lstm";
    const DESCRIPTION: &'static str =
        "sine-wave prediction, LSTMCell(1,51) -> LSTMCell(51,51) -> Linear(51,1) unrolled, SGD, MSE (dtype float16/32/64)";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let args = Settings {
            kind: parse_dtype(&args.dtype)?,
            lr: args.lr,
            series: args.series.unwrap_or(100),
            length: args.length.unwrap_or(1000),
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

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
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
        let input = train.narrow(1, 0, steps).unsqueeze(2).contiguous();
        let target = train.narrow(1, 1, steps).contiguous();
        let zeros = Tensor::zeros([2, train.size()[0], HIDDEN], (args.kind, device));
        let params = cell1.params().into_iter().chain(cell2.params()).map(Tensor::shallow_clone).collect();
        Ok(ToyLstm {
            params,
            linear,
            opt,
            input,
            target,
            zeros,
            data: DataSource::Synthetic { requested: None },
            _vs: vs,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let state = [&self.zeros, &self.zeros];
        let params: Vec<&Tensor> = self.params.iter().collect();
        let (hidden, _, _) = self.input.lstm(&state, &params, true, 2, 0.0, true, false, true);
        let output = self.linear.forward(&hidden).squeeze_dim(2);
        let loss = output.mse_loss(&self.target, Reduction::Mean);
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
