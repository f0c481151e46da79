//! What a deterministic workload proves it computed, and the faults a test
//! injects to check that the proof catches a wrong bit.
//!
//! Every N steps of a deterministic run (`deterministic: true`), the worker
//! asks the workload for its [`Fingerprint`]: a hash of every parameter's
//! bytes ([`ParamHasher`], XXH3-128) and the last gradient norm. With the
//! step's loss, the worker records it in the report; `mlb report` then votes
//! across the instances of a config (docs/determinism.md).

use xxhash_rust::xxh3::Xxh3;

/// A workload's fingerprint after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fingerprint {
    /// XXH3-128 of every parameter's bytes in the workload's fixed order
    /// ([`ParamHasher::finish`]).
    pub params: [u8; 16],
    /// The global L2 norm of the last step's gradients, if the workload has
    /// gradients.
    pub grad_norm: Option<f64>,
}

/// Hashes a workload's parameters: feed every parameter's bytes, always in
/// the same order (by name), then [`finish`](Self::finish).
#[derive(Clone, Default)]
pub struct ParamHasher(Xxh3);

impl ParamHasher {
    /// An empty hash.
    pub fn new() -> Self {
        ParamHasher(Xxh3::new())
    }

    /// Adds the next parameter's bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The XXH3-128 of everything added, big-endian.
    pub fn finish(&self) -> [u8; 16] {
        self.0.digest128().to_be_bytes()
    }
}

/// A fault a test injects into one instance after one step, to check that
/// the checks find it (`MLB_INJECT`, docs/determinism.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Flip one bit of one parameter (the workload picks which, the same
    /// every time): the fingerprints from then on leave the majority's.
    FlipBit,
    /// Corrupt one element of the next output (gemm): the result check
    /// fails the step.
    CorruptOutput,
}

impl Fault {
    /// Every fault, in the order of their names.
    pub const ALL: [Fault; 2] = [Fault::FlipBit, Fault::CorruptOutput];

    /// The fault's name (`flip_bit`, `corrupt_output`).
    pub const fn name(self) -> &'static str {
        match self {
            Fault::FlipBit => "flip_bit",
            Fault::CorruptOutput => "corrupt_output",
        }
    }

    /// The fault named `name`.
    pub fn from_name(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Flips bit `bit` of the first element of an `f32` slice's bytes (native
/// order): the fault a workload injects into its first parameter. `bit` 22
/// is the highest mantissa bit: the value changes by up to half of itself,
/// enough for the loss to notice later, not so much that it overflows.
pub fn flip_bit_f32(values: &mut [f32], bit: u32) -> Result<(), crate::Error> {
    let first = values.first_mut().ok_or("the parameter to flip a bit of is empty")?;
    *first = f32::from_bits(first.to_bits() ^ (1 << bit));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_sees_every_byte_and_the_order() {
        let hash = |parts: &[&[u8]]| {
            let mut h = ParamHasher::new();
            parts.iter().for_each(|p| h.update(p));
            h.finish()
        };
        let base = hash(&[b"abc", b"def"]);
        assert_eq!(base, hash(&[b"abc", b"def"]));
        assert_ne!(base, hash(&[b"abd", b"def"]));
        assert_ne!(base, hash(&[b"def", b"abc"]));
        assert_eq!(base, hash(&[b"abcdef"]), "a hash of the bytes, not of the parts");
    }

    #[test]
    fn faults_read_back_by_name() {
        for fault in Fault::ALL {
            assert_eq!(Fault::from_name(fault.name()), Some(fault));
        }
        assert_eq!(Fault::from_name("melt"), None);
    }

    #[test]
    fn a_flipped_bit_changes_the_first_value_only() {
        let mut v = [1.0f32, 2.0];
        flip_bit_f32(&mut v, 22).unwrap();
        assert_eq!(v, [1.5, 2.0]);
        assert!(flip_bit_f32(&mut [], 22).is_err());
    }
}
