//! Made-up words and Zipf-distributed draws of them, as natural-language
//! corpora have (word `r` about `1/r` times as frequent as the first).

use rand::distr::weighted::WeightedIndex;
use rand::distr::Distribution;
use rand::Rng;

const SYLLABLES: [&str; 40] = [
    "ka", "to", "ri", "ne", "sa", "mo", "lu", "pe", "di", "ga", "vo", "shi", "ten", "bar", "el", "on", "is", "ur",
    "an", "que", "zo", "fi", "la", "be", "no", "ci", "ta", "ro", "mi", "de", "ver", "sta", "gen", "al", "or", "in",
    "es", "um", "ho", "we",
];

/// Word number `index`: a distinct string of syllables for every index
/// (bijective base-40 numbering, so no two indices share a word).
pub fn word(index: usize) -> String {
    let mut n = index + 1;
    let mut parts = Vec::new();
    while n > 0 {
        n -= 1;
        parts.push(SYLLABLES[n % SYLLABLES.len()]);
        n /= SYLLABLES.len();
    }
    parts.reverse();
    parts.concat()
}

/// Draws ranks `0..n` with probability proportional to `1 / (rank + 1)`.
#[derive(Clone, Debug)]
pub struct Zipf(WeightedIndex<f64>);

impl Zipf {
    /// Over `n` ranks (at least 1).
    pub fn new(n: usize) -> Self {
        Zipf(WeightedIndex::new((0..n.max(1)).map(|r| 1.0 / (r + 1) as f64)).expect("positive weights"))
    }

    /// One rank.
    pub fn draw(&self, rng: &mut impl Rng) -> usize {
        self.0.sample(rng)
    }
}

/// A step coprime with `n`: `i -> i * step % n` permutes `0..n`.
pub fn permutation_step(n: usize) -> usize {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    (7919..).find(|&s| gcd(s, n) == 1).expect("a coprime exists")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn words_are_distinct_and_zipf_favours_low_ranks() {
        let words: HashSet<String> = (0..5000).map(word).collect();
        assert_eq!(words.len(), 5000);
        assert_eq!((word(0), word(40)), ("ka".to_string(), "kaka".to_string()));
        let zipf = Zipf::new(100);
        let mut rng = crate::generate::rng::stream(0, "test", 0, 0);
        let draws: Vec<usize> = (0..10_000).map(|_| zipf.draw(&mut rng)).collect();
        let count = |r: usize| draws.iter().filter(|&&d| d == r).count();
        assert!(count(0) > 3 * count(9) && draws.iter().all(|&d| d < 100));
    }
}
