//! The rule for a name the store keeps and its readers select by (a
//! system's name): at most [`MAX_NAME_LEN`] characters, no control
//! character. `--system` once took a newline, an ESC or 100,000
//! characters, and `mlb serve`, which takes only such names in its
//! queries, could then never select that system.

/// The longest name taken, in characters.
pub const MAX_NAME_LEN: usize = 200;

/// Why a name given was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NameError {
    /// Empty.
    #[error("a name cannot be empty")]
    Empty,
    /// Longer than [`MAX_NAME_LEN`] characters.
    #[error("a name of {0} characters is longer than {MAX_NAME_LEN}")]
    TooLong(usize),
    /// Holds a control character (a newline, a tab, ESC, NUL).
    #[error("a name cannot hold a control character (a newline, a tab, ESC)")]
    Control,
}

/// `name`, if it follows the rule.
pub fn check(name: &str) -> Result<&str, NameError> {
    let count = name.chars().count();
    if count == 0 {
        return Err(NameError::Empty);
    }
    if count > MAX_NAME_LEN {
        return Err(NameError::TooLong(count));
    }
    if name.chars().any(char::is_control) {
        return Err(NameError::Control);
    }
    Ok(name)
}

/// `text` (a host name a report gives) made to follow the rule: each
/// control character replaced by U+FFFD, cut to [`MAX_NAME_LEN`] characters.
pub fn tidy(text: &str) -> String {
    text.chars().take(MAX_NAME_LEN).map(|c| if c.is_control() { '\u{FFFD}' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_bounded_names_only() {
        assert_eq!(check("lab b 試験 'x'"), Ok("lab b 試験 'x'"));
        assert_eq!(check(""), Err(NameError::Empty));
        assert_eq!(check(&"x".repeat(MAX_NAME_LEN + 1)), Err(NameError::TooLong(MAX_NAME_LEN + 1)));
        for bad in ["a\nb", "a\u{1b}[31m", "a\0", "\t"] {
            assert_eq!(check(bad), Err(NameError::Control), "{bad:?}");
        }
        assert_eq!(tidy("n1\u{1b}[2J\n"), "n1\u{FFFD}[2J\u{FFFD}");
        assert_eq!(tidy(&"y".repeat(1000)).chars().count(), MAX_NAME_LEN);
    }
}
