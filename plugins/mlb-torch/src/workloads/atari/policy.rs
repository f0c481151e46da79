//! The actor-critic of the PPO Atari baseline (`CNNBase` of
//! pytorch-a2c-ppo-acktr): three convolutions (32 8x8/4, 64 4x4/2,
//! 32 3x3/1), a 512-unit layer, a value head and a categorical action head;
//! orthogonal initialisation (gain sqrt(2) in the body, 1 for the value,
//! 0.01 for the actions), zero biases. Frames are bytes: divided by 255.

use tch::nn::{self, Init, Module};
use tch::{Kind, Tensor};

fn orthogonal(gain: f64) -> Init {
    Init::Orthogonal { gain }
}

fn linear(vs: nn::Path, i: i64, o: i64, gain: f64) -> nn::Linear {
    nn::linear(vs, i, o, nn::LinearConfig { ws_init: orthogonal(gain), bs_init: Some(Init::Const(0.0)), bias: true })
}

fn conv(vs: nn::Path, i: i64, o: i64, k: i64, stride: i64) -> nn::Conv2D {
    let config = nn::ConvConfig { stride, bs_init: Init::Const(0.0), ..Default::default() };
    let mut c = nn::conv2d(vs, i, o, k, config);
    // Orthogonal over the flattened `[o, i k k]` weight (tch's `Init::Orthogonal`
    // would give the variable that 2-d shape).
    let q = nn::init::init(orthogonal(2f64.sqrt()), &[o, i * k * k], c.ws.device());
    tch::no_grad(|| c.ws.copy_(&q.view_as(&c.ws)));
    c
}

/// What the policy says about a batch of observations.
#[derive(Debug)]
pub struct Evaluation {
    /// State values `[n, 1]`.
    pub values: Tensor,
    /// Log-probabilities of the actions asked about `[n, 1]`.
    pub log_probs: Tensor,
    /// Mean entropy of the action distributions (0-dim).
    pub entropy: Tensor,
}

/// The actor-critic network.
#[derive(Debug)]
pub struct ActorCritic {
    body: nn::Sequential,
    critic: nn::Linear,
    actor: nn::Linear,
}

impl ActorCritic {
    /// Builds the network for `stack` input frames and `actions` actions.
    pub fn new(vs: &nn::Path, stack: i64, actions: i64) -> Self {
        let relu = |x: &Tensor| x.relu();
        let body = nn::seq()
            .add(conv(vs / "conv1", stack, 32, 8, 4))
            .add_fn(relu)
            .add(conv(vs / "conv2", 32, 64, 4, 2))
            .add_fn(relu)
            .add(conv(vs / "conv3", 64, 32, 3, 1))
            .add_fn(|x| x.relu().flatten(1, -1))
            .add(linear(vs / "fc", 32 * 7 * 7, 512, 2f64.sqrt()))
            .add_fn(relu);
        ActorCritic {
            body,
            critic: linear(vs / "critic", 512, 1, 1.0),
            actor: linear(vs / "actor", 512, actions, 0.01),
        }
    }

    fn heads(&self, frames: &Tensor) -> (Tensor, Tensor) {
        let h = self.body.forward(&(frames.to_kind(Kind::Float) / 255.0));
        (self.critic.forward(&h), self.actor.forward(&h).log_softmax(-1, Kind::Float))
    }

    /// Samples actions `[n, 1]`, with their log-probabilities and the values.
    pub fn act(&self, frames: &Tensor) -> (Tensor, Tensor, Tensor) {
        let (values, log_probs) = self.heads(frames);
        let actions = log_probs.exp().multinomial(1, true);
        let chosen = log_probs.gather(1, &actions, false);
        (actions, chosen, values)
    }

    /// Values only.
    pub fn value(&self, frames: &Tensor) -> Tensor {
        self.heads(frames).0
    }

    /// Values, log-probabilities of `actions` and the entropy.
    pub fn evaluate(&self, frames: &Tensor, actions: &Tensor) -> Evaluation {
        let (values, log_probs) = self.heads(frames);
        let entropy = -(log_probs.exp() * &log_probs).sum_dim_intlist(-1, false, Kind::Float).mean(Kind::Float);
        Evaluation { values, log_probs: log_probs.gather(1, actions, false), entropy }
    }
}
