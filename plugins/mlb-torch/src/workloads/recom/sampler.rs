//! Training batches of implicit feedback: positives in a shuffled order,
//! each followed by `negatives` pairs of the same user with uniformly drawn
//! items (label 0), as the NCF reference samples them.

use tch::{Device, Kind, Tensor};

/// One batch: user and item indices (int64) and labels (float, `[n, 1]`).
#[derive(Debug)]
pub struct Batch {
    /// User indices.
    pub users: Tensor,
    /// Item indices.
    pub items: Tensor,
    /// 1 for a positive, 0 for a sampled negative.
    pub labels: Tensor,
}

/// Draws batches from a set of positive pairs, on a device.
#[derive(Debug)]
pub struct Sampler {
    users: Tensor,
    items: Tensor,
    item_count: i64,
    negatives: i64,
    batch: i64,
    order: Tensor,
    cursor: i64,
    epochs: u64,
}

impl Sampler {
    /// A sampler over `positives` (user, item) for batches of `batch` pairs,
    /// `negatives` negatives per positive, items below `item_count`.
    pub fn new(positives: &[(u32, u32)], item_count: i64, negatives: i64, batch: i64, device: Device) -> Self {
        let users: Vec<i64> = positives.iter().map(|&(u, _)| i64::from(u)).collect();
        let items: Vec<i64> = positives.iter().map(|&(_, i)| i64::from(i)).collect();
        Self::from_tensors(
            Tensor::from_slice(&users).to(device),
            Tensor::from_slice(&items).to(device),
            item_count,
            negatives,
            batch,
        )
    }

    /// A sampler over positives already on the device (int64 vectors).
    pub fn from_tensors(users: Tensor, items: Tensor, item_count: i64, negatives: i64, batch: i64) -> Self {
        assert!(users.size()[0] > 0, "no positive pairs to sample from");
        let order = Tensor::randperm(users.size()[0], (Kind::Int64, users.device()));
        Sampler { users, items, item_count, negatives, batch, order, cursor: 0, epochs: 0 }
    }

    /// Positives per batch: the batch divided among each positive and its
    /// negatives, rounded up (the batch is then trimmed to its size).
    pub fn positives_per_batch(&self) -> i64 {
        (self.batch + self.negatives) / (self.negatives + 1)
    }

    /// Full passes over the positives so far.
    pub fn epochs(&self) -> u64 {
        self.epochs
    }

    /// The next batch of `batch` pairs.
    pub fn next_batch(&mut self) -> Batch {
        let total = self.order.size()[0];
        let want = self.positives_per_batch().min(total);
        if self.cursor + want > total {
            self.order = Tensor::randperm(total, (Kind::Int64, self.users.device()));
            self.cursor = 0;
            self.epochs += 1;
        }
        let pick = self.order.narrow(0, self.cursor, want);
        self.cursor += want;
        let pos_users = self.users.index_select(0, &pick);
        let pos_items = self.items.index_select(0, &pick);
        let device = pos_users.device();
        let neg_users = pos_users.repeat([self.negatives]);
        let neg_items = Tensor::randint(self.item_count, [want * self.negatives], (Kind::Int64, device));
        let n = self.batch.min(want * (self.negatives + 1));
        let labels = Tensor::cat(
            &[
                Tensor::ones([want], (Kind::Float, device)),
                Tensor::zeros([want * self.negatives], (Kind::Float, device)),
            ],
            0,
        );
        Batch {
            users: Tensor::cat(&[pos_users, neg_users], 0).narrow(0, 0, n),
            items: Tensor::cat(&[pos_items, neg_items], 0).narrow(0, 0, n),
            labels: labels.narrow(0, 0, n).unsqueeze(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_hold_positives_then_negatives_of_the_same_users() {
        tch::manual_seed(0);
        let positives = [(0, 5), (1, 6), (2, 7), (3, 8), (4, 9)];
        let mut s = Sampler::new(&positives, 1000, 4, 10, Device::Cpu);
        assert_eq!(s.positives_per_batch(), 2);
        let b = s.next_batch();
        assert_eq!(b.users.size(), [10]);
        let users = Vec::<i64>::try_from(&b.users).unwrap();
        let items = Vec::<i64>::try_from(&b.items).unwrap();
        let labels = Vec::<f32>::try_from(&b.labels.squeeze()).unwrap();
        assert_eq!(labels, [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        for k in 0..2 {
            assert_eq!(items[k], users[k] + 5, "a positive pair");
        }
        assert_eq!(&users[2..4], &users[0..2], "negatives repeat the positives' users");
        assert!(items.iter().all(|&i| (0..1000).contains(&i)));
    }

    #[test]
    fn every_positive_is_seen_once_per_epoch() {
        tch::manual_seed(1);
        let positives: Vec<(u32, u32)> = (0..6).map(|u| (u, u)).collect();
        let mut s = Sampler::new(&positives, 10, 1, 4, Device::Cpu);
        let mut seen: Vec<i64> =
            (0..3).flat_map(|_| Vec::<i64>::try_from(&s.next_batch().users.narrow(0, 0, 2)).unwrap()).collect();
        seen.sort();
        assert_eq!(seen, [0, 1, 2, 3, 4, 5]);
        assert_eq!(s.epochs(), 0);
        s.next_batch();
        assert_eq!(s.epochs(), 1);
    }
}
