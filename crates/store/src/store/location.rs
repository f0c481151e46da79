//! Where a store is: `sqlite:PATH` or `postgres://...`, from `--db URL`,
//! else `MLB_DB`, else the default file `$XDG_DATA_HOME/mlb/results.db`
//! (`~/.local/share/mlb/results.db` without `XDG_DATA_HOME`).
//!
//! A PostgreSQL URL may carry a password: [`Location`]'s `Display` (every
//! message that names a store) writes it as `***`, so that it never reaches
//! output, logs or errors.

use super::error::StoreError;
use std::fmt;
use std::path::{Path, PathBuf};

/// The variable that names the store when `--db` does not.
pub const ENV: &str = "MLB_DB";

/// A store's backend and address.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL server: the URL as given (`postgres://` or `postgresql://`).
    Postgres(String),
}

impl Location {
    /// Reads a store URL: `sqlite:PATH` (`sqlite://PATH` too), `postgres://...`
    /// or `postgresql://...`; a plain path is an SQLite file.
    pub fn parse(url: &str) -> Result<Location, StoreError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Location::Postgres(url.to_string()));
        }
        let path = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
        let path = path.split_once('?').map_or(path, |(p, _)| p);
        if path.is_empty() || url.contains("://") && !url.starts_with("sqlite://") {
            return Err(StoreError::BadUrl { url: redact(url) });
        }
        Ok(Location::Sqlite(PathBuf::from(path)))
    }

    /// The store `--db` names (`Some("")`: the flag without a value), else
    /// `MLB_DB` (the value of `env`), else the default file under
    /// `XDG_DATA_HOME` or `HOME` (the values of `data_home` and `home`).
    pub fn choose(
        flag: Option<&str>,
        env: Option<&str>,
        data_home: Option<&Path>,
        home: Option<&Path>,
    ) -> Result<Location, StoreError> {
        match flag.filter(|f| !f.is_empty()).or(env.filter(|e| !e.is_empty())) {
            Some(url) => Location::parse(url),
            None => Ok(Location::Sqlite(default_file(data_home, home).ok_or(StoreError::NoHome)?)),
        }
    }

    /// [`Location::choose`] in this process's environment.
    pub fn from_env(flag: Option<&str>) -> Result<Location, StoreError> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let env = std::env::var(ENV).ok();
        let data_home = var("XDG_DATA_HOME").map(PathBuf::from);
        let home = var("HOME").map(PathBuf::from);
        Location::choose(flag, env.as_deref(), data_home.as_deref(), home.as_deref())
    }

    /// The SQLite file, for a file store.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::Sqlite(path) => Some(path),
            Location::Postgres(_) => None,
        }
    }

    /// The URL sqlx connects to with `access`.
    pub(super) fn connect_url(&self, access: super::Access) -> String {
        match self {
            Location::Sqlite(path) => {
                let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
                let mode = match access {
                    super::Access::ReadWrite => "rwc",
                    super::Access::ReadOnly => "ro",
                };
                format!("sqlite://{}?mode={mode}", percent_encode(&path))
            }
            Location::Postgres(url) => url.clone(),
        }
    }
}

/// `$XDG_DATA_HOME/mlb/results.db`, else `$HOME/.local/share/mlb/results.db`.
fn default_file(data_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let base = data_home.filter(|d| d.is_absolute()).map(Path::to_path_buf).or(home.map(|h| h.join(".local/share")))?;
    Some(base.join("mlb").join("results.db"))
}

/// `url` with the password of its user part (`user:PASSWORD@`) and of a
/// `password=` parameter written as `***`.
pub fn redact(url: &str) -> String {
    let mut out = url.to_string();
    if let Some(range) = user_password(url) {
        out.replace_range(range, "***");
    }
    if let Some(query) = out.find('?') {
        let (head, params) = out.split_at(query + 1);
        let params: Vec<String> = params
            .split('&')
            .map(|p| match p.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => p.to_string(),
            })
            .collect();
        out = format!("{head}{}", params.join("&"));
    }
    out
}

/// The passwords `url` holds, as written and percent-decoded, for
/// scrubbing them from the text of an error.
pub(super) fn passwords(url: &str) -> Vec<String> {
    let mut found: Vec<String> = user_password(url).map(|r| url[r].to_string()).into_iter().collect();
    if let Some((_, params)) = url.split_once('?') {
        found.extend(
            params
                .split('&')
                .filter_map(|p| p.split_once('='))
                .filter(|(key, _)| key.eq_ignore_ascii_case("password"))
                .map(|(_, value)| value.to_string()),
        );
    }
    let decoded: Vec<String> = found.iter().map(|p| percent_decode(p)).collect();
    found.extend(decoded);
    found
}

/// Where the password of `url`'s user part (`scheme://user:PASSWORD@host`) lies.
fn user_password(url: &str) -> Option<std::ops::Range<usize>> {
    let rest = url.find("://")? + 3;
    let authority_end = url[rest..].find(['/', '?']).map_or(url.len(), |i| rest + i);
    let at = rest + url[rest..authority_end].rfind('@')?;
    let colon = rest + url[rest..at].find(':')?;
    Some(colon + 1..at)
}

/// `text` with its `%XX` escapes decoded (lossily, as UTF-8).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `path` for a URL: every byte but letters, digits, `/`, `-`, `_`, `.` and
/// `~` escaped as `%XX` (SQLite's driver decodes them).
fn percent_encode(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            Location::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

/// As `Display`: a password never reaches a debug print either.
impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Location({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_plain_paths() {
        let file = |p: &str| Location::Sqlite(PathBuf::from(p));
        assert_eq!(Location::parse("sqlite:/a/b.db").unwrap(), file("/a/b.db"));
        assert_eq!(Location::parse("sqlite:///a/b.db").unwrap(), file("/a/b.db"));
        assert_eq!(Location::parse("sqlite:rel.db").unwrap(), file("rel.db"));
        assert_eq!(Location::parse("plain.db").unwrap(), file("plain.db"));
        assert!(matches!(Location::parse("postgresql://u@h/db").unwrap(), Location::Postgres(_)));
        assert!(Location::parse("mysql://h/db").is_err());
        assert!(Location::parse("sqlite:").is_err());
    }

    #[test]
    fn the_flag_then_the_variable_then_the_default_file() {
        let (data, home) = (Path::new("/d"), Path::new("/h"));
        let chosen = |flag, env, data: Option<&Path>| Location::choose(flag, env, data, Some(home)).unwrap();
        assert_eq!(chosen(Some("sqlite:/f.db"), Some("sqlite:/e.db"), None).to_string(), "sqlite:/f.db");
        assert_eq!(chosen(Some(""), Some("sqlite:/e.db"), None).to_string(), "sqlite:/e.db");
        assert_eq!(chosen(None, None, Some(data)).file(), Some(Path::new("/d/mlb/results.db")));
        assert_eq!(chosen(None, None, None).file(), Some(Path::new("/h/.local/share/mlb/results.db")));
        // A relative XDG_DATA_HOME is invalid by the specification: ignored.
        assert_eq!(
            chosen(None, None, Some(Path::new("rel"))).file(),
            Some(Path::new("/h/.local/share/mlb/results.db"))
        );
        assert!(matches!(Location::choose(None, None, None, None), Err(StoreError::NoHome)));
    }

    #[test]
    fn passwords_are_written_as_stars() {
        let url = "postgres://mlb:s3cr%40t;--@db.example:5432/results?sslmode=disable&password=other";
        let shown = Location::parse(url).unwrap().to_string();
        assert_eq!(shown, "postgres://mlb:***@db.example:5432/results?sslmode=disable&password=***");
        assert!(!format!("{:?}", Location::parse(url).unwrap()).contains("s3cr"));
        assert_eq!(redact("postgres://mlb@h/db"), "postgres://mlb@h/db");
        assert_eq!(redact("postgres://h/db?user=a&password=x"), "postgres://h/db?user=a&password=***");
        assert_eq!(passwords(url), ["s3cr%40t;--", "other", "s3cr@t;--", "other"]);
    }

    #[test]
    fn odd_file_names_reach_the_driver_escaped() {
        let url = Location::Sqlite(PathBuf::from("/a b/x?y#z%.db")).connect_url(crate::store::Access::ReadWrite);
        assert_eq!(url, "sqlite:///a%20b/x%3Fy%23z%25.db?mode=rwc");
        let url = Location::Sqlite(PathBuf::from("/r.db")).connect_url(crate::store::Access::ReadOnly);
        assert_eq!(url, "sqlite:///r.db?mode=ro");
    }
}
