//! Bench name patterns (`mlb db compare --benches`, `mlb serve`'s compare
//! page): `*` any text, `?` one character, everything else itself. The
//! pattern is bounded in length and in stars, and matching is linear in
//! the name (no backtracking blow-up).

/// The longest pattern taken.
pub const MAX_LEN: usize = 200;

/// The most `*` a pattern may hold.
pub const MAX_STARS: usize = 16;

/// A checked pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob(Vec<char>);

impl Glob {
    /// Reads `text`; refuses one past [`MAX_LEN`] characters or [`MAX_STARS`] stars.
    pub fn parse(text: &str) -> Result<Glob, String> {
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() || chars.len() > MAX_LEN {
            return Err(format!("a bench pattern has 1 to {MAX_LEN} characters"));
        }
        if chars.iter().filter(|c| **c == '*').count() > MAX_STARS {
            return Err(format!("a bench pattern has at most {MAX_STARS} `*`"));
        }
        Ok(Glob(chars))
    }

    /// Whether `name` matches the whole pattern.
    pub fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        let (p, n) = (&self.0, &name);
        let (mut i, mut j) = (0, 0);
        // The last star seen and where in the name its match ends so far.
        let mut star: Option<(usize, usize)> = None;
        while j < n.len() {
            if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
                i += 1;
                j += 1;
            } else if i < p.len() && p[i] == '*' {
                star = Some((i, j));
                i += 1;
            } else if let Some((si, sj)) = star {
                i = si + 1;
                j = sj + 1;
                star = Some((si, sj + 1));
            } else {
                return false;
            }
        }
        p[i..].iter().all(|c| *c == '*')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_question_marks() {
        let g = |p: &str| Glob::parse(p).unwrap();
        assert!(g("conv*").matches("convnet") && g("conv*").matches("conv"));
        assert!(!g("conv*").matches("resnet"));
        assert!(g("*net").matches("convnet") && g("c?nv*t").matches("convnet"));
        assert!(g("*").matches("") && g("a*b*c").matches("aXXbYYc") && !g("a*b*c").matches("aXXbYY"));
        assert!(g("vae").matches("vae") && !g("vae").matches("vae2"));
        assert!(Glob::parse("").is_err() && Glob::parse(&"*".repeat(17)).is_err());
        assert!(Glob::parse(&"a".repeat(201)).is_err());
    }
}
