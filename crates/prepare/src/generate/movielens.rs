//! MovieLens 20M's `ratings.csv`: the header `userId,movieId,rating,timestamp`,
//! then every rating sorted by user and movie, as the file GroupLens ships.
//! Every user rates at least 20 movies (as in ml-20m); ratings are half
//! stars 0.5 to 5.0, mostly 3 to 4; timestamps are Unix seconds within the
//! set's years (1995-2015). Full: 138,493 users, 26,744 movies, about 20
//! million ratings (ml-20m: 20,000,263); small: 500 users, 300 movies,
//! about 15,000 ratings.
//!
//! Latent factors make the ratings learnable: every movie belongs to one of
//! a few genres (its factor), every user likes a first and a second genre
//! (the user's factor: 55 % and 30 % of the movies the user picks, the rest
//! spread over all genres); within a genre movies are picked with Zipf
//! popularity, so popularity over the whole catalogue stays Zipf-like. Who
//! rated what is then a matrix of low rank (the genres) plus noise, which
//! a recommender learns and popularity does not; a rating is higher in the
//! user's liked genres, with a user's and a movie's bias and noise. A
//! user's ratings come in the order they were picked, at increasing times,
//! so each user's latest rating (NCF's held-out one) is unique.

use super::rng::stream;
use super::words::{permutation_step, Zipf};
use super::{chunk_range, chunks_of, FileSpec, Generator};
use crate::scale::Scale;
use rand::Rng;
use std::collections::BTreeMap;
use std::fmt::Write;

const HEADER: &str = "userId,movieId,rating,timestamp\n";
const PER_CHUNK: usize = 2_000;
/// The first and last rating times of ml-20m.
const TIMES: std::ops::Range<u64> = 789_652_009..1_427_784_002;
/// The half-star ratings, as the file writes them.
const STARS: [&str; 10] = ["0.5", "1.0", "1.5", "2.0", "2.5", "3.0", "3.5", "4.0", "4.5", "5.0"];
/// Shares of a user's picks from the first and the second liked genre.
const LIKED: [f64; 2] = [0.55, 0.3];

/// ml-20m at one scale and seed.
#[derive(Debug)]
pub struct MovieLens {
    users: usize,
    movies: usize,
    mean: f64,
    /// Movies of genre `g` are the popularity ranks `g`, `g + genres`, ...;
    /// one Zipf sampler of ranks within each genre.
    genres: Vec<Zipf>,
    /// Each movie's rating bias, by popularity rank.
    movie_bias: Vec<f64>,
    seed: u64,
}

impl MovieLens {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (users, movies, mean, genres): (usize, usize, f64, usize) = match scale {
            Scale::Small => (500, 300, 30.0, 10),
            Scale::Full => (138_493, 26_744, 20_000_263.0 / 138_493.0, 20),
        };
        let genres = (0..genres).map(|g: usize| Zipf::new((movies - g).div_ceil(genres))).collect();
        let movie_bias =
            (0..movies).map(|rank| stream(seed, "ml-20m movies", rank as u64, 0).random_range(-0.5..0.5)).collect();
        MovieLens { users, movies, mean, genres, movie_bias, seed }
    }

    /// The movie id of popularity rank `rank` (ids spread over the catalogue, not in rank order).
    fn movie_id(&self, rank: usize) -> usize {
        rank * permutation_step(self.movies) % self.movies + 1
    }

    /// A genre drawn from a user's taste: the `liked` ones first.
    fn genre(&self, liked: [usize; 2], rng: &mut impl Rng) -> usize {
        let draw = rng.random::<f64>();
        if draw < LIKED[0] {
            liked[0]
        } else if draw < LIKED[0] + LIKED[1] {
            liked[1]
        } else {
            rng.random_range(0..self.genres.len())
        }
    }

    /// A movie's popularity rank drawn from a user's taste.
    fn pick(&self, liked: [usize; 2], rng: &mut impl Rng) -> usize {
        let genre = self.genre(liked, rng);
        genre + self.genres.len() * self.genres[genre].draw(rng)
    }

    /// The half-star rating of movie `rank` by a user who likes `liked`
    /// with bias `bias`: about 4.4 in the first liked genre, 3.7 in the
    /// second, 2.9 elsewhere, plus the biases and noise.
    fn stars(&self, rank: usize, liked: [usize; 2], bias: f64, rng: &mut impl Rng) -> &'static str {
        let genre = rank % self.genres.len();
        let taste = if genre == liked[0] {
            1.5
        } else if genre == liked[1] {
            0.8
        } else {
            0.0
        };
        let noise: f64 = (0..3).map(|_| rng.random_range(-0.5..0.5)).sum();
        let mean = 2.9 + taste + bias + self.movie_bias[rank] + noise;
        STARS[(mean * 2.0).round().clamp(1.0, 10.0) as usize - 1]
    }
}

impl Generator for MovieLens {
    fn files(&self) -> Vec<FileSpec> {
        vec![FileSpec::new("ratings.csv", chunks_of(self.users, PER_CHUNK))]
    }

    fn chunk(&self, _file: usize, chunk: usize) -> Vec<u8> {
        let mut rng = stream(self.seed, "ml-20m", chunk as u64, 0);
        let genres = self.genres.len();
        let mut out = String::from(if chunk == 0 { HEADER } else { "" });
        for user in chunk_range(chunk, PER_CHUNK, self.users) {
            // At least 20 ratings, exponentially many more (mean `self.mean`), at most half the catalogue.
            let extra = -(1.0 - rng.random::<f64>()).ln() * (self.mean - 20.0);
            let count = (20 + extra as usize).min(self.movies / 2);
            let first = rng.random_range(0..genres);
            let liked = [first, (first + rng.random_range(1..genres)) % genres];
            let bias = rng.random_range(-0.4..0.4);
            let start = rng.random_range(TIMES);
            let span = rng.random_range(0..(TIMES.end - start).min(400_000_000));
            // One time slot per pick, so that times increase strictly.
            let slot = (span / count as u64).max(1);
            let mut rated = BTreeMap::new();
            while rated.len() < count {
                let rank = self.pick(liked, &mut rng);
                let time = start + rated.len() as u64 * slot + rng.random_range(0..slot);
                rated.entry(self.movie_id(rank)).or_insert_with(|| (self.stars(rank, liked, bias, &mut rng), time));
            }
            for (movie, (stars, time)) in rated {
                writeln!(out, "{},{movie},{stars},{time}", user + 1).expect("writing to a String");
            }
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per user (in order), `(movie, stars, time)` of each rating of the small set's file.
    fn ratings(seed: u64) -> Vec<Vec<(usize, f64, u64)>> {
        let m = MovieLens::new(Scale::Small, seed);
        let text = String::from_utf8(m.chunk(0, 0)).unwrap();
        assert!(text.starts_with(HEADER));
        let mut per_user: BTreeMap<u64, Vec<(usize, f64, u64)>> = BTreeMap::new();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 4, "{line}");
            let rating = (f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap());
            per_user.entry(f[0].parse().unwrap()).or_default().push(rating);
        }
        per_user.into_values().collect()
    }

    #[test]
    fn every_user_rates_twenty_distinct_movies_or_more_and_has_one_latest_rating() {
        let users = ratings(0);
        assert_eq!(users.len(), 500);
        for rated in &users {
            assert!(rated.len() >= 20 && rated.windows(2).all(|w| w[0].0 < w[1].0), "sorted, distinct");
            assert!(rated.iter().all(|r| (1..=300).contains(&r.0) && (0.5..=5.0).contains(&r.1)));
            assert!(rated.iter().all(|r| TIMES.contains(&r.2)));
            let latest = rated.iter().map(|r| r.2).max().unwrap();
            assert_eq!(rated.iter().filter(|r| r.2 == latest).count(), 1, "the held-out rating is unambiguous");
        }
        let stars: Vec<f64> = users.iter().flatten().map(|r| r.1).collect();
        let mid = stars.iter().filter(|&&s| (3.0..=4.5).contains(&s)).count();
        assert!(mid * 2 > stars.len(), "most ratings 3 to 4.5 stars: {mid} of {}", stars.len());
    }

    /// Hit rate at 10 on each user's latest rating (held out) among 100
    /// movies the user did not rate, for a recommender scoring
    /// `score(training movies of the user, candidate)`.
    fn hit_rate(users: &[Vec<(usize, f64, u64)>], score: impl Fn(&[usize], usize) -> f64) -> f64 {
        let mut rng = stream(0, "test", 0, 0);
        let hits = users
            .iter()
            .filter(|rated| {
                let latest = rated.iter().max_by_key(|r| r.2).unwrap().0;
                let train: Vec<usize> = rated.iter().map(|r| r.0).filter(|&m| m != latest).collect();
                let mut negatives = Vec::new();
                while negatives.len() < 100 {
                    let m = rng.random_range(1..=300);
                    if !rated.iter().any(|r| r.0 == m) && !negatives.contains(&m) {
                        negatives.push(m);
                    }
                }
                let target = score(&train, latest);
                negatives.iter().filter(|&&m| score(&train, m) >= target).count() < 10
            })
            .count();
        hits as f64 / users.len() as f64
    }

    #[test]
    fn who_rated_what_is_learnt_by_co_occurrence_better_than_by_popularity() {
        let users = ratings(0);
        let held_out = |rated: &Vec<(usize, f64, u64)>| rated.iter().max_by_key(|r| r.2).unwrap().0;
        // Counts over the training ratings only.
        let mut popularity = vec![0.0; 301];
        let mut together = vec![vec![0.0; 301]; 301];
        for rated in &users {
            let train: Vec<usize> = rated.iter().map(|r| r.0).filter(|&m| m != held_out(rated)).collect();
            for &a in &train {
                popularity[a] += 1.0;
                for &b in &train {
                    together[a][b] += 1.0;
                }
            }
        }
        let by_popularity = hit_rate(&users, |_, m| popularity[m]);
        let by_neighbours = hit_rate(&users, |train, m| {
            train.iter().map(|&a| together[a][m] / (popularity[a] * popularity[m]).max(1.0).sqrt()).sum()
        });
        assert!(
            by_neighbours > by_popularity + 0.2,
            "HR@10: {by_neighbours} by neighbours, {by_popularity} by popularity"
        );
    }
}
