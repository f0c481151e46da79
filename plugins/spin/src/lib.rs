//! `spin`: a pure-Rust workload doing real CPU work per step, with fault modes.
//!
//! Each step multiplies two dense `size x size` f32 matrices (a real matrix
//! product, `2*size^3` flops) and reports `size` items (rows) and a loss that
//! decreases with the step count. `size: 0` makes a step do no work at all
//! (1 item), which measures the harness's own cost.
//!
//! Its evaluation (for time-to-quality tests) is deterministic: after `items`
//! items trained, `eval` returns `quality = 1 - exp(-lr * items /
//! quality_scale)`, a fraction that rises towards 1 (metric `quality`,
//! higher is better, default target 0.9: reached after `ln 10 *
//! quality_scale / lr` items, 2303 with the defaults, 36 steps of size 64).
//!
//! | arg | effect on `eval` |
//! |---|---|
//! | `quality_scale: S` | items that take the quality to `1 - 1/e` (1000 when absent) |
//! | `lr: L` | multiplies the items (1 when absent); `lr: 0` never learns: the quality stays 0 |
//! | `quality_jitter: J` | scales `quality_scale` by a factor in `[1 - J, 1 + J]` drawn from the seed (none when absent): runs of different seeds converge in different items, as reference runs do |
//! | `batch_size: B` | items a step counts (`size` when absent, 1 for `size: 0`); the step's work stays `size` |
//!
//! Fault modes (step numbers count every step from 1, warm-up included):
//!
//! | arg | outcome |
//! |---|---|
//! | `error_at: N` | step N returns an error (instance fails, cause `error`) |
//! | `panic_at: N` | step N panics (caught at the ABI: cause `panic`) |
//! | `abort_at: N` | step N calls `abort()` (process dies by SIGABRT) |
//! | `segfault_at: N` | step N writes through an invalid pointer (SIGSEGV) |
//! | `nan_at: N` | step N reports a NaN loss (instance fails, cause `nan`) |
//! | `alloc_mb: M` (+ `alloc_at: N`, default 1) | step N allocates M MiB and touches every page |
//! | `sleep_ms: T` | every step also sleeps T ms |
//! | `idle_from: N` (+ `sleep_ms: T`) | steps from N on sleep T ms and do no work (steps before N work, without sleeping): timed steps unlike the warm-up |
//! | `hang_at: N` | step N never returns |
//! | `setup_error: ""` | setup fails |
//!
//! It runs deterministically (its matrices come from `seed`, its product
//! is one thread's, in one order): its fingerprint hashes both matrices and
//! the last product, and it has no gradients. The fault `flip_bit` flips
//! bit 22 of the first element of `a`: every product after it differs.
//!
//! It checkpoints ([`checkpoint`]): `save` writes its step counter, the
//! items trained, the last checksum, the ballast's size and its three
//! matrices (a flipped bit included); a fresh instance of the same `size`
//! and `seed` restored from them steps on as the saved one would have, its
//! fault modes firing at the same step numbers.

mod checkpoint;

use mlb_plugin::{
    export_workload, flip_bit_f32, workload_args, Fault, Fingerprint, ParamHasher, Quality, Setup, Step, Workload,
};
use std::path::Path;
use std::time::Duration;

/// The spin workload.
pub struct Spin {
    size: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    step: u64,
    faults: Args,
    sleep: Option<Duration>,
    ballast: Vec<u8>,
    threads: u32,
    checksum: f64,
    /// Items of every step so far: what `eval`'s quality rises with.
    trained: u64,
}

workload_args! {
    /// Arguments of spin: `size` has a listed default; the fault modes and
    /// the rest are absent unless given (the module's table).
    pub struct Args {
        repeat = 20, number = 10;
        /// Side of the matrices (0: a step does no work).
        pub size: usize = 64,
        /// Seed of the matrices (0 when absent).
        pub seed: Option<u64>,
        /// Step that returns an error.
        pub error_at: Option<u64>,
        /// Step that panics.
        pub panic_at: Option<u64>,
        /// Step that aborts.
        pub abort_at: Option<u64>,
        /// Step that writes through an invalid pointer.
        pub segfault_at: Option<u64>,
        /// Step that reports a NaN loss.
        pub nan_at: Option<u64>,
        /// Step that never returns.
        pub hang_at: Option<u64>,
        /// MiB allocated and touched at `alloc_at` (none when absent).
        pub alloc_mb: Option<usize>,
        /// Step of the allocation (1 when absent).
        pub alloc_at: Option<u64>,
        /// Setup fails.
        pub setup_error: bool,
        /// Milliseconds every step also sleeps (none when absent).
        pub sleep_ms: Option<u64>,
        /// First step that only sleeps.
        pub idle_from: Option<u64>,
        /// Items that take the quality to 1 - 1/e (1000 when absent).
        pub quality_scale: Option<f64>,
        /// Factor of the items in the quality (1 when absent; 0: never learns).
        pub lr: Option<f64>,
        /// Spread of `quality_scale` over seeds: a factor in [1 - J, 1 + J] (none when absent).
        pub quality_jitter: Option<f64>,
        /// Items a step counts (`size` when absent).
        pub batch_size: Option<u64>,
    }
}

/// Items that take the quality to `1 - 1/e` when `quality_scale` is absent.
const DEFAULT_QUALITY_SCALE: f64 = 1000.0;

/// The factor of `quality_scale` for `seed` under `quality_jitter: jitter`:
/// uniform in `[1 - jitter, 1 + jitter]` over seeds (a splitmix64 draw).
fn jitter_factor(seed: u64, jitter: f64) -> f64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let unit = (z >> 11) as f64 / (1u64 << 53) as f64;
    1.0 + jitter * (2.0 * unit - 1.0)
}

/// A deterministic pseudo-random matrix (splitmix64-seeded xorshift64*),
/// values in [-1, 1).
fn matrix(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    state = (state ^ (state >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    state = (state ^ (state >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    state = (state ^ (state >> 31)) | 1;
    (0..n * n)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let bits = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
            (bits as f32 / (1u64 << 23) as f32) - 1.0
        })
        .collect()
}

/// `c = a * b` for row-major `n x n` matrices (i-k-j order, vectorisable).
fn matmul(n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    c.fill(0.0);
    for i in 0..n {
        let row = &mut c[i * n..(i + 1) * n];
        for k in 0..n {
            let aik = a[i * n + k];
            let brow = &b[k * n..(k + 1) * n];
            for (cij, bkj) in row.iter_mut().zip(brow) {
                *cij += aik * bkj;
            }
        }
    }
}

/// Allocates `mb` MiB and writes one byte per page so the memory is resident.
fn touch(mb: usize) -> Vec<u8> {
    let mut v = vec![0u8; mb << 20];
    for page in v.chunks_mut(4096) {
        page[0] = 1;
    }
    std::hint::black_box(&v);
    v
}

/// The bytes of `values`, in the machine's order.
fn bytes_of(values: &[f32]) -> &[u8] {
    // SAFETY: any initialised f32 is 4 initialised bytes; u8 has no alignment.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), size_of_val(values)) }
}

impl Spin {
    fn fires(&self, at: Option<u64>) -> bool {
        at == Some(self.step)
    }
}

impl Workload for Spin {
    const NAME: &'static str = "spin";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const DESCRIPTION: &'static str = "dense f32 matrix product per step, pure Rust; fault modes for testing";
    type Args = Args;
    const QUALITY: Option<Quality> =
        Some(Quality { metric: "quality", unit: "fraction", higher_is_better: true, target: 0.9 });
    const DETERMINISTIC: bool = true;
    const CHECKPOINT: bool = true;

    fn create(args: Args) -> mlb_plugin::Result<Self> {
        if args.quality_scale.is_some_and(|s| s <= 0.0) {
            return Err("argument `quality_scale` must be positive".into());
        }
        if args.quality_jitter.is_some_and(|j| !(0.0..1.0).contains(&j)) {
            return Err("argument `quality_jitter` must be at least 0 and below 1".into());
        }
        let (size, seed) = (args.size, args.seed.unwrap_or(0));
        Ok(Spin {
            size,
            a: matrix(size, seed.wrapping_add(0x9E37_79B9)),
            b: matrix(size, seed.wrapping_add(0x7F4A_7C15)),
            c: vec![0.0; size * size],
            step: 0,
            sleep: args.sleep_ms.filter(|ms| *ms > 0).map(Duration::from_millis),
            faults: args,
            ballast: Vec::new(),
            threads: 1,
            checksum: 0.0,
            trained: 0,
        })
    }

    fn setup(&mut self, setup: &Setup) -> mlb_plugin::Result<()> {
        if self.faults.setup_error {
            return Err("setup failed on request (setup_error)".into());
        }
        self.threads = setup.threads;
        Ok(())
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        self.step += 1;
        let f = &self.faults;
        if self.fires(f.error_at) {
            return Err(format!("spin: error requested at step {}", self.step).into());
        }
        if self.fires(f.panic_at) {
            panic!("spin: panic requested at step {}", self.step);
        }
        if self.fires(f.abort_at) {
            std::process::abort();
        }
        if self.fires(f.segfault_at) {
            // SAFETY: deliberately unsound: this fault mode exists to crash the
            // process with SIGSEGV the way a buggy native workload would.
            unsafe { std::ptr::write_volatile(std::ptr::dangling_mut::<u64>(), 1) };
        }
        if self.fires(f.hang_at) {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        let alloc_mb = f.alloc_mb.unwrap_or(0);
        if alloc_mb > 0 && self.fires(f.alloc_at.or(Some(1))) {
            self.ballast = touch(alloc_mb);
        }
        let idle_from = self.faults.idle_from;
        let idle = idle_from.is_some_and(|n| self.step >= n);
        if let Some(sleep) = self.sleep.filter(|_| idle || idle_from.is_none()) {
            std::thread::sleep(sleep);
        }
        if self.size > 0 && !idle {
            matmul(self.size, &self.a, &self.b, &mut self.c);
            self.checksum = self.c.iter().map(|&x| x as f64).sum::<f64>();
        }
        let loss = if self.fires(self.faults.nan_at) {
            f64::NAN
        } else {
            1.0 / (1.0 + 0.1 * self.step as f64) + 1e-12 * self.checksum.abs().min(1.0)
        };
        let items = self.faults.batch_size.unwrap_or(self.size.max(1) as u64);
        self.trained += items;
        Ok(Step::with_loss(items, loss))
    }

    fn fingerprint(&mut self) -> mlb_plugin::Result<Fingerprint> {
        let mut hasher = ParamHasher::new();
        for matrix in [&self.a, &self.b, &self.c] {
            hasher.update(bytes_of(matrix));
        }
        Ok(Fingerprint { params: hasher.finish(), grad_norm: None })
    }

    fn inject(&mut self, fault: Fault) -> mlb_plugin::Result<()> {
        match fault {
            Fault::FlipBit => flip_bit_f32(&mut self.a, 22),
            Fault::CorruptOutput => Err("spin checks no output: `corrupt_output` is gemm's fault".into()),
        }
    }

    fn save(&mut self, dir: &Path) -> mlb_plugin::Result<()> {
        Ok(checkpoint::save(self, dir)?)
    }

    fn restore(&mut self, dir: &Path) -> mlb_plugin::Result<()> {
        Ok(checkpoint::restore(self, dir)?)
    }

    fn eval(&mut self) -> mlb_plugin::Result<f64> {
        let jitter = match self.faults.quality_jitter {
            Some(j) => jitter_factor(self.faults.seed.unwrap_or(0), j),
            None => 1.0,
        };
        let scale = self.faults.quality_scale.unwrap_or(DEFAULT_QUALITY_SCALE) * jitter;
        let lr = self.faults.lr.unwrap_or(1.0);
        Ok(1.0 - (-lr * self.trained as f64 / scale).exp())
    }

    fn report(&self) -> mlb_plugin::Result<serde_json::Map<String, serde_json::Value>> {
        let flops = 2.0 * (self.size as f64).powi(3);
        let mut report = serde_json::Map::new();
        report.insert("cuda".into(), false.into());
        report.insert("data".into(), "synthetic".into());
        report.insert("threads".into(), self.threads.into());
        report.insert("ballast_mb".into(), (self.ballast.len() >> 20).into());
        report.insert("metrics".into(), serde_json::json!({ "flops_per_step": [flops] }));
        Ok(report)
    }
}

export_workload!(Spin);

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_plugin::{Config, WorkloadArgs};

    fn spin(config: &str) -> Spin {
        Spin::create(Args::from_config(&Config::parse(config).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn the_listed_defaults_are_the_worker_counts_and_size() {
        assert_eq!(Args::DEFAULTS, r#"{"repeat": 20, "number": 10, "size": 64}"#);
        assert!(Args::from_config(&Config::parse(r#"{"alloc_mb": -1}"#).unwrap()).is_err());
    }

    #[test]
    fn matmul_matches_a_hand_product() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [5.0, 6.0, 7.0, 8.0];
        let mut c = [0.0; 4];
        matmul(2, &a, &b, &mut c);
        assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
    }

    #[test]
    fn matrices_are_deterministic_and_bounded() {
        let m = matrix(8, 42);
        assert_eq!(m, matrix(8, 42));
        assert_ne!(m, matrix(8, 43));
        assert!(m.iter().all(|x| (-1.0..1.0).contains(x)));
    }

    #[test]
    fn idle_steps_do_no_work() {
        let mut s = spin(r#"{"size": 8, "idle_from": 2}"#);
        s.step().unwrap();
        let worked = s.checksum;
        assert_ne!(worked, 0.0, "step 1 works");
        s.c.fill(0.0);
        s.step().unwrap();
        assert!(s.c.iter().all(|&x| x == 0.0), "step 2 idles");
    }

    #[test]
    fn quality_rises_with_the_items_trained_unless_lr_is_zero() {
        let mut s = spin(r#"{"size": 10, "quality_scale": 100}"#);
        assert_eq!(s.eval().unwrap(), 0.0);
        for _ in 0..10 {
            s.step().unwrap();
        }
        let after_100 = s.eval().unwrap();
        assert!((after_100 - (1.0 - (-1.0f64).exp())).abs() < 1e-12, "{after_100}");
        assert_eq!(s.eval().unwrap(), after_100, "eval trains nothing");
        for _ in 0..14 {
            s.step().unwrap();
        }
        assert!(s.eval().unwrap() >= Spin::QUALITY.unwrap().target, "240 items reach 0.9 (230 do not) at scale 100");

        let mut frozen = spin(r#"{"size": 10, "quality_scale": 100, "lr": 0}"#);
        for _ in 0..100 {
            frozen.step().unwrap();
        }
        assert_eq!(frozen.eval().unwrap(), 0.0, "lr 0 never learns");
        assert!(Spin::create(Args::from_config(&Config::parse(r#"{"quality_scale": 0}"#).unwrap()).unwrap()).is_err());
    }

    #[test]
    fn the_jitter_spreads_the_items_to_converge_over_seeds_within_its_bounds() {
        let items_to_target = |config: &str| {
            let mut s = spin(config);
            while s.eval().unwrap() < 0.9 {
                s.step().unwrap();
            }
            s.trained
        };
        let plain = items_to_target(r#"{"size": 1, "seed": 3}"#);
        assert_eq!(plain, items_to_target(r#"{"size": 1, "seed": 4}"#), "no jitter: the seed changes nothing");
        let jittered: Vec<u64> = (100..110)
            .map(|seed| items_to_target(&format!(r#"{{"size": 1, "seed": {seed}, "quality_jitter": 0.1}}"#)))
            .collect();
        assert!(jittered.iter().all(|&i| (2072..=2534).contains(&i)), "within 10 % of 2303: {jittered:?}");
        let mut distinct = jittered.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() >= 8, "{jittered:?}");
        assert!(Spin::create(Args::from_config(&Config::parse(r#"{"quality_jitter": 1}"#).unwrap()).unwrap()).is_err());
    }

    #[test]
    fn a_batch_size_sets_the_items_a_step_counts() {
        let mut s = spin(r#"{"size": 4, "batch_size": 64}"#);
        assert_eq!(s.step().unwrap().items, 64);
    }

    #[test]
    fn the_same_seed_fingerprints_the_same_and_a_flipped_bit_shows() {
        let run = |seed: u64, flip_at: Option<u64>| {
            let mut s = spin(&format!(r#"{{"size": 8, "seed": {seed}}}"#));
            (1..=4)
                .map(|step| {
                    let loss = s.step().unwrap().loss.unwrap();
                    if flip_at == Some(step) {
                        s.inject(Fault::FlipBit).unwrap();
                    }
                    (loss.to_bits(), s.fingerprint().unwrap())
                })
                .collect::<Vec<_>>()
        };
        let first = run(5, None);
        assert_eq!(first, run(5, None));
        assert_ne!(first[0].1, run(6, None)[0].1);
        let flipped = run(5, Some(2));
        assert_eq!(flipped[..1], first[..1]);
        assert!(flipped[1..].iter().zip(&first[1..]).all(|(f, c)| f.1 != c.1), "from the flip on");
        assert!(first.iter().all(|(_, f)| f.grad_norm.is_none()));
        assert!(spin("{}").inject(Fault::CorruptOutput).is_err());
    }

    #[test]
    fn loss_decreases_and_items_are_rows() {
        let mut s = spin(r#"{"size": 16}"#);
        let first = s.step().unwrap();
        let second = s.step().unwrap();
        assert_eq!(first.items, 16);
        assert!(second.loss.unwrap() < first.loss.unwrap());
    }
}
