//! Cartesian expansion of list arguments and variable expansion.

use super::model::{Args, Job, JobConfig, Program};
use super::vars::{UnknownVariable, Variables};
use serde_json::Value;

/// Why a job's configs were not made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    /// A variable nobody defines.
    #[error(transparent)]
    UnknownVariable(#[from] UnknownVariable),
    /// The job has more configs than allowed.
    #[error("{} configs, more than the {limit} allowed", ConfigCount(*count))]
    TooMany {
        /// Its configs: the product of its list lengths (`None`: more than `usize::MAX`).
        count: Option<usize>,
        /// The most allowed.
        limit: usize,
    },
}

/// A number of configs as messages say it: `1000`, or
/// `more than 18446744073709551615` for a count past `usize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigCount(pub Option<usize>);

impl std::fmt::Display for ConfigCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => write!(f, "more than {}", usize::MAX),
        }
    }
}

/// How many configs `job` has: the product of its list lengths, counted
/// without making them; `None` when it does not fit a `usize`.
pub fn count(job: &Job) -> Option<usize> {
    job.args.0.iter().try_fold(1usize, |n, (_, v)| match v {
        Value::Array(items) => n.checked_mul(items.len()),
        _ => Some(n),
    })
}

/// Every config of `job`: the cartesian product of its list-valued arguments
/// in the original launcher's order (it popped the last argument first, so
/// the last list varies slowest and the first fastest), arguments kept in
/// file order, variables expanded in the command, argument names and string
/// values. A job of more than `limit` configs is refused before any is made.
pub fn configs(job: &Job, vars: &Variables, limit: usize) -> Result<Vec<JobConfig>, ExpandError> {
    let total = match count(job) {
        Some(n) if n <= limit => n,
        count => return Err(ExpandError::TooMany { count, limit }),
    };
    let program = match &job.program {
        Program::Cmd(c) => Program::Cmd(vars.expand(c)?),
        Program::Plugin(p) => Program::Plugin(p.clone()),
    };
    let mut expanded: Vec<(String, Vec<Value>)> = Vec::with_capacity(job.args.0.len());
    for (k, v) in &job.args.0 {
        let choices = match v {
            Value::Array(items) => items.clone(),
            scalar => vec![scalar.clone()],
        };
        let choices = choices.iter().map(|c| expand_value(c, vars)).collect::<Result<_, _>>()?;
        expanded.push((vars.expand(k)?, choices));
    }
    let varying: Vec<String> =
        expanded.iter().zip(&job.args.0).filter(|(_, (_, v))| v.is_array()).map(|((k, _), _)| k.clone()).collect();
    let mut out = Vec::with_capacity(total);
    for n in 0..total {
        let mut rest = n;
        let mut picked = vec![Value::Null; expanded.len()];
        // Mixed radix with the first argument as the fastest digit.
        for (slot, (_, choices)) in picked.iter_mut().zip(&expanded) {
            *slot = choices[rest % choices.len()].clone();
            rest /= choices.len();
        }
        let args = Args(expanded.iter().map(|(k, _)| k.clone()).zip(picked).collect());
        out.push(JobConfig {
            position: job.position,
            name: job.name.clone(),
            program: program.clone(),
            args,
            scope: job.scope,
            group: job.group,
            index: n + 1,
            of: total,
            varying: varying.clone(),
        });
    }
    Ok(out)
}

fn expand_value(v: &Value, vars: &Variables) -> Result<Value, UnknownVariable> {
    Ok(match v {
        Value::String(s) => Value::String(vars.expand(s)?),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::model::Scope;
    use serde_json::json;

    fn job(args: Vec<(&str, Value)>) -> Job {
        Job {
            position: 3,
            name: "j".into(),
            program: Program::Cmd("$BASE/run.sh".into()),
            args: Args(args.into_iter().map(|(k, v)| (k.to_string(), v)).collect()),
            scope: Scope::Student,
            group: None,
        }
    }

    #[test]
    fn cartesian_product_first_list_fastest() {
        let vars = Variables::new([("BASE".to_string(), "/b".to_string())], []);
        let j = job(vec![("--a", json!([1, 2])), ("--x", json!("$BASE/d")), ("--b", json!(["p", "q", "r"]))]);
        let c = configs(&j, &vars, 6).unwrap();
        assert_eq!(c.len(), 6);
        let pairs: Vec<(Value, Value)> = c.iter().map(|c| (c.args.0[0].1.clone(), c.args.0[2].1.clone())).collect();
        assert_eq!(
            pairs,
            [(1, "p"), (2, "p"), (1, "q"), (2, "q"), (1, "r"), (2, "r")].map(|(a, b)| (json!(a), json!(b)))
        );
        assert!(c.iter().all(|c| c.args.0[1] == ("--x".into(), json!("/b/d"))));
        assert_eq!(c[0].program, Program::Cmd("/b/run.sh".into()));
        assert_eq!((c[4].index, c[4].of), (5, 6));
        assert_eq!(c[4].label(), "j[a=1 b=r]");
    }

    /// The original launcher's `make_configs`, transcribed: pop the last
    /// argument; a list value loops over its values, each recursing on what
    /// is left. It returns each config's (name, value) picks in the order it
    /// emitted them (reversed).
    fn original_make_configs(
        mut args: Vec<(String, Value)>,
        current: Vec<(String, Value)>,
    ) -> Vec<Vec<(String, Value)>> {
        let Some((name, values)) = args.pop() else { return vec![current] };
        let values = match values {
            Value::Array(items) => items,
            scalar => vec![scalar],
        };
        let mut out = Vec::new();
        for v in values {
            let mut next = current.clone();
            next.push((name.clone(), v));
            out.extend(original_make_configs(args.clone(), next));
        }
        out
    }

    #[test]
    fn order_matches_the_original_launcher() {
        let vars = Variables::new([("BASE".to_string(), "/b".to_string())], []);
        let args = vec![
            ("--arch", json!(["resnet18", "resnet50"])),
            ("--lr", json!(0.1)),
            ("--bs", json!([32, 64, 128])),
            ("--opt", json!(["sgd", "adam"])),
        ];
        let original = original_make_configs(args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(), vec![]);
        let ours = configs(&job(args), &vars, usize::MAX).unwrap();
        assert_eq!(ours.len(), original.len());
        for (k, (o, c)) in original.iter().zip(&ours).enumerate() {
            let mut o: Vec<(String, Value)> = o.clone();
            o.reverse(); // the original emitted arguments last first; mlb keeps file order
            assert_eq!(o, c.args.0, "config {}", k + 1);
            assert_eq!(c.index, k + 1);
        }
        // The last list (--opt) varies slowest, the first (--arch) fastest.
        assert_eq!(ours[0].label(), "j[arch=resnet18 bs=32 opt=sgd]");
        assert_eq!(ours[1].label(), "j[arch=resnet50 bs=32 opt=sgd]");
        assert_eq!(ours[2].label(), "j[arch=resnet18 bs=64 opt=sgd]");
        assert_eq!(ours[6].label(), "j[arch=resnet18 bs=32 opt=adam]");
    }

    #[test]
    fn no_list_one_config_plain_label() {
        let vars = Variables::new([("BASE".to_string(), "/b".to_string())], []);
        let c = configs(&job(vec![("--a", json!(1))]), &vars, 1).unwrap();
        assert_eq!((c.len(), c[0].label()), (1, "j".to_string()));
    }

    #[test]
    fn unknown_variable_in_a_list_value() {
        let vars = Variables::new([("BASE".to_string(), "/b".to_string())], []);
        let e = configs(&job(vec![("--a", json!(["ok", "$MISSING"]))]), &vars, 2).unwrap_err();
        assert_eq!(e, ExpandError::UnknownVariable(UnknownVariable { name: "MISSING".into() }));
    }

    #[test]
    fn configs_are_counted_before_any_is_made() {
        let vars = Variables::new([("BASE".to_string(), "/b".to_string())], []);
        let ten: Vec<Value> = (0..10).map(|i| json!(i)).collect();
        let lists = |n: usize| job((0..n).map(|_| ("--a", Value::Array(ten.clone()))).collect());
        assert_eq!(count(&lists(3)), Some(1000));
        assert_eq!(configs(&lists(3), &vars, 999).unwrap_err(), ExpandError::TooMany { count: Some(1000), limit: 999 });
        assert_eq!(configs(&lists(3), &vars, 1000).unwrap().len(), 1000);
        // 10^10 configs would need a 1.36 TB allocation; 10^20 overflows.
        assert_eq!(
            configs(&lists(10), &vars, 10_000).unwrap_err().to_string(),
            "10000000000 configs, more than the 10000 allowed"
        );
        assert_eq!(count(&lists(20)), None);
        let e = configs(&lists(20), &vars, usize::MAX).unwrap_err();
        assert_eq!(e.to_string(), format!("more than {} configs, more than the {} allowed", usize::MAX, usize::MAX));
    }
}
