//! The adaptor from a libtorch workload to the plugin SDK's [`Workload`]:
//! arguments are checked on `create`, the runtime (threads, device, seeds)
//! and then the model are built on `setup`, and the shared report fields are
//! added to the workload's own.

use crate::data::DataSource;
use crate::runtime::Runtime;
use mlb_plugin::{Config, Setup, Step, Workload};
use serde_json::{Map, Value};

/// A workload written against libtorch.
pub trait TorchWorkload: Sized + 'static {
    /// Workload name, as used by `plugin` jobs.
    const NAME: &'static str;
    /// One-line description.
    const DESCRIPTION: &'static str;
    /// Default arguments (JSON object): the original suite's values.
    const DEFAULT_ARGS: &'static str;
    /// Parsed arguments.
    type Args;

    /// Reads and checks the arguments (no libtorch work yet).
    fn parse(config: &Config) -> mlb_plugin::Result<Self::Args>;

    /// Builds model, optimizer and data on the runtime's device.
    fn build(args: Self::Args, runtime: &Runtime) -> mlb_plugin::Result<Self>;

    /// One training step.
    fn step(&mut self) -> mlb_plugin::Result<Step>;

    /// Where the data comes from.
    fn data(&self) -> &DataSource;

    /// Adds the workload's own report fields (`metrics`, model details).
    fn report(&self, _out: &mut Map<String, Value>) {}
}

/// A [`TorchWorkload`] as an mlb plugin: export it with
/// `mlb_plugin::export_workload!(TorchPlugin<MyWorkload>)`.
pub struct TorchPlugin<W: TorchWorkload> {
    args: Option<W::Args>,
    seed: u64,
    state: Option<(Runtime, W)>,
}

impl<W: TorchWorkload> TorchPlugin<W> {
    fn state(&self) -> mlb_plugin::Result<&(Runtime, W)> {
        self.state.as_ref().ok_or_else(|| format!("{}: called before setup", W::NAME).into())
    }
}

impl<W: TorchWorkload> Workload for TorchPlugin<W> {
    const NAME: &'static str = W::NAME;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const DESCRIPTION: &'static str = W::DESCRIPTION;
    const DEFAULT_ARGS: &'static str = W::DEFAULT_ARGS;

    fn create(config: &Config) -> mlb_plugin::Result<Self> {
        let seed = config.u64_or("seed", 0)?;
        Ok(TorchPlugin { args: Some(W::parse(config)?), seed, state: None })
    }

    fn setup(&mut self, setup: &Setup) -> mlb_plugin::Result<()> {
        let args = self.args.take().ok_or_else(|| format!("{}: setup called twice", W::NAME))?;
        let runtime = Runtime::init(setup, self.seed)?;
        let workload = W::build(args, &runtime)?;
        self.state = Some((runtime, workload));
        Ok(())
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        match &mut self.state {
            Some((_, w)) => w.step(),
            None => Err(format!("{}: step called before setup", W::NAME).into()),
        }
    }

    fn sync(&mut self) -> mlb_plugin::Result<()> {
        self.state()?.0.sync();
        Ok(())
    }

    fn report(&self) -> mlb_plugin::Result<Map<String, Value>> {
        let (runtime, workload) = self.state()?;
        let mut out = runtime.report(workload.data());
        workload.report(&mut out);
        Ok(out)
    }
}
