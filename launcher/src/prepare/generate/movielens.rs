//! MovieLens 20M's `ratings.csv`: the header `userId,movieId,rating,timestamp`,
//! then every rating sorted by user and movie, as the file GroupLens ships.
//! Every user rates at least 20 movies (as in ml-20m); movies are chosen
//! with Zipf popularity; ratings are half stars 0.5 to 5.0, mostly 3 to 4;
//! timestamps are Unix seconds within the set's years (1995-2015). Full:
//! 138,493 users, 26,744 movies, about 20 million ratings (ml-20m: 20,000,263);
//! small: 500 users, 300 movies, about 15,000 ratings.

use super::rng::stream;
use super::words::{permutation_step, Zipf};
use super::{chunk_range, chunks_of, FileSpec, Generator};
use crate::prepare::catalog::Scale;
use rand::Rng;
use std::collections::BTreeMap;
use std::fmt::Write;

const HEADER: &str = "userId,movieId,rating,timestamp\n";
const PER_CHUNK: usize = 2_000;
/// The first and last rating times of ml-20m.
const TIMES: std::ops::Range<u64> = 789_652_009..1_427_784_002;
/// Half-star ratings 0.5..=5.0 and their weights (most ratings are 3 to 4 stars).
const STARS: [(&str, u32); 10] = [
    ("0.5", 2),
    ("1.0", 3),
    ("1.5", 2),
    ("2.0", 7),
    ("2.5", 4),
    ("3.0", 21),
    ("3.5", 11),
    ("4.0", 28),
    ("4.5", 8),
    ("5.0", 14),
];

/// ml-20m at one scale and seed.
#[derive(Debug)]
pub struct MovieLens {
    users: usize,
    movies: usize,
    mean: f64,
    zipf: Zipf,
    seed: u64,
}

impl MovieLens {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (users, movies, mean) = match scale {
            Scale::Small => (500, 300, 30.0),
            Scale::Full => (138_493, 26_744, 20_000_263.0 / 138_493.0),
        };
        MovieLens { users, movies, mean, zipf: Zipf::new(movies), seed }
    }

    /// The movie id of popularity rank `rank` (ids spread over the catalogue, not in rank order).
    fn movie_id(&self, rank: usize) -> usize {
        rank * permutation_step(self.movies) % self.movies + 1
    }
}

impl Generator for MovieLens {
    fn files(&self) -> Vec<FileSpec> {
        vec![FileSpec::new("ratings.csv", chunks_of(self.users, PER_CHUNK))]
    }

    fn chunk(&self, _file: usize, chunk: usize) -> Vec<u8> {
        let mut rng = stream(self.seed, "ml-20m", chunk as u64, 0);
        let stars = rand::distr::weighted::WeightedIndex::new(STARS.iter().map(|s| s.1)).expect("positive weights");
        let mut out = String::from(if chunk == 0 { HEADER } else { "" });
        for user in chunk_range(chunk, PER_CHUNK, self.users) {
            // At least 20 ratings, exponentially many more (mean `self.mean`), at most half the catalogue.
            let extra = -(1.0 - rng.random::<f64>()).ln() * (self.mean - 20.0);
            let count = (20 + extra as usize).min(self.movies / 2);
            let start = rng.random_range(TIMES);
            let span = rng.random_range(0..(TIMES.end - start).min(400_000_000));
            let mut rated = BTreeMap::new();
            while rated.len() < count {
                let movie = self.movie_id(self.zipf.draw(&mut rng));
                rated.entry(movie).or_insert_with(|| (rng.sample(&stars), start + rng.random_range(0..=span)));
            }
            for (movie, (star, time)) in rated {
                writeln!(out, "{},{movie},{},{time}", user + 1, STARS[star].0).expect("writing to a String");
            }
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_user_rates_twenty_distinct_movies_or_more() {
        let m = MovieLens::new(Scale::Small, 0);
        let text = String::from_utf8(m.chunk(0, 0)).unwrap();
        assert!(text.starts_with(HEADER));
        let mut per_user: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 4, "{line}");
            let movie: u64 = f[1].parse().unwrap();
            assert!((1..=300).contains(&movie) && f[2].parse::<f64>().unwrap() >= 0.5);
            per_user.entry(f[0].parse().unwrap()).or_default().push(movie);
        }
        assert_eq!(per_user.len(), 500);
        for movies in per_user.values() {
            assert!(movies.len() >= 20 && movies.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        }
    }
}
