//! Control characters made visible in the text outputs (table, Markdown,
//! CSV): a value of a report (an argument, a bench name, a message) that
//! holds a newline, a NUL or an escape sequence would otherwise forge a
//! line or colour the terminal. JSON escapes them itself and the HTML page
//! escapes its own text.

use std::borrow::Cow;

/// `text` with each control character written as an escape: `\n`, `\r`,
/// `\t`, `\0`, else `\u{1b}`; unchanged (not copied) when it holds none.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.contains(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_escaped_the_rest_kept() {
        assert!(matches!(visible("resnet18 é ✓"), Cow::Borrowed("resnet18 é ✓")));
        assert_eq!(visible("a\nb\r\t\0\u{1b}[31m\u{7f}"), "a\\nb\\r\\t\\0\\u{1b}[31m\\u{7f}");
    }
}
