//! Control characters made visible in what mlb prints and in its text
//! outputs (table, Markdown, CSV): a value of a report (an argument, a bench
//! name, a message, a path) that holds a newline, a NUL or an escape
//! sequence would otherwise forge a line, set the terminal's title or clear
//! its screen. JSON escapes them itself and the HTML page escapes its own
//! text.

use std::borrow::Cow;

/// `text` with each control character (C0, DEL, C1) and each bidirectional
/// override written as an escape: `\n`, `\r`, `\t`, `\0`, else `\u{1b}`;
/// unchanged (not copied) when it holds none. For one value: a field, a
/// name, a path.
pub fn visible(text: &str) -> Cow<'_, str> {
    escape(text, |_| false)
}

/// [`visible`] for a whole text mlb made of lines: its line breaks and tabs
/// kept, every other control character escaped. The last guard before a
/// terminal: whatever a value slipped into the text, no escape sequence
/// reaches the screen.
pub fn printable(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n' || c == '\t')
}

/// A character a terminal acts on, or one that reverses what follows.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character but those `keep` accepts escaped.
fn escape(text: &str, keep: fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| unsafe_char(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if keep(c) || !unsafe_char(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
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
        assert_eq!(visible("\u{9b}2J \u{202e}txt"), "\\u{9b}2J \\u{202e}txt");
    }

    #[test]
    fn printable_keeps_lines_and_tabs_only() {
        assert!(matches!(printable("a\tb\nc\n"), Cow::Borrowed(_)));
        assert_eq!(printable("t\u{1b}]0;pwned\u{7}\n\u{1b}[2J\r\n"), "t\\u{1b}]0;pwned\\u{7}\n\\u{1b}[2J\\r\n");
    }
}
