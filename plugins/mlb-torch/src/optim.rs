//! AdamW as PyTorch's `torch.optim.AdamW(..., fused=True)` runs it: one
//! pass of libtorch's fused kernel (`_fused_adamw_`, through
//! `native/optim.cpp`) over each parameter, where tch's optimizer (libtorch's
//! C++ `AdamW`) makes several, with the parameters split into a group that
//! gets weight decay and one that does not.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_double};
use tch::nn::VarStore;
use tch::{Kind, TchError, Tensor};

extern "C" {
    fn mlb_fused_adamw_(
        params: *const *mut torch_sys::C_tensor,
        grads: *const *mut torch_sys::C_tensor,
        exp_avgs: *const *mut torch_sys::C_tensor,
        exp_avg_sqs: *const *mut torch_sys::C_tensor,
        steps: *const *mut torch_sys::C_tensor,
        n: i64,
        lr: c_double,
        beta1: c_double,
        beta2: c_double,
        weight_decay: c_double,
        eps: c_double,
    ) -> *mut c_char;
    fn mlb_clear_grads(params: *const *mut torch_sys::C_tensor, n: i64) -> *mut c_char;
}

/// The parameters sharing one weight decay, with their state.
#[derive(Debug)]
struct Group {
    params: Vec<Tensor>,
    /// First moments, one a parameter.
    exp_avgs: Vec<Tensor>,
    /// Second moments, one a parameter.
    exp_avg_sqs: Vec<Tensor>,
    /// Steps taken, a float32 scalar a parameter (the fused kernel's form).
    steps: Vec<Tensor>,
    weight_decay: f64,
}

/// AdamW over groups of parameters, each with its weight decay.
#[derive(Debug)]
pub struct AdamW {
    groups: Vec<Group>,
    betas: (f64, f64),
    eps: f64,
}

impl AdamW {
    /// AdamW of `betas` and `eps` over `groups`: each a list of parameters
    /// and the weight decay they get. The moments start at zero, as
    /// PyTorch's.
    pub fn new(groups: Vec<(Vec<Tensor>, f64)>, betas: (f64, f64), eps: f64) -> Self {
        let zeros = |params: &[Tensor]| -> Vec<Tensor> { params.iter().map(Tensor::zeros_like).collect() };
        let groups = groups
            .into_iter()
            .map(|(params, weight_decay)| Group {
                exp_avgs: zeros(&params),
                exp_avg_sqs: zeros(&params),
                steps: params.iter().map(|p| Tensor::zeros([], (Kind::Float, p.device()))).collect(),
                params,
                weight_decay,
            })
            .collect();
        AdamW { groups, betas, eps }
    }

    /// AdamW over the trainable variables of `vs`, in the order of their
    /// names: those `decays` accepts (given the name and the variable) get
    /// `weight_decay`, the others none.
    pub fn from_var_store(
        vs: &VarStore,
        decays: impl Fn(&str, &Tensor) -> bool,
        weight_decay: f64,
        betas: (f64, f64),
        eps: f64,
    ) -> Self {
        let named: BTreeMap<String, Tensor> = vs.variables().into_iter().filter(|(_, t)| t.requires_grad()).collect();
        let (decayed, kept): (Vec<_>, Vec<_>) = named.iter().partition(|(name, t)| decays(name, t));
        let tensors = |v: Vec<(&String, &Tensor)>| v.into_iter().map(|(_, t)| t.shallow_clone()).collect();
        AdamW::new(vec![(tensors(decayed), weight_decay), (tensors(kept), 0.0)], betas, eps)
    }

    /// The parameters of each group and its weight decay.
    pub fn groups(&self) -> impl Iterator<Item = (&[Tensor], f64)> {
        self.groups.iter().map(|g| (g.params.as_slice(), g.weight_decay))
    }

    /// The optimizer's state, by name: each parameter's first and second
    /// moments and step count (`adamw.G.I.exp_avg`, `.exp_avg_sq`, `.step`
    /// for parameter `I` of group `G`), the instance's own tensors (a
    /// checkpoint's, [`crate::resume`], copied into in place).
    pub fn state(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            for (i, ((m, v), s)) in group.exp_avgs.iter().zip(&group.exp_avg_sqs).zip(&group.steps).enumerate() {
                for (what, t) in [("exp_avg", m), ("exp_avg_sq", v), ("step", s)] {
                    out.push((format!("adamw.{g}.{i}.{what}"), t.shallow_clone()));
                }
            }
        }
        out
    }

    /// Drops the gradient of every parameter, as PyTorch's
    /// `zero_grad(set_to_none=True)`: the next backward pass stores its
    /// gradients instead of adding them to zeroed ones.
    ///
    /// Errors are libtorch's.
    pub fn zero_grad(&self) -> Result<(), TchError> {
        let params: Vec<*mut torch_sys::C_tensor> =
            self.groups.iter().flat_map(|g| &g.params).map(|p| p.as_ptr() as *mut torch_sys::C_tensor).collect();
        // SAFETY: the handles are those of the parameters `self` owns, alive
        // across the call; the shim catches every C++ exception and returns
        // NULL or a message freed by `taken_error`.
        let error = unsafe { mlb_clear_grads(params.as_ptr(), params.len() as i64) };
        // SAFETY: `error` is NULL or the shim's message, not freed yet.
        match unsafe { crate::ops::taken_error(error) } {
            Some(message) => Err(TchError::Torch(message)),
            None => Ok(()),
        }
    }

    /// One step at learning rate `lr` of the parameters that have a
    /// gradient; the others, and their state, are left as they are.
    ///
    /// Errors are libtorch's: parameters, gradients and moments of
    /// different devices or types, for one.
    pub fn step(&mut self, lr: f64) -> Result<(), TchError> {
        let (beta1, beta2) = self.betas;
        for g in &self.groups {
            let grads: Vec<Tensor> = g.params.iter().map(Tensor::grad).collect();
            let live: Vec<usize> = (0..grads.len()).filter(|&i| grads[i].defined()).collect();
            if live.is_empty() {
                continue;
            }
            let handles = |v: &[Tensor]| -> Vec<*mut torch_sys::C_tensor> {
                live.iter().map(|&i| v[i].as_ptr() as *mut torch_sys::C_tensor).collect()
            };
            let (params, grad_ptrs) = (handles(&g.params), handles(&grads));
            let (exp_avgs, exp_avg_sqs, steps) = (handles(&g.exp_avgs), handles(&g.exp_avg_sqs), handles(&g.steps));
            // SAFETY: every pointer is the handle of a live tch tensor
            // (owned by `g` or `grads`, both alive across the call), `live.len()`
            // of each; the shim reads them during the call only, catches every
            // C++ exception and returns NULL or a message freed by `taken_error`.
            let error = unsafe {
                mlb_fused_adamw_(
                    params.as_ptr(),
                    grad_ptrs.as_ptr(),
                    exp_avgs.as_ptr(),
                    exp_avg_sqs.as_ptr(),
                    steps.as_ptr(),
                    live.len() as i64,
                    lr,
                    beta1,
                    beta2,
                    g.weight_decay,
                    self.eps,
                )
            };
            // SAFETY: `error` is NULL or the shim's message, not freed yet.
            if let Some(message) = unsafe { crate::ops::taken_error(error) } {
                return Err(TchError::Torch(message));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::nn::{self, OptimizerConfig};
    use tch::Device;

    /// The same quadratic problem, its parameters and the step's gradients:
    /// `w` decayed, `b` not.
    fn problem(vs: &VarStore) -> (Tensor, Tensor) {
        let w = vs.root().var("w", &[4, 3], nn::Init::Const(0.5));
        let b = vs.root().set_group(1).var("b", &[3], nn::Init::Const(-0.25));
        (w, b)
    }

    fn loss(w: &Tensor, b: &Tensor, step: i64) -> Tensor {
        let x = Tensor::arange(12, (Kind::Float, Device::Cpu)).view([3, 4]) / 10.0 + step as f64;
        (x.matmul(w) + b).pow_tensor_scalar(2).sum(Kind::Float)
    }

    #[test]
    fn fused_adamw_steps_as_libtorchs_adamw_with_its_decay_groups() {
        let (ours, theirs) = (VarStore::new(Device::Cpu), VarStore::new(Device::Cpu));
        let (w1, b1) = problem(&ours);
        let (w2, b2) = problem(&theirs);
        let mut fused = AdamW::from_var_store(&ours, |name, _| name == "w", 0.1, (0.9, 0.95), 1e-8);
        let mut reference = nn::adamw(0.9, 0.95, 0.1).build(&theirs, 0.01).unwrap();
        reference.set_weight_decay_group(1, 0.0);
        for step in 0..5 {
            let lr = 0.01 * (step + 1) as f64;
            fused.zero_grad().unwrap();
            loss(&w1, &b1, step).backward();
            fused.step(lr).unwrap();
            reference.zero_grad();
            reference.set_lr(lr);
            loss(&w2, &b2, step).backward();
            reference.step();
        }
        for (a, b) in [(&w1, &w2), (&b1, &b2)] {
            let gap = (a - b).abs().max().double_value(&[]);
            assert!(gap < 1e-6, "{gap}");
        }
        // Both moved: the comparison is not of untouched parameters.
        assert!((w1.mean(Kind::Float).double_value(&[]) - 0.5).abs() > 0.01);
        assert!((b1.mean(Kind::Float).double_value(&[]) + 0.25).abs() > 0.01);
    }

    #[test]
    fn parameters_without_a_gradient_are_left_alone() {
        let vs = VarStore::new(Device::Cpu);
        let (w, b) = problem(&vs);
        let mut opt = AdamW::from_var_store(&vs, |_, t| t.dim() >= 2, 0.1, (0.9, 0.999), 1e-8);
        assert_eq!(opt.groups().map(|(p, wd)| (p.len(), wd)).collect::<Vec<_>>(), [(1, 0.1), (1, 0.0)]);
        (w.sum(Kind::Float) * 2.0).backward();
        opt.step(0.1).unwrap();
        opt.zero_grad().unwrap();
        assert!(!w.grad().defined());
        assert_eq!(b.mean(Kind::Float).double_value(&[]), -0.25);
        assert!(w.mean(Kind::Float).double_value(&[]) < 0.5);
    }
}
