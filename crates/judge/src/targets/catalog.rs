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
use mlb_present::{Body, Cell, Document, Mark};
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

/// `mlb targets list`: every table with where it is from and its benches
/// (a table hidden by an earlier one of the same name says so, an
/// unreadable one says why), then the folders searched.
pub fn document(folders: &Folders) -> Document {
    let all = candidates(folders);
    let rows = all
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let hidden = all[..i].iter().any(|e| e.name.eq_ignore_ascii_case(&c.name));
            let (count, benches) = match c.read() {
                Ok(t) => (
                    t.benches.len().to_string().into(),
                    t.benches.keys().cloned().collect::<Vec<_>>().join(", ").into(),
                ),
                Err(e) => ("-".into(), Cell::marked(format!("unreadable: {e}"), Mark::Fail)),
            };
            let name = if hidden { format!("{} (hidden by the one above)", c.name) } else { c.name.clone() };
            vec![name.into(), c.origin.to_string().into(), count, benches]
        })
        .collect();
    let folder = |dir: &Option<PathBuf>| -> Cell {
        match dir {
            Some(d) if d.is_dir() => d.display().to_string().into(),
            Some(d) => format!("{} (missing)", d.display()).into(),
            None => "none".into(),
        }
    };
    let mut document = Document::new("mlb targets list");
    document.push(
        "Target tables (`--gpu-model MODEL`: the first of a name wins)",
        Body::table(["model", "from", "benches", "names"], rows),
    );
    document.push(
        "Folders searched",
        Body::Pairs(vec![
            ("user".into(), folder(&folders.user)),
            ("installation".into(), folder(&folders.installation)),
        ]),
    );
    document
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
        let document = document(&f);
        let Body::Table(tables) = &document.sections[0].body else { panic!("{document:?}") };
        let row = |name: &str| -> Vec<&str> {
            let row = tables.rows.iter().find(|r| r[0].text == name).unwrap_or_else(|| panic!("{name}: {tables:?}"));
            row.iter().map(|c| c.text.as_str()).collect()
        };
        assert!(row("bad")[3].starts_with("unreadable: "), "{:?}", row("bad"));
        assert_eq!(row("rtx (hidden by the one above)")[2..], ["1", "vae"]);
        assert_eq!(row("V100")[1..3], ["built-in", "20"]);
        let Body::Pairs(folders) = &document.sections[1].body else { panic!("{document:?}") };
        assert!(folders[0].1.text.ends_with("none (missing)"), "{folders:?}");
    }
}
