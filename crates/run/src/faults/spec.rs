//! A fault as `--inject` writes it: `KIND:TARGET@TIME[,for=DURATION][,cpu=SHARE]`.
//!
//! - `freeze:slot=1@60s,for=30s`: the slot's group frozen, then thawed;
//! - `kill:rank=1@120s`: the instance SIGKILLed;
//! - `stop:slot=0@90s,for=20s`: the slot's processes sent SIGSTOP, then
//!   SIGCONT (`node=NAME`: every instance on that node);
//! - `slow:slot=0@30s,cpu=0.2`: the slot's CPU time capped at that share
//!   of its CPUs, until `for` or the config's end.
//!
//! A target is a slot (`slot=N`, the slot's index), a rank (`rank=N`, the
//! instance of the config: a DDP group's rank) or a node (`node=NAME`).
//! Times are seconds from the config's start (`60`, `60s`, `1.5m`).

use std::fmt;
use std::str::FromStr;

/// What a fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The slot's group frozen (cgroup freezer), then thawed.
    Freeze,
    /// The instance killed (SIGKILL).
    Kill,
    /// The processes stopped (SIGSTOP), then continued (SIGCONT).
    Stop,
    /// The slot's CPU time capped (CFS quota).
    Slow,
}

impl Kind {
    const ALL: [(&'static str, Kind); 4] =
        [("freeze", Kind::Freeze), ("kill", Kind::Kill), ("stop", Kind::Stop), ("slow", Kind::Slow)];

    /// Its name in `--inject`.
    pub fn name(self) -> &'static str {
        Kind::ALL.iter().find(|(_, k)| *k == self).map(|(n, _)| *n).expect("every kind is named")
    }
}

/// What a fault acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The instance in slot `N`.
    Slot(usize),
    /// Instance (rank) `N` of the config.
    Rank(u32),
    /// Every instance on the node.
    Node(String),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Slot(n) => write!(f, "slot {n}"),
            Target::Rank(n) => write!(f, "rank {n}"),
            Target::Node(n) => write!(f, "node {n}"),
        }
    }
}

/// One scheduled fault.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// As written.
    pub text: String,
    /// What it does.
    pub kind: Kind,
    /// To what.
    pub target: Target,
    /// When, seconds from the config's start.
    pub at: f64,
    /// For how long (`None`: a kill, or until the config's attempt ends).
    pub lasts: Option<f64>,
    /// The CPU share a `slow` fault leaves, in (0, 1].
    pub cpu: Option<f64>,
}

/// The forms `--inject` accepts, for its errors.
pub const ACCEPTED: &str = "accepted: KIND:TARGET@TIME[,for=DURATION][,cpu=SHARE], KIND one of freeze, kill, stop, slow; TARGET slot=N, rank=N or node=NAME; TIME and DURATION in seconds (60, 60s, 1.5m); e.g. freeze:slot=1@60s,for=30s, kill:rank=1@120s, slow:slot=0@30s,cpu=0.2";

impl FromStr for Fault {
    type Err = String;

    fn from_str(text: &str) -> Result<Fault, String> {
        let bad = |why: String| format!("{why}; {ACCEPTED}");
        let (kind, rest) = text.split_once(':').ok_or_else(|| bad("no KIND: before the target".into()))?;
        let kind = Kind::ALL
            .iter()
            .find(|(n, _)| *n == kind)
            .map(|(_, k)| *k)
            .ok_or_else(|| bad(format!("unknown fault kind {kind:?}")))?;
        let mut parts = rest.split(',');
        let head = parts.next().unwrap_or_default();
        let (target, at) = head.split_once('@').ok_or_else(|| bad("no @TIME after the target".into()))?;
        let target = target_of(target).map_err(bad)?;
        let at = seconds(at).map_err(|e| bad(format!("time {at:?}: {e}")))?;
        let (mut lasts, mut cpu) = (None, None);
        for part in parts {
            match part.split_once('=') {
                Some(("for", d)) => lasts = Some(seconds(d).map_err(|e| bad(format!("for={d}: {e}")))?),
                Some(("cpu", s)) => match s.parse::<f64>() {
                    Ok(share) if share > 0.0 && share <= 1.0 => cpu = Some(share),
                    _ => return Err(bad(format!("cpu={s}: a share of the slot's CPUs, above 0 and at most 1"))),
                },
                _ => return Err(bad(format!("unknown option {part:?}"))),
            }
        }
        let fault = Fault { text: text.to_string(), kind, target, at, lasts, cpu };
        fault.check().map_err(bad)?;
        Ok(fault)
    }
}

impl Fault {
    /// What each kind needs and refuses.
    fn check(&self) -> Result<(), String> {
        let name = self.kind.name();
        match (self.kind, &self.target) {
            (Kind::Kill, _) if self.lasts.is_some() => Err("a kill takes no for=".into()),
            (Kind::Slow, _) if self.cpu.is_none() => Err("slow needs cpu=SHARE".into()),
            (Kind::Freeze | Kind::Slow, Target::Node(_)) => Err(format!("{name} acts on a slot or a rank, not a node")),
            (Kind::Freeze | Kind::Kill | Kind::Stop, _) if self.cpu.is_some() => Err(format!("{name} takes no cpu=")),
            _ => Ok(()),
        }
    }
}

fn target_of(text: &str) -> Result<Target, String> {
    let number = |n: &str| n.parse::<u32>().map_err(|_| format!("{text:?}: not a whole number"));
    match text.split_once('=') {
        Some(("slot", n)) => Ok(Target::Slot(number(n)? as usize)),
        Some(("rank", n)) => Ok(Target::Rank(number(n)?)),
        Some(("node", name)) if !name.is_empty() => Ok(Target::Node(name.to_string())),
        _ => Err(format!("unknown target {text:?}")),
    }
}

/// `60`, `60s`, `1.5m`: finite, not negative.
fn seconds(text: &str) -> Result<f64, String> {
    let (number, unit) = match text.strip_suffix('m') {
        Some(n) => (n, 60.0),
        None => (text.strip_suffix('s').unwrap_or(text), 1.0),
    };
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v * unit),
        _ => Err("not a number of seconds".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issues_examples_read() {
        let f: Fault = "freeze:slot=1@60s,for=30s".parse().unwrap();
        assert_eq!((f.kind, &f.target, f.at, f.lasts, f.cpu), (Kind::Freeze, &Target::Slot(1), 60.0, Some(30.0), None));
        let f: Fault = "kill:rank=1@120s".parse().unwrap();
        assert_eq!((f.kind, &f.target, f.at, f.lasts), (Kind::Kill, &Target::Rank(1), 120.0, None));
        let f: Fault = "stop:node=n2@1.5m".parse().unwrap();
        assert_eq!((f.kind, &f.target, f.at), (Kind::Stop, &Target::Node("n2".into()), 90.0));
        let f: Fault = "slow:slot=0@30,cpu=0.2".parse().unwrap();
        assert_eq!((f.kind, f.at, f.cpu), (Kind::Slow, 30.0, Some(0.2)));
        assert_eq!(f.text, "slow:slot=0@30,cpu=0.2");
    }

    #[test]
    fn bad_faults_say_what_and_the_accepted_form() {
        for (text, why) in [
            ("freeze", "no KIND:"),
            ("melt:slot=1@1s", "unknown fault kind \"melt\""),
            ("kill:rank=1", "no @TIME"),
            ("kill:gpu=1@1s", "unknown target"),
            ("kill:rank=x@1s", "not a whole number"),
            ("kill:rank=1@soon", "not a number of seconds"),
            ("kill:rank=1@-1s", "not a number of seconds"),
            ("kill:rank=1@1s,for=2s", "a kill takes no for="),
            ("slow:slot=0@1s", "slow needs cpu="),
            ("slow:slot=0@1s,cpu=0", "above 0 and at most 1"),
            ("slow:slot=0@1s,cpu=2", "above 0 and at most 1"),
            ("freeze:node=n1@1s", "not a node"),
            ("freeze:slot=0@1s,cpu=0.5", "freeze takes no cpu="),
            ("freeze:slot=0@1s,then=2", "unknown option"),
        ] {
            let err = text.parse::<Fault>().unwrap_err();
            assert!(err.contains(why) && err.contains("accepted: KIND:TARGET@TIME"), "{text}: {err}");
        }
    }
}
