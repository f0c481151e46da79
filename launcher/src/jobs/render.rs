//! Argument values and command lines rendered as the original suite rendered
//! them: integers as `256`, floats as `0.1`, `21.80` as `21.8`, `""` as a bare
//! flag.

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

/// The command-line words of `args` in file order: `--key value`, a bare
/// `--key` for an empty value, a bare positional for a key that is not an
/// option (its value must then be empty).
pub fn argv(args: &Args) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in &args.0 {
        out.push(k.clone());
        let text = value(v);
        if !text.is_empty() {
            out.push(text);
        }
    }
    out
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
    fn flags_options_and_positionals() {
        let args = Args(vec![
            ("/data/train".into(), json!("")),
            ("--repeat".into(), json!(15)),
            ("--cuda".into(), json!("")),
            ("-l".into(), json!(0.0005)),
            ("--layers".into(), json!("256 256 128 64")),
        ]);
        assert_eq!(
            argv(&args),
            ["/data/train", "--repeat", "15", "--cuda", "-l", "0.0005", "--layers", "256 256 128 64"]
        );
        assert!(is_option("-l") && !is_option("/data"));
    }
}
