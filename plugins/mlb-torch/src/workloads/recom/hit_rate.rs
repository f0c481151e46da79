//! recom's evaluation, as the NCF paper's leave-one-out protocol: each
//! held-out user's held-out positive is ranked among [`NEGATIVES`] items
//! the user has no training positive for; the hit rate at [`TOP_K`] is the
//! share of users whose positive ranks in the top 10.
//!
//! The negatives are drawn once, from a seed of their own, so that every
//! evaluation of a run ranks the same candidates.

use super::neumf::NeuMf;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, HashSet};
use tch::{Device, Kind, Tensor};

/// Negatives ranked against each held-out positive (the NCF paper's 99).
pub const NEGATIVES: usize = 99;
/// The cut-off of the hit rate.
pub const TOP_K: i64 = 10;
/// Users ranked per forward pass.
const USERS_PER_PASS: usize = 256;

/// The candidates of every held-out user: row `u` is the positive then its
/// negatives.
#[derive(Debug)]
pub struct HeldOut {
    /// `[users, 1 + NEGATIVES]` user indices.
    users: Tensor,
    /// `[users, 1 + NEGATIVES]` item indices, the positive first.
    items: Tensor,
}

impl HeldOut {
    /// The candidates of the held-out pairs `test` (user, item), at most
    /// `count` of them, against `items` items; `train` are the training
    /// positives (excluded from the negatives). Negatives come from `seed`.
    ///
    /// `None` when there is no held-out pair, or fewer than `NEGATIVES + 1`
    /// items to draw from.
    pub fn new(test: &[(u32, u32)], train: &[(u32, u32)], items: u32, count: usize, seed: u64) -> Option<Self> {
        let test = &test[..test.len().min(count)];
        if test.is_empty() || (items as usize) <= NEGATIVES {
            return None;
        }
        let wanted: HashSet<u32> = test.iter().map(|&(u, _)| u).collect();
        let mut seen: HashMap<u32, HashSet<u32>> = HashMap::new();
        for &(u, i) in train.iter().filter(|(u, _)| wanted.contains(u)) {
            seen.entry(u).or_default().insert(i);
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let width = 1 + NEGATIVES;
        let (mut users, mut candidates) =
            (Vec::with_capacity(test.len() * width), Vec::with_capacity(test.len() * width));
        for &(user, positive) in test {
            let known = seen.get(&user);
            users.extend(std::iter::repeat_n(user as i64, width));
            candidates.push(positive as i64);
            let mut drawn = HashSet::new();
            // A user who has seen almost every item gets repeats rather than a hang.
            for _ in 0..NEGATIVES {
                let mut item = rng.random_range(0..items);
                for _ in 0..64 {
                    if item != positive && !known.is_some_and(|k| k.contains(&item)) && !drawn.contains(&item) {
                        break;
                    }
                    item = rng.random_range(0..items);
                }
                drawn.insert(item);
                candidates.push(item as i64);
            }
        }
        let shape = [test.len() as i64, width as i64];
        Some(HeldOut {
            users: Tensor::from_slice(&users).view(shape),
            items: Tensor::from_slice(&candidates).view(shape),
        })
    }

    /// Moves the candidates to `device`.
    pub fn to(self, device: Device) -> Self {
        HeldOut { users: self.users.to(device), items: self.items.to(device) }
    }

    /// The share of held-out users whose positive scores among the
    /// [`TOP_K`] best of its candidates (ties count against it).
    pub fn hit_rate(&self, model: &NeuMf) -> f64 {
        let rows = self.users.size()[0];
        let mut hits = 0;
        for start in (0..rows).step_by(USERS_PER_PASS) {
            let n = (rows - start).min(USERS_PER_PASS as i64);
            let (users, items) = (self.users.narrow(0, start, n), self.items.narrow(0, start, n));
            let scores = model.forward(&users.reshape([-1]), &items.reshape([-1])).view([n, -1]);
            let positive = scores.narrow(1, 0, 1);
            let better = scores.ge_tensor(&positive).sum_dim_intlist(1, false, Kind::Int64) - 1;
            hits += better.lt(TOP_K).sum(Kind::Int64).int64_value(&[]);
        }
        hits as f64 / rows as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negatives_avoid_the_positive_and_the_users_training_items() {
        let train: Vec<(u32, u32)> = (0..50).map(|i| (0, i)).collect();
        let held = HeldOut::new(&[(0, 60), (1, 3)], &train, 200, 10, 7).unwrap();
        let items: Vec<i64> = Vec::try_from(held.items.reshape([-1])).unwrap();
        let (first, second) = items.split_at(1 + NEGATIVES);
        assert_eq!((first[0], second[0]), (60, 3), "the positive comes first");
        assert!(first[1..].iter().all(|&i| i >= 50 && i != 60), "user 0's training items are no negatives");
        assert!(second[1..].iter().all(|&i| i != 3));
        assert_eq!(held.users.size(), [2, 1 + NEGATIVES as i64]);
        assert!(HeldOut::new(&[], &train, 200, 10, 7).is_none());
        assert!(HeldOut::new(&[(0, 1)], &[], 50, 10, 7).is_none(), "fewer items than candidates");
    }
}
