//! All-reduce timing of mlb's process group, for `bench/parity/ddp.py`: one
//! rank of a group described by torchrun's variables sums a float32 tensor
//! of each size given (MB) `--iters` times after two untimed ones, and rank 0
//! prints one JSON object per size: `{"mb", "iters", "median_s"}`. The
//! backend is Gloo on CPU tensors, or with `--nccl` NCCL on the GPU of the
//! rank's `LOCAL_RANK`.
//!
//! ```text
//! MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 RANK=0 WORLD_SIZE=2 \
//!     all_reduce --iters 10 [--nccl] 1 25 100
//! ```

use mlb_torch::dist::{Backend, ProcessGroup, Rendezvous};
use std::time::{Duration, Instant};
use tch::{Device, Kind, Tensor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut iters = 10;
    let mut sizes = Vec::new();
    let mut nccl = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--iters" => iters = args.next().ok_or("--iters takes a number")?.parse()?,
            "--nccl" => nccl = true,
            mb => sizes.push(mb.parse::<f64>()?),
        }
    }
    tch::set_num_threads(1);
    let rendezvous = Rendezvous::from_env(|name| std::env::var(name).ok())?;
    let backend =
        if nccl { Backend::Nccl { device: rendezvous.local_rank } } else { Backend::Gloo { interface: None } };
    let group = ProcessGroup::join(&rendezvous, Duration::from_secs(120), backend)?;
    let device = group.device();
    for mb in sizes {
        let numel = (mb * 1e6 / 4.0) as i64;
        let mut t = Tensor::ones([numel], (Kind::Float, device));
        let mut times = Vec::with_capacity(iters);
        for i in 0..iters + 2 {
            group.barrier()?;
            let start = Instant::now();
            group.all_reduce_sum(&mut t)?;
            if let Device::Cuda(index) = device {
                tch::Cuda::synchronize(index as i64);
            }
            if i >= 2 {
                times.push(start.elapsed().as_secs_f64());
            }
        }
        times.sort_by(f64::total_cmp);
        if group.rank() == 0 {
            println!(r#"{{"mb": {mb}, "iters": {iters}, "median_s": {}}}"#, times[times.len() / 2]);
        }
    }
    Ok(())
}
