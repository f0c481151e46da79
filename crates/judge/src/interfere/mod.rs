//! `mlb interfere`'s matrix (docs/interfere.md): how much each workload
//! loses beside a different neighbour.
//!
//! - [`matrix`]: `interference.json`, each cell's slowdown against the
//!   workload's rate alone, its interval (the figures crate's Fieller
//!   interval of a ratio of means) and where both ran;
//! - [`measured`]: what a cell takes of each run's report, and how much of
//!   a victim's run its aggressors covered;
//! - [`document`]: the matrix for a person (text, Markdown, CSV);
//! - [`heatmap`]: `interference.html`, the heat map;
//! - [`error`]: a matrix file that cannot be read.
//!
//! `mlb accept`'s `interference` rule reads the matrix of the folder it
//! judges; the results store keeps its cells.

pub mod document;
pub mod error;
pub mod heatmap;
pub mod matrix;
pub mod measured;

pub use error::ReadError;
pub use matrix::{Alone, Cell, Interference, Placement, FILE, LEVEL, MIX, PAGE};
pub use measured::{overlap, Measured};
