//! Gradient averaging as `DistributedDataParallel` does it: the tensors are
//! flattened into buckets of about [`BUCKET_BYTES`], each bucket is one
//! collective, and the results are copied back; either after the backward
//! pass, or overlapped with it ([`super::hooks`]).

use super::group::{GroupError, ProcessGroup};
use super::hooks::GradHooks;
use std::ops::Range;
use tch::{Device, Kind, Tensor};

/// DDP's default bucket size (`bucket_cap_mb=25`).
pub const BUCKET_BYTES: usize = 25 * 1024 * 1024;

/// Splits tensors of `sizes` bytes, kinds and devices into consecutive
/// ranges of at most `cap` bytes (a larger tensor gets a bucket of its own),
/// a new bucket starting where the kind or the device changes.
pub fn plan(tensors: &[(usize, Kind, Device)], cap: usize) -> Vec<Range<usize>> {
    let mut buckets = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, &(size, kind, device)) in tensors.iter().enumerate() {
        let same = i == start || (tensors[start].1 == kind && tensors[start].2 == device);
        if i > start && (!same || bytes + size > cap) {
            buckets.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += size;
    }
    if start < tensors.len() {
        buckets.push(start..tensors.len());
    }
    buckets
}

/// A process group used for data parallel training.
#[derive(Debug)]
pub struct DataParallel {
    // Declared first: the hooks go before the group.
    hooks: Option<GradHooks>,
    group: ProcessGroup,
    bucket_bytes: usize,
}

impl DataParallel {
    /// Data parallel over `group`, with buckets of at most `bucket_bytes`.
    pub fn new(group: ProcessGroup, bucket_bytes: usize) -> Self {
        DataParallel { hooks: None, group, bucket_bytes }
    }

    /// Overlaps the averaging of `params`' gradients with the backward pass:
    /// hooks them so that each bucket's all-reduce starts as soon as its
    /// gradients are ready; [`Self::average_grads`] then waits for them.
    pub fn overlap(&mut self, params: &[Tensor]) -> Result<(), GroupError> {
        self.hooks = Some(GradHooks::new(&self.group, params, self.bucket_bytes)?);
        Ok(())
    }

    /// The gradient hooks, when the averaging overlaps the backward pass.
    pub fn hooks(&self) -> Option<&GradHooks> {
        self.hooks.as_ref()
    }

    /// The process group.
    pub fn group(&self) -> &ProcessGroup {
        &self.group
    }

    /// The buckets `tensors` fall into.
    pub fn buckets(&self, tensors: &[Tensor]) -> Vec<Range<usize>> {
        let shape: Vec<_> =
            tensors.iter().map(|t| (t.numel() * t.kind().elt_size_in_bytes(), t.kind(), t.device())).collect();
        plan(&shape, self.bucket_bytes)
    }

    /// Runs `collective` on each bucket of `tensors` flattened (on the
    /// group's device: the CPU for Gloo), then copies each bucket back into
    /// its tensors.
    fn bucketed(
        &self,
        tensors: &[Tensor],
        collective: impl Fn(&mut Tensor) -> Result<(), GroupError>,
    ) -> Result<(), GroupError> {
        tch::no_grad(|| {
            for range in self.buckets(tensors) {
                let part = &tensors[range];
                let flat: Vec<Tensor> = part.iter().map(|t| t.reshape([-1])).collect();
                let mut bucket = Tensor::cat(&flat, 0).to_device(self.group.device());
                collective(&mut bucket)?;
                let sizes: Vec<i64> = part.iter().map(|t| t.numel() as i64).collect();
                let bucket = bucket.to_device(part[0].device());
                for (t, chunk) in part.iter().zip(bucket.split_with_sizes(&sizes, 0)) {
                    t.shallow_clone().copy_(&chunk.view(t.size().as_slice()));
                }
            }
            Ok(())
        })
    }

    /// Rank 0's `seed`, on every rank: what the ranks draw shared data from.
    pub fn root_seed(&self, seed: u64) -> Result<u64, GroupError> {
        let mut t = Tensor::from_slice(&[seed as i64]).to_device(self.group.device());
        self.group.broadcast(&mut t, 0)?;
        Ok(t.int64_value(&[0]) as u64)
    }

    /// Gives every rank rank 0's values of `tensors` (the initial parameters
    /// and buffers).
    pub fn broadcast(&self, tensors: &[Tensor]) -> Result<(), GroupError> {
        self.bucketed(tensors, |b| self.group.broadcast(b, 0))
    }

    /// Replaces the gradient of each of `params` by its mean over the ranks;
    /// a parameter without gradient takes part as zeros and keeps none.
    /// With the gradients hooked ([`Self::overlap`], on these `params`), it
    /// waits for the all-reduces the backward pass started.
    pub fn average_grads(&self, params: &[Tensor]) -> Result<(), GroupError> {
        if let Some(hooks) = &self.hooks {
            return hooks.finish(&self.group);
        }
        let world = self.group.world() as f64;
        let grads: Vec<Tensor> = params.iter().map(|p| p.grad()).collect();
        let defined: Vec<Tensor> = grads
            .iter()
            .zip(params)
            .map(|(g, p)| if g.defined() { g.shallow_clone() } else { p.zeros_like() })
            .collect();
        self.bucketed(&defined, |b| {
            self.group.all_reduce_sum(b)?;
            let _ = b.g_div_scalar_(world);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: Device = Device::Cpu;

    #[test]
    fn buckets_hold_at_most_the_cap_and_one_kind() {
        let f = |size| (size, Kind::Float, CPU);
        assert_eq!(plan(&[f(10), f(10), f(10)], 25), [0..2, 2..3]);
        assert_eq!(plan(&[f(40), f(10)], 25), [0..1, 1..2], "a large tensor alone");
        assert_eq!(plan(&[f(10), (10, Kind::Half, CPU), f(10)], 100), [0..1, 1..2, 2..3]);
        assert_eq!(plan(&[], 25), Vec::<Range<usize>>::new());
        let many: Vec<_> = (0..100).map(|_| f(1 << 20)).collect();
        let buckets = plan(&many, BUCKET_BYTES);
        assert_eq!(buckets.len(), 4, "100 MB in 25 MB buckets");
        assert_eq!(buckets.iter().map(|r| r.len()).sum::<usize>(), 100);
    }
}
