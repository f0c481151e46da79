//! Reproducibility: the vote over the fingerprints of deterministic runs
//! (docs/report.md, "Reproducibility"). Every instance of a config run with
//! `deterministic: true` computes the same bits on one device model and
//! software stack; the vote finds the instances that did not.
//!
//! - [`instance`]: which entries of the report take part, and what each
//!   brings (its name, device, stack and fingerprints), read through the
//!   report's [`Source`](super::source::Source);
//! - [`vote`]: the vote itself, a pure function of the instances;
//! - [`words`]: what a verdict says, the same in every view and in `mlb
//!   accept`.

mod instance;
mod vote;
mod words;

pub use instance::{instances, instances_of, Instance, Name};
pub use vote::{vote, Group, Outlier, Short, Verdict};
