//! The CartPole-v1 simulator (Barto, Sutton & Anderson's cart and pole, with
//! the constants, Euler integration, termination bounds and 500-step time
//! limit of Gym's `CartPole-v1`).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GRAVITY: f64 = 9.8;
const CART_MASS: f64 = 1.0;
const POLE_MASS: f64 = 0.1;
const TOTAL_MASS: f64 = CART_MASS + POLE_MASS;
/// Half the pole's length.
const HALF_LENGTH: f64 = 0.5;
const POLE_MASS_LENGTH: f64 = POLE_MASS * HALF_LENGTH;
const FORCE: f64 = 10.0;
/// Seconds between state updates.
const TAU: f64 = 0.02;
/// The episode ends when the pole leans further than 12 degrees...
const THETA_LIMIT: f64 = 12.0 * 2.0 * std::f64::consts::PI / 360.0;
/// ... or the cart leaves the track.
const X_LIMIT: f64 = 2.4;
/// CartPole-v1's time limit.
pub const MAX_STEPS: u32 = 500;

/// Size of an observation: cart position, cart velocity, pole angle, pole
/// angular velocity.
pub const OBSERVATION: usize = 4;
/// Actions: push left (0) or right (1).
pub const ACTIONS: usize = 2;

/// What one step returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    /// The new observation.
    pub state: [f64; OBSERVATION],
    /// 1 for every step survived (CartPole's reward).
    pub reward: f64,
    /// The pole fell, the cart left the track or the time limit was reached.
    pub done: bool,
}

/// One cart and pole.
#[derive(Debug, Clone)]
pub struct CartPole {
    state: [f64; OBSERVATION],
    steps: u32,
    rng: StdRng,
}

impl CartPole {
    /// A simulator whose initial states are drawn from a generator seeded
    /// with `seed`; call [`reset`](Self::reset) to start an episode.
    pub fn new(seed: u64) -> Self {
        CartPole { state: [0.0; OBSERVATION], steps: 0, rng: StdRng::seed_from_u64(seed) }
    }

    /// Starts an episode: each state variable uniform in [-0.05, 0.05].
    pub fn reset(&mut self) -> [f64; OBSERVATION] {
        for v in &mut self.state {
            *v = self.rng.random_range(-0.05..0.05);
        }
        self.steps = 0;
        self.state
    }

    /// The current observation.
    pub fn state(&self) -> [f64; OBSERVATION] {
        self.state
    }

    /// Pushes the cart left (`action` 0) or right (1) for one time step.
    pub fn step(&mut self, action: usize) -> Transition {
        let [x, x_dot, theta, theta_dot] = self.state;
        let force = if action == 1 { FORCE } else { -FORCE };
        let (sin, cos) = theta.sin_cos();
        let temp = (force + POLE_MASS_LENGTH * theta_dot * theta_dot * sin) / TOTAL_MASS;
        let theta_acc = (GRAVITY * sin - cos * temp) / (HALF_LENGTH * (4.0 / 3.0 - POLE_MASS * cos * cos / TOTAL_MASS));
        let x_acc = temp - POLE_MASS_LENGTH * theta_acc * cos / TOTAL_MASS;
        self.state = [x + TAU * x_dot, x_dot + TAU * x_acc, theta + TAU * theta_dot, theta_dot + TAU * theta_acc];
        self.steps += 1;
        let [x, _, theta, _] = self.state;
        let fallen = x.abs() > X_LIMIT || theta.abs() > THETA_LIMIT;
        Transition { state: self.state, reward: 1.0, done: fallen || self.steps >= MAX_STEPS }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resets_near_upright_and_reproducibly() {
        let mut a = CartPole::new(3);
        let mut b = CartPole::new(3);
        let s = a.reset();
        assert_eq!(s, b.reset());
        assert!(s.iter().all(|v| v.abs() <= 0.05));
        assert_ne!(s, CartPole::new(4).reset());
    }

    #[test]
    fn pushing_one_way_moves_the_cart_and_tips_the_pole_the_other_way() {
        let mut env = CartPole::new(0);
        env.state = [0.0; OBSERVATION];
        let t = env.step(1);
        // First Euler step: position and angle still 0, velocities change.
        assert_eq!(t.state[0], 0.0);
        assert!(t.state[1] > 0.0, "cart accelerates right: {:?}", t.state);
        assert!(t.state[3] < 0.0, "pole swings left: {:?}", t.state);
        // Gym's value for this step: x_dot = 0.02 * 9.7561 = 0.195122.
        assert!((t.state[1] - 0.195_122).abs() < 1e-5, "{}", t.state[1]);
        assert!(!t.done);
    }

    #[test]
    fn always_pushing_right_ends_the_episode_early() {
        let mut env = CartPole::new(1);
        env.reset();
        let steps = (1..=MAX_STEPS).find(|_| env.step(1).done).unwrap();
        assert!((5..60).contains(&steps), "fell after {steps} steps");
    }

    #[test]
    fn a_balanced_pole_is_stopped_by_the_time_limit() {
        let mut env = CartPole::new(2);
        env.reset();
        // A simple controller keeps the pole up; only the limit ends it.
        let mut steps = 0;
        loop {
            let [_, _, theta, theta_dot] = env.state();
            steps += 1;
            if env.step(usize::from(theta + 0.5 * theta_dot > 0.0)).done {
                break;
            }
        }
        assert_eq!(steps, MAX_STEPS);
    }
}
