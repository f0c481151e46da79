//! The adaptor from a libtorch workload to the plugin SDK's [`Workload`]:
//! the declared arguments are read and checked on `create`, the runtime
//! (threads, device, seeds) and then the model are built on `setup`, the
//! shared report fields are added to the workload's own, `eval` runs
//! the workload's evaluation with gradients off, a deterministic
//! workload's fingerprint is taken from its variables ([`crate::fingerprint`]),
//! and a checkpoint holds its variables and its [`State`] ([`crate::resume`]).

use crate::data::DataSource;
use crate::resume::{self, Counters, State};
use crate::runtime::Runtime;
use mlb_plugin::{
    read_arg, Arg, CheckpointHeader, Config, ConfigError, Fault, Fingerprint, Quality, Setup, Step, Workload,
    WorkloadArgs,
};
use serde_json::{Map, Value};
use std::path::Path;
use tch::Tensor;

/// A workload written against libtorch.
pub trait TorchWorkload: Sized + 'static {
    /// Workload name, as used by `plugin` jobs.
    const NAME: &'static str;
    /// One-line description.
    const DESCRIPTION: &'static str;
    /// The declared arguments (`mlb_plugin::workload_args!`), with the
    /// original suite's defaults.
    type Args: WorkloadArgs;
    /// What [`build`](Self::build) takes: the arguments checked and
    /// converted.
    type Settings;
    /// What [`eval`](Self::eval) measures and its default target (`None`:
    /// no evaluation).
    const QUALITY: Option<Quality> = None;
    /// Whether the workload computes the same bits from the same seed,
    /// threads and stack ([`Workload::DETERMINISTIC`]): its model, data and
    /// data order come from the seed alone. One that declares it returns its
    /// variables from [`variables`](Self::variables).
    const DETERMINISTIC: bool = false;
    /// Whether the workload can checkpoint ([`Workload::CHECKPOINT`]): its
    /// [`variables`](Self::variables), its [`state`](Self::state) and its
    /// [`checkpoint_header`](Self::checkpoint_header) hold everything a
    /// fresh instance of the same config needs to step on as it would have.
    const CHECKPOINT: bool = false;

    /// Checks and converts the arguments (no libtorch work yet).
    fn parse(args: Self::Args) -> mlb_plugin::Result<Self::Settings>;

    /// Builds model, optimizer and data on the runtime's device.
    fn build(settings: Self::Settings, runtime: &Runtime) -> mlb_plugin::Result<Self>;

    /// One training step.
    fn step(&mut self) -> mlb_plugin::Result<Step>;

    /// Where the data comes from.
    fn data(&self) -> &DataSource;

    /// The quality metric of the current model on held-out data (the
    /// adaptor turns gradients off around it): no training, and nothing the
    /// next step sees (the model's forward runs with `train: false`).
    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        Err(format!("workload `{}` has no evaluation", Self::NAME).into())
    }

    /// Adds the workload's own report fields (`metrics`, model details).
    fn report(&self, _out: &mut Map<String, Value>) {}

    /// The type its matrix products run in, for a workload that states its
    /// FLOPs: on a CPU, the adaptor measures the peak in it while setting up
    /// ([`crate::probe`]) and reports it, for the MFU. `None` (the default):
    /// no probe.
    fn flops_kind(&self) -> Option<tch::Kind> {
        None
    }

    /// The variables (parameters and buffers) a deterministic run's
    /// fingerprint hashes and a flipped bit corrupts, sorted by name
    /// ([`crate::fingerprint::sorted_variables`]). None by default.
    fn variables(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }

    /// The header of a checkpoint: the workload's name and the shapes and
    /// config fields a restore must match (the name alone by default).
    fn checkpoint_header(&self) -> CheckpointHeader {
        CheckpointHeader::new(Self::NAME)
    }

    /// What a checkpoint holds beyond the [`variables`](Self::variables):
    /// the tensors (the optimizer's state, master weights), which a restore
    /// copies into a fresh instance's in place, and the counters (steps,
    /// the data's position, the loss scale), which it hands to
    /// [`resume`](Self::resume). Nothing by default.
    fn state(&self) -> State {
        State::default()
    }

    /// Takes back the counters of a checkpoint after a restore copied its
    /// tensors: the next step is the saved instance's next step.
    fn resume(&mut self, _counters: &Counters) -> mlb_plugin::Result<()> {
        Ok(())
    }

    /// Injects `fault` after a step: by default a flipped bit goes into
    /// [`variables`](Self::variables) ([`crate::fingerprint::flip_bit`]) and
    /// any other fault is refused by name.
    fn inject(&mut self, fault: Fault) -> mlb_plugin::Result<()> {
        match fault {
            Fault::FlipBit => crate::fingerprint::flip_bit(Self::NAME, &self.variables()),
            other => Err(refused(Self::NAME, other)),
        }
    }
}

/// The error of a workload asked for a fault it cannot inject.
pub fn refused(workload: &str, fault: Fault) -> mlb_plugin::Error {
    format!("workload `{workload}` cannot inject the fault `{fault}`").into()
}

/// A workload's declared arguments and the `seed` every libtorch workload
/// takes (0 when absent; not listed, so that reports keep leaving it out of
/// the defaults).
pub struct Seeded<A> {
    seed: u64,
    args: A,
}

impl<A: WorkloadArgs> WorkloadArgs for Seeded<A> {
    const DEFAULTS: &'static str = A::DEFAULTS;
    const DECLARED: &'static [Arg] = A::DECLARED;

    fn from_config(config: &Config) -> Result<Self, ConfigError> {
        let seed = read_arg::<Option<u64>>(config, "seed", None)?.unwrap_or(0);
        Ok(Seeded { seed, args: A::from_config(config)? })
    }
}

/// A [`TorchWorkload`] as an mlb plugin: the crate root exports
/// `TorchPlugin<W>` for every workload.
pub struct TorchPlugin<W: TorchWorkload> {
    settings: Option<W::Settings>,
    seed: u64,
    state: Option<(Runtime, W)>,
    /// The CPU's peak in the workload's [`flops_kind`](TorchWorkload::flops_kind).
    peak: Option<f64>,
}

impl<W: TorchWorkload> TorchPlugin<W> {
    fn state(&self) -> mlb_plugin::Result<&(Runtime, W)> {
        self.state.as_ref().ok_or_else(|| format!("{}: called before setup", W::NAME).into())
    }

    /// The workload, when it can checkpoint and is set up.
    fn checkpointing(&self) -> mlb_plugin::Result<&W> {
        if !W::CHECKPOINT {
            return Err(format!("workload `{}` cannot checkpoint", W::NAME).into());
        }
        Ok(&self.state()?.1)
    }

    fn workload_mut(&mut self) -> mlb_plugin::Result<&mut W> {
        self.state.as_mut().map(|(_, w)| w).ok_or_else(|| format!("{}: called before setup", W::NAME).into())
    }
}

impl<W: TorchWorkload> Workload for TorchPlugin<W> {
    const NAME: &'static str = W::NAME;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const DESCRIPTION: &'static str = W::DESCRIPTION;
    type Args = Seeded<W::Args>;
    const QUALITY: Option<Quality> = W::QUALITY;
    /// The libtorch this crate was built against (mlb-torch-build's
    /// `declare_libtorch_version`, from build.rs).
    const LIBTORCH: &'static str = env!("MLB_LIBTORCH_VERSION");
    const DETERMINISTIC: bool = W::DETERMINISTIC;
    const CHECKPOINT: bool = W::CHECKPOINT;

    fn create(args: Seeded<W::Args>) -> mlb_plugin::Result<Self> {
        Ok(TorchPlugin { settings: Some(W::parse(args.args)?), seed: args.seed, state: None, peak: None })
    }

    fn setup(&mut self, setup: &Setup) -> mlb_plugin::Result<()> {
        let settings = self.settings.take().ok_or_else(|| format!("{}: setup called twice", W::NAME))?;
        let runtime = Runtime::init(setup, self.seed)?;
        let workload = W::build(settings, &runtime)?;
        self.peak = workload.flops_kind().and_then(|kind| crate::probe::on_cpu(runtime.device(), kind));
        self.state = Some((runtime, workload));
        Ok(())
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        match &mut self.state {
            Some((_, w)) => w.step(),
            None => Err(format!("{}: step called before setup", W::NAME).into()),
        }
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        match &mut self.state {
            Some((_, w)) => tch::no_grad(|| w.eval()),
            None => Err(format!("{}: eval called before setup", W::NAME).into()),
        }
    }

    fn sync(&mut self) -> mlb_plugin::Result<()> {
        self.state()?.0.sync();
        Ok(())
    }

    /// The hash of the workload's [`variables`](TorchWorkload::variables)
    /// and their gradients' norm ([`crate::fingerprint::of`]); refused, by
    /// name, for a workload that does not declare itself deterministic.
    fn fingerprint(&mut self) -> mlb_plugin::Result<Fingerprint> {
        if !W::DETERMINISTIC {
            return Err(format!("workload `{}` cannot run deterministically", W::NAME).into());
        }
        Ok(crate::fingerprint::of(&self.state()?.1.variables())?)
    }

    fn inject(&mut self, fault: Fault) -> mlb_plugin::Result<()> {
        self.workload_mut()?.inject(fault)
    }

    /// Writes the workload's variables, [`state`](TorchWorkload::state) and
    /// header into `dir` ([`crate::resume::save`]); refused, by name, for a
    /// workload that cannot checkpoint.
    fn save(&mut self, dir: &Path) -> mlb_plugin::Result<()> {
        let workload = self.checkpointing()?;
        let state = workload.state();
        Ok(resume::save(dir, &workload.checkpoint_header(), &workload.variables(), &state)?)
    }

    /// Reads a checkpoint of `dir` back into the workload, in place
    /// ([`crate::resume::restore`]), then hands it the counters.
    fn restore(&mut self, dir: &Path) -> mlb_plugin::Result<()> {
        let workload = self.checkpointing()?;
        let counters = resume::restore(dir, &workload.checkpoint_header(), &workload.variables(), &workload.state())?;
        self.workload_mut()?.resume(&counters)
    }

    fn report(&self) -> mlb_plugin::Result<Map<String, Value>> {
        let (runtime, workload) = self.state()?;
        let mut out = runtime.report(workload.data());
        workload.report(&mut out);
        if let Some(peak) = self.peak {
            crate::probe::report(peak, &mut out);
        }
        Ok(out)
    }
}

/// Reads a workload's settings from a config's JSON text, as `create` does:
/// the tests' way in.
#[cfg(test)]
pub(crate) fn settings<W: TorchWorkload>(config: &str) -> mlb_plugin::Result<W::Settings> {
    W::parse(W::Args::from_config(&Config::parse(config)?)?)
}
