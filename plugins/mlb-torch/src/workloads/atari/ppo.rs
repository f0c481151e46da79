//! Rollout storage, returns with generalised advantage estimation and the
//! PPO update, as pytorch-a2c-ppo-acktr computes them.

use crate::grad;
use crate::workloads::atari::policy::ActorCritic;
use tch::nn;
use tch::{Device, Kind, Tensor};

/// PPO hyper-parameters (the suite's values by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PpoConfig {
    /// Ratio clipping (0.1).
    pub clip: f64,
    /// Optimisation epochs per rollout (4).
    pub epochs: usize,
    /// Minibatches per epoch (4).
    pub minibatches: i64,
    /// Weight of the value loss (0.5).
    pub value_coef: f64,
    /// Weight of the entropy bonus (0.01).
    pub entropy_coef: f64,
    /// Gradient norm limit (0.5).
    pub max_grad_norm: f64,
    /// Discount (0.99).
    pub gamma: f64,
    /// GAE lambda (0.95).
    pub gae_lambda: f64,
}

impl Default for PpoConfig {
    fn default() -> Self {
        PpoConfig {
            clip: 0.1,
            epochs: 4,
            minibatches: 4,
            value_coef: 0.5,
            entropy_coef: 0.01,
            max_grad_norm: 0.5,
            gamma: 0.99,
            gae_lambda: 0.95,
        }
    }
}

/// One rollout of `steps` steps of `n` environments, on the device.
#[derive(Debug)]
pub struct Rollout {
    /// Observations `[steps + 1, n, 4, 84, 84]` (bytes).
    pub obs: Tensor,
    /// Actions `[steps, n, 1]`.
    pub actions: Tensor,
    /// Log-probabilities of the actions when taken `[steps, n, 1]`.
    pub log_probs: Tensor,
    /// Value estimates `[steps + 1, n, 1]` (the last: bootstrap value).
    pub values: Tensor,
    /// Rewards `[steps, n, 1]`.
    pub rewards: Tensor,
    /// 0 where the episode ended after the step, else 1 `[steps + 1, n, 1]`.
    pub masks: Tensor,
}

impl Rollout {
    /// Empty storage.
    pub fn new(steps: i64, n: i64, obs_shape: &[i64], device: Device) -> Self {
        let mut shape = vec![steps + 1, n];
        shape.extend_from_slice(obs_shape);
        let f = (Kind::Float, device);
        Rollout {
            obs: Tensor::zeros(shape.as_slice(), (Kind::Uint8, device)),
            actions: Tensor::zeros([steps, n, 1], (Kind::Int64, device)),
            log_probs: Tensor::zeros([steps, n, 1], f),
            values: Tensor::zeros([steps + 1, n, 1], f),
            rewards: Tensor::zeros([steps, n, 1], f),
            masks: Tensor::ones([steps + 1, n, 1], f),
        }
    }

    /// Steps per rollout.
    pub fn steps(&self) -> i64 {
        self.actions.size()[0]
    }

    /// Discounted returns `[steps, n, 1]` with GAE.
    pub fn returns(&self, gamma: f64, lambda: f64) -> Tensor {
        let steps = self.steps();
        let mut gae = self.values.get(0).zeros_like();
        let mut out = Vec::with_capacity(steps as usize);
        for t in (0..steps).rev() {
            let next = self.masks.get(t + 1);
            let delta = self.rewards.get(t) + self.values.get(t + 1) * &next * gamma - self.values.get(t);
            gae = delta + next * gamma * lambda * gae;
            out.push(&gae + self.values.get(t));
        }
        out.reverse();
        Tensor::stack(&out, 0)
    }

    /// Keeps the last observation and mask as the first of the next rollout.
    pub fn after_update(&mut self) {
        let last = self.steps();
        self.obs.get(0).copy_(&self.obs.get(last));
        self.masks.get(0).copy_(&self.masks.get(last));
    }
}

/// Losses of one PPO pass, averaged over its minibatches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Losses {
    /// Clipped value loss.
    pub value: f64,
    /// Clipped surrogate (policy) loss.
    pub action: f64,
    /// Mean entropy.
    pub entropy: f64,
}

impl Losses {
    /// The optimised objective: `value_coef v + a - entropy_coef e`.
    pub fn total(&self, c: &PpoConfig) -> f64 {
        c.value_coef * self.value + self.action - c.entropy_coef * self.entropy
    }
}

/// Flattened training data of a rollout.
struct Samples {
    obs: Tensor,
    actions: Tensor,
    old_log_probs: Tensor,
    old_values: Tensor,
    returns: Tensor,
    advantages: Tensor,
}

impl Samples {
    fn new(r: &Rollout, c: &PpoConfig) -> Self {
        let steps = r.steps();
        let flat = |t: &Tensor| t.narrow(0, 0, steps).flatten(0, 1);
        let returns = r.returns(c.gamma, c.gae_lambda);
        let advantages = &returns - r.values.narrow(0, 0, steps);
        let advantages = (&advantages - advantages.mean(Kind::Float)) / (advantages.std(true) + 1e-5);
        Samples {
            obs: flat(&r.obs),
            actions: flat(&r.actions),
            old_log_probs: flat(&r.log_probs),
            old_values: flat(&r.values),
            returns: returns.flatten(0, 1),
            advantages: advantages.flatten(0, 1),
        }
    }

    /// The three losses on the samples `idx` (all when `None`).
    fn losses(&self, policy: &ActorCritic, idx: Option<&Tensor>, c: &PpoConfig) -> (Tensor, Tensor, Tensor) {
        let pick = |t: &Tensor| match idx {
            Some(i) => t.index_select(0, i),
            None => t.shallow_clone(),
        };
        let eval = policy.evaluate(&pick(&self.obs), &pick(&self.actions));
        let advantages = pick(&self.advantages);
        let ratio = (eval.log_probs - pick(&self.old_log_probs)).exp();
        let surr1 = &ratio * &advantages;
        let surr2 = ratio.clamp(1.0 - c.clip, 1.0 + c.clip) * &advantages;
        let action_loss = -surr1.minimum(&surr2).mean(Kind::Float);
        let (old_values, returns) = (pick(&self.old_values), pick(&self.returns));
        let clipped = &old_values + (&eval.values - &old_values).clamp(-c.clip, c.clip);
        let value_loss =
            (eval.values - &returns).square().maximum(&(clipped - &returns).square()).mean(Kind::Float) * 0.5;
        (value_loss, action_loss, eval.entropy)
    }
}

/// The losses of `policy` on a whole rollout, without updating anything.
pub fn evaluate(policy: &ActorCritic, rollout: &Rollout, c: &PpoConfig) -> Losses {
    let samples = Samples::new(rollout, c);
    let (v, a, e) = tch::no_grad(|| samples.losses(policy, None, c));
    Losses { value: v.double_value(&[]), action: a.double_value(&[]), entropy: e.double_value(&[]) }
}

/// `epochs` passes of `minibatches` random minibatches over the rollout,
/// each an optimiser step on the clipped objective. Returns the mean losses.
pub fn update(
    policy: &ActorCritic,
    opt: &mut nn::Optimizer,
    params: &[Tensor],
    rollout: &Rollout,
    c: &PpoConfig,
) -> Losses {
    let samples = Samples::new(rollout, c);
    let total = samples.actions.size()[0];
    let size = total / c.minibatches;
    let device = samples.actions.device();
    let mut sums = Vec::new();
    for _ in 0..c.epochs {
        let order = Tensor::randperm(total, (Kind::Int64, device));
        for m in 0..c.minibatches {
            let idx = order.narrow(0, m * size, size);
            let (value, action, entropy) = samples.losses(policy, Some(&idx), c);
            let loss = &value * c.value_coef + &action - &entropy * c.entropy_coef;
            opt.zero_grad();
            loss.backward();
            grad::clip_grad_norm(&grad::grads(params), c.max_grad_norm);
            opt.step();
            sums.push(Tensor::stack(&[value, action, entropy], 0).detach());
        }
    }
    let mean = Vec::<f64>::try_from(&Tensor::stack(&sums, 0).mean_dim(0, false, Kind::Double)).expect("three losses");
    Losses { value: mean[0], action: mean[1], entropy: mean[2] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gae_returns_match_a_hand_computation() {
        let mut r = Rollout::new(2, 1, &[1], Device::Cpu);
        r.values = Tensor::from_slice(&[0.5f32, 0.25, 1.0]).view([3, 1, 1]);
        r.rewards = Tensor::from_slice(&[1.0f32, 0.0]).view([2, 1, 1]);
        r.masks = Tensor::from_slice(&[1.0f32, 0.0, 1.0]).view([3, 1, 1]);
        let ret = Vec::<f32>::try_from(&r.returns(0.9, 0.8).view([-1])).unwrap();
        // t=1: delta = 0 + 0.9*1.0*1 - 0.25 = 0.65, gae = 0.65 -> 0.9
        // t=0: mask 0 cuts the future: delta = 1 - 0.5 = 0.5 -> 1.0
        assert!((ret[1] - 0.9).abs() < 1e-6 && (ret[0] - 1.0).abs() < 1e-6, "{ret:?}");
    }
}
