//! The fault a test asks one instance to inject (`MLB_INJECT`,
//! docs/determinism.md, "Checking the checks"): which fault, after which
//! step, in which slot and on which node.
//!
//! `MLB_INJECT=FAULT@STEP[,slot=DEVICES][,node=NAME][,job=JOB]`: after
//! step `STEP` (1-based, warm-up included) the instance whose visible
//! devices are `DEVICES` (its `vcd`, the slot's device list) on node `NAME`
//! (its Slurm node, else its host name) of job `JOB` injects `FAULT`
//! (`flip_bit`, `corrupt_output`). Without `slot`, `node` or `job`, every
//! slot, node or job matches.

use mlb_plugin::Fault;

/// A fault to inject after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injection {
    /// The fault.
    pub fault: Fault,
    /// The 1-based step after which it is injected.
    pub step: u64,
}

/// Where an instance runs, as `MLB_INJECT` selects it.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    /// The instance's visible devices (`vcd`).
    pub slot: &'a str,
    /// Its Slurm node, else its host name.
    pub node: &'a str,
    /// Its job's name.
    pub job: &'a str,
}

/// An `MLB_INJECT` value the worker cannot follow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "MLB_INJECT={value:?}: {why}; write FAULT@STEP[,slot=DEVICES][,node=NAME][,job=JOB] with FAULT one of {}",
    faults()
)]
pub struct InjectError {
    /// The variable's value.
    pub value: String,
    /// What is wrong with it.
    pub why: String,
}

fn faults() -> String {
    Fault::ALL.map(Fault::name).join(", ")
}

impl Injection {
    /// The injection `value` asks of the instance at `place`: `None` when
    /// it selects another slot or node.
    pub fn read(value: &str, place: Place<'_>) -> Result<Option<Injection>, InjectError> {
        let error = |why: String| InjectError { value: value.to_string(), why };
        let mut parts = value.split(',').map(str::trim);
        let head = parts.next().unwrap_or_default();
        let (name, step) = head.split_once('@').ok_or_else(|| error(format!("`{head}` names no step")))?;
        let fault =
            Fault::from_name(name.trim()).ok_or_else(|| error(format!("no fault is named `{}`", name.trim())))?;
        let step = step.trim().parse::<u64>().ok().filter(|s| *s > 0);
        let step = step.ok_or_else(|| error(format!("the step of `{head}` is not a positive integer")))?;
        let mut selected = true;
        for part in parts {
            let (key, want) = part.split_once('=').ok_or_else(|| error(format!("`{part}` is not KEY=VALUE")))?;
            let have = match key.trim() {
                "slot" => place.slot,
                "node" => place.node,
                "job" => place.job,
                other => return Err(error(format!("`{other}` is not `slot`, `node` or `job`"))),
            };
            selected &= have == want.trim();
        }
        Ok(selected.then_some(Injection { fault, step }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLOT_1: Place<'static> = Place { slot: "1", node: "node2", job: "gemm" };

    #[test]
    fn selects_by_slot_and_node() {
        let flip = Some(Injection { fault: Fault::FlipBit, step: 25 });
        assert_eq!(Injection::read("flip_bit@25", SLOT_1), Ok(flip));
        assert_eq!(Injection::read("flip_bit@25,slot=1", SLOT_1), Ok(flip));
        assert_eq!(Injection::read(" flip_bit @ 25 , slot = 1 , node = node2", SLOT_1), Ok(flip));
        assert_eq!(Injection::read("flip_bit@25,slot=0", SLOT_1), Ok(None));
        assert_eq!(Injection::read("flip_bit@25,slot=1,node=node1", SLOT_1), Ok(None));
        assert_eq!(Injection::read("flip_bit@25,job=gemm", SLOT_1), Ok(flip));
        assert_eq!(Injection::read("flip_bit@25,slot=1,job=membw", SLOT_1), Ok(None));
        let corrupt = Injection::read("corrupt_output@3", SLOT_1).unwrap().unwrap();
        assert_eq!(corrupt.fault, Fault::CorruptOutput);
    }

    #[test]
    fn a_value_it_cannot_follow_is_an_error_that_says_how_to_write_one() {
        for (value, why) in [
            ("flip_bit", "names no step"),
            ("melt@3", "no fault is named `melt`"),
            ("flip_bit@0", "not a positive integer"),
            ("flip_bit@x", "not a positive integer"),
            ("flip_bit@3,gpu=1", "`gpu` is not `slot`, `node` or `job`"),
            ("flip_bit@3,slot", "is not KEY=VALUE"),
        ] {
            let e = Injection::read(value, SLOT_1).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("FAULT@STEP") && e.contains("flip_bit, corrupt_output"), "{e}");
        }
    }
}
