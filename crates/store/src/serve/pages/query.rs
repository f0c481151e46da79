//! Query strings of the pages' links: a value percent-encoded, and a
//! page's query with one parameter set anew (the next page of a list keeps
//! its filters).

/// `text` percent-encoded for a query string (all but unreserved characters).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `query` with `name` set to `value` (its other parameters as they are).
pub fn with(query: &str, name: &str, value: &str) -> String {
    let prefix = format!("{name}=");
    let mut kept: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with(&prefix) && *p != name)
        .map(str::to_string)
        .collect();
    kept.push(format!("{name}={}", encode(value)));
    kept.join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_encoded_and_a_parameter_replaced() {
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(with("system=a&page=2&tag=k%3Dv", "page", "3"), "system=a&tag=k%3Dv&page=3");
        assert_eq!(with("", "page", "2"), "page=2");
    }
}
