//! atari: PPO on 16 parallel environments of 84x84x4 frames, as the suite's
//! `PongNoFrameskip-v4` baseline (pytorch-a2c-ppo-acktr): 128 steps per
//! rollout, GAE (lambda 0.95, gamma 0.99), 4 epochs of 4 minibatches, ratio
//! clip 0.1, value coefficient 0.5, entropy 0.01, Adam 7e-4 (eps 1e-5) with
//! linear decay, gradient norm 0.5. Atari ROMs are not available, so the
//! environments are a built-in Pong-like game ([`env`]) with the same
//! observation and action shapes. One plugin step is one rollout plus its
//! update; the item is an environment step.

pub mod env;
pub mod policy;
pub mod ppo;

use crate::data::DataSource;
use crate::metrics::Metrics;
use crate::{weights, Runtime, TorchWorkload};
use env::Envs;
use mlb_plugin::Step;
use policy::ActorCritic;
use ppo::{PpoConfig, Rollout};
use serde_json::{Map, Value};
use std::path::PathBuf;
use tch::nn::{self, OptimizerConfig};
use tch::{Device, Kind, Tensor};

mlb_plugin::workload_args! {
    /// The arguments of atari, with the original suite's defaults.
    pub struct Args {
        repeat = 15, number = 5;
        /// Environments run in parallel.
        pub num_processes: usize = 16,
        /// Steps of each environment per rollout.
        pub num_steps: u64 = 128,
        /// Learning rate of Adam.
        pub lr: f64 = 0.0007,
        /// PPO's clip of the probability ratio.
        pub clip_param: f64 = 0.1,
        /// Passes of PPO over each rollout.
        pub ppo_epoch: usize = 4,
        /// Minibatches each pass is cut into (1 or more).
        pub num_mini_batch: u64 = 4,
        /// Weight of the value loss.
        pub value_loss_coef: f64 = 0.5,
        /// Weight of the entropy bonus.
        pub entropy_coef: f64 = 0.01,
        /// Advantages by GAE with `gae_lambda` (else plain discounted returns).
        pub use_gae: bool = "",
        /// Lambda of GAE, 0 to 1.
        pub gae_lambda: f64 = 0.95,
        /// Discount factor of the returns, 0 to 1.
        pub gamma: f64 = 0.99,
        /// The learning rate decays linearly to 0 over `num_env_steps`.
        pub use_linear_lr_decay: bool = "",
        /// Environment steps of the whole run the linear decay spans.
        pub num_env_steps: u64 = 10000000,
        /// Gradient norm clipped to this (L2; 0.5 when absent).
        pub max_grad_norm: Option<f64>,
        /// A file of initial weights (`.safetensors`, else a libtorch
        /// archive); random initialisation when absent.
        pub weights: Option<String>,
        /// The algorithm: only `ppo` (the default) is built.
        pub algo: Option<String>,
        /// The environment: only the built-in Pong-like game, a name
        /// starting with `Pong` (`PongNoFrameskip-v4` when absent).
        pub env_name: Option<String>,
    }
}

/// Settings of atari: its arguments checked and converted.
#[derive(Debug, Clone)]
pub struct Settings {
    processes: usize,
    steps: i64,
    lr: f64,
    linear_decay: bool,
    env_steps: u64,
    ppo: PpoConfig,
    weights: Option<PathBuf>,
}

/// The atari workload.
pub struct Atari {
    envs: Envs,
    policy: ActorCritic,
    opt: nn::Optimizer,
    params: Vec<Tensor>,
    rollout: Rollout,
    args: Settings,
    updates: u64,
    episode_rewards: Vec<f64>,
    finished: Vec<f64>,
    metrics: Metrics,
    device: Device,
    data: DataSource,
    _vs: nn::VarStore,
}

impl Atari {
    /// Observations of all environments `[n, 4, 84, 84]` on the device.
    fn observations(&self) -> Tensor {
        Tensor::from_slice(self.envs.observations())
            .view([self.envs.len() as i64, env::STACK as i64, env::SIDE as i64, env::SIDE as i64])
            .to(self.device)
    }

    /// Plays `steps` steps in every environment, filling the rollout.
    fn collect(&mut self) {
        for t in 0..self.args.steps {
            let (actions, log_probs, values) = tch::no_grad(|| self.policy.act(&self.rollout.obs.get(t)));
            let chosen: Vec<usize> = Vec::<i64>::try_from(&actions.view([-1]))
                .expect("int64 actions")
                .into_iter()
                .map(|a| a as usize)
                .collect();
            let outcomes = self.envs.step(&chosen);
            let rewards: Vec<f32> = outcomes.iter().map(|o| o.reward).collect();
            let masks: Vec<f32> = outcomes.iter().map(|o| if o.done { 0.0 } else { 1.0 }).collect();
            for (i, o) in outcomes.iter().enumerate() {
                self.episode_rewards[i] += f64::from(o.reward);
                if o.done {
                    self.finished.push(std::mem::take(&mut self.episode_rewards[i]));
                }
            }
            let obs = self.observations();
            let r = &mut self.rollout;
            r.obs.get(t + 1).copy_(&obs);
            r.actions.get(t).copy_(&actions);
            r.log_probs.get(t).copy_(&log_probs);
            r.values.get(t).copy_(&values);
            r.rewards.get(t).copy_(&Tensor::from_slice(&rewards).view([-1, 1]));
            r.masks.get(t + 1).copy_(&Tensor::from_slice(&masks).view([-1, 1]));
        }
        let last = self.rollout.obs.get(self.args.steps);
        let bootstrap = tch::no_grad(|| self.policy.value(&last));
        self.rollout.values.get(self.args.steps).copy_(&bootstrap);
    }

    /// Mean reward of the points played in the last rollout.
    fn rollout_reward(&self) -> f64 {
        self.rollout.rewards.sum(Kind::Float).double_value(&[]) / self.envs.len() as f64
    }
}

impl TorchWorkload for Atari {
    const NAME: &'static str = "atari";
    const DESCRIPTION: &'static str =
        "PPO actor-critic CNN on 16 built-in Pong-like environments (84x84x4 frames), 128-step rollouts";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        let algo = args.algo.unwrap_or_else(|| "ppo".to_string());
        if algo != "ppo" {
            return Err(format!("atari: only `algo` \"ppo\" is implemented, got {algo:?}").into());
        }
        let name = args.env_name.unwrap_or_else(|| "PongNoFrameskip-v4".to_string());
        if !name.starts_with("Pong") {
            return Err(format!(
                "atari: only the built-in Pong-like environment exists (env_name Pong...), got {name:?}"
            )
            .into());
        }
        let ppo = PpoConfig {
            clip: args.clip_param,
            epochs: args.ppo_epoch,
            minibatches: args.num_mini_batch.max(1) as i64,
            value_coef: args.value_loss_coef,
            entropy_coef: args.entropy_coef,
            max_grad_norm: args.max_grad_norm.unwrap_or(0.5),
            gamma: args.gamma,
            // Without `use_gae` the returns are plain discounted sums (lambda 1).
            gae_lambda: if args.use_gae { args.gae_lambda } else { 1.0 },
        };
        let args = Settings {
            processes: args.num_processes,
            steps: args.num_steps as i64,
            lr: args.lr,
            linear_decay: args.use_linear_lr_decay,
            env_steps: args.num_env_steps,
            ppo,
            weights: args.weights.map(PathBuf::from),
        };
        if args.processes == 0 || args.steps == 0 || (args.processes as i64 * args.steps) < ppo.minibatches {
            return Err(format!(
                "atari: num_processes x num_steps ({} x {}) must be at least num_mini_batch ({})",
                args.processes, args.steps, ppo.minibatches
            )
            .into());
        }
        Ok(args)
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let device = rt.device();
        let mut vs = nn::VarStore::new(device);
        let policy = ActorCritic::new(&vs.root(), env::STACK as i64, env::ACTIONS as i64);
        if let Some(path) = &args.weights {
            weights::load(&mut vs, path)?;
        }
        let opt = nn::Adam { eps: 1e-5, ..Default::default() }.build(&vs, args.lr)?;
        let envs = Envs::new(args.processes, rt.seed());
        let obs_shape = [env::STACK as i64, env::SIDE as i64, env::SIDE as i64];
        let rollout = Rollout::new(args.steps, args.processes as i64, &obs_shape, device);
        let w = Atari {
            params: vs.trainable_variables(),
            episode_rewards: vec![0.0; args.processes],
            envs,
            policy,
            opt,
            rollout,
            args,
            updates: 0,
            finished: Vec::new(),
            metrics: Metrics::default(),
            device,
            data: DataSource::Synthetic { requested: None },
            _vs: vs,
        };
        w.rollout.obs.get(0).copy_(&w.observations());
        Ok(w)
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        if self.args.linear_decay {
            let total = (self.args.env_steps / (self.args.steps as u64 * self.args.processes as u64)).max(1);
            let lr = self.args.lr * (1.0 - (self.updates.min(total) as f64 / total as f64));
            self.opt.set_lr(lr);
        }
        self.collect();
        let losses = ppo::update(&self.policy, &mut self.opt, &self.params, &self.rollout, &self.args.ppo);
        self.rollout.after_update();
        self.updates += 1;
        self.metrics.push("value_loss", losses.value);
        self.metrics.push("action_loss", losses.action);
        self.metrics.push("entropy", losses.entropy);
        self.metrics.push("reward_per_env", self.rollout_reward());
        let items = (self.args.steps * self.args.processes as i64) as u64;
        Ok(Step::with_loss(items, losses.total(&self.args.ppo)))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        out.insert("environment".into(), "built-in Pong-like game, 84x84x4 frames (Atari ROMs unavailable)".into());
        out.insert("updates".into(), self.updates.into());
        out.insert("games_finished".into(), self.finished.len().into());
        out.insert("metrics".into(), self.metrics.to_json());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atari(args: &str) -> Atari {
        Atari::build(crate::plugin::settings::<Atari>(args).unwrap(), &Runtime::cpu(0).unwrap()).unwrap()
    }

    /// The clipped surrogate is what the update climbs: on its own rollout
    /// it goes down. (The total can rise a little when the rollout's returns
    /// are all near 0: the value loss starts near 0 and the shared trunk
    /// moves with the policy; the test threads share libtorch's generator,
    /// so the rollout differs from run to run.)
    #[test]
    fn the_ppo_update_lowers_the_surrogate_loss_on_its_rollout() {
        let mut w = atari(r#"{"num_processes": 4, "num_steps": 16, "ppo_epoch": 4, "num_mini_batch": 2, "lr": 0.001}"#);
        w.collect();
        let c = w.args.ppo;
        let before = ppo::evaluate(&w.policy, &w.rollout, &c);
        ppo::update(&w.policy, &mut w.opt, &w.params, &w.rollout, &c);
        let after = ppo::evaluate(&w.policy, &w.rollout, &c);
        assert!(after.action < before.action - 1e-4, "{before:?} -> {after:?}");
        assert!(after.value.is_finite() && after.entropy > 0.0, "{after:?}");
    }

    #[test]
    fn a_step_plays_every_environment_and_carries_the_last_frame_over() {
        let mut w = atari(r#"{"num_processes": 2, "num_steps": 4, "num_mini_batch": 2, "ppo_epoch": 1}"#);
        let step = w.step().unwrap();
        assert_eq!(step.items, 8);
        assert!(step.loss.is_some_and(f64::is_finite));
        let first = w.rollout.obs.get(0);
        assert!(first.equal(&w.observations()), "the next rollout starts from the current frames");
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!(out["updates"], 1);
    }

    #[test]
    fn other_games_are_refused() {
        let e = crate::plugin::settings::<Atari>(r#"{"env_name": "BreakoutNoFrameskip-v4"}"#).err().unwrap();
        assert!(e.to_string().contains("Breakout"), "{e}");
    }
}
