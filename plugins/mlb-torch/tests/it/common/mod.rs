//! Helpers shared by the integration tests: running a workload in process
//! on the CPU, and generating small data sets in the real formats.

pub mod binary;

use mlb_plugin::{Config, Setup, Step, Workload, WorkloadArgs};
use mlb_torch::{TorchPlugin, TorchWorkload};
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::Mutex;

/// libtorch's generator and thread count are process-wide: tests that train
/// take this lock so that a fixed seed gives the same run every time.
pub static TORCH: Mutex<()> = Mutex::new(());

/// A workload instance set up on the CPU (one thread unless told).
pub struct Run<W: TorchWorkload> {
    plugin: TorchPlugin<W>,
}

impl<W: TorchWorkload> Run<W> {
    /// Creates and sets up `W` with `config` (a JSON object).
    pub fn new(config: &str) -> Self {
        Run::with_setup(config, &Setup::new("cpu", 1))
    }

    /// Creates `W` with `config` and sets it up with `setup`.
    pub fn with_setup(config: &str, setup: &Setup) -> Self {
        let config = Config::parse(config).expect("test config is JSON");
        let mut plugin = <TorchPlugin<W> as Workload>::Args::from_config(&config)
            .map_err(mlb_plugin::Error::from)
            .and_then(TorchPlugin::<W>::create)
            .unwrap_or_else(|e| panic!("{}: create: {e}", W::NAME));
        plugin.setup(setup).unwrap_or_else(|e| panic!("{}: setup: {e}", W::NAME));
        Run { plugin }
    }

    /// The plugin, for the calls the helpers here do not wrap.
    pub fn plugin(&mut self) -> &mut TorchPlugin<W> {
        &mut self.plugin
    }

    /// Runs one step.
    pub fn step(&mut self) -> Step {
        self.plugin.step().unwrap_or_else(|e| panic!("{}: step: {e}", W::NAME))
    }

    /// Evaluates the model on its held-out data.
    pub fn eval(&mut self) -> f64 {
        self.try_eval().unwrap_or_else(|e| panic!("{}: eval: {e}", W::NAME))
    }

    /// Evaluates the model on its held-out data, or says why it cannot.
    pub fn try_eval(&mut self) -> mlb_plugin::Result<f64> {
        self.plugin.eval()
    }

    /// The report fragment.
    pub fn report(&self) -> Map<String, Value> {
        self.plugin.report().expect("report")
    }
}

/// Runs `steps` steps of `W` with `config` under the libtorch lock; returns
/// the losses and the report.
pub fn train<W: TorchWorkload>(config: &str, steps: usize) -> (Vec<f64>, Map<String, Value>) {
    let _guard = TORCH.lock().unwrap_or_else(|e| e.into_inner());
    let mut run = Run::<W>::new(config);
    let losses = (0..steps).map(|_| run.step().loss.expect("the step has a loss")).collect();
    (losses, run.report())
}

/// Evaluates `W` with `config` before and after `steps` steps, under the
/// libtorch lock.
pub fn evals<W: TorchWorkload>(config: &str, steps: usize) -> (f64, f64) {
    let _guard = TORCH.lock().unwrap_or_else(|e| e.into_inner());
    let mut run = Run::<W>::new(config);
    let before = run.eval();
    for _ in 0..steps {
        run.step();
    }
    (before, run.eval())
}

/// Asserts that the mean loss of the last `window` steps is below that of
/// the first `window`.
pub fn assert_learns(name: &str, losses: &[f64], window: usize) {
    assert!(losses.iter().all(|l| l.is_finite()), "{name}: non-finite loss in {losses:?}");
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let (first, last) = (mean(&losses[..window]), mean(&losses[losses.len() - window..]));
    assert!(last < first, "{name}: loss did not decrease: first {first}, last {last}, all {losses:?}");
}

/// Writes `count` JPEG pictures of `w x h` into `dir`.
pub fn write_jpegs(dir: &Path, count: usize, w: u32, h: u32, seed: u64) {
    use rand::SeedableRng;
    std::fs::create_dir_all(dir).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for (i, bytes) in mlb_torch::synth::jpegs(count, w, h, &mut rng).into_iter().enumerate() {
        std::fs::write(dir.join(format!("img{i:03}.JPEG")), bytes).unwrap();
    }
}

/// An ImageNet-style folder: `classes` sub-folders of `per_class` JPEGs.
pub fn image_classes(root: &Path, classes: usize, per_class: usize) {
    for c in 0..classes {
        write_jpegs(&root.join(format!("n{c:08}")), per_class, 96, 72, c as u64);
    }
}

/// A learnable ImageNet-style folder: `classes` (at most 3) sub-folders of
/// `per_class` noisy JPEGs whose strongest colour channel is the class's.
pub fn colour_classes(root: &Path, classes: usize, per_class: usize) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for c in 0..classes {
        let dir = root.join(format!("n{c:08}"));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..per_class {
            let picture = image::RgbImage::from_fn(48, 40, |_, _| {
                image::Rgb(std::array::from_fn(|ch| {
                    let base = if ch == c { 200 } else { 60 };
                    (base + rng.random_range(0..50u32)) as u8
                }))
            });
            picture.save(dir.join(format!("img{i:03}.JPEG"))).unwrap();
        }
    }
}
