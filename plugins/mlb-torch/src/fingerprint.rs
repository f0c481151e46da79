//! A deterministic run's proof of what a libtorch workload computed
//! ([`mlb_plugin::Fingerprint`]), and the flipped bit a test injects to
//! check that the proof catches it.
//!
//! The fingerprint hashes the bytes of every variable of the workload
//! (parameters and buffers such as batch norm's running statistics), sorted
//! by name, as they lie in memory (native byte order, the variable's own
//! type), and takes the global L2 norm of the gradients the last step left.
//! A CPU tensor's bytes are read where they lie, without a copy; a GPU
//! tensor is copied to the host first.

use mlb_plugin::{Fingerprint, ParamHasher};
use tch::{nn, Device, Kind, TchError, Tensor};

/// Every variable of `vs` with its name, sorted by name: the order every
/// instance agrees on (a rank's broadcast, the fingerprint).
pub fn sorted_variables(vs: &nn::VarStore) -> Vec<(String, Tensor)> {
    let mut named: Vec<_> = vs.variables().into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named
}

/// The fingerprint of `variables` (in their order): the hash of their
/// bytes, and the global L2 norm of their defined gradients
/// ([`crate::grad::f_grad_norm`], in the gradients' type), `None` when no
/// variable has one.
///
/// Errors are libtorch's (a copy to the host that fails).
pub fn of(variables: &[(String, Tensor)]) -> Result<Fingerprint, TchError> {
    let mut hasher = ParamHasher::new();
    for (_, variable) in variables {
        hash_bytes(&mut hasher, variable)?;
    }
    let tensors: Vec<Tensor> = variables.iter().map(|(_, t)| t.shallow_clone()).collect();
    let grads = crate::grad::grads(&tensors);
    let grad_norm = if grads.is_empty() { None } else { Some(crate::grad::f_grad_norm(&grads)?.f_double_value(&[])?) };
    Ok(Fingerprint { params: hasher.finish(), grad_norm })
}

/// Adds the bytes of `tensor` to `hasher`: read in place when it is a
/// contiguous CPU tensor, else from a contiguous copy on the host.
fn hash_bytes(hasher: &mut ParamHasher, tensor: &Tensor) -> Result<(), TchError> {
    let host = tensor.f_to_device(Device::Cpu)?.f_contiguous()?;
    let len = host.numel() * host.f_kind()?.elt_size_in_bytes();
    if len == 0 {
        return Ok(());
    }
    // SAFETY: `host` is a contiguous CPU tensor, so its `len` bytes start at
    // its data pointer; it lives to the end of this function, and nothing
    // writes to it meanwhile (the workload is between two steps).
    let bytes = unsafe { std::slice::from_raw_parts(host.data_ptr() as *const u8, len) };
    hasher.update(bytes);
    Ok(())
}

/// Flips the highest mantissa bit of the first element of the first
/// trainable variable (by name) whose first element is not zero, in place
/// and outside autograd: bit 22 of a float32 (the value changes by up to
/// half of itself, as [`mlb_plugin::flip_bit_f32`] does), bit 9 of a
/// float16, bit 6 of a bfloat16. A zero is passed over: its flipped bit is a
/// subnormal that the next update rounds away. `workload` names the
/// workload in the errors.
///
/// Errors: no such variable, a type other than those three, libtorch's.
pub fn flip_bit(workload: &str, variables: &[(String, Tensor)]) -> mlb_plugin::Result<()> {
    tch::no_grad(|| {
        let first = |t: &Tensor| t.f_flatten(0, -1).and_then(|flat| flat.f_double_value(&[0]));
        let mut candidates = variables.iter().filter(|(_, t)| t.requires_grad() && t.numel() > 0);
        let (name, variable) = candidates
            .find(|(_, t)| first(t).is_ok_and(|v| v != 0.0))
            .ok_or_else(|| format!("workload `{workload}` has no non-zero parameter to flip a bit of"))?;
        let (bits, bit) = match variable.kind() {
            Kind::Float => (Kind::Int, 22),
            Kind::Half => (Kind::Int16, 9),
            Kind::BFloat16 => (Kind::Int16, 6),
            other => {
                return Err(format!("workload `{workload}`: cannot flip a bit of `{name}`, of type {other:?}").into())
            }
        };
        let _ = variable.f_view_dtype(bits)?.f_flatten(0, -1)?.f_narrow(0, 0, 1)?.f_bitwise_xor_(1i64 << bit)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> nn::VarStore {
        let vs = nn::VarStore::new(Device::Cpu);
        let root = vs.root();
        let _ = root.zeros("a_zero", &[2]);
        let _ = root.ones("b_weight", &[2, 2]);
        let _ = root.zeros_no_train("c_running", &[3]);
        vs
    }

    #[test]
    fn the_hash_covers_every_variable_in_name_order() {
        let vs = store();
        let variables = sorted_variables(&vs);
        let names: Vec<&str> = variables.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a_zero", "b_weight", "c_running"]);
        let mut want = ParamHasher::new();
        for floats in [&[0.0f32; 2][..], &[1.0; 4], &[0.0; 3]] {
            want.update(&floats.iter().flat_map(|f| f.to_ne_bytes()).collect::<Vec<u8>>());
        }
        let print = of(&variables).unwrap();
        assert_eq!(print.params, want.finish());
        assert_eq!(print.grad_norm, None, "no backward pass yet");
        let _ = tch::no_grad(|| variables[2].1.shallow_clone().fill_(2.0));
        assert_ne!(of(&variables).unwrap().params, print.params, "a buffer is hashed too");
    }

    #[test]
    fn the_gradient_norm_is_that_of_the_last_backward_pass() {
        let vs = store();
        let variables = sorted_variables(&vs);
        (&variables[1].1 * 3.0).sum(Kind::Float).backward();
        // b_weight's gradient: four threes; a_zero has none.
        assert_eq!(of(&variables).unwrap().grad_norm, Some(6.0));
    }

    #[test]
    fn a_flipped_bit_lands_in_the_first_non_zero_parameter() {
        let vs = store();
        let variables = sorted_variables(&vs);
        flip_bit("test", &variables).unwrap();
        let weight = Vec::<f32>::try_from(variables[1].1.flatten(0, -1)).unwrap();
        assert_eq!(weight, [1.5, 1.0, 1.0, 1.0]);
        let zeros = Vec::<f32>::try_from(&variables[0].1).unwrap();
        assert_eq!(zeros, [0.0, 0.0]);
        for (kind, want) in [(Kind::Half, 1.5), (Kind::BFloat16, 1.5)] {
            let mut half = nn::VarStore::new(Device::Cpu);
            let _ = half.root().ones("w", &[1]);
            half.set_kind(kind);
            let variables = sorted_variables(&half);
            flip_bit("test", &variables).unwrap();
            assert_eq!(variables[0].1.double_value(&[0]), want, "{kind:?}");
        }
        let empty = flip_bit("toy", &sorted_variables(&nn::VarStore::new(Device::Cpu))).unwrap_err();
        assert!(empty.to_string().contains("workload `toy` has no non-zero parameter"), "{empty}");
    }
}
