//! Typed access to a workload's JSON arguments.

use serde_json::{Map, Value};
use std::fmt;

/// A workload's arguments: a JSON object whose keys are argument names
/// (`batch_size`, `arch`...). Values written as JSON numbers, booleans or
/// strings are accepted wherever they parse (`"256"` is a valid integer), and
/// an empty string `""` is a bare flag.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    args: Map<String, Value>,
}

/// An argument had the wrong type or could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// An argument that is absent and has no default.
    pub(crate) fn missing(key: &str) -> Self {
        ConfigError { message: format!("argument `{key}` is missing and has no default") }
    }

    /// A declared default that is not JSON (the declaration is wrong).
    pub(crate) fn bad_default(key: &str, text: &str) -> Self {
        ConfigError { message: format!("the declared default of argument `{key}` is not JSON: {text}") }
    }
}

impl Config {
    /// Parses a JSON object.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(args)) => Ok(Config { args }),
            Ok(other) => Err(ConfigError { message: format!("workload config must be a JSON object, got {other}") }),
            Err(e) => Err(ConfigError { message: format!("workload config is not valid JSON: {e}") }),
        }
    }

    /// Wraps an existing map.
    pub fn from_map(args: Map<String, Value>) -> Self {
        Config { args }
    }

    /// The raw arguments.
    pub fn args(&self) -> &Map<String, Value> {
        &self.args
    }

    /// The raw value of an argument.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.args.get(key)
    }

    /// True when the argument is present as a flag (`""`, `true`, or any value
    /// other than `false`/`0`/`"false"`).
    pub fn flag(&self, key: &str) -> bool {
        match self.args.get(key) {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::String(s)) => !matches!(s.as_str(), "false" | "0"),
            Some(Value::Number(n)) => n.as_f64() != Some(0.0),
            Some(_) => true,
        }
    }

    /// An unsigned integer argument, or `default` when absent.
    pub fn u64_or(&self, key: &str, default: u64) -> Result<u64, ConfigError> {
        self.parsed(key, "a non-negative integer", |v| match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        })
        .map(|v| v.unwrap_or(default))
    }

    /// A `usize` argument, or `default` when absent.
    pub fn usize_or(&self, key: &str, default: usize) -> Result<usize, ConfigError> {
        let value = self.u64_or(key, default as u64)?;
        usize::try_from(value).map_err(|_| self.bad(key, "an integer that fits in usize"))
    }

    /// A float argument, or `default` when absent.
    pub fn f64_or(&self, key: &str, default: f64) -> Result<f64, ConfigError> {
        self.parsed(key, "a number", |v| match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        })
        .map(|v| v.unwrap_or(default))
    }

    /// A string argument, or `default` when absent. Numbers are rendered.
    pub fn str_or(&self, key: &str, default: &str) -> Result<String, ConfigError> {
        self.parsed(key, "a string", |v| match v {
            Value::String(s) => Some(s.trim_matches('"').to_string()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        })
        .map(|v| v.unwrap_or_else(|| default.to_string()))
    }

    /// An optional string argument (absent or `""` gives `None`).
    pub fn opt_str(&self, key: &str) -> Result<Option<String>, ConfigError> {
        Ok(Some(self.str_or(key, "")?).filter(|s| !s.is_empty()))
    }

    fn parsed<T>(
        &self,
        key: &str,
        expected: &str,
        parse: impl Fn(&Value) -> Option<T>,
    ) -> Result<Option<T>, ConfigError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => parse(v).map(Some).ok_or_else(|| self.bad(key, expected)),
        }
    }

    fn bad(&self, key: &str, expected: &str) -> ConfigError {
        let got = self.args.get(key).map(Value::to_string).unwrap_or_default();
        ConfigError { message: format!("argument `{key}` must be {expected}, got {got}") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> Config {
        Config::parse(text).unwrap()
    }

    #[test]
    fn numbers_parse_from_json_numbers_and_strings() {
        let c = cfg(r#"{"a": 256, "b": "128", "c": 0.5, "d": "1e-3"}"#);
        assert_eq!(c.u64_or("a", 1).unwrap(), 256);
        assert_eq!(c.u64_or("b", 1).unwrap(), 128);
        assert_eq!(c.f64_or("c", 1.0).unwrap(), 0.5);
        assert_eq!(c.f64_or("d", 1.0).unwrap(), 1e-3);
        assert_eq!(c.u64_or("missing", 7).unwrap(), 7);
    }

    #[test]
    fn wrong_types_name_the_argument() {
        let c = cfg(r#"{"batch_size": "many", "lr": [1]}"#);
        let e = c.u64_or("batch_size", 1).unwrap_err().to_string();
        assert!(e.contains("batch_size") && e.contains("\"many\""), "{e}");
        assert!(c.f64_or("lr", 1.0).is_err());
        assert!(Config::parse("[1]").is_err());
        assert!(Config::parse("{").is_err());
    }

    #[test]
    fn flags() {
        let c = cfg(r#"{"cuda": "", "half": true, "no": false, "zero": 0, "off": "false"}"#);
        assert!(c.flag("cuda") && c.flag("half"));
        assert!(!c.flag("no") && !c.flag("zero") && !c.flag("off") && !c.flag("absent"));
    }

    #[test]
    fn strings() {
        let c = cfg(r#"{"arch": "resnet18", "env": "\"Pong\"", "n": 3, "empty": ""}"#);
        assert_eq!(c.str_or("arch", "x").unwrap(), "resnet18");
        assert_eq!(c.str_or("env", "x").unwrap(), "Pong");
        assert_eq!(c.str_or("n", "x").unwrap(), "3");
        assert_eq!(c.opt_str("empty").unwrap(), None);
        assert_eq!(c.opt_str("absent").unwrap(), None);
    }
}
