//! The keys `--verify` trusts: an allowed signers file, as
//! `ssh-keygen -Y verify -f` reads it (`PRINCIPALS [OPTIONS] KEYTYPE BASE64
//! [COMMENT]` a line; `#` comments), or a public key file (`KEY.pub`) whose
//! lines are keys alone.
//!
//! Of the options, `namespaces="..."` is honoured (its patterns with `*`,
//! `?` and `!` as ssh-keygen matches them); a line with `cert-authority`,
//! `valid-after` or `valid-before` is not used: mlb checks plain keys
//! without dates, and says to check such a signature with ssh-keygen.

use ssh_key::public::KeyData;
use ssh_key::PublicKey;
use std::path::{Path, PathBuf};

/// The keys of an allowed signers file (or a public key file).
#[derive(Debug)]
pub struct AllowedSigners {
    path: PathBuf,
    lines: Vec<Signer>,
}

/// One line: who, for which namespaces, which key.
#[derive(Debug)]
struct Signer {
    /// The principals (comma-separated), or the key's comment in a public
    /// key file.
    principals: String,
    /// The `namespaces="..."` patterns; `None` allows every namespace.
    namespaces: Option<String>,
    /// Whether the line has options mlb does not check (certificates, dates).
    unchecked: bool,
    key: KeyData,
}

/// An allowed signers file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SignersError {
    /// The file cannot be read.
    #[error("cannot read the allowed signers {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line is neither an allowed signer nor a public key.
    #[error("{}:{line}: not an allowed signer (`PRINCIPALS [OPTIONS] KEYTYPE BASE64`) nor a public key", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
    },
}

impl mlb_record::fix::Fix for SignersError {
    fn fix(&self) -> Option<String> {
        Some(
            "pass an allowed signers file (`alice@example.org ssh-ed25519 AAAA...` a line) or the signer's KEY.pub \
             with --allowed-signers FILE"
                .into(),
        )
    }
}

impl AllowedSigners {
    /// Reads `path`: a regular file of at most 16 MiB
    /// ([`read_input`](mlb_record::reading::read_input)).
    pub fn read(path: &Path) -> Result<AllowedSigners, SignersError> {
        let text = mlb_record::reading::read_input(path)
            .map_err(|source| SignersError::Read { path: path.to_path_buf(), source })?;
        Self::parse(path, &text)
    }

    /// Parses `text`, the content of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<AllowedSigners, SignersError> {
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let signer = Signer::parse(line).ok_or(SignersError::Line { path: path.to_path_buf(), line: n + 1 })?;
            lines.push(signer);
        }
        Ok(AllowedSigners { path: path.to_path_buf(), lines })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The principals of the first line that allows `key` to sign in
    /// `namespace`.
    pub fn principals_of(&self, key: &KeyData, namespace: &str) -> Option<&str> {
        self.lines
            .iter()
            .find(|s| {
                !s.unchecked && &s.key == key && s.namespaces.as_deref().is_none_or(|p| pattern_list(p, namespace))
            })
            .map(|s| s.principals.as_str())
    }
}

impl Signer {
    /// One non-empty line; `None` when it holds no key.
    fn parse(line: &str) -> Option<Signer> {
        if let Ok(key) = PublicKey::from_openssh(line) {
            let principals = if key.comment().is_empty() { "the key's owner".into() } else { key.comment().into() };
            return Some(Signer { principals, namespaces: None, unchecked: false, key: key.key_data().clone() });
        }
        let (principals, rest) = token(line);
        if let Ok(key) = PublicKey::from_openssh(rest) {
            return Some(Signer { principals, namespaces: None, unchecked: false, key: key.key_data().clone() });
        }
        let (options, rest) = token(rest);
        let key = PublicKey::from_openssh(rest).ok()?;
        let mut namespaces = None;
        let mut unchecked = false;
        for option in split_outside_quotes(&options) {
            let (name, value) = option.split_once('=').unwrap_or((option, ""));
            match name.to_ascii_lowercase().as_str() {
                "namespaces" => namespaces = Some(value.trim_matches('"').to_string()),
                _ => unchecked = true,
            }
        }
        Some(Signer { principals, namespaces, unchecked, key: key.key_data().clone() })
    }
}

/// The first whitespace-delimited token of `text` (double quotes keep
/// blanks inside it and are removed when they enclose it whole) and the
/// rest, trimmed.
fn token(text: &str) -> (String, &str) {
    let mut quoted = false;
    let end = text
        .char_indices()
        .find(|&(_, c)| {
            quoted ^= c == '"';
            c.is_whitespace() && !quoted
        })
        .map_or(text.len(), |(i, _)| i);
    let word = &text[..end];
    let word = word.strip_prefix('"').and_then(|w| w.strip_suffix('"')).unwrap_or(word);
    (word.to_string(), text[end..].trim_start())
}

/// `text` split at the commas outside double quotes.
fn split_outside_quotes(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Whether `name` matches the comma-separated pattern list `patterns` as
/// ssh matches one: some pattern matches, and no negated one (`!PATTERN`).
fn pattern_list(patterns: &str, name: &str) -> bool {
    let mut matched = false;
    for pattern in patterns.split(',').map(str::trim) {
        match pattern.strip_prefix('!') {
            Some(negated) if wildcard(negated.as_bytes(), name.as_bytes()) => return false,
            Some(_) => {}
            None => matched |= wildcard(pattern.as_bytes(), name.as_bytes()),
        }
    }
    matched
}

/// Whether `name` matches `pattern`, where `*` stands for any run of
/// characters and `?` for one.
fn wildcard(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, _) => name.is_empty(),
        (Some(b'*'), _) => wildcard(&pattern[1..], name) || (!name.is_empty() && wildcard(pattern, &name[1..])),
        (Some(b'?'), Some(_)) => wildcard(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => wildcard(&pattern[1..], &name[1..]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILM+rvN+ot98qgEN796jTiQfZfG1KaT0PtFDJ/XFSqti";
    const OTHER: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINzAiBOtv+L1wMHhFB1arP5opP2L7N5+N+kbeO6R1GeJ";

    fn key(text: &str) -> KeyData {
        PublicKey::from_openssh(text).unwrap().key_data().clone()
    }

    fn signers(text: &str) -> AllowedSigners {
        AllowedSigners::parse(Path::new("allowed_signers"), text).unwrap()
    }

    #[test]
    fn the_line_of_the_key_names_its_principals() {
        let file = signers(&format!("# site keys\n\nbob@site {OTHER}\nalice@site,qa@site {KEY} laptop\n"));
        assert_eq!(file.principals_of(&key(KEY), "mlb-acceptance"), Some("alice@site,qa@site"));
        assert_eq!(signers(&format!("bob@site {OTHER}\n")).principals_of(&key(KEY), "mlb-acceptance"), None);
    }

    #[test]
    fn namespaces_limit_a_key_and_other_options_leave_it_unused() {
        let only_git = signers(&format!("alice@site namespaces=\"git,file\" {KEY}\n"));
        assert_eq!(only_git.principals_of(&key(KEY), "mlb-acceptance"), None);
        let mlb = signers(&format!("\"alice smith\" namespaces=\"git,mlb-*\" {KEY}\n"));
        assert_eq!(mlb.principals_of(&key(KEY), "mlb-acceptance"), Some("alice smith"));
        let negated = signers(&format!("alice@site namespaces=\"*,!mlb-acceptance\" {KEY}\n"));
        assert_eq!(negated.principals_of(&key(KEY), "mlb-acceptance"), None);
        let dated = signers(&format!("alice@site valid-before=\"20300101\" {KEY}\n"));
        assert_eq!(dated.principals_of(&key(KEY), "mlb-acceptance"), None);
    }

    #[test]
    fn a_public_key_file_allows_its_key() {
        let file = signers(&format!("{KEY} alice@laptop\n"));
        assert_eq!(file.principals_of(&key(KEY), "mlb-acceptance"), Some("alice@laptop"));
    }

    #[test]
    fn a_line_without_a_key_is_refused_with_its_number() {
        let err = AllowedSigners::parse(Path::new("signers"), &format!("a@b {KEY}\nalice@site ssh-ed25519 AAAA\n"))
            .unwrap_err();
        assert_eq!(err.to_string().split(':').take(2).collect::<Vec<_>>(), ["signers", "2"]);
    }
}
