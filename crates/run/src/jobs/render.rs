//! Argument values and command lines rendered as the original suite rendered
//! them: integers as `256`, floats as `0.1`, `21.80` as `21.8`, `""` as a bare
//! flag, and the words a POSIX shell made of them (the original ran each
//! command line through `sh`: unquoted text split at blanks, quotes removed).

use super::model::Args;
use serde_json::Value;

/// A scalar value as text: numbers in their shortest form, strings as they
/// are (one pair of surrounding double quotes removed: the original passed
/// values through a shell), booleans `True`/`False` as Python printed them.
pub fn value(v: &Value) -> String {
    match v {
        Value::String(s) => unquote(s).to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `text` with its control characters escaped (`\n`, `\0`, `\u{7f}`), so
/// that it stays one line of a message or a result line.
pub fn one_line(text: &str) -> String {
    text.chars().fold(String::with_capacity(text.len()), |mut out, c| {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
        out
    })
}

/// The first control character of `text`, if any.
pub fn control_char(text: &str) -> Option<char> {
    text.chars().find(|c| c.is_control())
}

fn unquote(s: &str) -> &str {
    match s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) if s.len() >= 2 => inner,
        _ => s,
    }
}

/// True when a key is an option (`-l`, `--batch-size`) rather than a
/// positional argument.
pub fn is_option(key: &str) -> bool {
    key.starts_with('-')
}

/// The words a POSIX shell makes of `text`: split at unquoted blanks, quotes
/// and backslashes removed (no expansion: mlb expands variables itself).
/// `None` when the shell would refuse it (an unclosed quote).
pub fn shell_words(text: &str) -> Option<Vec<String>> {
    shlex::split(text)
}

/// The command-line words of a `cmd` job's `args`, in file order, as the
/// original's shell passed them: `--key value`, a bare `--key` for an empty
/// value, a bare positional for a key that is not an option (its value must
/// then be empty). Keys and string values are split into shell words
/// (`"256 256 128 64"` gives four words, `"\"a b\""` one). A text the shell
/// would have refused, which validation keeps out of jobs files but an
/// expanded variable may bring in, is passed as one word.
pub fn argv(args: &Args) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in &args.0 {
        for text in [k.clone(), raw(v)] {
            match shell_words(&text) {
                Some(words) => out.extend(words),
                None => out.push(text),
            }
        }
    }
    out
}

/// A value as the text put on the shell's command line: strings as written,
/// other scalars as [`value`] renders them.
fn raw(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => value(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_render_like_the_original() {
        let parsed: Value = serde_json::from_str(r#"[256, 0.1, 21.80, 0.0005, 1.0, -3]"#).unwrap();
        let texts: Vec<String> = parsed.as_array().unwrap().iter().map(value).collect();
        assert_eq!(texts, ["256", "0.1", "21.8", "0.0005", "1.0", "-3"]);
        assert_eq!(value(&json!("\"PongNoFrameskip-v4\"")), "PongNoFrameskip-v4");
        assert_eq!(value(&json!("\"")), "\"");
        assert_eq!(value(&json!(true)), "True");
    }

    #[test]
    fn control_characters_are_escaped_on_one_line() {
        assert_eq!(one_line("a\nb\0c\td\u{7f}é \"q\""), "a\\nb\\0c\\td\\u{7f}é \"q\"");
        assert_eq!(control_char("tab\there"), Some('\t'));
        assert_eq!(control_char("plain ü"), None);
    }

    #[test]
    fn flags_options_and_positionals() {
        let args = Args(vec![
            ("/data/train".into(), json!("")),
            ("--repeat".into(), json!(15)),
            ("--cuda".into(), json!("")),
            ("-l".into(), json!(0.0005)),
            ("--env-name".into(), json!("\"PongNoFrameskip-v4\"")),
        ]);
        assert_eq!(
            argv(&args),
            ["/data/train", "--repeat", "15", "--cuda", "-l", "0.0005", "--env-name", "PongNoFrameskip-v4"]
        );
        assert!(is_option("-l") && !is_option("/data"));
    }

    #[test]
    fn values_split_into_words_as_the_shell_did() {
        // The recom job of both original baselines files.
        let recom = Args(vec![("--layers".into(), json!("256 256 128 64")), ("-f".into(), json!(64))]);
        assert_eq!(argv(&recom), ["--layers", "256", "256", "128", "64", "-f", "64"]);
        let quoted = Args(vec![
            ("--title".into(), json!("\"a  b\"")),
            ("--name".into(), json!("'it''s'  x\\ y")),
            ("--empty-word".into(), json!("''")),
            ("--blank".into(), json!("   ")),
        ]);
        assert_eq!(argv(&quoted), ["--title", "a  b", "--name", "its", "x y", "--empty-word", "", "--blank"]);
        // A text the shell would refuse stays one word.
        let open = Args(vec![("--path".into(), json!("/data/O'Brien"))]);
        assert_eq!(argv(&open), ["--path", "/data/O'Brien"]);
        assert_eq!(shell_words("a 'b"), None);
    }
}
