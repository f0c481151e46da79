//! Seeded random streams: one per (data set, file, chunk), from the run's
//! seed, with ChaCha8 (whose output is fixed across versions of the crate).

use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// The random stream of `part` (`chunk` of item `item`) of data set `set` for `seed`.
pub fn stream(seed: u64, set: &str, item: u64, chunk: u64) -> ChaCha8Rng {
    let mut hash = Sha256::new();
    hash.update(seed.to_le_bytes());
    hash.update(set.as_bytes());
    hash.update(item.to_le_bytes());
    hash.update(chunk.to_le_bytes());
    ChaCha8Rng::from_seed(hash.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_depend_on_every_part_of_their_name() {
        let first = |mut r: ChaCha8Rng| r.random::<u64>();
        let a = first(stream(0, "mnist", 1, 2));
        assert_eq!(a, first(stream(0, "mnist", 1, 2)));
        for other in
            [stream(1, "mnist", 1, 2), stream(0, "coco", 1, 2), stream(0, "mnist", 2, 2), stream(0, "mnist", 1, 3)]
        {
            assert_ne!(a, first(other));
        }
    }
}
