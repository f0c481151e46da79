//! Tolerant report text: the original suite wrote `NaN`, `Infinity` and
//! `-Infinity` tokens (not JSON), and its oldest format appended reports to
//! one per-GPU file as `[` followed by `{...},` items, never closed.

use std::borrow::Cow;

/// The tokens Python's `json` writes for non-finite floats, longest first so
/// that `-Infinity` wins over `Infinity`.
const NON_FINITE: [&[u8]; 3] = [b"-Infinity", b"Infinity", b"NaN"];

/// Replaces every `NaN`, `Infinity` and `-Infinity` token outside a string
/// with `null`. Text inside strings is left alone. Borrows when there is
/// nothing to replace.
pub fn non_finite_to_null(text: &str) -> Cow<'_, str> {
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
        if let Some(token) = NON_FINITE.iter().find(|t| bytes[i..].starts_with(t)) {
            let buf = out.get_or_insert_with(|| Vec::with_capacity(bytes.len() + 16));
            buf.extend_from_slice(&bytes[copied..i]);
            buf.extend_from_slice(b"null");
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
    fn tokens_outside_strings_become_null() {
        let text = r#"{"a": NaN, "b": [Infinity, -Infinity, 1.5], "c": "NaN Infinity", "d": "say \"NaN\""}"#;
        assert_eq!(
            non_finite_to_null(text),
            r#"{"a": null, "b": [null, null, 1.5], "c": "NaN Infinity", "d": "say \"NaN\""}"#
        );
        let v: serde_json::Value = serde_json::from_str(&non_finite_to_null(text)).unwrap();
        assert_eq!(v["c"], "NaN Infinity");
    }

    #[test]
    fn strict_text_is_borrowed() {
        assert!(matches!(non_finite_to_null(r#"{"x": "NaN", "é": 1}"#), Cow::Borrowed(_)));
    }

    #[test]
    fn appended_arrays_are_closed() {
        assert_eq!(close_appended_array("[\n{\"a\": 1},\n{\"a\": 2},\n"), "[\n{\"a\": 1},\n{\"a\": 2}]");
        assert_eq!(close_appended_array("["), "[]");
        assert_eq!(close_appended_array("[1, 2]"), "[1, 2]");
        assert_eq!(close_appended_array("{\"a\": 1}"), "{\"a\": 1}");
    }
}
