//! Target tables by GPU model name (`--gpu-model NAME`, any case), looked up
//! in this order, the first found wins:
//!
//! 1. the shipped tables (V100, RTX, MI50): the original suite's score
//!    against them means the same everywhere, so no file can replace them;
//! 2. `NAME.csv` in the user's target folder: a user's own table wins over
//!    the site's, as a user's configuration does;
//! 3. `NAME.csv` in the installation's target folder.
//!
//! File names match in any case (`h100.csv` is found by `H100`).

use super::folders::Folders;
use crate::report::{GpuModel, ReportError, Targets};
use mlb_record::untrusted::visible;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where a table comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Compiled into the binary.
    BuiltIn,
    /// A file of the user's target folder.
    User(PathBuf),
    /// A file of the installation's target folder.
    Installation(PathBuf),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::BuiltIn => f.write_str("built-in"),
            Origin::User(p) => write!(f, "user {}", p.display()),
            Origin::Installation(p) => write!(f, "installation {}", p.display()),
        }
    }
}

/// A table found, not yet read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The model name: the shipped model's, or the file name without `.csv`.
    pub name: String,
    /// Where it is.
    pub origin: Origin,
}

impl Candidate {
    /// Reads the table.
    pub fn read(&self) -> Result<Targets, ReportError> {
        match &self.origin {
            Origin::BuiltIn => {
                let model = GpuModel::named(&self.name).expect("built-in candidates are shipped models");
                Ok(Targets::shipped(model))
            }
            Origin::User(path) | Origin::Installation(path) => Targets::from_file(path),
        }
    }
}

/// Every table, in lookup order: the shipped ones, then the `.csv` files
/// of the user's folder, then the installation's (each folder by file
/// name). A folder that is missing or unreadable adds nothing.
pub fn candidates(folders: &Folders) -> Vec<Candidate> {
    let shipped = GpuModel::ALL.into_iter().map(|m| Candidate { name: m.name().into(), origin: Origin::BuiltIn });
    let user = folders.user.iter().flat_map(|d| tables_in(d, Origin::User));
    let installation = folders.installation.iter().flat_map(|d| tables_in(d, Origin::Installation));
    shipped.chain(user).chain(installation).collect()
}

/// The `.csv` files (any case) of `dir`, by name.
fn tables_in(dir: &Path, origin: fn(PathBuf) -> Origin) -> Vec<Candidate> {
    let Ok(listing) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<(String, PathBuf)> = listing
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("csv")))
        .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p)))
        .collect();
    files.sort();
    files.into_iter().map(|(name, path)| Candidate { name, origin: origin(path) }).collect()
}

/// The table of GPU model `name` (any case), by the lookup order above;
/// an unknown name is refused with every known one.
pub fn find(folders: &Folders, name: &str) -> Result<Targets, ReportError> {
    let all = candidates(folders);
    match all.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
        Some(found) => found.read(),
        None => Err(ReportError::UnknownModel { name: name.to_string(), known: known(&all) }),
    }
}

/// The names of `all`, each once (the first of names equal in any case).
fn known(all: &[Candidate]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in all {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&c.name)) {
            names.push(c.name.clone());
        }
    }
    names
}

/// `mlb targets list`: every table with where it is from and its benches;
/// a table hidden by an earlier one of the same name says so, an
/// unreadable one says why; then the folders searched.
pub fn render(folders: &Folders) -> String {
    let all = candidates(folders);
    let lines: Vec<(String, String, String)> = all
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let hidden = all[..i].iter().any(|e| e.name.eq_ignore_ascii_case(&c.name));
            let benches = match c.read() {
                Ok(t) => {
                    let names: Vec<_> = t.benches.keys().map(|b| visible(b)).collect();
                    format!("{}: {}", t.benches.len(), names.join(", "))
                }
                Err(e) => format!("unreadable: {}", visible(&e.to_string())),
            };
            let name = visible(&c.name);
            let name = if hidden { format!("{name} (hidden by the one above)") } else { name.into_owned() };
            (name, visible(&c.origin.to_string()).into_owned(), benches)
        })
        .collect();
    let width = |f: fn(&(String, String, String)) -> usize| lines.iter().map(f).max().unwrap_or(0);
    let (w0, w1) = (width(|l| l.0.len()).max(5), width(|l| l.1.len()).max(4));
    let mut out = format!("{:w0$}  {:w1$}  BENCHES\n", "MODEL", "FROM");
    for (name, origin, benches) in &lines {
        out.push_str(&format!("{name:w0$}  {origin:w1$}  {benches}\n"));
    }
    let folder = |label: &str, dir: &Option<PathBuf>| match dir {
        Some(d) if d.is_dir() => format!("{label} folder: {}\n", visible(&d.display().to_string())),
        Some(d) => format!("{label} folder: {} (missing)\n", visible(&d.display().to_string())),
        None => format!("{label} folder: none\n"),
    };
    out.push_str(&folder("user", &folders.user));
    out.push_str(&folder("installation", &folders.installation));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "bench,target,perf_target,sd_target\nvae,100,0.9,0.05\n";

    fn folders(user: &Path, installation: &Path) -> Folders {
        Folders { user: Some(user.into()), installation: Some(installation.into()) }
    }

    #[test]
    fn shipped_then_user_then_installation_in_any_case() {
        let (u, i) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::write(u.path().join("H100.csv"), TABLE).unwrap();
        std::fs::write(i.path().join("h100.CSV"), TABLE.replace("100,", "200,")).unwrap();
        std::fs::write(i.path().join("a100.csv"), TABLE.replace("100,", "300,")).unwrap();
        std::fs::write(u.path().join("v100.csv"), TABLE).unwrap();
        std::fs::write(u.path().join("notes.txt"), "x").unwrap();
        let f = folders(u.path(), i.path());
        assert_eq!(find(&f, "h100").unwrap().get("vae").unwrap().target, 100.0, "the user's wins");
        assert_eq!(find(&f, "A100").unwrap().get("vae").unwrap().target, 300.0);
        assert_eq!(find(&f, "v100").unwrap().benches.len(), 20, "the shipped table cannot be replaced");
        let names: Vec<String> = candidates(&f).into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["V100", "RTX", "MI50", "H100", "v100", "a100", "h100"]);
        let err = find(&f, "B200").unwrap_err().to_string();
        assert!(err.contains("`B200` (known: V100, RTX, MI50, H100, a100)"), "{err}");
    }

    #[test]
    fn missing_folders_add_nothing_and_the_listing_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let f = folders(&dir.path().join("none"), dir.path());
        std::fs::write(dir.path().join("bad.csv"), "bench,target\n").unwrap();
        std::fs::write(dir.path().join("rtx.csv"), TABLE).unwrap();
        let text = render(&f);
        assert!(text.contains("user folder: ") && text.contains("none (missing)"), "{text}");
        assert!(text.lines().any(|l| l.starts_with("bad ") && l.contains("unreadable: ")), "{text}");
        assert!(
            text.lines().any(|l| l.starts_with("rtx (hidden by the one above)") && l.ends_with("1: vae")),
            "{text}"
        );
        assert!(text.lines().any(|l| l.starts_with("V100 ") && l.contains("built-in") && l.contains("20: ")), "{text}");
    }
}
