//! Time to quality: how long a workload takes to reach a quality target, and
//! whether that is believable.

pub mod rcp;
