//! Data parallelism inside one process, as PyTorch's `DataParallel` did
//! for the original jobs (`convnet_distributed`, `dcgan_all`, the scaling
//! job): the model replicated on every visible device, each batch split
//! across the replicas, run in parallel threads, the gradients summed onto
//! the first replica, which is updated and whose variables are copied back
//! to the others. Multi-process data parallelism, one process per device in
//! a process group, is [`crate::dist`].
//!
//! Each replica's loss is its chunk's mean loss weighted by the chunk's share
//! of the batch, so the summed gradients are those of the whole batch's mean
//! loss. Batch-norm statistics are per replica, as in `DataParallel`.

use tch::nn::{self, VarStore};
use tch::{Device, Tensor};

/// The devices a data-parallel job uses: every visible GPU when `device` is
/// a GPU (or at most `limit` of them), else `cpu_replicas` replicas on the
/// CPU (for tests: two CPU replicas exercise the same code path).
pub fn devices(device: Device, limit: Option<usize>, cpu_replicas: usize) -> Vec<Device> {
    match device {
        Device::Cuda(_) => {
            let count = tch::Cuda::device_count().max(1) as usize;
            (0..limit.map_or(count, |l| l.clamp(1, count))).map(Device::Cuda).collect()
        }
        _ => vec![Device::Cpu; cpu_replicas.max(1)],
    }
}

/// Splits `t` along its first dimension into one chunk per device, as
/// `torch.chunk` sizes them (the last chunks may be smaller or missing when
/// the batch is smaller than the devices), each moved to its device.
pub fn split(t: &Tensor, devices: &[Device]) -> Vec<Tensor> {
    t.chunk(devices.len() as i64, 0).into_iter().zip(devices).map(|(c, &d)| c.to_device(d)).collect()
}

/// Runs `f` on every item, one scoped thread per item (inline for a single
/// item), and returns the results in order.
pub fn parallel<I: Send, T: Send>(items: Vec<I>, f: impl Fn(usize, I) -> T + Sync) -> Vec<T> {
    if items.len() == 1 {
        return items.into_iter().map(|i| f(0, i)).collect();
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items.into_iter().enumerate().map(|(k, i)| s.spawn(move || f(k, i))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    })
}

/// One model replicated on several devices.
#[derive(Debug)]
pub struct Replicas<M> {
    devices: Vec<Device>,
    stores: Vec<VarStore>,
    models: Vec<M>,
    /// Per replica, every variable in one order (sorted by name).
    variables: Vec<Vec<Tensor>>,
}

impl<M: Send> Replicas<M> {
    /// Builds the model on each device with `build`; replicas 1.. start as
    /// copies of replica 0, so they share its random initialisation.
    pub fn new(devices: &[Device], build: impl Fn(&nn::Path) -> M) -> Self {
        assert!(!devices.is_empty(), "at least one device");
        let stores: Vec<VarStore> = devices.iter().map(|&d| VarStore::new(d)).collect();
        let models = stores.iter().map(|vs| build(&vs.root())).collect();
        let mut names: Vec<String> = stores[0].variables().into_keys().collect();
        names.sort();
        let variables = stores
            .iter()
            .map(|vs| {
                let vars = vs.variables();
                names.iter().map(|n| vars[n].shallow_clone()).collect()
            })
            .collect();
        let replicas = Replicas { devices: devices.to_vec(), stores, models, variables };
        replicas.broadcast(devices.len());
        replicas
    }

    /// The devices, replica after replica.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// Replica 0's variables: build the optimizer on them.
    pub fn master(&self) -> &VarStore {
        &self.stores[0]
    }

    /// Replica 0's variables, mutably (half precision, loading weights).
    pub fn master_mut(&mut self) -> &mut VarStore {
        &mut self.stores[0]
    }

    /// The replicas' models.
    pub fn models_mut(&mut self) -> &mut [M] {
        &mut self.models
    }

    /// Zeroes the gradients of every replica.
    pub fn zero_grad(&mut self) {
        for vs in &mut self.stores {
            for mut v in vs.trainable_variables() {
                v.zero_grad();
            }
        }
    }

    /// Adds the gradients of replicas `1..width` to replica 0's.
    pub fn reduce_grads(&self, width: usize) {
        tch::no_grad(|| {
            for (k, master) in self.variables[0].iter().enumerate() {
                let mut total = master.grad();
                if !total.defined() {
                    continue;
                }
                for replica in &self.variables[1..width.min(self.devices.len())] {
                    let g = replica[k].grad();
                    if g.defined() {
                        let _ = total.g_add_(&g.to_device(self.devices[0]));
                    }
                }
            }
        });
    }

    /// Copies replica 0's variables (weights and batch-norm statistics) to
    /// replicas `1..width`.
    pub fn broadcast(&self, width: usize) {
        tch::no_grad(|| {
            for replica in &self.variables[1..width.min(self.devices.len())] {
                for (dst, src) in replica.iter().zip(&self.variables[0]) {
                    dst.shallow_clone().copy_(src);
                }
            }
        });
    }

    /// Converts every replica to half precision.
    pub fn half(&mut self) {
        for vs in &mut self.stores {
            vs.half();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::nn::{Module, OptimizerConfig};
    use tch::Kind;

    fn net(p: &nn::Path) -> nn::Sequential {
        nn::seq()
            .add(nn::conv2d(p / "conv", 3, 4, 3, Default::default()))
            .add_fn(|x| x.relu().flatten(1, -1))
            .add(nn::linear(p / "fc", 4 * 4 * 4, 5, Default::default()))
    }

    fn loss(m: &nn::Sequential, x: &Tensor, y: &Tensor) -> Tensor {
        m.forward(x).cross_entropy_for_logits(y)
    }

    /// Trains 3 SGD steps on `replicas` CPU replicas starting from the
    /// weights of `init`; returns the losses, the first reduced gradients and
    /// the final weights of replica 0 (and checks the replicas agree).
    fn train(replicas: usize, init: &VarStore, x: &Tensor, y: &Tensor) -> (Vec<f64>, Vec<Tensor>, Vec<Tensor>) {
        let devices = devices(Device::Cpu, None, replicas);
        let mut r = Replicas::new(&devices, net);
        r.master_mut().copy(init).unwrap();
        r.broadcast(replicas);
        let mut opt = nn::Sgd { momentum: 0.9, ..Default::default() }.build(r.master(), 0.1).unwrap();
        let (n, mut losses, mut first_grads) = (x.size()[0] as f64, Vec::new(), Vec::new());
        for step in 0..3 {
            r.zero_grad();
            let items: Vec<_> = r.models.iter_mut().zip(split(x, &devices)).zip(split(y, &devices)).collect();
            let parts = parallel(items, |_, ((m, x), y)| {
                let l = loss(m, &x, &y) * (x.size()[0] as f64 / n);
                l.backward();
                l.detach()
            });
            r.reduce_grads(replicas);
            if step == 0 {
                first_grads = r.variables[0].iter().map(|v| v.grad().copy()).collect();
            }
            opt.step();
            r.broadcast(replicas);
            losses.push(parts.iter().map(|l| l.double_value(&[])).sum());
        }
        for replica in &r.variables[1..] {
            for (a, b) in replica.iter().zip(&r.variables[0]) {
                assert!(a.equal(b), "replicas diverged");
            }
        }
        (losses, r.variables[0].iter().map(|v| v.copy()).collect(), first_grads)
    }

    #[test]
    fn two_cpu_replicas_match_one_replica_on_the_full_batch() {
        let x = Tensor::randn([6, 3, 6, 6], (Kind::Float, Device::Cpu));
        let y = Tensor::randint(5, [6], (Kind::Int64, Device::Cpu));
        let init = VarStore::new(Device::Cpu);
        net(&init.root());
        let (l1, w1, g1) = train(1, &init, &x, &y);
        let (l2, w2, g2) = train(2, &init, &x, &y);
        for (a, b) in l1.iter().zip(&l2) {
            assert!((a - b).abs() < 1e-5, "losses {l1:?} vs {l2:?}");
        }
        for (a, b) in g1.iter().zip(&g2).chain(w1.iter().zip(&w2)) {
            let diff = (a - b).abs().max().double_value(&[]);
            assert!(diff < 1e-5, "gradients or weights differ by {diff}");
        }
        assert!(l1[2] < l1[0], "training progressed: {l1:?}");
    }

    #[test]
    fn batches_split_like_torch_chunk_and_gpus_are_used_when_present() {
        let t = Tensor::arange(5, (Kind::Int64, Device::Cpu));
        let sizes: Vec<i64> = split(&t, &[Device::Cpu; 2]).iter().map(|c| c.size()[0]).collect();
        assert_eq!(sizes, [3, 2]);
        assert_eq!(devices(Device::Cpu, None, 3), vec![Device::Cpu; 3]);
        if tch::Cuda::is_available() {
            assert_eq!(devices(Device::Cuda(0), Some(1), 4), vec![Device::Cuda(0)]);
        }
    }
}
