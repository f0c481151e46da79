//! Rules: read from a YAML rules file (docs/accept.md), or the default
//! rules, which are the original score's pass criteria. A rules file that is
//! not valid YAML, names an unknown kind or field, or gives a bound that is
//! not a number in range is refused with the file, line and column.

use super::error::AcceptError;
use super::pattern::Benches;
use super::verdict::{Kind, Origin};
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The failures the original score tolerates: at most 1% of the results
/// (its BF), in percent.
pub const ORIGINAL_FAILURE_PERCENT: f64 = 100.0 * crate::report::MAX_FAILURE_SHARE;

/// What a rule checks, with its bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// Mean throughput / target at least `min` (none: the table's `perf_target`).
    Throughput {
        /// The ratio.
        min: Option<f64>,
    },
    /// Mean throughput at least `min` items/s.
    MinThroughput {
        /// Items/s.
        min: f64,
    },
    /// sd% at most `max` (none: the table's `sd_target`), in percent of the mean.
    Spread {
        /// Percent.
        max: Option<f64>,
    },
    /// Failed entries of each bench at most `max`.
    Failures {
        /// A count.
        max: f64,
    },
    /// Failed entries at most `max_percent` of the results of the benches
    /// together (the original's BF).
    FailureShare {
        /// Percent.
        max_percent: f64,
    },
    /// Each bench (or a bench of the glob) is present.
    Required,
    /// Every GPU's mean at least `min` of the best GPU's, per config.
    PerGpu {
        /// The ratio.
        min: f64,
    },
    /// Every node's mean at least `min` of the best node's, per config.
    PerNode {
        /// The ratio.
        min: f64,
    },
    /// At least `min` of the baseline's mean, per config.
    Baseline {
        /// The ratio.
        min: f64,
        /// How the two runs are compared.
        by: Comparison,
    },
    /// Throttled share of the window at most `max`.
    Throttled {
        /// A fraction (0 to 1).
        max: f64,
    },
    /// No XID error.
    Xid,
    /// No degraded PCIe link.
    PcieLink,
    /// Mean energy per item at most `max` J.
    Energy {
        /// Joules per item.
        max: f64,
    },
    /// Every vote group of deterministic runs bit-identical: no outlier, a
    /// majority at every step.
    Identical,
    /// Every cell of the interference matrix a slowdown of at most `max`
    /// (a share of the rate alone).
    Interference {
        /// A share, 0 to 1.
        max: f64,
        /// The mean, or the interval's bottom.
        by: Comparison,
    },
}

impl Check {
    /// The rule kind of this check.
    pub fn kind(&self) -> Kind {
        match self {
            Check::Throughput { .. } => Kind::Throughput,
            Check::MinThroughput { .. } => Kind::MinThroughput,
            Check::Spread { .. } => Kind::Spread,
            Check::Failures { .. } | Check::FailureShare { .. } => Kind::Failures,
            Check::Required => Kind::Required,
            Check::PerGpu { .. } => Kind::PerGpu,
            Check::PerNode { .. } => Kind::PerNode,
            Check::Baseline { .. } => Kind::Baseline,
            Check::Throttled { .. } => Kind::Throttled,
            Check::Xid => Kind::Xid,
            Check::PcieLink => Kind::PcieLink,
            Check::Energy { .. } => Kind::Energy,
            Check::Identical => Kind::Identical,
            Check::Interference { .. } => Kind::Interference,
        }
    }
}

/// How a `baseline` rule compares a run with its baseline, and an
/// `interference` rule a slowdown with its bound (`compare:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// The ratio of the means (`means`, the default): the contract's figure
    /// as it is written; the note says whether the interval of the ratio
    /// reaches the bound.
    Means,
    /// The top of the ratio's 95% interval (`intervals`): fails only beyond
    /// the noise of either run.
    Intervals,
}

/// One rule, ready to apply.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// Its `id`, else `KIND#N` (N: its place among the rules, from 1).
    pub id: String,
    /// Where it was written.
    pub origin: Origin,
    /// The benches it applies to.
    pub benches: Benches,
    /// Where its `bench` was written (line, column), to refuse an unknown one.
    pub bench_at: Option<(usize, usize)>,
    /// What it checks.
    pub check: Check,
}

/// The rules of the original score: per bench, throughput against the
/// target at least the table's `perf_target`, sd% at most its `sd_target`;
/// and failures at most 1% of the results.
pub fn defaults() -> Vec<Rule> {
    let rule = |kind: Kind, check| Rule {
        id: kind.name().to_string(),
        origin: Origin::Default,
        benches: Benches::all(),
        bench_at: None,
        check,
    };
    vec![
        rule(Kind::Throughput, Check::Throughput { min: None }),
        rule(Kind::Spread, Check::Spread { max: None }),
        rule(Kind::Failures, Check::FailureShare { max_percent: ORIGINAL_FAILURE_PERCENT }),
    ]
}

/// A rules file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    rules: Vec<Spanned<RawRule>>,
}

/// A rule as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: Option<String>,
    kind: Spanned<String>,
    bench: Option<Spanned<String>>,
    min: Option<Spanned<f64>>,
    max: Option<Spanned<f64>>,
    max_percent: Option<Spanned<f64>>,
    compare: Option<Spanned<String>>,
}

/// The longest text a rule's field may hold (`id`, `kind`, `bench`,
/// `compare`), in characters: each is copied into every verdict, the
/// record and the views (a rule id of 10 MB once made a record of 1.3 GB).
pub const MAX_TEXT: usize = 200;

/// The fields of a rules file's rule, for the fix of an unknown one.
const FIELDS: &str = "`id`, `kind`, `bench`, `min`, `max`, `max_percent`, `compare`";

/// Reads the rules file at `path`: a regular file of at most 16 MiB
/// ([`read_input`](mlb_record::reading::read_input)).
pub fn read(path: &Path) -> Result<Vec<Rule>, AcceptError> {
    let text = mlb_record::reading::read_input(path)
        .map_err(|source| AcceptError::RulesFile { path: path.to_path_buf(), source })?;
    parse(path, &text)
}

/// Parses the text of the rules file `path`.
pub fn parse(path: &Path, text: &str) -> Result<Vec<Rule>, AcceptError> {
    let at = |line: u64, column: u64, message: String, fix: String| AcceptError::Rules {
        path: path.to_path_buf(),
        line: line.max(1) as usize,
        column: column.max(1) as usize,
        message,
        fix,
    };
    if text.trim().is_empty() {
        return Err(at(1, 1, "the rules file is empty".into(), "list the rules under `rules:`".into()));
    }
    let raw: RawFile = serde_saphyr::from_str(text).map_err(|e| {
        // Not a rules file at all (any file given as one): what is wrong
        // with its top, never what it holds.
        let e = match serde_saphyr::from_str::<Probe>(text) {
            Err(not_rules) => not_rules,
            Ok(_) => e,
        };
        let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let message = unquoted(&yaml_message(&e.to_string()));
        let fix = if message.contains("unknown field") {
            format!("a rules file holds `rules:`, a list of rules with the fields {FIELDS}")
        } else if message.contains("floating point") {
            let token = token_at(text, line, column);
            return at(
                line,
                column,
                format!("the bound `{token}` is not a number"),
                "write the bound as a number, e.g. `min: 0.9`".into(),
            );
        } else {
            "write the rules as YAML: `rules:` then a list of `- kind: KIND` entries (docs/accept.md)".to_string()
        };
        at(line, column, message, fix)
    })?;
    if raw.rules.is_empty() {
        // No rule would accept any run.
        return Err(at(1, 1, "the rules file lists no rule".into(), "list the rules under `rules:`".into()));
    }
    raw.rules.into_iter().enumerate().map(|(i, rule)| validate(path, i + 1, rule)).collect()
}

/// The top of a rules file: a mapping with `rules` (anything else in it
/// left to [`RawFile`] to refuse).
#[derive(Deserialize)]
struct Probe {
    #[serde(rename = "rules")]
    _rules: serde::de::IgnoredAny,
}

/// `message` without the text of the file it quotes: a double-quoted
/// value, or a back-quoted one that is not a short name (`mni`, a field
/// misspelt), becomes `...`.
fn unquoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(['"', '`']) {
        let quote = rest.as_bytes()[start] as char;
        let Some(len) = rest[start + 1..].find(quote) else { break };
        let inner = &rest[start + 1..start + 1 + len];
        let name = quote == '`'
            && inner.len() <= 40
            && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        out.push_str(&rest[..start]);
        out.push(quote);
        out.push_str(if name { inner } else { "..." });
        out.push(quote);
        rest = &rest[start + 2 + len..];
    }
    out.push_str(rest);
    out
}

/// The first line of a YAML error without the place it starts with
/// (`error: line 3 column 10: `): the error names the place itself.
fn yaml_message(text: &str) -> String {
    let first = text.lines().next().unwrap_or("invalid YAML");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    match first.split_once(": ") {
        Some((place, rest)) if place.starts_with("line ") && place.contains(" column ") => rest.to_string(),
        _ => first.to_string(),
    }
}

/// The scalar written at `line`:`column` of `text` (to the end of its line).
fn token_at(text: &str, line: u64, column: u64) -> String {
    let at = text.lines().nth(line.saturating_sub(1) as usize).unwrap_or_default();
    let rest: String = at.chars().skip(column.saturating_sub(1) as usize).collect();
    rest.trim().to_string()
}

/// The (line, column) of `location`.
fn place(location: Location) -> (usize, usize) {
    (location.line().max(1) as usize, location.column().max(1) as usize)
}

/// A checked rule from the `n`th rule as written.
fn validate(path: &Path, n: usize, spanned: Spanned<RawRule>) -> Result<Rule, AcceptError> {
    let raw = spanned.value;
    let refuse = |(line, column): (usize, usize), message: String, fix: String| AcceptError::Rules {
        path: path.to_path_buf(),
        line,
        column,
        message,
        fix,
    };
    let texts = [
        ("id", raw.id.as_deref(), place(spanned.referenced)),
        ("kind", Some(raw.kind.value.as_str()), place(raw.kind.referenced)),
        (
            "bench",
            raw.bench.as_ref().map(|b| b.value.as_str()),
            raw.bench.as_ref().map_or((1, 1), |b| place(b.referenced)),
        ),
        (
            "compare",
            raw.compare.as_ref().map(|c| c.value.as_str()),
            raw.compare.as_ref().map_or((1, 1), |c| place(c.referenced)),
        ),
    ];
    for (field, text, at) in texts {
        let length = text.map_or(0, |t| t.chars().count());
        if length > MAX_TEXT {
            return Err(refuse(
                at,
                format!("the rule's `{field}` is {length} characters long, over the limit of {MAX_TEXT}"),
                format!("write a `{field}` of at most {MAX_TEXT} characters"),
            ));
        }
    }
    let kind_at = place(raw.kind.referenced);
    let kind = Kind::named(&raw.kind.value).ok_or_else(|| {
        let known: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        refuse(kind_at, format!("unknown rule kind `{}`", raw.kind.value), format!("use one of {}", known.join(", ")))
    })?;
    // Each bound given, checked to be a number in its range for the kind.
    let bound = |field: &Option<Spanned<f64>>, name: &str, allowed: bool, range: (f64, f64), what: &str| {
        let Some(value) = field else { return Ok(None) };
        let at = place(value.referenced);
        if !allowed {
            return Err(refuse(
                at,
                format!("a `{kind}` rule takes no `{name}`"),
                format!("remove `{name}` (docs/accept.md lists the bounds of each kind)"),
            ));
        }
        let v = value.value;
        if !v.is_finite() || v < range.0 || v > range.1 {
            return Err(refuse(
                at,
                format!("`{name}: {v}` is out of range for a `{kind}` rule"),
                format!("give {what}"),
            ));
        }
        Ok(Some(v))
    };
    let ratio = (f64::MIN_POSITIVE, f64::MAX);
    let any = (0.0, f64::MAX);
    let (takes_min, takes_max) = match kind {
        Kind::Throughput | Kind::MinThroughput | Kind::PerGpu | Kind::PerNode | Kind::Baseline => (true, false),
        Kind::Spread | Kind::Failures | Kind::Throttled | Kind::Energy | Kind::Interference => (false, true),
        Kind::Required | Kind::Xid | Kind::PcieLink | Kind::Identical => (false, false),
    };
    let min_what = match kind {
        Kind::MinThroughput => "a throughput above 0 in items/s",
        _ => "a ratio above 0, e.g. 0.9",
    };
    let (max_range, max_what) = match kind {
        Kind::Throttled => ((0.0, 1.0), "a fraction of the window from 0 to 1, e.g. 0.01"),
        Kind::Interference => ((0.0, 1.0), "a share of the rate alone from 0 to 1, e.g. 0.1"),
        Kind::Spread => (any, "a percentage of the mean, 0 or more, e.g. 5"),
        Kind::Failures => (any, "a count of failed entries, 0 or more"),
        _ => (ratio, "a number of joules per item above 0"),
    };
    let min = bound(&raw.min, "min", takes_min, ratio, min_what)?;
    let max = bound(&raw.max, "max", takes_max, max_range, max_what)?;
    let percent =
        bound(&raw.max_percent, "max_percent", kind == Kind::Failures, (0.0, 100.0), "a percentage from 0 to 100")?;
    let comparison = |raw: &RawRule| match &raw.compare {
        None => Ok(Comparison::Means),
        Some(c) if kind != Kind::Baseline && kind != Kind::Interference => Err(refuse(
            place(c.referenced),
            format!("a `{kind}` rule takes no `compare`"),
            "remove `compare` (only `baseline` and `interference` rules take it)".into(),
        )),
        Some(c) => match c.value.as_str() {
            "intervals" => Ok(Comparison::Intervals),
            "means" => Ok(Comparison::Means),
            other => Err(refuse(
                place(c.referenced),
                format!("unknown comparison `{other}`"),
                "write `compare: intervals` or `compare: means`".into(),
            )),
        },
    };
    let origin = place(spanned.referenced);
    let needs = |name: &str, example: &str| {
        refuse(origin, format!("a `{kind}` rule needs `{name}`"), format!("add `{name}: {example}` to the rule"))
    };
    let check = match kind {
        Kind::Throughput => Check::Throughput { min },
        Kind::MinThroughput => Check::MinThroughput { min: min.ok_or_else(|| needs("min", "1000"))? },
        Kind::Spread => Check::Spread { max },
        Kind::Failures => match (max, percent) {
            (Some(_), Some(_)) => {
                let at = raw.max_percent.as_ref().map_or(origin, |p| place(p.referenced));
                return Err(refuse(
                    at,
                    "a `failures` rule takes `max` or `max_percent`, not both".into(),
                    "keep one of them".into(),
                ));
            }
            (_, Some(max_percent)) => Check::FailureShare { max_percent },
            (max, None) => {
                let max = max.unwrap_or(0.0);
                if max.fract() != 0.0 {
                    let at = raw.max.as_ref().map_or(origin, |m| place(m.referenced));
                    return Err(refuse(at, format!("`max: {max}` is not a count"), "give a whole number".into()));
                }
                Check::Failures { max }
            }
        },
        Kind::Required => Check::Required,
        Kind::PerGpu => Check::PerGpu { min: min.ok_or_else(|| needs("min", "0.9"))? },
        Kind::PerNode => Check::PerNode { min: min.ok_or_else(|| needs("min", "0.9"))? },
        Kind::Baseline => Check::Baseline { min: min.ok_or_else(|| needs("min", "0.9"))?, by: comparison(&raw)? },
        Kind::Throttled => Check::Throttled { max: max.ok_or_else(|| needs("max", "0.01"))? },
        Kind::Xid => Check::Xid,
        Kind::PcieLink => Check::PcieLink,
        Kind::Energy => Check::Energy { max: max.ok_or_else(|| needs("max", "2.5"))? },
        Kind::Identical => Check::Identical,
        Kind::Interference => {
            Check::Interference { max: max.ok_or_else(|| needs("max", "0.1"))?, by: comparison(&raw)? }
        }
    };
    comparison(&raw)?;
    if kind == Kind::Required && raw.bench.is_none() {
        return Err(needs("bench", "convnet"));
    }
    let (benches, bench_at) = match &raw.bench {
        Some(b) => (Benches::named(&b.value), Some(place(b.referenced))),
        None => (Benches::all(), None),
    };
    let (line, column) = origin;
    Ok(Rule {
        id: raw.id.unwrap_or_else(|| format!("{kind}#{n}")),
        origin: Origin::File { path: PathBuf::from(path), line, column },
        benches,
        bench_at,
        check,
    })
}

/// Refuses a rule whose `bench` names no bench of `known` (the target
/// tables', the reports', the baseline's), at the place of its `bench`.
pub fn check_benches(rules: &[Rule], known: &BTreeSet<String>) -> Result<(), AcceptError> {
    for rule in rules {
        let (Some((line, column)), Origin::File { path, .. }) = (rule.bench_at, &rule.origin) else { continue };
        if known.iter().any(|b| rule.benches.matches(b)) {
            continue;
        }
        let names: Vec<&str> = known.iter().map(String::as_str).collect();
        let shown = if names.len() > 12 { format!("{}, ...", names[..12].join(", ")) } else { names.join(", ") };
        return Err(AcceptError::Rules {
            path: path.clone(),
            line,
            column,
            message: format!("rule `{}` names no known bench: `{}`", rule.id, rule.benches),
            fix: format!("name a bench of the reports or the target tables ({shown}), or a glob such as `convnet*`"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> (usize, usize, String, String) {
        match parse(Path::new("r.yaml"), text).unwrap_err() {
            AcceptError::Rules { line, column, message, fix, .. } => (line, column, message, fix),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn rules_with_their_places_ids_and_bounds() {
        let text = "rules:\n  - kind: per_gpu\n    min: 0.9\n  - id: fast\n    kind: min_throughput\n    bench: \"conv*\"\n    min: 1500\n  - kind: failures\n";
        let rules = parse(Path::new("r.yaml"), text).unwrap();
        assert_eq!(rules.len(), 3);
        assert_eq!((rules[0].id.as_str(), rules[0].check), ("per_gpu#1", Check::PerGpu { min: 0.9 }));
        assert_eq!(rules[0].origin.to_string(), "r.yaml:2:5");
        assert_eq!((rules[1].id.as_str(), rules[1].check), ("fast", Check::MinThroughput { min: 1500.0 }));
        assert!(rules[1].benches.matches("convnet_fp16") && !rules[1].benches.matches("bert"));
        assert_eq!(rules[1].bench_at, Some((6, 12)));
        assert_eq!(rules[2].check, Check::Failures { max: 0.0 });
        let means = parse(Path::new("r.yaml"), "rules:\n  - kind: baseline\n    min: 0.9\n    compare: means\n");
        assert_eq!(means.unwrap()[0].check, Check::Baseline { min: 0.9, by: Comparison::Means });
        let (line, column, message, _) = refused("rules:\n  - kind: per_gpu\n    min: 0.9\n    compare: means\n");
        assert_eq!((line, column, message.as_str()), (4, 14, "a `per_gpu` rule takes no `compare`"));
        let (_, _, message, fix) = refused("rules:\n  - kind: baseline\n    min: 0.9\n    compare: medians\n");
        assert!(message.contains("`medians`") && fix.contains("compare: means"), "{message}");
    }

    #[test]
    fn bad_rules_are_refused_where_they_are_written() {
        let (line, column, message, fix) = refused("rules:\n  - kind: speed\n    min: 1\n");
        assert_eq!((line, column), (2, 11), "{message}");
        assert!(message.contains("unknown rule kind `speed`") && fix.contains("per_gpu"), "{message} / {fix}");
        let (line, _, message, fix) = refused("rules:\n  - kind: per_gpu\n    min: fast\n");
        assert_eq!(line, 3, "{message}");
        assert!(fix.contains("number"), "{message} / {fix}");
        let (line, _, message, _) = refused("rules:\n  - kind: per_gpu\n    min: [0.9\n");
        assert!(line >= 3, "{message}");
        let (line, column, message, _) = refused("rules:\n  - kind: per_gpu\n    min: 0.9\n    mni: 1\n");
        assert_eq!(line, 4, "{message} {column}");
        assert!(message.contains("mni"), "{message}");
        let (line, column, message, _) = refused("rules:\n  - kind: per_gpu\n    max: 0.9\n");
        assert_eq!((line, column), (3, 10), "{message}");
        let (line, _, message, fix) = refused("rules:\n  - kind: per_gpu\n");
        assert_eq!(line, 2);
        assert!(message.contains("needs `min`") && fix.contains("min: 0.9"), "{message} / {fix}");
        let (_, _, message, _) = refused("rules:\n  - kind: throttled\n    max: 2\n");
        assert!(message.contains("out of range"), "{message}");
        let (_, _, message, _) = refused("rules:\n  - kind: failures\n    max: 1.5\n");
        assert!(message.contains("not a count"), "{message}");
        let (_, _, message, _) = refused("");
        assert!(message.contains("empty"), "{message}");
        let (_, _, message, _) = refused("rules: []\n");
        assert!(message.contains("lists no rule"), "{message}");
    }

    #[test]
    fn a_field_too_long_is_refused_with_its_length() {
        let long = "x".repeat(MAX_TEXT + 1);
        let (line, column, message, fix) =
            refused(&format!("rules:\n  - id: {long}\n    kind: per_gpu\n    min: 0.9\n"));
        assert_eq!((line, column), (2, 5), "{message}");
        assert_eq!(message, "the rule's `id` is 201 characters long, over the limit of 200");
        assert_eq!(fix, "write a `id` of at most 200 characters");
        let (_, _, message, _) = refused(&format!("rules:\n  - kind: required\n    bench: \"{long}\"\n"));
        assert!(message.starts_with("the rule's `bench` is 201 characters"), "{message}");
        let (_, _, message, _) = refused(&format!("rules:\n  - kind: {long}\n"));
        assert!(!message.contains(&long), "{message}");
        let fine = "y".repeat(MAX_TEXT);
        parse(Path::new("r.yaml"), &format!("rules:\n  - id: {fine}\n    kind: per_gpu\n    min: 0.9\n")).unwrap();
    }

    #[test]
    fn a_file_that_is_no_rules_file_is_not_quoted() {
        let secret = "root:$6$SECRETHASH$x:19000:0:99999:7:::";
        for text in [
            format!("{secret}\n"),
            format!("{secret}\nbin:x:1:1\n"),
            format!("rules: {secret}\n"),
            format!("rules:\n  - {secret}\n"),
            format!("- {secret}\n"),
            format!("\"{secret}\": 1\n"),
        ] {
            let (_, _, message, fix) = refused(&text);
            assert!(!message.contains("SECRETHASH") && !fix.contains("SECRETHASH"), "{message} / {fix}");
        }
    }

    #[test]
    fn a_bench_known_nowhere_is_refused_at_its_place() {
        let rules = parse(Path::new("r.yaml"), "rules:\n  - kind: required\n    bench: convnte\n").unwrap();
        let known: BTreeSet<String> = ["convnet", "bert"].map(String::from).into();
        match check_benches(&rules, &known).unwrap_err() {
            AcceptError::Rules { line, column, message, fix, .. } => {
                assert_eq!((line, column), (3, 12));
                assert!(message.contains("convnte") && fix.contains("bert, convnet"), "{message} / {fix}");
            }
            other => panic!("{other}"),
        }
        let glob = parse(Path::new("r.yaml"), "rules:\n  - kind: required\n    bench: \"conv*\"\n").unwrap();
        check_benches(&glob, &known).unwrap();
    }
}
