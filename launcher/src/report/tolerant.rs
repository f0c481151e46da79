//! Tolerant report text: the original suite wrote `NaN`, `Infinity` and
//! `-Infinity` tokens (not JSON), and its oldest format appended reports to
//! one per-GPU file as `[` followed by `{...},` items, never closed.
//!
//! The tokens must stay apart (the original's NaN check fails a NaN loss but
//! not an infinite one), so each becomes a marker string that the number
//! fields of [`entry`](super::entry) read back as the float it stood for.

use std::borrow::Cow;

/// The marker strings of `NaN`, `Infinity` and `-Infinity` (a NUL first: no
/// report writes one).
pub const MARKERS: [(&str, f64); 3] =
    [("\u{0}NaN", f64::NAN), ("\u{0}Infinity", f64::INFINITY), ("\u{0}-Infinity", f64::NEG_INFINITY)];

/// The tokens Python's `json` writes for non-finite floats, longest first so
/// that `-Infinity` wins over `Infinity`, and the JSON text of their markers.
const NON_FINITE: [(&[u8], &[u8]); 3] =
    [(b"-Infinity", b"\"\\u0000-Infinity\""), (b"Infinity", b"\"\\u0000Infinity\""), (b"NaN", b"\"\\u0000NaN\"")];

/// The float a marker string stands for.
pub fn marker_value(text: &str) -> Option<f64> {
    MARKERS.iter().find(|(m, _)| *m == text).map(|(_, v)| *v)
}

/// Replaces every `NaN`, `Infinity` and `-Infinity` token outside a string
/// with its marker string ([`MARKERS`]). Text inside strings is left alone.
/// Borrows when there is nothing to replace.
pub fn non_finite_to_markers(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let (mut i, mut copied) = (0, 0);
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        // Only a token's first letter starts the comparison.
        let first = matches!(b, b'N' | b'I' | b'-');
        if let Some((token, marker)) = NON_FINITE.iter().find(|(t, _)| first && bytes[i..].starts_with(t)) {
            let buf = out.get_or_insert_with(|| Vec::with_capacity(bytes.len() + 64));
            buf.extend_from_slice(&bytes[copied..i]);
            buf.extend_from_slice(marker);
            i += token.len();
            copied = i;
            continue;
        }
        i += 1;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut buf) => {
            buf.extend_from_slice(&bytes[copied..]);
            // Only ASCII was replaced by ASCII at ASCII boundaries.
            Cow::Owned(String::from_utf8(buf).expect("replacing ASCII tokens keeps UTF-8 valid"))
        }
    }
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
        let replaced = non_finite_to_markers(text);
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
    fn strict_text_is_borrowed() {
        assert!(matches!(non_finite_to_markers(r#"{"x": "NaN", "é": 1}"#), Cow::Borrowed(_)));
    }

    #[test]
    fn appended_arrays_are_closed() {
        assert_eq!(close_appended_array("[\n{\"a\": 1},\n{\"a\": 2},\n"), "[\n{\"a\": 1},\n{\"a\": 2}]");
        assert_eq!(close_appended_array("["), "[]");
        assert_eq!(close_appended_array("[1, 2]"), "[1, 2]");
        assert_eq!(close_appended_array("{\"a\": 1}"), "{\"a\": 1}");
    }
}
