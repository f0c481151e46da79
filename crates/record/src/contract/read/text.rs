//! Tolerant report text: the original suite wrote `NaN`, `Infinity` and
//! `-Infinity` tokens (not JSON), and its oldest format appended reports to
//! one per-GPU file as `[` followed by `{...},` items, never closed.
//!
//! For `mlb report`'s view the tokens must stay apart (the original's NaN
//! check fails a NaN loss but not an infinite one), so each becomes a marker
//! string that the number fields of [`entry`](super::entry) read back as the
//! float it stood for. For the full [`Report`](crate::contract::Report) each
//! becomes `null`, as mlb writes a non-finite number, read back as NaN.

use serde::de::DeserializeOwned;
use std::borrow::Cow;

/// What the original's non-finite tokens become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokens {
    /// Marker strings ([`MARKERS`]): NaN and the infinities kept apart.
    Markers,
    /// `null`, as mlb writes a non-finite number.
    Null,
}

/// The marker strings of `NaN`, `Infinity` and `-Infinity` (a NUL first: no
/// report writes one).
pub const MARKERS: [(&str, f64); 3] =
    [("\u{0}NaN", f64::NAN), ("\u{0}Infinity", f64::INFINITY), ("\u{0}-Infinity", f64::NEG_INFINITY)];

/// The tokens Python's `json` writes for non-finite floats, longest first so
/// that `-Infinity` wins over `Infinity`, and the JSON text of their markers.
const NON_FINITE: [Token; 3] =
    [(b"-Infinity", b"\"\\u0000-Infinity\""), (b"Infinity", b"\"\\u0000Infinity\""), (b"NaN", b"\"\\u0000NaN\"")];

/// A token and the text it becomes as a marker.
type Token = (&'static [u8], &'static [u8]);

/// The float a marker string stands for.
pub fn marker_value(text: &str) -> Option<f64> {
    MARKERS.iter().find(|(m, _)| *m == text).map(|(_, v)| *v)
}

/// Replaces every `NaN`, `Infinity` and `-Infinity` token outside a string
/// with its marker string ([`MARKERS`]) or `null` (`tokens`). Text inside
/// strings is left alone. Borrows when there is nothing to replace.
pub fn replace_non_finite(text: &str, tokens: Tokens) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = Replacing { bytes, tokens, buf: None, copied: 0 };
    if memchr::memchr(b'\\', bytes).is_none() {
        // Without an escape every quote opens or closes a string, so the
        // quotes before a token tell whether it is inside one. A report
        // has far fewer `N` and `I` than quotes: jump from one to the next.
        let (mut quotes, mut counted) = (0, 0);
        for at in memchr::memchr2_iter(b'N', b'I', bytes) {
            if at < out.copied {
                continue;
            }
            let Some((start, token)) = out.token_at(at) else { continue };
            quotes += count_quotes(&bytes[counted..start]);
            counted = start;
            if quotes % 2 == 0 {
                out.replace(start, token);
            }
        }
    } else {
        // Jumps from one quote, `N` or `I` to the next: a string is skipped
        // whole (escapes and all), a letter may start a token.
        let mut i = 0;
        while let Some(found) = memchr::memchr3(b'"', b'N', b'I', &bytes[i..]) {
            let at = i + found;
            i = if bytes[at] == b'"' {
                string_end(bytes, at + 1)
            } else if let Some((start, token)) = out.token_at(at) {
                out.replace(start, token)
            } else {
                at + 1
            };
        }
    }
    out.finish(text)
}

/// A text being copied with its non-finite tokens replaced: nothing is
/// copied until the first token.
struct Replacing<'a> {
    bytes: &'a [u8],
    tokens: Tokens,
    buf: Option<Vec<u8>>,
    /// Where the text not yet copied starts.
    copied: usize,
}

impl Replacing<'_> {
    /// The token (with its start: `-Infinity` at its `I`) at the letter at
    /// `at`, if one starts there.
    fn token_at(&self, at: usize) -> Option<(usize, &'static Token)> {
        let bytes = self.bytes;
        let start = if bytes[at] == b'I' && at > self.copied && bytes[at - 1] == b'-' { at - 1 } else { at };
        NON_FINITE.iter().find(|(t, _)| bytes[start..].starts_with(t)).map(|token| (start, token))
    }

    /// Replaces `token` at `start`; returns where the text goes on.
    fn replace(&mut self, start: usize, (token, marker): &Token) -> usize {
        let buf = self.buf.get_or_insert_with(|| Vec::with_capacity(self.bytes.len() + 64));
        buf.extend_from_slice(&self.bytes[self.copied..start]);
        buf.extend_from_slice(match self.tokens {
            Tokens::Markers => marker,
            Tokens::Null => b"null",
        });
        self.copied = start + token.len();
        self.copied
    }

    fn finish(self, text: &str) -> Cow<'_, str> {
        match self.buf {
            None => Cow::Borrowed(text),
            Some(mut buf) => {
                buf.extend_from_slice(&self.bytes[self.copied..]);
                // Only ASCII was replaced by ASCII at ASCII boundaries.
                Cow::Owned(String::from_utf8(buf).expect("replacing ASCII tokens keeps UTF-8 valid"))
            }
        }
    }
}

/// The quotes in `bytes`, counted in byte-wide lanes (a chunk of at most
/// 255 cannot overflow one), which the compiler turns into vector code.
fn count_quotes(bytes: &[u8]) -> usize {
    bytes.chunks(255).map(|chunk| usize::from(chunk.iter().fold(0u8, |n, &b| n + u8::from(b == b'"')))).sum()
}

/// Where the string whose text starts at `from` ends: past its closing
/// quote (escapes skipped), or the end of the text.
fn string_end(bytes: &[u8], mut from: usize) -> usize {
    while let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[from.min(bytes.len())..]) {
        let at = from + found;
        if bytes[at] == b'"' {
            return at + 1;
        }
        from = at + 2;
    }
    bytes.len()
}

/// `text` as a `T`: strictly, else (the original's files) with its
/// non-finite tokens read as `null`; an appended array is closed first.
pub fn from_text<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_str(text).or_else(|strict| {
        let nulls = replace_non_finite(text, Tokens::Null);
        let closed = close_appended_array(&nulls);
        if matches!((&nulls, &closed), (Cow::Borrowed(_), Cow::Borrowed(_))) {
            return Err(strict);
        }
        serde_json::from_str(&closed)
    })
}

/// Closes an appended array (`[` then items each followed by `,`, no `]`):
/// drops the trailing comma and adds the `]`. Any other text is returned
/// as it is.
pub fn close_appended_array(text: &str) -> Cow<'_, str> {
    let trimmed = text.trim();
    if !trimmed.starts_with('[') || trimmed.ends_with(']') {
        return Cow::Borrowed(text);
    }
    let body = trimmed.strip_suffix(',').unwrap_or(trimmed).trim_end();
    Cow::Owned(format!("{body}]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_outside_strings_become_markers() {
        let text = r#"{"a": NaN, "b": [Infinity, -Infinity, 1.5], "c": "NaN Infinity", "d": "say \"NaN\""}"#;
        let replaced = replace_non_finite(text, Tokens::Markers);
        assert_eq!(
            replaced,
            r#"{"a": "\u0000NaN", "b": ["\u0000Infinity", "\u0000-Infinity", 1.5], "c": "NaN Infinity", "d": "say \"NaN\""}"#
        );
        let v: serde_json::Value = serde_json::from_str(&replaced).unwrap();
        assert_eq!(v["c"], "NaN Infinity");
        assert!(marker_value(v["a"].as_str().unwrap()).unwrap().is_nan());
        assert_eq!(marker_value(v["b"][0].as_str().unwrap()), Some(f64::INFINITY));
        assert_eq!(marker_value(v["b"][1].as_str().unwrap()), Some(f64::NEG_INFINITY));
        assert_eq!(marker_value("NaN"), None);
    }

    #[test]
    fn adjacent_tokens_escapes_and_cut_strings() {
        let null = |t| replace_non_finite(t, Tokens::Null).into_owned();
        assert_eq!(null("[NaN,-Infinity,Infinity,-1,Nope,In]"), "[null,null,null,-1,Nope,In]");
        assert_eq!(null(r#"["a\\", NaN, "b\"NaN", -Infinity]"#), r#"["a\\", null, "b\"NaN", null]"#);
        assert_eq!(null(r#"[NaN, "cut NaN"#), r#"[null, "cut NaN"#, "an unclosed string to the end");
        assert_eq!(null(r#"[NaN, "cut\"#), r#"[null, "cut\"#, "an escape at the very end");
    }

    #[test]
    fn with_and_without_escapes_alike() {
        // The same tokens and strings, once with an escape somewhere (the
        // scan that skips strings) and once without (the quote count).
        for tail in ["", r#", "z": "\\""#] {
            let text = format!(r#"{{"Name": "NaN", "a": [NaN, -Infinity], "I": "-Infinity", "b": Infinity{tail}}}"#);
            assert_eq!(
                replace_non_finite(&text, Tokens::Null),
                format!(r#"{{"Name": "NaN", "a": [null, null], "I": "-Infinity", "b": null{tail}}}"#)
            );
        }
    }

    #[test]
    fn strict_text_is_borrowed() {
        assert!(matches!(replace_non_finite(r#"{"x": "NaN", "é": 1}"#, Tokens::Markers), Cow::Borrowed(_)));
    }

    #[test]
    fn tokens_as_null_for_the_full_model() {
        assert_eq!(replace_non_finite(r#"[NaN, "NaN", -Infinity]"#, Tokens::Null), r#"[null, "NaN", null]"#);
        let v: Vec<Option<f64>> = from_text("[\n1.5,\nNaN,\n").unwrap();
        assert_eq!(v, [Some(1.5), None], "tokens and an appended array together");
        let err = from_text::<Vec<f64>>("[1, x]").unwrap_err().to_string();
        assert!(err.contains("expected value"), "the strict error when nothing was replaced: {err}");
    }

    #[test]
    fn appended_arrays_are_closed() {
        assert_eq!(close_appended_array("[\n{\"a\": 1},\n{\"a\": 2},\n"), "[\n{\"a\": 1},\n{\"a\": 2}]");
        assert_eq!(close_appended_array("["), "[]");
        assert_eq!(close_appended_array("[1, 2]"), "[1, 2]");
        assert_eq!(close_appended_array("{\"a\": 1}"), "{\"a\": 1}");
    }
}
