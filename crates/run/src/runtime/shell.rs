//! Words as a POSIX shell reads them, for command lines shown to people.

/// A word quoted for a POSIX shell when it needs it.
pub fn shell_word(w: &str) -> String {
    let plain = !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./,:=+@%".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting() {
        assert_eq!(super::shell_word("--repeat"), "--repeat");
        assert_eq!(super::shell_word(r#"{"a":1}"#), r#"'{"a":1}'"#);
        assert_eq!(super::shell_word("it's"), r"'it'\''s'");
        assert_eq!(super::shell_word(""), "''");
    }
}
