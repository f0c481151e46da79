//! Which benches a rule applies to: every bench, a glob (`convnet*`,
//! `*_fp16`, `?`), or one bench by name.

use std::fmt;

/// The benches of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Benches(Option<String>);

impl Benches {
    /// Every bench (a rule without `bench`).
    pub fn all() -> Benches {
        Benches(None)
    }

    /// The benches `pattern` names: a glob when it holds `*` or `?`, else one name.
    pub fn named(pattern: &str) -> Benches {
        Benches(Some(pattern.to_string()))
    }

    /// Whether the rule applies to every bench.
    pub fn is_all(&self) -> bool {
        self.0.is_none()
    }

    /// Whether `bench` is one of them.
    pub fn matches(&self, bench: &str) -> bool {
        match &self.0 {
            None => true,
            Some(pattern) => glob(pattern.as_bytes(), bench.as_bytes()),
        }
    }
}

impl fmt::Display for Benches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_deref().unwrap_or("*"))
    }
}

/// Whether `text` matches `pattern`, where `*` is any run of characters and
/// `?` any one byte; bench names are ASCII.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    // The last `*` and where in `text` it is tried next: a failed match
    // lets that star take one more character.
    let (mut p, mut t, mut star) = (0, 0, None);
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_globs_and_all() {
        let cases = [
            ("convnet", "convnet", true),
            ("convnet", "convnet_fp16", false),
            ("convnet*", "convnet_fp16", true),
            ("convnet*", "convnet", true),
            ("*_fp16", "convnet_fp16", true),
            ("*_fp16", "convnet", false),
            ("c?nvnet", "convnet", true),
            ("*n*t", "convnet", true),
            ("*a*b", "aaab", true),
            ("*a*b", "aaac", false),
            ("", "", true),
            ("", "a", false),
        ];
        for (pattern, bench, want) in cases {
            assert_eq!(Benches::named(pattern).matches(bench), want, "{pattern} on {bench}");
        }
        assert!(Benches::all().matches("anything") && Benches::all().is_all());
    }
}
