//! A page's query string, read and checked before any query runs: bounded
//! in length and in parameters, each parameter known to the page and given
//! at most once (but `tag`), each value within its bounds. A query string
//! that fails any check is answered 400, naming the parameter and the fix.

use super::DataError;
use crate::store::query::matrix::Metric;

/// The longest query string read.
pub const MAX_QUERY_LEN: usize = 4096;

/// The most parameters a query string holds.
pub const MAX_PARAMS: usize = 32;

/// The longest name (system, bench, config, tag) taken: the store's rule ([`crate::store::name`]).
pub const MAX_NAME_LEN: usize = crate::store::name::MAX_NAME_LEN;

/// Parameters every page takes: `format` (`json`, `csv`) and `token` (the login).
pub const COMMON: [&str; 2] = ["format", "token"];

/// The parameters of a query string, decoded, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Decodes `query` (the text after `?`, percent- and `+`-encoded) and
    /// refuses a parameter not in `known` (nor in [`COMMON`]).
    pub fn parse(query: &str, known: &[&str]) -> Result<Params, DataError> {
        if query.len() > MAX_QUERY_LEN {
            return Err(DataError::TooLong { limit: MAX_QUERY_LEN });
        }
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        if pairs.len() > MAX_PARAMS {
            return Err(DataError::TooMany { limit: MAX_PARAMS });
        }
        if let Some((name, _)) =
            pairs.iter().find(|(k, _)| !known.contains(&k.as_str()) && !COMMON.contains(&k.as_str()))
        {
            return Err(DataError::Unknown {
                name: super::visible(name),
                known: known.iter().map(|k| k.to_string()).collect(),
            });
        }
        Ok(Params(pairs))
    }

    /// The values of `name`, in order.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
    }

    /// The value of `name`, given at most once; an empty value is none
    /// (a form's empty field).
    pub fn one(&self, name: &str) -> Result<Option<&str>, DataError> {
        match self.all(name)[..] {
            [] => Ok(None),
            [value] => Ok(Some(value).filter(|v| !v.is_empty())),
            _ => Err(DataError::bad(name, "", "give it once")),
        }
    }

    /// The name `name` holds: at most [`MAX_NAME_LEN`] characters, no control character.
    pub fn name(&self, name: &str) -> Result<Option<String>, DataError> {
        self.one(name)?.map(|v| checked_name(name, v)).transpose()
    }

    /// `name` parsed by `parse` (its error says what is wanted).
    pub fn parsed<T>(&self, name: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Option<T>, DataError> {
        self.one(name)?.map(|v| parse(v).map_err(|why| DataError::bad(name, v, &why))).transpose()
    }

    /// A whole number of `name` in `range`.
    pub fn number(&self, name: &str, range: std::ops::RangeInclusive<i64>) -> Result<Option<i64>, DataError> {
        self.parsed(name, |v| {
            v.parse::<i64>()
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| format!("pass a whole number from {} to {}", range.start(), range.end()))
        })
    }

    /// The metric `name`: `items/s`, `energy/item` or `score`.
    pub fn metric(&self, name: &str) -> Result<Option<Metric>, DataError> {
        self.parsed(name, |v| Metric::named(v).ok_or_else(|| "pass items/s, energy/item or score".into()))
    }
}

/// `value` of the parameter `name` as a name: bounded, no control character.
pub fn checked_name(name: &str, value: &str) -> Result<String, DataError> {
    if value.chars().count() > MAX_NAME_LEN {
        return Err(DataError::bad(name, value, &format!("pass at most {MAX_NAME_LEN} characters")));
    }
    if value.chars().any(char::is_control) {
        return Err(DataError::bad(name, value, "pass a name without control characters"));
    }
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_decoded_checked_and_given_once() {
        let p = Params::parse("system=a%20b&tag=k%3Dv&tag=x=y&page=2&format=csv", &["system", "tag", "page"]).unwrap();
        assert_eq!(p.name("system").unwrap().as_deref(), Some("a b"));
        assert_eq!(p.all("tag"), ["k=v", "x=y"]);
        assert_eq!(p.number("page", 1..=10).unwrap(), Some(2));
        assert!(p.number("page", 3..=10).is_err());
        assert!(p.one("tag").is_err());
        assert!(Params::parse("nope=1", &["system"]).unwrap_err().to_string().contains("nope"));
        assert!(Params::parse(&"a=1&".repeat(40), &["a"]).is_err());
        assert!(Params::parse(&"x".repeat(MAX_QUERY_LEN + 1), &[]).is_err());
        let bad = Params::parse("system=%01", &["system"]).unwrap();
        assert!(bad.name("system").is_err());
        assert_eq!(Params::parse("system=", &["system"]).unwrap().name("system").unwrap(), None);
        let m = Params::parse("metric=energy/item", &["metric"]).unwrap();
        assert_eq!(m.metric("metric").unwrap(), Some(Metric::EnergyPerItem));
    }
}
