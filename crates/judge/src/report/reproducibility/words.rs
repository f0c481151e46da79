//! What a vote says, in words: the verdict's name and the statement of a
//! group, the same in the report's views and in `mlb accept`'s verdicts.

use super::vote::{Group, Verdict};

/// `1 node`, `2 nodes`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

impl Verdict {
    /// Its name: `bit-identical`, `outliers`, `not reproducible on this
    /// stack`, `one instance`, `no common step`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::BitIdentical => "bit-identical",
            Verdict::Outliers { .. } => "outliers",
            Verdict::NotReproducible { .. } => "not reproducible on this stack",
            Verdict::OneInstance => "one instance",
            Verdict::NoCommonStep => "no common step",
        }
    }
}

impl Group {
    /// What the vote found, in one line: `8 instances on 2 nodes,
    /// bit-identical over 100 steps`; each outlier with its first step;
    /// the step without a majority.
    pub fn statement(&self) -> String {
        let n = self.instances.len();
        let over = self.last_step.map_or_else(String::new, |s| format!(" over {}", count(s as usize, "step")));
        match &self.verdict {
            Verdict::BitIdentical => {
                format!("{} on {}, bit-identical{over}", count(n, "instance"), count(self.nodes, "node"))
            }
            Verdict::Outliers { majority, outliers } => {
                let each: Vec<String> =
                    outliers.iter().map(|o| format!("{} differs from step {}", o.instance, o.step)).collect();
                format!("{}; the other {majority} of {n} agree{over}", each.join("; "))
            }
            Verdict::NotReproducible { step, agreeing, first_difference } => {
                let mut line = format!(
                    "{} first differ at step {first_difference}; at step {step} no fingerprint is shared by more \
                     than half (at most {agreeing} of {n} agree)",
                    count(n, "instance")
                );
                if n == 2 {
                    line.push_str(": with 2 instances nobody can say which one is wrong");
                }
                line
            }
            Verdict::OneInstance => format!("{}: nothing to vote", self.instances[0]),
            Verdict::NoCommonStep => format!("no step fingerprinted by all {n} instances: nothing to compare"),
        }
    }

    /// The instances with fewer fingerprints, one line each: `run 1 node
    /// n1 vcd 2: 5 fingerprints of 10, to step 50`.
    pub fn short_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.short.iter().map(move |s| {
            let to = s.last_step.map_or_else(String::new, |step| format!(", to step {step}"));
            format!("{} of {}: {} of {}{to}", s.instance, self.config, count(s.fingerprints, "fingerprint"), self.most)
        })
    }

    /// The stack as `key=value` pairs, sorted by key.
    pub fn stack_line(&self) -> String {
        let pairs: Vec<String> = self.stack.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::super::vote::tests::instance;
    use super::super::vote::vote;

    #[test]
    fn statements_name_counts_outliers_and_steps() {
        let same = vote(vec![instance(0, 0, "n1", "0", "H100", "aa"), instance(0, 0, "n2", "0", "H100", "aa")]);
        assert_eq!(same[0].statement(), "2 instances on 2 nodes, bit-identical over 20 steps");
        let outlier = vote(vec![
            instance(0, 0, "n1", "0", "H100", "aa"),
            instance(0, 0, "n1", "1", "H100", "ab"),
            instance(0, 0, "n1", "2", "H100", "aa"),
        ]);
        assert_eq!(
            outlier[0].statement(),
            "run 0 node n1 vcd 1 differs from step 20; the other 2 of 3 agree over 20 steps"
        );
        let two = vote(vec![instance(0, 0, "n1", "0", "H100", "ab"), instance(0, 0, "n1", "1", "H100", "ac")]);
        assert_eq!(two[0].verdict.label(), "not reproducible on this stack");
        let line = two[0].statement();
        assert!(line.starts_with("2 instances first differ at step 20;"), "{line}");
        assert!(line.ends_with("nobody can say which one is wrong"), "{line}");
        let alone = vote(vec![instance(0, 3, "n1", "0", "H100", "a")]);
        assert_eq!(alone[0].statement(), "run 3 node n1 vcd 0: nothing to vote");
        let short = vote(vec![instance(0, 0, "n1", "0", "H100", "aaa"), instance(0, 0, "n1", "1", "H100", "a")]);
        let lines: Vec<String> = short[0].short_lines().collect();
        assert_eq!(lines, ["run 0 node n1 vcd 1 of spin[n=0]: 1 fingerprint of 3, to step 10"]);
        assert_eq!(short[0].stack_line(), "threads=1");
    }
}
