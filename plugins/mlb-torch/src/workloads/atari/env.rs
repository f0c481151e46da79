//! A built-in Pong-like game producing Atari-shaped observations: Atari ROMs
//! cannot be shipped, so the agent plays this instead of
//! `PongNoFrameskip-v4`. Each environment renders 84x84 grey frames and the
//! agent sees the last four (`4 x 84 x 84`, bytes), as after the usual Atari
//! wrappers (grey scale, resize to 84, frame stack 4).
//!
//! The agent moves the right paddle (Pong's six actions: 0/1 stay, 2/4 up,
//! 3/5 down); a scripted opponent follows the ball with a limited speed. A
//! point scored is +1, a point conceded -1; a game ends at 21 points for
//! either side (or after [`MAX_TICKS`]) and the environment starts a new one.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Frame side.
pub const SIDE: usize = 84;
/// Frames stacked in an observation.
pub const STACK: usize = 4;
/// Bytes of one observation.
pub const OBSERVATION: usize = STACK * SIDE * SIDE;
/// Actions (Pong's minimal action set).
pub const ACTIONS: usize = 6;
/// Points that end a game.
pub const POINTS: u32 = 21;
/// Ticks after which a game is cut short.
pub const MAX_TICKS: u32 = 10_000;

const BACKGROUND: u8 = 87;
const PADDLE: u8 = 200;
const BALL: u8 = 236;
const PADDLE_HALF: f32 = 4.0;
const PADDLE_SPEED: f32 = 2.0;
const OPPONENT_SPEED: f32 = 1.2;
const LEFT_X: f32 = 4.0;
const RIGHT_X: f32 = (SIDE - 5) as f32;

/// One game.
#[derive(Debug, Clone)]
pub struct Pong {
    ball: (f32, f32),
    velocity: (f32, f32),
    agent: f32,
    opponent: f32,
    score: (u32, u32),
    ticks: u32,
    rng: StdRng,
}

/// What a step returned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// +1 scored, -1 conceded, 0 otherwise.
    pub reward: f32,
    /// The game ended (and a new one started).
    pub done: bool,
}

impl Pong {
    /// A game whose serves are drawn from a generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        let mut game = Pong {
            ball: (0.0, 0.0),
            velocity: (0.0, 0.0),
            agent: SIDE as f32 / 2.0,
            opponent: SIDE as f32 / 2.0,
            score: (0, 0),
            ticks: 0,
            rng: StdRng::seed_from_u64(seed),
        };
        game.serve();
        game
    }

    fn serve(&mut self) {
        let mid = SIDE as f32 / 2.0;
        self.ball = (mid, self.rng.random_range(20.0..SIDE as f32 - 20.0));
        let dx = if self.rng.random_bool(0.5) { 1.5 } else { -1.5 };
        self.velocity = (dx, self.rng.random_range(-1.0..1.0));
    }

    fn reset(&mut self) {
        self.score = (0, 0);
        self.ticks = 0;
        self.agent = SIDE as f32 / 2.0;
        self.opponent = SIDE as f32 / 2.0;
        self.serve();
    }

    /// Advances one tick with the agent's `action`.
    pub fn step(&mut self, action: usize) -> Outcome {
        let limit = |y: f32| y.clamp(PADDLE_HALF, SIDE as f32 - 1.0 - PADDLE_HALF);
        match action {
            2 | 4 => self.agent = limit(self.agent - PADDLE_SPEED),
            3 | 5 => self.agent = limit(self.agent + PADDLE_SPEED),
            _ => {}
        }
        let chase = (self.ball.1 - self.opponent).clamp(-OPPONENT_SPEED, OPPONENT_SPEED);
        self.opponent = limit(self.opponent + chase);

        let (mut x, mut y) = (self.ball.0 + self.velocity.0, self.ball.1 + self.velocity.1);
        if y < 0.0 || y > (SIDE - 1) as f32 {
            self.velocity.1 = -self.velocity.1;
            y = y.clamp(0.0, (SIDE - 1) as f32);
        }
        let mut reward = 0.0;
        let hits = |paddle: f32| (y - paddle).abs() <= PADDLE_HALF + 1.0;
        if self.velocity.0 > 0.0 && x >= RIGHT_X {
            if hits(self.agent) {
                x = RIGHT_X;
                self.velocity.0 = -self.velocity.0;
                // Where the ball meets the paddle sets its new slope.
                self.velocity.1 = (y - self.agent) / PADDLE_HALF;
            } else {
                reward = -1.0;
            }
        } else if self.velocity.0 < 0.0 && x <= LEFT_X {
            if hits(self.opponent) {
                x = LEFT_X;
                self.velocity.0 = -self.velocity.0;
                self.velocity.1 = (y - self.opponent) / PADDLE_HALF;
            } else {
                reward = 1.0;
            }
        }
        self.ball = (x, y);
        self.ticks += 1;
        if reward != 0.0 {
            if reward > 0.0 {
                self.score.0 += 1;
            } else {
                self.score.1 += 1;
            }
            self.serve();
        }
        let done = self.score.0 >= POINTS || self.score.1 >= POINTS || self.ticks >= MAX_TICKS;
        if done {
            self.reset();
        }
        Outcome { reward, done }
    }

    /// Draws the court into an 84x84 frame.
    pub fn render(&self, frame: &mut [u8]) {
        frame.fill(BACKGROUND);
        let mut rect = |cx: f32, cy: f32, half_w: usize, half_h: usize, value: u8| {
            let (cx, cy) = (cx.round() as isize, cy.round() as isize);
            for yy in cy - half_h as isize..=cy + half_h as isize {
                for xx in cx - half_w as isize..=cx + half_w as isize {
                    if (0..SIDE as isize).contains(&xx) && (0..SIDE as isize).contains(&yy) {
                        frame[yy as usize * SIDE + xx as usize] = value;
                    }
                }
            }
        };
        rect(LEFT_X - 1.0, self.opponent, 0, PADDLE_HALF as usize, PADDLE);
        rect(RIGHT_X + 1.0, self.agent, 0, PADDLE_HALF as usize, PADDLE);
        rect(self.ball.0, self.ball.1, 0, 0, BALL);
        rect(self.ball.0 + 1.0, self.ball.1, 0, 0, BALL);
    }
}

/// `n` games stepped together, with their stacked observations.
#[derive(Debug, Clone)]
pub struct Envs {
    games: Vec<Pong>,
    observations: Vec<u8>,
}

impl Envs {
    /// `n` games seeded from `seed`, each observation holding its first frame
    /// (older frames zero, as a frame stack after a reset).
    pub fn new(n: usize, seed: u64) -> Self {
        let games = (0..n as u64).map(|i| Pong::new(seed.wrapping_mul(1000).wrapping_add(i))).collect();
        let mut envs = Envs { games, observations: vec![0; n * OBSERVATION] };
        for i in 0..n {
            envs.push_frame(i);
        }
        envs
    }

    /// Number of environments.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// True with no environment.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Observations, environment after environment (`n x 4 x 84 x 84`).
    pub fn observations(&self) -> &[u8] {
        &self.observations
    }

    /// Shifts environment `i`'s stack and renders its newest frame last.
    fn push_frame(&mut self, i: usize) {
        let obs = &mut self.observations[i * OBSERVATION..(i + 1) * OBSERVATION];
        obs.copy_within(SIDE * SIDE.., 0);
        self.games[i].render(&mut obs[(STACK - 1) * SIDE * SIDE..]);
    }

    /// Steps every game with its action; a finished game restarts and its
    /// stack is cleared to the new game's first frame.
    pub fn step(&mut self, actions: &[usize]) -> Vec<Outcome> {
        assert_eq!(actions.len(), self.games.len(), "one action per environment");
        (0..self.games.len())
            .map(|i| {
                let outcome = self.games[i].step(actions[i]);
                if outcome.done {
                    self.observations[i * OBSERVATION..(i + 1) * OBSERVATION].fill(0);
                }
                self.push_frame(i);
                outcome
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_show_two_paddles_and_the_ball() {
        let game = Pong::new(0);
        let mut frame = vec![0; SIDE * SIDE];
        game.render(&mut frame);
        assert_eq!(frame.iter().filter(|&&p| p == PADDLE).count(), 2 * (2 * PADDLE_HALF as usize + 1));
        assert_eq!(frame.iter().filter(|&&p| p == BALL).count(), 2);
    }

    #[test]
    fn a_still_agent_concedes_and_a_tracking_agent_returns_the_ball() {
        // Never moving: the opponent returns everything, the agent concedes.
        let mut idle = Pong::new(1);
        let rewards: Vec<f32> = (0..3000).map(|_| idle.step(0).reward).filter(|&r| r != 0.0).collect();
        assert!(rewards.iter().filter(|&&r| r < 0.0).count() > 5, "{rewards:?}");
        // Following the ball: far fewer points conceded.
        let mut tracker = Pong::new(1);
        let mut conceded = 0;
        for _ in 0..3000 {
            let action = if tracker.ball.1 < tracker.agent { 2 } else { 3 };
            conceded += usize::from(tracker.step(action).reward < 0.0);
        }
        assert!(conceded * 4 < rewards.len(), "tracking conceded {conceded}, idle {}", rewards.len());
    }

    #[test]
    fn a_game_ends_at_21_points_and_restarts() {
        let mut game = Pong::new(2);
        let mut points = 0;
        let done_at = (0..100_000).find(|_| {
            let o = game.step(0);
            points += usize::from(o.reward != 0.0);
            o.done
        });
        assert!(done_at.is_some());
        assert!(points >= POINTS as usize);
        assert_eq!(game.score, (0, 0));
    }

    #[test]
    fn stacks_shift_by_one_frame_per_step() {
        let mut envs = Envs::new(2, 0);
        assert_eq!(envs.observations().len(), 2 * OBSERVATION);
        let newest = |e: &Envs| e.observations()[3 * SIDE * SIDE..OBSERVATION].to_vec();
        let first = newest(&envs);
        assert!(envs.observations()[..3 * SIDE * SIDE].iter().all(|&p| p == 0), "older frames start empty");
        envs.step(&[0, 0]);
        assert_eq!(&envs.observations()[2 * SIDE * SIDE..3 * SIDE * SIDE], first.as_slice());
        assert_ne!(newest(&envs), first, "the ball moved");
    }
}
