//! cart: a CartPole policy trained with REINFORCE, on the CPU.
//!
//! Policy `Linear(4,128) - ReLU - Linear(128,2) - softmax`, Adam 1e-2. One
//! plugin step is one environment step (the item): the policy samples an
//! action, the simulator ([`env::CartPole`], in Rust) advances; when the
//! episode ends, the discounted (gamma 0.99), normalised returns weight the
//! log-probabilities of the episode's actions and the policy takes one Adam
//! step, as PyTorch's `reinforce.py` example does.

pub mod env;

use crate::data::DataSource;
use crate::metrics::Metrics;
use crate::{Runtime, TorchWorkload};
use env::{CartPole, ACTIONS, OBSERVATION};
use mlb_plugin::Step;
use serde_json::{Map, Value};
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind, Tensor};

/// Hidden units of the policy.
pub const HIDDEN: i64 = 128;

mlb_plugin::workload_args! {
    /// The arguments of cart, with the original suite's defaults.
    pub struct Args {
        repeat = 200, number = 500;
        /// Discount factor of the returns, 0 to 1.
        pub gamma: f64 = 0.99,
        /// Learning rate of Adam.
        pub lr: f64 = 0.01,
    }
}

/// Settings of cart: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    gamma: f64,
    lr: f64,
}

/// The cart workload.
pub struct Cart {
    env: CartPole,
    state: [f64; OBSERVATION],
    policy: nn::Sequential,
    opt: nn::Optimizer,
    gamma: f64,
    log_probs: Vec<Tensor>,
    rewards: Vec<f64>,
    episodes: u64,
    running_reward: f64,
    last_loss: Option<f64>,
    metrics: Metrics,
    data: DataSource,
    _vs: nn::VarStore,
}

impl Cart {
    /// Lengths of the episodes finished so far are summarised by the running
    /// reward (`0.05 * length + 0.95 * previous`, starting at 10).
    pub fn running_reward(&self) -> f64 {
        self.running_reward
    }

    /// Episodes finished so far.
    pub fn episodes(&self) -> u64 {
        self.episodes
    }

    fn act(&mut self) -> usize {
        let state: Vec<f32> = self.state.iter().map(|&v| v as f32).collect();
        let probs = self.policy.forward(&Tensor::from_slice(&state).unsqueeze(0)).softmax(-1, Kind::Float);
        let action = probs.multinomial(1, true);
        self.log_probs.push(probs.log().gather(1, &action, false).squeeze());
        action.int64_value(&[0, 0]) as usize
    }

    /// REINFORCE update at the end of an episode.
    fn finish_episode(&mut self) -> f64 {
        let mut ret = 0.0;
        let mut returns: Vec<f32> = self
            .rewards
            .iter()
            .rev()
            .map(|r| {
                ret = r + self.gamma * ret;
                ret as f32
            })
            .collect();
        returns.reverse();
        let returns = Tensor::from_slice(&returns);
        let returns = (&returns - returns.mean(Kind::Float)) / (returns.std(true) + f64::from(f32::EPSILON));
        let loss = (-Tensor::stack(&self.log_probs, 0) * returns).sum(Kind::Float);
        self.opt.backward_step(&loss);
        let length = self.rewards.len() as f64;
        self.running_reward = 0.05 * length + 0.95 * self.running_reward;
        self.metrics.push("episode_length", length);
        self.metrics.push("running_reward", self.running_reward);
        self.episodes += 1;
        self.log_probs.clear();
        self.rewards.clear();
        loss.double_value(&[])
    }
}

impl TorchWorkload for Cart {
    const NAME: &'static str = "cart";
    const DESCRIPTION: &'static str = "CartPole (Rust simulator) policy trained by REINFORCE, Adam 1e-2, CPU only";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let gamma = args.gamma;
        if !(0.0..=1.0).contains(&gamma) {
            return Err(format!("cart: argument `gamma` must be in [0, 1], got {gamma}").into());
        }
        Ok(Settings { gamma, lr: args.lr })
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        // The original runs on the CPU whatever the host has (`--no-cuda`).
        let vs = nn::VarStore::new(Device::Cpu);
        let root = vs.root();
        let policy = nn::seq()
            .add(nn::linear(&root / "affine1", OBSERVATION as i64, HIDDEN, Default::default()))
            .add_fn(|x| x.relu())
            .add(nn::linear(&root / "affine2", HIDDEN, ACTIONS as i64, Default::default()));
        let opt = nn::Adam::default().build(&vs, args.lr)?;
        let mut env = CartPole::new(rt.seed());
        let state = env.reset();
        Ok(Cart {
            env,
            state,
            policy,
            opt,
            gamma: args.gamma,
            log_probs: Vec::new(),
            rewards: Vec::new(),
            episodes: 0,
            running_reward: 10.0,
            last_loss: None,
            metrics: Metrics::default(),
            data: DataSource::Synthetic { requested: None },
            _vs: vs,
        })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let action = self.act();
        let t = self.env.step(action);
        self.rewards.push(t.reward);
        self.state = t.state;
        if t.done {
            self.last_loss = Some(self.finish_episode());
            self.state = self.env.reset();
        }
        Ok(Step { items: 1, loss: self.last_loss })
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        // CPU only, whatever device the slot has.
        out.insert("cuda".into(), false.into());
        out.remove("gpu");
        out.insert("environment".into(), "CartPole-v1 (built-in Rust simulator)".into());
        out.insert("episodes".into(), self.episodes.into());
        out.insert("metrics".into(), self.metrics.to_json());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libtorch's generator is global: tests that sample actions take turns,
    /// so that a seed gives one trajectory.
    static TORCH_RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn cart(seed: u64) -> Cart {
        let args = crate::plugin::settings::<Cart>("{}").unwrap();
        Cart::build(args, &Runtime::cpu(seed).unwrap()).unwrap()
    }

    /// The running reward after 20 episodes, and the best one reached in
    /// the next `steps` environment steps, of seed `seed`.
    fn early_and_best(seed: u64, steps: usize) -> (f64, f64) {
        let mut w = cart(seed);
        while w.episodes() < 20 {
            w.step().unwrap();
        }
        let early = w.running_reward();
        let mut best = early;
        for _ in 0..steps {
            w.step().unwrap();
            best = best.max(w.running_reward());
        }
        (early, best)
    }

    /// The median of `values` (an odd count).
    fn median(mut values: Vec<f64>) -> f64 {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    }

    /// REINFORCE is noisy, and one seed is one trajectory that a CPU whose
    /// matrix kernels sum in another order (MKL's AVX-512 paths against its
    /// AVX2 or compatible ones) sends elsewhere: in 25,000 steps, seed 0
    /// reached a best running reward of 96.7 on one path and 362 on
    /// another, and about one seed in six collapses to one action within
    /// its first episodes on every path. The policy is judged on the median
    /// of eleven seeds' best running reward in 40,000 steps: 187 to 247 on
    /// the three paths of an AVX-512 CPU, where a policy that does not
    /// learn (`lr` 0) stays below 27 on every seed.
    #[test]
    fn the_policy_learns_to_balance_the_pole() {
        let _turn = TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        let runs: Vec<(f64, f64)> = (0..11).map(|seed| early_and_best(seed, 40_000)).collect();
        let (early, best) = (median(runs.iter().map(|r| r.0).collect()), median(runs.iter().map(|r| r.1).collect()));
        eprintln!("cart: (running reward after 20 episodes, best) of seeds 0 to 10: {runs:.1?}");
        assert!(best > 3.0 * early && best > 100.0, "median running reward {early:.1} -> best {best:.1}: {runs:.1?}");
    }

    #[test]
    fn every_step_is_one_environment_step_and_losses_appear_after_an_episode() {
        let _turn = TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        let mut w = cart(1);
        let first = w.step().unwrap();
        assert_eq!(first, Step { items: 1, loss: None });
        while w.episodes() == 0 {
            w.step().unwrap();
        }
        assert!(w.step().unwrap().loss.is_some_and(f64::is_finite));
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!(out["episodes"], 1);
        assert_eq!(out["metrics"]["episode_length"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn gamma_outside_the_unit_interval_is_refused() {
        let e = crate::plugin::settings::<Cart>(r#"{"gamma": 1.5}"#).err().unwrap().to_string();
        assert!(e.contains("gamma"), "{e}");
    }
}
