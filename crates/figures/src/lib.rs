//! The one home of each statistic mlb shows (README.md): every view of a
//! figure (the report, the acceptance verdict, the store's queries, the
//! served pages) computes it through these functions.
//!
//! - [`moments`]: the one sum (correctly rounded), mean, weighted mean and
//!   variance, and the moments of finite values;
//! - [`sample`]: a sample's statistics as pandas took them (n, mean, sd, CI);
//! - [`student`]: Student's t distribution, its quantiles and tails;
//! - [`welch`]: Welch's test that two samples have the same mean;
//! - [`ratio`]: the confidence interval of a ratio of two independent
//!   means (Fieller's theorem; `mlb interfere`'s slowdown);
//! - [`regression`]: the one regression rule (a drop beyond a bound and the noise);
//! - [`geometric`]: the geometric mean of a score;
//! - [`goodput`]: useful items per second and slot, and against a reference;
//! - [`olympic`]: MLPerf's olympic mean of a config's runs;
//! - [`rcp`]: the statistics of MLPerf's reference convergence point check;
//! - [`timing`]: a worker's timed observations summarised (a report's `train`).

pub mod geometric;
pub mod goodput;
pub mod moments;
pub mod olympic;
pub mod ratio;
pub mod rcp;
pub mod regression;
pub mod sample;
pub mod student;
pub mod timing;
pub mod welch;

pub use geometric::geometric_mean;
pub use moments::Moments;
pub use regression::{verdict, Verdict};
pub use sample::Sample;
