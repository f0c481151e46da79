//! `$NAME` and `${NAME}` in commands, argument names and values.

use std::collections::BTreeMap;

/// Variables whose value differs per instance: kept as written when a
/// config is expanded, filled in for each instance by [`per_instance`].
pub const PER_INSTANCE: &[&str] = &["JOB_ID"];

/// The variables a jobs file may use: mlb's own (docs/launcher.md, "Jobs files"), then the
/// launcher's environment; [`PER_INSTANCE`] ones are left for each instance.
#[derive(Clone, Debug, Default)]
pub struct Variables {
    own: BTreeMap<String, String>,
    env: BTreeMap<String, String>,
}

/// A variable that is neither mlb's nor in the environment.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variable `${name}`")]
pub struct UnknownVariable {
    /// The variable's name.
    pub name: String,
}

impl Variables {
    /// mlb's variables over the given environment.
    pub fn new(
        own: impl IntoIterator<Item = (String, String)>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Self {
        Variables { own: own.into_iter().collect(), env: env.into_iter().collect() }
    }

    /// mlb's variables over this process's environment.
    pub fn with_process_env(own: impl IntoIterator<Item = (String, String)>) -> Self {
        Self::new(own, std::env::vars())
    }

    /// mlb's own variables (the ones every instance also gets).
    pub fn own(&self) -> &BTreeMap<String, String> {
        &self.own
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.own.get(name).or_else(|| self.env.get(name)).map(String::as_str)
    }

    /// Expands every `$NAME` and `${NAME}` of `text`. A `$` not followed by a
    /// name, and a [`PER_INSTANCE`] variable, stay as they are.
    pub fn expand(&self, text: &str) -> Result<String, UnknownVariable> {
        substitute(text, |name| {
            if PER_INSTANCE.contains(&name) {
                Ok(None)
            } else {
                self.get(name).map(|v| Some(v.to_string())).ok_or_else(|| UnknownVariable { name: name.to_string() })
            }
        })
    }
}

/// Fills in the [`PER_INSTANCE`] variables of an expanded text for instance `jr_id`.
pub fn per_instance(text: &str, jr_id: usize) -> String {
    let filled: Result<String, std::convert::Infallible> =
        substitute(text, |name| Ok((name == "JOB_ID").then(|| jr_id.to_string())));
    match filled {
        Ok(text) => text,
        Err(never) => match never {},
    }
}

/// Replaces each `$NAME`/`${NAME}` by what `lookup` gives; `None` keeps it as written.
fn substitute<E>(text: &str, lookup: impl Fn(&str) -> Result<Option<String>, E>) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, consumed) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) if is_name(&inner[..end]) => (&inner[..end], end + 2),
                _ => ("", 0),
            },
            None => {
                let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
                let name = &after[..end];
                if is_name(name) {
                    (name, end)
                } else {
                    ("", 0)
                }
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        match lookup(name)? {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[at..at + 1 + consumed]),
        }
        rest = &after[consumed..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Variables {
        Variables::new(
            [("OUTPUT_DIRECTORY".to_string(), "/out".to_string()), ("JOB_FILE".into(), "baselines".into())],
            [("HOME".to_string(), "/home/u".to_string()), ("OUTPUT_DIRECTORY".into(), "/ignored".into())],
        )
    }

    #[test]
    fn both_forms_own_first_then_environment() {
        let v = vars();
        assert_eq!(v.expand("$OUTPUT_DIRECTORY/$JOB_FILE").unwrap(), "/out/baselines");
        assert_eq!(v.expand("${OUTPUT_DIRECTORY}x/${HOME}").unwrap(), "/outx//home/u");
        assert_eq!(v.expand("cost $5 and $ alone, ${} too").unwrap(), "cost $5 and $ alone, ${} too");
    }

    #[test]
    fn job_id_is_filled_per_instance() {
        let once = vars().expand("${JOB_ID}000 $JOB_ID $OUTPUT_DIRECTORY $5").unwrap();
        assert_eq!(once, "${JOB_ID}000 $JOB_ID /out $5");
        assert_eq!(per_instance(&once, 1), "1000 1 /out $5");
        assert_eq!(per_instance(&once, 0), "0000 0 /out $5");
    }

    #[test]
    fn unknown_is_an_error_not_empty() {
        assert_eq!(vars().expand("$DATA_DIRECTORY/x").unwrap_err(), UnknownVariable { name: "DATA_DIRECTORY".into() });
        assert_eq!(vars().expand("${NOPE}").unwrap_err().name, "NOPE");
    }
}
